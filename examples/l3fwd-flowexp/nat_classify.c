/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT classification on the receiving worker, before any handoff and
 * before any table is touched: the NAT class of a parsed packet from its
 * receive port and addresses, the drops those refuse (counted by cause,
 * so a spoofed packet costs one parse and never a lookup), and, for the
 * packets whose owner is not the flow's, their owner. An inbound packet
 * belongs to the owner of its public port (an ICMP error: of the port its
 * quoted packet was sent from); an inside host's ICMP error, under
 * handoff, to the owner of the connection it quotes. Under eim on several
 * workers every outbound packet (a hairpinned one's outbound half, an
 * inside host's ICMP error: the connection it quotes) belongs to the owner
 * of its inside endpoint (nat_eim.h), in every affinity mode, counted in
 * nat_handoff when that is another worker.
 *
 * With --nat-outside (ports with roles), IPv4, in this order:
 *   outside port  source inside           drop  nat_drop_spoof_inside
 *                 source in the pool      drop  nat_drop_spoof_pool
 *                 destination in the pool inbound
 *                 destination inside      drop  nat_drop_unsolicited
 *                 anything else           drop  nat_drop_transit
 *   inside port   source in the pool      drop  nat_drop_spoof_pool
 *                 source not inside       drop  nat_drop_bcp38
 *                 destination in the pool hairpin (TCP, UDP; other
 *                                         packets: drop nat_drop_hairpin)
 *                 destination inside      not translated (a flow)
 *                 routed to an outside    outbound
 *                 port
 *                 routed to an inside     not translated (a flow)
 *                 port
 * Without roles (NAT on one port): a pool source is dropped
 * (nat_drop_spoof_pool); a destination in the pool is inbound (from an
 * inside source: hairpin, as above), an inside source outbound, the rest
 * not translated. Then, for both: a tagged
 * frame NAT would translate is dropped (nat_drop_vlan: NAT is not
 * VLAN-aware); an ICMP error other than destination unreachable, time
 * exceeded and parameter problem is dropped (nat_drop_icmp_type), and so
 * is one whose quote is not the start of a TCP, UDP or ICMP echo packet
 * (nat_drop_icmp_quote: truncated, a fragment, too short, another
 * protocol, or an echo of the wrong direction) or quotes an ICMP error
 * (nat_drop_icmp_nested). IPv6 is never translated.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "affinity.h"
#include "flow_table.h"
#include "fx_atomic.h"
#include "nat.h"
#include "nat_conf.h"
#include "nat_eim.h"
#include "nat_priv.h"
#include "nat_translate.h"
#include "parse.h"
#include "route.h"
#include "stats.h"

/*
 * The flow-table hash of the connection a quoted packet belongs to (the
 * key the parser built for that connection's packets): the quote is a
 * reply the NAT delivered to an inside host, so its destination is the
 * inside end.
 */
static uint32_t
quoted_sig(const struct rte_ipv4_hdr *q, uint16_t vlan)
{
	struct fx_pkt p;

	memset(&p, 0, sizeof(p));
	p.key.family = FX_FAMILY_V4;
	p.key.proto = q->next_proto_id;
	p.key.vlan = vlan;
	memcpy(p.key.addr[0], &q->dst_addr, 4);
	memcpy(p.key.addr[1], &q->src_addr, 4);
	if (q->next_proto_id == IPPROTO_ICMP) {
		p.key.port[0] = p.key.port[1] = nat_quoted_port(q, true);
	} else {
		p.key.port[0] = nat_quoted_port(q, false);
		p.key.port[1] = nat_quoted_port(q, true);
	}
	fx_key_order(&p, 4);
	return ft_hash(&p.key);
}

/* whether outbound packets go to their inside endpoint's owner */
static inline bool
eim_owned(uint16_t nb_workers)
{
	return fx_nat_conf.mapping == NAT_MAP_EIM && nb_workers > 1;
}

/* an outbound packet of inside endpoint (addr, port, proto) under eim */
static inline void
eim_owner(struct fx_nat *nt, uint32_t addr, uint16_t port, uint8_t proto,
	  uint16_t self, uint16_t nb_workers, uint16_t *owner)
{
	*owner = nat_eim_owner(addr, port, proto, nb_workers);
	if (*owner != self)
		FX_STAT_ADD(&nt->st, nat_handoff, 1);
}

/* a tag in the frame, or one the NIC stripped */
static inline bool
tagged(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	return pk->l2_len != sizeof(struct rte_ether_hdr) ||
		(m->ol_flags & (RTE_MBUF_F_RX_VLAN_STRIPPED |
				RTE_MBUF_F_RX_QINQ_STRIPPED)) != 0;
}

static inline uint8_t
drop(uint64_t *cause)
{
	fx_store_relaxed(cause, *cause + 1);   /* a counter, as FX_STAT_ADD */
	return FX_NAT_DROP;
}

/* an inside host's packet to the pool: TCP and UDP are hairpinned (out
 * through the sender's mapping, in through the one of the destination,
 * nat_hairpin.c); ICMP, whose echo identifiers of the two mappings
 * differ, and fragments are dropped */
static inline uint8_t
hairpin(struct fx_nat *nt, const struct fx_pkt *pk)
{
	if (pk->fragment ||
	    (pk->key.proto != IPPROTO_TCP && pk->key.proto != IPPROTO_UDP))
		return drop(&nt->st.nat_drop_hairpin);
	return FX_NAT_HAIRPIN;
}

/* the rules of a port with a role (the table above) */
static inline uint8_t
by_role(struct fx_nat *nt, const struct fx_route_table *rt,
	const struct fx_pkt *pk, uint16_t in_port, uint32_t src, uint32_t dst)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint16_t out;

	if (nat_is_outside_port(c, in_port)) {
		if (nat_is_inside(c, src))
			return drop(&nt->st.nat_drop_spoof_inside);
		if (nat_is_pool(c, src))
			return drop(&nt->st.nat_drop_spoof_pool);
		if (nat_is_pool(c, dst))
			return FX_NAT_IN;
		if (nat_is_inside(c, dst))
			return drop(&nt->st.nat_drop_unsolicited);
		return drop(&nt->st.nat_drop_transit);
	}
	if (nat_is_pool(c, src))
		return drop(&nt->st.nat_drop_spoof_pool);
	if (!nat_is_inside(c, src))
		return drop(&nt->st.nat_drop_bcp38);
	if (nat_is_pool(c, dst))
		return hairpin(nt, pk);
	if (nat_is_inside(c, dst))
		return FX_NAT_NONE;
	out = fx_route_port(rt, &pk->key, pk->dir ^ 1, in_port);
	return nat_is_outside_port(c, out) ? FX_NAT_OUT : FX_NAT_NONE;
}

