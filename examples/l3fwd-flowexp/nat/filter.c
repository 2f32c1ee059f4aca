/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Inbound filtering of endpoint-independent mappings (--nat-filtering,
 * RFC 4787 section 5, RFC 5382 section 4.3), on the owner, for an inbound
 * packet that matched no live session: its destination names a binding
 * (nat/bib.h) by its public endpoint, and the binding filters while one
 * of its sessions is live:
 *   eif   any remote endpoint;
 *   adf   a remote address the inside endpoint has a session with (live
 *         or held), any port;
 *   apdf  none: only the exact remote endpoint of a live session, which
 *         the session lookup found already.
 * A TCP segment must be a SYN, and ICMP never passes (echo sessions are
 * made by the inside host's requests). What passes makes a session under
 * the binding, from the remote (side 1 of its connection), with the
 * quotas, the records and the log of any session (nat_mapping_make());
 * a held session of that very remote endpoint is revived instead. Never
 * a binding: an inbound packet reaches only a public endpoint that lives.
 * Refused: nat_in_filtered when a live binding was there, nat_non_syn for
 * a TCP segment that may pass but does not open, else nat_in_nomatch.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "base/counter.h"
#include "flow/tcp_track.h"
#include "fwd/parse.h"
#include "nat/bib.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/table.h"

/* whether binding be lets in a packet from (src, proto) */
static inline bool
lets_in(const struct fx_nat *nt, const struct nat_bib_entry *be,
	const struct nat_key *k)
{
	if (k->proto == IPPROTO_ICMP)
		return false;
	switch (fx_nat_conf.filtering) {
	case NAT_FILTER_EIF:
		return true;
	case NAT_FILTER_ADF:
		return nat_bib_rem_seen(&nt->bib, be, k->src);
	default:
		return false;
	}
}

static inline void
refuse(struct fx_pkt *pk, uint64_t *cause)
{
	fx_store_relaxed(cause, *cause + 1);   /* a counter, as FX_STAT_ADD */
	pk->nat = FX_NAT_DROP;
}

void
nat_filter_in(struct fx_nat *nt, uint64_t now, struct rte_mbuf *mb,
	      struct fx_pkt *pk, const struct nat_key *k, struct nat_mapping *m)
{
	struct nat_bib_entry *be;
	struct nat_mapping tmpl;

	be = nat_eim_public(nt, k->dst, k->dport, k->proto);
	if (be == NULL || nat_eim_counts(nt, be)->live == 0) {
		refuse(pk, &nt->st.nat_in_nomatch);
		return;
	}
	if (!lets_in(nt, be, k)) {
		refuse(pk, &nt->st.nat_in_filtered);
		return;
	}
	if (k->proto == IPPROTO_TCP && !fx_tcp_is_open(&pk->tcp)) {
		refuse(pk, &nt->st.nat_non_syn);
		return;
	}
	if (m != NULL && m->state == NAT_HELD) {
		m = nat_eim_revive(nt, m, pk, 1, now);
	} else {
		nat_mapping_tmpl(&tmpl, be->in_addr, be->in_port, k->src,
				 k->sport, k->proto, nat_eim_pub_of(nt, be).pool_idx,
				 k->dst);
		/* the out key was not looked up: the checked insert */
		m = nat_mapping_make(nt, now, pk, &tmpl, 1, true, be);
		if (m != NULL)
			FX_STAT_ADD(&nt->st, nat_in_sessions, 1);
	}
	if (m == NULL) {
		pk->nat = FX_NAT_DROP;   /* counted by the maker */
		return;
	}
	nat_translate_pkt(mb, pk, false, m->in_addr, m->in_port);
	FX_STAT_ADD(&nt->st, nat_in, 1);
}
