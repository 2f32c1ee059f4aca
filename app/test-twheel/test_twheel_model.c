/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_model_autotest: seeded random operation sequences checked step by
 * step against the reference model (twheel_model.c), on several wheel
 * geometries: tiny wheels that wrap constantly, a non-power-of-two tick, the
 * standard geometry, fixed deadlines, time at the top of the 64-bit range.
 * Wheels with remote calls also get remote schedules and cancels (of live,
 * dead and forged ids), sent single-threaded as one producer or another:
 * the EAL lcores, each on its lane, and threads without a lane (a non-EAL
 * thread, an lcore id registered after the wheel) on the shared ring
 * (twheel_model.c: the model's thread takes the producer's lcore id for
 * the call). A producer sends a run of calls, then another takes over, so
 * several channels hold messages at once and the sweeps' round-robin over
 * them, cut by small budgets, is what the records' order checks. Floods
 * fill one producer's channel and push past it while the others have
 * room, or come from every producer at once until all channels are full.
 * Each geometry runs two wheels side by side, in turns and with clocks of
 * their own; ids of each are tried on the other (they must be inert).
 *
 *   TWHEEL_MODEL_SEED=<n>   replay a run (the seed is printed)
 *   TWHEEL_MODEL_OPS=<n>    operations per geometry (default 300000)
 *
 * The lanes are the EAL's lcores: meson runs the test with two (-l 0-1),
 * and again with five (twheel_model_autotest_lanes): lcore ids with gaps,
 * a service lcore, and the main lcore, the owner, in the middle.
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_model.h"

#define HOUR_CYCLES (UINT64_C(3600) * 2600000000ULL)

struct model_geometry {
	const char *name;
	uint32_t capacity;
	uint32_t slots;
	uint64_t tick_cycles;
	bool lazy;
	uint64_t start;       /* first now */
	uint32_t ring_size;   /* 0: no remote ring */
};

static uint64_t
pick_deadline(struct tw_model *m, uint64_t *rng)
{
	uint64_t now = tw_model_now(m), rot = tw_model_rotation(m);
	uint64_t tick = tw_model_tick_cycles(m);
	uint32_t r = tw_rand(rng) % 100;

	if (r < 55)
		return tw_sat_add(now, tw_rand(rng) % (3 * rot + 1));
	if (r < 70)
		return tw_sat_add(now, tw_rand(rng) % (2 * tick + 1));
	if (r < 82)
		return tw_sat_sub(now, tw_rand(rng) % (rot + 1));
	if (r < 90)
		return tw_sat_add(now, tw_rand(rng) % (100 * rot + 1));
	if (r < 93)
		return UINT64_MAX - tw_rand(rng) % 4;
	if (r < 96)
		return tw_rand(rng);
	return now;
}

static unsigned int
pick_budget(uint64_t *rng, uint32_t capacity)
{
	uint32_t r = tw_rand(rng) % 100;

	if (r < 65)
		return 1 + tw_rand(rng) % 64;
	if (r < 75)
		return 1;
	if (r < 80)
		return 0;
	return 1 + tw_rand(rng) % (3 * capacity);
}

static uint64_t
next_now(struct tw_model *m, uint64_t now, uint64_t *rng)
{
	uint64_t tick = tw_model_tick_cycles(m);
	uint32_t r = tw_rand(rng) % 4000;

	if (r == 0) {
		tw_model_note_time(m, false, true);
		return tw_sat_add(now, HOUR_CYCLES * (1 + tw_rand(rng) % 3));
	}
	if (r == 1) {
		tw_model_note_time(m, true, false);
		return tw_sat_sub(now, tw_rand(rng) % (HOUR_CYCLES + 1));
	}
	if (r < 6) {
		tw_model_note_time(m, true, false);
		return tw_sat_sub(now, tw_rand(rng) % (4 * tw_model_rotation(m) + 1));
	}
	if (r < 200 && now < tw_model_now(m))
		/* a clock that went back usually comes back soon */
		return tw_sat_add(tw_model_now(m), tw_rand(rng) % (2 * tick + 1));
	return tw_sat_add(now, tw_rand(rng) % (2 * tick + 1));
}

