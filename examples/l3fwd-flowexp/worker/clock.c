/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Packet times for --clock pcap (worker/clock.h): the rx timestamp field,
 * runs of packets with one capture time, and when a capture has ended;
 * every worker's idle state, for that and for --exit-when-drained.
 */

#include <rte_common.h>
#include <rte_cycles.h>

#include "base/atomic.h"
#include "worker/clock.h"

/* every worker's clock, registered before launch */
static struct fx_clock *clocks[RTE_MAX_LCORE];
static unsigned int nb_clocks;

void
fx_clock_register(struct fx_clock *c)
{
	RTE_VERIFY(nb_clocks < RTE_DIM(clocks));
	clocks[nb_clocks++] = c;
}

uint16_t
fx_clock_run(const struct fx_clock *c, struct rte_mbuf **pkts, uint16_t n,
	     uint64_t *t)
{
	uint64_t t0 = fx_clock_pkt(pkts[0], c->vnow);
	uint16_t j;

	for (j = 1; j < n && fx_clock_pkt(pkts[j], c->vnow) == t0; j++)
		;
	*t = t0;
	return j;
}

bool
fx_clock_idle(struct fx_clock *c, uint64_t tsc, bool idle, uint64_t last_rx)
{
	uint64_t wait = rte_get_tsc_hz() / 1000 * FX_CLOCK_IDLE_MS, since;
	unsigned int w;

	/* idle_since: release, so a worker that sees this one idle sees the
	 * packets it handed over before (pairs with the acquire below) */
	if (!idle) {
		if (c->idle_since != 0)
			fx_store_release(&c->idle_since, 0);
		return false;
	}
	if (c->idle_since == 0)
		fx_store_release(&c->idle_since, tsc);
	if (last_rx == 0 || last_rx == c->jumped_rx)
		return false;
	for (w = 0; w < nb_clocks; w++) {
		since = fx_load_acquire(&clocks[w]->idle_since);
		if (since == 0 || since > tsc || tsc - since < wait)
			return false;
	}
	return true;
}

void
fx_clock_busy(struct fx_clock *c)
{
	if (likely(c->idle_since == 0))
		return;
	/* this store before the burst's statistics (fx_clocks_idle()) */
	fx_store_relaxed(&c->idle_since, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
fx_clock_mark_idle(struct fx_clock *c, uint64_t tsc, bool idle)
{
	if (idle && c->idle_since == 0)
		fx_store_release(&c->idle_since, tsc);
	else if (!idle && c->idle_since != 0)
		fx_store_release(&c->idle_since, 0);
}

bool
fx_clocks_idle(uint64_t now, uint64_t wait)
{
	uint64_t since;
	unsigned int w;

	/* the statistics read before, idle_since after (fx_clock_busy()) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (w = 0; w < nb_clocks; w++) {
		since = fx_load_acquire(&clocks[w]->idle_since);
		if (since == 0 || since > now || now - since <= wait)
			return false;
	}
	return true;
}
