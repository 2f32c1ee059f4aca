/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 2 of twheel_scale_perf_autotest: flow churn on every lcore, each
 * lcore a flow table of its own on a lazy-deadline wheel.
 *
 * Each worker lcore has a table of ENTRIES flow slots (struct perf_flow of
 * the perf tests: one line, its lazy deadline first), a wheel of the
 * standard geometry with ENTRIES entries whose deadline_fn reads the
 * flow's deadline (perf_flow_deadline()), and the dense list of its live
 * flows; all on the lcore's socket. The table's clock is virtual: each
 * burst of FLOW_BURST packets moves it on by FLOW_BURST * dt. A packet is
 * one random draw:
 *   - 1 in 8 a new flow: a free slot, its deadline now + timeout, and
 *     twheel_schedule();
 *   - else a hit on a random live flow: its deadline becomes now +
 *     timeout, one store, the wheel untouched (a lazy refresh);
 * and after each burst one twheel_sweep(now, FLOW_BUDGET): every Due
 * record is a flow that was idle for the timeout, which leaves the table.
 *
 * Hits spread evenly over L live flows, a flow is hit every 8L/7 packets
 * on average, and it expires when a gap reaches the timeout T (in
 * packets); new flows come at 1/8 per packet. The table is in balance
 * when 1/8 = L / (mean lifetime), which gives T = L * 8 ln 8 / 7 packets:
 * dt is chosen so that a timeout of FLOW_TIMEOUT_S seconds settles the
 * table at half its slots. It starts there: half the slots are filled
 * before the first run, with deadlines spread over one timeout.
 *
 * The rate is packets per second. After each run the lcore checks its
 * books: flows created - flows expired = flows live = the wheel's live
 * entries, Due records = the wheel's due count, no record for a flow not
 * in the table, none early (deadline after now). After the last run the
 * main lcore drains every wheel: each live flow comes back exactly once.
 */

#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_perf.h"
#include "twheel_scale.h"

#define FLOW_BURST 32
#define FLOW_BUDGET 256
#define FLOW_TIMEOUT_S 2
#define FLOW_NONE UINT32_MAX         /* pos[] of a free slot */
/* 8 ln 8 / 7: a table of L live flows is in balance at a timeout of
 * L * FLOW_BALANCE packets */
#define FLOW_BALANCE 2.3765

/* One lcore's table, on its socket. */
struct flow_lcore {
	struct twheel *w;
	struct perf_flow *flows;     /* the slots; key = the slot's index */
	uint32_t *live;              /* live flows' slots, dense */
	uint32_t *pos;               /* a slot's index in live[], FLOW_NONE */
	uint32_t *free_slots;        /* a stack */
	uint32_t nb_slots, nb_live, nb_free;
	uint64_t now;                /* the table's virtual clock */
	uint64_t dt;                 /* virtual cycles per packet */
	uint64_t timeout;            /* idle timeout, cycles */
	/* since the start */
	uint64_t created, hits, expired, table_full, early, wrong;
	struct twheel_fired out[FLOW_BUDGET];
	bool filled;
};

/* A new flow with the given deadline; false when the table is full. */
static inline bool
flow_add(struct flow_lcore *f, uint64_t deadline)
{
	struct perf_flow *fl;
	uint32_t slot;

	if (unlikely(f->nb_free == 0)) {
		f->table_full++;
		return false;
	}
	slot = f->free_slots[--f->nb_free];
	fl = &f->flows[slot];
	fl->expires = deadline;
	fl->hits = 0;
	fl->id = twheel_schedule(f->w, deadline, fl);
	if (unlikely(fl->id == TWHEEL_ID_INVALID)) {
		/* the wheel holds as many entries as the table has slots */
		f->wrong++;
		f->free_slots[f->nb_free++] = slot;
		return false;
	}
	f->pos[slot] = f->nb_live;
	f->live[f->nb_live++] = slot;
	f->created++;
	return true;
}

/* A flow leaves the table: the last live one takes its place. */
static inline void
flow_remove(struct flow_lcore *f, uint32_t slot)
{
	uint32_t at = f->pos[slot], last = f->live[--f->nb_live];

	f->live[at] = last;
	f->pos[last] = at;
	f->pos[slot] = FLOW_NONE;
	f->free_slots[f->nb_free++] = slot;
}

