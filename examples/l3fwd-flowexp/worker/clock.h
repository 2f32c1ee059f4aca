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
 *         traffic in a second, and the expiries are exact: the worker
 *         handles a burst in runs of packets with one capture time
 *         (fx_clock_run()), and before each run everything due by its
 *         time has been expired, whatever the budget.
 *
 * A packet without the timestamp flag (another PMD) keeps the worker's
 * current time. When every worker has been idle for FX_CLOCK_IDLE_MS of
 * wall time the capture has ended: time jumps past every timeout and
 * hold-down, once per idle period, and everything still tracked expires
 * (fx_clock_idle()). A worker is idle from the first loop iteration that
 * polled all its rx queues and rings and got nothing, until one that gets
 * a packet: a worker that is still reading its queue may yet hand a
 * packet to another, however long it was kept off the CPU, so a wall-time
 * gap since the last packet received is not enough.
 */

#ifndef _FX_CLOCK_H_
#define _FX_CLOCK_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "base/config.h"

struct fx_lcore;

extern int fx_clock_ts_offset;
extern uint64_t fx_clock_ts_flag;
extern uint64_t fx_clock_hz;

/** --clock pcap: wall time with every worker idle after which time jumps. */
#define FX_CLOCK_IDLE_MS 100

/** A worker's packet clock (owner only). */
struct fx_clock {
	uint64_t vnow;        /**< the latest packet time, TSC cycles */
	uint64_t jumped_rx;   /**< the last packet's TSC when time last jumped */
};

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

/** The worker's time for an expiry poll when the TSC reads tsc. */
static inline uint64_t
fx_clock_now(const struct fx_clock *c, uint64_t tsc)
{
	return likely(fx_conf.clock == FX_CLOCK_TSC) ? tsc : c->vnow;
}

/**
 * --clock pcap, owner: the number of packets at the front of pkts (n > 0)
 * that share the first one's capture time; the worker's time is moved to
 * it (never back) and everything due by then has expired.
 */
uint16_t fx_clock_run(struct fx_lcore *lc, struct rte_mbuf **pkts, uint16_t n);

/**
 * --clock pcap, owner, once per loop iteration at TSC tsc; idle: the
 * iteration polled every rx queue and ring and got nothing. Once every
 * worker has been idle for FX_CLOCK_IDLE_MS, time jumps past every
 * timeout and hold-down.
 */
void fx_clock_idle(struct fx_lcore *lc, uint64_t tsc, bool idle);

/**
 * --clock pcap or --exit-when-drained, owner: a poll got packets, which
 * it has not counted yet. The worker stops being idle before anything it
 * does with them can be seen: the fence orders this store before the
 * burst's statistics, and a reader that loads those, then (after an
 * acquire fence) idle_since, and finds it still set, read statistics
 * from before the burst (fx_workers_idle()).
 */
void fx_clock_busy(struct fx_lcore *lc);

/**
 * --exit-when-drained, owner, once per loop iteration (TSC mode; under
 * --clock pcap fx_clock_idle() does it): idle from the first iteration
 * that polled everything and got nothing.
 */
void fx_clock_mark_idle(struct fx_lcore *lc, uint64_t tsc, bool idle);

/**
 * Main lcore, --exit-when-drained: whether every worker has been idle for
 * more than `wait` TSC cycles at now, its last burst handled whole; call
 * after reading the statistics the decision rests on.
 */
bool fx_workers_idle(uint64_t now, uint64_t wait);

#endif /* _FX_CLOCK_H_ */
