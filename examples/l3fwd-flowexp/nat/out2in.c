/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT inbound step (owner): a packet from outside to a public tuple is
 * translated back to the inside host when it matches a live mapping in
 * the reply direction, refreshing it (a TCP segment that does not fit its
 * connection is dropped, nat/nat.h); anything else (no mapping, a held one, a
 * tuple of the other direction) is dropped as nat_in_nomatch, or under
 * endpoint-independent mapping goes to its filter (nat/filter.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "base/counter.h"
#include "fwd/parse.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/table.h"

void
nat_out2in(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
	   struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m)
{
	if (nat_bib_on(&nt->bib)) {
		nat_filter_in(nt, now, mb, pk, k, m);   /* eim */
		return;
	}
	FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
	pk->nat = FX_NAT_DROP;
}
