/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Lists and buckets as the rest of the library sees them: where a
 * deadline is filed, and the O(1) list operations, inline for the
 * schedule, cancel and sweep paths (the chunk pool, the occupancy bitmap,
 * insert and remove). twheel_bucket.c has the layout, its allocation and
 * the bucket search. The slab's free stack, kept in chunks of the same
 * pool, is twheel_slab.h's.
 */

#ifndef _TWHEEL_BUCKET_H_
#define _TWHEEL_BUCKET_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_debug.h>
#include <rte_prefetch.h>

#include "twheel_layout.h"
#include "twheel_time.h"

/* Made and released with the wheel (twheel_bucket.c). */
int twheel_lists_init(struct twheel *w);
void twheel_lists_free(struct twheel *w);

/* Swap a bucket's list with the empty pending list (twheel_bucket.c). */
void twheel_bucket_detach(struct twheel *w, uint32_t bucket);
/*
 * Offset of the first non-empty bucket among ticks from_tick .. from_tick
 * + count - 1 (count <= slots), or -1 (twheel_bucket.c).
 */
int64_t twheel_bucket_find(const struct twheel *w, uint64_t from_tick,
			   uint64_t count);

static inline bool
twheel_list_empty(const struct twheel *w, uint32_t list)
{
	return w->lists[list].head == TWHEEL_NIL;
}

/*
 * The bucket list for deadline d: its tick's bucket, but never a tick the
 * cursor has passed (those go to the cursor's bucket, at most one tick
 * late). At the end of time (cursor == end_tick) that is end_tick's bucket,
 * which every sweep then examines once.
 */
static inline uint32_t
twheel_bucket_list_for(const struct twheel *w, uint64_t d)
{
	uint64_t t = twheel_tick(w, d);

	if (t < w->cursor)
		t = w->cursor;
	return w->bucket_list[t & w->mask];
}

/*
 * The list a newly set deadline d belongs in: at or before the latest
 * sweep's now it is overdue and goes to pending, which the next sweep
 * examines first; otherwise its bucket.
 */
static inline uint32_t
twheel_list_for(const struct twheel *w, uint64_t d)
{
	if (d <= w->now)
		return w->pending;
	return twheel_bucket_list_for(w, d);
}

/*
 * Chunks leave the pool in the order they came back, which after a sweep
 * or a drained free stack is anything but the cache's: the next free chunk
 * is prefetched when one is taken, so the next allocation (at least a
 * chunk's worth of inserts later) finds its link and line in cache.
 */
static inline uint32_t
twheel_chunk_alloc(struct twheel *w)
{
	uint32_t c = w->chunk_free;

	RTE_ASSERT(c != TWHEEL_NIL);
	w->chunk_free = w->chunks[c].next;
	if (likely(w->chunk_free != TWHEEL_NIL))
		rte_prefetch0(&w->chunks[w->chunk_free]);
	return c;
}

static inline void
twheel_chunk_release(struct twheel *w, uint32_t c)
{
	w->chunks[c].next = w->chunk_free;
	w->chunk_free = c;
}

static inline void
twheel_bitmap_set(struct twheel *w, uint32_t bucket)
{
	w->bitmap[bucket >> 6] |= UINT64_C(1) << (bucket & 63);
}

static inline void
twheel_bitmap_clear(struct twheel *w, uint32_t bucket)
{
	w->bitmap[bucket >> 6] &= ~(UINT64_C(1) << (bucket & 63));
}

static inline void
twheel_list_insert(struct twheel *w, uint32_t list, uint32_t idx,
		   struct twheel_entry *e)
{
	struct twheel_list *l = &w->lists[list];
	uint32_t c;

	if (l->head == TWHEEL_NIL || l->fill == TWHEEL_CHUNK_REFS) {
		c = twheel_chunk_alloc(w);
		w->chunks[c].next = l->head;
		w->chunks[c].list = list;
		if (l->head == TWHEEL_NIL && l->bucket != TWHEEL_BUCKET_PENDING)
			twheel_bitmap_set(w, l->bucket);
		l->head = c;
		l->fill = 0;
	}
	w->chunks[l->head].ref[l->fill] = idx;
	e->link = twheel_link(l->head, l->fill);
	l->fill++;
}

/* The head chunk emptied: drop it; the next one, if any, is full. */
static inline void
twheel_list_drop_head(struct twheel *w, struct twheel_list *l)
{
	uint32_t h = l->head;

	l->head = w->chunks[h].next;
	twheel_chunk_release(w, h);
	if (l->head != TWHEEL_NIL)
		l->fill = TWHEEL_CHUNK_REFS;
	else if (l->bucket != TWHEEL_BUCKET_PENDING)
		twheel_bitmap_clear(w, l->bucket);
}

static inline void
twheel_list_remove(struct twheel *w, struct twheel_entry *e)
{
	uint32_t link = e->link;
	struct twheel_chunk *c = &w->chunks[twheel_link_chunk(link)];
	uint32_t slot = twheel_link_slot(link);
	struct twheel_list *l = &w->lists[c->list];
	struct twheel_chunk *h = &w->chunks[l->head];
	uint32_t last = l->fill - 1;
	uint32_t moved = h->ref[last];

	if (c != h || slot != last) {
		c->ref[slot] = moved;
		twheel_entry_at(w, moved)->link = link;
	}
	l->fill = last;
	if (last == 0)
		twheel_list_drop_head(w, l);
}

/*
 * Give a live entry a new deadline (twheel_move() once its id is checked).
 * A later deadline only stores it; an earlier one re-files the entry in
 * list to, which is twheel_list_for(w, deadline) or TWHEEL_NIL to have it
 * computed here (the bulk move computes it ahead, twheel_bulk.c). See
 * twheel_ops.c for why a later deadline may stay where it is.
 */
static inline void
twheel_entry_move(struct twheel *w, uint32_t idx, struct twheel_entry *e,
		  uint64_t deadline, uint32_t to)
{
	bool earlier = deadline < e->deadline;

	e->deadline = deadline;
	if (!earlier)
		return;
	if (to == TWHEEL_NIL)
		to = twheel_list_for(w, deadline);
	/* same list: rewriting the deadline was all it took */
	if (twheel_entry_chunk(w, e)->list != to) {
		twheel_list_remove(w, e);
		twheel_list_insert(w, to, idx, e);
	}
}

#endif /* _TWHEEL_BUCKET_H_ */
