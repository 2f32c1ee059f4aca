/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Handoff: the rings that carry packets from the worker that received
 * them to the worker that owns them (fwd/owner.h says who that is).
 *
 * Rings: one single-producer single-consumer ring per ordered pair of
 * workers (sender -> owner), not one multi-producer ring per owner. SP/SC
 * rings need no compare-and-swap, so senders never contend for one
 * producer head (under RSS-less traffic every worker sends to every other
 * one all the time); and one sender flooding its owner fills only its own
 * ring, so it cannot take the room the other senders' packets need. The
 * ring is worker/handoff_ring.h's, which reads the other side's index only
 * when what it last read runs out: at many workers each ring operation
 * carries only a few packets, and rte_ring's read of the other side's
 * line on every call cost as much as the packets. The price is
 * n x (n - 1) rings and n - 1 empty checks per loop iteration on the
 * owner, each one cache line that stays in cache while the ring is empty.
 *
 * Sizes: the rings into one owner hold FX_HANDOFF_OWNER_SLOTS packets in
 * all, each ring a power of two between FX_HANDOFF_RING_MIN and
 * FX_HANDOFF_RING_MAX (fx_handoff_ring_size(): 1024 up to 5 workers, 256
 * at 16, 128 at 32), so the mbufs the rings can hold, which the pool must
 * have (boot/ports.c), grow with the workers, not with their square (up
 * to 65 workers; beyond, 64 a ring).
 *
 * Bounded work: a drain takes at most FX_HANDOFF_BURST packets from each
 * sender ring per loop iteration. Before each rx poll a worker checks that
 * every ring it sends to has room for a burst; if one has not, its owner
 * has fallen behind, and the worker leaves its remaining rx polls for this
 * iteration (counted: handoff_waits): the packets wait in the NIC's queues,
 * and what overflows there the NIC counts (imissed), instead of being
 * parsed here only to be dropped at the ring. A burst that still finds a
 * ring full (more packets for one owner than FX_HANDOFF_BURST, which the
 * check and MAX_PKT_BURST rule out) drops what does not fit
 * and counts it (handoff_dropped); nothing ever waits on a ring.
 *
 * The parse result travels with the packet, in the mbuf's private area
 * (struct fx_pkt, fx_pkt_of()), so the owner neither parses nor hashes
 * again. The receive port is m->port. What crosses cores per packet: the
 * mbuf's two lines, its private area and its first two data lines, each
 * written by the sender and read (then written) by the owner, which
 * prefetches them for a whole batch as it takes it (worker/worker.c);
 * freed by the owner, the mbuf goes to the owner's mempool cache and its
 * next use is local. Per ring operation: a line of slots per 8 packets,
 * and the producer's index, read by the owner once per batch it learns
 * of.
 *
 * The module is independent of who owns what and of what the owner does
 * with the packet: fx_handoff_dispatch() sends each packet to the owner
 * its fx_pkt names, set when it was parsed: the key's hash for a tracked
 * flow (fx_affinity_owner()), the public port's owner for NAT's return
 * traffic (nat/nat.h); fx_handoff_send() and fx_handoff_flush() serve any
 * other owner function; fx_handoff_take() on the owner.
 */

#ifndef _FX_HANDOFF_H_
#define _FX_HANDOFF_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "base/counter.h"
#include "fwd/forward.h"
#include "fwd/parse.h"
#include "worker/handoff_ring.h"

#define FX_HANDOFF_BURST 32u         /**< per sender ring per drain, and per enqueue */
#define FX_HANDOFF_OWNER_SLOTS 4096u /**< packets the rings into one owner hold in all */
#define FX_HANDOFF_RING_MAX 1024u    /**< packets per sender -> owner ring, at most */
#define FX_HANDOFF_RING_MIN (2 * FX_HANDOFF_BURST)   /**< and at least */

/** Per-worker counters; written by that worker only. */
struct fx_handoff_stats {
	uint64_t handed_off;   /**< packets passed to their owner */
	uint64_t received;     /**< packets taken from the rings (sent by others) */
	uint64_t dropped;      /**< packets lost to a full ring (or left at exit) */
	uint64_t foreign;      /**< rss: packets tracked here that another worker owns */
	uint64_t waits;        /**< loop iterations without rx: a ring had no room */
	uint64_t sends;        /**< ring writes (handed_off / sends: packets per write) */
	uint64_t takes;        /**< ring reads that found packets */
	uint64_t dropped_port[RTE_MAX_ETHPORTS];   /**< dropped, by receive port */
};

/** Packets for one owner, collected during one burst. */
struct fx_ho_buf {
	uint16_t n;
	struct rte_mbuf *m[FX_HANDOFF_BURST];
};

/** One worker's side of the handoff. */
struct fx_handoff {
	uint16_t self;                    /**< worker index */
	uint16_t nb_workers;
	struct fx_ho_ring **in;           /**< [sender]: rings to drain; NULL for self */
	struct fx_ho_ring **out;          /**< [owner]: rings to fill; NULL for self */
	struct fx_ho_buf *buf;            /**< [owner]: packets collected in one burst */
	uint64_t pending;                 /**< owners (below 64) with packets in buf */
	uint16_t ahead_next;              /**< sender the last batch taken ahead ended at */
	struct fx_handoff_stats st;
};

