/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The forward stage (fwd/forward.h): the verdicts carried out, the
 * buffers sent; and the ports' source MACs it writes into every packet.
 */

#include "fwd/forward.h"

struct rte_ether_addr fx_port_mac[RTE_MAX_ETHPORTS];

void
fx_tx_flush_all(struct fx_fwd *fw)
{
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (fw->tx[p].n != 0)
			fx_tx_flush(fw, p);
}

void
fx_forward_burst(struct fx_fwd *fw, const struct fx_route_table *rt, uint64_t now,
		 struct rte_mbuf **pkts, const uint16_t *next, uint16_t n)
{
	const struct fx_pkt *p;
	uint16_t i, v;

	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		v = next[i];
		if (v == FX_VERDICT_ROUTE)
			v = fx_route_lookup(rt, &p->key, p->dir ^ 1, pkts[i]->port);
		else if (unlikely(v == FX_VERDICT_DROP)) {
			fx_drop(fw, pkts[i]->port, pkts[i]);
			continue;
		}
		fx_forward(fw, pkts[i], p, v, now);
	}
}
