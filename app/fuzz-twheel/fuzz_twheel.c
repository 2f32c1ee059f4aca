/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * fuzz-twheel: a libFuzzer harness that turns its input into a wheel
 * geometry and a sequence of operations, and runs them through the shared
 * reference model (app/test-twheel/twheel_model.c, the same source as
 * twheel_model_autotest), which checks every step against the invariants of
 * doc/guide.md. A divergence prints the model's message and aborts, so
 * libFuzzer keeps the input as a crash artifact.
 *
 * Input layout (every read past the end gives zeros, so any input decodes):
 *
 *   geometry  capacity (2 bytes), slots (1), tick kind (1, + 1..9 bytes),
 *             flags (1: lazy deadlines, remote channel size), start time
 *             (1, + 8)
 *   then ops  one opcode byte each (the operation in its low 4 bits, which
 *             of two wheels of that geometry it goes to in the next, and the
 *             producer of a remote call in the top 3), followed by its
 *             arguments: schedule, cancel, move, refresh, stale and forged
 *             ids, sweeps with small steps, tick edges, jumps of rotations
 *             or days, steps backwards and UINT64_MAX, budgets 0, 1, small
 *             and large, drain, bursts past capacity, remote schedules and
 *             cancels, floods that fill the producer's channel and push
 *             past it. Each wheel has its own clock; forged ids and remote
 *             cancels include the other wheel's ids, which must be inert.
 *
 * Producers. The remote calls of consecutive ops come from the producers
 * the opcodes name (the model's numbering, modulo their number): the EAL
 * lcores, each on its own lane, and threads without one (a non-EAL thread,
 * an lcore id with no lane) on the shared ring; the model makes each call
 * under the producer's lcore id and predicts each channel's -ENOBUFS and
 * the owner's round-robin over them. Inputs written before the lanes
 * decode to the same operations; their remote calls now come from the
 * producers their opcodes' top bits name.
 *
 * The EAL is initialised once, in LLVMFuzzerInitialize(), without
 * hugepages or shared config files, with a file prefix of its own per
 * process (so libFuzzer's -jobs/-fork workers and other DPDK processes
 * never meet), and three lcores on CPU 0, lcore ids 0, 2 and 5, the main
 * one lcore 2: three lanes, not contiguous, the owner's own lane in the
 * middle. The other two lcores' threads wait in the EAL and never run.
 *
 *   TWHEEL_FUZZ_TRACE=1   print the decoded geometry and every operation
 *                         (for replaying a crash; see doc/reliability.md)
 */

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <twheel.h>

#include "fuzz_common.h"
#include "twheel_model.h"

#define FUZZ_MAX_CAPACITY 600
#define FUZZ_MAX_OPS 8192
#define FUZZ_MAX_STEPS 100000     /* model steps per input: bursts, floods */
#define DAY_CYCLES (UINT64_C(86400) * 2600000000ULL)

static bool trace;

#define TRACE(...) do { if (trace) printf(__VA_ARGS__); } while (0)

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	char prefix[64];
	char *eal_argv[] = {
		"fuzz-twheel", "--no-huge", "-m", "128", "--no-pci",
		"--no-telemetry", "--no-shconf", "--lcores", "0@0,2@0,5@0",
		"--main-lcore", "2",
		"--log-level=lib.eal:error", "--log-level=lib.twheel:error",
		prefix, NULL,
	};

	trace = getenv("TWHEEL_FUZZ_TRACE") != NULL;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_twheel_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "fuzz-twheel: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		abort();
	}
	atexit(fuzz_eal_done);
	return 0;
}

/* Geometry ---------------------------------------------------------------- */

static uint64_t
decode_tick(struct reader *r)
{
	switch (take(r, 1) % 8) {
	case 0: return 1;
	case 1: return 2;
	case 2: return 3;
	case 3: return 7;
	case 4: return 1000;
	case 5: return 26000000;        /* 10 ms at 2.6 GHz */
	case 6:
		/* any 32- or 64-bit length: the reciprocal division path */
		if (take(r, 1) & 1)
			return 1 + take(r, 4);
		return RTE_MAX(take(r, 8), UINT64_C(1));
	default: return UINT64_C(1) << (take(r, 1) % 64);
	}
}

