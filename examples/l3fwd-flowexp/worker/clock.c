/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Packet times for --clock pcap (worker/clock.h): the rx timestamp field, runs
 * of packets with one capture time, and the jump at the end of a capture.
 */

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include "base/atomic.h"
#include "boot/affinity.h"
#include "ctl/stats.h"
#include "expiry/expiry.h"
#include "worker/clock.h"
#include "worker/lcore.h"

int fx_clock_ts_offset = -1;
uint64_t fx_clock_ts_flag;
uint64_t fx_clock_hz;

int
fx_clock_init(enum fx_clock_src src)
{
	fx_clock_hz = rte_get_tsc_hz();
	if (src != FX_CLOCK_PCAP)
		return 0;
	/* the same field and flag net_pcap registered at probe */
	if (rte_mbuf_dyn_rx_timestamp_register(&fx_clock_ts_offset,
					       &fx_clock_ts_flag) != 0)
		return -rte_errno;
	return 0;
}

/* time moves to t (never back) and everything due by then expires,
 * whatever the budget */
static void
clock_advance(struct fx_lcore *lc, uint64_t t)
{
	uint64_t t0 = rte_rdtsc();

	if (t > lc->clk.vnow)
		lc->clk.vnow = t;
	lc->now = lc->clk.vnow;
	while (fx_expiry_poll(lc))
		;
	FX_STAT_ADD(&lc->st, expiry_cycles, rte_rdtsc() - t0);
}

uint16_t
fx_clock_run(struct fx_lcore *lc, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t = fx_clock_pkt(pkts[0], lc->clk.vnow);
	uint16_t j;

	for (j = 1; j < n && fx_clock_pkt(pkts[j], lc->clk.vnow) == t; j++)
		;
	clock_advance(lc, t);
	return j;
}

/* is a packet waiting in a ring from another worker? */
static bool
handoff_waiting(const struct fx_lcore *lc)
{
	uint16_t s;

	if (!fx_handoff_active || lc->ho.in == NULL)
		return false;
	for (s = 0; s < lc->ho.nb_workers; s++)
		if (lc->ho.in[s] != NULL && rte_ring_count(lc->ho.in[s]) != 0)
			return true;
	return false;
}

void
fx_clock_idle(struct fx_lcore *lc, uint64_t tsc, bool idle)
{
	uint64_t jump = 0, since, last = fx_stats_last_rx();
	uint64_t wait = rte_get_tsc_hz() / 1000 * FX_CLOCK_IDLE_MS;
	unsigned int t, w;

	/* idle_since: release, so a worker that sees this one idle sees the
	 * packets it handed over before (pairs with the acquire below) */
	if (!idle) {
		if (lc->idle_since != 0)
			fx_store_release(&lc->idle_since, 0);
		return;
	}
	if (lc->idle_since == 0)
		fx_store_release(&lc->idle_since, tsc);
	if (last == 0 || last == lc->clk.jumped_rx)
		return;
	for (w = 0; w < fx_nb_workers; w++) {
		since = fx_load_acquire(&fx_workers[w]->idle_since);
		if (since == 0 || since > tsc || tsc - since < wait)
			return;
	}
	/* handed over before its sender went idle, after this one polled */
	if (handoff_waiting(lc))
		return;
	for (t = 0; t < FX_TMO_MAX; t++)
		jump = RTE_MAX(jump, lc->tmo_cycles[t]);
	lc->clk.jumped_rx = last;
	clock_advance(lc, lc->clk.vnow + jump + lc->nat.holddown_cycles + rte_get_tsc_hz());
}

void
fx_clock_busy(struct fx_lcore *lc)
{
	if (likely(lc->idle_since == 0))
		return;
	/* this store before the burst's statistics (fx_workers_idle()) */
	fx_store_relaxed(&lc->idle_since, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
fx_clock_mark_idle(struct fx_lcore *lc, uint64_t tsc, bool idle)
{
	if (idle && lc->idle_since == 0)
		fx_store_release(&lc->idle_since, tsc);
	else if (!idle && lc->idle_since != 0)
		fx_store_release(&lc->idle_since, 0);
}

bool
fx_workers_idle(uint64_t now, uint64_t wait)
{
	uint64_t since;
	unsigned int w;

	/* the statistics read before, idle_since after (fx_clock_busy()) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (w = 0; w < fx_nb_workers; w++) {
		since = fx_load_acquire(&fx_workers[w]->idle_since);
		if (since == 0 || since > now || now - since <= wait)
			return false;
	}
	return true;
}
