/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sessions under endpoint-independent mappings (nat/eim.h has the
 * design): the public port of a new session, the binding's counts, and
 * the revival of a held session. The port unit of the allocator
 * (nat/ports.h) counts sessions, as it counts endpoint-dependent
 * mappings: a session under an existing binding takes its unit with the
 * binding's port as the only candidate, so the reaper's hold and release
 * of a session are the same calls in both modes. With port blocks a new
 * binding's port comes from its inside host's blocks (nat_block_port()),
 * and a session's unit counts in its block (nat/block.h).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include <twheel.h>

#include "flow/state.h"
#include "flow/tcp_track.h"
#include "nat/bib.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/priv.h"
#include "nat/steer.h"
#include "nat/table.h"

struct pub_ctx {
	const struct fx_nat *nt;
	const struct nat_mapping *tmpl;   /* the session: address, proto */
	enum nat_proto pc;
};

/* the session records under binding e, live and held: its unit's */
static inline uint32_t
refs(const struct fx_nat *nt, const struct nat_bib_entry *e)
{
	const struct nat_port_unit *u = nat_eim_counts(nt, e);

	return u->live + u->held;
}

/* a new binding's candidate in a port block: taken while any binding
 * holds it */
static bool
pub_taken(uint16_t port, void *arg)
{
	const struct pub_ctx *c = arg;

	return nat_bib_public(&c->nt->bib,
			      nat_ports_unit_index(&c->nt->ports, c->tmpl->pool_idx,
						   c->pc, port)) != NULL;
}

/* the same without port blocks, from the candidate's unit, which the
 * allocator reads anyway: every session record holds its unit, live or
 * held, and its binding lives as long as a session record under it, so
 * a unit in use or held is a bound port, and a free one is not */
static bool
unit_taken(uint16_t port, void *arg)
{
	const struct pub_ctx *c = arg;

	return !nat_ports_unit_free(&c->nt->ports, c->tmpl->pool_idx, c->pc, port);
}

/* a session under a binding: its port is the only candidate */
static bool
not_this(uint16_t port, void *arg)
{
	return port != *(const uint16_t *)arg;
}

/* a new binding's port: among the ports no binding holds, in the share
 * or, with port blocks, in the inside host's blocks */
static int
binding_port(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
	     enum nat_proto pc, uint16_t *port, enum nat_log_refusal *why)
{
	struct pub_ctx c = { .nt = nt, .tmpl = tmpl, .pc = pc };

	if (nat_blocks_on(&nt->blocks))
		return nat_steer_block_port(nt, now, tmpl, pc, pub_taken, &c, port, why);
	return nat_steer_alloc(nt, tmpl, pc, unit_taken, &c, port);
}

/* the binding of an inside endpoint of pool index pool_idx (its paired
 * address) */
static inline struct nat_bib_entry *
inside(struct fx_nat *nt, uint32_t in_addr, uint16_t in_port, uint8_t proto,
       uint32_t pool_idx)
{
	return nat_bib_inside(&nt->bib, in_addr, in_port, proto,
			      nat_eim_home_at(nt, pool_idx, in_port, proto));
}

/* binding be, with no session record left, goes; pool_idx: its public
 * address's, which is its inside host's paired one */
static inline void
binding_gone(struct fx_nat *nt, struct nat_bib_entry *be, uint32_t pool_idx)
{
	nat_bib_remove(&nt->bib, be,
		       nat_eim_home_at(nt, pool_idx, be->in_port, be->proto));
	FX_STAT_SET(&nt->st, nat_bib_active, nt->st.nat_bib_active - 1);
}

/* a binding with no session record left goes */
static void
unbind(struct fx_nat *nt, struct nat_bib_entry *be, uint32_t pool_idx)
{
	if (refs(nt, be) == 0)
		binding_gone(nt, be, pool_idx);
}

int
nat_eim_pick(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
	     enum nat_proto pc, uint16_t *port, struct nat_bib_entry **be,
	     enum nat_log_refusal *why)
{
	uint32_t pool_idx = tmpl->pool_idx, home = NAT_BIB_NO_HOME;
	struct nat_bib_entry *e = *be;
	struct nat_eim_pub p;
	uint16_t want;
	int err;

