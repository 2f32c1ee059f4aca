/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Expiry back-end "rte_timer": the baseline a careful DPDK user would write
 * with the timer library, one struct rte_timer per flow (in an array by
 * slot, allocated at start-up).
 *
 * Careful means the packet path never touches the timer: re-arming on
 * every hit would take the per-lcore skiplist lock, walk the list and call
 * rte_rand() per packet. Instead the timer is armed at the flow's first
 * deadline, and when it fires the callback compares that with flow->expire:
 * a flow refreshed meanwhile is re-armed for its new deadline, so a flow
 * costs one re-arm per timeout period, the same lazy scheme the wheel uses.
 * Only shortening (TCP FIN/RST) re-arms from the packet path.
 *
 * What remains different is the data structure: every arm and re-arm is
 * O(log n) in a skiplist under a lock, and rte_timer_manage() runs every
 * callback that is due with no bound, so an expiry storm runs to completion
 * inside one loop iteration.
 *
 * The control path's invalidations arrive on the flow table's request ring
 * and are applied before rte_timer_manage(), within --expire-budget.
 */

#include <errno.h>
#include <stdbool.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include "expiry/expiry.h"
#include "flow/flow.h"

/* the back-end's state (fx_flows.expiry_state.timer) */
struct fx_expiry_timer {
	struct fx_expiry_base base;
	struct rte_timer *timers;   /* by slot: as many as the slab has */
};

/* the flows each lcore's timers belong to, for the callbacks (which get
 * the flow alone): set by init, before launch */
static struct fx_flows *timer_flows[RTE_MAX_LCORE];

static int
tm_init(struct fx_flows *fl, int socket)
{
	struct fx_expiry_timer *s;
	uint32_t i;

	s = rte_zmalloc_socket("fx_timer", sizeof(*s), RTE_CACHE_LINE_SIZE, socket);
	if (s == NULL)
		return -ENOMEM;
	/* by slot: as many as the slab has (max_flows and headroom) */
	s->timers = rte_zmalloc_socket("fx_timers",
			(size_t)fl->table.capacity * sizeof(struct rte_timer),
			RTE_CACHE_LINE_SIZE, socket);
	if (s->timers == NULL) {
		rte_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < fl->table.capacity; i++)
		rte_timer_init(&s->timers[i]);
	fl->expiry_state.timer = s;
	timer_flows[fl->lcore_id] = fl;
	return 0;
}

static void
tm_fini(struct fx_flows *fl)
{
	struct fx_expiry_timer *s = fl->expiry_state.timer;

	if (s == NULL)
		return;
	rte_free(s->timers);
	rte_free(s);
	fl->expiry_state.timer = NULL;
	timer_flows[fl->lcore_id] = NULL;
}

static void tm_fire(struct rte_timer *t, void *arg);

static inline int
tm_arm(struct fx_flows *fl, struct fx_flow *f)
{
	uint64_t ticks = f->expire > fl->now ? f->expire - fl->now : 0;

	return rte_timer_reset(&fl->expiry_state.timer->timers[ft_slot(&fl->table, f)], ticks, SINGLE,
			       fl->lcore_id, tm_fire, f);
}

static void
tm_fire(struct rte_timer *t __rte_unused, void *arg)
{
	struct fx_flows *fl = timer_flows[rte_lcore_id()];
	struct fx_flow *f = arg;

	if (f->expire > fl->now && tm_arm(fl, f) == 0)
		return;
	fx_flow_expired(fl, f, f->expire);
}

static uint64_t
tm_add(struct fx_flows *fl, struct fx_flow *f)
{
	if (tm_arm(fl, f) != 0)
		return 0;
	return ++fl->expiry_state.timer->base.next_id;
}

static void
tm_shorten(struct fx_flows *fl, struct fx_flow *f)
{
	tm_arm(fl, f);
}

static void
tm_stop(struct fx_flows *fl, struct fx_flow *f)
{
	rte_timer_stop(&fl->expiry_state.timer->timers[ft_slot(&fl->table, f)]);
}

/* rte_timer_manage() runs every callback due: only the requests are bounded */
static bool
tm_poll(struct fx_flows *fl)
{
	bool more = fx_expiry_apply_requests(fl, fx_conf.expire_budget, tm_stop);

	rte_timer_manage();
	return more;
}

static bool
tm_drain(struct fx_flows *fl, unsigned int budget)
{
	return fx_expiry_drain_slab(fl, &fl->expiry_state.timer->base, budget, tm_stop);
}

const struct fx_expiry_ops fx_expiry_timer = {
	.name = "rte_timer",
	.init = tm_init,
	.fini = tm_fini,
	.add = tm_add,
	.shorten = tm_shorten,
	.cancel = tm_stop,
	.poll = tm_poll,
	.drain = tm_drain,
	.invalidate = fx_expiry_request,
	.emit = NULL,
};
