/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT statistics out of the workers' counters (any thread: each counter
 * is read whole, the set is not a snapshot): per worker and totals for
 * the statistics walk (ctl/stats.c) and /l3fwd_flowexp/nat, the -T table's
 * masquerade lines, the summary's (what was translated, the mappings'
 * life, what classification and the quotas dropped, by cause), and the
 * mappings left for --exit-when-drained. The counters come from
 * FX_NAT_COUNTERS, so one added there shows in the walk; the table and
 * the summary name the mappings' life (created, live, held, expired,
 * released) and the reaper's poll (the most records one poll handled,
 * the expiry lag), and with --nat-port-block the blocks' (allocated,
 * released, active, refused). The mapping index's own counts (base/index.h) are
 * nat_index_full, mappings refused at its probe bound (also counted in
 * nat_table_full), and nat_index_lines_max, the most buckets one insert
 * read.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>

#include <twheel.h>

#include "base/atomic.h"
#include "base/counter.h"
#include "base/timeouts.h"
#include "nat/conf.h"
#include "nat/nat.h"

#define NGET(nt, f) FX_STAT_GET(&(nt)->st, f)

void
fx_nat_emit_lcore(const struct fx_nat *nt, const struct fx_emitter *e,
		  void *ctx)
{
	char name[48];
	unsigned int t;

#define FX_NAT_EMIT(n) e->u64(ctx, #n, FX_STAT_GET(&nt->st, n));
#define FX_NAT_LOG_EMIT(n) e->u64(ctx, "nat_log_" #n, FX_STAT_GET(&nt->st.log, n));
	FX_NAT_COUNTERS(FX_NAT_EMIT)
	NAT_LOG_COUNTERS(FX_NAT_LOG_EMIT)
#undef FX_NAT_EMIT
#undef FX_NAT_LOG_EMIT
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "nat_expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, FX_STAT_GET(&nt->st, nat_expired_tmo[t]));
	}
	/* the owner's counts of its index, read whole */
	e->u64(ctx, "nat_index_full", fx_load_relaxed(&nt->tbl.ix.full));
	e->u64(ctx, "nat_index_lines_max", fx_load_relaxed(&nt->tbl.ix.lines_max));
	e->u64(ctx, "nat_ports_share", nt->ports.units);
	/* the owner's counts of its share, read whole */
	e->u64(ctx, "nat_ports_free", fx_load_relaxed(&nt->ports.nb_free));
	e->u64(ctx, "nat_ports_held", fx_load_relaxed(&nt->ports.nb_held));
	e->str(ctx, "nat_wheel", twheel_name(nt->wheel));
}

/* the mean expiry lag of a worker's mappings, cycles */
static uint64_t
nat_lag_mean(const struct fx_nat *nt)
{
	uint64_t n = NGET(nt, nat_lag_n);

	return n ? NGET(nt, nat_lag_sum) / n : 0;
}

void
fx_nat_emit_maxima(const struct fx_nat *nt, const struct fx_emitter *e, void *ctx)
{
	e->u64(ctx, "nat_poll_max", NGET(nt, nat_poll_max));
	e->u64(ctx, "nat_lag_max_us", fx_cycles_us(NGET(nt, nat_lag_max)));
	e->u64(ctx, "nat_lag_mean_us", fx_cycles_us(nat_lag_mean(nt)));
}

/* over the workers: the largest poll and lag, the mean lag of all */
static void
nat_maxima(uint64_t *poll_max, uint64_t *lag_max, uint64_t *lag_mean)
{
	uint64_t sum = 0, n = 0;
	const struct fx_nat *nt;
	unsigned int w;

	*poll_max = *lag_max = 0;
	for (w = 0; w < fx_nb_nats; w++) {
		nt = fx_nats[w];
		*poll_max = RTE_MAX(*poll_max, NGET(nt, nat_poll_max));
		*lag_max = RTE_MAX(*lag_max, NGET(nt, nat_lag_max));
		sum += NGET(nt, nat_lag_sum);
		n += NGET(nt, nat_lag_n);
	}
	*lag_mean = n ? sum / n : 0;
}

void
fx_nat_emit_maxima_totals(const struct fx_emitter *e, void *ctx)
{
	uint64_t poll_max, lag_max, lag_mean;

	nat_maxima(&poll_max, &lag_max, &lag_mean);
	e->u64(ctx, "nat_poll_max", poll_max);
	e->u64(ctx, "nat_lag_max_us", fx_cycles_us(lag_max));
	e->u64(ctx, "nat_lag_mean_us", fx_cycles_us(lag_mean));
}

