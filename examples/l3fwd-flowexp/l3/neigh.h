/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Neighbours: who owns what, and what the workers read.
 *
 * The main lcore owns every neighbour entry (l3/neigh.c): it answers ARP and
 * neighbour solicitations, sends the probes, runs each entry's state
 * machine (l3/neigh_fsm.h) with one deadline per entry on its own wheel, and
 * holds the packets that wait for a resolution. The workers never wait
 * and never write here: they read a published word per entry and, when it
 * does not let them send, hand the packet to the main lcore
 * (fwd/slowpath.h), which holds it (at most FX_NEIGH_HOLD per entry,
 * FX_NEIGH_HOLD_TOTAL in all, past that dropped and counted) and sends it
 * from its own tx queue once the MAC is known.
 *
 * Where a worker finds the entry of a packet, from the route result
 * (l3/route.h): the route lookup gives an next hop (nexthop). An nexthop below
 * FX_NEXTHOP_GW0 is a port, and the destination is on-link: the entry is
 * found in that port's on-link index (a keyed hash of the address,
 * base/hash.h, at most FX_NEIGH_PROBE buckets). An nexthop from FX_NEXTHOP_GW0 is a
 * route's next hop, numbered when the route was configured: its entry's
 * slot is fx_l3.nexthop_slot[nexthop], one read, no hash. A tracked flow caches
 * its nexthop per direction, as it cached the output port.
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
 * --eth-dest PORT,MAC overrides all of this for its port: fx_l3.resolve
 * is 0 and every packet leaving there gets that MAC, as before.
 */

#ifndef _FX_NEIGH_H_
#define _FX_NEIGH_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_config.h>
#include <rte_ether.h>

#include "base/atomic.h"
#include "base/config.h"
#include "base/counter.h"
#include "base/hash.h"
#include "fwd/parse.h"
#include "l3/neigh_fsm.h"

/** Next hops (l3/route.h): ports 0..FX_MAX_PORTS-1, then next hops, then no route. */
#define FX_NEXTHOP_GW0 FX_MAX_PORTS
#define FX_NEXTHOP_NONE 0xfeu            /**< a port with addresses: no route, drop */
#define FX_NH_MAX (FX_NEXTHOP_NONE - FX_NEXTHOP_GW0)
#define FX_PORT_NONE 0xffu         /**< fx_l3.nexthop_port of FX_NEXTHOP_NONE */

#define FX_NEIGH_SLOTS 4096u         /**< entries in all (slot 0 unused) */
#define FX_NEIGH_BUCKETS 8192u       /**< per resolving port, a power of two */
#define FX_NEIGH_PROBE 8u            /**< index buckets a lookup reads at most */
#define FX_NEIGH_HOLD 8u             /**< packets held per unresolved entry */
#define FX_NEIGH_HOLD_TOTAL 1024u    /**< packets held in all */
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
} __rte_cache_aligned;

extern struct fx_l3_fast fx_l3;
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
		/* pairs with l3/neigh.c's link(): the entry's addr is there */
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
	/* pairs with l3/neigh.c's publish(): until is the one stored with it */
	w = fx_load_acquire(&fx_neigh_pub[slot].macw);
	memcpy(b, &w, sizeof(b));
	if (unlikely(b[7] != FX_NEIGH_VALID ||
		     now >= fx_load_relaxed(&fx_neigh_pub[slot].until)))
		return false;
	memcpy(dst, b, RTE_ETHER_ADDR_LEN);
	return true;
}

