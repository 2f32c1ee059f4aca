/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The slow path: what a worker hands to the main lcore instead of
 * forwarding, on a port with addresses (--port-addr), and how
 * (fwd/slowpath.c).
 *
 * A worker recognises, and does nothing more with:
 *   ARP         an untagged ARP frame (else counted non_ip, as always);
 *   ND          ICMPv6 router/neighbour solicitations and advertisements
 *               and redirects, to a group address or to one of the
 *               gateway's own;
 *   ECHO        an ICMP or ICMPv6 echo request to one of the gateway's
 *               addresses;
 *   TTL         a packet whose TTL or hop limit ran out (still counted
 *               ttl_exceeded): the main lcore answers with time exceeded;
 *   HOLD        a packet to forward whose neighbour the worker cannot use
 *               (unresolved, or its until passed: fwd/neigh.h),
 *               rewritten but for the destination MAC, with its next hop.
 * Anything else to the gateway's addresses or to a group address (IPv4
 * multicast and broadcast, IPv6 multicast) is dropped on the worker and
 * counted (local_dropped); the gateway has no other service. Packets to a
 * NAT pool address go to NAT as before, also when the pool address is one
 * of the gateway's own: the main lcore marks such an address at start-up
 * (fx_l3.local4_nat_pool, from NAT's configuration), so the classifier
 * reads nothing of NAT's.
 *
 * One single-producer single-consumer ring per worker, FX_SLOW_RING
 * packets; a full ring drops the packet and counts it (to_main_full),
 * the worker never waits. What the main lcore needs travels with the
 * mbuf: the parse result in its private area (fwd/parse.h), the reason and
 * the next hop in a dynamic field of its own.
 */

#ifndef _FX_SLOWPATH_H_
#define _FX_SLOWPATH_H_

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "base/counter.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"

#define FX_SLOW_RING 1024u   /**< packets per worker's ring */

enum fx_slow_reason {
	FX_SLOW_NONE,        /**< not for the slow path */
	FX_SLOW_ARP,
	FX_SLOW_ND,
	FX_SLOW_ECHO,
	FX_SLOW_TTL,
	FX_SLOW_HOLD,
	FX_SLOW_DROP,        /**< for the gateway, nothing it answers: drop */
};

extern int fx_slow_off;

/** The reason and next hop a packet travels with. */
static inline void
fx_slow_mark(struct rte_mbuf *m, uint8_t reason, uint16_t nexthop)
{
	*RTE_MBUF_DYNFIELD(m, fx_slow_off, uint32_t *) = (uint32_t)reason | (uint32_t)nexthop << 8;
}

static inline uint8_t
fx_slow_reason_of(const struct rte_mbuf *m)
{
	return (uint8_t)*RTE_MBUF_DYNFIELD(m, fx_slow_off, const uint32_t *);
}

static inline uint16_t
fx_slow_nexthop_of(const struct rte_mbuf *m)
{
	return (uint16_t)(*RTE_MBUF_DYNFIELD(m, fx_slow_off, const uint32_t *) >> 8);
}

/**
 * What a worker counts of its slow path: packets handed to the main lcore
 * (to_main), those dropped for want of room in the ring (to_main_full),
 * and those for the gateway that it does not answer (local_dropped).
 */
#define FX_SLOW_COUNTERS(X) X(to_main) X(to_main_full) X(local_dropped)

/** The slow path's counters; written by the worker only. */
struct fx_slow_stats {
#define FX_SLOW_FIELD(n) uint64_t n;
	FX_SLOW_COUNTERS(FX_SLOW_FIELD)
#undef FX_SLOW_FIELD
};

/** Hand m to the main lcore on ring r, or drop it; counted. Workers. */
static inline void
fx_slow_send(struct rte_ring *r, struct fx_slow_stats *st, struct rte_mbuf *m,
	     uint8_t reason, uint16_t nexthop)
{
	fx_slow_mark(m, reason, nexthop);
	if (unlikely(rte_ring_sp_enqueue(r, m) != 0)) {
		FX_STAT_ADD(st, to_main_full, 1);
		rte_pktmbuf_free(m);
		return;
	}
	FX_STAT_ADD(st, to_main, 1);
}

/* the ICMP type of a parsed IPv4 packet, or -1 (a fragment, not ICMP) */
static inline int
icmp4_type(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, pk->l2_len);

	if (pk->key.proto != IPPROTO_ICMP || pk->fragment)
		return -1;
	return ip[((ip[0] & 15) * 4)];   /* the parser checked it is in the frame */
}

