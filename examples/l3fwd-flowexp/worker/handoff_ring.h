/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The handoff's ring: one producer (the worker that received a packet),
 * one consumer (the worker that owns it), pointers to mbufs.
 *
 * Why not rte_ring: its single-producer enqueue reads the consumer's tail
 * on every call, and its single-consumer dequeue the producer's tail, each
 * a cache line the other core writes. With n workers a burst of 32 splits
 * into n - 1 enqueues of about 32 / (n - 1) packets each, so at 15 workers
 * every two packets paid for one line crossing on each side, beside the
 * packets' own. Here each side keeps what it last read of the other's
 * index and reads the other's line again only when that copy says the
 * ring is full (producer) or holds fewer packets than asked for
 * (consumer): the producer of a ring that is not near full never reads
 * the consumer's line at all.
 *
 * Geometry: four index blocks, each on its own pair of cache lines (the
 * adjacent-line prefetcher fetches lines in pairs), then the slots:
 *
 *   prod    head, cons_seen      the producer's own; never read by the consumer
 *   pub     prod_tail            the producer stores, the consumer loads
 *   cons    tail, prod_seen      the consumer's own
 *   ack     cons_tail            the consumer stores, the producer loads
 *   slot[size]                   size a power of two, 8 pointers a line
 *
 * Indices run free as uint32_t (slot = index & mask); head - tail never
 * exceeds size, so wrapping is harmless.
 *
 * Memory ordering: the producer writes the slots, then stores prod_tail
 * with release; the consumer loads prod_tail with acquire, then reads the
 * slots (it sees the pointers written before the index). The consumer
 * reads the slots, then stores cons_tail with release; the producer loads
 * cons_tail with acquire before it writes those slots again (it never
 * overwrites a pointer the consumer has yet to read).
 *
 * Single producer, single consumer, each one thread at a time; anyone may
 * empty a ring once both have stopped (fx_ho_ring_dequeue() after the
 * workers were joined).
 */

#ifndef _FX_HANDOFF_RING_H_
#define _FX_HANDOFF_RING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "base/atomic.h"

#define FX_HO_RING_ALIGN (2 * RTE_CACHE_LINE_SIZE)

/** One sender -> owner ring (see the file comment for its layout). */
struct fx_ho_ring {
	/* the producer's own */
	uint32_t head;        /**< next slot the producer writes */
	uint32_t cons_seen;   /**< cons_tail as the producer last loaded it */
	uint32_t mask;        /**< size - 1 */
	/* published by the producer */
	uint32_t prod_tail __rte_aligned(FX_HO_RING_ALIGN);
	/* the consumer's own */
	uint32_t tail __rte_aligned(FX_HO_RING_ALIGN);   /**< next slot it reads */
	uint32_t prod_seen;   /**< prod_tail as the consumer last loaded it */
	uint32_t cmask;       /**< size - 1, on the consumer's line */
	/* published by the consumer */
	uint32_t cons_tail __rte_aligned(FX_HO_RING_ALIGN);
	void *slot[] __rte_aligned(FX_HO_RING_ALIGN);
};

/**
 * A ring of size slots (a power of two) on socket; NULL with rte_errno
 * set when size is not one or the memory is short.
 */
struct fx_ho_ring *fx_ho_ring_create(uint32_t size, int socket);

/** Free a ring (NULL is fine); what is left in it is the caller's. */
void fx_ho_ring_free(struct fx_ho_ring *r);

/** Bytes a ring of size slots takes. */
size_t fx_ho_ring_bytes(uint32_t size);

/**
 * Producer: free slots, at least `want` of them if there are; reads the
 * consumer's line only when its last copy shows fewer than `want`.
 */
static inline uint32_t
fx_ho_ring_room(struct fx_ho_ring *r, uint32_t want)
{
	uint32_t size = r->mask + 1, room = size - (r->head - r->cons_seen);

	if (room >= want)
		return room;
	/* acquire: the consumer read the slots it released before this */
	r->cons_seen = fx_load_acquire(&r->cons_tail);
	return size - (r->head - r->cons_seen);
}

/** Producer: enqueue up to n pointers; returns how many fit. */
static inline uint32_t
fx_ho_ring_enqueue(struct fx_ho_ring *r, void *const *objs, uint32_t n)
{
	uint32_t room = fx_ho_ring_room(r, n), i, head = r->head;

	n = RTE_MIN(n, room);
	for (i = 0; i < n; i++)
		r->slot[(head + i) & r->mask] = objs[i];
	r->head = head + n;
	/* release: the slots above are written before the consumer sees them */
	fx_store_release(&r->prod_tail, head + n);
	return n;
}

/**
 * Consumer: dequeue up to n pointers; returns how many. Reads the
 * producer's line only when its last copy shows fewer than n.
 */
static inline uint32_t
fx_ho_ring_dequeue(struct fx_ho_ring *r, void **objs, uint32_t n)
{
	uint32_t tail = r->tail, avail = r->prod_seen - tail, i;

	if (avail < n) {
		/* acquire: the slots written before prod_tail are visible */
		r->prod_seen = fx_load_acquire(&r->prod_tail);
		avail = r->prod_seen - tail;
	}
	n = RTE_MIN(n, avail);
	for (i = 0; i < n; i++)
		objs[i] = r->slot[(tail + i) & r->cmask];
	if (n == 0)
		return 0;
	r->tail = tail + n;
	/* release: the slots are read before the producer may reuse them */
	fx_store_release(&r->cons_tail, tail + n);
	return n;
}

/** Consumer: whether a pointer waits in the ring. */
static inline bool
fx_ho_ring_waiting(const struct fx_ho_ring *r)
{
	/* acquire, as in fx_ho_ring_dequeue(): a count the caller acts on */
	return fx_load_acquire(&r->prod_tail) != r->tail;
}

#endif /* _FX_HANDOFF_RING_H_ */
