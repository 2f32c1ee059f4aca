/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Statistics: the walk that reads every subsystem's counters, and the
 * three ways they are shown: the l2fwd-style periodic table (-T) and the
 * summary (ctl/stats_print.c), the telemetry commands /l3fwd_flowexp/...
 * (ctl/telemetry.c) and the JSON file written at exit (--stats-file,
 * ctl/stats_json.c). One walk (fx_stats_emit(), ctl/stats.c, in pieces:
 * the run, the totals, one worker, one port) feeds both telemetry and the
 * file, so their fields are the same.
 *
 * The counters are not here: each subsystem owns its own, in its context,
 * written by its worker only (base/counter.h): the flows' (flow/flow.h),
 * the parse and forward stages' (fwd/forward.h, fwd/slowpath.h), the
 * loop's (worker/loop.h), the handoff's (worker/handoff.h), NAT's
 * (nat/nat.h); the walk reads them and knows their lists (the X-macros
 * FX_*_COUNTERS), so a counter added to a list shows in every output.
 *
 * Three kinds of figures: counters, which only grow; gauges, values of
 * now (active, active by class; the NAT's live, held and free ports);
 * maxima (lag, sweep, loop, poll_removed, and the NAT poll's), which a
 * reset request (/l3fwd_flowexp/reset, ctl/control.c) has each worker
 * zero for itself (worker/loop.h). Nothing else is ever reset.
 */

#ifndef _FX_STATS_H_
#define _FX_STATS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/counter.h"

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
