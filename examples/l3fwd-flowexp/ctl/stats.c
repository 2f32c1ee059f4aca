/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Statistics (see ctl/stats.h): the totals other parts ask for, and the walk
 * over every counter that telemetry and the JSON file share: the whole
 * (fx_stats_emit(), the file and /l3fwd_flowexp/stats) and its pieces
 * (the per-instance commands: one worker's counters or its maxima, one
 * port). Counters come from each subsystem's X-macro list
 * (FX_FLOW_COUNTERS, FX_FWD_COUNTERS, FX_SLOW_COUNTERS, FX_LOOP_COUNTERS,
 * FX_NAT_COUNTERS, NAT_LOG_COUNTERS), so a counter added there shows in
 * every output.
 *
 * Units: the maxima are converted from TSC cycles to microseconds on output
 * (lag_max_us, lag_mean_us, sweep_max_us, loop_max_us); the cycle
 * counters (busy_cycles, expiry_cycles, idle_expiry_cycles, the --bench
 * stages) stay in cycles, and every reply that carries them has tsc_hz. The expiry lag of
 * a flow is the time between its deadline and the poll that removed it,
 * as seen by that poll (for twheel, now - deadline of the Due record).
 * "dropped" on a port counts packets received there and dropped by policy
 * (malformed, table full with --table-full drop) plus packets that could
 * not be queued for transmission there; so over all ports
 * rx = tx + dropped once the queues are empty. The flow index's own
 * counts (base/index.h) are index_full, adds refused at its probe bound
 * (also counted in table_full), and index_lines_max, the most buckets one
 * add read; the totals give their sum and their maximum.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "base/atomic.h"
#include "base/config.h"
#include "ctl/control.h"
#include "ctl/stats.h"
#include "ctl/stats_sum.h"
#include "expiry/expiry.h"
#include "fwd/owner.h"
#include "l3/neigh.h"
#include "nat/log/export.h"
#include "nat/nat.h"
#include "worker/lcore.h"

uint64_t fx_stats_start_tsc;

void
fx_stats_start(void)
{
	fx_stats_start_tsc = rte_rdtsc();
}

uint64_t
fx_stats_total_active(void)
{
	return SUM(flows.st, active);
}

uint64_t
fx_stats_total_rx(void)
{
	uint64_t s = 0;
	unsigned int p;

	for (p = 0; p < FX_MAX_PORTS; p++)
		if (fx_conf.portmask & (1u << p))
			s += SUM(fwd.st, rx[p]);
	return s;
}

static const char *const stage_names[FX_STAGE_MAX] = {
#define FX_STAGE_NAME(e, s) "stage_" s "_cycles",
	FX_STAGES(FX_STAGE_NAME)
#undef FX_STAGE_NAME
};

/* the flow index's counts of workers first..end - 1 (single writer, the
 * owner: relaxed loads) */
static void
emit_index(unsigned int first, unsigned int end, const struct fx_emitter *e,
	   void *ctx)
{
	uint64_t full = 0, lines = 0, v;
	unsigned int w;

	for (w = first; w < end; w++) {
		full += fx_load_relaxed(&fx_workers[w]->flows.table.ix.full);
		v = fx_load_relaxed(&fx_workers[w]->flows.table.ix.lines_max);
		lines = RTE_MAX(lines, v);
	}
	e->u64(ctx, "index_full", full);
	e->u64(ctx, "index_lines_max", lines);
}

static void
emit_maxima(const struct fx_lcore *lc, const struct fx_emitter *e, void *ctx)
{
	e->u64(ctx, "lag_max_us", fx_cycles_us(GET(lc, flows.st, lag_max)));
	e->u64(ctx, "lag_mean_us", fx_cycles_us(fx_lag_mean(lc)));
	e->u64(ctx, "sweep_max_us", fx_cycles_us(GET(lc, loop_st, sweep_max)));
	e->u64(ctx, "loop_max_us", fx_cycles_us(GET(lc, loop_st, loop_max)));
	e->u64(ctx, "poll_removed_max", GET(lc, flows.st, poll_removed_max));
}

