/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * One worker lcore: the contexts of everything it owns, in one structure
 * the main lcore allocates on the worker's socket before launch. Each
 * subsystem takes its own context, never this whole: flow tracking its
 * struct fx_flows (with the expiry back-end), NAT its struct fx_nat, the
 * forward stage its struct fx_fwd, the handoff its struct fx_handoff, the
 * clock its struct fx_clock. Only the worker loop (worker/worker.c), the
 * set-up (boot/) and the readers of statistics and senders of requests
 * (ctl/) see the whole.
 *
 * Four kinds of fields, kept apart so that no cache line is written by
 * two threads:
 *   set-up     written by the main lcore before launch, read-only after
 *              (queues, ids);
 *   owner      read and written by the worker alone (each context's own
 *              part, the loop's state, the time of the burst);
 *   requests   written by the control path (reset, --bench hold), read by
 *              the worker, on their own line;
 *   counters   written by the worker, read by anyone, each context's on
 *              lines of their own (base/counter.h).
 */

#ifndef _FX_LCORE_H_
#define _FX_LCORE_H_

#include <stdint.h>

#include <rte_common.h>
#include <rte_config.h>

#include "base/config.h"
#include "flow/flow.h"
#include "fwd/forward.h"
#include "nat/nat.h"
#include "worker/clock.h"
#include "worker/handoff.h"
#include "worker/loop.h"

struct fx_rxq {
	uint16_t port_id;
	uint16_t queue_id;
};

/** One worker lcore: everything it owns. */
struct fx_lcore {
	/* set up by the main lcore before launch, then read-only */
	uint32_t lcore_id;
	uint16_t worker_idx;            /**< 0..nb_workers-1 (RCU thread id) */
	uint16_t n_rxq;
	struct fx_rxq rxq[MAX_RX_QUEUE_PER_LCORE];

	/* owner-only state, and each context's */
	uint64_t now;                   /**< time of the current burst */
	struct fx_loop loop;            /**< the loop's own state */
	struct fx_clock clock;          /**< --clock pcap, idle state */
	struct fx_flows flows;          /**< flow tracking and its expiry back-end */
	struct fx_nat nat;              /**< masquerade (--nat-pool) */
	struct fx_fwd fwd;              /**< tx queues and buffers, packet counters */
	struct fx_handoff handoff;      /**< rings to and from the other workers */

	/* written by the main lcore / telemetry thread, read by the owner */
	struct fx_loop_requests requests __rte_cache_aligned;

	/* written by the owner only, read by anyone */
	struct fx_loop_stats loop_st __rte_cache_aligned;
};

extern struct fx_lcore *fx_lcores[RTE_MAX_LCORE];   /**< by lcore id; NULL if not a worker */
extern struct fx_lcore *fx_workers[RTE_MAX_LCORE];  /**< by worker index */
extern unsigned int fx_nb_workers;

#endif /* _FX_LCORE_H_ */
