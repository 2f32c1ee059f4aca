/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The wheel's layout: the entry, the chunk, the list and the wheel itself.
 *
 * Four kinds of memory, all allocated by twheel_create() on the wheel's
 * socket and never again:
 *
 *   slab     entries in an rte_mempool driven by our own "twheel_slab"
 *            mempool ops (twheel_slab.c). Objects are laid out back to back
 *            in one chunk, so entry <-> index is base + index * stride. The
 *            free entries' indices are a stack of chunks (twheel_slab.h);
 *            the generation survives in the free entry, so a reused slot
 *            gets a new id (twheel_id.h).
 *
 *   lists    one list per bucket plus one "pending" list (twheel_bucket.c).
 *            A list is a chain of one-cache-line chunks of slab indices
 *            (14 to a 64-byte line, 30 to a 128-byte one); only its newest
 *            chunk is partly filled. An entry records where its index sits
 *            (chunk, slot), so removal swaps the list's last index into the
 *            hole: O(1), no tombstones, and a sweep reads a chunk's indices
 *            at a time and can prefetch the entries and payloads it will
 *            need.
 *
 *   bitmap   one bit per bucket: set while the bucket's list is non-empty, so
 *            a sweep after a long pause skips empty buckets 64 at a time.
 *
 *   remote   when the config asks for remote calls: a lane (a single-
 *            producer queue, twheel_lane.h) per EAL lcore and one shared
 *            ring for every other thread (twheel_remote.c).
 *
 * The free stack holds free entries' indices in chunks from the same pool:
 * a free index costs no more memory than a filed one, and allocation reads
 * a line of indices at once, so the entry it will hand out next is
 * prefetched before it is needed (a list threaded through the free entries
 * would make every allocation wait for the previous entry's line: after
 * churn, a dependent cache miss per schedule).
 *
 * The pending list holds the entries a sweep must examine next: the bucket
 * it detached (so it can stop mid-bucket and resume) and entries scheduled
 * at or before the latest sweep's now (they fire at the next sweep).
 *
 * The size claims below are RTE_BUILD_BUG_ONs where the memory is made:
 * the entry in slab_create() (twheel_create.c), the chunk and the link in
 * twheel_lists_init() (twheel_bucket.c), for the target's cache line size.
 */

#ifndef _TWHEEL_LAYOUT_H_
#define _TWHEEL_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_reciprocal.h>

#include "twheel.h"
#include "twheel_atomic.h"

/* "no index" in 32-bit links */
#define TWHEEL_NIL UINT32_MAX

/*
 * An entry: 24 bytes, behind the mempool's 24-byte object header: a
 * stride of 48.
 */
struct twheel_entry {
	void *payload;
	uint64_t deadline;   /* as last set; the lazy deadline lives in the payload */
	uint32_t gen;        /* odd while live, even while free */
	uint32_t link;       /* live: twheel_link(chunk, slot); free: see twheel_slab.c */
};

/*
 * A chunk of a list: its links and as many slab indices as fill the rest of
 * one cache line, 14 on 64-byte lines, 30 on 128-byte ones (so the chunk
 * never doubles in size to waste half a line).
 */
#define TWHEEL_CHUNK_REFS (RTE_CACHE_LINE_SIZE / 4 - 2)
/* slot bits of a link: enough for TWHEEL_CHUNK_REFS - 1 */
#define TWHEEL_LINK_SLOT_BITS (RTE_CACHE_LINE_SIZE > 64 ? 5 : 4)
struct twheel_chunk {
	uint32_t next;       /* older (full) chunk of the same list, or NIL */
	uint32_t list;       /* the list this chunk belongs to */
	uint32_t ref[TWHEEL_CHUNK_REFS];
} __rte_cache_aligned;

/* A live entry's link: where its index sits, chunk and slot. */
static inline uint32_t
twheel_link(uint32_t chunk, uint32_t slot)
{
	return (chunk << TWHEEL_LINK_SLOT_BITS) | slot;
}

static inline uint32_t
twheel_link_chunk(uint32_t link)
{
	return link >> TWHEEL_LINK_SLOT_BITS;
}

static inline uint32_t
twheel_link_slot(uint32_t link)
{
	return link & ((UINT32_C(1) << TWHEEL_LINK_SLOT_BITS) - 1);
}

