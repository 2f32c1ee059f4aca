/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * What a worker reads of the neighbour table and of the gateway's own
 * addresses, on every forwarded packet: the main lcore writes all of it
 * (l3/neigh.h has its half and the design of the whole), the workers
 * never write here and never wait. The variables are defined in
 * fwd/neigh.c, so that the workers' code depends on nothing of
 * the main lcore's.
 *
 * Where a worker finds the entry of a packet, from the route result
 * (fwd/route.h): the route lookup gives a next hop (nexthop). A nexthop
 * below FX_NEXTHOP_GW0 is a port, and the destination is on-link: the
 * entry is found in that port's on-link index (a keyed hash of the
 * address, base/hash.h, at most FX_NEIGH_PROBE buckets). A nexthop from
 * FX_NEXTHOP_GW0 is a route's next hop, numbered when the route was
 * configured: its entry's slot is fx_l3.nexthop_slot[nexthop], one
 * read, no hash. A tracked flow caches its nexthop per direction, as it
 * cached the output port.
 *
 * Publication, per entry slot, in fx_neigh_pub[slot]:
 *   macw   the MAC and a valid byte in one 64-bit word, written with a
 *          release store after `until`; a worker loads it with acquire,
 *          so it sees the until written with that MAC or a later one;
 *   until  the worker may use the MAC while its packet's time is before
 *          until; after it, the packet goes to the main lcore, which runs
 *          the state machine at that packet's time (a stale entry's first
 *          use, a deadline the main lcore has not reached yet under
 *          --clock pcap);
 *   addr   the entry's address, written while no index bucket leads to the
 *          slot: a bucket is set with a release store after it, and a
 *          worker loads the bucket with acquire before comparing addr.
 * A mixed read (a new until with an old MAC, or the reverse) sends one
 * packet to the main lcore or to the MAC of a moment ago: both are
 * harmless. A deleted on-link entry's bucket becomes a tombstone and its
 * slot is reused only after an RCU grace period on the route table's QSBR
 * variable (every worker passes a quiescent state once per loop
 * iteration), so a worker that found the slot before the delete still
 * reads that entry's address and MAC, never another's.
 *
 * The rest of struct fx_l3_fast is written before the workers are
 * launched and only read afterwards (a next hop's port and slot: before
 * the route table that names it is published, with that table's release
 * store, l3/route.c).
 *
 * --eth-dest PORT,MAC overrides all of this for its port: fx_l3.resolve
 * is 0 and every packet leaving there gets that MAC, as before.
 */

#ifndef _FX_FWD_NEIGH_H_
#define _FX_FWD_NEIGH_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "base/atomic.h"
#include "base/config.h"
#include "base/hash.h"
#include "fwd/parse.h"

/** Next hops (fwd/route.h): ports 0..FX_MAX_PORTS-1, then next hops, then no route. */
#define FX_NEXTHOP_GW0 FX_MAX_PORTS
#define FX_NEXTHOP_NONE 0xfeu            /**< a port with addresses: no route, drop */
#define FX_NH_MAX (FX_NEXTHOP_NONE - FX_NEXTHOP_GW0)
#define FX_PORT_NONE 0xffu         /**< fx_l3.nexthop_port of FX_NEXTHOP_NONE */

#define FX_NEIGH_SLOTS 4096u         /**< entries in all (slot 0 unused) */
#define FX_NEIGH_BUCKETS 8192u       /**< per resolving port, a power of two */
#define FX_NEIGH_PROBE 8u            /**< index buckets a lookup reads at most */
#define FX_LOCAL_MAX 80u             /**< the gateway's own addresses per family */

#define FX_NEIGH_TOMB UINT32_MAX     /**< a bucket whose entry was deleted */

/** One entry as the workers see it (one per slot, half a cache line). */
struct fx_neigh_pub {
	uint64_t macw;      /**< MAC in bytes 0-5, FX_NEIGH_VALID in byte 7 */
	uint64_t until;     /**< usable by a worker before this time */
	uint8_t addr[16];   /**< the address, IPv4 as ::ffff:a.b.c.d */
};

#define FX_NEIGH_VALID 0xa5

/** What the workers read; set before launch (next hops: before the route
 * table that names them is published, l3/route.c). */
struct fx_l3_fast {
	uint8_t resolve[FX_MAX_PORTS];  /**< the port resolves neighbours */
	uint8_t local[FX_MAX_PORTS];    /**< the port has addresses (--port-addr) */
	uint32_t max_frame;         /**< --max-pkt-len - CRC; UINT32_MAX: none */
	uint32_t nb_local4;
	uint32_t nb_local6;
	uint8_t nexthop_port[256];      /**< output port of each nexthop */
	uint16_t nexthop_slot[256];     /**< entry of each next-hop nexthop */
	uint8_t hint4[256];         /**< some local IPv4 address ends in this byte */
	uint8_t hint6[256];
	uint32_t local4[FX_LOCAL_MAX];        /**< network order */
	uint8_t local6[FX_LOCAL_MAX][16];     /**< link-local ones too */
	uint32_t *bucket[FX_MAX_PORTS]; /**< each resolving port's on-link index */
	/** local4[i] is also a NAT pool address: NAT takes what the gateway
	 * does not answer (fwd/slowpath.h) */
	uint8_t local4_nat_pool[FX_LOCAL_MAX];
} __rte_cache_aligned;

