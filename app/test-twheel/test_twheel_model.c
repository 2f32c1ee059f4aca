/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_model_autotest: seeded random operation sequences checked step by
 * step against the reference model (twheel_model.c), on several wheel
 * geometries: tiny wheels that wrap constantly, a non-power-of-two tick, the
 * standard geometry, fixed deadlines, time at the top of the 64-bit range.
 * Wheels with a remote ring also get remote schedules and cancels (of live,
 * dead and forged ids), sent single-threaded, and floods that fill the ring.
 *
 *   TWHEEL_MODEL_SEED=<n>   replay a run (the seed is printed)
 *   TWHEEL_MODEL_OPS=<n>    operations per geometry (default 300000)
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
 * A remote operation, as another lcore would send it (single-threaded
 * here, so the model knows the ring's contents exactly). Now and then a
 * flood: more messages than the ring holds, the rest must be refused.
 */
static int
remote_op(struct tw_model *m, uint64_t *rng, uint64_t *i)
{
	uint32_t r = tw_rand(rng) % 100;
	uint64_t a = tw_rand(rng);
	uint32_t j, flood;
	int ret = 0;

	if (r < 55)
		return tw_model_remote_schedule(m, pick_deadline(m, rng));
	/* floods about as often whatever the ring's size */
	if (r < 97 || tw_rand(rng) % (tw_model_ring_size(m) / 16 + 1) != 0)
		return tw_model_remote_cancel(m, a, (unsigned int)(a >> 59) % 8);
	flood = tw_model_ring_size(m) - tw_model_queued(m) + 1 + tw_rand(rng) % 4;
	for (j = 0; j < flood && ret == 0; j++, (*i)++) {
		a = tw_rand(rng);
		if (a & 1)
			ret = tw_model_remote_schedule(m, pick_deadline(m, rng));
		else
			ret = tw_model_remote_cancel(m, a, (unsigned int)(a >> 59) % 8);
	}
	return ret;
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

static int
run_geometry(const struct model_geometry *g, uint64_t seed, uint64_t ops,
	     uint64_t *steps_done)
{
	struct tw_model_cfg cfg = {
		.name = g->name, .capacity = g->capacity, .slots = g->slots,
		.tick_cycles = g->tick_cycles, .lazy = g->lazy,
		.ring_size = g->ring_size,
	};
	struct tw_model_tally t;
	struct tw_model *m;
	uint64_t rng = seed, now = g->start, i;
	int ret = 0;

	m = tw_model_create(&cfg);
	TEST_ASSERT_NOT_NULL(m, "model for %s", g->name);
	ret = tw_model_sweep(m, now, 1);
	for (i = 0; i < ops && ret == 0; i++) {
		uint32_t r = tw_rand(&rng) % 100;
		uint64_t a = tw_rand(&rng);

		/* remote calls: ~12% of the steps with a ring, rare without */
		if (a % 1000 < (g->ring_size != 0 ? 120u : 1u)) {
			ret = remote_op(m, &rng, &i);
			continue;
		}
		if (r < 34)
			ret = tw_model_schedule(m, pick_deadline(m, &rng));
		else if (r < 41)
			ret = tw_model_cancel(m, a);
		else if (r < 47)
			ret = tw_model_move(m, a, pick_deadline(m, &rng));
		else if (r < 48)
			ret = bulk_op(m, &rng, a);
		else if (r < 60)
			ret = tw_model_refresh(m, a, tw_rand(&rng) %
					       (2 * tw_model_rotation(m) + 1));
		else if (r < 64)
			ret = tw_model_stale(m, a, pick_deadline(m, &rng));
		else if (r < 67)
			ret = tw_model_forged(m, a, (unsigned int)(a >> 61));
		else if (r < 68) {
			/*
			 * Now and then a burst of new flows presses against
			 * capacity; bursts make up about a tenth of the steps.
			 */
			uint32_t j, burst;

			if (tw_rand(&rng) % (g->capacity / 40 + 1) != 0)
				continue;
			/* up to capacity, and a few more that must fail */
			burst = g->capacity - tw_model_live(m) + g->capacity / 16 + 1;

			for (j = 0; j < burst && ret == 0; j++, i++)
				ret = tw_model_schedule(m, pick_deadline(m, &rng));
		} else if (r < 99) {
			now = next_now(m, now, &rng);
			ret = tw_model_sweep(m, now, pick_budget(&rng, g->capacity));
		} else if (tw_rand(&rng) % 50 == 0) {
			/* drain everything now and then, as a port reset would */
			while (ret == 0 && tw_model_live(m) != 0)
				ret = tw_model_drain(m, 1 + tw_rand(&rng) % 64);
		} else {
			ret = tw_model_drain(m, 1 + tw_rand(&rng) % 8);
		}
	}
	if (ret == 0)
		ret = tw_model_finish(m);
	tw_model_tally_get(m, &t);
	*steps_done += tw_model_steps(m);
	printf("  %-10s %7" PRIu64 " steps: %" PRIu64 " schedules (%" PRIu64
	       " ENOSPC), %" PRIu64 " cancels, %" PRIu64 " moves, %" PRIu64
	       " refreshes, %" PRIu64 " stale, %" PRIu64 " forged, %" PRIu64
	       " sweeps, %" PRIu64 " due, %" PRIu64 " revisits, %" PRIu64
	       " drained, %" PRIu64 " lateness checks, %" PRIu64 " jumps, %"
	       PRIu64 " backwards\n", g->name, tw_model_steps(m), t.schedules,
	       t.enospc, t.cancels, t.moves, t.refreshes, t.stale, t.forged,
	       t.sweeps, t.due, t.revisits, t.drained, t.lateness_checks,
	       t.jumps, t.backwards);
	if (g->ring_size != 0)
		printf("  %-10s remote (ring %u): %" PRIu64 " schedules (%" PRIu64
		       " adopted, %" PRIu64 " rejected), %" PRIu64 " cancels (%"
		       PRIu64 " cancelled, %" PRIu64 " stale), %" PRIu64
		       " refused with -ENOBUFS\n", g->name, g->ring_size,
		       t.remote_schedules, t.adopted, t.rejected, t.remote_cancels,
		       t.remote_cancelled, t.remote_stale, t.remote_full);
	if (ret != 0)
		printf("  %s: MODEL MISMATCH (seed %#" PRIx64 "): %s\n", g->name,
		       seed, tw_model_error(m));
	tw_model_free(m);
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
	int ret = TEST_SUCCESS;

	printf("twheel_model: seed %#" PRIx64 " (TWHEEL_MODEL_SEED=%#" PRIx64
	       " replays), %" PRIu64 " operations per geometry\n", seed, seed, ops);
	for (i = 0; i < RTE_DIM(geometries) && ret == TEST_SUCCESS; i++)
		ret = run_geometry(&geometries[i], seed + i, ops, &steps);
	printf("twheel_model: %" PRIu64 " operations checked against the model\n",
	       steps);
	return ret;
}

REGISTER_TEST_COMMAND(twheel_model_autotest, test_twheel_model);