/* A list of entries; lists are swapped between buckets and pending. */
#define TWHEEL_BUCKET_PENDING UINT32_MAX
struct twheel_list {
	uint32_t head;       /* newest chunk, or NIL when empty */
	uint32_t fill;       /* indices used in the head chunk, 1..TWHEEL_CHUNK_REFS */
	uint32_t bucket;     /* the bucket owning this list, or BUCKET_PENDING */
	uint32_t unused;
};

struct twheel_slab;

/*
 * Counters written by the owner only, read by anyone: the owner stores with
 * relaxed atomics (a plain mov on x86), readers load with relaxed atomics.
 */
struct twheel_owner_stats {
	uint64_t live, scheduled, cancelled, due, revisits;
	uint64_t remote_cancels, remote_schedules, remote_stale, rejected;
	uint64_t sweeps, budget_exhausted, max_lag_cycles;
};

#define TWHEEL_STAT_ADD(w, field, n) \
	twheel_atomic_store(&(w)->st.field, (w)->st.field + (n))
#define TWHEEL_STAT_SUB(w, field, n) \
	twheel_atomic_store(&(w)->st.field, (w)->st.field - (n))

struct rte_mempool;
struct rte_ring;
struct twheel_lane;

struct twheel {
	/* owner-only hot state, first lines */
	uint8_t *slab_base;          /* == slab->base */
	uint32_t stride;
	uint32_t mask;               /* slots - 1 */
	struct twheel_slab *slab;
	struct twheel_chunk *chunks;
	struct twheel_list *lists;   /* slots + 1 lists */
	uint32_t *bucket_list;       /* bucket -> list index */
	uint64_t *bitmap;            /* bucket non-empty bits */
	uint32_t chunk_free;         /* free chunk LIFO, or NIL */
	uint32_t pending;            /* list index of the pending list */
	uint32_t free_head;          /* free stack: newest chunk, or NIL */
	uint32_t free_fill;          /* indices in free_head's chunk */
	uint64_t cursor;             /* next tick to detach */
	uint64_t end_tick;           /* tick(UINT64_MAX) + 1: the end of time */
	uint64_t now;                /* latest now seen by a sweep */
	uint64_t tick_cycles;
	struct rte_reciprocal_u64 tick_div;
	uint8_t tick_shift;          /* tick_cycles == 1 << tick_shift, or 0xff */
	twheel_deadline_fn deadline_fn;
	void *deadline_arg;
	twheel_adopt_fn adopt_fn;
	void *adopt_arg;
	uint16_t nb_lanes;           /* one per EAL lcore at create */
	uint16_t nb_chan;            /* lanes + the shared ring; 0: none */
	uint16_t chan_next;          /* where the next apply starts */
	uint32_t capacity;
	uint32_t slots;
	uint32_t salt;               /* even; added to generations in ids */
	int socket_id;
	uint64_t rotation_cycles;    /* slots * tick_cycles, saturated */

	struct twheel_owner_stats st __rte_cache_aligned;

	/* read by remote producers and the owner, written at create only */
	struct rte_ring *ring __rte_cache_aligned; /* the shared ring, or NULL */
	struct twheel_lane *lanes;   /* nb_lanes lanes, or NULL */
	uint16_t lane_of[RTE_MAX_LCORE]; /* lcore id -> lane index + 1; 0: none */

	/* written by the shared ring's producers (atomic add) */
	uint64_t remote_full __rte_cache_aligned;

	/* control path */
	struct rte_mempool *mp __rte_cache_aligned;
	size_t bucket_bytes;
	size_t lane_bytes;
	TAILQ_ENTRY(twheel) next;
	char name[TWHEEL_NAME_MAX_LEN + 1];
};

static inline struct twheel_entry *
twheel_entry_at(const struct twheel *w, uint32_t idx)
{
	return (struct twheel_entry *)(w->slab_base + (size_t)idx * w->stride);
}

/* The chunk that holds a live entry's index. */
static inline struct twheel_chunk *
twheel_entry_chunk(const struct twheel *w, const struct twheel_entry *e)
{
	return &w->chunks[twheel_link_chunk(e->link)];
}

/* An entry's 24 bytes may straddle two lines (stride 48): fetch both. */
static inline void
twheel_entry_prefetch(const struct twheel_entry *e)
{
	rte_prefetch0(e);
	rte_prefetch0((const uint8_t *)e + sizeof(*e) - 1);
}

#endif /* _TWHEEL_LAYOUT_H_ */