/**
 * Packets per sender -> owner ring with nb_workers workers (0 below two):
 * FX_HANDOFF_OWNER_SLOTS / (nb_workers - 1) rounded down to a power of
 * two, within FX_HANDOFF_RING_MIN..FX_HANDOFF_RING_MAX.
 */
static inline uint32_t
fx_handoff_ring_size(unsigned int nb_workers)
{
	uint32_t per;

	if (nb_workers < 2)
		return 0;
	per = rte_align32prevpow2(FX_HANDOFF_OWNER_SLOTS / (nb_workers - 1));
	return RTE_MAX(FX_HANDOFF_RING_MIN, RTE_MIN(FX_HANDOFF_RING_MAX, per));
}

/**
 * Create the rings between every pair of workers (before launch, on the
 * owner's socket) and fill each worker's struct fx_handoff.
 * h[w] is worker w's; socket[w] its socket. 0 or a negative errno.
 */
int fx_handoff_init(struct fx_handoff *const *h, const int *socket,
		    unsigned int nb_workers);

/** Free the rings (after the workers stopped) and any packet left in them. */
void fx_handoff_fini(struct fx_handoff *const *h, unsigned int nb_workers);

/** Enqueue what was collected for one owner; a full ring drops the rest. */
void fx_handoff_flush_owner(struct fx_handoff *h, uint16_t owner);

/**
 * Sender: pass one packet to worker owner (not this one), with any owner
 * function (NAT: the owner of the public port). Packets are collected per
 * owner and enqueued a burst at a time; fx_handoff_flush() sends the rest.
 */
static inline void
fx_handoff_send(struct fx_handoff *h, uint16_t owner, struct rte_mbuf *m)
{
	struct fx_ho_buf *b = &h->buf[owner];

	b->m[b->n++] = m;
	if (owner < 64)
		h->pending |= UINT64_C(1) << owner;
	if (b->n == FX_HANDOFF_BURST)
		fx_handoff_flush_owner(h, owner);
}

/** Sender: enqueue what fx_handoff_send() collected (once per rx burst). */
void fx_handoff_flush(struct fx_handoff *h);

/**
 * Sender: pass the packets this worker does not own to their owners; the
 * ones it owns are compacted to the front of pkts. Each packet's
 * fx_pkt_of()->owner must be set: fx_handoff_owner() of its key's hash for
 * a flow under handoff, this worker otherwise; NAT sets an inbound
 * packet's to the owner of its public port. Returns how many are kept.
 */
uint16_t fx_handoff_dispatch(struct fx_handoff *h, struct rte_mbuf **pkts,
			     uint16_t n);

/**
 * Sender: pass the packets whose verdict (next[], fwd/forward.h) is
 * FX_VERDICT_HANDOFF to their fx_pkt_of()->owner (NAT's hairpins: the
 * owner of their public destination); the others are compacted to the
 * front of pkts, their verdicts with them. Returns how many are kept.
 */
uint16_t fx_handoff_verdicts(struct fx_handoff *h, struct rte_mbuf **pkts,
			     uint16_t *next, uint16_t n);

/**
 * Owner: take up to max packets that worker `sender` passed to this one.
 * The loop takes at most FX_HANDOFF_BURST from each sender before its rx
 * polls, and as many again after them only when that take hit its limit
 * (worker/worker.c).
 */
static inline uint16_t
fx_handoff_take(struct fx_handoff *h, uint16_t sender, struct rte_mbuf **pkts,
		uint16_t max)
{
	struct fx_ho_ring *r = h->in[sender];
	uint32_t n;

	if (r == NULL)
		return 0;
	n = fx_ho_ring_dequeue(r, (void **)pkts, max);
	if (n != 0) {
		FX_STAT_ADD(&h->st, received, n);
		FX_STAT_ADD(&h->st, takes, 1);
	}
	return (uint16_t)n;
}

/**
 * Sender, before an rx poll: false if a ring to another worker has no
 * room for a burst (counted); the worker then skips the rest of its rx
 * polls for this loop iteration. Reads no other core's line unless a
 * ring looked nearly full when last read.
 */
static inline bool
fx_handoff_room(struct fx_handoff *h)
{
	uint16_t o;

	for (o = 0; o < h->nb_workers; o++) {
		if (o != h->self &&
		    unlikely(fx_ho_ring_room(h->out[o], FX_HANDOFF_BURST) < FX_HANDOFF_BURST)) {
			FX_STAT_ADD(&h->st, waits, 1);
			return false;
		}
	}
	return true;
}

/**
 * Owner: whether a packet waits in a ring from another worker (rings set
 * up: under handoff, or NAT on several workers).
 */
static inline bool
fx_handoff_waiting(const struct fx_handoff *h)
{
	uint16_t s;

	if (h->in == NULL)
		return false;
	for (s = 0; s < h->nb_workers; s++)
		if (h->in[s] != NULL && fx_ho_ring_waiting(h->in[s]))
			return true;
	return false;
}

#endif /* _FX_HANDOFF_H_ */