/*
 * The producer of the next remote call: mostly the one of the last call,
 * and now and then another, so producers send runs of calls, interleaved.
 */
static unsigned int
pick_producer(struct tw_model *m, uint64_t *rng, unsigned int *producer)
{
	if (tw_rand(rng) % 8 == 0)
		*producer = (unsigned int)(tw_rand(rng) % tw_model_producers(m));
	return *producer;
}

static int
remote_one(struct tw_model *m, uint64_t *rng, unsigned int p, uint64_t a)
{
	if (a & 1)
		return tw_model_remote_schedule(m, p, pick_deadline(m, rng));
	return tw_model_remote_cancel(m, p, a, (unsigned int)(a >> 56) %
				      TW_MODEL_REMOTE_CANCEL_KINDS);
}

/*
 * A flood: one producer fills its channel and pushes past it (the other
 * channels keep what they hold, and their room), or every producer sends
 * at random until all channels are full, and a few more calls.
 */
static int
flood_op(struct tw_model *m, uint64_t *rng, uint64_t *i, unsigned int p)
{
	uint32_t extra = 1 + tw_rand(rng) % 4, j, n;
	int ret = 0;

	if (tw_rand(rng) % 4 == 0) {
		while (ret == 0 && (tw_model_queued(m) < tw_model_remote_room(m) ||
				    extra-- != 0)) {
			p = (unsigned int)(tw_rand(rng) % tw_model_producers(m));
			ret = remote_one(m, rng, p, tw_rand(rng));
			(*i)++;
		}
		return ret;
	}
	n = tw_model_ring_size(m) - tw_model_queued_by(m, p) + extra;
	for (j = 0; j < n && ret == 0; j++, (*i)++)
		ret = remote_one(m, rng, p, tw_rand(rng));
	return ret;
}

/*
 * A remote operation, from the current producer (single-threaded here,
 * so the model knows the channels' contents exactly); or a short run of
 * calls, each from any producer, so that the next sweep finds several
 * channels with messages; or now and then a flood, more messages than the
 * channels hold: the rest must be refused.
 */
static int
remote_op(struct tw_model *m, uint64_t *rng, uint64_t *i, unsigned int *producer)
{
	uint32_t r = tw_rand(rng) % 100, j, n;
	unsigned int p = pick_producer(m, rng, producer);
	int ret = 0;

	if (r < 45)
		return tw_model_remote_schedule(m, p, pick_deadline(m, rng));
	if (r < 60) {
		n = 2 + tw_rand(rng) % 8;
		for (j = 0; j < n && ret == 0; j++, (*i)++)
			ret = remote_one(m, rng, (unsigned int)(tw_rand(rng) %
					 tw_model_producers(m)), tw_rand(rng));
		return ret;
	}
	/* floods about as often whatever the ring's size */
	if (r < 97 || tw_rand(rng) % (tw_model_ring_size(m) / 16 + 1) != 0)
		return remote_one(m, rng, p, tw_rand(rng) & ~UINT64_C(1));
	return flood_op(m, rng, i, p);
}

/* A burst through twheel_cancel_bulk() or twheel_move_bulk(). */
static int
bulk_op(struct tw_model *m, uint64_t *rng, uint64_t a)
{
	uint64_t picks[TW_MODEL_BULK_MAX], dl[TW_MODEL_BULK_MAX];
	unsigned int i, n = 1 + a % TW_MODEL_BULK_MAX;

	for (i = 0; i < n; i++) {
		picks[i] = tw_rand(rng);
		dl[i] = pick_deadline(m, rng);
	}
	return tw_model_bulk(m, picks, (a >> 32) & 1 ? dl : NULL, n);
}

