/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The slab as the wheel sees it: its free stack, allocation and release,
 * and an entry's way out (a record, its slot back, the counters). Inline
 * for the schedule, cancel and sweep paths; twheel_slab.c has the mempool
 * driver underneath and the hand-over of the pool to the wheel.
 *
 * The free entries' indices are a LIFO stack of chunks from the buckets'
 * pool (free_head, free_fill in the wheel): popping and pushing touch one
 * hot chunk, a free index costs no memory that a filed one would not, and
 * the indices the next allocations will hand out can be read ahead. A free
 * entry's link is not kept: nothing unlinks a free entry.
 */

#ifndef _TWHEEL_SLAB_H_
#define _TWHEEL_SLAB_H_

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_reciprocal.h>

#include "twheel.h"
#include "twheel_bucket.h"
#include "twheel_id.h"
#include "twheel_layout.h"
#include "twheel_time.h"

/* The mempool driver's name, registered when the library loads. */
extern const char twheel_slab_ops_name[];
/* 0 once the driver is registered, -ENOTSUP if registration failed. */
int twheel_slab_ops_ready(void);

/* The slab, the mempool ops' private data (twheel_slab.c). */
struct twheel_slab {
	uint8_t *base;       /* first object (after its header) */
	uint32_t stride;     /* header + element + trailer */
	uint32_t capacity;   /* objects the pool was sized for */
	uint32_t populated;  /* objects populated so far */
	uint32_t free_head;  /* until a wheel owns the slab: LIFO of free indices */
	uint32_t free_count; /* until a wheel owns the slab: free objects */
	struct twheel *owner; /* the wheel, once its free stack exists */
	struct rte_reciprocal_u64 stride_div;
};

/* Give the slab to the wheel: every entry free, lowest index first. */
void twheel_slab_adopt(struct twheel *w);
/* Take it back before the chunks go, leaving the pool no free objects. */
void twheel_slab_disown(struct twheel *w);

/*
 * An allocation prefetches the entry it will hand out this many
 * allocations later, so a run of schedules (new flows in a burst) overlaps
 * its entries' cache misses instead of taking them one after the other.
 * After churn the free stack is a random permutation of the slab and every
 * one of those entries is a miss: 16 allocations (a little over a chunk)
 * give the miss the time of 16 schedules, and both lines of an entry that
 * straddles two are fetched (the allocation writes its generation, the
 * schedule its payload, deadline and link). A/B at 1M, timer_perf
 * append_churned: 8 ahead, first line only 56-65 cycles; 8, both lines
 * 42-48; 12: 41-76; 16: 37-42; 20: 37-69; 24: 41-72
 * (doc/bench/2026-11-30-churned-append.md).
 * At most two chunks' worth: the chunk after the next is prefetched when
 * a chunk becomes the stack's head.
 */
#define TWHEEL_SLAB_PREFETCH_AHEAD 16

static inline void
twheel_slab_prefetch(const struct twheel *w)
{
	uint32_t j = TWHEEL_SLAB_PREFETCH_AHEAD, f = w->free_fill;
	uint32_t c = w->free_head;

	RTE_BUILD_BUG_ON(TWHEEL_SLAB_PREFETCH_AHEAD >= 2 * TWHEEL_CHUNK_REFS);
	/* pops to come: ref[f - 1] down to ref[0] of each chunk, newest first */
	while (c != TWHEEL_NIL && j >= f) {
		j -= f;
		c = w->chunks[c].next;
		f = TWHEEL_CHUNK_REFS;
	}
	if (likely(c != TWHEEL_NIL))
		twheel_entry_prefetch(twheel_entry_at(w,
						      w->chunks[c].ref[f - 1 - j]));
}

/* Push a free index (its entry's generation is even). */
static inline void
twheel_free_push(struct twheel *w, uint32_t idx)
{
	uint32_t h = w->free_head, c;

	if (unlikely(h == TWHEEL_NIL || w->free_fill == TWHEEL_CHUNK_REFS)) {
		c = twheel_chunk_alloc(w);
		w->chunks[c].next = h;
		w->free_head = h = c;
		w->free_fill = 0;
	}
	w->chunks[h].ref[w->free_fill++] = idx;
}

/* Pop a free entry index, or NIL. The entry's generation becomes odd. */
static inline uint32_t
twheel_slab_alloc(struct twheel *w)
{
	uint32_t h = w->free_head, idx;

	if (unlikely(h == TWHEEL_NIL))
		return TWHEEL_NIL;
	idx = w->chunks[h].ref[--w->free_fill];
	if (w->free_fill == 0) {
		/* the chunk goes back first: the pool's bound holds */
		w->free_head = w->chunks[h].next;
		w->free_fill = TWHEEL_CHUNK_REFS;
		twheel_chunk_release(w, h);
		/*
		 * the two chunks after the new head, one and two chunks'
		 * worth ahead: twheel_slab_prefetch() reads the first's next
		 */
		if (w->free_head != TWHEEL_NIL &&
		    w->chunks[w->free_head].next != TWHEEL_NIL) {
			uint32_t n1 = w->chunks[w->free_head].next;

			rte_prefetch0(&w->chunks[n1]);
			if (w->chunks[n1].next != TWHEEL_NIL)
				rte_prefetch0(&w->chunks[w->chunks[n1].next]);
		}
	}
	twheel_slab_prefetch(w);
	twheel_entry_at(w, idx)->gen++;
	return idx;
}

/* Push an entry back; its generation becomes even, so its id goes stale. */
static inline void
twheel_slab_release(struct twheel *w, uint32_t idx, struct twheel_entry *e)
{
	e->gen++;
	twheel_free_push(w, idx);
}

/*
 * An entry leaves by cancel (local or remote) or drain: unlinked, its slot
 * released, counted. With a record (remote cancel, drain) the record gets
 * its id, payload and current deadline as TWHEEL_CANCELLED; a local cancel
 * passes NULL, the caller has the payload.
 */
static inline void
twheel_entry_cancel(struct twheel *w, uint32_t idx, struct twheel_entry *e,
		    struct twheel_fired *rec)
{
	twheel_list_remove(w, e);
	if (rec != NULL) {
		rec->id = twheel_make_id(idx, e->gen, w->salt);
		rec->payload = e->payload;
		rec->deadline = twheel_current_deadline(w, e);
		rec->reason = TWHEEL_CANCELLED;
	}
	twheel_slab_release(w, idx, e);
	TWHEEL_STAT_ADD(w, cancelled, 1);
	TWHEEL_STAT_SUB(w, live, 1);
}

#endif /* _TWHEEL_SLAB_H_ */
