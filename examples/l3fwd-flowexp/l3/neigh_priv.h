/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * What the main lcore's neighbour files share, and nothing else includes
 * (l3/neigh.h is the API the rest of the example calls).
 *
 * One job a file, each standing above the ones before it (it calls only
 * those, and none calls back):
 *   l3/neigh_stats.c    the per-port counters (their storage) and their
 *                       reading: copies, the statistics' emitter
 *   l3/main_tx.c        sending from the main lcore: per port its tx
 *                       queue, its MAC and a burst buffer; the main
 *                       lcore's own mbuf pool
 *   l3/local_addr.c     the gateway's addresses per port: which it has,
 *                       which to speak from, the workers' copy
 *                       (fx_l3.local4/6), the announcements
 *   l3/local_reply.c    echo replies and time exceeded, built in the
 *                       question's mbuf, through two token buckets
 *   l3/neigh.c          the entries: the table and its index, their
 *                       publication to the workers, their state
 *                       machines on the main lcore's wheel, probes, held
 *                       packets; start-up and shutdown
 *   l3/slow_dispatch.c  the main lcore's step: the workers' rings
 *                       drained, each packet handled by its reason (ARP,
 *                       ND, echo, TTL, a packet to hold), then the wheel
 *
 * Everything here runs on the main lcore, but the counters: the main lcore
 * writes them with relaxed stores, any thread reads them with relaxed
 * loads (whole values, nothing ordered).
 */

#ifndef _FX_NEIGH_PRIV_H_
#define _FX_NEIGH_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "base/atomic.h"
#include "base/config.h"
#include "l3/neigh.h"

static const uint8_t fx_bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t fx_all_nodes[16] = { 0xff, 0x02, [15] = 1 };   /* ff02::1 */

/* ---- l3/neigh_stats.c ---- */

/** Each port's counters and gauges: the main lcore writes, anyone reads. */
extern struct fx_neigh_port_stats fx_neigh_counters[FX_MAX_PORTS];

/** Add n to counter f of port p (the main lcore only: one writer). */
#define FX_NEIGH_COUNT(p, f, n) \
	fx_store_relaxed(&fx_neigh_counters[p].f, fx_neigh_counters[p].f + (n))

/* ---- l3/main_tx.c ---- */

/** Keep each port's MAC and main lcore tx queue; make the mbuf pool. */
void fx_main_tx_start(const struct rte_ether_addr *mac, const uint16_t *main_txq);

/** Port's MAC (6 bytes), as fx_main_tx_start() was given it. */
const uint8_t *fx_main_tx_mac(uint16_t port);

/** Queue m for port (sent when a burst is full or at fx_main_tx_flush()). */
void fx_main_tx_send(uint16_t port, struct rte_mbuf *m);

/** Send what waits for port. */
void fx_main_tx_flush(uint16_t port);

/** Free what waits for any port (shutdown). */
void fx_main_tx_fini(void);

/** A frame of len bytes from the main lcore's pool in *mp: its bytes, or NULL. */
uint8_t *fx_main_frame_alloc(struct rte_mbuf **mp, uint16_t len);

/** Make m hold exactly len bytes from its start (one segment): false if it cannot. */
bool fx_main_frame_resize(struct rte_mbuf *m, uint16_t len);

/* ---- l3/local_addr.c ---- */

/** The addresses of --port-addr, per port and in fx_l3 (link-local ones later). */
void fx_local_addrs_init(void);

/** Each port with IPv6 addresses gets its link-local one (its MAC is known). */
void fx_local_addrs_add_linklocal(void);

/** Gratuitous ARP and unsolicited NA for port's addresses and NAT's pool. */
void fx_local_addrs_announce(uint16_t port);

/** Whether a (IPv4, 4 bytes) is one of port's addresses. */
bool fx_local_addr_has4(uint16_t port, const uint8_t *a);

/** Whether a (IPv6, 16 bytes) is one of port's addresses. */
bool fx_local_addr_has6(uint16_t port, const uint8_t *a);

/** Whether port answers ARP for the NAT pool's addresses too. */
bool fx_local_addr_answers_pool(uint16_t port);

/** Port's IPv4 address to speak to peer from: on its subnet, else the first; NULL: none. */
const uint8_t *fx_local_addr_source4(uint16_t port, const uint8_t *peer);

/** Port's IPv6 address to speak to peer from: on its subnet, else the link-local one. */
const uint8_t *fx_local_addr_source6(uint16_t port, const uint8_t *peer);

/** Whether a4 is the network or broadcast address of a connected subnet of port. */
bool fx_local_addr_subnet_edge4(uint16_t port, const uint8_t *a4);

/* ---- l3/local_reply.c ---- */

/** The token buckets: rate answers a second, burst at most at once. */
void fx_local_reply_init(uint32_t rate, uint32_t burst);

/** Answer echo request m (to one of the gateway's addresses) received on port at now. */
void fx_local_reply_echo(struct rte_mbuf *m, uint16_t port, uint64_t now);

/** Answer m, whose TTL or hop limit ran out on port, with time exceeded at now. */
void fx_local_reply_ttl(struct rte_mbuf *m, uint16_t port, uint64_t now);

/* ---- l3/neigh.c: the entries, for l3/slow_dispatch.c ---- */

struct fx_neigh_entry;

/** The entry for key (16 bytes, fx_neigh_key()) on port, or NULL. */
struct fx_neigh_entry *fx_neigh_entry_find(uint16_t port, const uint8_t *key);

/** A new entry of kind for key on port, or NULL (no index, or full: counted). */
struct fx_neigh_entry *fx_neigh_entry_new(uint16_t port, const uint8_t *key, uint8_t family,
					  uint8_t kind);

/** The entry in slot (a next hop's, fx_l3.nexthop_slot). */
struct fx_neigh_entry *fx_neigh_entry_at(uint32_t slot);

/** Whether e is waiting for an answer or has one (a reply to it is solicited). */
bool fx_neigh_entry_asked(const struct fx_neigh_entry *e);

/** Its neighbour said it has mac (an ARP request or an NS from it). */
void fx_neigh_entry_learn(struct fx_neigh_entry *e, const uint8_t *mac);

/** An ARP reply: its neighbour has mac. */
void fx_neigh_entry_confirm(struct fx_neigh_entry *e, const uint8_t *mac);

/** A neighbour advertisement for it (lla: NULL without the option). */
void fx_neigh_entry_advert(struct fx_neigh_entry *e, const uint8_t *lla, bool solicited,
			   bool override);

/** A packet wants its MAC: whether the packet may be sent to it now. */
bool fx_neigh_entry_resolve(struct fx_neigh_entry *e);

/** Send m to its neighbour (its destination MAC set). */
void fx_neigh_entry_send(struct fx_neigh_entry *e, struct rte_mbuf *m);

/** Hold m until it resolves: false if its queue or all of them are full. */
bool fx_neigh_entry_hold(struct fx_neigh_entry *e, struct rte_mbuf *m);

/** The main lcore's time (TSC cycles). */
uint64_t fx_neigh_now(void);

/** The main lcore's time is t, if later (--clock pcap); what was due runs. */
void fx_neigh_advance_clock_to(uint64_t t);

/** Timer events of the entries due by now, some of them: whether some are left. */
bool fx_neigh_run_due_timers(void);

/** Free the slots of deleted entries whose grace period ended. */
void fx_neigh_reclaim_deleted_slots(void);

/** The number of workers whose rings fx_neigh_poll() drains. */
unsigned int fx_neigh_nb_rings(void);

#endif /* _FX_NEIGH_PRIV_H_ */