void
fx_nat_emit_totals(const struct fx_emitter *e, void *ctx)
{
	struct fx_nat_stats sum;
	const struct fx_nat_stats *st;
	uint64_t full = 0, lines = 0, v;
	char name[48];
	unsigned int w, t;

	memset(&sum, 0, sizeof(sum));
	for (w = 0; w < fx_nb_nats; w++) {
		st = &fx_nats[w]->st;
		/* the owner's counts of its index, read whole */
		full += fx_load_relaxed(&fx_nats[w]->tbl.ix.full);
		v = fx_load_relaxed(&fx_nats[w]->tbl.ix.lines_max);
		lines = RTE_MAX(lines, v);
#define FX_NAT_SUM(n) sum.n += FX_STAT_GET(st, n);
#define FX_NAT_LOG_SUM(n) sum.log.n += FX_STAT_GET(&st->log, n);
		FX_NAT_COUNTERS(FX_NAT_SUM)
		NAT_LOG_COUNTERS(FX_NAT_LOG_SUM)
#undef FX_NAT_SUM
#undef FX_NAT_LOG_SUM
		for (t = 0; t < FX_TMO_MAX; t++)
			sum.nat_expired_tmo[t] += FX_STAT_GET(st, nat_expired_tmo[t]);
	}
#define FX_NAT_EMIT(n) e->u64(ctx, #n, sum.n);
#define FX_NAT_LOG_EMIT(n) e->u64(ctx, "nat_log_" #n, sum.log.n);
	FX_NAT_COUNTERS(FX_NAT_EMIT)
	NAT_LOG_COUNTERS(FX_NAT_LOG_EMIT)
#undef FX_NAT_EMIT
#undef FX_NAT_LOG_EMIT
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "nat_expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, sum.nat_expired_tmo[t]);
	}
	e->u64(ctx, "nat_index_full", full);
	e->u64(ctx, "nat_index_lines_max", lines);
}

uint64_t
fx_nat_total_active(void)
{
	uint64_t n = 0;
	unsigned int w;

	for (w = 0; w < fx_nb_nats; w++)
		n += FX_STAT_GET(&fx_nats[w]->st, nat_active) +
			FX_STAT_GET(&fx_nats[w]->st, nat_held) +
			FX_STAT_GET(&fx_nats[w]->st, nat_blocks_active);
	return n;
}

void
fx_nat_emit(const struct fx_emitter *e, void *ctx)
{
	char name[32];
	unsigned int w;

	e->open(ctx, "totals");
	fx_nat_emit_totals(e, ctx);
	e->close(ctx);
	for (w = 0; w < fx_nb_nats; w++) {
		snprintf(name, sizeof(name), "lcore_%u", fx_nats[w]->lcore_id);
		e->open(ctx, name);
		fx_nat_emit_lcore(fx_nats[w], e, ctx);
		e->close(ctx);
	}
}

/* the drops by classification and by quota, the ones that happened */
static void
drops_summary(FILE *f)
{
	static const char *const names[] = {
#define FX_NAT_NAME(n) #n,
		FX_NAT_DROP_CAUSES(FX_NAT_NAME)
#undef FX_NAT_NAME
		"nat_host_limit", "nat_dest_limit",
	};
	uint64_t v[RTE_DIM(names)];
	const struct fx_nat_stats *st;
	unsigned int w, i, any = 0;

	memset(v, 0, sizeof(v));
	for (w = 0; w < fx_nb_nats; w++) {
		st = &fx_nats[w]->st;
		i = 0;
#define FX_NAT_GET(n) v[i++] += FX_STAT_GET(st, n);
		FX_NAT_DROP_CAUSES(FX_NAT_GET)
#undef FX_NAT_GET
		v[i++] += FX_STAT_GET(st, nat_host_limit);
		v[i++] += FX_STAT_GET(st, nat_dest_limit);
	}
	fputs("masquerade drops:", f);
	for (i = 0; i < RTE_DIM(names); i++) {
		if (v[i] == 0)
			continue;
		/* the counter's name without "nat_drop_" / "nat_" */
		fprintf(f, "%s %s %" PRIu64, any++ ? "," : "",
			names[i] + (strncmp(names[i], "nat_drop_", 9) == 0 ? 9 : 4), v[i]);
	}
	fputs(any ? "\n" : " none\n", f);
}

/* sums over the workers */
struct nat_sums {
	uint64_t created, expired, active, held, released, flushed;
	uint64_t out, in, in_nomatch, no_port, table_full;
	uint64_t ports_free, ports_held, ports_units;
	uint64_t blk_alloc, blk_released, blk_active, blk_limit, blk_exhausted;
};

static void
nat_sums(struct nat_sums *s)
{
	const struct fx_nat *nt;
	unsigned int w;

	memset(s, 0, sizeof(*s));
	for (w = 0; w < fx_nb_nats; w++) {
		nt = fx_nats[w];
		s->created += NGET(nt, nat_created);
		s->expired += NGET(nt, nat_expired);
		s->active += NGET(nt, nat_active);
		s->held += NGET(nt, nat_held);
		s->released += NGET(nt, nat_released);
		s->flushed += NGET(nt, nat_flushed);
		s->out += NGET(nt, nat_out);
		s->in += NGET(nt, nat_in);
		s->in_nomatch += NGET(nt, nat_in_nomatch);
		s->no_port += NGET(nt, nat_no_port);
		s->table_full += NGET(nt, nat_table_full);
		/* the owner's counts of its share, read whole */
		s->ports_free += fx_load_relaxed(&nt->ports.nb_free);
		s->ports_held += fx_load_relaxed(&nt->ports.nb_held);
		s->ports_units += nt->ports.units;
		s->blk_alloc += NGET(nt, nat_block_allocated);
		s->blk_released += NGET(nt, nat_block_released);
		s->blk_active += NGET(nt, nat_blocks_active);
		s->blk_limit += NGET(nt, nat_block_limit);
		s->blk_exhausted += NGET(nt, nat_block_exhausted);
	}
}