	*why = NAT_LOG_NO_PORT;
	if (e == NULL) {
		home = nat_eim_home_at(nt, pool_idx, tmpl->in_port, tmpl->proto);
		e = nat_bib_inside(&nt->bib, tmpl->in_addr, tmpl->in_port, tmpl->proto,
				   home);
	}
	/* the caller's is the endpoint's (an endpoint has one binding) */
	RTE_ASSERT(e == NULL || (e->used && e->in_addr == tmpl->in_addr &&
				 e->in_port == tmpl->in_port && e->proto == tmpl->proto));
	if (e != NULL) {
		/* its unit names its public endpoint (paired pooling gave the
		 * host that address: the session's own) */
		p = nat_eim_pub_of(nt, e);
		RTE_ASSERT(p.pool_idx == tmpl->pool_idx && p.addr == tmpl->pub_addr);
		pool_idx = p.pool_idx;
		want = rte_be_to_cpu_16(p.port);
		if (nat_blocks_on(&nt->blocks)) {
			/* the binding's sessions keep its block owned */
			nat_block_get(nt, pool_idx, pc, want);
			*port = want;
		} else if (nat_ports_alloc(&nt->ports, pool_idx, pc, want,
					   not_this, &want, port) != 0) {
			return -EADDRINUSE;   /* cannot happen: the port is ours */
		}
	} else {
		err = binding_port(nt, now, tmpl, pc, port, why);
		if (err != 0)
			return err;
		e = nat_bib_add(&nt->bib, tmpl->in_addr, tmpl->in_port, tmpl->proto,
				nat_ports_unit_index(&nt->ports, pool_idx, pc, *port), home);
		if (e == NULL) {
			nat_unit_put(nt, pool_idx, pc, *port, now);
			return -ENOSPC;
		}
		FX_STAT_ADD(&nt->st, nat_bib_created, 1);
		FX_STAT_SET(&nt->st, nat_bib_active, nt->st.nat_bib_active + 1);
	}
	if (!nat_bib_rem_take(&nt->bib, e, tmpl->rem_addr)) {
		nat_unit_put(nt, pool_idx, pc, *port, now);
		unbind(nt, e, pool_idx);   /* a new one goes */
		return -ENOSPC;
	}
	*be = e;
	return 0;
}

void
nat_eim_unpick(struct fx_nat *nt, struct nat_bib_entry *be,
	       const struct nat_mapping *tmpl)
{
	nat_bib_rem_put(&nt->bib, be, tmpl->rem_addr);
	unbind(nt, be, tmpl->pool_idx);
}

void
nat_eim_session_end(struct fx_nat *nt, const struct nat_mapping *m, uint64_t at)
{
	/* the session's public endpoint is its binding's: its unit's entry */
	struct nat_bib_entry *be = nat_bib_at(&nt->bib,
			nat_eim_unit(nt, m->pool_idx, m->proto, m->pub_port));

	RTE_ASSERT(be->used && be->in_addr == m->in_addr &&
		   be->in_port == m->in_port && be->proto == m->proto);
	nat_bib_rem_put(&nt->bib, be, m->rem_addr);
	if (refs(nt, be) != 0)
		return;
	nat_log_binding(nt, false, m, at);
	binding_gone(nt, be, m->pool_idx);
}

struct nat_bib_entry *
nat_eim_public(const struct fx_nat *nt, uint32_t pub_addr, uint16_t pub_port,
	       uint8_t proto)
{
	int32_t a = nat_pool_find(&fx_nat_conf, pub_addr);

	if (a < 0 || !nat_ports_mine(&nt->ports, rte_be_to_cpu_16(pub_port)))
		return NULL;
	return nat_bib_public(&nt->bib, nat_eim_unit(nt, (uint32_t)a, proto, pub_port));
}

struct nat_mapping *
nat_eim_held_bound(struct fx_nat *nt, const struct nat_key *k,
		   const struct nat_miss *miss)
{
	const struct nat_bib_entry *be;
	struct nat_mapping *m;
	struct nat_key in;
	const struct nat_key *kp = &in;
	struct nat_eim_pub p;

	be = miss->bib == NAT_MISS_BOUND ? miss->be :
		inside(nt, k->src, k->sport, k->proto, miss->pool_idx);
	if (be == NULL)
		return NULL;
	p = nat_eim_pub_of(nt, be);
	in = nat_tuple_key(p.addr, p.port, k->dst, k->dport, k->proto);
	nat_table_lookup_bulk(&nt->tbl, &kp, 1, &m);
	return m != NULL && m->state == NAT_HELD ? m : NULL;
}

struct nat_mapping *
nat_eim_revive(struct fx_nat *nt, struct nat_mapping *m, const struct fx_pkt *pk,
	       unsigned int side, uint64_t now)
{
	enum nat_proto pc = nat_proto_class(m->proto);
	uint16_t port = rte_be_to_cpu_16(m->pub_port), got;

	if (nat_table_unhold(&nt->tbl, m) != 0) {
		FX_STAT_ADD(&nt->st, nat_table_full, 1);
		return NULL;
	}
	/* the unit: from held to live */
	if (nat_blocks_on(&nt->blocks)) {
		nat_block_unhold(nt, m->pool_idx, pc, port);
	} else {
		nat_ports_release(&nt->ports, m->pool_idx, pc, port);
		if (nat_ports_alloc(&nt->ports, m->pool_idx, pc, port, not_this,
				    &port, &got) != 0)
			RTE_ASSERT(0);   /* the port is ours and only overlapped */
	}
	m->last = now;
	m->flags = (side ? FX_FLOW_INIT_DIR1 : 0) |
		(m->proto == IPPROTO_TCP ? FX_FLOW_SYN : 0);
	m->tmo = fx_state_class(m->flags, m->proto);
	if (m->proto == IPPROTO_TCP)
		nat_tcp_open(nt, m, side, &pk->tcp);
	twheel_move(nt->wheel, m->id, nat_mapping_deadline(m, nt));
	nat_table_publish(m, m->id);
	FX_STAT_ADD(&nt->st, nat_revived, 1);
	FX_STAT_SET(&nt->st, nat_held, nt->st.nat_held - 1);
	FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active + 1);
	return m;
}
