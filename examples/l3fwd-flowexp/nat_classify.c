/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT classification on the receiving worker, before any handoff: the
 * NAT class of a parsed packet (nat_conf.h has the address rules) and,
 * for the packets whose owner is not the flow's, their owner. An inbound
 * packet belongs to the owner of its public port (an ICMP error: of the
 * port its quoted packet was sent from); an inside host's ICMP error,
 * under handoff, to the owner of the connection it quotes.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "affinity.h"
#include "flow_table.h"
#include "nat.h"
#include "nat_conf.h"
#include "nat_priv.h"
#include "parse.h"
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

uint8_t
fx_nat_classify(struct fx_nat *nt, const struct rte_mbuf *m,
		const struct fx_pkt *pk, uint16_t self, uint16_t nb_workers,
		uint16_t *owner)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint32_t src, dst, len, qlen;
	struct rte_icmp_hdr *icmp;
	struct rte_ipv4_hdr *q;
	uint16_t port;
	uint8_t o;

	if (pk->key.family != FX_FAMILY_V4)
		return FX_NAT_NONE;
	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	if (nat_is_pool(c, dst)) {
		port = pk->key.port[pk->dir ^ 1];
		if (pk->key.proto == IPPROTO_ICMP && !pk->fragment) {
			icmp = nat_icmp_of(m, pk, &len);
			if (nat_icmp_is_error(icmp->icmp_type)) {
				q = nat_quoted_of(icmp, len, &qlen);
				/* the quoted packet left from the public port */
				port = q != NULL ? nat_quoted_port(q, true) : 0;
			}
		}
		/* the port's owner; a port outside the range has none and
		 * the packet is dropped where it arrived */
		o = fx_nat_port_owner[rte_be_to_cpu_16(port)];
		*owner = o != 0xff ? o : self;
		if (*owner != self)
			FX_STAT_ADD(&nt->st, nat_handoff, 1);
		return FX_NAT_IN;
	}
	if (!nat_is_inside(c, src))
		return FX_NAT_NONE;
	/* an inside host's ICMP error belongs to the connection it quotes:
	 * under handoff, to the owner of that connection's key */
	if (pk->key.proto == IPPROTO_ICMP && !pk->fragment &&
	    fx_affinity_mode == FX_AFF_HANDOFF) {
		icmp = nat_icmp_of(m, pk, &len);
		if (nat_icmp_is_error(icmp->icmp_type)) {
			q = nat_quoted_of(icmp, len, &qlen);
			if (q != NULL)
				*owner = fx_affinity_owner(quoted_sig(q, pk->key.vlan),
							   nb_workers);
		}
	}
	return FX_NAT_OUT;
}
