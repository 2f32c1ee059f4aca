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
 * in an array beside the table (fx_lcore.tcp, 32 bytes a flow, allocated
 * at start-up on the worker's socket), whose line is prefetched with the
 * flow's: one that does not fit the window or the state is dropped
 * (tcp_out_of_window, tcp_invalid) and one passed without effect (an
 * inexact RST, a SYN on an established connection: tcp_rst_ignored,
 * tcp_syn_ignored) neither refreshes nor changes the flow.
 * The packet leaves by the flow's cached route, resolved once per direction.
 * The flows active in each timeout class are counted (active_<class>).
 *
 * Removal: the expiry back-ends (expiry_*.c) hand each flow that expired,
 * that the control path invalidated, or that is left at shutdown to one of
 * fx_flow_expired(), fx_flow_invalidated(), fx_flow_drained(). Each counts
 * it and unpublishes it at once (expiry_id = 0: no back-end, no reader sees it
 * again); the index deletions are batched (FX_GONE_BATCH) and done by
 * fx_flows_flush(), after every poll and drain, so their buckets' cache
 * misses overlap. No packet is handled between the two halves.
 */

#ifndef _FX_FLOW_H_
#define _FX_FLOW_H_

#include <stdint.h>

#include <rte_mbuf.h>

#include "flow/table.h"

struct fx_lcore;
struct fx_route_table;

#define FX_GONE_BATCH 64u   /**< flows removed from the index together */

/** Flows unpublished and not yet out of the index (owner only). */
struct fx_flow_gone {
	uint32_t n;
	uint32_t removed;                  /**< flows removed since the poll began */
	struct fx_flow *f[FX_GONE_BATCH];
	uint32_t hash[FX_GONE_BATCH];       /**< their keys' hashes */
};

/** Start-up: the TCP connections of lc's flow table (created), on socket. 0 or -ENOMEM. */
int fx_flow_init(struct fx_lcore *lc, int socket);
void fx_flow_fini(struct fx_lcore *lc);

/**
 * Track and forward n parsed packets this worker owns, at lc->now, with
 * route table rt: refresh or create each one's flow and queue it on its
 * output port. Owner.
 */
void fx_flow_track(struct fx_lcore *lc, const struct fx_route_table *rt,
		   struct rte_mbuf **pkts, uint16_t n);

/** The flow's deadline passed at lc->now; lag counted from its deadline. */
void fx_flow_expired(struct fx_lcore *lc, struct fx_flow *f, uint64_t deadline);
/** The control path invalidated the flow. */
void fx_flow_invalidated(struct fx_lcore *lc, struct fx_flow *f);
/** Removed at shutdown. */
void fx_flow_drained(struct fx_lcore *lc, struct fx_flow *f);
/** Delete the flows removed since the last call from the index. */
void fx_flows_flush(struct fx_lcore *lc);

#endif /* _FX_FLOW_H_ */