static const uint32_t ring_sizes[8] = { 0, 1, 2, 8, 16, 64, 0, 4096 };

static uint64_t
decode_start(struct reader *r)
{
	switch (take(r, 1) % 4) {
	case 0: return take(r, 2);
	case 1: return take(r, 8);
	case 2: return UINT64_MAX - take(r, 4);
	default: return (UINT64_C(1) << 63) + take(r, 4);
	}
}

/* Operands ----------------------------------------------------------------- */

static uint64_t
decode_deadline(struct reader *r, struct tw_model *m)
{
	uint64_t now = tw_model_now(m), rot = tw_model_rotation(m);
	uint64_t tick = tw_model_tick_cycles(m), edge;

	switch (take(r, 1) % 8) {
	case 0: return tw_sat_add(now, take(r, 2));
	case 1: return tw_sat_add(now, take(r, 4) % tw_sat_add(tw_sat_mul(3, rot), 1));
	case 2: return tw_sat_sub(now, take(r, 4) % tw_sat_add(rot, 1));
	case 3: return tw_sat_add(tw_sat_add(now, tw_sat_mul(take(r, 1) + 1, rot)),
			       take(r, 2));
	case 4: return UINT64_MAX - take(r, 1);
	case 5: return take(r, 8);
	case 6: return now;
	default:
		/* a tick boundary ahead, or just before or after it */
		edge = tw_sat_mul(tw_sat_add(now / tick, take(r, 1)), tick);
		return tw_sat_add(tw_sat_sub(edge, 1), take(r, 1) % 3);
	}
}

static unsigned int
decode_budget(struct reader *r, struct tw_model *m)
{
	switch (take(r, 1) % 8) {
	case 0: return 0;
	case 1: return 1;
	case 6: return 3 * tw_model_capacity(m) + tw_model_remote_room(m);
	case 7: return (unsigned int)take(r, 2);
	default: return 1 + (unsigned int)(take(r, 1) % 64);
	}
}

/* The next now: steps, tick edges, jumps forward, backwards, the end. */
static uint64_t
decode_now(struct reader *r, struct tw_model *m, uint64_t now)
{
	uint64_t tick = tw_model_tick_cycles(m), rot = tw_model_rotation(m);

	switch (take(r, 1) % 16) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		return tw_sat_add(now, take(r, 4) % tw_sat_add(tw_sat_mul(2, tick), 1));
	case 6: case 7:
		/* the last cycle of a tick, or the first of the next */
		return tw_sat_add(tw_sat_mul(tw_sat_add(now / tick, 1), tick),
			       take(r, 1) % 2) - 1;
	case 8:
		tw_model_note_time(m, false, true);
		return tw_sat_add(now, tw_sat_mul(take(r, 1) + 1, rot));
	case 9:
		tw_model_note_time(m, false, true);
		return tw_sat_add(now, tw_sat_mul(take(r, 1) % 8 + 1, DAY_CYCLES));
	case 10:
		tw_model_note_time(m, true, false);
		return tw_sat_sub(now, take(r, 4) % tw_sat_add(tw_sat_mul(4, tick), 1));
	case 11:
		tw_model_note_time(m, true, false);
		return tw_sat_sub(now, tw_sat_mul(take(r, 1) % 8 + 1, DAY_CYCLES));
	case 12:
		/* after going back, come back to where time was */
		return tw_sat_add(tw_model_now(m), take(r, 2) % tw_sat_add(tick, 1));
	case 13:
		return UINT64_MAX - take(r, 1) % 4;
	case 14:
		tw_model_note_time(m, true, false);
		return take(r, 8);
	default:
		return now;
	}
}

/* One input --------------------------------------------------------------- */

enum fuzz_op {
	OP_SCHEDULE, OP_CANCEL, OP_MOVE, OP_REFRESH, OP_STALE, OP_FORGED,
	OP_SWEEP, OP_SWEEP2, OP_SWEEP3, OP_DRAIN, OP_REMOTE_SCHEDULE,
	OP_REMOTE_CANCEL, OP_BURST, OP_FLOOD, OP_DRAIN_ALL, OP_BULK,
	OP_COUNT
};

