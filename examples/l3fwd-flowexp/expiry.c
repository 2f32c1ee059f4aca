/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Expiry back-end selection, and the pieces the two baselines (rte_timer,
 * scan) share: they have no remote ring of their own, so the control path's
 * invalidations travel on the flow table's request ring, and at shutdown
 * they find the remaining flows by walking the slab.
 */

#include <errno.h>

#include "expiry.h"

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

unsigned int
fx_expiry_drain_slab(struct fx_lcore *lc, unsigned int budget,
		     void (*stop)(struct fx_lcore *lc, struct fx_flow *f))
{
	struct fx_flow_table *ft = &lc->ft;
	unsigned int n = 0;
	struct fx_flow *f;

	while (n < budget && lc->drain_cursor < ft->capacity) {
		f = &ft->flows[lc->drain_cursor++];
		if (f->fid == 0)
			continue;
		if (stop != NULL)
			stop(lc, f);
		fx_flow_drained(lc, f);
		n++;
	}
	return n;
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

void
fx_expiry_apply_requests(struct fx_lcore *lc, unsigned int budget,
			 void (*stop)(struct fx_lcore *lc, struct fx_flow *f))
{
	struct apply_ctx c = { .lc = lc, .stop = stop, .applied = 0 };
	unsigned int taken;

	taken = ft_apply_requests(&lc->ft, budget, apply_one, &c);
	if (unlikely(taken != c.applied))
		FX_STAT_ADD(&lc->st, stale_requests, taken - c.applied);
}

int
fx_expiry_request(struct fx_lcore *lc, uint32_t slot, uint64_t fid)
{
	return ft_request_delete(&lc->ft, slot, fid);
}