/** Whether a4 (network order) is one of the gateway's IPv4 addresses. */
static inline bool
fx_l3_local4(uint32_t a4)
{
	uint32_t i;

	if (likely(!fx_l3.hint4[((const uint8_t *)&a4)[3]]))
		return false;
	for (i = 0; i < fx_l3.nb_local4; i++)
		if (fx_l3.local4[i] == a4)
			return true;
	return false;
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

/* ---- the main lcore (l3/neigh.c) ---- */

/** The main lcore's counters per port: name, what it counts. */
#define FX_NEIGH_COUNTERS(X) \
	X(arp_rx) X(arp_requests_answered) X(arp_requests_sent) X(arp_probes_sent) \
	X(arp_replies_rx) X(arp_unsolicited) X(arp_not_ours) X(arp_bad) \
	X(arp_bad_sender) X(arp_conflict) X(garp_sent) \
	X(nd_rx) X(ns_answered) X(ns_sent) X(ns_probes_sent) X(na_rx) \
	X(na_unsolicited) X(nd_not_ours) X(nd_ignored) X(nd_bad) X(nd_bad_option) \
	X(nd_bad_sender) X(una_sent) \
	X(neigh_created) X(neigh_resolved) X(neigh_failed) X(neigh_deleted) \
	X(neigh_stale_used) X(neigh_table_full) \
	X(hold_queued) X(hold_sent) X(hold_dropped) X(hold_failed) X(sent_direct) \
	X(echo_replies) X(echo_bad) X(echo_ratelimited) \
	X(ttl_time_exceeded) X(ttl_not_answered) X(ttl_ratelimited) X(icmp_no_source) \
	X(main_tx) X(main_tx_dropped)

struct fx_neigh_port_stats {
#define FX_NEIGH_FIELD(n) uint64_t n;
	FX_NEIGH_COUNTERS(FX_NEIGH_FIELD)
#undef FX_NEIGH_FIELD
	uint64_t state[FX_NS_MAX];   /**< entries by state (gauges) */
	uint64_t held;               /**< packets held now (a gauge) */
};

/** One entry, copied for the telemetry (ctl/control.c carries it). */
struct fx_neigh_snap {
	uint8_t addr[16];
	uint8_t mac[6];
	uint8_t family;
	uint8_t state;
	uint8_t kind;        /**< enum fx_neigh_kind */
	uint8_t probes;
	uint8_t held;
	bool has_mac;
	uint64_t in_us;      /**< until its deadline; UINT64_MAX: none */
	uint64_t since_us;   /**< in its state */
};

enum fx_neigh_kind { FX_NK_ONLINK, FX_NK_NEXTHOP, FX_NK_STATIC };

/** Whether any port has an address (ARP, ND, ICMP on the main lcore). */
bool fx_neigh_enabled(void);

/**
 * Start-up, before the route table: the tables, the wheel, the permanent
 * entries, the local addresses (link-local ones come in
 * fx_neigh_start()). 0 or -errno.
 */
int fx_neigh_init(void);

/**
 * The entry of next hop (port, family, gw), made if new and kept for the
 * run: its slot, or 0 if the table is full. Main lcore (l3/route.c).
 */
uint32_t fx_neigh_pin(uint16_t port, uint8_t family, const uint8_t *gw);

/**
 * After the ports started (their MACs known): link-local addresses, the
 * main lcore's tx queues. Before the workers are launched.
 */
void fx_neigh_start(void);

/** After the links came up: gratuitous ARP and unsolicited NA. Main lcore. */
void fx_neigh_announce(void);

/**
 * The main lcore's step: the workers' rings, the wheel, the replies.
 * Returns whether it left work (poll again soon).
 */
bool fx_neigh_poll(void);

/** After the workers stopped: free what is held and queued. */
void fx_neigh_fini(void);

/** The counters of port (a copy, relaxed loads). Any thread. */
void fx_neigh_port_stats(uint16_t port, struct fx_neigh_port_stats *st);

/** Add the totals over the ports ("neigh") to the statistics. Any thread. */
void fx_neigh_emit(const struct fx_emitter *e, void *ctx);

/** Add port's counters (no object). Any thread. */
void fx_neigh_emit_port(uint16_t port, const struct fx_emitter *e, void *ctx);

/**
 * Main lcore (ctl/control.c): copy up to max entries of port from the
 * from-th on; *total gets how many the port has.
 */
uint32_t fx_neigh_snapshot(uint16_t port, uint32_t from, struct fx_neigh_snap *out,
			   uint32_t max, uint32_t *total);

#endif /* _FX_NEIGH_H_ */