/*
 * Producer p fills its channel, and a few more calls must be refused; the
 * other channels keep their messages and their room.
 */
static int
flood(struct reader *r, struct tw_model *m, unsigned int p)
{
	uint32_t n = tw_model_ring_size(m) - tw_model_queued_by(m, p) + 1 +
		(uint32_t)take(r, 1) % 4, i;
	uint64_t d = decode_deadline(r, m), a = take(r, 1);
	int ret = 0;

	TRACE("flood of %u remote calls from %s (%u queued in all)\n", n,
	      tw_model_producer_name(m, p), tw_model_queued(m));
	for (i = 0; i < n && ret == 0; i++)
		ret = (a >> (i % 8)) & 1 ?
			tw_model_remote_cancel(m, p, a + i, (i + a) %
					       TW_MODEL_REMOTE_CANCEL_KINDS) :
			tw_model_remote_schedule(m, p, tw_sat_add(d, i));
	return ret;
}

static int
run_op(struct reader *r, struct tw_model *m, uint64_t *now, unsigned int op,
       unsigned int p)
{
	uint64_t a, d;
	unsigned int b, k;
	uint32_t n, i;
	int ret = 0;

	switch (op) {
	case OP_SCHEDULE:
		d = decode_deadline(r, m);
		TRACE("schedule %" PRIu64 "\n", d);
		return tw_model_schedule(m, d);
	case OP_CANCEL:
		a = take(r, 2);
		TRACE("cancel pick %" PRIu64 "\n", a);
		return tw_model_cancel(m, a);
	case OP_MOVE:
		a = take(r, 2);
		d = decode_deadline(r, m);
		TRACE("move pick %" PRIu64 " to %" PRIu64 "\n", a, d);
		return tw_model_move(m, a, d);
	case OP_REFRESH:
		a = take(r, 2);
		d = take(r, 1) % 2 ? take(r, 2) :
			take(r, 4) % tw_sat_add(tw_sat_mul(2, tw_model_rotation(m)), 1);
		TRACE("refresh pick %" PRIu64 " by %" PRIu64 "\n", a, d);
		return tw_model_refresh(m, a, d);
	case OP_STALE:
		a = take(r, 2);
		d = decode_deadline(r, m);
		TRACE("stale pick %" PRIu64 "\n", a);
		return tw_model_stale(m, a, d);
	case OP_FORGED:
		a = take(r, 8);
		k = (unsigned int)take(r, 1);
		TRACE("forged %#" PRIx64 " kind %u\n", a, k % TW_MODEL_FORGE_KINDS);
		return tw_model_forged(m, a, k);
	case OP_SWEEP:
	case OP_SWEEP2:
	case OP_SWEEP3:
		*now = decode_now(r, m, *now);
		b = decode_budget(r, m);
		TRACE("sweep now %" PRIu64 " budget %u\n", *now, b);
		return tw_model_sweep(m, *now, b);
	case OP_DRAIN:
		b = decode_budget(r, m);
		TRACE("drain budget %u\n", b);
		return tw_model_drain(m, b);
	case OP_REMOTE_SCHEDULE:
		d = decode_deadline(r, m);
		TRACE("remote schedule %" PRIu64 " from %s\n", d,
		      tw_model_producer_name(m, p));
		return tw_model_remote_schedule(m, p, d);
	case OP_REMOTE_CANCEL:
		a = take(r, 8);
		k = (unsigned int)take(r, 1) % TW_MODEL_REMOTE_CANCEL_KINDS;
		TRACE("remote cancel %#" PRIx64 " kind %u from %s\n", a, k,
		      tw_model_producer_name(m, p));
		return tw_model_remote_cancel(m, p, a, k);
	case OP_BURST:
		/* capacity pressure: fill up, and a few more that must fail */
		n = tw_model_capacity(m) - tw_model_live(m) + 1 +
			(uint32_t)take(r, 1) % 4;
		d = decode_deadline(r, m);
		TRACE("burst of %u schedules at %" PRIu64 "\n", n, d);
		for (i = 0; i < n && ret == 0; i++)
			ret = tw_model_schedule(m, tw_sat_add(d, i));
		return ret;
	case OP_BULK: {
		/* twheel_cancel_bulk / twheel_move_bulk over up to 32 ids */
		uint64_t picks[32], dl[32];
		bool move = take(r, 1) & 1;

		n = 1 + (uint32_t)take(r, 1) % 32;
		for (i = 0; i < n; i++) {
			picks[i] = take(r, 2);
			dl[i] = move ? decode_deadline(r, m) : 0;
		}
		TRACE("%s_bulk of %u\n", move ? "move" : "cancel", n);
		return tw_model_bulk(m, picks, move ? dl : NULL, n);
	}
	case OP_FLOOD:
		return flood(r, m, p);
	default:
		b = 1 + (unsigned int)take(r, 1) % 64;
		TRACE("drain all, budget %u\n", b);
		while (ret == 0 && (tw_model_live(m) != 0 || tw_model_queued(m) != 0))
			ret = tw_model_drain(m, b);
		return ret;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct tw_model_cfg cfg = { .name = "fz" };
	struct tw_model *m[2];
	uint64_t now[2];
	unsigned int ops, code, k = 0;
	uint8_t flags;
	int ret;

	cfg.capacity = 1 + (uint32_t)(take(&r, 2) % FUZZ_MAX_CAPACITY);
	cfg.slots = UINT32_C(2) << (take(&r, 1) % 13);
	cfg.tick_cycles = decode_tick(&r);
	flags = (uint8_t)take(&r, 1);
	cfg.lazy = flags & 1;
	cfg.ring_size = ring_sizes[(flags >> 1) % RTE_DIM(ring_sizes)];
	now[0] = now[1] = decode_start(&r);
	TRACE("geometry: capacity %u slots %u tick %" PRIu64 " %s, remote"
	      " channels of %u, start %" PRIu64 ", two wheels\n", cfg.capacity,
	      cfg.slots, cfg.tick_cycles, cfg.lazy ? "lazy" : "fixed",
	      cfg.ring_size, now[0]);

	m[0] = tw_model_create(&cfg);
	cfg.name = "fz_b";
	m[1] = tw_model_create(&cfg);
	if (m[0] == NULL || m[1] == NULL) {
		fprintf(stderr, "fuzz-twheel: cannot create the models' wheels\n");
		abort();
	}
	tw_model_pair(m[0], m[1]);
	for (k = 0; trace && k < tw_model_producers(m[0]); k++)
		printf("producer %u: %s\n", k, tw_model_producer_name(m[0], k));
	ret = tw_model_sweep(m[0], now[0], 1);
	if (ret == 0)
		ret = tw_model_sweep(m[1], now[1], 1);
	/*
	 * an opcode byte: the operation, which wheel (its next bit) and the
	 * producer of a remote call (the top three)
	 */
	for (ops = 0; ret == 0 && r.left != 0 && ops < FUZZ_MAX_OPS &&
	     tw_model_steps(m[0]) + tw_model_steps(m[1]) < FUZZ_MAX_STEPS;
	     ops++) {
		code = (unsigned int)take(&r, 1);
		k = (code / OP_COUNT) & 1;
		TRACE("wheel %u: ", k);
		ret = run_op(&r, m[k], &now[k], code % OP_COUNT,
			     code / (2 * OP_COUNT));
	}
	for (k = ret == 0 ? 0 : k; ret == 0 && k < 2; k++) {
		ret = tw_model_finish(m[k]);
		if (ret != 0)
			break;
	}
	if (ret != 0) {
		fprintf(stderr, "fuzz-twheel: MODEL MISMATCH (wheel %u of 2, capacity"
			" %u slots %u tick %" PRIu64 " %s channels of %u): %s\n", k,
			cfg.capacity, cfg.slots, cfg.tick_cycles,
			cfg.lazy ? "lazy" : "fixed", cfg.ring_size,
			tw_model_error(m[k]));
		abort();
	}
	tw_model_free(m[0]);
	tw_model_free(m[1]);
	return 0;
}
