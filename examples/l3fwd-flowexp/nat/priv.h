/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * What the NAT step's files share (nat/nat.c, nat/burst.c, nat/classify.c,
 * nat/in2out.c, nat/out2in.c, nat/icmp.c, nat/reap.c), and no other file
 * needs: the event log's hooks, the
 * public ports' owners, a mapping's deadline and its refresh, the per-host
 * quotas taken when a mapping is made and given back when it leaves
 * (held mappings count: they hold a record and a public tuple), reading
 * a packet's IPv4 and ICMP headers (validated by fx_parse() already) and
 * the packet an ICMP error quotes (validated here).
 */

#ifndef _FX_NAT_PRIV_H_
#define _FX_NAT_PRIV_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <twheel.h>

#include "base/counter.h"
#include "base/quota.h"
#include "flow/state.h"
#include "flow/tcp_track.h"
#include "fwd/parse.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/table.h"
#include "nat/tcp.h"
#include "nat/translate.h"

/** Owner of each public port (worker index; 0xff outside the range). */
extern uint8_t fx_nat_port_owner[65536];

/* ---- the event log's hooks (nat/log/events.h) ---- */

/** Mapping m was made by a packet at time now (nat/in2out.c); with port
 * blocks, nothing: the block's allocation is the event. */
static inline void
nat_log_created(struct fx_nat *nt, const struct nat_mapping *m, uint64_t now)
{
	if (nt->log != NULL && !nat_blocks_on(&nt->blocks))
		nat_log_session(nt->log, IPFIX_NAT44_SESSION_CREATE, m, now);
}

/** Mapping m's public tuple is free again from time `at` (nat/reap.c). */
static inline void
nat_log_released(struct fx_nat *nt, const struct nat_mapping *m, uint64_t at)
{
	if (nt->log != NULL && !nat_blocks_on(&nt->blocks))
		nat_log_session(nt->log, IPFIX_NAT44_SESSION_DELETE, m, at);
}

/** The binding of session m (its inside and public endpoints) got its
 * first session, m (create), or lost its last, m (delete), at t; with port
 * blocks, nothing: its block's allocation and release are the events. */
static inline void
nat_log_binding(struct fx_nat *nt, bool create, const struct nat_mapping *m,
		uint64_t t)
{
	if (nt->log != NULL && !nat_blocks_on(&nt->blocks))
		nat_log_bib(nt->log, create ? IPFIX_NAT44_BIB_CREATE :
			    IPFIX_NAT44_BIB_DELETE, m, t);
}

/** The limit a refusal of cause why ran into (0: no port, none). */
static inline uint32_t
nat_log_limit(const struct fx_nat *nt, enum nat_log_refusal why)
{
	switch (why) {
	case NAT_LOG_HOST_LIMIT:
		return nt->max_per_host;
	case NAT_LOG_DEST_LIMIT:
		return nt->max_per_dest;
	case NAT_LOG_TABLE_FULL:
		return nt->tbl.capacity;
	case NAT_LOG_BLOCK_LIMIT:
		return nt->blocks.max_per_host;
	case NAT_LOG_NO_PORT:
		break;
	}
	return 0;
}

/** A new mapping for key k was refused at time now (nat/in2out.c, and the
 * quotas below); pub_addr 0: the host's public address is its paired one,
 * known before a port is. */
static inline void
nat_log_refused(struct fx_nat *nt, enum nat_log_refusal why,
		const struct nat_key *k, uint32_t pub_addr, uint64_t now)
{
	if (nt->log == NULL || !nat_log_refusal_due(nt->log, now))
		return;
	if (pub_addr == 0)
		pub_addr = fx_nat_conf.pool[nat_pool_index(&fx_nat_conf, k->src)];
	nat_log_refusal(nt->log, why, nat_log_limit(nt, why), k, pub_addr, now);
}