static void
print_tally(const struct model_geometry *g, struct tw_model *m, const char *name)
{
	struct tw_model_tally t;

	tw_model_tally_get(m, &t);
	printf("  %-10s %7" PRIu64 " steps: %" PRIu64 " schedules (%" PRIu64
	       " ENOSPC), %" PRIu64 " cancels, %" PRIu64 " moves, %" PRIu64
	       " refreshes, %" PRIu64 " stale, %" PRIu64 " forged (%" PRIu64
	       " of the other wheel), %" PRIu64 " sweeps, %" PRIu64 " due, %"
	       PRIu64 " revisits, %" PRIu64 " drained, %" PRIu64
	       " lateness checks, %" PRIu64 " jumps, %" PRIu64 " backwards (%"
	       PRIu64 " by more than a rotation); %" PRIu64 " sweeps stopped"
	       " with work left, %" PRIu64 " finished on the budget's last"
	       " unit\n", name, tw_model_steps(m),
	       t.schedules, t.enospc, t.cancels, t.moves, t.refreshes, t.stale,
	       t.forged, t.foreign, t.sweeps, t.due, t.revisits, t.drained,
	       t.lateness_checks, t.jumps, t.backwards, t.rebases, t.more,
	       t.exact);
	if (g->ring_size == 0)
		return;
	printf("  %-10s remote (%u lanes + ring, %u each): %" PRIu64
	       " schedules (%" PRIu64 " adopted, %" PRIu64 " rejected), %"
	       PRIu64 " cancels (%" PRIu64 " cancelled, %" PRIu64 " stale), %"
	       PRIu64 " refused with -ENOBUFS\n", name, tw_model_lanes(m),
	       g->ring_size, t.remote_schedules, t.adopted, t.rejected,
	       t.remote_cancels, t.remote_cancelled, t.remote_stale,
	       t.remote_full);
	printf("  %-10s channels: %" PRIu64 " calls on lanes (%" PRIu64
	       " refused), %" PRIu64 " on the ring (%" PRIu64 " refused); %"
	       PRIu64 " applies from several channels, %" PRIu64 " visits cut"
	       " by the budget, %" PRIu64 " by the burst\n", name, t.lane_calls,
	       t.lane_full, t.ring_calls, t.ring_full, t.mixed, t.visits_cut,
	       t.visits_burst);
}

/* The remote producers and their channels, once per run. */
static void
print_producers(struct tw_model *m)
{
	unsigned int p;

	printf("twheel_model: remote producers:");
	for (p = 0; p < tw_model_producers(m); p++)
		printf("%s %s", p == 0 ? "" : ",", tw_model_producer_name(m, p));
	printf("\n");
}

/* One step on one of the two wheels. */
static int
model_step(const struct model_geometry *g, struct tw_model *m, uint64_t *now,
	   uint64_t *rng, uint64_t *i, unsigned int *producer)
{
	uint32_t r = tw_rand(rng) % 100;
	uint64_t a = tw_rand(rng);
	int ret = 0;

	/* remote calls: ~12% of the steps with a ring, rare without */
	if (a % 1000 < (g->ring_size != 0 ? 120u : 1u))
		return remote_op(m, rng, i, producer);
	if (r < 34)
		return tw_model_schedule(m, pick_deadline(m, rng));
	if (r < 41)
		return tw_model_cancel(m, a);
	if (r < 47)
		return tw_model_move(m, a, pick_deadline(m, rng));
	if (r < 48)
		return bulk_op(m, rng, a);
	if (r < 60)
		return tw_model_refresh(m, a, tw_rand(rng) %
					(2 * tw_model_rotation(m) + 1));
	if (r < 64)
		return tw_model_stale(m, a, pick_deadline(m, rng));
	if (r < 67)
		return tw_model_forged(m, a, (unsigned int)(a >> 61));
	if (r < 68) {
		/*
		 * Now and then a burst of new flows presses against capacity;
		 * bursts make up about a tenth of the steps.
		 */
		uint32_t j, burst;

		if (tw_rand(rng) % (g->capacity / 40 + 1) != 0)
			return 0;
		/* up to capacity, and a few more that must fail */
		burst = g->capacity - tw_model_live(m) + g->capacity / 16 + 1;
		for (j = 0; j < burst && ret == 0; j++, (*i)++)
			ret = tw_model_schedule(m, pick_deadline(m, rng));
		return ret;
	}
	if (r < 99) {
		*now = next_now(m, *now, rng);
		return tw_model_sweep(m, *now, pick_budget(rng, g->capacity));
	}
	if (tw_rand(rng) % 50 == 0) {
		/* drain everything now and then, as a port reset would */
		while (ret == 0 && tw_model_live(m) != 0)
			ret = tw_model_drain(m, 1 + tw_rand(rng) % 64);
		return ret;
	}
	return tw_model_drain(m, 1 + tw_rand(rng) % 8);
}

