/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT of ICMP errors (owner), both directions: an error is translated with
 * the mapping of the packet it quotes, which it neither makes, refreshes
 * nor ends (RFC 5508 REQ-2). Classification (nat/classify.c) has let only
 * destination unreachable, time exceeded and parameter problem through,
 * quoting the start of a TCP, UDP or echo packet. Outbound, the quote is a
 * reply the NAT delivered to the inside host (found by its out key from
 * the host's side) and the error must come from that host; inbound, the
 * quote is a packet the NAT sent (its in key: the public source and port
 * and the same remote endpoint) and the error must be addressed to the
 * mapping's public address. A quote no live mapping matches that way is
 * dropped as nat_in_nomatch.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "base/counter.h"
#include "fwd/parse.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/table.h"
#include "nat/translate.h"

/* the out key (ICMP error from inside) or in key (from outside) of the
 * mapping a quoted packet belongs to */
static inline void
quoted_key(const struct rte_ipv4_hdr *q, struct nat_key *k)
{
	uint16_t dport = nat_quoted_port(q, true);
	uint16_t sport = q->next_proto_id == IPPROTO_ICMP ? dport :
		nat_quoted_port(q, false);

	*k = nat_key_make(q->dst_addr, q->src_addr, sport, dport, q->next_proto_id);
}

void
nat_icmp_error(struct fx_nat *nt, struct rte_mbuf *mb, struct fx_pkt *pk,
	       bool out)
{
	struct rte_ipv4_hdr *ip = nat_ipv4_of(mb, pk), *q;
	struct rte_icmp_hdr *icmp;
	struct nat_mapping *m;
	struct nat_key k;
	const struct nat_key *kp = &k;
	uint32_t len, qlen;

	icmp = nat_icmp_of(mb, pk, &len);
	q = nat_quoted_of(icmp, len, &qlen);
	if (q == NULL || (q->next_proto_id != IPPROTO_TCP &&
			  q->next_proto_id != IPPROTO_UDP &&
			  q->next_proto_id != IPPROTO_ICMP)) {
		pk->nat = FX_NAT_DROP;
		FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
		return;
	}
	quoted_key(q, &k);
	nat_table_lookup_bulk(&nt->tbl, &kp, 1, &m);
	if (m == NULL || m->state != NAT_LIVE || nat_mapping_is_out(m, &k) != out ||
	    (out ? ip->src_addr != m->in_addr : ip->dst_addr != m->pub_addr)) {
		pk->nat = FX_NAT_DROP;
		FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
		return;
	}
	if (out) {
		nat_icmp_error_translate(ip, icmp, q, qlen, false, m->pub_addr,
					 m->pub_port);
		nat_key_translated(pk, true, m->pub_addr, pk->key.port[pk->dir]);
	} else {
		nat_icmp_error_translate(ip, icmp, q, qlen, true, m->in_addr,
					 m->in_port);
		nat_key_translated(pk, false, m->in_addr, pk->key.port[pk->dir ^ 1]);
	}
	pk->nat = FX_NAT_FORWARD;
	FX_STAT_ADD(&nt->st, nat_icmp_errors, 1);
}
