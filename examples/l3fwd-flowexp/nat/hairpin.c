/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
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
 * it off (nat_handoff counted), and it meets the destination mapping's filter there: under
 * apdf (edm's only filter) only a mapping made towards the sender's public
 * endpoint lets it in, under adf one whose inside endpoint sent to the
 * sender's public address, under eif any live binding. Delivered, its
 * destination is the other inside host, routed as any translated packet;
 * refused, it is dropped as an inbound packet is (nat_in_nomatch,
 * nat_in_filtered).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "base/counter.h"
#include "fwd/parse.h"
#include "nat/nat.h"
#include "nat/priv.h"

void
fx_nat_hairpin(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts, uint16_t n)
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