/* One packet, from one random draw. */
static inline void
flow_packet(struct flow_lcore *f, uint64_t r)
{
	struct perf_flow *fl;

	if ((r & 7) == 0 || f->nb_live == 0) {
		flow_add(f, f->now + f->timeout);
		return;
	}
	fl = &f->flows[f->live[scale_index((uint32_t)(r >> 32), f->nb_live)]];
	fl->expires = f->now + f->timeout;   /* the lazy refresh */
	fl->hits++;
	f->hits++;
}

/* The sweep after a burst: idle flows leave. */
static inline void
flow_sweep(struct flow_lcore *f)
{
	unsigned int n, j;
	struct perf_flow *fl;
	uint32_t slot;

	n = twheel_sweep(f->w, f->now, FLOW_BUDGET, f->out);
	for (j = 0; j < n; j++) {
		fl = f->out[j].payload;
		slot = fl->key;
		if (unlikely(f->out[j].reason != TWHEEL_DUE ||
			     slot >= f->nb_slots || f->pos[slot] == FLOW_NONE ||
			     f->out[j].id != fl->id)) {
			f->wrong++;
			continue;
		}
		f->early += fl->expires > f->now;
		flow_remove(f, slot);
		f->expired++;
	}
}

static uint64_t
flow_timed(struct scale_lcore *lc, uint64_t end)
{
	struct flow_lcore *f = lc->arg;
	uint64_t rng = lc->rng, packets = 0;
	unsigned int i;

	do {
		f->now += FLOW_BURST * f->dt;
		for (i = 0; i < FLOW_BURST; i++)
			flow_packet(f, tw_rand(&rng));
		flow_sweep(f);
		packets += FLOW_BURST;
	} while (rte_rdtsc() < end);
	lc->rng = rng;
	return packets;
}

/* Before the first run: half the slots live, deadlines over one timeout. */
static int
flow_prepare(struct scale_lcore *lc)
{
	struct flow_lcore *f = lc->arg;
	uint32_t i;

	if (f->filled)
		return TEST_SUCCESS;
	for (i = 0; i < f->nb_slots / 2; i++)
		if (!flow_add(f, f->now + scale_below((uint32_t)tw_rand(&lc->rng),
						      f->timeout))) {
			printf("  lcore %u: prefill %u: %s\n", lc->lcore_id, i,
			       rte_strerror(rte_errno));
			return TEST_FAILED;
		}
	f->filled = true;
	return TEST_SUCCESS;
}

