/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The expiry back-ends' common parts (expiry/expiry.h): their names and
 * selection, and the pieces the two baselines (rte_timer, scan) share.
 */

#include <errno.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "expiry/expiry.h"
#include "flow/flow.h"
#include "flow/table.h"

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

/* ---- the baselines' shared parts ---- */

bool
fx_expiry_drain_slab(struct fx_flows *fl, struct fx_expiry_base *base,
		     unsigned int budget,
		     void (*stop)(struct fx_flows *fl, struct fx_flow *f))
{
	struct fx_flow_table *ft = &fl->table;
	unsigned int n = 0;
	struct fx_flow *f;

	while (n < budget && base->drain_cursor < ft->capacity) {
		f = &ft->flows[base->drain_cursor++];
		if (f->expiry_id == 0)
			continue;
		if (stop != NULL)
			stop(fl, f);
		fx_flow_drained(fl, f);
		n++;
	}
	return base->drain_cursor < ft->capacity;
}

struct apply_ctx {
	struct fx_flows *fl;
	void (*stop)(struct fx_flows *fl, struct fx_flow *f);
	unsigned int applied;
};

static void
apply_one(struct fx_flow *f, void *arg)
{
	struct apply_ctx *c = arg;

	if (c->stop != NULL)
		c->stop(c->fl, f);
	fx_flow_invalidated(c->fl, f);
	c->applied++;
}

bool
fx_expiry_apply_requests(struct fx_flows *fl, unsigned int budget,
			 void (*stop)(struct fx_flows *fl, struct fx_flow *f))
{
	struct apply_ctx c = { .fl = fl, .stop = stop, .applied = 0 };
	unsigned int taken;

	taken = ft_apply_requests(&fl->table, budget, apply_one, &c);
	if (unlikely(taken != c.applied))
		FX_STAT_ADD(&fl->st, stale_requests, taken - c.applied);
	return taken == budget;
}

int
fx_expiry_request(struct fx_flows *fl, uint32_t slot, uint64_t expiry_id)
{
	return ft_request_delete(&fl->table, slot, expiry_id);
}
