/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The O(1) list operations of twheel_bucket.c, inline for the schedule,
 * cancel and sweep paths. See twheel_bucket.c for the layout.
 */

#ifndef _TWHEEL_BUCKET_H_
#define _TWHEEL_BUCKET_H_

#include <rte_debug.h>
#include <rte_prefetch.h>

#include "twheel_private.h"

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
	e->link = (l->head << TWHEEL_LINK_SLOT_BITS) | l->fill;
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
	struct twheel_chunk *c = &w->chunks[link >> TWHEEL_LINK_SLOT_BITS];
	uint32_t slot = link & ((1u << TWHEEL_LINK_SLOT_BITS) - 1);
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

static inline uint32_t
twheel_list_pop(struct twheel *w, uint32_t list)
{
	struct twheel_list *l = &w->lists[list];
	uint32_t idx;

	if (l->head == TWHEEL_NIL)
		return TWHEEL_NIL;
	idx = w->chunks[l->head].ref[--l->fill];
	if (l->fill == 0)
		twheel_list_drop_head(w, l);
	return idx;
}

/* Slab allocation: the free stack ---------------------------------------- */

/*
 * The free entries' indices are a LIFO stack of chunks from the same pool
 * as the buckets' (free_head, free_fill in the wheel): popping and pushing
 * touch one hot chunk, a free index costs no memory that a filed one would
 * not, and the indices the next allocations will hand out can be read
 * ahead. A free entry's link is not kept: nothing unlinks a free entry.
 *
 * An allocation prefetches the entry it will hand out this many
 * allocations later (at most a chunk's worth), so a run of schedules (new flows in a burst) overlaps
 * its entries' cache misses instead of taking them one after the other.
 */
#define TWHEEL_SLAB_PREFETCH_AHEAD 8

static inline void
twheel_slab_prefetch(const struct twheel *w)
{
	const uint32_t j = TWHEEL_SLAB_PREFETCH_AHEAD, f = w->free_fill;
	const struct twheel_chunk *h, *nc;

	if (unlikely(w->free_head == TWHEEL_NIL))
		return;
	h = &w->chunks[w->free_head];
	/* pops to come: h->ref[f - 1] down to ref[0], then the next chunk */
	if (f > j) {
		rte_prefetch0(twheel_entry_at(w, h->ref[f - 1 - j]));
	} else if (h->next != TWHEEL_NIL) {
		nc = &w->chunks[h->next];
		rte_prefetch0(twheel_entry_at(w,
			nc->ref[TWHEEL_CHUNK_REFS - 1 - (j - f)]));
	}
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
		/* the line after the new head's, a chunk's worth ahead */
		if (w->free_head != TWHEEL_NIL &&
		    w->chunks[w->free_head].next != TWHEEL_NIL)
			rte_prefetch0(&w->chunks[w->chunks[w->free_head].next]);
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

/* Fill a record for an unlinked entry and release its slot. */
static inline void
twheel_entry_retire(struct twheel *w, uint32_t idx, struct twheel_entry *e,
		    uint64_t deadline, enum twheel_reason reason,
		    struct twheel_fired *rec)
{
	rec->id = twheel_make_id(idx, e->gen, w->salt);
	rec->payload = e->payload;
	rec->deadline = deadline;
	rec->reason = reason;
	twheel_slab_release(w, idx, e);
}

#endif /* _TWHEEL_BUCKET_H_ */
