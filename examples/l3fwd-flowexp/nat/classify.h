/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT classification, inline in the receiving worker's parse stage: the
 * rules of the table in nat/classify.c, which also has the ICMP part. A
 * TCP or UDP packet, nearly every packet, is classified here without a
 * call and its register saves; an ICMP packet, whose error messages carry
 * a quote to check, goes on to fx_nat_classify_icmp().
 */

#ifndef _FX_NAT_CLASSIFY_H_
#define _FX_NAT_CLASSIFY_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "base/atomic.h"
#include "base/counter.h"
#include "fwd/owner.h"
#include "fwd/parse.h"
#include "fwd/route.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/priv.h"

/*
 * The flow-table hash of the connection a quoted packet belongs to (the
 * key the parser built for that connection's packets; nat/classify.c).
 */
uint32_t nat_quoted_hash(const struct rte_ipv4_hdr *q, uint16_t vlan);

/*
 * fx_nat_classify() of an ICMP packet that is not a fragment, of class
 * cls (FX_NAT_IN or FX_NAT_OUT) from src: an error's quote checked (or
 * the packet dropped, its cause counted), then its owner (nat/classify.c).
 */
uint8_t fx_nat_classify_icmp(struct fx_nat *nt, const struct rte_mbuf *m,
			     const struct fx_pkt *pk, uint8_t cls, uint32_t src,
			     uint16_t self, uint16_t nb_workers, uint16_t *owner);

/* a drop, its cause counted (a counter, as FX_STAT_ADD) */
static inline uint8_t
nat_cls_drop(uint64_t *cause)
{
	fx_store_relaxed(cause, *cause + 1);
	return FX_NAT_DROP;
}

/* whether outbound packets go to their inside endpoint's owner */
static inline bool
nat_cls_eim_owned(uint16_t nb_workers)
{
	return fx_nat_conf.mapping == NAT_MAP_EIM && nb_workers > 1;
}

/* an outbound packet of inside endpoint (addr, port, proto) under eim */
static inline void
nat_cls_eim_owner(struct fx_nat *nt, uint32_t addr, uint16_t port, uint8_t proto,
		  uint16_t self, uint16_t nb_workers, uint16_t *owner)
{
	*owner = nat_eim_owner(addr, port, proto, nb_workers);
	if (*owner != self)
		FX_STAT_ADD(&nt->st, nat_handoff, 1);
}

/* a tag in the frame, or one the NIC stripped */
static inline bool
nat_cls_tagged(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	return pk->l2_len != sizeof(struct rte_ether_hdr) ||
		(m->ol_flags & (RTE_MBUF_F_RX_VLAN_STRIPPED |
				RTE_MBUF_F_RX_QINQ_STRIPPED)) != 0;
}

/* an inside host's packet to the pool: TCP and UDP are hairpinned (out
 * through the sender's mapping, in through the one of the destination,
 * nat/hairpin.c); ICMP, whose echo identifiers of the two mappings
 * differ, and fragments are dropped */
static inline uint8_t
nat_cls_hairpin(struct fx_nat *nt, const struct fx_pkt *pk)
{
	if (pk->fragment ||
	    (pk->key.proto != IPPROTO_TCP && pk->key.proto != IPPROTO_UDP))
		return nat_cls_drop(&nt->st.nat_drop_hairpin);
	return FX_NAT_HAIRPIN;
}

/* the rules of a port with a role (nat/classify.c's table) */
static inline uint8_t
nat_cls_by_role(struct fx_nat *nt, const struct fx_route_table *rt,
		const struct fx_pkt *pk, uint16_t in_port, uint32_t src, uint32_t dst)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint16_t out;

	if (nat_is_outside_port(c, in_port)) {
		if (nat_is_inside(c, src))
			return nat_cls_drop(&nt->st.nat_drop_spoof_inside);
		if (nat_is_pool(c, src))
			return nat_cls_drop(&nt->st.nat_drop_spoof_pool);
		if (nat_is_pool(c, dst))
			return FX_NAT_IN;
		if (nat_is_inside(c, dst))
			return nat_cls_drop(&nt->st.nat_drop_unsolicited);
		return nat_cls_drop(&nt->st.nat_drop_transit);
	}
	if (nat_is_pool(c, src))
		return nat_cls_drop(&nt->st.nat_drop_spoof_pool);
	if (!nat_is_inside(c, src))
		return nat_cls_drop(&nt->st.nat_drop_bcp38);
	if (nat_is_pool(c, dst))
		return nat_cls_hairpin(nt, pk);
	if (nat_is_inside(c, dst))
		return FX_NAT_NONE;
	out = fx_route_port(rt, &pk->key, pk->dir ^ 1, in_port);
	return nat_is_outside_port(c, out) ? FX_NAT_OUT : FX_NAT_NONE;
}