/* the address rules of NAT on one port */
static inline uint8_t
by_address(struct fx_nat *nt, const struct fx_pkt *pk, uint32_t src, uint32_t dst)
{
	const struct nat_conf *c = &fx_nat_conf;

	if (nat_is_pool(c, src))
		return drop(&nt->st.nat_drop_spoof_pool);
	if (nat_is_pool(c, dst))
		return nat_is_inside(c, src) ? hairpin(nt, pk) : FX_NAT_IN;
	return nat_is_inside(c, src) ? FX_NAT_OUT : FX_NAT_NONE;
}

/*
 * An ICMP error NAT may translate (inbound: it quotes a packet the NAT
 * sent; outbound: a reply the NAT delivered): *q its quote, or a drop
 * with the cause counted.
 */
static uint8_t
icmp_error_check(struct fx_nat *nt, struct rte_icmp_hdr *icmp, uint32_t len,
		 bool inbound, struct rte_ipv4_hdr **qp)
{
	struct rte_ipv4_hdr *q;
	const uint8_t *l4;
	uint32_t qlen;

	switch (icmp->icmp_type) {
	case NAT_ICMP_DEST_UNREACH:
	case NAT_ICMP_TIME_EXCEEDED:
	case NAT_ICMP_PARAM_PROBLEM:
		break;
	default:   /* redirect, source quench */
		return drop(&nt->st.nat_drop_icmp_type);
	}
	q = nat_quoted_of(icmp, len, &qlen);
	if (q == NULL)
		return drop(&nt->st.nat_drop_icmp_quote);
	switch (q->next_proto_id) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		break;
	case IPPROTO_ICMP:
		l4 = (const uint8_t *)q + rte_ipv4_hdr_len(q);
		if (nat_icmp_is_error(l4[0]))
			return drop(&nt->st.nat_drop_icmp_nested);
		/* the NAT sends echo requests out and delivers replies in */
		if (l4[0] != (inbound ? NAT_ICMP_ECHO_REQUEST : NAT_ICMP_ECHO_REPLY))
			return drop(&nt->st.nat_drop_icmp_quote);
		break;
	default:
		return drop(&nt->st.nat_drop_icmp_quote);
	}
	*qp = q;
	return inbound ? FX_NAT_IN : FX_NAT_OUT;
}

