/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The flow lifecycle (flow/flow.h has the design): the TCP connections
 * beside the table, removal on behalf of the expiry back-end, the state a
 * packet moves a flow to, creation with its table-full policies and the
 * per-host quota (flow/host_quota.h), eviction, the flow stage of a burst
 * in its two halves, and the polls.
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
#include "flow/evict.h"
#include "flow/flow.h"
#include "flow/host_quota.h"
#include "flow/state.h"
#include "flow/table.h"
#include "flow/tcp_track.h"
#include "fwd/forward.h"
#include "fwd/route.h"

/* ---- set-up ---- */

int
fx_flow_init(struct fx_flows *fl, int socket)
{
	fl->tcp = rte_zmalloc_socket("fx_tcp", sizeof(*fl->tcp) * fl->table.capacity,
				     RTE_CACHE_LINE_SIZE, socket);
	return fl->tcp != NULL ? 0 : -ENOMEM;
}

void
fx_flow_fini(struct fx_flows *fl)
{
	rte_free(fl->tcp);
	fl->tcp = NULL;
}

/* ---- removal, for the back-ends ---- */

void
fx_flows_flush(struct fx_flows *fl)
{
	struct fx_flow_gone *g = &fl->gone;

	if (g->n == 0)
		return;
	ft_delete_bulk(&fl->table, g->f, g->hash, g->n);
	FX_STAT_SET(&fl->st, active, fl->st.active - g->n);
	g->n = 0;
}

/* unpublish now, remove from the index with the next batch */
static inline void
flow_remove(struct fx_flows *fl, struct fx_flow *f)
{
	struct fx_flow_gone *g = &fl->gone;

	ft_unpublish(f);
	fx_flow_quota_put(fl, f);
	FX_STAT_SET(&fl->st, active_tmo[f->tmo], fl->st.active_tmo[f->tmo] - 1);
	g->removed++;
	g->hash[g->n] = ft_hash(&f->key);
	g->f[g->n++] = f;
	if (g->n == FX_GONE_BATCH)
		fx_flows_flush(fl);
}

void
fx_flow_expired(struct fx_flows *fl, struct fx_flow *f, uint64_t deadline)
{
	struct fx_flow_stats *st = &fl->st;
	uint64_t lag = fl->now > deadline ? fl->now - deadline : 0;

	FX_STAT_ADD(st, expired, 1);
	FX_STAT_ADD(st, expired_tmo[f->tmo], 1);
	FX_STAT_ADD(st, lag_sum, lag);
	FX_STAT_ADD(st, lag_n, 1);
	FX_STAT_MAX(st, lag_max, lag);
	flow_remove(fl, f);
}

void
fx_flow_invalidated(struct fx_flows *fl, struct fx_flow *f)
{
	FX_STAT_ADD(&fl->st, invalidated, 1);
	flow_remove(fl, f);
}

void
fx_flow_drained(struct fx_flows *fl, struct fx_flow *f)
{
	FX_STAT_ADD(&fl->st, drained, 1);
	flow_remove(fl, f);
}

/* ---- state (flow/state.h) ---- */

/* The flow's timeout class is now tmo: move it between the per-class counts. */
static inline void
flow_class_set(struct fx_flows *fl, struct fx_flow *f, uint8_t tmo)
{
	if (tmo == f->tmo)
		return;
	FX_STAT_SET(&fl->st, active_tmo[f->tmo], fl->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&fl->st, active_tmo[tmo], fl->st.active_tmo[tmo] + 1);
	f->tmo = tmo;
}

