/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker loop's own accounting, its --bench stage timers, and the
 * control path's requests to it.
 *
 * Once per iteration (fx_loop_end()): its length is "loop_max" at most,
 * one longer than the stall threshold (100 us) is a "stall" (a counter),
 * and the iterations that had packets add up to "busy_cycles" (TSC). The
 * expiry polls are timed by the worker: the longest is "sweep_max", all
 * of them add up to "expiry_cycles", those of iterations without packets
 * to "idle_expiry_cycles" (busy_cycles + idle_expiry_cycles is the
 * worker's work).
 *
 * --bench only, kept out of the production path (one predictable branch
 * on a read-only flag when off):
 *   stage timers  where a worker's cycles go: each stage of a burst (rx,
 *                 parse, handoff, nat, lookup, flow, forward, tx:
 *                 FX_STAGES) adds its TSC cycles to its counter; divided
 *                 by the packets received they give each stage's cost per
 *                 packet; busy_cycles minus their sum is the loop itself;
 *   expiry hold   /l3fwd_flowexp/hold,MS (ctl/control.c) makes the workers
 *                 skip their expiry polls until a TSC time, so that what
 *                 comes due meanwhile is due at once: the benchmark's
 *                 expiry storm.
 *
 * Requests from the control path (struct fx_loop_requests, on a line of
 * their own, written by the main lcore or the telemetry thread, read by
 * the worker): a reset is a count the worker compares with the last one
 * it handled; it zeroes its own maxima and lag figures (loop, flows,
 * NAT), so no other thread ever writes them.
 */

#ifndef _FX_LOOP_H_
#define _FX_LOOP_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "base/atomic.h"
#include "base/config.h"
#include "base/counter.h"

/* The stages of a burst, timed with --bench: enum and output name. */
#define FX_STAGES(X) \
	X(RX, "rx") X(PARSE, "parse") X(HANDOFF, "handoff") X(NAT, "nat") \
	X(LOOKUP, "lookup") X(FLOW, "flow") X(FORWARD, "forward") X(TX, "tx")

enum fx_stage {
#define FX_STAGE_ENUM(e, s) FX_STAGE_ ## e,
	FX_STAGES(FX_STAGE_ENUM)
#undef FX_STAGE_ENUM
	FX_STAGE_MAX
};

/** The loop's counters; the name is also the output field. */
#define FX_LOOP_COUNTERS(X) \
	X(loops) X(stalls) X(busy_cycles) X(expiry_cycles) X(idle_expiry_cycles)

/** What the loop counts; written by the owner only, read by anyone. */
struct fx_loop_stats {
#define FX_LOOP_FIELD(n) uint64_t n;
	FX_LOOP_COUNTERS(FX_LOOP_FIELD)
#undef FX_LOOP_FIELD
	uint64_t last_rx;                    /**< TSC of the last packet received */
	uint64_t sweep_max;                  /**< cycles, one expiry poll (reset) */
	uint64_t loop_max;                   /**< cycles, one loop iteration (reset) */
	uint64_t stage_cycles[FX_STAGE_MAX]; /**< --bench only (FX_STAGES) */
};

/** The loop's own state (owner only). */
struct fx_loop {
	uint64_t prev;           /**< TSC at the end of the previous iteration */
	uint64_t stall_cycles;   /**< a longer iteration is a stall */
	uint32_t reset_seen;     /**< reset requests handled */
};

/** What the control path asks of a worker. */
struct fx_loop_requests {
	uint32_t reset;          /**< reset the maxima when != fx_loop.reset_seen */
	uint64_t hold_until;     /**< TSC: no expiry poll before (--bench only) */
};

/** Start of a stage: the TSC with --bench, else 0. */
static inline uint64_t
fx_stage_start(void)
{
	return unlikely(fx_conf.bench) ? rte_rdtsc() : 0;
}

/** Add the cycles since t0 to stage s; returns the TSC now (0 without --bench). */
static inline uint64_t
fx_stage_end(struct fx_loop_stats *st, enum fx_stage s, uint64_t t0)
{
	uint64_t t;

	if (likely(!fx_conf.bench))
		return 0;
	t = rte_rdtsc();
	FX_STAT_ADD(st, stage_cycles[s], t - t0);
	return t;
}

/** Whether a benchmark holds the expiry polls at TSC now. */
static inline bool
fx_bench_expiry_held(const struct fx_loop_requests *rq, uint64_t now)
{
	/* a time, ordering nothing (ctl/control.c writes it) */
	return unlikely(fx_conf.bench) && now < fx_load_relaxed(&rq->hold_until);
}

/**
 * End of a loop iteration at TSC `end`, which received `got` packets:
 * count it, and see to a reset request. Owner only. Returns whether a
 * reset was asked for: the loop's maxima are zeroed, and the caller
 * zeroes the other parts' (flows, NAT).
 */
static inline bool
fx_loop_end(struct fx_loop_stats *st, struct fx_loop *lp,
	    const struct fx_loop_requests *rq, uint64_t end, unsigned int got)
{
	uint64_t len = end - lp->prev;
	uint32_t req;

	FX_STAT_MAX(st, loop_max, len);
	if (got != 0)
		FX_STAT_ADD(st, busy_cycles, len);
	if (unlikely(len > lp->stall_cycles))
		FX_STAT_ADD(st, stalls, 1);
	FX_STAT_ADD(st, loops, 1);
	lp->prev = end;
	/* a count, ordering nothing: the reset touches the owner's own fields */
	req = fx_load_relaxed(&rq->reset);
	if (likely(req == lp->reset_seen))
		return false;
	FX_STAT_SET(st, sweep_max, 0);
	FX_STAT_SET(st, loop_max, 0);
	lp->reset_seen = req;
	lp->prev = rte_rdtsc();
	return true;
}

#endif /* _FX_LOOP_H_ */
