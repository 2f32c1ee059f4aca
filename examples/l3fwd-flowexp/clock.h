/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Where a worker's time comes from (--clock).
 *
 *   tsc   the TSC, read once per burst (the default, and what production
 *         runs on);
 *   pcap  the packets' own capture times: net_pcap puts each packet's
 *         pcap timestamp (microseconds) in the mbuf's rx timestamp dynamic
 *         field, in every DPDK version the example supports. Times are
 *         turned into TSC cycles (us * hz / 1e6), so timeouts, the wheels
 *         and the statistics keep their units. A test can replay hours of
 *         traffic in a second, and the expiries are exact: before a packet
 *         is handled, everything due by its time has been expired,
 *         whatever the budget (worker.c).
 *
 * A packet without the timestamp flag (another PMD) keeps the worker's
 * current time.
 */

#ifndef _FX_CLOCK_H_
#define _FX_CLOCK_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

enum fx_clock_src {
	FX_CLOCK_TSC,
	FX_CLOCK_PCAP,
};

extern int fx_clock_ts_offset;
extern uint64_t fx_clock_ts_flag;
extern uint64_t fx_clock_hz;

/** --clock pcap: wall time with every worker idle after which time jumps (worker.c). */
#define FX_CLOCK_IDLE_MS 100

/** Start-up: find the rx timestamp field for --clock pcap. 0 or -errno. */
int fx_clock_init(enum fx_clock_src src);

/** The capture time of m in TSC cycles, or `now` if it has none. */
static inline uint64_t
fx_clock_pkt(const struct rte_mbuf *m, uint64_t now)
{
	uint64_t us;

	if (!(m->ol_flags & fx_clock_ts_flag))
		return now;
	us = *RTE_MBUF_DYNFIELD(m, fx_clock_ts_offset, rte_mbuf_timestamp_t *);
	return (uint64_t)((unsigned __int128)us * fx_clock_hz / 1000000u);
}

#endif /* _FX_CLOCK_H_ */