/** The wheel's lazy deadline of a mapping (its deadline_fn, nat/nat.c). */
static inline uint64_t
nat_mapping_deadline(const struct nat_mapping *m, const struct fx_nat *nt)
{
	if (m->state == NAT_HELD)
		return m->held_until;
	return m->last + nt->tmo_cycles[m->tmo];
}

/** The quota key of a mapping's remote endpoint (ICMP: the address). */
static inline struct fx_quota_key
nat_quota_dest_key(uint32_t in_addr, uint32_t rem_addr, uint16_t rem_port,
		   uint8_t proto)
{
	return fx_quota_nat_dest(in_addr, rem_addr,
				 proto == IPPROTO_ICMP ? 0 : rem_port, proto);
}

/**
 * Count one more mapping for inside host in_addr towards the remote
 * endpoint, within --nat-max-per-host and --nat-max-per-dest; false with
 * nat_host_limit, nat_dest_limit or (no room in the quota table)
 * nat_table_full counted, nothing taken, and the cause in *why.
 */
static inline bool
nat_quota_take(struct fx_nat *nt, uint32_t in_addr, uint32_t rem_addr,
	       uint16_t rem_port, uint8_t proto, enum nat_log_refusal *why)
{
	struct fx_quota_key h = fx_quota_nat_host(in_addr);
	struct fx_quota_key d = nat_quota_dest_key(in_addr, rem_addr, rem_port, proto);
	int rc;

	if (nt->max_per_host != 0) {
		rc = fx_quota_take(&nt->per_host, &h, nt->max_per_host);
		if (rc != 0) {
			if (rc == -EDQUOT) {
				FX_STAT_ADD(&nt->st, nat_host_limit, 1);
				*why = NAT_LOG_HOST_LIMIT;
			} else {
				FX_STAT_ADD(&nt->st, nat_table_full, 1);
				*why = NAT_LOG_TABLE_FULL;
			}
			return false;
		}
	}
	if (nt->max_per_dest != 0) {
		rc = fx_quota_take(&nt->per_dest, &d, nt->max_per_dest);
		if (rc != 0) {
			if (nt->max_per_host != 0)
				fx_quota_put(&nt->per_host, &h);
			if (rc == -EDQUOT) {
				FX_STAT_ADD(&nt->st, nat_dest_limit, 1);
				*why = NAT_LOG_DEST_LIMIT;
			} else {
				FX_STAT_ADD(&nt->st, nat_table_full, 1);
				*why = NAT_LOG_TABLE_FULL;
			}
			return false;
		}
	}
	return true;
}

/* what nat_quota_each() does with each quota slot of a mapping */
enum nat_quota_op { NAT_QUOTA_PREFETCH, NAT_QUOTA_PUT };

static inline void
nat_quota_each(struct fx_nat *nt, uint32_t in_addr, uint32_t rem_addr,
	       uint16_t rem_port, uint8_t proto, enum nat_quota_op op)
{
	struct fx_quota_key k[2] = {
		fx_quota_nat_host(in_addr),
		nat_quota_dest_key(in_addr, rem_addr, rem_port, proto),
	};
	struct fx_quota *q[2] = { &nt->per_host, &nt->per_dest };
	bool on[2] = { nt->max_per_host != 0, nt->max_per_dest != 0 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!on[i])
			continue;
		if (op == NAT_QUOTA_PREFETCH)
			fx_quota_prefetch(q[i], &k[i]);
		else
			fx_quota_put(q[i], &k[i]);
	}
}

/** Start reading the quota slots nat_quota_take() or nat_quota_put() reads. */
static inline void
nat_quota_prefetch(struct fx_nat *nt, uint32_t in_addr, uint32_t rem_addr,
		   uint16_t rem_port, uint8_t proto)
{
	nat_quota_each(nt, in_addr, rem_addr, rem_port, proto, NAT_QUOTA_PREFETCH);
}

