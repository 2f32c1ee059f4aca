/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The eviction FIFO of --table-full evict (see flow/evict.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "flow/evict.h"
#include "flow/state.h"

int
fx_evict_init(struct fx_evict *e, uint32_t capacity, int socket)
{
	uint32_t n = rte_align32pow2(capacity);

	memset(e, 0, sizeof(*e));
	e->q = rte_malloc_socket("fx_evict", sizeof(*e->q) * n, RTE_CACHE_LINE_SIZE,
				 socket);
	if (e->q == NULL)
		return -ENOMEM;
	e->mask = n - 1;
	return 0;
}

void
fx_evict_fini(struct fx_evict *e)
{
	rte_free(e->q);
	memset(e, 0, sizeof(*e));
}

struct fx_flow *
fx_evict_pick(struct fx_evict *e, struct fx_flow_table *ft)
{
	const struct fx_evict_ent *x;
	struct fx_flow *f;
	unsigned int n;

	for (n = 0; n < FX_EVICT_SCAN && e->head != e->tail; n++) {
		x = &e->q[e->head++ & e->mask];
		f = &ft->flows[x->slot];
		if (f->expiry_id == x->expiry_id && !(f->flags & FX_FLOW_REPLIED)) {
			/* the next pick's flow line, so that it is not a miss then */
			if (e->head != e->tail)
				rte_prefetch0(&ft->flows[e->q[e->head & e->mask].slot]);
			return f;
		}
	}
	return NULL;
}
