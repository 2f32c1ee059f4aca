/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sums and maxima of the workers' counters, for the statistics' outputs
 * (ctl/stats.c, ctl/stats_print.c). Any thread: each counter is read whole with a
 * relaxed load, so a sum is not a snapshot of one instant, but every
 * value in it was true at some instant of the walk.
 */

#ifndef _FX_STATS_SUM_H_
#define _FX_STATS_SUM_H_

#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "base/counter.h"
#include "worker/lcore.h"

/* One counter of a worker: part is where it lives in struct fx_lcore
 * (flows.st, fwd.st, fwd.st.slow, loop_st, handoff.st, nat.st). */
#define GET(lc, part, f) FX_STAT_GET(&(lc)->part, f)

/* Handoff counters: name and field. */
#define FX_HO_COUNTERS(X) \
	X("handed_off", handed_off) X("handoff_received", received) \
	X("handoff_dropped", dropped) X("handoff_waits", waits) X("foreign", foreign) \
	X("handoff_sends", sends) X("handoff_takes", takes)

/* Sum of one counter over the workers. */
#define SUM(part, field) ({ \
	uint64_t s_ = 0; \
	unsigned int w_; \
	for (w_ = 0; w_ < fx_nb_workers; w_++) \
		s_ += GET(fx_workers[w_], part, field); \
	s_; })
#define MAXOF(part, field) ({ \
	uint64_t m_ = 0, v_; \
	unsigned int w_; \
	for (w_ = 0; w_ < fx_nb_workers; w_++) { \
		v_ = GET(fx_workers[w_], part, field); \
		if (v_ > m_) \
			m_ = v_; \
	} \
	m_; })

/* The mean expiry lag of a worker, cycles. */
static inline uint64_t
fx_lag_mean(const struct fx_lcore *lc)
{
	uint64_t n = GET(lc, flows.st, lag_n);

	return n ? GET(lc, flows.st, lag_sum) / n : 0;
}

/* dropped on a port: by the workers, and by the handoff rings */
static inline uint64_t
fx_port_dropped(unsigned int p)
{
	return SUM(fwd.st, dropped[p]) + SUM(handoff.st, dropped_port[p]);
}

/*
 * What the NIC dropped or could not receive: imissed (no rx descriptor
 * free: the workers fell behind), rx_nombuf (no mbuf to refill the ring:
 * the pool is too small), ierrors (bad frames). Zeros if the device
 * cannot say.
 */
static inline void
fx_nic_counters(unsigned int port, struct rte_eth_stats *es)
{
	if (rte_eth_stats_get((uint16_t)port, es) != 0)
		memset(es, 0, sizeof(*es));
}

#endif /* _FX_STATS_SUM_H_ */
