/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT outbound step (owner): a packet from an inside host is translated
 * with its live mapping, refreshing it (a TCP segment that does not fit
 * its connection is dropped, nat/nat.h), or makes one: TCP needs a SYN
 * (else nat_non_syn), which starts the mapping's connection; the host
 * must be under its quotas (else nat_host_limit or nat_dest_limit,
 * nat/priv.h: RFC 6888 REQ-4/5, and as REQ-11 asks no existing mapping is
 * ended to make room); the port allocator of the worker's share picks a
 * public port whose public 5-tuple is free (else nat_no_port, nat/ports.h),
 * or with --nat-port-block the host's blocks do (else nat_block_limit, or
 * nat_block_exhausted and nat_no_port, nat/block.h), under eim for a new
 * binding only (nat/eim.h);
 * then a record in the table and an entry on the wheel (else
 * nat_table_full). A failure at any step gives back what the earlier ones
 * took. The log (nat/log/events.h) gets the mapping made, or the refusal. Before
 * a burst's packets are handled, what each new mapping will read first is
 * prefetched (nat_in2out_prefetch()): its quota slots and its allocator's
 * first candidate.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include <twheel.h>

#include "base/counter.h"
#include "flow/state.h"
#include "flow/tcp_track.h"
#include "fwd/parse.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/priv.h"
#include "nat/steer.h"
#include "nat/table.h"

struct taken_ctx {
	const struct nat_table *tbl;
	uint32_t pub_addr;
	uint32_t rem_addr;
	uint16_t rem_port;
	uint8_t proto;
};

/* the allocator's question: is this public 5-tuple taken */
static bool
tuple_taken(uint16_t port, void *arg)
{
	const struct taken_ctx *t = arg;

	return nat_table_tuple_taken(t->tbl, t->pub_addr, rte_cpu_to_be_16(port),
				     t->rem_addr, t->rem_port, t->proto);
}

/* the endpoint-dependent choice: a port whose public 5-tuple is free, in
 * the share or, with port blocks, in the host's blocks (nat/block.h);
 * -EADDRINUSE, or -EDQUOT at the host's limit of blocks (counted), with
 * the log's reason in *why */
static int
edm_pick(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
	 enum nat_proto pc, uint16_t *port, enum nat_log_refusal *why)
{
	struct taken_ctx tc = {
		.tbl = &nt->tbl, .pub_addr = tmpl->pub_addr,
		.rem_addr = tmpl->rem_addr, .rem_port = tmpl->rem_port,
		.proto = tmpl->proto,
	};

	*why = NAT_LOG_NO_PORT;
	if (nat_blocks_on(&nt->blocks))
		return nat_steer_block_port(nt, now, tmpl, pc, tuple_taken, &tc, port, why);
	return nat_steer_alloc(nt, tmpl, pc, tuple_taken, &tc, port);
}

struct nat_mapping *
nat_mapping_make(struct fx_nat *nt, uint64_t now, const struct fx_pkt *pk,
		 struct nat_mapping *tmpl, unsigned int side, bool checked,
		 struct nat_bib_entry *bound)
{
	struct nat_key k = nat_key_out(tmpl);
	enum nat_proto pc = nat_proto_class(tmpl->proto);
	struct nat_bib_entry *be = bound;
	enum nat_log_refusal why;
	struct nat_mapping *m;
	uint16_t port;
	uint64_t id;
	int err;

	/* over a quota the packet is dropped; no mapping makes room */
	if (!nat_quota_take(nt, k.src, k.dst, tmpl->rem_port, k.proto, &why)) {
		nat_log_refused(nt, why, &k, 0, now);
		return NULL;
	}
	err = nat_bib_on(&nt->bib) ?
		nat_eim_pick(nt, now, tmpl, pc, &port, &be, &why) :
		edm_pick(nt, now, tmpl, pc, &port, &why);
	if (err != 0) {
		nat_quota_put(nt, k.src, k.dst, tmpl->rem_port, k.proto);
		if (err == -EADDRINUSE) {
			FX_STAT_ADD(&nt->st, nat_no_port, 1);
			nat_log_refused(nt, NAT_LOG_NO_PORT, &k, tmpl->pub_addr, now);
		} else if (err == -EDQUOT) {   /* nat_block_limit counted */
			nat_log_refused(nt, why, &k, tmpl->pub_addr, now);
		} else {
			FX_STAT_ADD(&nt->st, nat_table_full, 1);
			nat_log_refused(nt, NAT_LOG_TABLE_FULL, &k, tmpl->pub_addr, now);
		}
		return NULL;
	}
	tmpl->pub_port = rte_cpu_to_be_16(port);
	tmpl->last = now;
	/* TCP: made by a SYN (fx_tcp_open()), from the inside (side 0) or,
	 * under eim, from a remote the filter let in (side 1) */
	tmpl->flags = (side ? FX_FLOW_INIT_DIR1 : 0) |
		(tmpl->proto == IPPROTO_TCP ? FX_FLOW_SYN : 0);
	tmpl->tmo = fx_state_class(tmpl->flags, tmpl->proto);
	m = checked ? nat_table_add(&nt->tbl, tmpl, &err) :
		nat_table_insert(&nt->tbl, tmpl, &err);
	if (m == NULL)
		goto full;
	if (tmpl->proto == IPPROTO_TCP)
		nat_tcp_open(nt, m, side, &pk->tcp);
	id = twheel_schedule(nt->wheel, nat_mapping_deadline(m, nt), m);
	if (id == TWHEEL_ID_INVALID) {
		nat_table_remove(&nt->tbl, m);
		goto full;
	}
	nat_table_publish(m, id);
	if (be != NULL)
		nat_eim_attach(nt, be, m, now);
	FX_STAT_ADD(&nt->st, nat_created, 1);
	FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active + 1);
	nat_log_created(nt, m, now);
	return m;