uint8_t
fx_nat_classify(struct fx_nat *nt, const struct fx_route_table *rt,
		const struct rte_mbuf *m, const struct fx_pkt *pk,
		uint16_t in_port, uint16_t self, uint16_t nb_workers,
		uint16_t *owner)
{
	struct rte_ipv4_hdr *q = NULL;
	struct rte_icmp_hdr *icmp;
	uint32_t src, dst, len;
	uint8_t cls, o;
	uint16_t port;

	if (pk->key.family != FX_FAMILY_V4)
		return FX_NAT_NONE;
	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	cls = nat_roles(&fx_nat_conf) ? by_role(nt, rt, pk, in_port, src, dst) :
		by_address(nt, pk, src, dst);
	if (cls == FX_NAT_NONE || cls == FX_NAT_DROP)
		return cls;
	if (cls == FX_NAT_HAIRPIN) {   /* first outbound: the flow's owner */
		if (unlikely(tagged(m, pk)))
			return drop(&nt->st.nat_drop_vlan);
		if (eim_owned(nb_workers))   /* under eim: the sender's */
			eim_owner(nt, src, pk->key.port[pk->dir], pk->key.proto,
				  self, nb_workers, owner);
		return cls;
	}
	if (unlikely(tagged(m, pk)))
		return drop(&nt->st.nat_drop_vlan);
	if (pk->key.proto == IPPROTO_ICMP && !pk->fragment) {
		icmp = nat_icmp_of(m, pk, &len);
		if (nat_icmp_is_error(icmp->icmp_type) &&
		    icmp_error_check(nt, icmp, len, cls == FX_NAT_IN, &q) == FX_NAT_DROP)
			return FX_NAT_DROP;
	}
	if (cls == FX_NAT_IN) {
		/* the quoted packet left from the public port */
		port = q != NULL ? nat_quoted_port(q, true) : pk->key.port[pk->dir ^ 1];
		/* the port's owner; a port outside the range has none and
		 * the packet is dropped where it arrived */
		o = fx_nat_port_owner[rte_be_to_cpu_16(port)];
		*owner = o != 0xff ? o : self;
		if (*owner != self)
			FX_STAT_ADD(&nt->st, nat_handoff, 1);
		return FX_NAT_IN;
	}
	/* under eim: the owner of the inside endpoint (of an inside host's
	 * ICMP error: the quote's destination) */
	if (eim_owned(nb_workers)) {
		if (q != NULL)
			eim_owner(nt, q->dst_addr, nat_quoted_port(q, false),
				  q->next_proto_id, self, nb_workers, owner);
		else
			eim_owner(nt, src, pk->key.port[pk->dir], pk->key.proto,
				  self, nb_workers, owner);
		return FX_NAT_OUT;
	}
	/* an inside host's ICMP error belongs to the connection it quotes:
	 * under handoff, to the owner of that connection's key */
	if (q != NULL && fx_affinity_mode == FX_AFF_HANDOFF)
		*owner = fx_affinity_owner(quoted_sig(q, pk->key.vlan), nb_workers);
	return FX_NAT_OUT;
}
