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
 * Each back-end keeps its state behind the lcore's opaque `exp` pointer,
 * allocated by its init on the worker's socket, and removes flows through
 * the flow layer: fx_flow_expired() for a passed deadline,
 * fx_flow_invalidated() for the control path's requests, fx_flow_drained()
 * at shutdown (flow/flow.h).
 *
 * The poll (expiry/expiry.c). Once per loop iteration the worker polls the
 * back-end and, with masquerade, the NAT mappings' wheel (nat/nat.h), at the
 * burst's time; each poll says whether it stopped at its budget with work
 * left at that time, which --clock pcap uses to expire everything due
 * before a packet is handled. The loop's poll is timed: the longest is
 * "sweep_max", the most flows one poll removed "poll_removed_max", all of
 * them add up to "expiry_cycles", and those of iterations without packets
 * to "idle_expiry_cycles" (busy_cycles + idle_expiry_cycles is the
 * worker's work). A benchmark may hold the polls for a while (worker/bench.h).
 */

#ifndef _FX_EXPIRY_H_
#define _FX_EXPIRY_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/counter.h"
#include "flow/table.h"

struct fx_lcore;

struct fx_expiry_ops {
	const char *name;
	/** Allocate the lcore's state in lc->exp; main lcore, before launch. 0 or -errno. */
	int (*init)(struct fx_lcore *lc);
	/** Release it; main lcore, after the worker stopped. */
	void (*fini)(struct fx_lcore *lc);
	/** A new flow with flow->expire set: start tracking it. Returns its expiry_id, 0 on failure. */
	uint64_t (*add)(struct fx_lcore *lc, struct fx_flow *f);
	/** flow->expire moved earlier (new value already stored). */
	void (*shorten)(struct fx_lcore *lc, struct fx_flow *f);
	/** The owner removes a live flow itself (eviction): stop tracking it. */
	void (*cancel)(struct fx_lcore *lc, struct fx_flow *f);
	/**
	 * Expire what is due at lc->now, within --expire-budget. Returns
	 * whether it stopped at the budget with work left at lc->now.
	 */
	bool (*poll)(struct fx_lcore *lc);
	/** Shutdown: remove up to budget flows; returns whether any are left. */
	bool (*drain)(struct fx_lcore *lc, unsigned int budget);
	/** Any thread: ask the owner to drop the flow in slot if it still has expiry_id. 0, -ENOBUFS. */
	int (*invalidate)(struct fx_lcore *lc, uint32_t slot, uint64_t expiry_id);
	/** Any thread: add back-end figures to the lcore's statistics; may be NULL. */
	void (*emit)(const struct fx_lcore *lc, const struct fx_emitter *e, void *ctx);
};

extern const struct fx_expiry_ops fx_expiry_twheel;
extern const struct fx_expiry_ops fx_expiry_timer;
extern const struct fx_expiry_ops fx_expiry_scan;

/** The back-end of a mode, NULL for FX_EXPIRY_NONE. */
const struct fx_expiry_ops *fx_expiry_ops_get(enum fx_expiry e);

/**
 * Owner: one expiry poll of the flows and of the NAT mappings at lc->now.
 * Returns whether more may be due at lc->now.
 */
bool fx_expiry_poll(struct fx_lcore *lc);

/**
 * Owner, once per loop iteration that received `got` packets, the TSC
 * reading tsc: the timed poll, unless a benchmark holds it. Returns the
 * TSC after it.
 */
uint64_t fx_expiry_loop_poll(struct fx_lcore *lc, uint64_t tsc, unsigned int got);

/** Owner, at exit: end every NAT mapping, hand back every flow still tracked. */
void fx_expiry_drain(struct fx_lcore *lc);

/*
 * What the two baselines (rte_timer, scan) share: they have no remote ring
 * of their own, so the control path's invalidations travel on the flow
 * table's request ring, and at shutdown they find the remaining flows by
 * walking the slab. Each one's state starts with this.
 */
struct fx_expiry_base {
	uint64_t next_id;         /**< the last flow id handed out */
	uint32_t drain_cursor;     /**< the shutdown walk of the slab */
};

/**
 * Drain: walk the slab from base->drain_cursor, calling stop (may be NULL)
 * and removing up to budget live flows. Returns whether slots are left.
 */
bool fx_expiry_drain_slab(struct fx_lcore *lc, struct fx_expiry_base *base,
			  unsigned int budget,
			  void (*stop)(struct fx_lcore *lc, struct fx_flow *f));
/**
 * Apply up to budget of the control path's delete requests, calling stop
 * (may be NULL) first. Returns whether the budget ran out.
 */
bool fx_expiry_apply_requests(struct fx_lcore *lc, unsigned int budget,
			      void (*stop)(struct fx_lcore *lc, struct fx_flow *f));
/** Queue a delete request for the owner. */
int fx_expiry_request(struct fx_lcore *lc, uint32_t slot, uint64_t expiry_id);

#endif /* _FX_EXPIRY_H_ */
