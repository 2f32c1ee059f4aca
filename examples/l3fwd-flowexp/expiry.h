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
 *               each sweep is bounded by --expire-budget (expiry_twheel.c);
 *   rte_timer - one rte_timer per flow, armed at creation and re-armed by
 *               its callback when the flow was refreshed meanwhile: never on
 *               the packet path (expiry_timer.c);
 *   scan      - no timer: a cursor walks --expire-budget slots of the slab
 *               per loop iteration, as conntrack's garbage collector does
 *               (expiry_scan.c).
 * Each back-end removes expired flows with fx_flow_expired() and flows the
 * control path invalidated with fx_flow_invalidated() (worker.c).
 */

#ifndef _FX_EXPIRY_H_
#define _FX_EXPIRY_H_

#include <stdint.h>

#include "flowexp.h"

struct fx_expiry_ops {
	const char *name;
	/** Allocate the lcore's state; main lcore, before launch. 0 or -errno. */
	int (*init)(struct fx_lcore *lc);
	/** Release it; main lcore, after the worker stopped. */
	void (*fini)(struct fx_lcore *lc);
	/** A new flow with flow->expire set: start tracking it. Returns its fid, 0 on failure. */
	uint64_t (*add)(struct fx_lcore *lc, struct fx_flow *f);
	/** flow->expire moved earlier (new value already stored). */
	void (*shorten)(struct fx_lcore *lc, struct fx_flow *f);
	/** The owner removes a live flow itself (eviction): stop tracking it. */
	void (*cancel)(struct fx_lcore *lc, struct fx_flow *f);
	/** Once per loop iteration: expire what is due, within the budget. */
	void (*poll)(struct fx_lcore *lc);
	/** Shutdown: remove up to budget flows; returns how many, 0 when empty. */
	unsigned int (*drain)(struct fx_lcore *lc, unsigned int budget);
	/** Any thread: ask the owner to drop the flow in slot if it still has fid. 0, -ENOBUFS. */
	int (*invalidate)(struct fx_lcore *lc, uint32_t slot, uint64_t fid);
	/** Any thread: add back-end figures to the lcore's statistics; may be NULL. */
	void (*emit)(const struct fx_lcore *lc, const struct fx_emitter *e, void *ctx);
};

extern const struct fx_expiry_ops fx_expiry_twheel;
extern const struct fx_expiry_ops fx_expiry_timer;
extern const struct fx_expiry_ops fx_expiry_scan;

/** The back-end of a mode, NULL for FX_EXPIRY_NONE. */
const struct fx_expiry_ops *fx_expiry_ops_get(enum fx_expiry e);

/* Helpers for the back-ends without a remote ring (expiry.c). */

/** Drain: walk the slab from lc->scan_cursor, calling stop (may be NULL) and removing live flows. */
unsigned int fx_expiry_drain_slab(struct fx_lcore *lc, unsigned int budget,
				  void (*stop)(struct fx_lcore *lc, struct fx_flow *f));
/** Apply the control path's delete requests, calling stop (may be NULL) first. */
void fx_expiry_apply_requests(struct fx_lcore *lc, unsigned int budget,
			      void (*stop)(struct fx_lcore *lc, struct fx_flow *f));
/** Queue a delete request for the owner. */
int fx_expiry_request(struct fx_lcore *lc, uint32_t slot, uint64_t fid);

/*
 * Owner-side flow removal, in worker.c. Each counts the flow and takes it
 * out of sight at once (fid = 0); the hash deletions are batched and done
 * by fx_flows_flush(), which the worker calls after every poll and drain.
 */

/** The flow's deadline passed at lc->now; lag counted from its deadline. */
void fx_flow_expired(struct fx_lcore *lc, struct fx_flow *f, uint64_t deadline);
/** The control path invalidated the flow. */
void fx_flow_invalidated(struct fx_lcore *lc, struct fx_flow *f);
/** Removed at shutdown. */
void fx_flow_drained(struct fx_lcore *lc, struct fx_flow *f);
/** Remove the flows removed since the last call from the flow index. */
void fx_flows_flush(struct fx_lcore *lc);

#endif /* _FX_EXPIRY_H_ */
