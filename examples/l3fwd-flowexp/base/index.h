/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A bucket index with bounded probes: what the flow table (flow/table.h)
 * and the NAT table (nat/table.h) find their records with.
 *
 * A bucket is one cache line of (tag, ref) pairs: the tag is a key's
 * 32-bit keyed hash (base/hash.h) with its low bit set, so that 0 marks an
 * empty pair; ref is the owner's (a slot, a record and a direction). The
 * key itself is compared by the owner in its record, which the caller
 * reads anyway, so a hit reads two lines: the bucket and the record.
 *
 * A key's home bucket is picked by a multiplicative hash of its tag. A
 * full bucket spills to the next (wrapping), and each bucket counts the
 * keys that passed it, full, on the way from their home, so a lookup stops
 * at the first bucket whose count is zero. And it never reads more than
 * FX_IX_PROBE_MAX buckets: an insert that finds no empty pair in its home
 * and the FX_IX_PROBE_MAX - 1 buckets after it is refused (-EOVERFLOW,
 * counted in `full`) and changes nothing, so no key, however many others
 * share its home bucket, lengthens any lookup past the bound. With the
 * keyed hash an attacker who does not know the secret cannot aim keys at
 * one bucket; one who knows it fills one run of FX_IX_PROBE_MAX buckets
 * and is then refused, while other keys whose home lies in that run read
 * at most FX_IX_PROBE_MAX lines and spill past it (doc/security.md).
 *
 * The bound. The owners size the index at 1.75 pairs or more per key they
 * admit (at most 57 % of the pairs used; 51 % for the flow table at
 * max_flows). At 51 %, filled and then churned by random removals and new
 * keys, about 3 keys in 10^5 sit 5 or more buckets past their home, 3 in
 * 10^6 six or more, and about one add in several million finds all 8
 * buckets full (flow_table_test prints the distribution): a bound of 8
 * refuses next to nothing a legitimate load makes, where 4 would refuse
 * about one new key in 10^4.
 *
 * Only the owner lcore changes an index; `full` and `lines_max` are read
 * by other threads (relaxed, single writer).
 */

#ifndef _FX_INDEX_H_
#define _FX_INDEX_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "base/atomic.h"

/** (tag, ref) pairs per bucket: one cache line with the spill count. */
#define FX_IX_PAIRS (RTE_CACHE_LINE_SIZE / 8 - 1)

/** Buckets one lookup or insert reads at most: the home and 7 spills. */
#define FX_IX_PROBE_MAX 8

struct fx_ix_bucket {
	uint32_t tag[FX_IX_PAIRS];  /**< hash | 1; 0: the pair is empty */
	uint32_t spilled;           /**< keys that passed this bucket, full */
	uint32_t ref[FX_IX_PAIRS];  /**< the owner's reference */
	uint32_t unused;
} __rte_cache_aligned;

struct fx_index {
	struct fx_ix_bucket *b;
	uint32_t shift;             /**< 32 - log2(number of buckets) */
	uint32_t mask;              /**< number of buckets - 1 */
	uint64_t full;              /**< inserts refused at the bound */
	uint64_t lines_max;         /**< most buckets one insert (with its lookup) read */
};

/**
 * An index of at least min_buckets buckets (a power of two), on socket.
 * 0, -EINVAL (0 or more than 2^31) or -ENOMEM.
 */
int fx_ix_create(struct fx_index *ix, const char *name, uint32_t min_buckets,
		 int socket);
void fx_ix_free(struct fx_index *ix);

/** The tag a hash is stored under. */
static inline uint32_t
fx_ix_tag(uint32_t hash)
{
	return hash | 1;
}

/** The home bucket of a hash. */
static inline uint32_t
fx_ix_home(const struct fx_index *ix, uint32_t hash)
{
	return (hash * 0x9e3779b1u) >> ix->shift;
}

/** The bucket after b, wrapping. */
static inline uint32_t
fx_ix_next(const struct fx_index *ix, uint32_t b)
{
	return (b + 1) & ix->mask;
}

/** Start reading the bucket a lookup of hash reads first. */
static inline void
fx_ix_prefetch(const struct fx_index *ix, uint32_t hash)
{
	rte_prefetch0(&ix->b[fx_ix_home(ix, hash)]);
}

/**
 * First half of a lookup: the ref of the first pair in hash's home bucket
 * whose tag matches (as a non-negative number); -ENOENT if no key of this
 * hash can be in the index, -EAGAIN if one may have spilled past its home
 * bucket. Read the bucket after it was prefetched (fx_ix_prefetch).
 */
static inline int64_t
fx_ix_candidate(const struct fx_index *ix, uint32_t hash)
{
	const struct fx_ix_bucket *b = &ix->b[fx_ix_home(ix, hash)];
	uint32_t tag = fx_ix_tag(hash);
	unsigned int j;

	for (j = 0; j < FX_IX_PAIRS; j++)
		if (b->tag[j] == tag)
			return b->ref[j];
	return b->spilled != 0 ? -EAGAIN : -ENOENT;
}

/**
 * The whole lookup: the ref of the first pair with hash's tag for which
 * eq(ref, arg) holds, in the buckets a lookup of hash may read (at most
 * FX_IX_PROBE_MAX); -ENOENT if there is none. eq compares the key in the
 * owner's record.
 */
static inline int64_t
fx_ix_find(const struct fx_index *ix, uint32_t hash,
	   bool (*eq)(uint32_t ref, const void *arg), const void *arg)
{
	uint32_t b = fx_ix_home(ix, hash), tag = fx_ix_tag(hash);
	const struct fx_ix_bucket *bk;
	unsigned int i, j;

	for (i = 0; i < FX_IX_PROBE_MAX; i++, b = fx_ix_next(ix, b)) {
		bk = &ix->b[b];
		for (j = 0; j < FX_IX_PAIRS; j++)
			if (bk->tag[j] == tag && eq(bk->ref[j], arg))
				return bk->ref[j];
		if (bk->spilled == 0)
			break;
	}
	return -ENOENT;
}

/** Whether an insert of hash would find an empty pair within the bound. */
static inline bool
fx_ix_room(const struct fx_index *ix, uint32_t hash)
{
	uint32_t b = fx_ix_home(ix, hash);
	unsigned int i, j;

	for (i = 0; i < FX_IX_PROBE_MAX; i++, b = fx_ix_next(ix, b))
		for (j = 0; j < FX_IX_PAIRS; j++)
			if (ix->b[b].tag[j] == 0)
				return true;
	return false;
}

/**
 * Add (hash, ref); the caller knows the key is not in the index. 0, or
 * -EOVERFLOW with nothing changed (and `full` counted) when the home
 * bucket and the FX_IX_PROBE_MAX - 1 after it are full.
 */
int fx_ix_insert(struct fx_index *ix, uint32_t hash, uint32_t ref);

/**
 * Remove the pair (hash, ref). Returns whether it was there.
 */
bool fx_ix_remove(struct fx_index *ix, uint32_t hash, uint32_t ref);

/** Buckets in the index. */
static inline uint32_t
fx_ix_buckets(const struct fx_index *ix)
{
	return ix->mask + 1;
}

#endif /* _FX_INDEX_H_ */
