/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Neighbours: who owns what, and the main lcore's half (l3/neigh.c).
 *
 * The main lcore owns every neighbour entry (l3/neigh.c): it answers ARP and
 * neighbour solicitations, sends the probes, runs each entry's state
 * machine (l3/neigh_fsm.h) with one deadline per entry on its own wheel, and
 * holds the packets that wait for a resolution. The workers never wait
 * and never write here: they read a published word per entry
 * (fwd/neigh.h, which has how an entry is found and published, and
 * the memory ordering of each word) and, when it does not let them send,
 * hand the packet to the main lcore (fwd/slowpath.h), which holds it (at
 * most FX_NEIGH_HOLD per entry, FX_NEIGH_HOLD_TOTAL in all, past that
 * dropped and counted) and sends it from its own tx queue once the MAC
 * is known.
 *
 * The main lcore's half is in several files, one job each: the entries
 * (l3/neigh.c), the dispatch of what the workers hand over
 * (l3/slow_dispatch.c), the gateway's addresses and its answers about
 * itself (l3/local_addr.c, l3/local_reply.c), its sends (l3/main_tx.c)
 * and the counters (l3/neigh_stats.c), each with its own header, each
 * calling only the ones before it in this list read backwards (the
 * counters first); l3/neigh_priv.h has the entries for the dispatch.
 */

#ifndef _FX_NEIGH_H_
#define _FX_NEIGH_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_rcu_qsbr.h>

#include "base/counter.h"
#include "fwd/neigh.h"
#include "l3/neigh_fsm.h"
#include "l3/neigh_stats.h"

#define FX_NEIGH_HOLD 8u             /**< packets held per unresolved entry */
#define FX_NEIGH_HOLD_TOTAL 1024u    /**< packets held in all */

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
 * fx_neigh_start()). fx_neigh_poll() drains the rings of workers
 * 0..nb_workers-1 (fwd/slowpath.h), which must be made before it runs.
 * 0 or -errno.
 */
int fx_neigh_init(unsigned int nb_workers);

/**
 * The entry of next hop (port, family, gw), made if new and kept for the
 * run: its slot, or 0 if the table is full. Main lcore (l3/route.c).
 */
uint32_t fx_neigh_pin(uint16_t port, uint8_t family, const uint8_t *gw);

/**
 * After the ports started (their MACs known): link-local addresses, the
 * main lcore's mbuf pool. Before the workers are launched.
 *
 * @param mac       each port's MAC, by DPDK port id (boot/ports.h)
 * @param main_txq  the main lcore's tx queue on each port, by DPDK port
 *                  id; UINT16_MAX: none (its answers are dropped, counted)
 * @param grace     the QSBR variable every worker reports its quiescent
 *                  states to (l3/route.h): a deleted entry's slot is
 *                  reused after a grace period on it
 */
void fx_neigh_start(const struct rte_ether_addr *mac, const uint16_t *main_txq,
		    struct rte_rcu_qsbr *grace);

/** After the links came up: gratuitous ARP and unsolicited NA. Main lcore. */
void fx_neigh_announce(void);

/**
 * The main lcore's step (l3/slow_dispatch.c): the workers' rings, the
 * wheel, the replies. Returns whether it left work (poll again soon).
 */
bool fx_neigh_poll(void);

/** After the workers stopped: free what is held and queued. */
void fx_neigh_fini(void);

/**
 * Main lcore (ctl/control.c): copy up to max entries of port from the
 * from-th on; *total gets how many the port has.
 */
uint32_t fx_neigh_snapshot(uint16_t port, uint32_t from, struct fx_neigh_snap *out,
			   uint32_t max, uint32_t *total);

#endif /* _FX_NEIGH_H_ */
