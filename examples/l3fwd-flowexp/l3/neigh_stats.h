/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The main lcore's neighbour counters per port (l3/neigh_stats.c): the
 * neighbour files count into them with FX_NEIGH_COUNT(), any thread reads
 * them through the functions below.
 */

#ifndef _FX_NEIGH_STATS_H_
#define _FX_NEIGH_STATS_H_

#include <stdint.h>

#include "base/atomic.h"
#include "base/config.h"
#include "base/counter.h"
#include "l3/neigh_fsm.h"

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

/** The counters of port (a copy, relaxed loads). Any thread. */
void fx_neigh_port_stats(uint16_t port, struct fx_neigh_port_stats *st);

/** Add the totals over the ports ("neigh") to the statistics. Any thread. */
void fx_neigh_emit(const struct fx_emitter *e, void *ctx);

/** Add port's counters (no object). Any thread. */
void fx_neigh_emit_port(uint16_t port, const struct fx_emitter *e, void *ctx);

/** Each port's counters and gauges: the main lcore writes, anyone reads. */
extern struct fx_neigh_port_stats fx_neigh_counters[FX_MAX_PORTS];

/** Add n to counter f of port p (the main lcore only: one writer). */
#define FX_NEIGH_COUNT(p, f, n) \
	fx_store_relaxed(&fx_neigh_counters[p].f, fx_neigh_counters[p].f + (n))

#endif /* _FX_NEIGH_STATS_H_ */
