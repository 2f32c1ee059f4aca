/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Statistics output (see stats.h): the walk shared by telemetry and the
 * JSON file, the periodic table and the summary.
 *
 * Units: times are converted from TSC cycles to microseconds on output
 * (lag_max_us, lag_mean_us, sweep_max_us, loop_max_us). The expiry lag of
 * a flow is the time between its deadline and the poll that removed it,
 * as seen by that poll (for twheel, now - deadline of the Due record).
 * "dropped" on a port counts packets received there and dropped by policy
 * (malformed, table full with --table-full drop) plus packets that could
 * not be queued for transmission there; so over all ports
 * rx = tx + dropped once the queues are empty.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "control.h"
#include "expiry.h"
#include "flowexp.h"
#include "stats.h"

static uint64_t start_tsc;

/* the previous table's totals, for rates */
static struct {
	uint64_t tsc;
	uint64_t created[RTE_MAX_LCORE];
	uint64_t expired[RTE_MAX_LCORE];
	uint64_t rx[RTE_MAX_ETHPORTS];
	uint64_t tx[RTE_MAX_ETHPORTS];
} prev;

#define GET(lc, f) FX_STAT_GET(&(lc)->st, f)
#define GET_HO(lc, f) FX_STAT_GET(&(lc)->ho.st, f)

/* Handoff counters: name and field. */
#define FX_HO_COUNTERS(X) \
	X("handed_off", handed_off) X("handoff_received", received) \
	X("handoff_dropped", dropped) X("handoff_waits", waits) X("foreign", foreign)

void
fx_stats_start(void)
{
	start_tsc = rte_rdtsc();
	prev.tsc = start_tsc;
}

static uint64_t
to_us(uint64_t cycles)
{
	return (uint64_t)((double)cycles * 1e6 / (double)rte_get_tsc_hz());
}

static uint64_t
lag_mean(const struct fx_lcore *lc)
{
	uint64_t n = GET(lc, lag_n);

	return n ? GET(lc, lag_sum) / n : 0;
}

/* Sum of one field over the workers. */
#define SUM(field) ({ \
	uint64_t s_ = 0; \
	unsigned int w_; \
	for (w_ = 0; w_ < fx_nb_workers; w_++) \
		s_ += GET(fx_workers[w_], field); \
	s_; })
#define MAXOF(field) ({ \
	uint64_t m_ = 0, v_; \
	unsigned int w_; \
	for (w_ = 0; w_ < fx_nb_workers; w_++) { \
		v_ = GET(fx_workers[w_], field); \
		if (v_ > m_) \
			m_ = v_; \
	} \
	m_; })

#define SUM_HO(field) ({ \
	uint64_t s_ = 0; \
	unsigned int w_; \
	for (w_ = 0; w_ < fx_nb_workers; w_++) \
		s_ += GET_HO(fx_workers[w_], field); \
	s_; })

/* dropped on a port: by the workers, and by the handoff rings */
static uint64_t
port_dropped(unsigned int p)
{
	return SUM(dropped[p]) + SUM_HO(dropped_port[p]);
}

uint64_t
fx_stats_total_active(void)
{
	return SUM(active);
}

uint64_t
fx_stats_total_rx(void)
{
	uint64_t s = 0;
	unsigned int p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (fx_conf.portmask & (1u << p))
			s += SUM(rx[p]);
	return s;
}

uint64_t
fx_stats_last_rx(void)
{
	return MAXOF(last_rx);
}

void
fx_stats_reset_maxima(void)
{
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		__atomic_fetch_add(&fx_workers[w]->reset_req, 1, __ATOMIC_RELAXED);
}

void
fx_stats_hold_expiry(unsigned int ms)
{
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		__atomic_store_n(&fx_workers[w]->hold_until, until, __ATOMIC_RELAXED);
}

static const char *const stage_names[FX_STAGE_MAX] = {
#define FX_STAGE_NAME(e, s) "stage_" s "_cycles",
	FX_STAGES(FX_STAGE_NAME)
#undef FX_STAGE_NAME
};

