/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Expiry back-end "scan": no timers at all, as Linux conntrack and OVS
 * userspace conntrack do it. A cursor walks the flow slab, --expire-budget
 * slots per loop iteration, wrapping at the end, and removes every live
 * flow whose deadline has passed.
 *
 * The cost is O(table size / pass time) whether anything expires or not,
 * and a flow expires up to one full pass late: with a 1M-slot table and a
 * budget of 256 a pass takes 4096 loop iterations, a few milliseconds when
 * idle but much longer under load. The slab is read in order, which the
 * hardware prefetcher follows.
 *
 * The control path's invalidations arrive on the flow table's request ring
 * and are applied first, within the same budget.
 */

#include "expiry.h"

static int
sc_init(struct fx_lcore *lc)
{
	lc->scan_cursor = 0;
	return 0;
}

static void
sc_fini(struct fx_lcore *lc __rte_unused)
{
}

static uint64_t
sc_add(struct fx_lcore *lc, struct fx_flow *f __rte_unused)
{
	return ++lc->next_fid;
}

/* shorten, cancel: the scan reads flow->expire and skips freed slots */
static void
sc_nothing(struct fx_lcore *lc __rte_unused, struct fx_flow *f __rte_unused)
{
}

static void
sc_poll(struct fx_lcore *lc)
{
	struct fx_flow *flows = lc->ft.flows;
	uint32_t cap = lc->ft.capacity, cur = lc->scan_cursor, i;
	uint64_t now = lc->now;
	struct fx_flow *f;

	fx_expiry_apply_requests(lc, fx_conf.expire_budget, NULL);
	for (i = 0; i < fx_conf.expire_budget; i++) {
		f = &flows[cur];
		if (f->fid != 0 && f->expire <= now)
			fx_flow_expired(lc, f, f->expire);
		if (++cur == cap)
			cur = 0;
	}
	lc->scan_cursor = cur;
}

static unsigned int
sc_drain(struct fx_lcore *lc, unsigned int budget)
{
	return fx_expiry_drain_slab(lc, budget, NULL);
}

const struct fx_expiry_ops fx_expiry_scan = {
	.name = "scan",
	.init = sc_init,
	.fini = sc_fini,
	.add = sc_add,
	.shorten = sc_nothing,
	.cancel = sc_nothing,
	.poll = sc_poll,
	.drain = sc_drain,
	.invalidate = fx_expiry_request,
	.emit = NULL,
};
