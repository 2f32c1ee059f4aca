/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The wheel's private layout, shared by the library's files.
 *
 * Three kinds of memory, all allocated by twheel_create() on the wheel's
 * socket and never again:
 *
 *   slab     entries in an rte_mempool driven by our own "twheel_slab"
 *            mempool ops (twheel_slab.c). Objects are laid out back to back
 *            in one chunk, so entry <-> index is base + index * stride. The
 *            free entries' indices are a stack of chunks (below,
 *            twheel_slab.h); the generation survives in the free entry, so
 *            a reused slot gets a new id.
 *
 *   lists    one list per bucket plus one "pending" list (twheel_bucket.c).
 *            A list is a chain of one-cache-line chunks of slab indices
 *            (14 to a 64-byte line); only its newest chunk is partly filled. An entry records where its index
 *            sits (chunk, slot), so removal swaps the list's last index into
 *            the hole: O(1), no tombstones, and a sweep reads indices 14 at a
 *            time and can prefetch the entries and payloads it will need.
 *
 *   bitmap   one bit per bucket: set while the bucket's list is non-empty, so
 *            a sweep after a long pause skips empty buckets 64 at a time.
 *
 * The free stack holds free entries' indices in chunks from the same pool:
 * a free index costs no more memory than a filed one, and allocation reads
 * indices 14 to a line, so the entry it will hand out next is prefetched
 * before it is needed. (A list threaded through the free entries would
 * make every allocation wait for the previous entry's line: after churn, a
 * dependent cache miss per schedule.)
 *
 * The pending list holds the entries a sweep must examine next: the bucket
 * it detached (so it can stop mid-bucket and resume) and entries scheduled
 * at or before the latest sweep's now (they fire at the next sweep).
 */

#ifndef _TWHEEL_PRIVATE_H_
#define _TWHEEL_PRIVATE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_prefetch.h>
#include <rte_reciprocal.h>

#include "twheel.h"

extern int twheel_logtype;
#define TWHEEL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, twheel_logtype, "TWHEEL: " fmt "\n", ## __VA_ARGS__)

/* "no index" in 32-bit links */
#define TWHEEL_NIL UINT32_MAX

/*
 * The only place the library names the compiler's __atomic builtins
 * (DPDK 22.11 has no rte_atomic_*_explicit; 23.11 does, and checkpatch
 * refuses the builtins). Relaxed ordering is all the library needs: one
 * writer per counter, readers that want no snapshot.
 */
#define twheel_atomic_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define twheel_atomic_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define twheel_atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

/*
 * An entry: 24 bytes (RTE_BUILD_BUG_ON in twheel_create.c), behind the
 * mempool's 24-byte object header: a stride of 48.
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
 * never doubles in size to waste half a line). Layout claims are
 * RTE_BUILD_BUG_ONs in twheel_lists_init().
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

struct twheel;
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
	struct rte_ring *ring;       /* remote messages, or NULL */
	uint32_t capacity;
	uint32_t slots;
	uint32_t salt;               /* even; added to generations in ids */
	int socket_id;
	uint64_t rotation_cycles;    /* slots * tick_cycles, saturated */

	struct twheel_owner_stats st __rte_cache_aligned;

	/* written by remote producers (atomic add) */
	uint64_t remote_full __rte_cache_aligned;

	/* control path */
	struct rte_mempool *mp __rte_cache_aligned;
	size_t bucket_bytes;
	TAILQ_ENTRY(twheel) next;
	char name[TWHEEL_NAME_MAX_LEN + 1];
};

/* Entry <-> index ------------------------------------------------------ */

static inline struct twheel_entry *
twheel_entry_at(const struct twheel *w, uint32_t idx)
{
	return (struct twheel_entry *)(w->slab_base + (size_t)idx * w->stride);
}

/*
 * Ids are wheel-specific: the high half is the generation plus the wheel's
 * salt (twheel_create.c). The salt is even, so a live id's high half is odd
 * like its generation and 0 is never valid; every wheel starts with all
 * generations at 0, but the first id of one wheel is not another's, nor
 * that of an earlier wheel of the same name. One add each way, on the
 * line that holds the capacity the id check reads anyway.
 */
