/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Packet times for --clock pcap (clock.h): the rx timestamp field, runs
 * of packets with one capture time, and the jump at the end of a capture.
 */

#include <rte_common.h>
#include <rte_errno.h>

#include "clock.h"
#include "expiry.h"
#include "lcore.h"
#include "stats.h"

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

void
fx_clock_idle(struct fx_lcore *lc, uint64_t tsc)
{
	uint64_t jump = 0, last = fx_stats_last_rx();
	unsigned int t;

	/* another worker's packet may be newer than this worker's tsc */
	if (last == 0 || last == lc->clk.jumped_rx || last > tsc ||
	    tsc - last < rte_get_tsc_hz() / 1000 * FX_CLOCK_IDLE_MS)
		return;
	for (t = 0; t < FX_TMO_MAX; t++)
		jump = RTE_MAX(jump, lc->tmo_cycles[t]);
	lc->clk.jumped_rx = last;
	clock_advance(lc, lc->clk.vnow + jump + lc->nat.holddown_cycles + rte_get_tsc_hz());
}
