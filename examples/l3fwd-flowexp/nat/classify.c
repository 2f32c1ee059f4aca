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
 * of its inside endpoint (nat/eim.h), in every affinity mode, counted in
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
 *
 * The rules are inline in the parse stage (nat/classify.h); this file has
 * the ICMP part, which TCP and UDP never reach.
 */

#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "flow/table.h"
#include "fwd/parse.h"
#include "nat/classify.h"
#include "nat/translate.h"

/*
 * The flow-table hash of the connection a quoted packet belongs to (the
 * key the parser built for that connection's packets): the quote is a
 * reply the NAT delivered to an inside host, so its destination is the
 * inside end.
 */
uint32_t
nat_quoted_hash(const struct rte_ipv4_hdr *q, uint16_t vlan)
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
		return nat_cls_drop(&nt->st.nat_drop_icmp_type);
	}
	q = nat_quoted_of(icmp, len, &qlen);
	if (q == NULL)
		return nat_cls_drop(&nt->st.nat_drop_icmp_quote);
	switch (q->next_proto_id) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		break;
	case IPPROTO_ICMP:
		l4 = (const uint8_t *)q + rte_ipv4_hdr_len(q);
		if (nat_icmp_is_error(l4[0]))
			return nat_cls_drop(&nt->st.nat_drop_icmp_nested);
		/* the NAT sends echo requests out and delivers replies in */
		if (l4[0] != (inbound ? NAT_ICMP_ECHO_REQUEST : NAT_ICMP_ECHO_REPLY))
			return nat_cls_drop(&nt->st.nat_drop_icmp_quote);
		break;
	default:
		return nat_cls_drop(&nt->st.nat_drop_icmp_quote);
	}
	*qp = q;
	return inbound ? FX_NAT_IN : FX_NAT_OUT;
}

uint8_t
fx_nat_classify_icmp(struct fx_nat *nt, const struct rte_mbuf *m,
		     const struct fx_pkt *pk, uint8_t cls, uint32_t src,
		     uint16_t self, uint16_t nb_workers, uint16_t *owner)
{
	struct rte_ipv4_hdr *q = NULL;
	struct rte_icmp_hdr *icmp;
	uint32_t len;

	icmp = nat_icmp_of(m, pk, &len);
	if (nat_icmp_is_error(icmp->icmp_type) &&
	    icmp_error_check(nt, icmp, len, cls == FX_NAT_IN, &q) == FX_NAT_DROP)
		return FX_NAT_DROP;
	return nat_cls_owner(nt, pk, cls, q, src, self, nb_workers, owner);
}
