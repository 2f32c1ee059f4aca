/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The slow path's set-up (fwd/slowpath.h): the mbuf dynamic field that
 * carries the reason and next hop, and one ring per worker towards the
 * main lcore, made on the worker's socket before launch.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "fwd/slowpath.h"
#include "worker/lcore.h"

int fx_slow_off = -1;

int
fx_slow_init(void)
{
	static const struct rte_mbuf_dynfield f = {
		.name = "l3fwd_flowexp_slow",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};
	struct fx_lcore *lc;
	char name[RTE_RING_NAMESIZE];
	unsigned int w;

	fx_slow_off = rte_mbuf_dynfield_register(&f);
	if (fx_slow_off < 0)
		return -rte_errno;
	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		snprintf(name, sizeof(name), "fx_slow_%u", lc->lcore_id);
		lc->fwd.slow = rte_ring_create(name, FX_SLOW_RING,
					   (int)rte_lcore_to_socket_id(lc->lcore_id),
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (lc->fwd.slow == NULL)
			return -rte_errno;
	}
	return 0;
}

struct rte_ring *
fx_slow_ring(unsigned int w)
{
	return fx_workers[w]->fwd.slow;
}

void
fx_slow_fini(void)
{
	struct rte_mbuf *m;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		if (fx_workers[w]->fwd.slow == NULL)
			continue;
		while (rte_ring_sc_dequeue(fx_workers[w]->fwd.slow, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(fx_workers[w]->fwd.slow);
		fx_workers[w]->fwd.slow = NULL;
	}
}
