/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Expiry back-end "twheel": one wheel per worker lcore, with the flow as
 * payload and a lazy deadline.
 *
 * A new flow is scheduled at its first deadline. A hit only stores the new
 * deadline in the flow (flow/flow.c); when the old one comes due the wheel
 * calls flow_deadline(), sees the later value and re-files the entry, so a
 * flow that lives for an hour costs one revisit per timeout period, not
 * one operation per packet. Shortening (TCP FIN/RST) uses twheel_move().
 *
 * Each loop iteration runs one sweep of at most --expire-budget units of
 * work, so an expiry storm is spread over iterations instead of stalling
 * one. The sweep first applies the control path's cancels (sent with
 * twheel_remote_cancel from the main lcore): their TWHEEL_CANCELLED records
 * delete the flow like a Due record does. A cancel for a flow that has
 * left already is counted by the wheel as remote_stale and changes nothing.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include <twheel.h>

#include "expiry/expiry.h"
#include "flow/flow.h"

/* the back-end's state (fx_flows.expiry_state.twheel) */
struct fx_expiry_twheel {
	struct twheel *wheel;
	struct twheel_fired *out;   /* --expire-budget records */
};

static uint64_t
flow_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct fx_flow *)payload)->expire;
}

static int
tw_init(struct fx_flows *fl, int socket)
{
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct twheel_config cfg;
	struct fx_expiry_twheel *s;
	uint64_t tick;

	s = rte_zmalloc_socket("fx_twheel", sizeof(*s), RTE_CACHE_LINE_SIZE, socket);
	if (s == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "fx%u", fl->lcore_id);
	twheel_config_standard(&cfg, name, fx_conf.max_flows, socket);
	tick = (uint64_t)((double)rte_get_tsc_hz() * fx_conf.tick_us / 1e6);
	cfg.tick_cycles = tick ? tick : 1;
	cfg.deadline_fn = flow_deadline;
	s->wheel = twheel_create(&cfg);
	if (s->wheel == NULL) {
		FX_LOG(ERR, "lcore %u: twheel_create: %s", fl->lcore_id,
		       rte_strerror(rte_errno));
		rte_free(s);
		return -rte_errno;
	}
	s->out = rte_malloc_socket("fx_fired",
			sizeof(struct twheel_fired) * fx_conf.expire_budget,
			RTE_CACHE_LINE_SIZE, socket);
	if (s->out == NULL) {
		twheel_free(s->wheel);
		rte_free(s);
		return -ENOMEM;
	}
	fl->expiry_state.twheel = s;
	return 0;
}

static void
tw_fini(struct fx_flows *fl)
{
	struct fx_expiry_twheel *s = fl->expiry_state.twheel;

	if (s == NULL)
		return;
	twheel_free(s->wheel);
	rte_free(s->out);
	rte_free(s);
	fl->expiry_state.twheel = NULL;
}

static uint64_t
tw_add(struct fx_flows *fl, struct fx_flow *f)
{
	return twheel_schedule(fl->expiry_state.twheel->wheel, f->expire, f);
}

static void
tw_shorten(struct fx_flows *fl, struct fx_flow *f)
{
	twheel_move(fl->expiry_state.twheel->wheel, f->expiry_id, f->expire);
}

static void
tw_cancel(struct fx_flows *fl, struct fx_flow *f)
{
	twheel_cancel(fl->expiry_state.twheel->wheel, f->expiry_id);
}

/* Hand each record to the flow layer; n records in out. */
static void
tw_records(struct fx_flows *fl, struct twheel_fired *out, unsigned int n,
	   bool draining)
{
	struct fx_flow *f;
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_prefetch0(out[i].payload);
	for (i = 0; i < n; i++) {
		f = out[i].payload;
		if (unlikely(f->expiry_id != out[i].id)) {
			FX_LOG(ERR, "lcore %u: wheel record for id %#" PRIx64
			       " but the flow has %#" PRIx64, fl->lcore_id,
			       out[i].id, f->expiry_id);
			continue;
		}
		if (draining)
			fx_flow_drained(fl, f);
		else if (out[i].reason == TWHEEL_DUE)
			fx_flow_expired(fl, f, out[i].deadline);
		else if (out[i].reason == TWHEEL_CANCELLED)
			fx_flow_invalidated(fl, f);
	}
}

static bool
tw_poll(struct fx_flows *fl)
{
	struct fx_expiry_twheel *s = fl->expiry_state.twheel;
	unsigned int n;
	bool more;

	n = twheel_sweep_more(s->wheel, fl->now, fx_conf.expire_budget, s->out, &more);
	tw_records(fl, s->out, n, false);
	return more;
}

static bool
tw_drain(struct fx_flows *fl, unsigned int budget)
{
	struct fx_expiry_twheel *s = fl->expiry_state.twheel;
	unsigned int n;
	bool more;

	n = twheel_drain_more(s->wheel, RTE_MIN(budget, fx_conf.expire_budget),
			      s->out, &more);
	tw_records(fl, s->out, n, true);
	return more;
}

static int
tw_invalidate(struct fx_flows *fl, uint32_t slot __rte_unused, uint64_t expiry_id)
{
	return twheel_remote_cancel(fl->expiry_state.twheel->wheel, expiry_id);
}

static void
tw_emit(const struct fx_flows *fl, const struct fx_emitter *e, void *ctx)
{
	struct twheel_stats ws;

	twheel_stats_get(fl->expiry_state.twheel->wheel, &ws);
	e->str(ctx, "wheel", twheel_name(fl->expiry_state.twheel->wheel));
	e->u64(ctx, "wheel_revisits", ws.revisits);
	e->u64(ctx, "wheel_remote_cancels", ws.remote_cancels);
	e->u64(ctx, "wheel_remote_stale", ws.remote_stale);
	e->u64(ctx, "wheel_remote_full", ws.remote_full);
	e->u64(ctx, "wheel_budget_exhausted", ws.budget_exhausted);
}

const struct fx_expiry_ops fx_expiry_twheel = {
	.name = "twheel",
	.init = tw_init,
	.fini = tw_fini,
	.add = tw_add,
	.shorten = tw_shorten,
	.cancel = tw_cancel,
	.poll = tw_poll,
	.drain = tw_drain,
	.invalidate = tw_invalidate,
	.emit = tw_emit,
};