static inline twheel_id_t
twheel_make_id(uint32_t idx, uint32_t gen, uint32_t salt)
{
	return ((uint64_t)(uint32_t)(gen + salt) << 32) | idx;
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

/* The live entry an id names, or NULL. */
static inline struct twheel_entry *
twheel_entry_of_id(const struct twheel *w, twheel_id_t id)
{
	uint32_t idx = (uint32_t)id;
	uint32_t gen = (uint32_t)(id >> 32) - w->salt;
	struct twheel_entry *e;

	if (unlikely(idx >= w->capacity))
		return NULL;
	e = twheel_entry_at(w, idx);
	/* even generations are free slots, so a forged even id never matches */
	if (unlikely(e->gen != gen || (gen & 1) == 0))
		return NULL;
	return e;
}

/* Names --------------------------------------------------------------- */

/*
 * The name of a DPDK object of the wheel (mempool, ring): the prefix, the
 * length of the wheel's name, '_', the name ("TW3_x_0" for "x_0"). DPDK
 * derives memzone names by appending ("MP_<pool>", "MP_<pool>_<n>",
 * "RG_<ring>"); with the length up front no two wheel names, of any
 * characters, can give the same string, where "TW_x" + "_0" and "TW_x_0"
 * did.
 */
static inline void
twheel_object_name(char *buf, size_t size, const char *prefix,
		   const char *name)
{
	/* the checker caps names at TWHEEL_NAME_MAX_LEN (20): two digits */
	uint8_t len = (uint8_t)strnlen(name, TWHEEL_NAME_MAX_LEN);

	snprintf(buf, size, "%s%u_%.*s", prefix, len, (int)len, name);
}

/* Time ----------------------------------------------------------------- */

/* Highest tick; keeps end_tick = tick(UINT64_MAX) + 1 from wrapping. */
#define TWHEEL_TICK_MAX (UINT64_MAX - 1)

static inline uint64_t
twheel_tick(const struct twheel *w, uint64_t t)
{
	uint64_t tick;

	if (w->tick_shift != 0xff)
		tick = t >> w->tick_shift;
	else
		tick = rte_reciprocal_divide_u64(t, &w->tick_div);
	return tick > TWHEEL_TICK_MAX ? TWHEEL_TICK_MAX : tick;
}

static inline uint64_t
twheel_current_deadline(const struct twheel *w, const struct twheel_entry *e)
{
	if (w->deadline_fn != NULL)
		return w->deadline_fn(e->payload, w->deadline_arg);
	return e->deadline;
}

/* Slab (twheel_slab.c; the inline free stack: twheel_slab.h) ------------- */

int twheel_slab_ops_ready(void);
extern const char twheel_slab_ops_name[];

/* Lists and buckets (twheel_bucket.c) ------------------------------------- */

int twheel_lists_init(struct twheel *w);
void twheel_lists_free(struct twheel *w);

void twheel_bucket_detach(struct twheel *w, uint32_t bucket);
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

/* Shared by local and remote schedule (twheel_ops.c). */
twheel_id_t twheel_entry_add(struct twheel *w, uint64_t deadline, void *payload);

/* Registry and telemetry (twheel_registry.c) ------------------------------ */

int twheel_registry_add(struct twheel *w);
void twheel_registry_remove(struct twheel *w);
bool twheel_registry_has(const char *name);
void twheel_registry_foreach(void (*fn)(const struct twheel *w, void *arg),
			     void *arg);
int twheel_registry_with(const char *name,
			 int (*fn)(const struct twheel *w, void *arg),
			 void *arg);
/*
 * Register the telemetry commands, once per process (twheel_telemetry.c).
 * Called by a constructor and again by twheel_registry_add(): the call is
 * what keeps twheel_telemetry.o in a program that links libtwheel.a
 * without --whole-archive.
 */
void twheel_telemetry_register(void);

/* Remote ring (twheel_remote.c) ------------------------------------------- */

int twheel_remote_init(struct twheel *w, uint32_t ring_size);
void twheel_remote_free(struct twheel *w);
size_t twheel_remote_bytes(const struct twheel *w);
unsigned int twheel_remote_apply(struct twheel *w, unsigned int max_msgs,
				 struct twheel_fired *out, unsigned int *nb_out);

#endif /* _TWHEEL_PRIVATE_H_ */