/* The books after a run. */
static int
flow_finish(struct scale_lcore *lc)
{
	struct flow_lcore *f = lc->arg;
	struct twheel_stats st;

	twheel_stats_get(f->w, &st);
	if (f->wrong != 0 || f->early != 0 || f->created - f->expired != f->nb_live ||
	    st.live != f->nb_live || st.due != f->expired ||
	    f->nb_live + f->nb_free != f->nb_slots) {
		printf("  lcore %u: created %" PRIu64 ", expired %" PRIu64 " (wheel: due %"
		       PRIu64 "), live %u (wheel: %" PRIu64 "), free %u of %u, %" PRIu64
		       " wrong records, %" PRIu64 " early\n", lc->lcore_id, f->created,
		       f->expired, st.due, f->nb_live, st.live, f->nb_free, f->nb_slots,
		       f->wrong, f->early);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static const struct scale_ops flow_ops = {
	.prepare = flow_prepare,
	.timed = flow_timed,
	.finish = flow_finish,
};

/* On the main lcore after the last run: every live flow back once. */
static int
flow_drain_check(const struct scale_lcore *lc, struct flow_lcore *f)
{
	uint32_t live = f->nb_live, got = 0, bad = 0, slot, k, j;
	struct twheel_stats st;
	struct perf_flow *fl;

	while ((k = twheel_drain(f->w, FLOW_BUDGET, f->out)) != 0) {
		for (j = 0; j < k; j++) {
			fl = f->out[j].payload;
			slot = fl->key;
			if (f->out[j].reason != TWHEEL_CANCELLED || slot >= f->nb_slots ||
			    f->pos[slot] == FLOW_NONE || f->out[j].id != fl->id) {
				bad++;
				continue;
			}
			flow_remove(f, slot);
			got++;
		}
	}
	twheel_stats_get(f->w, &st);
	TEST_ASSERT(got == live && bad == 0 && st.live == 0 && f->nb_live == 0,
		    "lcore %u: drained %u of %u flows, %u wrong records, %" PRIu64
		    " left", lc->lcore_id, got, live, bad, st.live);
	printf("  lcore %u: %" PRIu64 " flows created, %" PRIu64 " expired, %u"
	       " drained at the end, %" PRIu64 " hits; table full %" PRIu64 " times\n",
	       lc->lcore_id, f->created, f->expired, got, f->hits, f->table_full);
	return TEST_SUCCESS;
}

static void
flow_free(struct scale_ctx *c)
{
	struct flow_lcore *f;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		f = c->lc[i].arg;
		if (f == NULL)
			continue;
		twheel_free(f->w);
		rte_free(f->flows);
		rte_free(f->live);
		rte_free(f->pos);
		rte_free(f->free_slots);
		rte_free(f);
		c->lc[i].arg = NULL;
	}
}

/* An lcore's table and wheel, on its socket; false without memory. */
static bool
flow_alloc_one(struct scale_ctx *c, struct scale_lcore *lc)
{
	uint32_t n = c->env.entries, i;
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct twheel_config cfg;
	struct flow_lcore *f;
	int s = lc->socket_id;

	f = lc->arg = rte_zmalloc_socket("scale_flow", sizeof(*f), RTE_CACHE_LINE_SIZE, s);
	if (f == NULL)
		return false;
	snprintf(name, sizeof(name), "scale_fl%u", lc->lcore_id);
	twheel_config_standard(&cfg, name, n, s);
	cfg.remote_ring_size = 0;
	cfg.deadline_fn = perf_flow_deadline;
	f->w = twheel_create(&cfg);
	f->flows = rte_zmalloc_socket("scale_flows", sizeof(*f->flows) * n,
				      RTE_CACHE_LINE_SIZE, s);
	f->live = rte_malloc_socket("scale_live", sizeof(uint32_t) * n, 0, s);
	f->pos = rte_malloc_socket("scale_pos", sizeof(uint32_t) * n, 0, s);
	f->free_slots = rte_malloc_socket("scale_free", sizeof(uint32_t) * n, 0, s);
	if (f->w == NULL || f->flows == NULL || f->live == NULL || f->pos == NULL ||
	    f->free_slots == NULL)
		return false;
	for (i = 0; i < n; i++) {
		f->flows[i].key = i;
		f->pos[i] = FLOW_NONE;
		f->free_slots[i] = n - 1 - i;
	}
	f->nb_slots = f->nb_free = n;
	f->timeout = FLOW_TIMEOUT_S * c->env.hz;
	/* the timeout is L * FLOW_BALANCE packets at L = n / 2 */
	f->dt = RTE_MAX((uint64_t)((double)f->timeout / (FLOW_BALANCE * (n / 2))),
			UINT64_C(1));
	f->now = rte_rdtsc();
	return true;
}

int
scale_flow(struct scale_ctx *c)
{
	unsigned int n, i;
	double base = 0, mean;
	int ret = TEST_SUCCESS;

	printf("\n[2] flow churn, each lcore a table of %u slots on a lazy wheel: 1 packet"
	       " in 8 a new flow, the rest a refresh, a sweep per %u packets; %" PRIu64
	       " ms per N\n", c->env.entries, FLOW_BURST, c->env.ms);
	for (i = 0; i < c->nb_workers; i++)
		if (!flow_alloc_one(c, &c->lc[i])) {
			printf("  skipped: not enough memory for %u tables of %u flows"
			       " (about %u MB each; give the EAL more, -m)\n", c->nb_workers,
			       c->env.entries,
			       (unsigned int)((uint64_t)c->env.entries * 136 >> 20) + 1);
			flow_free(c);
			return TEST_SKIPPED;
		}
	scale_print_rates_header("Mpackets/s");
	for (n = 1; n != 0; n = scale_next_n(n, c->nb_workers)) {
		ret = scale_run(c, n, &flow_ops, NULL, NULL);
		if (ret != TEST_SUCCESS)
			break;
		mean = scale_print_rates(c, n, base, 1e6);
		if (n == 1)
			base = mean;
	}
	if (c->nb_workers == 1)
		scale_print_not_measured(1, "worker lcore");
	for (i = 0; i < c->nb_workers && ret == TEST_SUCCESS; i++)
		ret = flow_drain_check(&c->lc[i], c->lc[i].arg);
	flow_free(c);
	return ret;
}
