/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Leaving the worker: a packet that is forwarded gets the output port's
 * Ethernet addresses and its TTL or hop limit decremented (the IPv4
 * header checksum updated incrementally, RFC 1624), then waits in the
 * worker's buffer for that port; a buffer is sent when it holds a burst,
 * and every buffer at the end of each loop iteration. What the port does
 * not take is counted as dropped on the output port and freed; a packet
 * the worker refuses is counted as dropped on its receive port. VLAN tags
 * stay as they came: the IP header is after them (l2_len).
 *
 * Where the packet goes is an next hop (l3/route.h): its port, and the
 * destination MAC from --eth-dest (or l3fwd's 02:00:00:00:00:PP) on a
 * port that does not resolve neighbours, else from the neighbour entry
 * (l3/neigh.h). A packet whose neighbour a worker may not use goes to the
 * main lcore, rewritten but for its destination MAC (fwd/slowpath.h), and one
 * with no route (FX_NEXTHOP_NONE) is dropped, counted no_route.
 */

#ifndef _FX_FORWARD_H_
#define _FX_FORWARD_H_

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "boot/ports.h"
#include "ctl/stats.h"
#include "fwd/parse.h"
#include "fwd/slowpath.h"
#include "l3/neigh.h"
#include "worker/lcore.h"

/** Send what waits for port. Owner. */
static inline void
fx_tx_flush(struct fx_lcore *lc, uint16_t port)
{
	struct fx_txbuf *b = &lc->tx[port];
	uint16_t sent;

	sent = rte_eth_tx_burst(port, lc->tx_queue[port], b->m, b->n);
	FX_STAT_ADD(&lc->st, tx[port], sent);
	if (unlikely(sent < b->n)) {
		FX_STAT_ADD(&lc->st, dropped[port], b->n - sent);
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

/** Send what waits for any port. Owner, once per loop iteration. */
static inline void
fx_tx_flush_all(struct fx_lcore *lc)
{
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (lc->tx[p].n != 0)
			fx_tx_flush(lc, p);
}

/** Rewrite and queue parsed packet m by next hop nexthop. Owner. Inline in
 * every burst loop: a call per packet costs more than its body. */
static __rte_always_inline void
fx_forward(struct fx_lcore *lc, struct rte_mbuf *m, const struct fx_pkt *pk,
	   uint16_t nexthop)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	void *l3 = rte_pktmbuf_mtod_offset(m, void *, pk->l2_len);
	uint16_t out = fx_nexthop_port(nexthop);
	struct rte_ipv4_hdr *ip4;
	struct rte_ipv6_hdr *ip6;
	struct fx_txbuf *b;
	bool held = false;
	uint32_t sum;

	if (unlikely(out == FX_PORT_NONE)) {
		FX_STAT_ADD(&lc->st, no_route, 1);
		FX_STAT_ADD(&lc->st, dropped[m->port], 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (likely(!fx_l3.resolve[out]))
		rte_ether_addr_copy(&fx_conf.eth_dest[out], &eth->dst_addr);
	else
		held = !fx_neigh_dst(pk, nexthop, out, lc->now, &eth->dst_addr);
	rte_ether_addr_copy(&fx_port_mac[out], &eth->src_addr);
	if (pk->key.family == FX_FAMILY_V4) {
		ip4 = l3;
		ip4->time_to_live--;
		/* RFC 1624: the TTL is the high byte of its 16-bit word */
		sum = rte_be_to_cpu_16(ip4->hdr_checksum) + 0x0100;
		sum = (sum & 0xffff) + (sum >> 16);
		ip4->hdr_checksum = rte_cpu_to_be_16((uint16_t)sum);
	} else {
		ip6 = l3;
		ip6->hop_limits--;
	}
	if (unlikely(held)) {
		/* the main lcore resolves the neighbour and sends it */
		fx_slow_send(lc->slow, &lc->st, m, FX_SLOW_HOLD, nexthop);
		return;
	}
	b = &lc->tx[out];
	b->m[b->n++] = m;
	if (b->n == MAX_PKT_BURST)
		fx_tx_flush(lc, out);
}

/** Refuse packet m, received on in_port: counted, freed. Owner. */
static inline void
fx_drop(struct fx_lcore *lc, uint16_t in_port, struct rte_mbuf *m)
{
	FX_STAT_ADD(&lc->st, dropped[in_port], 1);
	rte_pktmbuf_free(m);
}

#endif /* _FX_FORWARD_H_ */
