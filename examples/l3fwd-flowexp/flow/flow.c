/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The flow lifecycle (flow/flow.h has the design): the TCP connections beside
 * the table, tracking a burst, the state a packet moves a flow to,
 * creation with its table-full policies and the per-host quota
 * (flow/host_quota.h), eviction, and removal on behalf of the expiry back-ends.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "base/config.h"
#include "boot/affinity.h"
#include "ctl/stats.h"
#include "expiry/expiry.h"
#include "flow/evict.h"
#include "flow/flow.h"
#include "flow/host_quota.h"
#include "flow/state.h"
#include "flow/table.h"
#include "flow/tcp_track.h"
#include "fwd/forward.h"
#include "fwd/route.h"
#include "worker/bench.h"
#include "worker/lcore.h"

/* ---- set-up ---- */

int
fx_flow_init(struct fx_lcore *lc, int socket)
{
	lc->tcp = rte_zmalloc_socket("fx_tcp", sizeof(*lc->tcp) * lc->ft.capacity,
				     RTE_CACHE_LINE_SIZE, socket);
	return lc->tcp != NULL ? 0 : -ENOMEM;
}

void
fx_flow_fini(struct fx_lcore *lc)
{
	rte_free(lc->tcp);
	lc->tcp = NULL;
}

/* ---- removal, for the back-ends ---- */

void
fx_flows_flush(struct fx_lcore *lc)
{
	struct fx_flow_gone *g = &lc->gone;

	if (g->n == 0)
		return;
	ft_delete_bulk(&lc->ft, g->f, g->hash, g->n);
	FX_STAT_SET(&lc->st, active, lc->st.active - g->n);
	g->n = 0;
}

/* unpublish now, remove from the index with the next batch */
static inline void
flow_remove(struct fx_lcore *lc, struct fx_flow *f)
{
	struct fx_flow_gone *g = &lc->gone;

	ft_unpublish(f);
	fx_flow_quota_put(lc, f);
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	g->removed++;
	g->hash[g->n] = ft_hash(&f->key);
	g->f[g->n++] = f;
	if (g->n == FX_GONE_BATCH)
		fx_flows_flush(lc);
}

void
fx_flow_expired(struct fx_lcore *lc, struct fx_flow *f, uint64_t deadline)
{
	struct fx_lcore_stats *st = &lc->st;
	uint64_t lag = lc->now > deadline ? lc->now - deadline : 0;

	FX_STAT_ADD(st, expired, 1);
	FX_STAT_ADD(st, expired_tmo[f->tmo], 1);
	FX_STAT_ADD(st, lag_sum, lag);
	FX_STAT_ADD(st, lag_n, 1);
	FX_STAT_MAX(st, lag_max, lag);
	flow_remove(lc, f);
}

void
fx_flow_invalidated(struct fx_lcore *lc, struct fx_flow *f)
{
	FX_STAT_ADD(&lc->st, invalidated, 1);
	flow_remove(lc, f);
}

void
fx_flow_drained(struct fx_lcore *lc, struct fx_flow *f)
{
	FX_STAT_ADD(&lc->st, drained, 1);
	flow_remove(lc, f);
}

/* ---- state (flow/state.h) ---- */

/* The flow's timeout class is now tmo: move it between the per-class counts. */
static inline void
flow_class_set(struct fx_lcore *lc, struct fx_flow *f, uint8_t tmo)
{
	if (tmo == f->tmo)
		return;
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&lc->st, active_tmo[tmo], lc->st.active_tmo[tmo] + 1);
	f->tmo = tmo;
}

