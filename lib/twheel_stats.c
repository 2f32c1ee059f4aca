/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Statistics and memory accounting, readable from any thread.
 *
 * The owner stores each counter with a relaxed atomic store (its only
 * writer, so the read-modify-write needs no lock prefix); readers load each
 * with a relaxed atomic load. A reader therefore never sees a torn value,
 * but the counters are not a snapshot of one instant: live may be read
 * before and scheduled after the same schedule call. remote_full is the
 * one counter producers write: each lane's producer its own, on its line,
 * and the shared ring's producers one with an atomic add; the reader adds
 * them up.
 *
 * The memory figures are read from what twheel_create() made: the entry
 * mempool's memory chunks and object sizes, the bucket structures' sizes
 * as allocated, the lanes as allocated and the ring's size as DPDK
 * computes it.
 */

#include <errno.h>
#include <stddef.h>

#include <rte_mempool.h>

#include "twheel_atomic.h"
#include "twheel_layout.h"
#include "twheel_remote.h"

#define LOAD(f) twheel_atomic_load(&w->st.f)

void
twheel_stats_get(const struct twheel *w, struct twheel_stats *st)
{
	st->live = LOAD(live);
	st->scheduled = LOAD(scheduled);
	st->cancelled = LOAD(cancelled);
	st->due = LOAD(due);
	st->revisits = LOAD(revisits);
	st->remote_cancels = LOAD(remote_cancels);
	st->remote_schedules = LOAD(remote_schedules);
	st->remote_stale = LOAD(remote_stale);
	st->remote_full = twheel_remote_full(w);
	st->rejected = LOAD(rejected);
	st->sweeps = LOAD(sweeps);
	st->budget_exhausted = LOAD(budget_exhausted);
	st->max_lag_cycles = LOAD(max_lag_cycles);
}

static void
add_chunk_len(struct rte_mempool *mp __rte_unused, void *arg,
	      struct rte_mempool_memhdr *memhdr, unsigned int mem_idx __rte_unused)
{
	*(size_t *)arg += memhdr->len;
}

void
twheel_mem_info_get(const struct twheel *w, struct twheel_mem_info *mi)
{
	size_t slab = 0;

	rte_mempool_mem_iter(w->mp, add_chunk_len, &slab);
	mi->slab_bytes = slab;
	mi->bucket_bytes = w->bucket_bytes;
	mi->ring_bytes = twheel_remote_bytes(w);
	mi->wheel_bytes = sizeof(*w);
	mi->total_bytes = mi->slab_bytes + mi->bucket_bytes + mi->ring_bytes +
		mi->wheel_bytes;
	mi->capacity = w->capacity;
}

int
twheel_slab_info_get(const struct twheel *w, struct twheel_slab_info *si)
{
	if (w == NULL || si == NULL)
		return -EINVAL;
	si->mempool_name = w->mp->name;
	si->header_size = w->mp->header_size;
	si->entry_size = w->mp->elt_size;
	si->trailer_size = w->mp->trailer_size;
	si->stride = w->stride;
	si->capacity = w->mp->size;
	return 0;
}
