/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The neighbour entries as the main lcore's dispatch sees them
 * (l3/neigh.c's, for l3/slow_dispatch.c); l3/neigh.h is the API the rest
 * of the example calls. Each file of the neighbour code has its own
 * header, and nothing else includes this one.
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

#include <rte_mbuf.h>

#include "l3/neigh.h"

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