static void
emit_lcore(const struct fx_lcore *lc, const struct fx_emitter *e, void *ctx)
{
	unsigned int t;
	char name[64];

#define FX_EMIT_COUNTER(n) e->u64(ctx, #n, GET(lc, n));
	FX_COUNTERS(FX_EMIT_COUNTER)
#undef FX_EMIT_COUNTER
	e->u64(ctx, "lag_max_us", to_us(GET(lc, lag_max)));
	e->u64(ctx, "lag_mean_us", to_us(lag_mean(lc)));
	e->u64(ctx, "sweep_max_us", to_us(GET(lc, sweep_max)));
	e->u64(ctx, "loop_max_us", to_us(GET(lc, loop_max)));
	e->u64(ctx, "poll_removed_max", GET(lc, poll_removed_max));
#define FX_EMIT_HO(n, f) e->u64(ctx, n, GET_HO(lc, f));
	FX_HO_COUNTERS(FX_EMIT_HO)
#undef FX_EMIT_HO
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, GET(lc, expired_tmo[t]));
		snprintf(name, sizeof(name), "active_%s", fx_tmo_names[t]);
		e->u64(ctx, name, GET(lc, active_tmo[t]));
	}
	for (t = 0; fx_conf.bench && t < FX_STAGE_MAX; t++)
		e->u64(ctx, stage_names[t], GET(lc, stage_cycles[t]));
	if (lc->ops != NULL && lc->ops->emit != NULL)
		lc->ops->emit(lc, e, ctx);
	if (fx_nat_enabled())
		fx_nat_emit_lcore(&lc->nat, e, ctx);
}

/*
 * What the NIC dropped or could not receive: imissed (no rx descriptor
 * free: the workers fell behind), rx_nombuf (no mbuf to refill the ring:
 * the pool is too small), ierrors (bad frames). Any thread; zeros if the
 * device cannot say.
 */
static void
nic_counters(unsigned int port, struct rte_eth_stats *es)
{
	if (rte_eth_stats_get((uint16_t)port, es) != 0)
		memset(es, 0, sizeof(*es));
}

void
fx_stats_emit(const struct fx_emitter *e, void *ctx)
{
	struct rte_eth_stats es;
	uint64_t lag_n = SUM(lag_n);
	unsigned int w, p, c, t;
	char name[64];

	e->str(ctx, "expiry", fx_expiry_name(fx_conf.expiry));
	e->str(ctx, "affinity", fx_affinity_name(fx_affinity_mode));
	e->str(ctx, "affinity_reason", fx_affinity_reason);
	e->str(ctx, "lookup", fx_conf.lookup == FX_LOOKUP_LPM ? "lpm" : "em");
	e->u64(ctx, "uptime_ms", to_us(rte_rdtsc() - start_tsc) / 1000);
	e->u64(ctx, "tsc_hz", rte_get_tsc_hz());
	e->u64(ctx, "workers", fx_nb_workers);
	e->u64(ctx, "max_flows", fx_conf.max_flows);

	e->open(ctx, "totals");
#define FX_EMIT_SUM(n) e->u64(ctx, #n, SUM(n));
	FX_COUNTERS(FX_EMIT_SUM)
#undef FX_EMIT_SUM
	e->u64(ctx, "lag_max_us", to_us(MAXOF(lag_max)));
	e->u64(ctx, "lag_mean_us", to_us(lag_n ? SUM(lag_sum) / lag_n : 0));
	e->u64(ctx, "sweep_max_us", to_us(MAXOF(sweep_max)));
	e->u64(ctx, "loop_max_us", to_us(MAXOF(loop_max)));
	e->u64(ctx, "poll_removed_max", MAXOF(poll_removed_max));
#define FX_EMIT_HO_SUM(n, f) e->u64(ctx, n, SUM_HO(f));
	FX_HO_COUNTERS(FX_EMIT_HO_SUM)
#undef FX_EMIT_HO_SUM
	if (fx_nat_enabled())
		fx_nat_emit_totals(e, ctx);
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, SUM(expired_tmo[t]));
		snprintf(name, sizeof(name), "active_%s", fx_tmo_names[t]);
		e->u64(ctx, name, SUM(active_tmo[t]));
	}
	for (t = 0; fx_conf.bench && t < FX_STAGE_MAX; t++)
		e->u64(ctx, stage_names[t], SUM(stage_cycles[t]));
	e->close(ctx);

	for (w = 0; w < fx_nb_workers; w++) {
		snprintf(name, sizeof(name), "lcore_%u", fx_workers[w]->lcore_id);
		e->open(ctx, name);
		emit_lcore(fx_workers[w], e, ctx);
		e->close(ctx);
	}
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		if (!(fx_conf.portmask & (1u << p)))
			continue;
		snprintf(name, sizeof(name), "port_%u", p);
		e->open(ctx, name);
		e->u64(ctx, "rx", SUM(rx[p]));
		e->u64(ctx, "tx", SUM(tx[p]));
		e->u64(ctx, "dropped", port_dropped(p));
		nic_counters(p, &es);
		e->u64(ctx, "imissed", es.imissed);
		e->u64(ctx, "rx_nombuf", es.rx_nombuf);
		e->u64(ctx, "ierrors", es.ierrors);
		e->u64(ctx, "oerrors", es.oerrors);
		e->close(ctx);
	}
	e->open(ctx, "malformed");
	for (c = 0; c < FX_CAUSE_MAX; c++)
		e->u64(ctx, fx_cause_names[c], SUM(malformed[c]));
	e->close(ctx);
	fx_control_emit(e, ctx);
}

