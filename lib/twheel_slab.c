/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The entry slab: an rte_mempool with a mempool driver of our own.
 *
 * Why a driver: the stock ring drivers keep free objects in an rte_ring of
 * pointers rounded up to a power of two, 8 to 16 bytes per entry on top of
 * the 24-byte object header and the 24-byte entry, which would break the
 * 64-byte budget at 1M entries. Entries are single-owner, so the free list
 * needs no ring at all.
 *
 * Until the wheel owns the pool (while the mempool library populates it),
 * free objects are counted and threaded through their link field. Then
 * twheel_slab_adopt() makes the free entries a stack of index chunks like
 * the buckets' (twheel_slab.h: a LIFO that hands back the most recently
 * freed, cache-warm entry first, costs no memory, and lets an allocation
 * prefetch the entries it will hand out next), and twheel_slab_disown()
 * empties the pool's own list again before the wheel's chunks are freed.
 *
 * The pool is populated from one memory chunk, objects back to back with a
 * fixed stride, so entry <-> index is base + index * stride; a second chunk
 * (the socket too fragmented for one) is refused and create fails with
 * ENOMEM. The wheel pops and pushes its free stack inline (twheel_slab.h);
 * the callbacks below serve the mempool library itself (populate,
 * rte_mempool_avail_count(), dump, audit), so both views stay consistent.
 *
 * An entry's generation is never touched here: it survives in the free
 * entry and moves on when the wheel reuses the slot.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "twheel_atomic.h"
#include "twheel_layout.h"
#include "twheel_slab.h"

const char twheel_slab_ops_name[] = "twheel_slab";

static int slab_ops_index = -ENOTSUP;

static inline uint32_t
slab_index(const struct twheel_slab *s, const void *obj)
{
	return (uint32_t)rte_reciprocal_divide_u64(
		(uint64_t)((const uint8_t *)obj - s->base), &s->stride_div);
}

static int
slab_alloc(struct rte_mempool *mp)
{
	struct twheel_slab *s;

	s = rte_zmalloc_socket("twheel_slab", sizeof(*s), RTE_CACHE_LINE_SIZE,
			       mp->socket_id);
	if (s == NULL)
		return -ENOMEM;
	s->stride = mp->header_size + mp->elt_size + mp->trailer_size;
	s->stride_div = rte_reciprocal_value_u64(s->stride);
	s->capacity = mp->size;
	s->free_head = TWHEEL_NIL;
	mp->pool_data = s;
	return 0;
}

static void
slab_free(struct rte_mempool *mp)
{
	rte_free(mp->pool_data);
}

/*
 * Free objects. The wheel does not count its free entries on its fast
 * path: they are those not live (its statistics).
 */
static unsigned int
slab_get_count(const struct rte_mempool *mp)
{
	const struct twheel_slab *s = mp->pool_data;

	if (s->owner != NULL)
		return s->capacity - (uint32_t)
			twheel_atomic_load(&s->owner->st.live);
	return s->free_count;
}

/*
 * Once a wheel owns the slab, its entries are the wheel's alone: an object
 * handed out by rte_mempool_get() would look live to an id check (its
 * generation odd) without being filed anywhere, so a forged id could reach
 * it. rte_mempool_get() and rte_mempool_put() on the pool are refused.
 */

static int
slab_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	struct twheel_slab *s = mp->pool_data;
	unsigned int i;

	if (s->owner != NULL)
		return -ENOTSUP;
	for (i = 0; i < n; i++) {
		struct twheel_entry *e = objs[i];
		uint32_t idx = slab_index(s, e);

		e->link = s->free_head;
		s->free_head = idx;
	}
	s->free_count += n;
	return 0;
}

static int
slab_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	struct twheel_slab *s = mp->pool_data;
	unsigned int i;

	if (s->owner != NULL)
		return -ENOTSUP;
	if (s->free_count < n)
		return -ENOBUFS;
	for (i = 0; i < n; i++) {
		struct twheel_entry *e = (struct twheel_entry *)
			(s->base + (size_t)s->free_head * s->stride);

		objs[i] = e;
		s->free_head = e->link;
	}
	s->free_count -= n;
	return 0;
}


static int
slab_populate(struct rte_mempool *mp, unsigned int max_objs, void *vaddr,
	      rte_iova_t iova, size_t len,
	      rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg)
{
	struct twheel_slab *s = mp->pool_data;
	int ret;

	/* entry <-> index arithmetic needs every object in one chunk */
	if (s->populated != 0 ||
	    len < (size_t)s->stride * s->capacity)
		return -ENOMEM;
	/* fresh entries have generation 0: free, and no id matches them */
	memset(vaddr, 0, len);
	s->base = (uint8_t *)vaddr + mp->header_size;
	ret = rte_mempool_op_populate_helper(mp, 0, max_objs, vaddr, iova, len,
					     obj_cb, obj_cb_arg);
	if (ret > 0)
		s->populated += ret;
	return ret;
}

void
twheel_slab_adopt(struct twheel *w)
{
	uint32_t i;

	/* every entry is free; the lowest index is handed out first */
	w->free_head = TWHEEL_NIL;
	w->free_fill = 0;
	for (i = w->capacity; i-- > 0;)
		twheel_free_push(w, i);
	w->slab->owner = w;
}

void
twheel_slab_disown(struct twheel *w)
{
	/*
	 * The free stack goes with the chunks: rte_mempool_free() dequeues
	 * every object before it frees the memory, so leave it nothing to
	 * walk.
	 */
	if (w->slab != NULL && w->slab->owner == w) {
		w->slab->owner = NULL;
		w->slab->free_head = TWHEEL_NIL;
		w->slab->free_count = 0;
	}
}

static const struct rte_mempool_ops twheel_slab_ops = {
	.name = "twheel_slab",
	.alloc = slab_alloc,
	.free = slab_free,
	.enqueue = slab_enqueue,
	.dequeue = slab_dequeue,
	.get_count = slab_get_count,
	.populate = slab_populate,
};

RTE_INIT(twheel_slab_register)
{
	slab_ops_index = rte_mempool_register_ops(&twheel_slab_ops);
}

int
twheel_slab_ops_ready(void)
{
	return slab_ops_index < 0 ? -ENOTSUP : 0;
}
