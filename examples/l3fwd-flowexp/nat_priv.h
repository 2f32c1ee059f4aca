/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * What the NAT step's files share (nat.c, nat_classify.c, nat_in2out.c,
 * nat_out2in.c, nat_icmp.c, nat_reap.c), and no other file needs: the
 * public ports' owners, a mapping's deadline and its refresh, and reading
 * a packet's IPv4 and ICMP headers (validated by fx_parse() already) and
 * the packet an ICMP error quotes (validated here).
 */

#ifndef _FX_NAT_PRIV_H_
#define _FX_NAT_PRIV_H_

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

#include "flow_state.h"
#include "nat.h"
#include "nat_ports.h"
#include "nat_table.h"
#include "nat_translate.h"
#include "parse.h"
#include "stats.h"

/** Owner of each public port (worker index; 0xff outside the range). */
extern uint8_t fx_nat_port_owner[65536];

/** The wheel's lazy deadline of a mapping (its deadline_fn, nat.c). */
static inline uint64_t
nat_mapping_deadline(const struct nat_mapping *m, const struct fx_nat *nt)
{
	if (m->state == NAT_HELD)
		return m->held_until;
	return m->last + nt->tmo_cycles[m->tmo];
}

/** The port space of an IP protocol. */
static inline enum nat_proto
nat_proto_class(uint8_t proto)
{
	return proto == IPPROTO_TCP ? NAT_PROTO_TCP :
		proto == IPPROTO_UDP ? NAT_PROTO_UDP : NAT_PROTO_ICMP;
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
 * it are there, or NULL if too little is quoted to name a mapping (the
 * IPv4 header and the first 8 bytes of L4, RFC 792) or it is a fragment.
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
	    (rte_be_to_cpu_16(q->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK))
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
 * A packet of live mapping m at time now (out: from the inside host, dir
 * 0; in: from the remote, dir 1): the lazy refresh, one store of the
 * packet time for either direction; then the mapping's state after the
 * packet (replied, and for TCP the connection's state), a shorter
 * deadline (FIN, RST) filed again on the wheel.
 */
static inline void
nat_mapping_refresh(struct fx_nat *nt, struct nat_mapping *m,
		    const struct fx_pkt *pk, bool out, uint64_t now)
{
	struct fx_pkt p = *pk;
	bool reopen = false;
	uint64_t old_deadline, new_deadline;
	uint8_t flags, tmo;

	m->last = now;
	p.dir = out ? 0 : 1;
	flags = fx_state_next(m->flags, &p, &reopen);
	if (likely(flags == m->flags))
		return;
	old_deadline = nat_mapping_deadline(m, nt);
	m->flags = flags;
	tmo = fx_state_class(flags, m->proto);
	if (tmo == m->tmo)
		return;
	m->tmo = tmo;
	new_deadline = nat_mapping_deadline(m, nt);
	if (new_deadline < old_deadline) {
		/* FIN, RST: an earlier deadline must be filed again */
		twheel_move(nt->wheel, m->id, new_deadline);
		FX_STAT_ADD(&nt->st, nat_shortened, 1);
	}
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

/*
 * The per-packet steps of fx_nat_translate() (nat.c), on the owner. Each
 * leaves the verdict in pk->nat: FX_NAT_FORWARD with the packet and its
 * key translated, or FX_NAT_DROP with the reason counted.
 */

/**
 * Outbound packet with key k; m is what the burst's lookup found for k
 * (NULL: nothing), looked up again if recheck (an earlier packet of the
 * burst made a mapping). Returns whether it made a mapping (nat_in2out.c).
 */
bool nat_in2out(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m,
		bool recheck);

/**
 * Before the burst's packets are handled: start reading what making a
 * mapping for outbound packet pk (key k, which the lookup missed) will
 * check first, its public tuple's bucket in the table and its port unit,
 * for the inside port or else for the n-th random candidate drawn ahead.
 * Returns 1 if that was a random candidate, else 0 (nat_in2out.c).
 */
unsigned int nat_in2out_prefetch(struct fx_nat *nt, const struct fx_pkt *pk,
				 const struct nat_key *k, unsigned int n);

/** Inbound packet with key k, m what the lookup found (nat_out2in.c). */
void nat_out2in(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
		struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m);

/** ICMP error, outbound or inbound (nat_icmp.c). */
void nat_icmp_error(struct fx_nat *nt, struct rte_mbuf *mb, struct fx_pkt *pk,
		    bool out);

#endif /* _FX_NAT_PRIV_H_ */
