/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Flow table set-up, the index's slow paths (a lookup past the first
 * candidate, add, remove), the main lcore's consistent read of a slot,
 * and the delete-request ring (see flow_table.h for the index and the
 * publication protocol).
 *
 * The slab holds max_flows plus an eighth (FX_FT_HEADROOM): the worker
 * enforces max_flows itself, and flows it removed wait for the next
 * ft_delete_bulk() before their slots are free again.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "flow_table.h"

#define FX_DEL_RING_SIZE 4096

int
ft_create(struct fx_flow_table *ft, const char *name, uint32_t max_flows,
	  int socket, bool del_ring)
{
	uint32_t capacity = max_flows + RTE_MAX(max_flows / FX_FT_HEADROOM, 64u);
	char rname[RTE_RING_NAMESIZE];
	uint32_t nb, i;

	RTE_BUILD_BUG_ON(sizeof(struct fx_key) != 40);
	RTE_BUILD_BUG_ON(sizeof(struct fx_flow) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct ft_bucket) != RTE_CACHE_LINE_SIZE);
	memset(ft, 0, sizeof(*ft));
	if (max_flows == 0 || max_flows > (UINT32_MAX / 4) * 3)
		return -EINVAL;
	/* a power of two, at least a quarter of the slots (1.75 pairs each) */
	nb = rte_align32pow2(RTE_MAX((capacity + 3) / 4, 2u));
	ft->bucket_mask = nb - 1;
	ft->bucket_shift = 32 - rte_bsf32(nb);
	ft->buckets = rte_zmalloc_socket("fx_buckets", (size_t)nb * sizeof(struct ft_bucket),
					 RTE_CACHE_LINE_SIZE, socket);
	ft->flows = rte_zmalloc_socket("fx_flows",
				       (size_t)capacity * sizeof(struct fx_flow),
				       RTE_CACHE_LINE_SIZE, socket);
	ft->free = rte_malloc_socket("fx_free", (size_t)capacity * sizeof(uint32_t),
				     0, socket);
	if (ft->buckets == NULL || ft->flows == NULL || ft->free == NULL) {
		ft_free(ft);
		return -ENOMEM;
	}
	/* slot 0 on top: a new table fills the slab in order; every free
	 * slot is in a write section (flow_table.h) */
	for (i = 0; i < capacity; i++) {
		ft->free[i] = capacity - 1 - i;
		rte_seqcount_write_begin(&ft->flows[i].seq);
	}
	ft->n_free = capacity;
	ft->capacity = capacity;
	if (del_ring) {
		snprintf(rname, sizeof(rname), "FXD_%s", name);
		ft->del_ring = rte_ring_create_elem(rname,
				sizeof(struct fx_del_req), FX_DEL_RING_SIZE,
				socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ft->del_ring == NULL) {
			ft_free(ft);
			return -(rte_errno ? rte_errno : ENOMEM);
		}
	}
	return 0;
}

void
ft_free(struct fx_flow_table *ft)
{
	rte_ring_free(ft->del_ring);
	rte_free(ft->flows);
	rte_free(ft->buckets);
	rte_free(ft->free);
	memset(ft, 0, sizeof(*ft));
}

static inline uint32_t
ft_next(const struct fx_flow_table *ft, uint32_t b)
{
	return (b + 1) & ft->bucket_mask;
}

int32_t
ft_lookup(const struct fx_flow_table *ft, const struct fx_key *key, uint32_t sig)
{
	uint32_t b = ft_home(ft, sig), tag = sig | 1, j;
	const struct ft_bucket *bk;

	for (;;) {
		bk = &ft->buckets[b];
		for (j = 0; j < FT_BUCKET_PAIRS; j++)
			if (bk->tag[j] == tag &&
			    ft_key_eq(&ft->flows[bk->slot[j]].key, key))
				return (int32_t)bk->slot[j];
		if (bk->spilled == 0)
			return -ENOENT;
		b = ft_next(ft, b);
	}
}