/* A packet of flow f: its state and deadline. false: drop it (counted). */
static inline bool
flow_hit(struct fx_lcore *lc, struct fx_flow *f, const struct fx_pkt *pk)
{
	enum fx_tcp_verdict v;
	bool reopen = false;
	struct fx_tcp *t;
	uint8_t flags;
	uint64_t exp;

	if (fx_state_tracked(pk)) {
		t = &lc->tcp[ft_slot(&lc->ft, f)];
		v = fx_tcp_track(t, pk->dir, &pk->tcp);
		if (unlikely(v != FX_TCP_PASS)) {
			if (v != FX_TCP_REOPEN) {
				fx_state_tcp_count(v, &lc->st.tcp_rst_ignored,
						   &lc->st.tcp_syn_ignored,
						   &lc->st.tcp_out_of_window,
						   &lc->st.tcp_invalid);
				return fx_tcp_forwards(v);   /* no change, no refresh */
			}
			fx_tcp_open(t, pk->dir, &pk->tcp);
			reopen = true;
		}
		flags = reopen ? fx_state_first(pk, t) : fx_state_tcp(f->flags, t);
	} else {
		flags = fx_state_next(f->flags, pk);
	}
	if (unlikely(flags != f->flags)) {
		if (unlikely(reopen))
			fx_flow_quota_reopen(lc, f, flags);
		f->flags = flags;
		flow_class_set(lc, f, fx_state_class(flags, f->key.proto));
	}
	exp = lc->now + lc->tmo_cycles[f->tmo];
	if (unlikely(exp < f->expire)) {
		f->expire = exp;
		lc->ops->shorten(lc, f);
		FX_STAT_ADD(&lc->st, shortened, 1);
	} else {
		f->expire = exp;   /* the lazy refresh: one store */
	}
	if (unlikely(reopen)) {
		/* a fresh connection on the tuple: the old one ends here */
		fx_evict_note(&lc->ev, &lc->ft, f, f->expiry_id);
		FX_STAT_ADD(&lc->st, reopened, 1);
		FX_STAT_ADD(&lc->st, created, 1);
	} else {
		FX_STAT_ADD(&lc->st, refreshed, 1);
	}
	return true;
}

/* ---- creation ---- */

/*
 * --table-full evict (flow/evict.h): remove the oldest unanswered flow now, so
 * that its slot takes the new one. false if there is none within the bound.
 */
static bool
flow_evict(struct fx_lcore *lc)
{
	struct fx_flow *f = fx_evict_pick(&lc->ev, &lc->ft);

	if (f == NULL) {
		FX_STAT_ADD(&lc->st, evict_miss, 1);
		return false;
	}
	lc->ops->cancel(lc, f);
	ft_unpublish(f);
	fx_flow_quota_put(lc, f);
	ft_remove(&lc->ft, ft_slot(&lc->ft, f), ft_hash(&f->key));
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&lc->st, active, lc->st.active - 1);
	FX_STAT_ADD(&lc->st, evicted, 1);
	return true;
}

/* A new flow for pk (or the one an earlier packet of the burst made);
 * NULL if the table is full. *fwd: whether pk is forwarded. */
static inline struct fx_flow *
flow_new(struct fx_lcore *lc, const struct fx_pkt *pk, uint32_t hash, bool *fwd)
{
	struct fx_flow *f;
	struct fx_tcp *t;
	bool added;
	int32_t pos;
	uint64_t expiry_id;

	*fwd = true;
	if (unlikely(fx_flow_quota_full(lc, pk))) {
		/* over quota, unless an earlier packet of this burst created it */
		pos = ft_lookup(&lc->ft, &pk->key, hash);
		if (pos >= 0 && lc->ft.flows[pos].expiry_id != 0) {
			f = &lc->ft.flows[pos];
			*fwd = flow_hit(lc, f, pk);
			return f;
		}
		FX_STAT_ADD(&lc->st, host_limit, 1);
		return NULL;
	}
	if (unlikely(lc->st.active >= fx_conf.max_flows)) {
		/* full, unless an earlier packet of this burst created it */
		pos = ft_lookup(&lc->ft, &pk->key, hash);
		if (pos >= 0 && lc->ft.flows[pos].expiry_id != 0) {
			f = &lc->ft.flows[pos];
			*fwd = flow_hit(lc, f, pk);
			return f;
		}
		/* evict only where the key then finds a pair in the index:
		 * without one, ft_add() refuses it (and counts it) */
		if (fx_conf.full_policy != FX_FULL_EVICT ||
		    (ft_has_room(&lc->ft, hash) && !flow_evict(lc)))
			goto full;
	}
	pos = ft_add(&lc->ft, &pk->key, hash, &added);
	if (unlikely(pos < 0))
		goto full;
	f = &lc->ft.flows[pos];
	if (!added) {
		/* created by an earlier packet of this burst */
		*fwd = flow_hit(lc, f, pk);
		return f;
	}
	f->nexthop[0] = f->nexthop[1] = FX_NEXTHOP_UNKNOWN;
	t = &lc->tcp[pos];
	if (fx_state_tracked(pk))
		fx_tcp_open(t, pk->dir, &pk->tcp);
	else if (pk->key.proto == IPPROTO_TCP)
		memset(t, 0, sizeof(*t));   /* a fragment: a later segment with ports 0 is mid-stream */
	f->flags = fx_state_first(pk, t);
	f->tmo = fx_state_class(f->flags, pk->key.proto);
	f->expire = lc->now + lc->tmo_cycles[f->tmo];
	if (unlikely(!fx_flow_quota_take(lc, f))) {
		ft_remove(&lc->ft, (uint32_t)pos, hash);
		goto full;
	}
	expiry_id = lc->ops->add(lc, f);
	if (unlikely(expiry_id == 0)) {
		fx_flow_quota_put(lc, f);
		ft_remove(&lc->ft, (uint32_t)pos, hash);
		goto full;
	}
	ft_publish(f, expiry_id);
	fx_evict_note(&lc->ev, &lc->ft, f, expiry_id);
	FX_STAT_ADD(&lc->st, created, 1);
	FX_STAT_SET(&lc->st, active, lc->st.active + 1);
	FX_STAT_ADD(&lc->st, active_tmo[f->tmo], 1);
	return f;
full:
	FX_STAT_ADD(&lc->st, table_full, 1);
	return NULL;
}