/* ---- JSON file ---- */

struct json_ctx {
	FILE *f;
	bool first;
	int depth;
};

static void
json_key(struct json_ctx *j, const char *name)
{
	fprintf(j->f, "%s\n%*s\"%s\": ", j->first ? "" : ",", 2 * j->depth, "", name);
	j->first = false;
}

static void
json_open(void *ctx, const char *name)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fputc('{', j->f);
	j->depth++;
	j->first = true;
}

static void
json_close(void *ctx)
{
	struct json_ctx *j = ctx;

	j->depth--;
	fprintf(j->f, "\n%*s}", 2 * j->depth, "");
	j->first = false;
}

static void
json_u64(void *ctx, const char *name, uint64_t v)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fprintf(j->f, "%" PRIu64, v);
}

static void
json_str(void *ctx, const char *name, const char *v)
{
	struct json_ctx *j = ctx;

	json_key(j, name);
	fprintf(j->f, "\"%s\"", v);   /* our strings need no escaping */
}

static const struct fx_emitter json_emitter = {
	.open = json_open, .close = json_close, .u64 = json_u64, .str = json_str,
};

int
fx_stats_write_json(const char *path)
{
	struct json_ctx j = { .first = true, .depth = 1 };
	char tmp[4096];
	int rc = 0;

	/* write beside it and rename, so a reader never sees half a file */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	j.f = fopen(tmp, "w");
	if (j.f == NULL)
		return -errno;
	fputc('{', j.f);
	fx_stats_emit(&json_emitter, &j);
	fputs("\n}\n", j.f);
	if (fclose(j.f) != 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	return rc;
}

/* ---- periodic table ---- */

/* 1234 -> "1.23k" */
static const char *
human(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

void
fx_stats_print(FILE *f)
{
	uint64_t now = rte_rdtsc(), v, any = 0;
	double dt = (double)(now - prev.tsc) / (double)rte_get_tsc_hz();
	char a[16], b[16], c[16];
	const struct fx_lcore *lc;
	unsigned int w, p, k;

	if (dt <= 0)
		dt = 1e-9;
	if (isatty(fileno(f)))
		fputs("\033[2J\033[1;1H", f);   /* clear the screen, as l2fwd */
	fprintf(f, "\n== l3fwd-flowexp  %.1f s  expiry %s  affinity %s ==============================\n",
		(double)(now - start_tsc) / (double)rte_get_tsc_hz(),
		fx_expiry_name(fx_conf.expiry), fx_affinity_name(fx_affinity_mode));
	fprintf(f, "port %14s %14s %10s %9s %9s %10s %10s %10s\n", "rx", "tx", "dropped",
		"rx pps", "tx pps", "imissed", "rx_nombuf", "ierrors");
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		struct rte_eth_stats es;
		uint64_t rx, tx;

		if (!(fx_conf.portmask & (1u << p)))
			continue;
		rx = SUM(rx[p]);
		tx = SUM(tx[p]);
		nic_counters(p, &es);
		fprintf(f, "%4u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %9s %9s %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 "\n",
			p, rx, tx, port_dropped(p),
			human((double)(rx - prev.rx[p]) / dt, a, sizeof(a)),
			human((double)(tx - prev.tx[p]) / dt, b, sizeof(b)),
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
		cr = GET(lc, created);
		ex = GET(lc, expired);
		fprintf(f, "%5u %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %9" PRIu64
			" %7" PRIu64 " %8s %8s %8.1f/%-8.1f %8" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
			lc->lcore_id, GET(lc, active), cr, ex, GET(lc, invalidated),
			GET(lc, table_full),
			human((double)(cr - prev.created[w]) / dt, a, sizeof(a)),
			human((double)(ex - prev.expired[w]) / dt, c, sizeof(c)),
			(double)to_us(GET(lc, lag_max)) / 1e3,
			(double)to_us(lag_mean(lc)) / 1e3,
			to_us(GET(lc, sweep_max)), to_us(GET(lc, loop_max)),
			GET(lc, stalls));
		prev.created[w] = cr;
		prev.expired[w] = ex;
	}
	fputs("active by state:", f);
	for (k = 0; k < FX_TMO_MAX; k++)
		fprintf(f, " %s %" PRIu64, fx_tmo_names[k], SUM(active_tmo[k]));
	fprintf(f, ", reopened %" PRIu64 "\n", SUM(reopened));
	if (fx_affinity_mode == FX_AFF_HANDOFF) {
		fputs("handoff (out/in/dropped/waits/foreign):", f);
		for (w = 0; w < fx_nb_workers; w++) {
			lc = fx_workers[w];
			fprintf(f, " lcore %u %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64,
				lc->lcore_id, GET_HO(lc, handed_off), GET_HO(lc, received),
				GET_HO(lc, dropped), GET_HO(lc, waits), GET_HO(lc, foreign));
		}
		fputc('\n', f);
	} else if (fx_affinity_mode == FX_AFF_RSS) {
		fprintf(f, "affinity rss: foreign %" PRIu64 "\n", SUM_HO(foreign));
	}
	fputs("malformed:", f);
	for (k = 0; k < FX_CAUSE_MAX; k++) {
		v = SUM(malformed[k]);
		if (v == 0)
			continue;
		fprintf(f, " %s %" PRIu64, fx_cause_names[k], v);
		any += v;
	}
	fputs(any ? "\n" : " none\n", f);
	fflush(f);
	prev.tsc = now;
}

void
fx_stats_summary(FILE *f)
{
	uint64_t lag_n = SUM(lag_n), rx = 0, tx = 0, dr = 0;
	unsigned int p, t;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		if (!(fx_conf.portmask & (1u << p)))
			continue;
		rx += SUM(rx[p]);
		tx += SUM(tx[p]);
		dr += port_dropped(p);
	}
	fprintf(f, "\n== summary (expiry %s, %u worker%s) ==\n",
		fx_expiry_name(fx_conf.expiry), fx_nb_workers,
		fx_nb_workers == 1 ? "" : "s");
	fprintf(f, "packets: rx %" PRIu64 ", tx %" PRIu64 ", dropped %" PRIu64 "\n",
		rx, tx, dr);
	fprintf(f, "affinity %s (%s): handed off %" PRIu64 ", received %" PRIu64
		", dropped %" PRIu64 ", processed on a non-owner lcore %" PRIu64 "\n",
		fx_affinity_name(fx_affinity_mode), fx_affinity_reason, SUM_HO(handed_off),
		SUM_HO(received), SUM_HO(dropped), SUM_HO(foreign));
	fprintf(f, "flows created: %" PRIu64 "\n", SUM(created));
	if (fx_nat_enabled())
		fx_nat_summary(f);
	fprintf(f, "flows expired: %" PRIu64 " (", SUM(expired));
	for (t = 0; t < FX_TMO_MAX; t++)
		fprintf(f, "%s%s %" PRIu64, t ? ", " : "", fx_tmo_names[t],
			SUM(expired_tmo[t]));
	fputs(")\n", f);
	fprintf(f, "flows invalidated: %" PRIu64 "\n", SUM(invalidated));
	fprintf(f, "flows removed at exit: %" PRIu64 "\n", SUM(drained));
	fprintf(f, "flows active: %" PRIu64 "\n", SUM(active));
	fprintf(f, "table full: %" PRIu64 " (evicted %" PRIu64 ", no victim within %u: %" PRIu64 ")\n",
		SUM(table_full), SUM(evicted), FX_EVICT_SCAN, SUM(evict_miss));
	fprintf(f, "longest sweep: %" PRIu64 " us\n", to_us(MAXOF(sweep_max)));
	fprintf(f, "longest loop iteration: %" PRIu64 " us (%" PRIu64
		" iterations over 100 us of %" PRIu64 ")\n",
		to_us(MAXOF(loop_max)), SUM(stalls), SUM(loops));
	fprintf(f, "most flows removed by one expiry poll: %" PRIu64 "\n",
		MAXOF(poll_removed_max));
	fprintf(f, "expiry lag: max %.3f ms, mean %.3f ms\n",
		(double)to_us(MAXOF(lag_max)) / 1e3,
		(double)to_us(lag_n ? SUM(lag_sum) / lag_n : 0) / 1e3);
	fflush(f);
}
