/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * One worker lcore's context: everything it owns, in one structure the
 * main lcore allocates on the worker's socket before launch.
 *
 * Four kinds of fields, kept apart so that no cache line is written by
 * two threads:
 *   set-up     written by the main lcore before launch, read-only after
 *              (queues, the expiry back-end and its timeouts);
 *   owner      read and written by the worker alone: its flow table, the
 *              back-end's state (an opaque pointer, expiry/expiry.h), NAT, the
 *              handoff rings' ends, the transmit buffers, its clock;
 *   requests   written by the control path (reset, --bench hold), read by
 *              the worker, on their own line;
 *   counters   written by the worker, read by anyone (ctl/stats.h), on their
 *              own lines.
 */

#ifndef _FX_LCORE_H_
#define _FX_LCORE_H_

#include <stdint.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "base/config.h"
#include "base/quota.h"
#include "base/timeouts.h"
#include "ctl/stats.h"
#include "flow/evict.h"
#include "flow/flow.h"
#include "flow/table.h"
#include "flow/tcp_track.h"
#include "nat/nat.h"
#include "worker/clock.h"
#include "worker/handoff.h"

struct fx_expiry_ops;

struct fx_rxq {
	uint16_t port_id;
	uint16_t queue_id;
};

/** Packets waiting to go out on one port. */
struct fx_txbuf {
	uint16_t n;
	struct rte_mbuf *m[MAX_PKT_BURST];
};

/** One worker lcore: everything it owns. */
struct fx_lcore {
	/* set up by the main lcore before launch, then read-only */
	uint32_t lcore_id;
	uint16_t worker_idx;            /**< 0..nb_workers-1 (RCU thread id) */
	uint16_t n_rxq;
	struct fx_rxq rxq[MAX_RX_QUEUE_PER_LCORE];
	uint16_t tx_queue[RTE_MAX_ETHPORTS];
	const struct fx_expiry_ops *ops;   /**< NULL with --expiry none */
	struct rte_ring *slow;          /**< to the main lcore (fwd/slowpath.h); NULL: none */
	uint64_t tmo_cycles[FX_TMO_MAX];

	/* owner-only state */
	void *exp;                      /**< the expiry back-end's own state */
	struct fx_flow_table ft;
	struct fx_tcp *tcp;             /**< TCP connections by flow slot (flow/flow.h) */
	uint64_t now;                   /**< time of the current burst */
	struct fx_flow_gone gone;       /**< flows removed, not yet out of the index */
	struct fx_clock clk;            /**< --clock pcap */
	struct fx_loop loop;            /**< the loop's accounting (ctl/stats.h) */
	struct fx_txbuf tx[RTE_MAX_ETHPORTS];
	struct fx_handoff ho;           /**< rings to and from the other workers */
	struct fx_evict ev;             /**< --table-full evict: flows by age */
	struct fx_nat nat;              /**< masquerade (--nat-pool) */
	struct fx_quota host_quota;     /**< --max-flows-per-host (flow/host_quota.h) */

	/* written by the main lcore / telemetry thread, read by the owner */
	uint32_t reset_req __rte_cache_aligned;   /**< reset maxima when != loop.reset_seen */
	uint64_t hold_until;            /**< TSC: no expiry poll before (--bench only) */

	/* written by the owner only, read by the other workers and the main lcore */
	uint64_t idle_since __rte_cache_aligned;  /**< --clock pcap, --exit-when-drained: TSC since its polls found nothing (0: busy, worker/clock.h) */

	/* written by the owner only, read by anyone */
	struct fx_lcore_stats st __rte_cache_aligned;
};

extern struct fx_lcore *fx_lcores[RTE_MAX_LCORE];   /**< by lcore id; NULL if not a worker */
extern struct fx_lcore *fx_workers[RTE_MAX_LCORE];  /**< by worker index */
extern unsigned int fx_nb_workers;

#endif /* _FX_LCORE_H_ */
