/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The flow lifecycle on the worker that owns the flows (flow/flow.c).
 *
 * Tracking a burst: the packets' buckets are prefetched together and read
 * for each key's candidate flow (ft_candidate, which prefetches the flow's
 * line), then per packet the key is compared in the candidate (ft_confirm):
 *   hit     the flow's state follows the packet (flow/state.h); the new
 *           deadline is stored in the flow, the lazy refresh, and the
 *           expiry back-end is not called, unless the deadline moved
 *           earlier (established -> closing, RST), which it is told of
 *           (twheel_move, an rte_timer re-arm);
 *   miss    a flow is created and handed to the back-end; a full table
 *           (no free slot, no pair in the index within its probe bound,
 *           counted in index_full as well, or the back-end refuses) is
 *           counted in table_full and the packet dropped, or with
 *           --table-full forward routed without state; with --table-full
 *           evict the oldest unanswered flow makes room first (flow/evict.h),
 *           where the key then finds a pair in the index.
 * A TCP segment (not a fragment) is first checked by the connection
 * tracker (flow/tcp_track.h) against its flow's connection, kept by flow slot
 * in an array beside the table (fx_flows.tcp, 32 bytes a flow, allocated
 * at start-up on the worker's socket), whose line is prefetched with the
 * flow's: one that does not fit the window or the state is dropped
 * (tcp_out_of_window, tcp_invalid) and one passed without effect (an
 * inexact RST, a SYN on an established connection: tcp_rst_ignored,
 * tcp_syn_ignored) neither refreshes nor changes the flow.
 * The packet's verdict is the flow's cached next hop, resolved once per
 * direction; the forward stage sends it (fwd/forward.h).
 * The flows active in each timeout class are counted (active_<class>).
 *
 * Removal: the expiry back-end (expiry/) hands each flow that expired,
 * that the control path invalidated, or that is left at shutdown to one of
 * fx_flow_expired(), fx_flow_invalidated(), fx_flow_drained(). Each counts
 * it and unpublishes it at once (expiry_id = 0: no back-end, no reader sees it
 * again); the index deletions are batched (FX_GONE_BATCH) and done by
 * fx_flows_flush(), after every poll and drain, so their buckets' cache
 * misses overlap. No packet is handled between the two halves.
 *
 * Everything a worker's flow tracking owns is in its struct fx_flows: the
 * table, the TCP connections, the eviction list, the per-host counts, the
 * counters, and the expiry back-end behind the ops table this file
 * defines (struct fx_expiry_ops); expiry/ implements it and calls back
 * into the removal functions above, so that flow/ never includes expiry/.
 */

#ifndef _FX_FLOW_H_
#define _FX_FLOW_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "base/counter.h"
#include "base/quota.h"
#include "base/timeouts.h"
#include "flow/evict.h"
#include "flow/table.h"
#include "flow/tcp_track.h"
#include "fwd/route.h"

struct fx_flows;

/**
 * What flow tracking asks of an expiry back-end: how it learns that a
 * flow's deadline passed (expiry/expiry.h has the three). Each function
 * but invalidate and emit runs on the worker that owns fl.
 */
struct fx_expiry_ops {
	const char *name;
	/** Allocate the back-end's state in fl->expiry_state, on socket; main lcore, before launch. 0 or -errno. */
	int (*init)(struct fx_flows *fl, int socket);
	/** Release it; main lcore, after the worker stopped. */
	void (*fini)(struct fx_flows *fl);
	/** A new flow with flow->expire set: start tracking it. Returns its expiry_id, 0 on failure. */
	uint64_t (*add)(struct fx_flows *fl, struct fx_flow *f);
	/** flow->expire moved earlier (new value already stored). */
	void (*shorten)(struct fx_flows *fl, struct fx_flow *f);
	/** The owner removes a live flow itself (eviction): stop tracking it. */
	void (*cancel)(struct fx_flows *fl, struct fx_flow *f);
	/**
	 * Expire what is due at fl->now, within --expire-budget, through
	 * fx_flow_expired() and fx_flow_invalidated(). Returns whether it
	 * stopped at the budget with work left at fl->now.
	 */
	bool (*poll)(struct fx_flows *fl);
	/** Shutdown: remove up to budget flows (fx_flow_drained()); returns whether any are left. */
	bool (*drain)(struct fx_flows *fl, unsigned int budget);
	/** Any thread: ask the owner to drop the flow in slot if it still has expiry_id. 0, -ENOBUFS. */
	int (*invalidate)(struct fx_flows *fl, uint32_t slot, uint64_t expiry_id);
	/** Any thread: add back-end figures to the statistics; may be NULL. */
	void (*emit)(const struct fx_flows *fl, const struct fx_emitter *e, void *ctx);
};

/* Each back-end's own state, known to it alone (expiry/<name>.c). */
struct fx_expiry_twheel;
struct fx_expiry_timer;
struct fx_expiry_scan;

/** The expiry back-end's state: the member of the back-end in use. */
union fx_expiry_state {
	void *any;                        /**< NULL before init and after fini */
	struct fx_expiry_twheel *twheel;
	struct fx_expiry_timer *timer;
	struct fx_expiry_scan *scan;
};

#define FX_GONE_BATCH 64u   /**< flows removed from the index together */

/** Flows unpublished and not yet out of the index (owner only). */
struct fx_flow_gone {
	uint32_t n;
	uint32_t removed;                  /**< flows removed since the poll began */
	struct fx_flow *f[FX_GONE_BATCH];
	uint32_t hash[FX_GONE_BATCH];      /**< their keys' hashes */
};

/** Counters of one worker's flows; the name is also the output field. */
#define FX_FLOW_COUNTERS(X) \
	X(active) X(created) X(refreshed) X(expired) X(invalidated) \
	X(drained) X(table_full) X(host_limit) X(evicted) X(evict_miss) \
	X(shortened) X(reopened) X(stale_requests) \
	X(tcp_out_of_window) X(tcp_invalid) X(tcp_rst_ignored) X(tcp_syn_ignored)

/** What flow tracking counts; written by the owner only, read by anyone. */
struct fx_flow_stats {
#define FX_FLOW_FIELD(n) uint64_t n;
	FX_FLOW_COUNTERS(FX_FLOW_FIELD)
#undef FX_FLOW_FIELD
	uint64_t expired_tmo[FX_TMO_MAX];    /**< expiries by timeout class */
	uint64_t active_tmo[FX_TMO_MAX];     /**< flows by timeout class (TCP state) */
	/* maxima and lag, zeroed by a reset request (fx_flow_reset_maxima()) */
	uint64_t lag_max;                    /**< cycles, an expiry: now - deadline */
	uint64_t lag_sum;                    /**< cycles */
	uint64_t lag_n;
	uint64_t poll_removed_max;           /**< most flows one expiry poll removed */
};

/** One worker's flows: everything flow tracking owns. */
struct fx_flows {
	/* set up by the main lcore before launch, then read-only */
	const struct fx_expiry_ops *expiry;   /**< the back-end */
	unsigned int lcore_id;                /**< the owner */
	uint64_t tmo_cycles[FX_TMO_MAX];      /**< each timeout class's, TSC cycles */

	/* owner only */
	union fx_expiry_state expiry_state;
	uint64_t now;                         /**< time of the burst or poll at hand */
	struct fx_flow_table table;
	struct fx_tcp *tcp;                   /**< TCP connections by flow slot */
	struct fx_flow_gone gone;             /**< flows removed, not yet out of the index */
	struct fx_evict evict;                /**< --table-full evict: flows by age */
	struct fx_quota host_quota;           /**< --max-flows-per-host (flow/host_quota.h) */

	/* written by the owner only, read by anyone */
	struct fx_flow_stats st __rte_cache_aligned;
};

/** Start-up: the TCP connections of fl's table (created), on socket. 0 or -ENOMEM. */
int fx_flow_init(struct fx_flows *fl, int socket);
void fx_flow_fini(struct fx_flows *fl);

/**
 * The flow stage's first half, for n parsed packets this worker owns:
 * their buckets read, each one's candidate slot (the first in its home
 * bucket with its tag) in cand[], and the candidates' lines prefetched.
 */
void fx_flow_lookup(struct fx_flows *fl, struct rte_mbuf **pkts, uint16_t n,
		    int32_t *cand);

/**
 * The second half at time now, with route table rt: refresh or create
 * each packet's flow, given fx_flow_lookup()'s cand[], and give each its
 * verdict in next[] (fwd/forward.h): the flow's next hop, FX_VERDICT_ROUTE
 * (a full table with --table-full forward) or FX_VERDICT_DROP (counted).
 */
void fx_flow_update(struct fx_flows *fl, const struct fx_route_table *rt,
		    uint64_t now, struct rte_mbuf **pkts, uint16_t n,
		    const int32_t *cand, uint16_t *next);

/**
 * Owner: one expiry poll of the flows at time now (the back-end's, and
 * the index deletions it leaves). Returns whether more may be due at now.
 */
bool fx_flow_poll(struct fx_flows *fl, uint64_t now);

/** Owner, at exit, at time now: hand back every flow still tracked. */
void fx_flow_drain(struct fx_flows *fl, uint64_t now);

/** The flow's deadline passed at fl->now; lag counted from its deadline. */
void fx_flow_expired(struct fx_flows *fl, struct fx_flow *f, uint64_t deadline);
/** The control path invalidated the flow. */
void fx_flow_invalidated(struct fx_flows *fl, struct fx_flow *f);
/** Removed at shutdown. */
void fx_flow_drained(struct fx_flows *fl, struct fx_flow *f);
/** Delete the flows removed since the last call from the index. */
void fx_flows_flush(struct fx_flows *fl);

/** Zero the maxima and lag figures (owner, on a reset request). */
static inline void
fx_flow_reset_maxima(struct fx_flow_stats *st)
{
	FX_STAT_SET(st, lag_max, 0);
	FX_STAT_SET(st, lag_sum, 0);
	FX_STAT_SET(st, lag_n, 0);
	FX_STAT_SET(st, poll_removed_max, 0);
}

#endif /* _FX_FLOW_H_ */
