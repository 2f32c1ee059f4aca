/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Per-lcore flow table: a slab of struct fx_flow, one cache line per flow,
 * and an index from the symmetric 5-tuple (fx_key) to the flow's slot.
 *
 * The index is ours rather than an rte_hash because of what a lookup
 * reads. At a million flows every line is a cache miss: rte_hash reads
 * both candidate buckets and then the key store, and the flow's line is a
 * fourth. Here the index is a bucket index (base/index.h): a bucket is one
 * cache line of (tag, slot) pairs, the tag being the key's 32-bit keyed
 * hash, and the key is compared in the flow's own line, which the packet
 * needs anyway: a hit reads two lines, the bucket and the flow, and a
 * burst's lookups prefetch all their buckets first, then all their
 * candidate flows (ft_prefetch, ft_candidate), so the misses overlap.
 *
 * There are at least 1.75 pairs per slab slot (a power of two of buckets,
 * at least a quarter of the slots), so a table at max_flows uses at most
 * 51 % of the pairs and few keys spill (the unit test measures it). No
 * lookup reads more than FX_IX_PROBE_MAX buckets: an add whose home bucket
 * and the ones after it within the bound are full fails with -EOVERFLOW
 * (the index's `full` count), which the worker treats as a full table.
 * Slots come from a stack of free slots; removal finds the pair by tag and
 * slot, without comparing keys.
 *
 * Only the owner lcore changes the table. The main lcore reads the slab to
 * find flows for the control path (flush by prefix, route change), with
 * one rte_seqcount per flow (the single-writer core of rte_seqlock: the
 * owner is the only writer, so the seqlock's spinlock is not needed). The
 * count is odd while the slot holds no published flow: a free slot is in
 * a write section that the owner ends when it publishes a fully written
 * flow (ft_publish) and begins again when it unpublishes it
 * (ft_unpublish), before the slot can be reused. ft_snapshot() copies expiry_id
 * and key in a read section: an odd count, or one that moved, means no
 * live flow. Ids are never reused (twheel ids carry a generation, the
 * other back-ends count), so a snapshot that is stale by the time it is
 * used can only lead to a request the owner recognises as stale. Workers
 * take no lock, and a reader never makes the owner wait.
 *
 * Back-ends without twheel's remote ring (rte_timer, scan) receive the
 * control path's delete requests on the table's own ring (main -> owner,
 * single producer, single consumer) and check the expiry_id before deleting.
 */

#ifndef _FX_FLOW_TABLE_H_
#define _FX_FLOW_TABLE_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_seqcount.h>

#include "base/hash.h"
#include "base/index.h"
#include "fwd/parse.h"

/** fx_flow.nexthop[]: route not resolved yet. */
#define FX_NEXTHOP_UNKNOWN 0xff

/** One tracked connection; one cache line. */
struct fx_flow {
	uint64_t expire;     /**< TSC deadline; a hit stores now + timeout. */
	uint64_t expiry_id;        /**< Flow id (twheel id or count); 0: slot free. */
	struct fx_key key;   /**< The index's key (ft_add writes it). */
	rte_seqcount_t seq;  /**< Odd while no published flow is here (ft_snapshot). */
	uint8_t nexthop[2];  /**< Next hop by packet direction (the cached route). */
	uint8_t flags;       /**< FX_FLOW_* (flow/state.h). */
	uint8_t tmo;         /**< Timeout class (enum fx_tmo, base/timeouts.h) of expire. */
} __rte_cache_aligned;

/** A delete request sent to the owner (back-ends without remote cancel). */
struct fx_del_req {
	uint64_t expiry_id;
	uint32_t slot;
	uint32_t pad;
};

/** The slab holds max_flows plus this fraction (1/8) more. */
#define FX_FT_HEADROOM 8u

struct fx_flow_table {
	struct fx_index ix;           /**< key hash -> slot */
	struct fx_flow *flows;        /**< capacity entries, by slot. */
	uint32_t capacity;            /**< slab length: max_flows + headroom */
	uint32_t n_free;              /**< slots on the free stack */
	uint32_t *free;               /**< free slots; the top is taken first */
	struct rte_ring *del_ring;    /**< NULL unless requested at create. */
};

/** The key's keyed hash (base/hash.h), as the table and the affinity use it. */
static inline uint32_t
ft_hash(const struct fx_key *key)
{
	RTE_BUILD_BUG_ON(sizeof(*key) % 8 != 0);
	return fx_hash_words(key, sizeof(*key) / 8);
}

/** The home bucket of a hash. */
static inline uint32_t
ft_home(const struct fx_flow_table *ft, uint32_t hash)
{
	return fx_ix_home(&ft->ix, hash);
}

/** Start reading the bucket a lookup of hash will read first. */
static inline void
ft_prefetch(const struct fx_flow_table *ft, uint32_t hash)
{
	fx_ix_prefetch(&ft->ix, hash);
}

/* 8 bytes of a key, the i-th word (one load) */
static inline uint64_t
ft_key_word(const struct fx_key *k, unsigned int i)
{
	uint64_t w;

	memcpy(&w, (const uint8_t *)k + 8 * i, sizeof(w));
	return w;
}

/*
 * Keys compared as five 8-byte words. Word by word, so the compiler loads
 * them: a copy of each key into an array compiles to two `rep movs` per
 * compare, some 50 cycles a packet in the worker.
 */
static inline bool
ft_key_eq(const struct fx_key *a, const struct fx_key *b)
{
	return ((ft_key_word(a, 0) ^ ft_key_word(b, 0)) |
		(ft_key_word(a, 1) ^ ft_key_word(b, 1)) |
		(ft_key_word(a, 2) ^ ft_key_word(b, 2)) |
		(ft_key_word(a, 3) ^ ft_key_word(b, 3)) |
		(ft_key_word(a, 4) ^ ft_key_word(b, 4))) == 0;
}

/** The slot of key (hash), or -ENOENT. Owner only. */
int32_t ft_lookup(const struct fx_flow_table *ft, const struct fx_key *key,
		  uint32_t hash);

/**
 * First half of a lookup: the slot of the first pair in hash's home bucket
 * whose tag matches, with that flow's line prefetched; -ENOENT if the key
 * cannot be in the table, -EAGAIN if it is not in its home bucket but
 * may have spilled past it. Read the bucket after it was prefetched
 * (ft_prefetch): the worker prefetches a burst's buckets, then reads them.
 */
static inline int32_t
ft_candidate(const struct fx_flow_table *ft, uint32_t hash)
{
	int64_t c = fx_ix_candidate(&ft->ix, hash);

	if (c >= 0)
		rte_prefetch0(&ft->flows[c]);
	return (int32_t)c;
}

/**
 * Second half: the slot of key, given what ft_candidate() returned for its
 * hash (and nothing changed in the table since), or -ENOENT. The key
 * is compared in the candidate flow's line; a different key with an equal
 * tag, or a key that may have spilled, takes the whole lookup.
 */
static inline int32_t
ft_confirm(const struct fx_flow_table *ft, const struct fx_key *key,
	   uint32_t hash, int32_t cand)
{
	if (likely(cand >= 0) && likely(ft_key_eq(&ft->flows[cand].key, key)))
		return cand;
	if (cand == -ENOENT)
		return -ENOENT;
	return ft_lookup(ft, key, hash);
}

/**
 * The slot of key, added with its hash if it was not there: the
 * flow's key and hash are written, and *added tells which. -ENOSPC when
 * every slot is taken, -EOVERFLOW when the index has no pair for it within
 * FX_IX_PROBE_MAX buckets (counted in ft->ix.full); nothing changed then.
 * Owner only.
 */
int32_t ft_add(struct fx_flow_table *ft, const struct fx_key *key,
	       uint32_t hash, bool *added);

/**
 * Whether an add of a key with hash would find a pair in the index
 * (it is not refused with -EOVERFLOW), given a free slot. Owner only.
 */
bool ft_has_room(const struct fx_flow_table *ft, uint32_t hash);

/**
 * Remove the flow in slot, whose key has hash (ft_hash() of its key,
 * or what ft_add() was given), from the index and free the slot. Owner
 * only.
 */
void ft_remove(struct fx_flow_table *ft, uint32_t slot, uint32_t hash);

/**
 * Create the index and the slab for max_flows flows (with headroom, see
 * flow/table.c) and, if del_ring, the request ring; all on socket. name is
 * at most 20 characters. 0 or a negative errno.
 */
int ft_create(struct fx_flow_table *ft, const char *name, uint32_t max_flows,
	      int socket, bool del_ring);
void ft_free(struct fx_flow_table *ft);

/** Slot index of a flow in the slab. */
static inline uint32_t
ft_slot(const struct fx_flow_table *ft, const struct fx_flow *f)
{
	return (uint32_t)(f - ft->flows);
}

/** Make a fully written flow visible to the main lcore. Owner only. */
static inline void
ft_publish(struct fx_flow *f, uint64_t expiry_id)
{
	f->expiry_id = expiry_id;
	/* ends the slot's write section: a reader that sees the count even
	 * sees the key and expiry_id written before (release) */
	rte_seqcount_write_end(&f->seq);
}

/**
 * First half of removing a flow: unpublish it (expiry_id = 0), so neither the
 * main lcore nor an expiry back-end sees it again. Its key stays in the
 * index, and its slot taken, until ft_delete_bulk(). Owner only.
 */
static inline void
ft_unpublish(struct fx_flow *f)
{
	/* the count goes odd before expiry_id and, at a later reuse, the key
	 * change (a release fence after the count's store) */
	rte_seqcount_write_begin(&f->seq);
	f->expiry_id = 0;
}

/**
 * Second half: remove n unpublished flows, whose keys have the hashes
 * hash[], from the index, which frees their slots. Their buckets are
 * prefetched together first, so the cache misses overlap instead of
 * following one another.
 * Owner only; no packet may be processed between the two halves.
 */
void ft_delete_bulk(struct fx_flow_table *ft, struct fx_flow *const *f,
		    const uint32_t *hash, unsigned int n);

/**
 * Read a flow's expiry_id and key consistently, from any thread.
 * @return 1 with *expiry_id and *key filled if the slot held a live flow, else 0.
 */
int ft_snapshot(const struct fx_flow *f, uint64_t *expiry_id, struct fx_key *key);

/** Ask the owner to delete flow expiry_id in slot; any one thread. 0 or -ENOBUFS. */
int ft_request_delete(struct fx_flow_table *ft, uint32_t slot, uint64_t expiry_id);

/**
 * Owner: take at most n delete requests; for each one whose flow is still
 * live with that expiry_id, call del(f, arg). Returns requests taken.
 */
unsigned int ft_apply_requests(struct fx_flow_table *ft, unsigned int n,
			       void (*del)(struct fx_flow *f, void *arg),
			       void *arg);

#endif /* _FX_FLOW_TABLE_H_ */
