/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 1 of twheel_scale_perf_autotest: twheel_move() on every lcore,
 * each lcore the owner of its own wheel.
 *
 * Each worker lcore has a wheel of the standard geometry (10 ms x 8192,
 * no remote ring) and ENTRIES entries, all live, scheduled once before the
 * first run at 1 to 80 s after the wheel's start; the wheel's memory and
 * the array of ids are on the lcore's socket. A run: the lcore moves
 * random entries to random deadlines 1 to 80 s out, as fast as it can,
 * for TWHEEL_SCALE_MS, in batches of MOVE_BATCH between two reads of the
 * TSC. Nothing is swept (time stands still for the wheel), so every move
 * re-files the entry (an earlier deadline) or stores it (a later one),
 * the two halves of a re-arm. Each move must return 0.
 *
 * After the last run the main lcore, to which the wheels go back with the
 * run's end, drains every wheel: each entry must come back exactly once,
 * with the id it was given, and the wheel must then be empty.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_scale.h"

#define MOVE_BATCH 64
#define MOVE_DRAIN_BUDGET 256

/* One lcore's part, on its socket. */
struct move_lcore {
	struct twheel *w;
	twheel_id_t *ids;            /* by entry; each entry's payload is its slot */
	uint64_t start;              /* the wheel's time: deadlines count from it */
	uint64_t run_fails;          /* moves of the last run that failed */
	bool filled;
};

static int
move_prepare(struct scale_lcore *lc)
{
	struct move_lcore *m = lc->arg;
	uint64_t hz = lc->ctx->env.hz;
	uint32_t i, n = lc->ctx->env.entries;

	m->run_fails = 0;
	if (m->filled)
		return TEST_SUCCESS;
	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)tw_rand(&lc->rng);

		m->ids[i] = twheel_schedule(m->w, m->start + hz +
					    scale_below(r, 79 * hz), &m->ids[i]);
		if (m->ids[i] == TWHEEL_ID_INVALID) {
			printf("  lcore %u: schedule %u of %u: %s\n", lc->lcore_id,
			       i, n, rte_strerror(rte_errno));
			return TEST_FAILED;
		}
	}
	m->filled = true;
	return TEST_SUCCESS;
}

static uint64_t
move_timed(struct scale_lcore *lc, uint64_t end)
{
	struct move_lcore *m = lc->arg;
	struct twheel *w = m->w;
	const twheel_id_t *ids = m->ids;
	const uint32_t n = lc->ctx->env.entries;
	const uint64_t first = m->start + lc->ctx->env.hz;
	const uint64_t span = 79 * lc->ctx->env.hz;
	uint64_t rng = lc->rng, ops = 0, fails = 0, r;
	unsigned int i;

	do {
		for (i = 0; i < MOVE_BATCH; i++) {
			r = tw_rand(&rng);
			fails += twheel_move(w, ids[scale_index((uint32_t)r, n)],
					     first + scale_below(r >> 32, span)) != 0;
		}
		ops += MOVE_BATCH;
	} while (rte_rdtsc() < end);
	lc->rng = rng;
	m->run_fails = fails;
	return ops;
}

