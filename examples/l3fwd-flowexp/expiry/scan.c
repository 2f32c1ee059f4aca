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

#include <errno.h>
#include <stdbool.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "expiry/expiry.h"
#include "flow/flow.h"

/* the back-end's state (fx_flows.expiry_state.scan) */
struct fx_expiry_scan {
	struct fx_expiry_base base;
	uint32_t cursor;      /* the next slot to look at */
	uint64_t slot_fp;     /* TSC cycles per slot, 16.16 fixed point; 0: unpaced */
	uint64_t last;        /* TSC time the cursor is due at */
};

static int
sc_init(struct fx_flows *fl, int socket)
{
	double slot = fx_conf.scan_interval_s * (double)rte_get_tsc_hz() /
		      fl->table.capacity;
	struct fx_expiry_scan *s;

	s = rte_zmalloc_socket("fx_scan", sizeof(*s), RTE_CACHE_LINE_SIZE, socket);
	if (s == NULL)
		return -ENOMEM;
	/* 16.16 fixed point: a 1 s pass over 16M slots is ~180 cycles a slot */
	s->slot_fp = (uint64_t)(slot * 65536.0);
	if (fx_conf.scan_interval_s > 0 && s->slot_fp == 0)
		s->slot_fp = 1;
	s->last = rte_rdtsc();
	fl->expiry_state.scan = s;
	return 0;
}

/* Slots to walk at fl->now: all the budget unpaced, else those due since
 * s->last, capped by the budget. */
static uint32_t
sc_due(struct fx_expiry_scan *s, uint64_t now, uint32_t capacity)
{
	uint64_t elapsed, n;

	if (s->slot_fp == 0)
		return fx_conf.expire_budget;
	if (now <= s->last)
		return 0;
	elapsed = now - s->last;
	/* more than a pass behind (the worker was busy): do not catch up */
	if (elapsed > (s->slot_fp * capacity) >> 16) {
		s->last = now;
		return fx_conf.expire_budget;
	}
	n = (elapsed << 16) / s->slot_fp;
	if (n == 0)
		return 0;
	if (n > fx_conf.expire_budget)
		n = fx_conf.expire_budget;
	s->last += (n * s->slot_fp) >> 16;
	return (uint32_t)n;
}

static void
sc_fini(struct fx_flows *fl)
{
	rte_free(fl->expiry_state.scan);
	fl->expiry_state.scan = NULL;
}

static uint64_t
sc_add(struct fx_flows *fl, struct fx_flow *f __rte_unused)
{
	return ++fl->expiry_state.scan->base.next_id;
}

/* shorten, cancel: the scan reads flow->expire and skips freed slots */
static void
sc_nothing(struct fx_flows *fl __rte_unused, struct fx_flow *f __rte_unused)
{
}

/* a scan does not know what is due: only the requests can be left over */
static bool
sc_poll(struct fx_flows *fl)
{
	struct fx_expiry_scan *s = fl->expiry_state.scan;
	struct fx_flow *flows = fl->table.flows;
	uint32_t cap = fl->table.capacity, cur = s->cursor, i, n;
	uint64_t now = fl->now;
	struct fx_flow *f;
	bool more;

	more = fx_expiry_apply_requests(fl, fx_conf.expire_budget, NULL);
	n = sc_due(s, now, cap);
	for (i = 0; i < n; i++) {
		f = &flows[cur];
		if (f->expiry_id != 0 && f->expire <= now)
			fx_flow_expired(fl, f, f->expire);
		if (++cur == cap)
			cur = 0;
	}
	s->cursor = cur;
	return more;
}

static bool
sc_drain(struct fx_flows *fl, unsigned int budget)
{
	return fx_expiry_drain_slab(fl, &fl->expiry_state.scan->base, budget, NULL);
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