int32_t
ft_add(struct fx_flow_table *ft, const struct fx_key *key, uint32_t sig,
       bool *added)
{
	uint32_t b, tag = sig | 1, slot, j;
	struct ft_bucket *bk;
	struct fx_flow *f;
	int32_t pos;

	*added = false;
	pos = ft_lookup(ft, key, sig);
	if (pos >= 0)
		return pos;
	if (ft->n_free == 0)
		return -ENOSPC;
	slot = ft->free[--ft->n_free];
	f = &ft->flows[slot];
	f->key = *key;   /* the slot is in its write section: no reader uses it */
	/* more pairs than slots: a free pair is always found */
	for (b = ft_home(ft, sig);; b = ft_next(ft, b)) {
		bk = &ft->buckets[b];
		for (j = 0; j < FT_BUCKET_PAIRS; j++) {
			if (bk->tag[j] == 0) {
				bk->slot[j] = slot;
				bk->tag[j] = tag;
				*added = true;
				return (int32_t)slot;
			}
		}
		bk->spilled++;
	}
}

void
ft_remove(struct fx_flow_table *ft, uint32_t slot, uint32_t sig)
{
	uint32_t home = ft_home(ft, sig);
	uint32_t tag = sig | 1, b = home, j;
	struct ft_bucket *bk;

	for (;;) {
		bk = &ft->buckets[b];
		for (j = 0; j < FT_BUCKET_PAIRS; j++)
			if (bk->tag[j] == tag && bk->slot[j] == slot)
				goto found;
		if (bk->spilled == 0)
			return;       /* not in the index: nothing to free */
		b = ft_next(ft, b);
	}
found:
	bk->tag[j] = 0;
	/* the key no longer passes the buckets between its home and here */
	for (; home != b; home = ft_next(ft, home))
		ft->buckets[home].spilled--;
	ft->free[ft->n_free++] = slot;
}

void
ft_delete_bulk(struct fx_flow_table *ft, struct fx_flow *const *f,
	       const uint32_t *sig, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ft_prefetch(ft, sig[i]);
	for (i = 0; i < n; i++)
		ft_remove(ft, ft_slot(ft, f[i]), sig[i]);
}

int
ft_snapshot(const struct fx_flow *f, uint64_t *fid, struct fx_key *key)
{
	uint32_t sn;
	uint64_t id;

	/* pairs with ft_publish()'s write end (acquire) */
	sn = rte_seqcount_read_begin(&f->seq);
	id = f->fid;
	memcpy(key, &f->key, sizeof(*key));
	/* odd: no published flow here; moved: unpublished meanwhile, and
	 * the copy may be torn */
	if (rte_seqcount_read_retry(&f->seq, sn))
		return 0;
	*fid = id;
	return 1;
}

int
ft_request_delete(struct fx_flow_table *ft, uint32_t slot, uint64_t fid)
{
	struct fx_del_req r = { .fid = fid, .slot = slot };

	if (ft->del_ring == NULL)
		return -ENOTSUP;
	if (rte_ring_enqueue_elem(ft->del_ring, &r, sizeof(r)) != 0)
		return -ENOBUFS;
	return 0;
}

unsigned int
ft_apply_requests(struct fx_flow_table *ft, unsigned int n,
		  void (*del)(struct fx_flow *f, void *arg), void *arg)
{
	struct fx_del_req req[32];
	unsigned int got, i, total = 0;
	struct fx_flow *f;

	if (ft->del_ring == NULL)
		return 0;
	while (total < n) {
		got = rte_ring_dequeue_burst_elem(ft->del_ring, req, sizeof(req[0]),
				RTE_MIN(n - total, RTE_DIM(req)), NULL);
		if (got == 0)
			break;
		for (i = 0; i < got; i++) {
			if (req[i].slot >= ft->capacity)
				continue;
			f = &ft->flows[req[i].slot];
			if (f->fid != 0 && f->fid == req[i].fid)
				del(f, arg);
		}
		total += got;
	}
	return total;
}