/** The workers' view; the main lcore writes it (fwd/neigh.c). */
extern struct fx_l3_fast fx_l3;
/** The entries as published, [FX_NEIGH_SLOTS]; NULL without addresses. */
extern struct fx_neigh_pub *fx_neigh_pub;

/** The 16-byte form of an address of family: IPv4 as ::ffff:a.b.c.d. */
static inline void
fx_neigh_key(uint8_t *k, const uint8_t *addr, uint8_t family)
{
	if (family == FX_FAMILY_V6) {
		memcpy(k, addr, 16);
		return;
	}
	memset(k, 0, 10);
	k[10] = k[11] = 0xff;
	memcpy(k + 12, addr, 4);
}

/** The home bucket of a key. */
static inline uint32_t
fx_neigh_home(const uint8_t *k)
{
	return fx_hash_words(k, 2) & (FX_NEIGH_BUCKETS - 1);
}

/**
 * The slot of the entry for k on port, or 0. Workers and the main lcore.
 */
static inline uint32_t
fx_neigh_find(uint16_t port, const uint8_t *k)
{
	const uint32_t *b = fx_l3.bucket[port];
	uint32_t h = fx_neigh_home(k), i, s;

	for (i = 0; i < FX_NEIGH_PROBE; i++) {
		/* pairs with the release store of the bucket when the main
		 * lcore makes an entry (l3/neigh.c): the entry's addr is there */
		s = fx_load_acquire(&b[(h + i) & (FX_NEIGH_BUCKETS - 1)]);
		if (s == 0)
			return 0;
		if (s != FX_NEIGH_TOMB && memcmp(fx_neigh_pub[s].addr, k, 16) == 0)
			return s;
	}
	return 0;
}

/**
 * The destination MAC for a packet leaving by nexthop on a resolving port
 * (out), at time now; false: the packet goes to the main lcore. Workers.
 */
static inline bool
fx_neigh_dst(const struct fx_pkt *pk, uint16_t nexthop, uint16_t out, uint64_t now,
	     struct rte_ether_addr *dst)
{
	uint8_t k[16], b[8];
	uint32_t slot;
	uint64_t w;

	if (nexthop >= FX_NEXTHOP_GW0) {
		slot = fx_l3.nexthop_slot[nexthop];
	} else {
		fx_neigh_key(k, pk->key.addr[pk->dir ^ 1], pk->key.family);
		slot = fx_neigh_find(out, k);
	}
	if (unlikely(slot == 0))
		return false;
	/* pairs with the release store of macw when the main lcore
	 * publishes an entry (l3/neigh.c): until is the one stored with it */
	w = fx_load_acquire(&fx_neigh_pub[slot].macw);
	memcpy(b, &w, sizeof(b));
	if (unlikely(b[7] != FX_NEIGH_VALID ||
		     now >= fx_load_relaxed(&fx_neigh_pub[slot].until)))
		return false;
	memcpy(dst, b, RTE_ETHER_ADDR_LEN);
	return true;
}

/**
 * Which of the gateway's IPv4 addresses a4 (network order) is: its index
 * in fx_l3.local4, or -1 if none.
 */
static inline int
fx_l3_local4_index(uint32_t a4)
{
	uint32_t i;

	if (likely(!fx_l3.hint4[((const uint8_t *)&a4)[3]]))
		return -1;
	for (i = 0; i < fx_l3.nb_local4; i++)
		if (fx_l3.local4[i] == a4)
			return (int)i;
	return -1;
}

/** Whether a4 (network order) is one of the gateway's IPv4 addresses. */
static inline bool
fx_l3_local4(uint32_t a4)
{
	return fx_l3_local4_index(a4) >= 0;
}

/** Whether a6 is one of the gateway's IPv6 addresses. */
static inline bool
fx_l3_local6(const uint8_t *a6)
{
	uint32_t i;

	if (likely(!fx_l3.hint6[a6[15]]))
		return false;
	for (i = 0; i < fx_l3.nb_local6; i++)
		if (memcmp(fx_l3.local6[i], a6, 16) == 0)
			return true;
	return false;
}

/** Output port of nexthop (FX_PORT_NONE for FX_NEXTHOP_NONE). */
static inline uint16_t
fx_nexthop_port(uint16_t nexthop)
{
	return fx_l3.nexthop_port[nexthop & 0xff];
}

#endif /* _FX_FWD_NEIGH_H_ */
