/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Which worker owns a packet (flow affinity): every packet of a flow,
 * whichever direction and whichever rx queue it arrived on, is processed
 * by one worker, the flow's owner. What the workers read per packet is
 * here; the decision, made once at start-up, is boot/affinity.c.
 *
 * Two ways to get there (--affinity):
 *   rss      the NIC does it: a symmetric hash and a redirection table
 *            that sends hash entry i to the queue of every port that one
 *            worker polls (boot/ports.c configures the hash, boot/affinity.c programs
 *            the tables and reads both back). The worker only checks: with
 *            the RSS hash in the mbuf, the owner of entry hash % reta_size
 *            must be itself.
 *   handoff  software does it, for any device: the owner is a function of
 *            the direction-independent hash of the symmetric flow key (the
 *            hash the flow table uses, mixed so that the owner does not
 *            correlate with the table's bucket bits). A worker keeps its own
 *            packets and passes the others to their owner over the handoff
 *            rings (worker/handoff.h).
 * With --affinity auto, rss is used where every check holds and handoff
 * otherwise; fx_affinity_decide() makes the choice once the ports have
 * started, and the log and the statistics say which and why.
 *
 * With masquerade on several workers, inbound packets go to the owner of
 * their public port (nat/nat.h) in every mode, so the rings are in use
 * (fx_handoff_active) even under rss; under --nat-mapping eim, so do the
 * outbound ones to the owner of their inside endpoint (nat/eim.h).
 */

#ifndef _FX_OWNER_H_
#define _FX_OWNER_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

/** What a run uses, decided at start-up. */
enum fx_affinity_mode {
	FX_AFF_SINGLE,        /**< one worker: nothing to do */
	FX_AFF_RSS,
	FX_AFF_HANDOFF,
};

#define FX_RSS_RETA_MAX 2048u   /**< largest redirection table supported (ice PF: 2048) */
#define FX_RSS_MODEL_RETA 128u  /**< --rss-model's redirection table */

/* The decision, written once before the workers start, read-only after. */
/** The affinity in use. */
extern enum fx_affinity_mode fx_affinity_mode;
/**
 * Whether packets travel between workers: under FX_AFF_HANDOFF, and with
 * NAT on several workers in any mode (inbound packets go to the owner of
 * their public port).
 */
extern bool fx_handoff_active;
/** Why (for the log and the statistics). */
extern char fx_affinity_reason[224];
/** rss: the worker index that owns each redirection table entry. */
extern uint16_t fx_rss_owner[FX_RSS_RETA_MAX];
extern uint16_t fx_rss_reta_size;

/** Name of a mode, for the log, tables and telemetry. */
const char *fx_affinity_name(enum fx_affinity_mode m);

/** Owner of a flow under handoff: from the symmetric key's hash. */
static inline uint16_t
fx_affinity_owner(uint32_t hash, uint16_t nb_workers)
{
	/* murmur3's finaliser, then a multiply-shift onto 0..n-1 */
	hash ^= hash >> 16;
	hash *= 0x85ebca6bu;
	hash ^= hash >> 13;
	hash *= 0xc2b2ae35u;
	hash ^= hash >> 16;
	return (uint16_t)(((uint64_t)hash * nb_workers) >> 32);
}

/**
 * Whether worker `self` of `nb_workers` processes a packet that another
 * one owns (the rss check, or the handoff check).
 */
static inline bool
fx_affinity_foreign(uint16_t self, uint16_t nb_workers,
		    const struct rte_mbuf *m, uint32_t hash)
{
	switch (fx_affinity_mode) {
	case FX_AFF_HANDOFF:
		return fx_affinity_owner(hash, nb_workers) != self;
	case FX_AFF_RSS:
		return (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) &&
			fx_rss_owner[m->hash.rss % fx_rss_reta_size] != self;
	default:
		return false;
	}
}

#endif /* _FX_OWNER_H_ */