/* the ICMPv6 type of a parsed IPv6 packet without extension headers, or -1 */
static inline int
icmp6_type(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	const uint8_t *ip6 = rte_pktmbuf_mtod_offset(m, const uint8_t *, pk->l2_len);

	if (pk->key.proto != IPPROTO_ICMPV6 || ip6[6] != IPPROTO_ICMPV6)
		return -1;
	return ip6[40];
}

static inline bool
nd_type(int t)
{
	return t >= 133 && t <= 137;
}

/**
 * What the slow path does with a frame received on a port with addresses,
 * given the parser's result rc (fwd/parse.h): FX_SLOW_NONE for the usual way.
 */
static inline uint8_t
fx_slow_classify(const struct rte_mbuf *m, const struct fx_pkt *pk, int rc)
{
	const uint8_t *dst;
	uint32_t d4;
	int t, local;

	if (rc == FX_CAUSE_NON_IP) {
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		return pk->l2_len == sizeof(*eth) &&
			eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) ?
			FX_SLOW_ARP : FX_SLOW_NONE;
	}
	if (rc == FX_CAUSE_TTL)
		return pk->l2_len == sizeof(struct rte_ether_hdr) ? FX_SLOW_TTL : FX_SLOW_NONE;
	if (rc != FX_PARSE_OK)
		return FX_SLOW_NONE;
	dst = pk->key.addr[pk->dir ^ 1];
	if (pk->key.family == FX_FAMILY_V4) {
		memcpy(&d4, dst, 4);
		if (unlikely(dst[0] >= 224))
			return FX_SLOW_DROP;   /* multicast, broadcast */
		local = fx_l3_local4_index(d4);
		if (likely(local < 0))
			return FX_SLOW_NONE;
		if (icmp4_type(m, pk) == 8)
			return FX_SLOW_ECHO;
		if (fx_l3.local4_nat_pool[local])
			return FX_SLOW_NONE;   /* the pool address is NAT's too */
		return FX_SLOW_DROP;
	}
	if (unlikely(dst[0] == 0xff))
		return nd_type(icmp6_type(m, pk)) ? FX_SLOW_ND : FX_SLOW_DROP;
	if (likely(!fx_l3_local6(dst)))
		return FX_SLOW_NONE;
	t = icmp6_type(m, pk);
	if (t == 128)
		return FX_SLOW_ECHO;
	return nd_type(t) ? FX_SLOW_ND : FX_SLOW_DROP;
}

/**
 * Start-up, main lcore, before the workers are launched: the dynamic
 * field and one ring per worker, worker w's on the socket of lcore
 * worker_lcore[w] (named after it).
 *
 * @param worker_lcore  the lcore of each worker, by worker index
 * @param nb_workers    how many workers (at most RTE_MAX_LCORE)
 * @return 0, or -errno (-EINVAL: too many workers; -ENOMEM and the
 *         others of rte_ring_create(): what was made is freed by
 *         fx_slow_fini())
 */
int fx_slow_init(const unsigned int *worker_lcore, unsigned int nb_workers);

/**
 * The ring of worker w: the worker enqueues on it, the main lcore
 * drains it. NULL when fx_slow_init() made none for w.
 */
struct rte_ring *fx_slow_ring(unsigned int w);

/** Shutdown, after the workers stopped: free the rings and what is left in them. */
void fx_slow_fini(void);

#endif /* _FX_SLOWPATH_H_ */
