/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Where time comes from (--clock).
 *
 *   tsc   the TSC, read once per burst (the default, and what production
 *         runs on);
 *   pcap  the packets' own capture times: net_pcap puts each packet's
 *         pcap timestamp (microseconds) in the mbuf's rx timestamp dynamic
 *         field, in every DPDK version the example supports. Times are
 *         turned into TSC cycles (us * hz / 1e6), so timeouts, the wheels
 *         and the statistics keep their units, and a test can replay
 *         hours of traffic in a second. A packet without the timestamp
 *         flag (another PMD) keeps the current time.
 * How a worker follows the capture's time is worker/clock.h; the main
 * lcore reads packet times here too (neighbours, the NAT log).
 */

#ifndef _FX_TIME_H_
#define _FX_TIME_H_

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "base/config.h"

extern int fx_clock_ts_offset;
extern uint64_t fx_clock_ts_flag;
extern uint64_t fx_clock_hz;

/** Start-up: the TSC rate, and the rx timestamp field for --clock pcap. 0 or -errno. */
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

#endif /* _FX_TIME_H_ */
