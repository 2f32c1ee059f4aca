/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Benchmark-only controls (--bench), kept out of the production path: each
 * is one predictable branch on a read-only flag when --bench is off.
 *
 *   stage timers  where a worker's cycles go: each stage of a burst (rx,
 *                 parse, handoff, nat, lookup, flow, forward, tx: ctl/stats.h,
 *                 FX_STAGES) adds its TSC cycles to its counter; without
 *                 --bench the marks read no clock;
 *   expiry hold   /l3fwd_flowexp/hold,MS (ctl/control.c) makes the workers skip
 *                 their expiry polls until a TSC time, so that what comes
 *                 due meanwhile is due at once: the benchmark's expiry storm.
 */

#ifndef _FX_BENCH_H_
#define _FX_BENCH_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "base/atomic.h"
#include "base/config.h"
#include "ctl/stats.h"
#include "worker/lcore.h"

/** Start of a stage: the TSC with --bench, else 0. */
static inline uint64_t
fx_stage_start(void)
{
	return unlikely(fx_conf.bench) ? rte_rdtsc() : 0;
}

/** Add the cycles since t0 to stage s; returns the TSC now (0 without --bench). */
static inline uint64_t
fx_stage_end(struct fx_lcore *lc, enum fx_stage s, uint64_t t0)
{
	uint64_t t;

	if (likely(!fx_conf.bench))
		return 0;
	t = rte_rdtsc();
	FX_STAT_ADD(&lc->st, stage_cycles[s], t - t0);
	return t;
}

/** Whether a benchmark holds the expiry polls at TSC now. */
static inline bool
fx_bench_expiry_held(const struct fx_lcore *lc, uint64_t now)
{
	/* a time, ordering nothing (ctl/control.c writes it) */
	return unlikely(fx_conf.bench) && now < fx_load_relaxed(&lc->hold_until);
}

#endif /* _FX_BENCH_H_ */
