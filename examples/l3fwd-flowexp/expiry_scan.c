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
 * Unpaced (--scan-interval 0, the default) the cursor moves the whole
 * budget in every iteration, so an idle worker scans without pause. With
 * --scan-interval S it moves as many slots as are due for one full pass
 * every S seconds (at most the budget per iteration): conntrack's way, a
 * fixed cost of capacity / S slots per second and a lag of up to S. A
 * pass falls behind when the budget per iteration is too small for it; it
 * then goes on at the budget and does not try to catch up later.
 *
 * The control path's invalidations arrive on the flow table's request ring
 * and are applied first, within the same budget.
 */

#include <rte_cycles.h>

#include "expiry.h"

static int
sc_init(struct fx_lcore *lc)
{
	double slot = fx_conf.scan_interval_s * (double)rte_get_tsc_hz() /
		      lc->ft.capacity;

	lc->scan_cursor = 0;
	/* 16.16 fixed point: a 1 s pass over 16M slots is ~180 cycles a slot */
	lc->scan_slot_fp = (uint64_t)(slot * 65536.0);
	if (fx_conf.scan_interval_s > 0 && lc->scan_slot_fp == 0)
		lc->scan_slot_fp = 1;
	lc->scan_last = rte_rdtsc();
	return 0;
}

/* Slots to walk at lc->now: all the budget unpaced, else those due since
 * scan_last, capped by the budget. */
static uint32_t
sc_due(struct fx_lcore *lc)
{
	uint64_t elapsed, n;

	if (lc->scan_slot_fp == 0)
		return fx_conf.expire_budget;
	if (lc->now <= lc->scan_last)
		return 0;
	elapsed = lc->now - lc->scan_last;
	/* more than a pass behind (the worker was busy): do not catch up */
	if (elapsed > (lc->scan_slot_fp * lc->ft.capacity) >> 16) {
		lc->scan_last = lc->now;
		return fx_conf.expire_budget;
	}
	n = (elapsed << 16) / lc->scan_slot_fp;
	if (n == 0)
		return 0;
	if (n > fx_conf.expire_budget)
		n = fx_conf.expire_budget;
	lc->scan_last += (n * lc->scan_slot_fp) >> 16;
	return (uint32_t)n;
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
	uint32_t cap = lc->ft.capacity, cur = lc->scan_cursor, i, n;
	uint64_t now = lc->now;
	struct fx_flow *f;

	fx_expiry_apply_requests(lc, fx_conf.expire_budget, NULL);
	n = sc_due(lc);
	for (i = 0; i < n; i++) {
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
