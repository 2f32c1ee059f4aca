/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Leaving the worker: the forward stage, the last of a burst and the only
 * one that transmits.
 *
 * Each stage before it leaves a verdict per packet: a next hop (fwd/route.h,
 * fwd/neigh.h: a port or a route's gateway), FX_VERDICT_ROUTE (forward by
 * a route lookup of the packet's key, as translated), or FX_VERDICT_DROP
 * (refused, the cause counted by the stage). fx_forward_burst() carries the
 * verdicts out: a packet that is forwarded gets the output port's Ethernet
 * addresses and its TTL or hop limit decremented (the IPv4 header checksum
 * updated incrementally, RFC 1624), then waits in the worker's buffer for
 * that port; a buffer is sent when it holds a burst, and every buffer at
 * the end of each loop iteration (fx_tx_flush_all()). What the port does
 * not take is counted as dropped on the output port and freed; a packet
 * refused is counted as dropped on its receive port. VLAN tags stay as they
 * came: the IP header is after them (l2_len).
 *
 * The destination MAC comes from --eth-dest (or l3fwd's 02:00:00:00:00:PP)
 * on a port that does not resolve neighbours, else from the neighbour
 * entry (fwd/neigh.h). A packet whose neighbour a worker may not use goes
 * to the main lcore, rewritten but for its destination MAC
 * (fwd/slowpath.h), and one with no route (FX_NEXTHOP_NONE) is dropped,
 * counted no_route.
 *
 * struct fx_fwd is one worker's way in and out: its tx queue and buffer
 * per port, its ring to the main lcore, and the packet counters of the
 * parse and forward stages, written by that worker only.
 */

#ifndef _FX_FORWARD_H_
#define _FX_FORWARD_H_

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "base/counter.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"
#include "fwd/route.h"
#include "fwd/slowpath.h"

/** Verdicts beside the next hops (which are below 0x100). */
#define FX_VERDICT_ROUTE 0x100u     /**< forward by a route lookup of the key */
#define FX_VERDICT_DROP 0x101u      /**< refused, counted: dropped on the receive port */
#define FX_VERDICT_HANDOFF 0x102u   /**< leaves for its owner (fx_pkt.owner) */

/** Source MAC of each port (set when the ports start, read-only after). */
extern struct rte_ether_addr fx_port_mac[RTE_MAX_ETHPORTS];

/** Packets waiting to go out on one port. */
struct fx_txbuf {
	uint16_t n;
	struct rte_mbuf *m[MAX_PKT_BURST];
};

/**
 * A worker's packet counters of the parse and forward stages: IP
 * fragments (tracked without ports), frames over --max-pkt-len, packets
 * with no route; the name is also the output field.
 */
#define FX_FWD_COUNTERS(X) X(fragments) X(oversized) X(no_route)

/** The parse and forward stages' counters; written by the worker only. */
struct fx_fwd_stats {
#define FX_FWD_FIELD(n) uint64_t n;
	FX_FWD_COUNTERS(FX_FWD_FIELD)
#undef FX_FWD_FIELD
	struct fx_slow_stats slow;           /**< FX_SLOW_COUNTERS (fwd/slowpath.h) */
	uint64_t malformed[FX_CAUSE_MAX];    /**< by cause (fwd/parse.h) */
	uint64_t rx[RTE_MAX_ETHPORTS];       /**< received on the port */
	uint64_t tx[RTE_MAX_ETHPORTS];       /**< sent on the port */
	uint64_t dropped[RTE_MAX_ETHPORTS];  /**< refused (receive port) or not taken (output port) */
};

/** One worker's way in and out. */
struct fx_fwd {
	/* set up by the main lcore before launch, then read-only */
	uint16_t tx_queue[RTE_MAX_ETHPORTS];
	struct rte_ring *slow;               /**< to the main lcore; NULL: none */
	/* owner only */
	struct fx_txbuf tx[RTE_MAX_ETHPORTS];
	/* written by the owner only, read by anyone */
	struct fx_fwd_stats st __rte_cache_aligned;
};

/** Send what waits for port. Owner. */
static inline void
fx_tx_flush(struct fx_fwd *fw, uint16_t port)
{
	struct fx_txbuf *b = &fw->tx[port];
	uint16_t sent;

	sent = rte_eth_tx_burst(port, fw->tx_queue[port], b->m, b->n);
	FX_STAT_ADD(&fw->st, tx[port], sent);
	if (unlikely(sent < b->n)) {
		FX_STAT_ADD(&fw->st, dropped[port], b->n - sent);
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

/** Send what waits for any port. Owner, once per loop iteration. */
void fx_tx_flush_all(struct fx_fwd *fw);

/** Refuse packet m, received on in_port: counted, freed. Owner. */
static inline void
fx_drop(struct fx_fwd *fw, uint16_t in_port, struct rte_mbuf *m)
{
	FX_STAT_ADD(&fw->st, dropped[in_port], 1);
	rte_pktmbuf_free(m);
}

/** Rewrite and queue parsed packet m by next hop nexthop, at time now.
 * Owner. Inline in the stage's loop: a call per packet costs more than
 * its body. */
static __rte_always_inline void
fx_forward(struct fx_fwd *fw, struct rte_mbuf *m, const struct fx_pkt *pk,
	   uint16_t nexthop, uint64_t now)
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
		FX_STAT_ADD(&fw->st, no_route, 1);
		fx_drop(fw, m->port, m);
		return;
	}
	if (likely(!fx_l3.resolve[out]))
		rte_ether_addr_copy(&fx_conf.eth_dest[out], &eth->dst_addr);
	else
		held = !fx_neigh_dst(pk, nexthop, out, now, &eth->dst_addr);
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
		fx_slow_send(fw->slow, &fw->st.slow, m, FX_SLOW_HOLD, nexthop);
		return;
	}
	b = &fw->tx[out];
	b->m[b->n++] = m;
	if (b->n == MAX_PKT_BURST)
		fx_tx_flush(fw, out);
}

/**
 * The forward stage: carry out the verdicts next[] of n parsed packets
 * (received on m->port) at time now, with route table rt for
 * FX_VERDICT_ROUTE. Owner.
 */
void fx_forward_burst(struct fx_fwd *fw, const struct fx_route_table *rt,
		      uint64_t now, struct rte_mbuf **pkts, const uint16_t *next,
		      uint16_t n);

#endif /* _FX_FORWARD_H_ */
