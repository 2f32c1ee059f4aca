/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The slow path's set-up (fwd/slowpath.h): the mbuf dynamic field that
 * carries the reason and next hop, and one ring per worker towards the
 * main lcore, made on the worker's socket before launch.
 *
 * The rings are this file's own, kept by worker index: whoever sets the
 * workers up gives their lcores (fx_slow_init()) and hands each worker
 * its ring (fx_slow_ring()); the main lcore drains them by the same
 * index. Nothing here knows a worker's context. Every call is made on
 * the main lcore, before the workers are launched or after they have
 * stopped: no atomics.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "fwd/slowpath.h"

int fx_slow_off = -1;

static struct rte_ring *slow_rings[RTE_MAX_LCORE];   /* by worker index */
static unsigned int nb_slow_rings;

int
fx_slow_init(const unsigned int *worker_lcore, unsigned int nb_workers)
{
	static const struct rte_mbuf_dynfield f = {
		.name = "l3fwd_flowexp_slow",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	unsigned int w;

	if (nb_workers > RTE_DIM(slow_rings))
		return -EINVAL;
	fx_slow_off = rte_mbuf_dynfield_register(&f);
	if (fx_slow_off < 0)
		return -rte_errno;
	for (w = 0; w < nb_workers; w++) {
		snprintf(name, sizeof(name), "fx_slow_%u", worker_lcore[w]);
		r = rte_ring_create(name, FX_SLOW_RING,
				    (int)rte_lcore_to_socket_id(worker_lcore[w]),
				    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r == NULL)
			return -rte_errno;
		slow_rings[nb_slow_rings++] = r;
	}
	return 0;
}

struct rte_ring *
fx_slow_ring(unsigned int w)
{
	return w < nb_slow_rings ? slow_rings[w] : NULL;
}

void
fx_slow_fini(void)
{
	struct rte_mbuf *m;
	unsigned int w;

	for (w = 0; w < nb_slow_rings; w++) {
		while (rte_ring_sc_dequeue(slow_rings[w], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(slow_rings[w]);
		slow_rings[w] = NULL;
	}
	nb_slow_rings = 0;
}
