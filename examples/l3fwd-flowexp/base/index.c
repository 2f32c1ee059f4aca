/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The bucket index's set-up, insert and removal (base/index.h has the
 * design): an insert first finds its pair within the bound and only then
 * writes anything, so a refused one changes nothing.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "base/atomic.h"
#include "base/index.h"

int
fx_ix_create(struct fx_index *ix, const char *name, uint32_t min_buckets,
	     int socket)
{
	uint32_t nb;

	RTE_BUILD_BUG_ON(sizeof(struct fx_ix_bucket) != RTE_CACHE_LINE_SIZE);
	memset(ix, 0, sizeof(*ix));
	if (min_buckets == 0 || min_buckets > (UINT32_C(1) << 31))
		return -EINVAL;
	/* at least two: the multiplicative home needs a shift below 32 */
	nb = rte_align32pow2(RTE_MAX(min_buckets, 2u));
	ix->b = rte_zmalloc_socket(name, (size_t)nb * sizeof(*ix->b),
				   RTE_CACHE_LINE_SIZE, socket);
	if (ix->b == NULL)
		return -ENOMEM;
	ix->mask = nb - 1;
	ix->shift = 32 - rte_bsf32(nb);
	return 0;
}

void
fx_ix_free(struct fx_index *ix)
{
	rte_free(ix->b);
	memset(ix, 0, sizeof(*ix));
}

int
fx_ix_insert(struct fx_index *ix, uint32_t hash, uint32_t ref)
{
	uint32_t home = fx_ix_home(ix, hash), b = home, j;
	struct fx_ix_bucket *bk;
	unsigned int i;

	for (i = 0; i < FX_IX_PROBE_MAX; i++, b = fx_ix_next(ix, b)) {
		bk = &ix->b[b];
		for (j = 0; j < FX_IX_PAIRS; j++)
			if (bk->tag[j] == 0)
				goto found;
	}
	/* the owner is the only writer: relaxed stores, read whole by the
	 * statistics (base/atomic.h) */
	fx_store_relaxed(&ix->full, ix->full + 1);
	if (ix->lines_max < FX_IX_PROBE_MAX)
		fx_store_relaxed(&ix->lines_max, FX_IX_PROBE_MAX);
	return -EOVERFLOW;
found:
	bk->ref[j] = ref;
	bk->tag[j] = fx_ix_tag(hash);
	/* the key passes the full buckets between its home and here */
	for (; home != b; home = fx_ix_next(ix, home))
		ix->b[home].spilled++;
	if (ix->lines_max < i + 1)
		fx_store_relaxed(&ix->lines_max, i + 1);   /* as above */
	return 0;
}

bool
fx_ix_remove(struct fx_index *ix, uint32_t hash, uint32_t ref)
{
	uint32_t home = fx_ix_home(ix, hash), tag = fx_ix_tag(hash), b = home, j;
	struct fx_ix_bucket *bk;
	unsigned int i;

	for (i = 0; i < FX_IX_PROBE_MAX; i++, b = fx_ix_next(ix, b)) {
		bk = &ix->b[b];
		for (j = 0; j < FX_IX_PAIRS; j++)
			if (bk->tag[j] == tag && bk->ref[j] == ref)
				goto found;
		if (bk->spilled == 0)
			return false;
	}
	return false;
found:
	bk->tag[j] = 0;
	/* the key no longer passes the buckets between its home and here */
	for (; home != b; home = fx_ix_next(ix, home))
		ix->b[home].spilled--;
	return true;
}