/** A mapping counted by nat_quota_take() is gone (released or never made). */
static inline void
nat_quota_put(struct fx_nat *nt, uint32_t in_addr, uint32_t rem_addr,
	      uint16_t rem_port, uint8_t proto)
{
	nat_quota_each(nt, in_addr, rem_addr, rem_port, proto, NAT_QUOTA_PUT);
}

/** The port space of an IP protocol. */
static inline enum nat_proto
nat_proto_class(uint8_t proto)
{
	return proto == IPPROTO_TCP ? NAT_PROTO_TCP :
		proto == IPPROTO_UDP ? NAT_PROTO_UDP : NAT_PROTO_ICMP;
}

/** What happens to a mapping's public unit (nat_unit()). */
enum nat_unit_op {
	NAT_UNIT_PUT,       /**< a live mapping never made, or ended at exit */
	NAT_UNIT_HOLD,      /**< a live one ended into hold-down (m->held_until) */
	NAT_UNIT_RELEASE,   /**< its hold-down is over */
};

/**
 * Give back public unit (pool_idx, pc, port) taken for a mapping never
 * made or ended at exit, through its block with port blocks; t is the
 * time (a block's release).
 */
static inline void
nat_unit_put(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
	     uint16_t port, uint64_t t)
{
	if (nat_blocks_on(&nt->blocks))
		nat_block_put(nt, pool_idx, pc, port, t);
	else
		nat_ports_put(&nt->ports, pool_idx, pc, port);
}

/**
 * A mapping's public unit through its life (nat/ports.h), and with port
 * blocks its block's counts too (nat/block.h); t is the time of a put or
 * a release.
 */
static inline void
nat_unit(struct fx_nat *nt, const struct nat_mapping *m, enum nat_unit_op op,
	 uint64_t t)
{
	enum nat_proto pc = nat_proto_class(m->proto);
	uint16_t port = rte_be_to_cpu_16(m->pub_port);
	bool blocks = nat_blocks_on(&nt->blocks);

	switch (op) {
	case NAT_UNIT_PUT:
		nat_unit_put(nt, m->pool_idx, pc, port, t);
		break;
	case NAT_UNIT_HOLD:
		if (blocks)
			nat_block_hold(nt, m->pool_idx, pc, port, m->held_until);
		else
			nat_ports_hold(&nt->ports, m->pool_idx, pc, port);
		break;
	case NAT_UNIT_RELEASE:
		if (blocks)
			nat_block_release(nt, m->pool_idx, pc, port, t);
		else
			nat_ports_release(&nt->ports, m->pool_idx, pc, port);
		break;
	}
}

/** The IPv4 header of a parsed packet. */
static inline struct rte_ipv4_hdr *
nat_ipv4_of(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pk->l2_len);
}

/** The ICMP header of an IPv4 packet, and how many bytes of it there are. */
static inline struct rte_icmp_hdr *
nat_icmp_of(const struct rte_mbuf *m, const struct fx_pkt *pk, uint32_t *len)
{
	struct rte_ipv4_hdr *ip = nat_ipv4_of(m, pk);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t seg = rte_pktmbuf_data_len(m) - pk->l2_len;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);

	*len = RTE_MIN(tot, seg) - ihl;
	return (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
}

/**
 * The packet an ICMP error quotes: its IPv4 header and how many bytes of
 * it are there, or NULL unless it is the start of a whole packet NAT
 * could have sent: too little quoted to name a mapping (the IPv4 header
 * and the first 8 bytes of L4, RFC 792), a quoted length shorter than
 * that, or a fragment (NAT translates none, so it sent none).
 */
