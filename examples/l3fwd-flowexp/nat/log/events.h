/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT event logging, the worker's side (--nat-log; nat/log/export.h has
 * the exporter on the main lcore, nat/log/ipfix.h the record and the messages).
 *
 * Each worker has one single-producer, single-consumer rte_ring of fixed
 * 40-byte records (struct ipfix_nat_event), --nat-log-ring of them
 * (default NAT_LOG_RING_DEFAULT), allocated at start-up on the worker's
 * socket. The NAT step and the reaper push a record where a mapping is
 * made, where its public tuple becomes free again, and where a new
 * mapping is refused; nothing else. A push is one enqueue: no lock, no
 * system call, no allocation, never a wait while the worker forwards. A
 * full ring drops the record and counts it (nat_log_dropped); a record
 * in the ring is counted as nat_log_queued.
 *
 * The events and their times, in the example's clock (the time the
 * worker handles them with: the packet's time under --clock pcap):
 *   create    natEvent 4, at the time of the packet that made the mapping;
 *   delete    natEvent 5, when its public tuple is free for reuse: a HELD
 *             mapping's due time (the hold-down's end, counted from the
 *             LIVE deadline or from the flush), not the sweep's; at exit
 *             (fx_nat_drain()) every mapping left, live or held, at exit
 *             time. So every create has one delete, and the log answers
 *             who held a public tuple at any time without gaps or overlaps;
 *   bindings  under --nat-mapping eim, natEvent 8 (NAT44 BIB create) when
 *             a binding gets its first session, at that session's
 *             create time and just before its create, and 9 (NAT44 BIB
 *             delete) when its last session record leaves, at that
 *             session's delete time and just after its delete (the
 *             hold-down's end, or exit): the inside endpoint and the
 *             public one, for the whole life of the binding, which holds
 *             its public port against every other inside endpoint;
 *   refusals  natEvent 12 (ports exhausted: no free public tuple among the
 *             candidates, nat_no_port) and 13 (quota exceeded:
 *             --nat-max-per-host and --nat-max-per-dest as maximum entries
 *             per user with the limit, a full table as maximum session
 *             entries with the capacity), at the packet's time, with the
 *             refused host, port, remote and its public address. At most
 *             NAT_LOG_REFUSAL_RATE per second per worker in the example's
 *             clock, bursts of NAT_LOG_REFUSAL_BURST (a GCRA), so that a
 *             flood of refused packets cannot fill the ring; what the limit
 *             holds back is counted (nat_log_suppressed), not queued.
 *             Addresses exhausted (natEvent 3) is never sent: paired
 *             pooling gives a host one address, whose exhaustion is event 12;
 *   blocks    with --nat-port-block (nat/block.h), natEvent 16 and 17 with
 *             the block's host, public address, first and last port and
 *             protocol 0 (every protocol), at the time of the packet that
 *             made the block and at the end of its last tuple's hold-down
 *             (at exit: at exit time, or that end if it came first),
 *             instead of its mappings' creates and deletes; refusals as
 *             above, and a host at --nat-max-blocks-per-host whose blocks
 *             are full is event 13, maximum entries per user, with the
 *             limit in blocks. Under eim with blocks the block events
 *             stand for the bindings too: no BIB event 8 or 9 is sent
 *             (a binding's public port lies in its host's block, which
 *             is the host's from before the binding's create to after
 *             its delete, so the block's two events answer who held any
 *             of its ports, as for endpoint-dependent mappings).
 *
 * At exit the worker's loop has stopped and the main lcore keeps draining
 * the rings until every worker has returned (nat/log/export.h): from
 * nat_log_exit() on, a push into a full ring waits for room (at most
 * NAT_LOG_EXIT_WAIT_MS, then drops and counts), so that the deletes of
 * the mappings ended at exit are not lost.
 *
 * The hooks in the NAT files are static inline functions of nat/priv.h,
 * one call each, which cost one test when logging is off (fx_nat.log
 * NULL). The log knows nothing of NAT but the mapping record it reads
 * (nat/table.h): its counters are lent by the worker's NAT (struct
 * fx_nat_stats) and written through the pointer it keeps.
 */

#ifndef _FX_NAT_LOG_H_
#define _FX_NAT_LOG_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "base/counter.h"
#include "nat/log/ipfix.h"
#include "nat/table.h"

struct rte_ring;

/** Events per worker ring (--nat-log-ring). */
#define NAT_LOG_RING_DEFAULT 65536u
#define NAT_LOG_RING_MIN 64u
#define NAT_LOG_RING_MAX (1u << 24)
/** Refusal events per second and worker, and the burst allowed. */
#define NAT_LOG_REFUSAL_RATE 1000u
#define NAT_LOG_REFUSAL_BURST 100u
/** At exit, how long a push waits for room in a full ring. */
#define NAT_LOG_EXIT_WAIT_MS 5000u