/* ---- a burst ---- */

void
fx_flow_track(struct fx_lcore *lc, const struct fx_route_table *rt,
	      struct rte_mbuf **pkts, uint16_t n)
{
	int32_t cand[MAX_PKT_BURST];
	uint16_t outs[MAX_PKT_BURST];
	struct fx_flow *flows = lc->ft.flows, *f;
	struct fx_pkt *p;
	uint16_t i, nf, out, in_port;
	uint64_t t;
	int32_t pos;
	bool fwd;

	if (n == 0)
		return;
	t = fx_stage_start();
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		if (unlikely(fx_affinity_foreign(lc->ho.self, lc->ho.nb_workers,
						 pkts[i], p->hash)))
			FX_STAT_ADD(&lc->ho.st, foreign, 1);
		ft_prefetch(&lc->ft, p->hash);
	}
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		cand[i] = ft_candidate(&lc->ft, p->hash);
		/* a TCP segment reads its connection beside the flow's line */
		if (cand[i] >= 0 && p->key.proto == IPPROTO_TCP)
			rte_prefetch0(&lc->tcp[cand[i]]);
	}
	t = fx_stage_end(lc, FX_STAGE_LOOKUP, t);

	for (i = 0, nf = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		in_port = pkts[i]->port;
		/*
		 * The candidate was found before this burst's earlier packets
		 * created or evicted flows: a slot freed and taken again since
		 * holds another key (ft_confirm then looks the key up again);
		 * one freed and not taken again would have expiry_id 0 (no path
		 * leaves one within a burst: checked all the same).
		 */
		pos = ft_confirm(&lc->ft, &p->key, p->hash, cand[i]);
		if (pos >= 0 && likely(flows[pos].expiry_id != 0)) {
			f = &flows[pos];
			fwd = flow_hit(lc, f, p);
		} else {
			f = flow_new(lc, p, p->hash, &fwd);
		}
		if (unlikely(!fwd)) {
			fx_drop(lc, in_port, pkts[i]);   /* outside the window */
			continue;
		}
		if (likely(f != NULL)) {
			out = f->nexthop[p->dir];
			if (unlikely(out == FX_NEXTHOP_UNKNOWN)) {
				out = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
				f->nexthop[p->dir] = (uint8_t)out;
			}
		} else if (fx_conf.full_policy == FX_FULL_FORWARD) {
			out = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
		} else {
			fx_drop(lc, in_port, pkts[i]);
			continue;
		}
		pkts[nf] = pkts[i];
		outs[nf++] = out;
	}
	t = fx_stage_end(lc, FX_STAGE_FLOW, t);

	for (i = 0; i < nf; i++)
		fx_forward(lc, pkts[i], fx_pkt_of(pkts[i]), outs[i]);
	fx_stage_end(lc, FX_STAGE_FORWARD, t);
}