static inline struct rte_ipv4_hdr *
nat_quoted_of(struct rte_icmp_hdr *icmp, uint32_t icmp_len, uint32_t *qlen)
{
	struct rte_ipv4_hdr *q = (struct rte_ipv4_hdr *)(icmp + 1);
	uint32_t ihl;

	if (icmp_len < sizeof(*icmp) + sizeof(*q))
		return NULL;
	*qlen = icmp_len - sizeof(*icmp);
	ihl = rte_ipv4_hdr_len(q);
	if ((q->version_ihl >> 4) != 4 || ihl < sizeof(*q) || *qlen < ihl + 8 ||
	    rte_be_to_cpu_16(q->total_length) < ihl + 8 ||
	    (rte_be_to_cpu_16(q->fragment_offset) &
	     (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)))
		return NULL;
	return q;
}

/** Source or destination port (ICMP: echo identifier) of a quoted packet. */
static inline uint16_t
nat_quoted_port(const struct rte_ipv4_hdr *q, bool src)
{
	const uint8_t *l4 = (const uint8_t *)q + rte_ipv4_hdr_len(q);

	if (q->next_proto_id == IPPROTO_ICMP)
		return nat_rd16(l4 + 4);
	return nat_rd16(l4 + (src ? 0 : 2));
}

/**
 * A packet of live mapping m at time now (out: from the inside host, side
 * 0; in: from the remote, side 1). A TCP segment is first checked against
 * the mapping's connection (nat/nat.h): one that does not fit changes nothing
 * and is dropped (false), one passed without effect changes nothing.
 * Then the lazy refresh, one store of the packet time for either
 * direction; then the mapping's state after the packet (replied, and for
 * TCP the connection's state), a shorter deadline (FIN, RST) filed again
 * on the wheel. Returns whether the packet is translated.
 */
static inline bool
nat_mapping_refresh(struct fx_nat *nt, struct nat_mapping *m,
		    const struct fx_pkt *pk, bool out, uint64_t now)
{
	unsigned int side = out ? 0 : 1;
	enum fx_tcp_verdict v;
	uint64_t old_deadline, new_deadline;
	struct nat_tcp_ends *e;
	struct fx_tcp t;
	uint8_t flags, tmo;

	if (fx_state_tracked(pk)) {
		e = &nt->tcp_ends[nat_table_index(&nt->tbl, m)];
		nat_tcp_load(&t, &m->tcp, e);
		v = fx_tcp_track(&t, side, &pk->tcp);
		if (unlikely(v != FX_TCP_PASS)) {
			if (v != FX_TCP_REOPEN) {
				/* changed nothing: nothing to store */
				fx_state_tcp_count(v, &nt->st.nat_tcp_rst_ignored,
						   &nt->st.nat_tcp_syn_ignored,
						   &nt->st.nat_tcp_out_of_window,
						   &nt->st.nat_tcp_invalid);
				return fx_tcp_forwards(v);
			}
			/* an outbound SYN on a closed connection: a new one */
			fx_tcp_open(&t, side, &pk->tcp);
		}
		nat_tcp_store(&m->tcp, e, &t);
		/* FX_FLOW_INIT_DIR1: made by an inbound SYN (eim) */
		flags = fx_state_tcp(m->flags, &t);
	} else {
		/* answered: a packet from the side that did not make it */
		flags = m->flags | (side != (m->flags & FX_FLOW_INIT_DIR1) ?
				    FX_FLOW_REPLIED : 0);
	}
	m->last = now;
	if (likely(flags == m->flags))
		return true;
	old_deadline = nat_mapping_deadline(m, nt);
	m->flags = flags;
	tmo = fx_state_class(flags, m->proto);
	if (tmo == m->tmo)
		return true;
	m->tmo = tmo;
	new_deadline = nat_mapping_deadline(m, nt);
	if (new_deadline < old_deadline) {
		/* FIN, RST: an earlier deadline must be filed again */
		twheel_move(nt->wheel, m->id, new_deadline);
		FX_STAT_ADD(&nt->st, nat_shortened, 1);
	}
	return true;
}

/**
 * Start tracking mapping m's connection from its opening SYN, sent by
 * side 0 (inside) or, under eim, side 1 (a remote the filter let in).
 */