full:
	/* the unit first: a binding goes when its unit counts no session */
	nat_unit(nt, tmpl, NAT_UNIT_PUT, now);
	if (be != NULL)
		nat_eim_unpick(nt, be, tmpl);
	nat_quota_put(nt, k.src, k.dst, tmpl->rem_port, k.proto);
	FX_STAT_ADD(&nt->st, nat_table_full, 1);
	nat_log_refused(nt, NAT_LOG_TABLE_FULL, &k, tmpl->pub_addr, now);
	return NULL;
}

/* A new mapping for outbound packet pk with key k, of which the burst
 * learnt *miss; NULL with the counter of the reason bumped. key_seen: the
 * burst's lookup found k (for a mapping that did not qualify). */
static struct nat_mapping *
mapping_new(struct fx_nat *nt, uint64_t now, const struct fx_pkt *pk,
	    const struct nat_key *k, bool key_seen, const struct nat_miss *miss)
{
	const struct nat_conf *c = &fx_nat_conf;
	struct nat_mapping tmpl, *held, *m;

	if (k->proto == IPPROTO_TCP && !fx_tcp_is_open(&pk->tcp)) {
		FX_STAT_ADD(&nt->st, nat_non_syn, 1);
		return NULL;
	}
	/* eim: the one public tuple this session can have may be held */
	if (nat_bib_on(&nt->bib)) {
		held = nat_eim_held(nt, k, miss);
		if (held != NULL)
			return nat_eim_revive(nt, held, pk, 0, now);
	}
	nat_mapping_tmpl(&tmpl, k->src, k->sport, k->dst, k->dport, k->proto,
			 miss->pool_idx, c->pool[miss->pool_idx]);
	/* the steered allocator's h0 and first draw, made by the prefetch */
	nt->steer_ahead = miss->steer.cls != NULL ? &miss->steer : NULL;
	/* the bulk lookup missed the out key, the allocator the in key; a
	 * key found there that was not this mapping's (which classification
	 * rules out) takes the checked path */
	m = nat_mapping_make(nt, now, pk, &tmpl, 0, key_seen,
			     miss->bib == NAT_MISS_BOUND ? miss->be : NULL);
	nt->steer_ahead = NULL;
	return m;
}

unsigned int
nat_in2out_prefetch(struct fx_nat *nt, const struct fx_pkt *pk,
		    const struct nat_key *k, unsigned int n, struct nat_miss *miss)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint16_t port = rte_be_to_cpu_16(k->sport);
	unsigned int random = 0;
	uint32_t pool_idx;

	pool_idx = nat_pool_index(c, k->src);
	miss->pool_idx = (uint16_t)pool_idx;
	miss->bib = NAT_MISS_UNASKED;
	miss->steer.cls = NULL;
	if (k->proto == IPPROTO_TCP && !fx_state_is_syn(pk))
		return 0;   /* makes no mapping */
	nat_quota_prefetch(nt, k->src, k->dst, k->dport, k->proto);
	if (nat_blocks_on(&nt->blocks))
		return 0;   /* the host's blocks say where: nothing drawn ahead */
	/* steered: its own draw, ahead, and the unsteered ring untouched */
	if (!nat_steer_ahead(nt, k, c->pool[pool_idx], miss, &port) &&
	    !nat_ports_mine(&nt->ports, port)) {
		if (n >= NAT_PORTS_AHEAD)
			return 0;
		port = nat_ports_ahead(&nt->ports, n);
		random = 1;
	}
	if (nat_bib_on(&nt->bib))
		nat_eim_prefetch(nt, k, pool_idx);
	nat_ports_prefetch(&nt->ports, pool_idx, nat_proto_class(k->proto), port);
	nat_table_prefetch_tuple(&nt->tbl, c->pool[pool_idx], rte_cpu_to_be_16(port),
				 k->dst, k->dport, k->proto);
	return random;
}

bool
nat_in2out(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
	   struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m,
	   bool recheck, const struct nat_miss *miss)
{
	bool seen = m != NULL;
	struct nat_miss found;

	/* the burst's prefetch passes asked only where the lookup missed */
	if (seen) {
		found.pool_idx = (uint16_t)nat_pool_index(&fx_nat_conf, k->src);
		found.bib = NAT_MISS_UNASKED;
		found.steer.cls = NULL;
		miss = &found;
	}

	/* an earlier packet of this burst may have made it */
	if (m == NULL && recheck) {
		nat_table_lookup_bulk(&nt->tbl, &k, 1, &m);
		if (nat_mapping_serves(m, k, true)) {
			nat_mapping_hit(nt, now, mb, pk, m, true);
			return false;
		}
	}
	/* none, held, or a tuple of the other direction */
	m = mapping_new(nt, now, pk, k, seen, miss);
	if (m == NULL) {
		pk->nat = FX_NAT_DROP;
		return false;
	}
	nat_translate_pkt(mb, pk, true, m->pub_addr, m->pub_port);
	FX_STAT_ADD(&nt->st, nat_out, 1);
	return true;
}