void
fx_stats_emit_lcore(const struct fx_lcore *lc, const struct fx_emitter *e,
		    void *ctx, enum fx_emit_what what)
{
	unsigned int t;
	char name[64];

	if (what & FX_EMIT_COUNTERS) {
#define FX_EMIT_FLOWS(n) e->u64(ctx, #n, GET(lc, flows.st, n));
#define FX_EMIT_FWD(n) e->u64(ctx, #n, GET(lc, fwd.st, n));
#define FX_EMIT_SLOW(n) e->u64(ctx, #n, GET(lc, fwd.st.slow, n));
#define FX_EMIT_LOOP(n) e->u64(ctx, #n, GET(lc, loop_st, n));
		FX_FLOW_COUNTERS(FX_EMIT_FLOWS)
		FX_FWD_COUNTERS(FX_EMIT_FWD)
		FX_SLOW_COUNTERS(FX_EMIT_SLOW)
		FX_LOOP_COUNTERS(FX_EMIT_LOOP)
#undef FX_EMIT_FLOWS
#undef FX_EMIT_FWD
#undef FX_EMIT_SLOW
#undef FX_EMIT_LOOP
		emit_index(lc->worker_idx, lc->worker_idx + 1u, e, ctx);
	}
	if (what & FX_EMIT_MAXIMA)
		emit_maxima(lc, e, ctx);
	if (what & FX_EMIT_COUNTERS) {
#define FX_EMIT_HO(n, f) e->u64(ctx, n, GET(lc, handoff.st, f));
		FX_HO_COUNTERS(FX_EMIT_HO)
#undef FX_EMIT_HO
		for (t = 0; t < FX_TMO_MAX; t++) {
			snprintf(name, sizeof(name), "expired_%s", fx_tmo_names[t]);
			e->u64(ctx, name, GET(lc, flows.st, expired_tmo[t]));
			snprintf(name, sizeof(name), "active_%s", fx_tmo_names[t]);
			e->u64(ctx, name, GET(lc, flows.st, active_tmo[t]));
		}
		for (t = 0; fx_conf.bench && t < FX_STAGE_MAX; t++)
			e->u64(ctx, stage_names[t], GET(lc, loop_st, stage_cycles[t]));
		if (lc->flows.expiry != NULL && lc->flows.expiry->emit != NULL)
			lc->flows.expiry->emit(&lc->flows, e, ctx);
	}
	if (!fx_nat_enabled())
		return;
	if (what & FX_EMIT_COUNTERS)
		fx_nat_emit_lcore(&lc->nat, e, ctx);
	if (what & FX_EMIT_MAXIMA)
		fx_nat_emit_maxima(&lc->nat, e, ctx);
}

void
fx_stats_emit_run(const struct fx_emitter *e, void *ctx)
{
	e->str(ctx, "expiry", fx_expiry_name(fx_conf.expiry));
	e->str(ctx, "affinity", fx_affinity_name(fx_affinity_mode));
	e->str(ctx, "affinity_reason", fx_affinity_reason);
	e->str(ctx, "lookup", fx_conf.lookup == FX_LOOKUP_LPM ? "lpm" : "em");
	e->u64(ctx, "uptime_ms", fx_cycles_us(rte_rdtsc() - fx_stats_start_tsc) / 1000);
	e->u64(ctx, "tsc_hz", rte_get_tsc_hz());
	e->u64(ctx, "workers", fx_nb_workers);
	e->u64(ctx, "max_flows", fx_conf.max_flows);
}

