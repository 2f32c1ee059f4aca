/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Statistics: per-lcore counters written by their worker only (relaxed
 * atomic stores, so any thread may read them while the worker runs), the
 * worker's accounting of its own loop (fx_stats_loop()), and the three
 * ways they are shown: the l2fwd-style periodic table (-T) and the summary
 * (ctl/stats_print.c), the telemetry commands /l3fwd_flowexp/... (ctl/telemetry.c)
 * and the JSON file written at exit (--stats-file, ctl/stats_json.c). One walk
 * over the counters (fx_stats_emit(), ctl/stats.c, in pieces: the run, the
 * totals, one worker, one port) feeds both telemetry and the file, so
 * their fields are the same.
 *
 * Three kinds of figures: counters, which only grow (FX_COUNTERS but
 * "active", which is a gauge, and the arrays below); gauges, values of
 * now (active, active by class; the NAT's live, held and free ports);
 * maxima (lag, sweep, loop, poll_removed, and the NAT poll's), which a
 * reset request zeroes. Nothing else is ever reset.
 *
 * The loop's accounting, once per iteration: its length is "loop_max" at
 * most, and one longer than the stall threshold (100 us) is a "stall"
 * (a counter); the iterations that had packets add up to "busy_cycles"
 * (TSC). A reset request (/l3fwd_flowexp/reset, ctl/control.c) is a count the
 * worker compares with the last one it handled: it zeroes its own maxima
 * and lag figures, so no other thread ever writes them.
 */

#ifndef _FX_STATS_H_
#define _FX_STATS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_config.h>
#include <rte_cycles.h>

#include "base/atomic.h"
#include "base/counter.h"
#include "base/timeouts.h"
#include "fwd/parse.h"

/** Plain per-lcore counters: the name is also the output field. */
#define FX_COUNTERS(X) \
	X(active) X(created) X(refreshed) X(expired) X(invalidated) \
	X(drained) X(table_full) X(host_limit) X(evicted) X(evict_miss) X(shortened) X(reopened) \
	X(fragments) \
	X(stale_requests) X(loops) X(stalls) X(busy_cycles) X(expiry_cycles) \
	X(idle_expiry_cycles) \
	X(tcp_out_of_window) X(tcp_invalid) X(tcp_rst_ignored) X(tcp_syn_ignored) \
	X(oversized) X(to_main) X(to_main_full) X(no_route) X(local_dropped)

/*
 * --bench only: where a worker's cycles go, summed per stage of a burst
 * (TSC, worker/worker.c). Divided by the packets received they give the cost of
 * each stage per packet; busy_cycles minus their sum is the loop itself.
 */
#define FX_STAGES(X) \
	X(RX, "rx") X(PARSE, "parse") X(HANDOFF, "handoff") X(NAT, "nat") \
	X(LOOKUP, "lookup") X(FLOW, "flow") X(FORWARD, "forward") X(TX, "tx")

enum fx_stage {
#define FX_STAGE_ENUM(e, s) FX_STAGE_ ## e,
	FX_STAGES(FX_STAGE_ENUM)
#undef FX_STAGE_ENUM
	FX_STAGE_MAX
};

struct fx_lcore_stats {
#define FX_COUNTER_FIELD(n) uint64_t n;
	FX_COUNTERS(FX_COUNTER_FIELD)
#undef FX_COUNTER_FIELD
	uint64_t lag_max;                    /**< cycles, Due records: now - deadline */
	uint64_t lag_sum;                    /**< cycles */
	uint64_t lag_n;
	uint64_t sweep_max;                  /**< cycles, one expiry poll */
	uint64_t loop_max;                   /**< cycles, one loop iteration */
	uint64_t poll_removed_max;           /**< most flows one expiry poll removed */
	uint64_t last_rx;                    /**< TSC of the last packet received */
	uint64_t expired_tmo[FX_TMO_MAX];    /**< expiries by timeout class */
	uint64_t active_tmo[FX_TMO_MAX];     /**< flows by timeout class (TCP state) */
	uint64_t malformed[FX_CAUSE_MAX];
	uint64_t rx[RTE_MAX_ETHPORTS];       /**< received on the port */
	uint64_t tx[RTE_MAX_ETHPORTS];       /**< sent on the port */
	uint64_t dropped[RTE_MAX_ETHPORTS];  /**< see doc: rx port for policy, tx port for a full queue */
	uint64_t stage_cycles[FX_STAGE_MAX]; /**< --bench only (FX_STAGES) */
};

/** The worker's accounting of its loop (owner only). */
struct fx_loop {
	uint64_t prev;           /**< TSC at the end of the previous iteration */
	uint64_t stall_cycles;   /**< a longer iteration is a stall */
	uint32_t reset_seen;     /**< reset requests handled */
};

/** Zero the maxima and lag figures (owner, on a reset request). */
static inline void
fx_stats_reset_maxima(struct fx_lcore_stats *st)
{
	FX_STAT_SET(st, lag_max, 0);
	FX_STAT_SET(st, lag_sum, 0);
	FX_STAT_SET(st, lag_n, 0);
	FX_STAT_SET(st, sweep_max, 0);
	FX_STAT_SET(st, loop_max, 0);
	FX_STAT_SET(st, poll_removed_max, 0);
}

/**
 * End of a loop iteration at TSC `end`, which received `got` packets:
 * count it, and act on a reset request (*reset_req, written by the
 * control path). Owner only. Returns whether it reset the maxima, for
 * the worker's other maxima (the NAT poll's, nat/nat.h).
 */
static inline bool
fx_stats_loop(struct fx_lcore_stats *st, struct fx_loop *lp,
	      const uint32_t *reset_req, uint64_t end, unsigned int got)
{
	uint64_t len = end - lp->prev;
	uint32_t req;

	FX_STAT_MAX(st, loop_max, len);
	if (got != 0)
		FX_STAT_ADD(st, busy_cycles, len);
	if (unlikely(len > lp->stall_cycles))
		FX_STAT_ADD(st, stalls, 1);
	FX_STAT_ADD(st, loops, 1);
	lp->prev = end;
	/* a count, ordering nothing: the reset touches the owner's own fields */
	req = fx_load_relaxed(reset_req);
	if (likely(req == lp->reset_seen))
		return false;
	fx_stats_reset_maxima(st);
	lp->reset_seen = req;
	lp->prev = rte_rdtsc();
	return true;
}

struct fx_lcore;

/**
 * Walk every statistic into an emitter: the run (fx_stats_emit_run()),
 * "totals", one "lcore_N" per worker, one "port_N" per port, "malformed",
 * "control". Any thread.
 */
void fx_stats_emit(const struct fx_emitter *e, void *ctx);

/** The pieces of the walk, each into the dictionary open in the emitter. */
void fx_stats_emit_run(const struct fx_emitter *e, void *ctx);
void fx_stats_emit_totals(const struct fx_emitter *e, void *ctx,
			  enum fx_emit_what what);
void fx_stats_emit_lcore(const struct fx_lcore *lc, const struct fx_emitter *e,
			 void *ctx, enum fx_emit_what what);
void fx_stats_emit_port(unsigned int port, const struct fx_emitter *e, void *ctx);
void fx_stats_emit_malformed(const struct fx_emitter *e, void *ctx);

/** Sums over all workers. Any thread. */
uint64_t fx_stats_total_active(void);
uint64_t fx_stats_total_rx(void);
uint64_t fx_stats_last_rx(void);

/** Print the periodic table (rates since the previous call). Main lcore. */
void fx_stats_print(FILE *f);

/** Print the end-of-run summary. Main lcore, after the workers stopped. */
void fx_stats_summary(FILE *f);

/** Write fx_stats_emit() as JSON to path. 0 or a negative errno. */
int fx_stats_write_json(const char *path);

/** Start time of the run, for the uptime figure. */
void fx_stats_start(void);

/** The start time given to fx_stats_start(), and the previous table's time. */
extern uint64_t fx_stats_start_tsc;


#endif /* _FX_STATS_H_ */
