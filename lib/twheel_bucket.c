/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Buckets as lists of index chunks.
 *
 * A list is a chain of 64-byte chunks, newest first:
 *
 *   list.head --> [next|list| i i i . . . ]  <- head chunk, "fill" used
 *                    |
 *                    v
 *                 [next|list| i i i i i i i i i i i i i i ]  <- full
 *                    |
 *                    v
 *                   NIL
 *
 * Insert appends to the head chunk (a fresh chunk when it is full). Remove
 * moves the list's last index (head chunk, slot fill-1) into the hole and
 * updates that entry's link, so every chunk but the head stays full and no
 * tombstone is left behind. Both are O(1) and touch the entry, its chunk, the
 * list and the head chunk; with similar timeouts the head chunk of a busy
 * bucket stays in cache.
 *
 * Why not an intrusive doubly linked list: a sweep over one is a pointer
 * chase, one dependent cache miss per entry once churn has shuffled the
 * slab. Here the sweep reads 14 indices per line and issues the entry and
 * payload loads for a whole chunk at once (twheel_sweep.c); doc/guide.md has
 * the measurements that decided it.
 *
 * Chunks come from a pool sized at create time. Every slab index is in
 * exactly one list at all times (a bucket, pending, or the free stack of
 * unused entries, twheel_slab.h), and each has at most one partly filled
 * chunk, so capacity / TWHEEL_CHUNK_REFS + min(capacity, lists + 1) chunks
 * always suffice: insert can never run out. (TWHEEL_CHUNK_REFS is 14 with
 * 64-byte cache lines, the figure used below.)
 *
 * A bucket owns a list through bucket_list[]. Detaching a bucket for a sweep
 * swaps its list with the empty pending list, so it is O(1) however long
 * the bucket is, and the chunks' list field stays right.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "twheel_bucket.h"
#include "twheel_layout.h"

int
twheel_lists_init(struct twheel *w)
{
	uint32_t nb_lists = w->slots + 1;
	uint32_t nb_words = (w->slots + 63) / 64;
	uint64_t nb_chunks;
	uint32_t i;

	/* a chunk is one cache line, its indices fill it, a link holds a slot */
	RTE_BUILD_BUG_ON(sizeof(struct twheel_chunk) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(offsetof(struct twheel_chunk, ref) +
			 TWHEEL_CHUNK_REFS * sizeof(uint32_t) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(TWHEEL_CHUNK_REFS > (1u << TWHEEL_LINK_SLOT_BITS));
	/* and a chunk index in the rest, at the largest geometry */
	RTE_BUILD_BUG_ON((uint64_t)TWHEEL_CAPACITY_MAX / TWHEEL_CHUNK_REFS +
			 TWHEEL_SLOTS_MAX + 2 >
			 (UINT64_C(1) << (32 - TWHEEL_LINK_SLOT_BITS)));

	/* the lists and the free stack each have at most one partial chunk */
	nb_chunks = w->capacity / TWHEEL_CHUNK_REFS +
		RTE_MIN((uint64_t)w->capacity, (uint64_t)nb_lists + 1);

	w->chunks = rte_malloc_socket("twheel_chunks",
			nb_chunks * sizeof(struct twheel_chunk),
			RTE_CACHE_LINE_SIZE, w->socket_id);
	w->lists = rte_malloc_socket("twheel_lists",
			(size_t)nb_lists * sizeof(struct twheel_list),
			RTE_CACHE_LINE_SIZE, w->socket_id);
	w->bucket_list = rte_malloc_socket("twheel_bucket_list",
			(size_t)w->slots * sizeof(uint32_t),
			RTE_CACHE_LINE_SIZE, w->socket_id);
	w->bitmap = rte_zmalloc_socket("twheel_bitmap",
			(size_t)nb_words * sizeof(uint64_t),
			RTE_CACHE_LINE_SIZE, w->socket_id);
	if (w->chunks == NULL || w->lists == NULL ||
	    w->bucket_list == NULL || w->bitmap == NULL) {
		twheel_lists_free(w);
		return -ENOMEM;
	}
	w->bucket_bytes = nb_chunks * sizeof(struct twheel_chunk) +
		(size_t)nb_lists * sizeof(struct twheel_list) +
		(size_t)w->slots * sizeof(uint32_t) +
		(size_t)nb_words * sizeof(uint64_t);

	/* free chunks in ascending order, so early inserts fill memory in order */
	for (i = 0; i < nb_chunks; i++)
		w->chunks[i].next = (i + 1 < nb_chunks) ? i + 1 : TWHEEL_NIL;
	w->chunk_free = 0;

	for (i = 0; i < w->slots; i++) {
		w->lists[i] = (struct twheel_list){
			.head = TWHEEL_NIL, .fill = 0, .bucket = i,
		};
		w->bucket_list[i] = i;
	}
	w->pending = w->slots;
	w->lists[w->pending] = (struct twheel_list){
		.head = TWHEEL_NIL, .fill = 0, .bucket = TWHEEL_BUCKET_PENDING,
	};

	w->free_head = TWHEEL_NIL;
	w->free_fill = 0;
	return 0;
}

void
twheel_lists_free(struct twheel *w)
{
	rte_free(w->chunks);
	rte_free(w->lists);
	rte_free(w->bucket_list);
	rte_free(w->bitmap);
	w->chunks = NULL;
	w->lists = NULL;
	w->bucket_list = NULL;
	w->bitmap = NULL;
}

void
twheel_bucket_detach(struct twheel *w, uint32_t bucket)
{
	uint32_t full = w->bucket_list[bucket];
	uint32_t empty = w->pending;

	RTE_ASSERT(twheel_list_empty(w, empty));
	w->bucket_list[bucket] = empty;
	w->lists[empty].bucket = bucket;
	w->pending = full;
	w->lists[full].bucket = TWHEEL_BUCKET_PENDING;
	twheel_bitmap_clear(w, bucket);
}

/* First set bit in [from, to) of the bitmap, or -1; from < to <= slots. */
static int64_t
bitmap_find_range(const uint64_t *bm, uint32_t from, uint32_t to)
{
	uint32_t wi = from >> 6;
	uint64_t word = bm[wi] & (~UINT64_C(0) << (from & 63));
	uint32_t bit;

	for (;;) {
		if (word != 0) {
			bit = (wi << 6) + (uint32_t)__builtin_ctzll(word);
			return bit < to ? (int64_t)bit : -1;
		}
		if ((++wi << 6) >= to)
			return -1;
		word = bm[wi];
	}
}

/*
 * Offset k of the first non-empty bucket among ticks from_tick .. from_tick
 * + count - 1 (count <= slots), or -1 when all are empty.
 */
int64_t
twheel_bucket_find(const struct twheel *w, uint64_t from_tick, uint64_t count)
{
	uint32_t start = (uint32_t)(from_tick & w->mask);
	uint32_t first_len = RTE_MIN((uint64_t)(w->slots - start), count);
	int64_t bit;

	bit = bitmap_find_range(w->bitmap, start, start + first_len);
	if (bit >= 0)
		return bit - start;
	if (count > first_len) {
		bit = bitmap_find_range(w->bitmap, 0,
					(uint32_t)(count - first_len));
		if (bit >= 0)
			return first_len + bit;
	}
	return -1;
}