/* A packet of flow f: its state and deadline. false: drop it (counted). */
static inline bool
flow_hit(struct fx_flows *fl, struct fx_flow *f, const struct fx_pkt *pk)
{
	enum fx_tcp_verdict v;
	bool reopen = false;
	struct fx_tcp *t;
	uint8_t flags;
	uint64_t exp;

	if (fx_state_tracked(pk)) {
		t = &fl->tcp[ft_slot(&fl->table, f)];
		v = fx_tcp_track(t, pk->dir, &pk->tcp);
		if (unlikely(v != FX_TCP_PASS)) {
			if (v != FX_TCP_REOPEN) {
				fx_state_tcp_count(v, &fl->st.tcp_rst_ignored,
						   &fl->st.tcp_syn_ignored,
						   &fl->st.tcp_out_of_window,
						   &fl->st.tcp_invalid);
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
			fx_flow_quota_reopen(fl, f, flags);
		f->flags = flags;
		flow_class_set(fl, f, fx_state_class(flags, f->key.proto));
	}
	exp = fl->now + fl->tmo_cycles[f->tmo];
	if (unlikely(exp < f->expire)) {
		f->expire = exp;
		fl->expiry->shorten(fl, f);
		FX_STAT_ADD(&fl->st, shortened, 1);
	} else {
		f->expire = exp;   /* the lazy refresh: one store */
	}
	if (unlikely(reopen)) {
		/* a fresh connection on the tuple: the old one ends here */
		fx_evict_note(&fl->evict, &fl->table, f, f->expiry_id);
		FX_STAT_ADD(&fl->st, reopened, 1);
		FX_STAT_ADD(&fl->st, created, 1);
	} else {
		FX_STAT_ADD(&fl->st, refreshed, 1);
	}
	return true;
}

/* ---- creation ---- */

/*
 * --table-full evict (flow/evict.h): remove the oldest unanswered flow now, so
 * that its slot takes the new one. false if there is none within the bound.
 */
static bool
flow_evict(struct fx_flows *fl)
{
	struct fx_flow *f = fx_evict_pick(&fl->evict, &fl->table);

	if (f == NULL) {
		FX_STAT_ADD(&fl->st, evict_miss, 1);
		return false;
	}
	fl->expiry->cancel(fl, f);
	ft_unpublish(f);
	fx_flow_quota_put(fl, f);
	ft_remove(&fl->table, ft_slot(&fl->table, f), ft_hash(&f->key));
	FX_STAT_SET(&fl->st, active_tmo[f->tmo], fl->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&fl->st, active, fl->st.active - 1);
	FX_STAT_ADD(&fl->st, evicted, 1);
	return true;
}

/* A new flow for pk (or the one an earlier packet of the burst made);
 * NULL if the table is full. *fwd: whether pk is forwarded. */
static inline struct fx_flow *
flow_new(struct fx_flows *fl, const struct fx_pkt *pk, uint32_t hash, bool *fwd)
{
	struct fx_flow *f;
	struct fx_tcp *t;
	bool added;
	int32_t pos;
	uint64_t expiry_id;

	*fwd = true;
	if (unlikely(fx_flow_quota_full(fl, pk))) {
		/* over quota, unless an earlier packet of this burst created it */
		pos = ft_lookup(&fl->table, &pk->key, hash);
		if (pos >= 0 && fl->table.flows[pos].expiry_id != 0) {
			f = &fl->table.flows[pos];
			*fwd = flow_hit(fl, f, pk);
			return f;
		}
		FX_STAT_ADD(&fl->st, host_limit, 1);
		return NULL;
	}
	if (unlikely(fl->st.active >= fx_conf.max_flows)) {
		/* full, unless an earlier packet of this burst created it */
		pos = ft_lookup(&fl->table, &pk->key, hash);
		if (pos >= 0 && fl->table.flows[pos].expiry_id != 0) {
			f = &fl->table.flows[pos];
			*fwd = flow_hit(fl, f, pk);
			return f;
		}
		/* evict only where the key then finds a pair in the index:
		 * without one, ft_add() refuses it (and counts it) */
		if (fx_conf.full_policy != FX_FULL_EVICT ||
		    (ft_has_room(&fl->table, hash) && !flow_evict(fl)))
			goto full;
	}
	pos = ft_add(&fl->table, &pk->key, hash, &added);
	if (unlikely(pos < 0))
		goto full;
	f = &fl->table.flows[pos];
	if (!added) {
		/* created by an earlier packet of this burst */
		*fwd = flow_hit(fl, f, pk);
		return f;
	}
	f->nexthop[0] = f->nexthop[1] = FX_NEXTHOP_UNKNOWN;
	t = &fl->tcp[pos];
	if (fx_state_tracked(pk))
		fx_tcp_open(t, pk->dir, &pk->tcp);
	else if (pk->key.proto == IPPROTO_TCP)
		memset(t, 0, sizeof(*t));   /* a fragment: a later segment with ports 0 is mid-stream */
	f->flags = fx_state_first(pk, t);
	f->tmo = fx_state_class(f->flags, pk->key.proto);
	f->expire = fl->now + fl->tmo_cycles[f->tmo];
	if (unlikely(!fx_flow_quota_take(fl, f))) {
		ft_remove(&fl->table, (uint32_t)pos, hash);
		goto full;
	}
	expiry_id = fl->expiry->add(fl, f);
	if (unlikely(expiry_id == 0)) {
		fx_flow_quota_put(fl, f);
		ft_remove(&fl->table, (uint32_t)pos, hash);
		goto full;
	}
	ft_publish(f, expiry_id);
	fx_evict_note(&fl->evict, &fl->table, f, expiry_id);
	FX_STAT_ADD(&fl->st, created, 1);
	FX_STAT_SET(&fl->st, active, fl->st.active + 1);
	FX_STAT_ADD(&fl->st, active_tmo[f->tmo], 1);
	return f;
full:
	FX_STAT_ADD(&fl->st, table_full, 1);
	return NULL;
}

/* ---- a burst ---- */

void
fx_flow_lookup(struct fx_flows *fl, struct rte_mbuf **pkts, uint16_t n,
	       int32_t *cand)
{
	const struct fx_pkt *p;
	uint16_t i;

	for (i = 0; i < n; i++)
		ft_prefetch(&fl->table, fx_pkt_of(pkts[i])->hash);
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		cand[i] = ft_candidate(&fl->table, p->hash);
		/* a TCP segment reads its connection beside the flow's line */
		if (cand[i] >= 0 && p->key.proto == IPPROTO_TCP)
			rte_prefetch0(&fl->tcp[cand[i]]);
	}
}

/* The verdict of packet p of flow f (NULL: the table was full); the
 * flow's route is resolved the first time each direction needs it. */
static inline uint16_t
flow_verdict(struct fx_flow *f, const struct fx_pkt *p,
	     const struct fx_route_table *rt, uint16_t in_port)
{
	uint16_t hop;

	if (unlikely(f == NULL))
		return fx_conf.full_policy == FX_FULL_FORWARD ?
			FX_VERDICT_ROUTE : FX_VERDICT_DROP;
	hop = f->nexthop[p->dir];
	if (unlikely(hop == FX_NEXTHOP_UNKNOWN)) {
		hop = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
		f->nexthop[p->dir] = (uint8_t)hop;
	}
	return hop;
}

void
fx_flow_update(struct fx_flows *fl, const struct fx_route_table *rt,
	       uint64_t now, struct rte_mbuf **pkts, uint16_t n,
	       const int32_t *cand, uint16_t *next)
{
	struct fx_flow *flows = fl->table.flows, *f;
	const struct fx_pkt *p;
	int32_t pos;
	uint16_t i;
	bool fwd;

	fl->now = now;
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		/*
		 * The candidate was found before this burst's earlier packets
		 * created or evicted flows: a slot freed and taken again since
		 * holds another key (ft_confirm then looks the key up again);
		 * one freed and not taken again would have expiry_id 0 (no path
		 * leaves one within a burst: checked all the same).
		 */
		pos = ft_confirm(&fl->table, &p->key, p->hash, cand[i]);
		if (pos >= 0 && likely(flows[pos].expiry_id != 0)) {
			f = &flows[pos];
			fwd = flow_hit(fl, f, p);
		} else {
			f = flow_new(fl, p, p->hash, &fwd);
		}
		next[i] = likely(fwd) ? flow_verdict(f, p, rt, pkts[i]->port) :
			FX_VERDICT_DROP;   /* outside the window */
	}
}

/* ---- polls ---- */

bool
fx_flow_poll(struct fx_flows *fl, uint64_t now)
{
	bool more;

	fl->now = now;
	fl->gone.removed = 0;
	more = fl->expiry->poll(fl);
	fx_flows_flush(fl);
	FX_STAT_MAX(&fl->st, poll_removed_max, fl->gone.removed);
	return more;
}

void
fx_flow_drain(struct fx_flows *fl, uint64_t now)
{
	bool more;

	fl->now = now;
	do {
		more = fl->expiry->drain(fl, fx_conf.expire_budget);
		fx_flows_flush(fl);
	} while (more);
}
