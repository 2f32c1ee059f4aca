/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The main lcore's neighbour counters (l3/neigh_stats.h, FX_NEIGH_COUNTERS):
 * their storage, one struct per port, and their reading for the
 * statistics and the telemetry.
 *
 * The main lcore is each counter's only writer (FX_NEIGH_COUNT(),
 * l3/neigh_stats.h: a relaxed store of its own value plus n); readers on
 * any thread load each with a relaxed load, so they see whole values, in
 * no particular order with each other: a copy may show a packet counted
 * in one counter and not yet in the next. The sum over the ports is of
 * the ports with addresses, the only ones the main lcore counts for.
 * This file calls nothing of the other neighbour files.
 */

#include <stdio.h>
#include <string.h>

#include "base/atomic.h"
#include "fwd/neigh.h"
#include "l3/neigh_fsm.h"
#include "l3/neigh_stats.h"

struct fx_neigh_port_stats fx_neigh_counters[FX_MAX_PORTS];

void
fx_neigh_port_stats(uint16_t port, struct fx_neigh_port_stats *st)
{
	const struct fx_neigh_port_stats *s = &fx_neigh_counters[port];
	unsigned int i;

#define FX_NEIGH_COPY(n) st->n = fx_load_relaxed(&s->n);
	FX_NEIGH_COUNTERS(FX_NEIGH_COPY)
#undef FX_NEIGH_COPY
	for (i = 0; i < FX_NS_MAX; i++)
		st->state[i] = fx_load_relaxed(&s->state[i]);
	st->held = fx_load_relaxed(&s->held);
}

/* one set of counters, under the emitter's current object */
static void
emit_stats(const struct fx_neigh_port_stats *st, const struct fx_emitter *e, void *ctx)
{
	char name[48];
	unsigned int i;

#define FX_NEIGH_EMIT(n) e->u64(ctx, #n, st->n);
	FX_NEIGH_COUNTERS(FX_NEIGH_EMIT)
#undef FX_NEIGH_EMIT
	for (i = 1; i < FX_NS_MAX; i++) {
		snprintf(name, sizeof(name), "entries_%s", fx_nstate_names[i]);
		e->u64(ctx, name, st->state[i]);
	}
	e->u64(ctx, "held", st->held);
}

void
fx_neigh_emit_port(uint16_t port, const struct fx_emitter *e, void *ctx)
{
	struct fx_neigh_port_stats st;

	fx_neigh_port_stats(port, &st);
	emit_stats(&st, e, ctx);
}

void
fx_neigh_emit(const struct fx_emitter *e, void *ctx)
{
	struct fx_neigh_port_stats sum, st;
	bool any_port = false;
	unsigned int i;
	uint16_t p;

	memset(&sum, 0, sizeof(sum));
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!fx_l3.local[p])
			continue;
		any_port = true;
		fx_neigh_port_stats(p, &st);
#define FX_NEIGH_SUM(n) sum.n += st.n;
		FX_NEIGH_COUNTERS(FX_NEIGH_SUM)
#undef FX_NEIGH_SUM
		for (i = 0; i < FX_NS_MAX; i++)
			sum.state[i] += st.state[i];
		sum.held += st.held;
	}
	/* no port has addresses: neighbours are off, no "neigh" object */
	if (!any_port)
		return;
	e->open(ctx, "neigh");
	emit_stats(&sum, e, ctx);
	e->close(ctx);
}