static inline void
nat_tcp_open(struct fx_nat *nt, struct nat_mapping *m, unsigned int side,
	     const struct fx_tcp_seg *s)
{
	struct fx_tcp t;

	fx_tcp_open(&t, side, s);
	nat_tcp_store(&m->tcp, &nt->tcp_ends[nat_table_index(&nt->tbl, m)], &t);
}

/** Rewrite the fx_pkt key as the translated packet's, for the route lookup. */
static inline void
nat_key_translated(struct fx_pkt *pk, bool out, uint32_t addr, uint16_t port)
{
	unsigned int ep = out ? pk->dir : pk->dir ^ 1;

	memcpy(pk->key.addr[ep], &addr, 4);
	pk->key.port[ep] = port;
}

/**
 * Translate a TCP, UDP or ICMP echo packet: outbound its source becomes
 * (addr, port), inbound its destination; the key follows and the verdict
 * is forward.
 */
static inline void
nat_translate_pkt(struct rte_mbuf *mb, struct fx_pkt *pk, bool out,
		  uint32_t addr, uint16_t port)
{
	struct rte_ipv4_hdr *ip = nat_ipv4_of(mb, pk);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t l4_len = rte_be_to_cpu_16(ip->total_length) - ihl;

	nat_rewrite_v4(ip, (uint8_t *)ip + ihl, l4_len, out, addr, port, NULL);
	nat_key_translated(pk, out, addr, port);
	pk->nat = FX_NAT_FORWARD;
}

/**
 * Whether m, what the burst's lookup found for a packet with key k, is a
 * live mapping that packet travels on: outbound (out) or inbound.
 */
static inline bool
nat_mapping_serves(const struct nat_mapping *m, const struct nat_key *k, bool out)
{
	return m != NULL && m->state == NAT_LIVE && nat_mapping_is_out(m, k) == out;
}

/**
 * A packet on live mapping m in its direction (nat_mapping_serves()):
 * refreshed and translated, or dropped when its TCP segment does not fit
 * the connection (counted by nat_mapping_refresh()). The common case of
 * both directions, inline in the burst's loop.
 */
static inline void
nat_mapping_hit(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		struct fx_pkt *pk, struct nat_mapping *m, bool out)
{
	if (unlikely(!nat_mapping_refresh(nt, m, pk, out, now))) {
		pk->nat = FX_NAT_DROP;
		return;
	}
	if (out) {
		nat_translate_pkt(mb, pk, true, m->pub_addr, m->pub_port);
		FX_STAT_ADD(&nt->st, nat_out, 1);
	} else {
		nat_translate_pkt(mb, pk, false, m->in_addr, m->in_port);
		FX_STAT_ADD(&nt->st, nat_in, 1);
	}
}

/*
 * The per-packet steps of fx_nat_translate() (nat/burst.c), on the owner. Each
 * leaves the verdict in pk->nat: FX_NAT_FORWARD with the packet and its
 * key translated, or FX_NAT_DROP with the reason counted.
 */

/** What eim knew of an outbound miss's inside endpoint when its burst
 * began (struct nat_miss). */
enum nat_miss_bib {
	NAT_MISS_UNASKED,    /**< Not asked (edm, a hairpinned packet), or the index must tell. */
	NAT_MISS_UNBOUND,    /**< No binding. */
	NAT_MISS_BOUND,      /**< Binding be. */
};

/**
 * What the burst's prefetch passes learnt of an outbound packet its
 * lookup missed, for the mapping it may make, so that making it asks
 * none of it again. A binding found then lives through the burst (it has
 * a session record, and records leave only in the reaper, between
 * bursts), and an endpoint that had none then has no held session either
 * (a session is held only by the reaper, and sessions made during the
 * burst are live); only an earlier packet of the burst can have bound an
 * endpoint found unbound.
 */
