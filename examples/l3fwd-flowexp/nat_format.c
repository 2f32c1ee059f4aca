/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT statistics out of the workers' counters (any thread: each counter
 * is read whole, the set is not a snapshot): per worker and totals for
 * the statistics walk (stats.c) and /l3fwd_flowexp/nat, the summary's
 * masquerade line, and the mappings left for --exit-when-drained. The
 * mapping index's own counts (fx_index.h) are nat_index_full, mappings
 * refused at its probe bound (also counted in nat_table_full), and
 * nat_index_lines_max, the most buckets one insert read.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "fx_atomic.h"
#include "lcore.h"
#include "nat.h"
#include "stats.h"
#include "timeouts.h"

void
fx_nat_emit_lcore(const struct fx_nat *nt, const struct fx_emitter *e,
		  void *ctx)
{
	char name[48];
	unsigned int t;

#define FX_NAT_EMIT(n) e->u64(ctx, #n, FX_STAT_GET(&nt->st, n));
	FX_NAT_COUNTERS(FX_NAT_EMIT)
#undef FX_NAT_EMIT
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
	for (w = 0; w < fx_nb_workers; w++) {
		st = &fx_workers[w]->nat.st;
		/* the owner's counts of its index, read whole */
		full += fx_load_relaxed(&fx_workers[w]->nat.tbl.ix.full);
		v = fx_load_relaxed(&fx_workers[w]->nat.tbl.ix.lines_max);
		lines = RTE_MAX(lines, v);
#define FX_NAT_SUM(n) sum.n += FX_STAT_GET(st, n);
		FX_NAT_COUNTERS(FX_NAT_SUM)
#undef FX_NAT_SUM
		for (t = 0; t < FX_TMO_MAX; t++)
			sum.nat_expired_tmo[t] += FX_STAT_GET(st, nat_expired_tmo[t]);
	}
#define FX_NAT_EMIT(n) e->u64(ctx, #n, sum.n);
	FX_NAT_COUNTERS(FX_NAT_EMIT)
#undef FX_NAT_EMIT
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

	for (w = 0; w < fx_nb_workers; w++)
		n += FX_STAT_GET(&fx_workers[w]->nat.st, nat_active) +
			FX_STAT_GET(&fx_workers[w]->nat.st, nat_held);
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
	for (w = 0; w < fx_nb_workers; w++) {
		snprintf(name, sizeof(name), "lcore_%u", fx_workers[w]->lcore_id);
		e->open(ctx, name);
		fx_nat_emit_lcore(&fx_workers[w]->nat, e, ctx);
		e->close(ctx);
	}
}

void
fx_nat_summary(FILE *f)
{
	uint64_t v[7] = { 0 }, free = 0, held = 0, units = 0;
	const struct fx_nat *nt;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		nt = &fx_workers[w]->nat;
		v[0] += FX_STAT_GET(&nt->st, nat_created);
		v[1] += FX_STAT_GET(&nt->st, nat_expired);
		v[2] += FX_STAT_GET(&nt->st, nat_active);
		v[3] += FX_STAT_GET(&nt->st, nat_out);
		v[4] += FX_STAT_GET(&nt->st, nat_in);
		v[5] += FX_STAT_GET(&nt->st, nat_in_nomatch);
		v[6] += FX_STAT_GET(&nt->st, nat_no_port);
		free += nt->ports.nb_free;
		held += nt->ports.nb_held;
		units += nt->ports.units;
	}
	fprintf(f, "masquerade: mappings created %" PRIu64 ", expired %" PRIu64
		", live %" PRIu64 "; translated out %" PRIu64 ", in %" PRIu64
		"; inbound without mapping %" PRIu64 ", no port %" PRIu64
		"; port units free %" PRIu64 ", held %" PRIu64 " of %" PRIu64 "\n",
		v[0], v[1], v[2], v[3], v[4], v[5], v[6], free, held, units);
}