/** Why a new mapping was refused (a refusal event's cause). */
enum nat_log_refusal {
	NAT_LOG_NO_PORT,        /**< natEvent 12: nat_no_port */
	NAT_LOG_HOST_LIMIT,     /**< 13, maximum entries per user: --nat-max-per-host */
	NAT_LOG_DEST_LIMIT,     /**< 13, maximum entries per user: --nat-max-per-dest */
	NAT_LOG_TABLE_FULL,     /**< 13, maximum session entries: nat_table_full */
	NAT_LOG_BLOCK_LIMIT,    /**< 13, maximum entries per user: --nat-max-blocks-per-host */
};

/** A worker's log counters: the name is the output field's after "nat_log_". */
#define NAT_LOG_COUNTERS(X) X(queued) X(dropped) X(suppressed)

/** What a worker's log counts; written by the owner only. */
struct nat_log_stats {
#define NAT_LOG_FIELD(n) uint64_t n;
	NAT_LOG_COUNTERS(NAT_LOG_FIELD)
#undef NAT_LOG_FIELD
};

/** One worker's log: its ring and its refusal limit. Owner lcore only. */
struct nat_log {
	struct rte_ring *ring;      /**< SP/SC, struct ipfix_nat_event records */
	struct nat_log_stats *st;   /**< the counters, in the worker's NAT's */
	uint64_t refusal_tat;       /**< GCRA: when the next refusal is on time */
	uint64_t refusal_gap;       /**< cycles per refusal at the rate */
	uint64_t refusal_slack;     /**< cycles a burst may run ahead */
	uint64_t exit_wait;         /**< cycles a push may wait at exit */
	bool at_exit;               /**< from nat_log_exit(): wait for room */
} __rte_cache_aligned;

/**
 * Set up a worker's log in *lg: a ring of `size` records on `socket`,
 * counting into st. 0 or -errno.
 */
int nat_log_init(struct nat_log **lg, struct nat_log_stats *st,
		 unsigned int lcore_id, uint32_t size, int socket);

/** Free what nat_log_init() made (*lg NULL is a no-op). */
void nat_log_fini(struct nat_log **lg);

/** Push one record (owner): counted as queued, or dropped when full (ev
 * is only read; DPDK 22.11's enqueue takes it without const). */
void nat_log_push(struct nat_log *lg, struct ipfix_nat_event *ev);

/** A session event (create, delete) of mapping m at time t. */
void nat_log_session(struct nat_log *lg, uint8_t event,
		     const struct nat_mapping *m, uint64_t t);

/** A binding event (BIB create, delete) at time t of the binding of
 * session m, whose endpoints are the binding's. */
void nat_log_bib(struct nat_log *lg, uint8_t event, const struct nat_mapping *m,
		 uint64_t t);

/**
 * Whether a refusal event at t is within NAT_LOG_REFUSAL_RATE and its
 * burst (a GCRA), so that a flood of refused packets cannot fill the
 * ring; one held back is counted (suppressed). Ask before making the
 * event (nat_log_refusal()).
 */
static inline bool
nat_log_refusal_due(struct nat_log *lg, uint64_t t)
{
	if (lg->refusal_tat > t + lg->refusal_slack) {
		FX_STAT_ADD(lg->st, suppressed, 1);
		return false;
	}
	lg->refusal_tat = RTE_MAX(lg->refusal_tat, t) + lg->refusal_gap;
	return true;
}

/**
 * A refusal of a mapping for packet key k at t, once nat_log_refusal_due()
 * let it through: why, and the limit it ran into (a quota, the table's
 * capacity; 0 for no port); pub_addr, the host's public address.
 */
void nat_log_refusal(struct nat_log *lg, enum nat_log_refusal why,
		     uint32_t limit, const struct nat_key *k, uint32_t pub_addr,
		     uint64_t t);

/**
 * For a port-block allocator: block [lo, hi] (host order) of public
 * address pub_addr (network order) given to (alloc) or taken back from
 * inside host in_addr at time t; proto 0 for a block of every protocol.
 * Nothing when logging is off (lg NULL).
 */
void nat_log_block(struct nat_log *lg, bool alloc, uint32_t in_addr,
		   uint32_t pub_addr, uint8_t proto, uint16_t lo, uint16_t hi,
		   uint64_t t);

/** The worker has left its loop: from now on pushes wait for room. */
static inline void
nat_log_exit(struct nat_log *lg)
{
	if (lg != NULL)
		lg->at_exit = true;
}

#endif /* _FX_NAT_LOG_H_ */
