/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A lane: the single-producer, single-consumer queue that carries one EAL
 * lcore's remote messages to a wheel's owner. twheel_remote.c says which
 * producer uses which lane and how the owner drains them; this file is the
 * queue alone.
 *
 * Geometry. A lane holds `capacity` messages (the config's
 * remote_ring_size) in `mask + 1` slots, the power of two at or above it,
 * of one 24-byte message each. head (the consumer's) and tail (the
 * producer's) are free-running 32-bit counters: tail - head is the fill in
 * unsigned arithmetic, and a lane is full when it equals capacity (at most
 * 2^24, far from the wrap).
 *
 * Cache lines. The producer's line (tail, its copy of head, its -ENOBUFS
 * count) is written by the producer alone, the consumer's line (head, its
 * copy of tail) by the owner alone, and each side keeps what it needs of
 * the geometry on its own line. A side reads the other's index only when
 * its copy says full (producer) or short of what it wants (consumer), so
 * in steady flow the index lines cross cores once per burst, not once per
 * message; the slots themselves cross once per 64 / 24 messages.
 *
 * Memory ordering, the C11 model of DPDK's lib/ring:
 * - the producer writes the slot, then store-releases tail; the consumer
 *   load-acquires tail, so it sees the slot and everything the producer
 *   wrote before its call (the payload, a lazy deadline);
 * - the consumer copies slots out, then store-releases head; the producer
 *   load-acquires head before it reuses a slot, so no slot is overwritten
 *   before it was read.
 * ThreadSanitizer models these atomics: the lanes need no annotation and
 * no suppression.
 */

#ifndef _TWHEEL_LANE_H_
#define _TWHEEL_LANE_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "twheel_atomic.h"

enum twheel_msg_type {
	TWHEEL_MSG_CANCEL = 1,
	TWHEEL_MSG_SCHEDULE = 2,
};

/* One remote call, as the lanes and the shared ring carry it. */
struct twheel_msg {
	uint64_t arg;        /* CANCEL: the id; SCHEDULE: the deadline */
	void *payload;       /* SCHEDULE only */
	uint32_t type;
	uint32_t pad;
};

struct twheel_lane {
	/* the producer's line */
	uint32_t tail;               /* next slot to publish (store-release) */
	uint32_t head_copy;          /* the producer's view of head */
	uint32_t capacity;
	uint32_t mask;
	struct twheel_msg *slots;
	uint64_t full;               /* calls refused -ENOBUFS (relaxed) */

	/* the consumer's line */
	uint32_t head __rte_cache_aligned; /* next slot to take (store-release) */
	uint32_t tail_copy;          /* the consumer's view of tail */
	uint32_t mask_c;
	struct twheel_msg *slots_c;
} __rte_cache_aligned;

/* Producer side: publish one message, or -ENOBUFS with nothing written. */
static inline int
twheel_lane_put(struct twheel_lane *l, const struct twheel_msg *m)
{
	uint32_t tail = l->tail;     /* the producer's own: no other writer */

	if (unlikely(tail - l->head_copy == l->capacity)) {
		/* pairs with the consumer's release of head: slots read */
		l->head_copy = twheel_atomic_load_acquire(&l->head);
		if (tail - l->head_copy == l->capacity) {
			twheel_atomic_store(&l->full, l->full + 1);
			return -ENOBUFS;
		}
	}
	l->slots[tail & l->mask] = *m;
	/* the slot, and all the caller wrote before, before the new tail */
	twheel_atomic_store_release(&l->tail, tail + 1);
	return 0;
}

/* Consumer side: copy out up to n published messages; returns how many. */
static inline unsigned int
twheel_lane_take(struct twheel_lane *l, struct twheel_msg *out, unsigned int n)
{
	uint32_t head = l->head;     /* the consumer's own */
	uint32_t avail = l->tail_copy - head;
	unsigned int i;

	if (avail < n) {
		/* pairs with the producer's release of tail: slots written */
		l->tail_copy = twheel_atomic_load_acquire(&l->tail);
		avail = l->tail_copy - head;
		if (avail == 0)
			return 0;
	}
	if (n > avail)
		n = avail;
	for (i = 0; i < n; i++)
		out[i] = l->slots_c[(head + i) & l->mask_c];
	/* the copies before the slots go back to the producer */
	twheel_atomic_store_release(&l->head, head + n);
	return n;
}

/* Consumer side: has the producer published a message not yet taken? */
static inline bool
twheel_lane_pending(const struct twheel_lane *l)
{
	return twheel_atomic_load_acquire(&l->tail) != l->head;
}

#endif /* _TWHEEL_LANE_H_ */