struct nat_miss {
	struct nat_bib_entry *be;   /**< NAT_MISS_BOUND: the binding. */
	/** Its steering, worked out by nat_steer_ahead() (nat/steer.h): the
	 * class, its reply's h0 and a first draw; cls NULL: none. */
	struct nat_ports_steer steer;
	uint16_t pool_idx;          /**< The pool index of its source (nat_pool_index()). */
	uint8_t bib;                /**< enum nat_miss_bib. */
};

/**
 * Outbound packet with key k (or a hairpinned packet's outbound half) that
 * m, what the burst's lookup found for k (NULL: nothing), does not serve
 * (nat_mapping_serves()): k is looked up again if recheck (an earlier
 * packet of the burst made a mapping), else a mapping is made. Where m is
 * NULL, *miss is what nat_in2out_prefetch() and
 * nat_eim_prefetch_session() learnt of k (else it is not read). Returns
 * whether it made one (nat/in2out.c).
 */
bool nat_in2out(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m,
		bool recheck, const struct nat_miss *miss);

/**
 * Before the burst's packets are handled: start reading what making a
 * mapping for outbound packet pk (key k, which the lookup missed) will
 * check first: its quota slots, and its public tuple's bucket in the table
 * and its port unit for the inside port or else for the n-th random
 * candidate drawn ahead. Fills *miss: the pool index of k's source (its
 * paired public address), its binding not asked yet.
 * Returns 1 if that was a random candidate, else 0 (nat/in2out.c).
 */
unsigned int nat_in2out_prefetch(struct fx_nat *nt, const struct fx_pkt *pk,
				 const struct nat_key *k, unsigned int n,
				 struct nat_miss *miss);

/** A mapping's template: its endpoints and public address, the rest 0. */
static inline void
nat_mapping_tmpl(struct nat_mapping *t, uint32_t in_addr, uint16_t in_port,
		 uint32_t rem_addr, uint16_t rem_port, uint8_t proto,
		 uint16_t pool_idx, uint32_t pub_addr)
{
	memset(t, 0, sizeof(*t));
	t->in_addr = in_addr;
	t->in_port = in_port;
	t->rem_addr = rem_addr;
	t->rem_port = rem_port;
	t->proto = proto;
	t->pool_idx = pool_idx;
	t->pub_addr = pub_addr;
}

/**
 * Make a mapping (a session under eim) from tmpl (inside endpoint,
 * remote, proto, pool_idx, pub_addr) for packet pk of side (0: from the
 * inside host, 1: from the remote, eim only): the quotas, the public port,
 * the record (nat_table_add() if checked, else the caller looked both keys
 * up), the connection and the wheel entry, logged; NULL with the reason
 * counted and logged, nothing taken (nat/in2out.c). bound: under eim, the
 * inside endpoint's binding where the caller knows it has one, else NULL
 * (it is looked up).
 */
struct nat_mapping *nat_mapping_make(struct fx_nat *nt, uint64_t now,
				     const struct fx_pkt *pk,
				     struct nat_mapping *tmpl, unsigned int side,
				     bool checked, struct nat_bib_entry *bound);

/**
 * Inbound packet with key k that no live mapping took, m what the lookup
 * found (NULL, held or the other direction): under eim with adf or eif, a
 * live binding of its destination whose filter lets its source in gets a
 * new session (a held one revived) and the packet is translated; else it
 * is dropped, nat_in_filtered if it reached a live binding, otherwise
 * nat_in_nomatch (nat/filter.c).
 */
void nat_filter_in(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		   struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m);

/** Inbound packet with key k that m, what the lookup found, does not
 * serve (nat_mapping_serves()) (nat/out2in.c). */
void nat_out2in(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m);

/** ICMP error, outbound or inbound (nat/icmp.c). */
void nat_icmp_error(struct fx_nat *nt, struct rte_mbuf *mb, struct fx_pkt *pk,
		    bool out);

#endif /* _FX_NAT_PRIV_H_ */
