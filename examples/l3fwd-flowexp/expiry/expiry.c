/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The expiry poll (expiry/expiry.h): back-end selection, the worker's poll of
 * its flows and mappings, shutdown, and the pieces the two baselines
 * (rte_timer, scan) share.
 */

#include <errno.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "ctl/stats.h"
#include "expiry/expiry.h"
#include "flow/flow.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "worker/bench.h"
#include "worker/clock.h"
#include "worker/lcore.h"

const char *
fx_expiry_name(enum fx_expiry e)
{
	switch (e) {
	case FX_EXPIRY_TWHEEL:
		return "twheel";
	case FX_EXPIRY_TIMER:
		return "rte_timer";
	case FX_EXPIRY_SCAN:
		return "scan";
	case FX_EXPIRY_NONE:
		return "none";
	}
	return "?";
}

const struct fx_expiry_ops *
fx_expiry_ops_get(enum fx_expiry e)
{
	switch (e) {
	case FX_EXPIRY_TWHEEL:
		return &fx_expiry_twheel;
	case FX_EXPIRY_TIMER:
		return &fx_expiry_timer;
	case FX_EXPIRY_SCAN:
		return &fx_expiry_scan;
	case FX_EXPIRY_NONE:
		break;
	}
	return NULL;
}

bool
fx_expiry_poll(struct fx_lcore *lc)
{
	bool more = false;

	if (lc->ops != NULL) {
		/* every poll counts, the loop's and --clock pcap's (worker/clock.c) */
		lc->gone.removed = 0;
		more = lc->ops->poll(lc);
		fx_flows_flush(lc);
		FX_STAT_MAX(&lc->st, poll_removed_max, lc->gone.removed);
	}
	if (fx_nat_enabled())
		more |= fx_nat_poll(&lc->nat, lc->now);
	return more;
}

uint64_t
fx_expiry_loop_poll(struct fx_lcore *lc, uint64_t tsc, unsigned int got)
{
	struct fx_lcore_stats *st = &lc->st;
	uint64_t t1;

	if ((lc->ops == NULL && !fx_nat_enabled()) || fx_bench_expiry_held(lc, tsc))
		return tsc;
	lc->now = fx_clock_now(&lc->clk, tsc);
	fx_expiry_poll(lc);
	t1 = rte_rdtsc();
	FX_STAT_MAX(st, sweep_max, t1 - tsc);
	FX_STAT_ADD(st, expiry_cycles, t1 - tsc);
	if (got == 0)
		FX_STAT_ADD(st, idle_expiry_cycles, t1 - tsc);
	return t1;
}

void
fx_expiry_drain(struct fx_lcore *lc)
{
	bool more;

	if (fx_nat_enabled()) {
		nat_log_exit(&lc->nat);
		fx_nat_drain(&lc->nat, fx_clock_now(&lc->clk, rte_rdtsc()));
	}
	if (lc->ops == NULL)
		return;
	lc->now = rte_rdtsc();
	do {
		more = lc->ops->drain(lc, fx_conf.expire_budget);
		fx_flows_flush(lc);
	} while (more);
}

/* ---- the baselines' shared parts ---- */

bool
fx_expiry_drain_slab(struct fx_lcore *lc, struct fx_expiry_base *base,
		     unsigned int budget,
		     void (*stop)(struct fx_lcore *lc, struct fx_flow *f))
{
	struct fx_flow_table *ft = &lc->ft;
	unsigned int n = 0;
	struct fx_flow *f;

	while (n < budget && base->drain_cursor < ft->capacity) {
		f = &ft->flows[base->drain_cursor++];
		if (f->expiry_id == 0)
			continue;
		if (stop != NULL)
			stop(lc, f);
		fx_flow_drained(lc, f);
		n++;
	}
	return base->drain_cursor < ft->capacity;
}

struct apply_ctx {
	struct fx_lcore *lc;
	void (*stop)(struct fx_lcore *lc, struct fx_flow *f);
	unsigned int applied;
};

static void
apply_one(struct fx_flow *f, void *arg)
{
	struct apply_ctx *c = arg;

	if (c->stop != NULL)
		c->stop(c->lc, f);
	fx_flow_invalidated(c->lc, f);
	c->applied++;
}

bool
fx_expiry_apply_requests(struct fx_lcore *lc, unsigned int budget,
			 void (*stop)(struct fx_lcore *lc, struct fx_flow *f))
{
	struct apply_ctx c = { .lc = lc, .stop = stop, .applied = 0 };
	unsigned int taken;

	taken = ft_apply_requests(&lc->ft, budget, apply_one, &c);
	if (unlikely(taken != c.applied))
		FX_STAT_ADD(&lc->st, stale_requests, taken - c.applied);
	return taken == budget;
}

int
fx_expiry_request(struct fx_lcore *lc, uint32_t slot, uint64_t expiry_id)
{
	return ft_request_delete(&lc->ft, slot, expiry_id);
}
