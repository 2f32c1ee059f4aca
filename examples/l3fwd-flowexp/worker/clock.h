/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * How a worker follows time (--clock, base/time.h has the sources).
 *
 * Under --clock pcap the expiries are exact: the worker handles a burst
 * in runs of packets with one capture time (fx_clock_run()), and before
 * each run its time moves to the run's (never back) and everything due
 * by then has been expired, whatever the budget (worker/worker.c).
 *
 * When every worker has been idle for FX_CLOCK_IDLE_MS of wall time the
 * capture has ended: time jumps past every timeout and hold-down, once
 * per idle period, and everything still tracked expires (fx_clock_idle(),
 * fx_clock_jump()). A worker is idle from the first loop iteration that
 * polled all its rx queues and rings and got nothing, until one that gets
 * a packet: a worker that is still reading its queue may yet hand a
 * packet to another, however long it was kept off the CPU, so a wall-time
 * gap since the last packet received is not enough. --exit-when-drained
 * reads the same idle states (fx_clocks_idle()).
 */

#ifndef _FX_CLOCK_H_
#define _FX_CLOCK_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "base/time.h"

/** --clock pcap: wall time with every worker idle after which time jumps. */
#define FX_CLOCK_IDLE_MS 100

/** A worker's clock. */
struct fx_clock {
	/* owner only */
	uint64_t vnow;        /**< the latest packet time, TSC cycles */
	uint64_t jumped_rx;   /**< the last packet's TSC when time last jumped */
	/* written by the owner, read by the other workers and the main lcore */
	uint64_t idle_since __rte_cache_aligned;   /**< TSC since its polls found nothing (0: busy) */
};

/** The worker's time for an expiry poll when the TSC reads tsc. */
static inline uint64_t
fx_clock_now(const struct fx_clock *c, uint64_t tsc)
{
	return likely(fx_conf.clock == FX_CLOCK_TSC) ? tsc : c->vnow;
}

/**
 * Before launch: count clock c among the workers' (fx_clock_idle(),
 * fx_clocks_idle() look at every one). Main lcore.
 */
void fx_clock_register(struct fx_clock *c);

/**
 * --clock pcap, owner: the number of packets at the front of pkts (n > 0)
 * that share the first one's capture time, which goes in *t.
 */
uint16_t fx_clock_run(const struct fx_clock *c, struct rte_mbuf **pkts,
		      uint16_t n, uint64_t *t);

/** --clock pcap, owner: time moves to t, never back. Returns the time. */
static inline uint64_t
fx_clock_advance(struct fx_clock *c, uint64_t t)
{
	if (t > c->vnow)
		c->vnow = t;
	return c->vnow;
}

/**
 * --clock pcap, owner, once per loop iteration at TSC tsc; idle: the
 * iteration polled every rx queue and ring and got nothing; last_rx: the
 * TSC of the last packet any worker received. Returns whether the
 * capture has ended: every worker has been idle for FX_CLOCK_IDLE_MS
 * since that packet, and time has not jumped for it yet. The caller
 * then checks that nothing waits in its rings and calls fx_clock_jump().
 */
bool fx_clock_idle(struct fx_clock *c, uint64_t tsc, bool idle, uint64_t last_rx);

/**
 * --clock pcap, owner: time jumps by `by` cycles, once for the capture
 * that ended with the packet of TSC last_rx. Returns the new time.
 */
static inline uint64_t
fx_clock_jump(struct fx_clock *c, uint64_t last_rx, uint64_t by)
{
	c->jumped_rx = last_rx;
	return fx_clock_advance(c, c->vnow + by);
}

/**
 * --clock pcap or --exit-when-drained, owner: a poll got packets, which
 * it has not counted yet. The worker stops being idle before anything it
 * does with them can be seen: the fence orders this store before the
 * burst's statistics, and a reader that loads those, then (after an
 * acquire fence) idle_since, and finds it still set, read statistics
 * from before the burst (fx_clocks_idle()).
 */
void fx_clock_busy(struct fx_clock *c);

/**
 * --exit-when-drained, owner, once per loop iteration (TSC mode; under
 * --clock pcap fx_clock_idle() does it): idle from the first iteration
 * that polled everything and got nothing.
 */
void fx_clock_mark_idle(struct fx_clock *c, uint64_t tsc, bool idle);

/**
 * Main lcore, --exit-when-drained: whether every worker has been idle for
 * more than `wait` TSC cycles at now, its last burst handled whole; call
 * after reading the statistics the decision rests on.
 */
bool fx_clocks_idle(uint64_t now, uint64_t wait);

#endif /* _FX_CLOCK_H_ */