/*
 * Two wheels of the geometry, driven in turns, each with its own clock;
 * each one's forged ids include the other's live and dead ids.
 */
static int
run_geometry(const struct model_geometry *g, uint64_t seed, uint64_t ops,
	     uint64_t *steps_done, bool *shown)
{
	struct tw_model_cfg cfg = {
		.name = g->name, .capacity = g->capacity, .slots = g->slots,
		.tick_cycles = g->tick_cycles, .lazy = g->lazy,
		.ring_size = g->ring_size,
	};
	char name_b[TWHEEL_NAME_MAX_LEN + 1];
	struct tw_model *m[2];
	uint64_t rng = seed, now[2] = { g->start, g->start }, i;
	unsigned int k, producer[2] = { 0, 0 };
	int ret = 0;

	snprintf(name_b, sizeof(name_b), "%s_b", g->name);
	m[0] = tw_model_create(&cfg);
	cfg.name = name_b;
	m[1] = tw_model_create(&cfg);
	if (m[0] == NULL || m[1] == NULL) {
		tw_model_free(m[0]);
		tw_model_free(m[1]);
		TEST_ASSERT(false, "models for %s", g->name);
	}
	tw_model_pair(m[0], m[1]);
	if (g->ring_size != 0 && !*shown) {
		print_producers(m[0]);
		*shown = true;
	}
	for (k = 0; k < 2 && ret == 0; k++) {
		ret = tw_model_sweep(m[k], now[k], 1);
		if (ret != 0)
			break;
	}
	for (i = 0; i < ops && ret == 0; i++) {
		k = (unsigned int)(tw_rand(&rng) & 1);
		ret = model_step(g, m[k], &now[k], &rng, &i, &producer[k]);
	}
	for (k = ret == 0 ? 0 : k; k < 2 && ret == 0; k++) {
		ret = tw_model_finish(m[k]);
		if (ret != 0)
			break;
	}
	print_tally(g, m[0], g->name);
	print_tally(g, m[1], name_b);
	*steps_done += tw_model_steps(m[0]) + tw_model_steps(m[1]);
	if (ret != 0)
		printf("  %s: MODEL MISMATCH (seed %#" PRIx64 "): %s\n",
		       k == 0 ? g->name : name_b, seed, tw_model_error(m[k]));
	tw_model_free(m[0]);
	tw_model_free(m[1]);
	return ret == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
test_twheel_model(void)
{
	const struct model_geometry geometries[] = {
		{ "m_tiny",  64,   2,    1,        false, 0, 0 },
		{ "m_wrap",  512,  16,   7,        true,  1000, 16 },
		{ "m_lazy",  1024, 64,   1000,     true,  123456789, 0 },
		{ "m_std",   4096, 8192, 26000000, true,  0x0123456789abcdefULL, 4096 },
		{ "m_fixed", 2048, 256,  3,        false, UINT64_C(1) << 63, 8 },
		/* TSC values near the top: most of the run at the end of time */
		{ "m_top",   256,  32,   2,        true,  UINT64_MAX - 5000000, 32 },
		/* a small wheel kept full by remote schedules: REJECTED records */
		{ "m_remote", 32,  8,    5,        true,  77, 64 },
	};
	uint64_t seed = test_env_u64("TWHEEL_MODEL_SEED", rte_rdtsc());
	uint64_t ops = test_env_u64("TWHEEL_MODEL_OPS", 300000);
	uint64_t steps = 0;
	unsigned int i;
	bool shown = false;
	int ret = TEST_SUCCESS;

	printf("twheel_model: seed %#" PRIx64 " (TWHEEL_MODEL_SEED=%#" PRIx64
	       " replays), %" PRIu64 " operations per geometry\n", seed, seed, ops);
	for (i = 0; i < RTE_DIM(geometries) && ret == TEST_SUCCESS; i++)
		ret = run_geometry(&geometries[i], seed + i, ops, &steps,
				   &shown);
	printf("twheel_model: %" PRIu64 " operations checked against the model\n",
	       steps);
	return ret;
}

REGISTER_TEST_COMMAND(twheel_model_autotest, test_twheel_model);
