/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The statistics for people: the l2fwd-style table printed every -T
 * seconds (totals and rates since the previous table, per port and per
 * worker, and with masquerade per worker's mappings, nat/format.c) and
 * the summary at exit (the flows, then the mappings). Main lcore.
 */

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "base/config.h"
#include "ctl/stats.h"
#include "ctl/stats_sum.h"
#include "expiry/expiry.h"
#include "flow/evict.h"
#include "fwd/owner.h"
#include "nat/log/export.h"
#include "nat/nat.h"
#include "worker/lcore.h"

/* the previous table's totals, for rates */
static struct {
	uint64_t tsc;
	uint64_t created[RTE_MAX_LCORE];
	uint64_t expired[RTE_MAX_LCORE];
	uint64_t rx[RTE_MAX_ETHPORTS];
	uint64_t tx[RTE_MAX_ETHPORTS];
} prev;

void
fx_stats_print(FILE *f)
{
	uint64_t now = rte_rdtsc(), v, any = 0;
	char a[16], b[16], c[16];
	const struct fx_lcore *lc;
	unsigned int w, p, k;
	double dt;

	if (prev.tsc == 0)
		prev.tsc = fx_stats_start_tsc;
	dt = (double)(now - prev.tsc) / (double)rte_get_tsc_hz();
	if (dt <= 0)
		dt = 1e-9;
	if (isatty(fileno(f)))
		fputs("\033[2J\033[1;1H", f);   /* clear the screen, as l2fwd */
	fprintf(f, "\n== l3fwd-flowexp  %.1f s  expiry %s  affinity %s ==============================\n",
		(double)(now - fx_stats_start_tsc) / (double)rte_get_tsc_hz(),
		fx_expiry_name(fx_conf.expiry), fx_affinity_name(fx_affinity_mode));
	fprintf(f, "port %14s %14s %10s %9s %9s %10s %10s %10s\n", "rx", "tx", "dropped",
		"rx pps", "tx pps", "imissed", "rx_nombuf", "ierrors");
	for (p = 0; p < FX_MAX_PORTS; p++) {
		struct rte_eth_stats es;
		uint64_t rx, tx;

		if (!(fx_conf.portmask & (1u << p)))
			continue;
		rx = SUM(fwd.st, rx[p]);
		tx = SUM(fwd.st, tx[p]);
		fx_nic_counters(p, &es);
		fprintf(f, "%4u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %9s %9s %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 "\n",
			p, rx, tx, fx_port_dropped(p),
			fx_human((double)(rx - prev.rx[p]) / dt, a, sizeof(a)),
			fx_human((double)(tx - prev.tx[p]) / dt, b, sizeof(b)),
			es.imissed, es.rx_nombuf, es.ierrors);
		prev.rx[p] = rx;
		prev.tx[p] = tx;
	}
	fprintf(f, "lcore %10s %12s %12s %9s %7s %8s %8s %17s %8s %8s %6s\n",
		"active", "created", "expired", "invalid", "full", "new/s", "exp/s",
		"lag max/mean ms", "sweep us", "loop us", "stalls");
	for (w = 0; w < fx_nb_workers; w++) {
		uint64_t cr, ex;

		lc = fx_workers[w];
		cr = GET(lc, flows.st, created);
		ex = GET(lc, flows.st, expired);
		fprintf(f, "%5u %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %9" PRIu64
			" %7" PRIu64 " %8s %8s %8.1f/%-8.1f %8" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
			lc->lcore_id, GET(lc, flows.st, active), cr, ex, GET(lc, flows.st, invalidated),
			GET(lc, flows.st, table_full),
			fx_human((double)(cr - prev.created[w]) / dt, a, sizeof(a)),
			fx_human((double)(ex - prev.expired[w]) / dt, c, sizeof(c)),
			(double)fx_cycles_us(GET(lc, flows.st, lag_max)) / 1e3,
			(double)fx_cycles_us(fx_lag_mean(lc)) / 1e3,
			fx_cycles_us(GET(lc, loop_st, sweep_max)), fx_cycles_us(GET(lc, loop_st, loop_max)),
			GET(lc, loop_st, stalls));
		prev.created[w] = cr;
		prev.expired[w] = ex;
	}
	fputs("active by state:", f);
	for (k = 0; k < FX_TMO_MAX; k++)
		fprintf(f, " %s %" PRIu64, fx_tmo_names[k], SUM(flows.st, active_tmo[k]));
	fprintf(f, ", reopened %" PRIu64 "\n", SUM(flows.st, reopened));
	if (fx_affinity_mode == FX_AFF_HANDOFF) {
		fputs("handoff (out/in/dropped/waits/foreign):", f);
		for (w = 0; w < fx_nb_workers; w++) {
			lc = fx_workers[w];
			fprintf(f, " lcore %u %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
				lc->lcore_id, GET(lc, handoff.st, handed_off), GET(lc, handoff.st, received),
				GET(lc, handoff.st, dropped), GET(lc, handoff.st, waits), GET(lc, handoff.st, foreign));
		}
		fputc('\n', f);
	} else if (fx_affinity_mode == FX_AFF_RSS) {
		fprintf(f, "affinity rss: foreign %" PRIu64 "\n", SUM(handoff.st, foreign));
	}
	fputs("malformed:", f);
	for (k = 0; k < FX_CAUSE_MAX; k++) {
		v = SUM(fwd.st, malformed[k]);
		if (v == 0)
			continue;
		fprintf(f, " %s %" PRIu64, fx_cause_names[k], v);
		any += v;
	}
	fputs(any ? "\n" : " none\n", f);
	if (fx_nat_enabled())
		fx_nat_print(f, dt);
	fflush(f);
	prev.tsc = now;
}

void
fx_stats_summary(FILE *f)
{
	uint64_t lag_n = SUM(flows.st, lag_n), rx = 0, tx = 0, dr = 0;
	unsigned int p, t;

	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!(fx_conf.portmask & (1u << p)))
			continue;
		rx += SUM(fwd.st, rx[p]);
		tx += SUM(fwd.st, tx[p]);
		dr += fx_port_dropped(p);
	}
	fprintf(f, "\n== summary (expiry %s, %u worker%s) ==\n",
		fx_expiry_name(fx_conf.expiry), fx_nb_workers,
		fx_nb_workers == 1 ? "" : "s");
	fprintf(f, "packets: rx %" PRIu64 ", tx %" PRIu64 ", dropped %" PRIu64 "\n",
		rx, tx, dr);
	fprintf(f, "affinity %s (%s): handed off %" PRIu64 ", received %" PRIu64
		", dropped %" PRIu64 ", processed on a non-owner lcore %" PRIu64 "\n",
		fx_affinity_name(fx_affinity_mode), fx_affinity_reason, SUM(handoff.st, handed_off),
		SUM(handoff.st, received), SUM(handoff.st, dropped), SUM(handoff.st, foreign));
	fprintf(f, "flows created: %" PRIu64 "\n", SUM(flows.st, created));
	fprintf(f, "flows expired: %" PRIu64 " (", SUM(flows.st, expired));
	for (t = 0; t < FX_TMO_MAX; t++)
		fprintf(f, "%s%s %" PRIu64, t ? ", " : "", fx_tmo_names[t],
			SUM(flows.st, expired_tmo[t]));
	fputs(")\n", f);
	fprintf(f, "flows invalidated: %" PRIu64 "\n", SUM(flows.st, invalidated));
	fprintf(f, "flows removed at exit: %" PRIu64 "\n", SUM(flows.st, drained));
	fprintf(f, "flows active: %" PRIu64 "\n", SUM(flows.st, active));
	fprintf(f, "table full: %" PRIu64 " (evicted %" PRIu64 ", no victim within %u: %" PRIu64 ")\n",
		SUM(flows.st, table_full), SUM(flows.st, evicted), FX_EVICT_SCAN, SUM(flows.st, evict_miss));
	if (fx_conf.max_flows_per_host != 0)
		fprintf(f, "flows refused over --max-flows-per-host %u: %" PRIu64 "\n",
			fx_conf.max_flows_per_host, SUM(flows.st, host_limit));
	fprintf(f, "longest sweep: %" PRIu64 " us\n", fx_cycles_us(MAXOF(loop_st, sweep_max)));
	fprintf(f, "longest loop iteration: %" PRIu64 " us (%" PRIu64
		" iterations over 100 us of %" PRIu64 ")\n",
		fx_cycles_us(MAXOF(loop_st, loop_max)), SUM(loop_st, stalls), SUM(loop_st, loops));
	fprintf(f, "most flows removed by one expiry poll: %" PRIu64 "\n",
		MAXOF(flows.st, poll_removed_max));
	fprintf(f, "expiry lag: max %.3f ms, mean %.3f ms\n",
		(double)fx_cycles_us(MAXOF(flows.st, lag_max)) / 1e3,
		(double)fx_cycles_us(lag_n ? SUM(flows.st, lag_sum) / lag_n : 0) / 1e3);
	if (fx_nat_enabled())
		fx_nat_summary(f);
	if (fx_nat_log_enabled())
		fx_nat_log_summary(f);
	fflush(f);
}
