/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The handoff ring's set-up and teardown (worker/handoff_ring.h has the
 * design and the fast path).
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "worker/handoff_ring.h"

size_t
fx_ho_ring_bytes(uint32_t size)
{
	return sizeof(struct fx_ho_ring) + (size_t)size * sizeof(void *);
}

struct fx_ho_ring *
fx_ho_ring_create(uint32_t size, int socket)
{
	struct fx_ho_ring *r;

	if (size < 2 || !rte_is_power_of_2(size)) {
		rte_errno = EINVAL;
		return NULL;
	}
	r = rte_zmalloc_socket("fx_ho_ring", fx_ho_ring_bytes(size), FX_HO_RING_ALIGN,
			       socket);
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	r->mask = size - 1;
	r->cmask = size - 1;
	return r;
}

void
fx_ho_ring_free(struct fx_ho_ring *r)
{
	rte_free(r);
}