/* the address rules of NAT on one port */
static inline uint8_t
nat_cls_by_address(struct fx_nat *nt, const struct fx_pkt *pk, uint32_t src,
		   uint32_t dst)
{
	const struct nat_conf *c = &fx_nat_conf;

	if (nat_is_pool(c, src))
		return nat_cls_drop(&nt->st.nat_drop_spoof_pool);
	if (nat_is_pool(c, dst))
		return nat_is_inside(c, src) ? nat_cls_hairpin(nt, pk) : FX_NAT_IN;
	return nat_is_inside(c, src) ? FX_NAT_OUT : FX_NAT_NONE;
}

/*
 * The owner of a packet of class cls (FX_NAT_IN or FX_NAT_OUT) from inside
 * address src; q the quote of an ICMP error, else NULL. Returns cls.
 */
static inline uint8_t
nat_cls_owner(struct fx_nat *nt, const struct fx_pkt *pk, uint8_t cls,
	      const struct rte_ipv4_hdr *q, uint32_t src, uint16_t self,
	      uint16_t nb_workers, uint16_t *owner)
{
	uint16_t port;
	uint8_t o;

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
	if (nat_cls_eim_owned(nb_workers)) {
		if (q != NULL)
			nat_cls_eim_owner(nt, q->dst_addr, nat_quoted_port(q, false),
					  q->next_proto_id, self, nb_workers, owner);
		else
			nat_cls_eim_owner(nt, src, pk->key.port[pk->dir], pk->key.proto,
					  self, nb_workers, owner);
		return FX_NAT_OUT;
	}
	/* an inside host's ICMP error belongs to the connection it quotes:
	 * under handoff, to the owner of that connection's key */
	if (q != NULL && fx_affinity_mode == FX_AFF_HANDOFF)
		*owner = fx_affinity_owner(nat_quoted_hash(q, pk->key.vlan), nb_workers);
	return FX_NAT_OUT;
}

/**
 * Receiving worker `self` of `nb_workers`: the NAT class of a parsed
 * packet received on `in_port`, routed with `rt`, and its owner if it is
 * inbound: the owner of its public port, or `self` for a port outside the
 * range (an inside host's ICMP error under handoff: the owner of the
 * connection it quotes; *owner unchanged otherwise). FX_NAT_DROP for a
 * packet the receive port and addresses refuse, its cause counted.
 * Counts nat_handoff.
 */
static inline uint8_t
fx_nat_classify(struct fx_nat *nt, const struct fx_route_table *rt,
		const struct rte_mbuf *m, const struct fx_pkt *pk,
		uint16_t in_port, uint16_t self, uint16_t nb_workers,
		uint16_t *owner)
{
	uint32_t src, dst;
	uint8_t cls;

	if (pk->key.family != FX_FAMILY_V4)
		return FX_NAT_NONE;
	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	cls = nat_roles(&fx_nat_conf) ?
		nat_cls_by_role(nt, rt, pk, in_port, src, dst) :
		nat_cls_by_address(nt, pk, src, dst);
	if (cls == FX_NAT_NONE || cls == FX_NAT_DROP)
		return cls;
	if (unlikely(nat_cls_tagged(m, pk)))
		return nat_cls_drop(&nt->st.nat_drop_vlan);
	if (cls == FX_NAT_HAIRPIN) {   /* first outbound: the flow's owner */
		if (nat_cls_eim_owned(nb_workers))   /* under eim: the sender's */
			nat_cls_eim_owner(nt, src, pk->key.port[pk->dir], pk->key.proto,
					  self, nb_workers, owner);
		return cls;
	}
	if (unlikely(pk->key.proto == IPPROTO_ICMP && !pk->fragment))
		return fx_nat_classify_icmp(nt, m, pk, cls, src, self, nb_workers,
					    owner);
	return nat_cls_owner(nt, pk, cls, NULL, src, self, nb_workers, owner);
}

#endif /* _FX_NAT_CLASSIFY_H_ */
