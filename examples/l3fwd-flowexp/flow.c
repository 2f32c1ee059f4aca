/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The flow lifecycle (flow.h has the design): tracking a burst, the state
 * a packet moves a flow to, creation with its table-full policies,
 * eviction, and removal on behalf of the expiry back-ends.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "affinity.h"
#include "bench.h"
#include "evict.h"
#include "expiry.h"
#include "flow.h"
#include "flow_state.h"
#include "flow_table.h"
#include "flowexp.h"
#include "forward.h"
#include "lcore.h"
#include "route.h"
#include "stats.h"

/* ---- removal, for the back-ends ---- */

void
fx_flows_flush(struct fx_lcore *lc)
{
	struct fx_flow_gone *g = &lc->gone;

	if (g->n == 0)
		return;
	ft_delete_bulk(&lc->ft, g->f, g->sig, g->n);
	FX_STAT_SET(&lc->st, active, lc->st.active - g->n);
	g->n = 0;
}

/* unpublish now, remove from the index with the next batch */
static inline void
flow_remove(struct fx_lcore *lc, struct fx_flow *f)
{
	struct fx_flow_gone *g = &lc->gone;

	ft_unpublish(f);
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	g->removed++;
	g->sig[g->n] = ft_hash(&f->key);
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

/* ---- state (flow_state.h) ---- */

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

static inline void
flow_hit(struct fx_lcore *lc, struct fx_flow *f, const struct fx_pkt *pk)
{
	bool reopen = false;
	uint8_t flags;
	uint64_t exp;

	flags = fx_state_next(f->flags, pk, &reopen);
	if (unlikely(flags != f->flags)) {
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
		fx_evict_note(&lc->ev, &lc->ft, f, f->fid);
		FX_STAT_ADD(&lc->st, reopened, 1);
		FX_STAT_ADD(&lc->st, created, 1);
	} else {
		FX_STAT_ADD(&lc->st, refreshed, 1);
	}
}

/* ---- creation ---- */

/*
 * --table-full evict (evict.h): remove the oldest unanswered flow now, so
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
	ft_remove(&lc->ft, ft_slot(&lc->ft, f), ft_hash(&f->key));
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&lc->st, active, lc->st.active - 1);
	FX_STAT_ADD(&lc->st, evicted, 1);
	return true;
}

static inline struct fx_flow *
flow_new(struct fx_lcore *lc, const struct fx_pkt *pk, uint32_t sig)
{
	struct fx_flow *f;
	bool added;
	int32_t pos;
	uint64_t fid;

	if (unlikely(lc->st.active >= fx_conf.max_flows)) {
		/* full, unless an earlier packet of this burst created it */
		pos = ft_lookup(&lc->ft, &pk->key, sig);
		if (pos >= 0 && lc->ft.flows[pos].fid != 0) {
			f = &lc->ft.flows[pos];
			flow_hit(lc, f, pk);
			return f;
		}
		/* evict only where the key then finds a pair in the index:
		 * without one, ft_add() refuses it (and counts it) */
		if (fx_conf.full_policy != FX_FULL_EVICT ||
		    (ft_has_room(&lc->ft, sig) && !flow_evict(lc)))
			goto full;
	}
	pos = ft_add(&lc->ft, &pk->key, sig, &added);
	if (unlikely(pos < 0))
		goto full;
	f = &lc->ft.flows[pos];
	if (!added) {
		/* created by an earlier packet of this burst */
		flow_hit(lc, f, pk);
		return f;
	}
	f->port[0] = f->port[1] = FX_PORT_UNKNOWN;
	f->flags = fx_state_first(pk);
	f->tmo = fx_state_class(f->flags, pk->key.proto);
	f->expire = lc->now + lc->tmo_cycles[f->tmo];
	fid = lc->ops->add(lc, f);
	if (unlikely(fid == 0)) {
		ft_remove(&lc->ft, (uint32_t)pos, sig);
		goto full;
	}
	ft_publish(f, fid);
	fx_evict_note(&lc->ev, &lc->ft, f, fid);
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

	if (n == 0)
		return;
	t = fx_stage_start();
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		if (unlikely(fx_affinity_foreign(lc->ho.self, lc->ho.nb_workers,
						 pkts[i], p->sig)))
			FX_STAT_ADD(&lc->ho.st, foreign, 1);
		ft_prefetch(&lc->ft, p->sig);
	}
	for (i = 0; i < n; i++)
		cand[i] = ft_candidate(&lc->ft, fx_pkt_of(pkts[i])->sig);
	t = fx_stage_end(lc, FX_STAGE_LOOKUP, t);

	for (i = 0, nf = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		in_port = pkts[i]->port;
		/*
		 * The candidate was found before this burst's earlier packets
		 * created or evicted flows: a slot freed and taken again since
		 * holds another key (ft_confirm then looks the key up again);
		 * one freed and not taken again would have fid 0 (no path
		 * leaves one within a burst: checked all the same).
		 */
		pos = ft_confirm(&lc->ft, &p->key, p->sig, cand[i]);
		if (pos >= 0 && likely(flows[pos].fid != 0)) {
			f = &flows[pos];
			flow_hit(lc, f, p);
		} else {
			f = flow_new(lc, p, p->sig);
		}
		if (likely(f != NULL)) {
			out = f->port[p->dir];
			if (unlikely(out == FX_PORT_UNKNOWN)) {
				out = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
				f->port[p->dir] = (uint8_t)out;
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
