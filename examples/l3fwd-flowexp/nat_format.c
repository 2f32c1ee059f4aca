/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT statistics out of the workers' counters (any thread: each counter
 * is read whole, the set is not a snapshot): per worker and totals for
 * the statistics walk (stats.c) and /l3fwd_flowexp/nat, the summary's
 * masquerade lines (what was translated; what classification and the
 * quotas dropped, by cause), and the mappings left for
 * --exit-when-drained.
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
	char name[48];
	unsigned int w, t;

	memset(&sum, 0, sizeof(sum));
	for (w = 0; w < fx_nb_workers; w++) {
		st = &fx_workers[w]->nat.st;
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
	for (w = 0; w < fx_nb_workers; w++) {
		st = &fx_workers[w]->nat.st;
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
	drops_summary(f);
}
