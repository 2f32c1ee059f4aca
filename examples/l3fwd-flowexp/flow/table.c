/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Flow table set-up, the slow paths of its index (a lookup past the first
 * candidate, add, remove: base/index.h), the main lcore's consistent read of
 * a slot, and the delete-request ring (see flow/table.h for the index and
 * the publication protocol).
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

#include "base/index.h"
#include "flow/table.h"

#define FX_DEL_RING_SIZE 4096

int
ft_create(struct fx_flow_table *ft, const char *name, uint32_t max_flows,
	  int socket, bool del_ring)
{
	uint32_t capacity = max_flows + RTE_MAX(max_flows / FX_FT_HEADROOM, 64u);
	char rname[RTE_RING_NAMESIZE];
	uint32_t i;
	int rc;

	RTE_BUILD_BUG_ON(sizeof(struct fx_key) != 40);
	RTE_BUILD_BUG_ON(sizeof(struct fx_flow) != RTE_CACHE_LINE_SIZE);
	memset(ft, 0, sizeof(*ft));
	if (max_flows == 0 || max_flows > (UINT32_MAX / 4) * 3)
		return -EINVAL;
	/* a power of two, at least a quarter of the slots (1.75 pairs each) */
	rc = fx_ix_create(&ft->ix, "fx_buckets", (capacity + 3) / 4, socket);
	if (rc != 0)
		return rc;
	ft->flows = rte_zmalloc_socket("fx_flows",
				       (size_t)capacity * sizeof(struct fx_flow),
				       RTE_CACHE_LINE_SIZE, socket);
	ft->free = rte_malloc_socket("fx_free", (size_t)capacity * sizeof(uint32_t),
				     0, socket);
	if (ft->flows == NULL || ft->free == NULL) {
		ft_free(ft);
		return -ENOMEM;
	}
	/* slot 0 on top: a new table fills the slab in order; every free
	 * slot is in a write section (flow/table.h) */
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
	rte_free(ft->free);
	fx_ix_free(&ft->ix);
	memset(ft, 0, sizeof(*ft));
}

struct key_arg {
	const struct fx_flow_table *ft;
	const struct fx_key *key;
};

/* the index's key compare: in the flow's line */
static inline bool
key_at(uint32_t slot, const void *arg)
{
	const struct key_arg *a = arg;

	return ft_key_eq(&a->ft->flows[slot].key, a->key);
}

int32_t
ft_lookup(const struct fx_flow_table *ft, const struct fx_key *key, uint32_t hash)
{
	struct key_arg a = { .ft = ft, .key = key };

	return (int32_t)fx_ix_find(&ft->ix, hash, key_at, &a);
}

bool
ft_has_room(const struct fx_flow_table *ft, uint32_t hash)
{
	return fx_ix_room(&ft->ix, hash);
}

int32_t
ft_add(struct fx_flow_table *ft, const struct fx_key *key, uint32_t hash,
       bool *added)
{
	uint32_t slot;
	int32_t pos;

	*added = false;
	pos = ft_lookup(ft, key, hash);
	if (pos >= 0)
		return pos;
	if (ft->n_free == 0)
		return -ENOSPC;
	slot = ft->free[ft->n_free - 1];
	/* the slot is in its write section: no reader uses its key */
	ft->flows[slot].key = *key;
	if (fx_ix_insert(&ft->ix, hash, slot) != 0)
		return -EOVERFLOW;    /* the slot stays free */
	ft->n_free--;
	*added = true;
	return (int32_t)slot;
}

void
ft_remove(struct fx_flow_table *ft, uint32_t slot, uint32_t hash)
{
	/* not in the index: nothing to free */
	if (fx_ix_remove(&ft->ix, hash, slot))
		ft->free[ft->n_free++] = slot;
}

void
ft_delete_bulk(struct fx_flow_table *ft, struct fx_flow *const *f,
	       const uint32_t *hash, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ft_prefetch(ft, hash[i]);
	for (i = 0; i < n; i++)
		ft_remove(ft, ft_slot(ft, f[i]), hash[i]);
}

int
ft_snapshot(const struct fx_flow *f, uint64_t *expiry_id, struct fx_key *key)
{
	uint32_t sn;
	uint64_t id;

	/* pairs with ft_publish()'s write end (acquire) */
	sn = rte_seqcount_read_begin(&f->seq);
	id = f->expiry_id;
	memcpy(key, &f->key, sizeof(*key));
	/* odd: no published flow here; moved: unpublished meanwhile, and
	 * the copy may be torn */
	if (rte_seqcount_read_retry(&f->seq, sn))
		return 0;
	*expiry_id = id;
	return 1;
}

int
ft_request_delete(struct fx_flow_table *ft, uint32_t slot, uint64_t expiry_id)
{
	struct fx_del_req r = { .expiry_id = expiry_id, .slot = slot };

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
			if (f->expiry_id != 0 && f->expiry_id == req[i].expiry_id)
				del(f, arg);
		}
		total += got;
	}
	return total;
}
