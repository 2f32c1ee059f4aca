/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Expiry back-ends: how a worker learns that a flow's deadline passed.
 *
 * All three share the flow table and the lazy deadline: a packet that hits
 * a flow stores now + timeout in flow->expire and calls nothing here. They
 * differ in what remembers the deadlines:
 *   twheel    - one twheel per lcore; deadline_fn reads flow->expire, so a
 *               flow is examined once per deadline it had when filed, and
 *               each sweep is bounded by --expire-budget (expiry/twheel.c);
 *   rte_timer - one rte_timer per flow, armed at creation and re-armed by
 *               its callback when the flow was refreshed meanwhile: never on
 *               the packet path (expiry/timer.c);
 *   scan      - no timer: a cursor walks --expire-budget slots of the slab
 *               per loop iteration, as conntrack's garbage collector does
 *               (expiry/scan.c).
 * Each implements the ops table flow tracking defines (struct
 * fx_expiry_ops, flow/flow.h), keeps its state in its member of the flows'
 * union fx_expiry_state, allocated by its init on the worker's socket, and
 * removes flows through the flow layer: fx_flow_expired() for a passed
 * deadline, fx_flow_invalidated() for the control path's requests,
 * fx_flow_drained() at shutdown (flow/flow.h).
 *
 * The worker polls the back-end once per loop iteration through
 * fx_flow_poll(), beside NAT's reaper (worker/worker.c), and times the
 * poll: the longest is "sweep_max", the most flows one poll removed
 * "poll_removed_max", all of them add up to "expiry_cycles", and those of
 * iterations without packets to "idle_expiry_cycles".
 */

#ifndef _FX_EXPIRY_H_
#define _FX_EXPIRY_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "flow/flow.h"

extern const struct fx_expiry_ops fx_expiry_twheel;
extern const struct fx_expiry_ops fx_expiry_timer;
extern const struct fx_expiry_ops fx_expiry_scan;

/** Name of an expiry mode, for tables and telemetry. */
const char *fx_expiry_name(enum fx_expiry e);

/** The back-end of a mode, NULL for FX_EXPIRY_NONE. */
const struct fx_expiry_ops *fx_expiry_ops_get(enum fx_expiry e);

/*
 * What the two baselines (rte_timer, scan) share: they have no remote ring
 * of their own, so the control path's invalidations travel on the flow
 * table's request ring, and at shutdown they find the remaining flows by
 * walking the slab. Each one's state starts with this.
 */
struct fx_expiry_base {
	uint64_t next_id;          /**< the last flow id handed out */
	uint32_t drain_cursor;     /**< the shutdown walk of the slab */
};

/**
 * Drain: walk the slab from base->drain_cursor, calling stop (may be NULL)
 * and removing up to budget live flows. Returns whether slots are left.
 */
bool fx_expiry_drain_slab(struct fx_flows *fl, struct fx_expiry_base *base,
			  unsigned int budget,
			  void (*stop)(struct fx_flows *fl, struct fx_flow *f));
/**
 * Apply up to budget of the control path's delete requests, calling stop
 * (may be NULL) first. Returns whether the budget ran out.
 */
bool fx_expiry_apply_requests(struct fx_flows *fl, unsigned int budget,
			      void (*stop)(struct fx_flows *fl, struct fx_flow *f));
/** Queue a delete request for the owner (the baselines' invalidate). */
int fx_expiry_request(struct fx_flows *fl, uint32_t slot, uint64_t expiry_id);

#endif /* _FX_EXPIRY_H_ */