void
fx_stats_emit_totals(const struct fx_emitter *e, void *ctx, enum fx_emit_what what)
{
	uint64_t lag_n;
	unsigned int t;
	char name[64];

	if (what & FX_EMIT_COUNTERS) {
#define FX_SUM_FLOWS(n) e->u64(ctx, #n, SUM(flows.st, n));
#define FX_SUM_FWD(n) e->u64(ctx, #n, SUM(fwd.st, n));
#define FX_SUM_SLOW(n) e->u64(ctx, #n, SUM(fwd.st.slow, n));
#define FX_SUM_LOOP(n) e->u64(ctx, #n, SUM(loop_st, n));
		FX_FLOW_COUNTERS(FX_SUM_FLOWS)
		FX_FWD_COUNTERS(FX_SUM_FWD)
		FX_SLOW_COUNTERS(FX_SUM_SLOW)
		FX_LOOP_COUNTERS(FX_SUM_LOOP)
#undef FX_SUM_FLOWS
#undef FX_SUM_FWD
#undef FX_SUM_SLOW
#undef FX_SUM_LOOP
		emit_index(0, fx_nb_workers, e, ctx);
	}
	if (what & FX_EMIT_MAXIMA) {
		lag_n = SUM(flows.st, lag_n);
		e->u64(ctx, "lag_max_us", fx_cycles_us(MAXOF(flows.st, lag_max)));
		e->u64(ctx, "lag_mean_us",
		       fx_cycles_us(lag_n ? SUM(flows.st, lag_sum) / lag_n : 0));
		e->u64(ctx, "sweep_max_us", fx_cycles_us(MAXOF(loop_st, sweep_max)));
		e->u64(ctx, "loop_max_us", fx_cycles_us(MAXOF(loop_st, loop_max)));
		e->u64(ctx, "poll_removed_max", MAXOF(flows.st, poll_removed_max));
	}
	if (what & FX_EMIT_COUNTERS) {
#define FX_EMIT_HO_SUM(n, f) e->u64(ctx, n, SUM(handoff.st, f));
		FX_HO_COUNTERS(FX_EMIT_HO_SUM)
#undef FX_EMIT_HO_SUM
	}
	if (fx_nat_enabled()) {
		if (what & FX_EMIT_COUNTERS)
			fx_nat_emit_totals(e, ctx);
		if (what & FX_EMIT_MAXIMA)
			fx_nat_emit_maxima_totals(e, ctx);
	}
	if (!(what & FX_EMIT_COUNTERS))
		return;
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, SUM(flows.st, expired_tmo[t]));
		snprintf(name, sizeof(name), "active_%s", fx_tmo_names[t]);
		e->u64(ctx, name, SUM(flows.st, active_tmo[t]));
	}
	for (t = 0; fx_conf.bench && t < FX_STAGE_MAX; t++)
		e->u64(ctx, stage_names[t], SUM(loop_st, stage_cycles[t]));
}

void
fx_stats_emit_port(unsigned int p, const struct fx_emitter *e, void *ctx)
{
	struct rte_eth_stats es;

	e->u64(ctx, "rx", SUM(fwd.st, rx[p]));
	e->u64(ctx, "tx", SUM(fwd.st, tx[p]));
	e->u64(ctx, "dropped", fx_port_dropped(p));
	fx_nic_counters(p, &es);
	e->u64(ctx, "imissed", es.imissed);
	e->u64(ctx, "rx_nombuf", es.rx_nombuf);
	e->u64(ctx, "ierrors", es.ierrors);
	e->u64(ctx, "oerrors", es.oerrors);
}

void
fx_stats_emit_malformed(const struct fx_emitter *e, void *ctx)
{
	unsigned int c;

	for (c = 0; c < FX_CAUSE_MAX; c++)
		e->u64(ctx, fx_cause_names[c], SUM(fwd.st, malformed[c]));
}

void
fx_stats_emit(const struct fx_emitter *e, void *ctx)
{
	unsigned int w, p;
	char name[64];

	fx_stats_emit_run(e, ctx);
	e->open(ctx, "totals");
	fx_stats_emit_totals(e, ctx, FX_EMIT_ALL);
	e->close(ctx);
	for (w = 0; w < fx_nb_workers; w++) {
		snprintf(name, sizeof(name), "lcore_%u", fx_workers[w]->lcore_id);
		e->open(ctx, name);
		fx_stats_emit_lcore(fx_workers[w], e, ctx, FX_EMIT_ALL);
		e->close(ctx);
	}
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!(fx_conf.portmask & (1u << p)))
			continue;
		snprintf(name, sizeof(name), "port_%u", p);
		e->open(ctx, name);
		fx_stats_emit_port(p, e, ctx);
		e->close(ctx);
	}
	e->open(ctx, "malformed");
	fx_stats_emit_malformed(e, ctx);
	e->close(ctx);
	if (fx_nat_log_enabled()) {
		e->open(ctx, "nat_log");
		fx_nat_log_emit_totals(e, ctx);
		e->close(ctx);
	}
	fx_control_emit(e, ctx);
	fx_neigh_emit(e, ctx);
}
