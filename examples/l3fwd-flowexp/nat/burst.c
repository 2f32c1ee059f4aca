/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT's stage of a burst, on the worker that owns the packets
 * (fx_nat_burst(), nat/nat.h has the design): the packets' own tuples
 * looked up together, each packet handed to its direction's step
 * (nat/in2out.c, nat/out2in.c, nat/icmp.c), hairpins resolved, and a
 * verdict per packet for the forward stage or the handoff.
 *
 * Hairpinning (RFC 4787 REQ-9, RFC 5382 REQ-8): an inside host's TCP or
 * UDP packet to a public endpoint of the pool goes out and comes back in.
 * Its first half is an outbound packet on the worker that owns its flow
 * (classification gave it FX_NAT_HAIRPIN): it makes or refreshes the
 * sender's mapping towards that public endpoint and gets the sender's
 * public endpoint as source (nat_hairpin counted), and leaves
 * fx_nat_translate() with FX_NAT_IN for its second half. That is an
 * inbound packet like one from outside: it belongs to the owner of its
 * destination port (fx_nat_port_owner): here, or it leaves
 * fx_nat_burst() with the verdict FX_VERDICT_HANDOFF and the worker hands
 * it off (nat_handoff counted); it meets the destination mapping's filter
 * there: under apdf (edm's only filter) only a mapping made towards the sender's public
 * endpoint lets it in, under adf one whose inside endpoint sent to the
 * sender's public address, under eif any live binding. Delivered, its
 * destination is the other inside host, routed as any translated packet;
 * refused, it is dropped as an inbound packet is (nat_in_nomatch,
 * nat_in_filtered).
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "base/config.h"
#include "base/counter.h"
#include "fwd/forward.h"
#include "fwd/parse.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/table.h"

/* A packet's own 5-tuple as the mapping table keys it. */
static inline void
packet_key(const struct fx_pkt *pk, struct nat_key *k)
{
	uint32_t src, dst;

	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	*k = nat_key_make(src, dst, pk->key.port[pk->dir],
			  pk->key.port[pk->dir ^ 1], pk->key.proto);
}

/* whether NAT translates this packet's protocol and message */
static inline bool
supported(const struct rte_mbuf *mb, const struct fx_pkt *pk, bool *is_error)
{
	struct rte_icmp_hdr *icmp;
	uint32_t len;

	*is_error = false;
	if (pk->fragment)
		return false;
	switch (pk->key.proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		return true;
	case IPPROTO_ICMP:
		icmp = nat_icmp_of(mb, pk, &len);
		if (nat_icmp_is_error(icmp->icmp_type)) {
			*is_error = true;
			return true;
		}
		return icmp->icmp_type == NAT_ICMP_ECHO_REQUEST ||
			icmp->icmp_type == NAT_ICMP_ECHO_REPLY;
	default:
		return false;
	}
}

void
fx_nat_translate(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts,
		 uint16_t n)
{
	struct nat_key keys[MAX_PKT_BURST];
	const struct nat_key *kp[MAX_PKT_BURST];
	struct nat_mapping *map[MAX_PKT_BURST];
	struct fx_pkt *kpk[MAX_PKT_BURST];
	struct nat_miss miss[MAX_PKT_BURST];   /* of the outbound keys missed */
	bool is_error[MAX_PKT_BURST];
	struct fx_pkt *pk;
	uint16_t i, j, nk = 0, made = 0;
	unsigned int r;
	bool hairpin, out;

	nt->hairpins = 0;
	/* the packets' own tuples, looked up together */
	for (i = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (unlikely(!supported(pkts[i], pk, &is_error[i]))) {
			pk->nat = FX_NAT_DROP;
			FX_STAT_ADD(&nt->st, nat_unsupported, 1);
			continue;
		}
		if (is_error[i])
			continue;
		packet_key(pk, &keys[nk]);
		kp[nk] = &keys[nk];
		kpk[nk++] = pk;
	}
	/* the records found are read by the lookup; for the outbound
	 * packets it missed, what making their mappings reads first */
	nat_table_lookup_bulk(&nt->tbl, kp, nk, map);
	for (j = 0, r = 0; j < nk; j++) {
		if (map[j] == NULL) {
			if (kpk[j]->nat != FX_NAT_IN)
				r += nat_in2out_prefetch(nt, kpk[j], &keys[j], r,
							 &miss[j]);
			continue;
		}
		/* a TCP segment reads its connection's ends beside the record */
		if (keys[j].proto == IPPROTO_TCP)
			rte_prefetch0(&nt->tcp_ends[nat_table_index(&nt->tbl, map[j])]);
	}
	/* eim: a new session under an existing binding, once the binding's
	 * bucket has come */
	if (nat_bib_on(&nt->bib))
		for (j = 0; j < nk; j++)
			if (map[j] == NULL && kpk[j]->nat == FX_NAT_OUT)
				nat_eim_prefetch_session(nt, &keys[j], &miss[j]);

	/* then each packet, the lookups in packet order */
	for (i = 0, j = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (pk->nat == FX_NAT_DROP)
			continue;
		if (is_error[i]) {
			nat_icmp_error(nt, pkts[i], pk, pk->nat == FX_NAT_OUT);
			continue;
		}
		/* outbound, or a hairpinned packet's outbound half */
		out = pk->nat != FX_NAT_IN;
		hairpin = pk->nat == FX_NAT_HAIRPIN;
		/* the common case inline: a live mapping of its direction */
		if (nat_mapping_serves(map[j], &keys[j], out))
			nat_mapping_hit(nt, now, pkts[i], pk, map[j], out);
		else if (!out)
			nat_out2in(nt, now, pkts[i], pk, &keys[j], map[j]);
		else
			made += nat_in2out(nt, now, pkts[i], pk, &keys[j], map[j],
					   made != 0, &miss[j]);
		j++;
		if (hairpin && pk->nat == FX_NAT_FORWARD) {
			/* from the sender's public endpoint now: inbound */
			pk->nat = FX_NAT_IN;
			FX_STAT_ADD(&nt->st, nat_hairpin, 1);
			nt->hairpins++;
		}
	}
}

/*
 * After the translation, the packets whose outbound half of a hairpin was
 * translated (FX_NAT_IN again) take their inbound half here when this
 * worker owns their public destination port; the others stay FX_NAT_IN,
 * an inbound packet for the owner of that port, named in fx_pkt.owner
 * (counted nat_handoff).
 */
static void
hairpin(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *here[MAX_PKT_BURST];
	struct fx_pkt *pk;
	uint16_t i, nh = 0, owner;

	for (i = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (pk->nat != FX_NAT_IN)
			continue;
		owner = fx_nat_port_owner[rte_be_to_cpu_16(pk->key.port[pk->dir ^ 1])];
		if (owner != 0xff && owner != nt->self && nt->nb_workers > 1) {
			FX_STAT_ADD(&nt->st, nat_handoff, 1);
			pk->owner = owner;   /* stays FX_NAT_IN: inbound there */
			continue;
		}
		here[nh++] = pkts[i];
	}
	if (nh != 0)
		fx_nat_translate(nt, now, here, nh);   /* FX_NAT_IN: no hairpin again */
}

uint16_t
fx_nat_burst(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts, uint16_t n,
	     uint16_t *next)
{
	uint16_t i, away = 0;
	uint8_t v;

	fx_nat_translate(nt, now, pkts, n);
	if (unlikely(nt->hairpins != 0))
		hairpin(nt, now, pkts, n);
	for (i = 0; i < n; i++) {
		v = fx_pkt_of(pkts[i])->nat;
		if (likely(v == FX_NAT_FORWARD)) {
			next[i] = FX_VERDICT_ROUTE;
		} else if (v == FX_NAT_IN) {
			/* a hairpin's inbound half, for its port's owner */
			next[i] = FX_VERDICT_HANDOFF;
			away++;
		} else {
			next[i] = FX_VERDICT_DROP;
		}
	}
	return away;
}