/* the previous table's counts, for rates */
static struct {
	uint64_t created[RTE_MAX_LCORE];
	uint64_t expired[RTE_MAX_LCORE];
	uint64_t released[RTE_MAX_LCORE];
} prev;

void
fx_nat_print(FILE *f, double dt)
{
	uint64_t cr, ex, rl;
	const struct fx_nat *nt;
	char a[16], b[16], c[16];
	struct nat_sums s;
	unsigned int w;

	fprintf(f, "nat   %10s %12s %12s %12s %8s %8s %8s %8s %17s %8s\n",
		"live", "held", "created", "expired", "new/s", "exp/s", "rel/s",
		"no port", "lag max/mean ms", "poll max");
	for (w = 0; w < fx_nb_nats; w++) {
		nt = fx_nats[w];
		cr = NGET(nt, nat_created);
		ex = NGET(nt, nat_expired);
		rl = NGET(nt, nat_released);
		fprintf(f, "%5u %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			" %8s %8s %8s %8" PRIu64 " %8.1f/%-8.1f %8" PRIu64 "\n",
			fx_nats[w]->lcore_id, NGET(nt, nat_active), NGET(nt, nat_held),
			cr, ex,
			fx_human((double)(cr - prev.created[w]) / dt, a, sizeof(a)),
			fx_human((double)(ex - prev.expired[w]) / dt, b, sizeof(b)),
			fx_human((double)(rl - prev.released[w]) / dt, c, sizeof(c)),
			NGET(nt, nat_no_port),
			(double)fx_cycles_us(NGET(nt, nat_lag_max)) / 1e3,
			(double)fx_cycles_us(nat_lag_mean(nt)) / 1e3,
			NGET(nt, nat_poll_max));
		prev.created[w] = cr;
		prev.expired[w] = ex;
		prev.released[w] = rl;
	}
	nat_sums(&s);
	fprintf(f, "nat mappings: released %" PRIu64 ", flushed %" PRIu64
		"; translated out %" PRIu64 ", in %" PRIu64 "; inbound without mapping %"
		PRIu64 "; port units free %" PRIu64 ", held %" PRIu64 " of %" PRIu64 "\n",
		s.released, s.flushed, s.out, s.in, s.in_nomatch, s.ports_free,
		s.ports_held, s.ports_units);
}

void
fx_nat_summary(FILE *f)
{
	uint64_t poll_max, lag_max, lag_mean, v;
	struct nat_sums s;
	unsigned int w, t;

	nat_sums(&s);
	nat_maxima(&poll_max, &lag_max, &lag_mean);
	fprintf(f, "masquerade: translated out %" PRIu64 ", in %" PRIu64
		"; inbound without mapping %" PRIu64 ", no port %" PRIu64
		"; port units free %" PRIu64 ", held %" PRIu64 " of %" PRIu64 "\n",
		s.out, s.in, s.in_nomatch, s.no_port, s.ports_free, s.ports_held,
		s.ports_units);
	fprintf(f, "mappings created: %" PRIu64 " (table full %" PRIu64 ")\n",
		s.created, s.table_full);
	fprintf(f, "mappings expired: %" PRIu64 " (", s.expired);
	for (t = 0; t < FX_TMO_MAX; t++) {
		v = 0;
		for (w = 0; w < fx_nb_nats; w++)
			v += NGET(fx_nats[w], nat_expired_tmo[t]);
		fprintf(f, "%s%s %" PRIu64, t ? ", " : "", fx_tmo_names[t], v);
	}
	fputs(")\n", f);
	fprintf(f, "mappings flushed: %" PRIu64 "\n", s.flushed);
	fprintf(f, "mappings released after the hold-down: %" PRIu64 "\n", s.released);
	fprintf(f, "mappings active: %" PRIu64 ", held %" PRIu64 "\n", s.active, s.held);
	if (fx_nat_conf.port_block != 0)
		fprintf(f, "port blocks of %u: allocated %" PRIu64 ", released %" PRIu64
			", active %" PRIu64 "; refused: host at its limit %" PRIu64
			", none free %" PRIu64 "\n", fx_nat_conf.port_block, s.blk_alloc,
			s.blk_released, s.blk_active, s.blk_limit, s.blk_exhausted);
	fprintf(f, "most mappings handled by one NAT expiry poll: %" PRIu64 "\n", poll_max);
	fprintf(f, "NAT expiry lag: max %.3f ms, mean %.3f ms\n",
		(double)fx_cycles_us(lag_max) / 1e3, (double)fx_cycles_us(lag_mean) / 1e3);
	drops_summary(f);
}