static int
move_finish(struct scale_lcore *lc)
{
	struct move_lcore *m = lc->arg;
	struct twheel_stats st;

	twheel_stats_get(m->w, &st);
	if (m->run_fails != 0 || st.live != lc->ctx->env.entries) {
		printf("  lcore %u: %" PRIu64 " of %" PRIu64 " moves failed, %" PRIu64
		       " entries live of %u\n", lc->lcore_id, m->run_fails, lc->ops,
		       st.live, lc->ctx->env.entries);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static const struct scale_ops move_ops = {
	.prepare = move_prepare,
	.timed = move_timed,
	.finish = move_finish,
};

/*
 * Drain a wheel on the main lcore: every entry back once, with its id.
 * The array of ids marks what came back.
 */
static int
move_drain_check(const struct scale_lcore *lc, struct move_lcore *m)
{
	struct twheel_fired out[MOVE_DRAIN_BUDGET];
	uint32_t n = lc->ctx->env.entries, got = 0, bad = 0, k, j;
	struct twheel_stats st;
	twheel_id_t *slot;

	while ((k = twheel_drain(m->w, RTE_DIM(out), out)) != 0) {
		for (j = 0; j < k; j++) {
			slot = out[j].payload;
			if (out[j].reason != TWHEEL_CANCELLED || slot < m->ids ||
			    slot >= m->ids + n || *slot != out[j].id) {
				bad++;
				continue;
			}
			*slot = TWHEEL_ID_INVALID;
			got++;
		}
	}
	twheel_stats_get(m->w, &st);
	TEST_ASSERT(got == n && bad == 0 && st.live == 0,
		    "lcore %u: drained %u of %u entries, %u wrong records, %" PRIu64
		    " left", lc->lcore_id, got, n, bad, st.live);
	return TEST_SUCCESS;
}

static void
move_free(struct scale_ctx *c)
{
	struct move_lcore *m;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		m = c->lc[i].arg;
		if (m == NULL)
			continue;
		twheel_free(m->w);
		rte_free(m->ids);
		rte_free(m);
		c->lc[i].arg = NULL;
	}
}

/* Each lcore's wheel and ids, on its socket; TEST_SKIPPED without memory. */
static int
move_alloc(struct scale_ctx *c)
{
	struct twheel_config cfg;
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct scale_lcore *lc;
	struct move_lcore *m;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		lc = &c->lc[i];
		m = rte_zmalloc_socket("scale_move", sizeof(*m), RTE_CACHE_LINE_SIZE,
				       lc->socket_id);
		lc->arg = m;
		if (m == NULL)
			return TEST_SKIPPED;
		snprintf(name, sizeof(name), "scale_mv%u", lc->lcore_id);
		twheel_config_standard(&cfg, name, c->env.entries, lc->socket_id);
		cfg.remote_ring_size = 0;
		m->w = twheel_create(&cfg);
		m->ids = rte_malloc_socket("scale_move_ids",
					   sizeof(*m->ids) * c->env.entries,
					   RTE_CACHE_LINE_SIZE, lc->socket_id);
		if (m->w == NULL || m->ids == NULL)
			return TEST_SKIPPED;
		m->start = rte_rdtsc();
	}
	return TEST_SUCCESS;
}

int
scale_move(struct scale_ctx *c)
{
	unsigned int n, i;
	double base = 0, mean;
	int ret;

	printf("\n[1] twheel_move, each lcore its own wheel of %u entries, random"
	       " entry and deadline (1-80 s), %" PRIu64 " ms per N\n",
	       c->env.entries, c->env.ms);
	ret = move_alloc(c);
	if (ret != TEST_SUCCESS) {
		printf("  skipped: not enough memory for %u wheels of %u entries"
		       " (about %u MB each; give the EAL more, -m)\n", c->nb_workers,
		       c->env.entries, (unsigned int)((uint64_t)c->env.entries * 64 >> 20) + 1);
		move_free(c);
		return ret;
	}
	scale_print_rates_header("Mmoves/s");
	for (n = 1; n != 0 && ret == TEST_SUCCESS; n = scale_next_n(n, c->nb_workers)) {
		ret = scale_run(c, n, &move_ops, NULL, NULL);
		if (ret != TEST_SUCCESS)
			break;
		mean = scale_print_rates(c, n, base, 1e6);
		if (n == 1)
			base = mean;
	}
	if (c->nb_workers == 1)
		scale_print_not_measured(1, "worker lcore");
	for (i = 0; i < c->nb_workers && ret == TEST_SUCCESS; i++)
		ret = move_drain_check(&c->lc[i], c->lc[i].arg);
	move_free(c);
	return ret;
}
