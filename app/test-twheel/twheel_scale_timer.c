/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 3 of twheel_scale_perf_autotest: rte_timer beside twheel, the
 * same sweep of N, the same random re-arm.
 *
 * Each worker lcore has ENTRIES rte_timers of its own (an array on its
 * socket, rte_timer_subsystem_init() as the perf tests call it). Before
 * its first run an lcore arms all of them, 1 to 80 s out; a run re-arms
 * random ones to random deadlines 1 to 80 s out with rte_timer_reset(),
 * as fast as it can, in batches of TIMER_BATCH between two reads of the
 * TSC. Two lists, each a sweep of N:
 *   own     each lcore arms its timers on itself (tim_lcore = the lcore),
 *           as a dataplane that keeps its flows' timers does: its own
 *           skiplist of ENTRIES timers under its own lock;
 *   shared  every lcore arms its timers on one fixed lcore, the main
 *           lcore (which only waits meanwhile): one skiplist of N x
 *           ENTRIES timers and one lock for all of them.
 * Nothing is managed during the runs, so nothing fires: after each run
 * every re-arm must have returned 0 and every timer of the lcore must be
 * pending. After the last run of a list every timer must leave: each
 * lcore stops the even ones and re-arms the odd ones to fire at once;
 * the lcore that holds the list (the lcore itself, or the main lcore)
 * runs rte_timer_manage() until each of them fired, and then no timer
 * may be pending.
 *
 * Both lists run under ThreadSanitizer too: the test touches a timer
 * only through rte_timer's functions (DPDK's, not instrumented), and a
 * callback's count belongs to the lcore that runs the list's callbacks,
 * handed to the main lcore through the harness's release and acquire.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_scale.h"

#define TIMER_BATCH 16
/* a list whose timers have not all fired by then has lost some */
#define TIMER_FIRE_SECONDS 30

/* One lcore's timers, on its socket. */
struct timer_lcore {
	struct rte_timer *tms;
	unsigned int target;         /* tim_lcore of every reset */
	bool armed;
	uint64_t run_fails;          /* resets of the last run that failed */
	uint64_t pending;            /* timers pending after the last run */
	uint64_t stopped;            /* by the settling run */
	uint64_t fired;              /* callbacks, on the list's lcore */
};

static void
timer_fired(struct rte_timer *t __rte_unused, void *arg)
{
	struct timer_lcore *tl = arg;

	tl->fired++;
}

static int
timer_prepare(struct scale_lcore *lc)
{
	struct timer_lcore *tl = lc->arg;
	uint64_t hz = lc->ctx->env.hz;
	uint32_t i, n = lc->ctx->env.entries;

	tl->run_fails = 0;
	if (tl->armed)
		return TEST_SUCCESS;
	for (i = 0; i < n; i++)
		if (rte_timer_reset(&tl->tms[i], hz + scale_below((uint32_t)tw_rand(&lc->rng),
								  79 * hz),
				    SINGLE, tl->target, timer_fired, tl) != 0) {
			printf("  lcore %u: arming timer %u failed\n", lc->lcore_id, i);
			return TEST_FAILED;
		}
	tl->armed = true;
	return TEST_SUCCESS;
}

static uint64_t
timer_timed(struct scale_lcore *lc, uint64_t end)
{
	struct timer_lcore *tl = lc->arg;
	struct rte_timer *tms = tl->tms;
	const unsigned int target = tl->target;
	const uint32_t n = lc->ctx->env.entries;
	const uint64_t first = lc->ctx->env.hz;
	const uint64_t span = 79 * lc->ctx->env.hz;
	uint64_t rng = lc->rng, ops = 0, fails = 0, r;
	unsigned int i;

	do {
		for (i = 0; i < TIMER_BATCH; i++) {
			r = tw_rand(&rng);
			fails += rte_timer_reset(&tms[scale_index((uint32_t)r, n)],
						 first + scale_below(r >> 32, span),
						 SINGLE, target, timer_fired, tl) != 0;
		}
		ops += TIMER_BATCH;
	} while (rte_rdtsc() < end);
	lc->rng = rng;
	tl->run_fails = fails;
	return ops;
}

static int
timer_finish(struct scale_lcore *lc)
{
	struct timer_lcore *tl = lc->arg;
	uint32_t i, n = lc->ctx->env.entries;

	tl->pending = 0;
	for (i = 0; i < n; i++)
		tl->pending += rte_timer_pending(&tl->tms[i]) != 0;
	if (tl->run_fails != 0 || tl->pending != n || tl->fired != 0) {
		printf("  lcore %u: %" PRIu64 " of %" PRIu64 " resets failed, %" PRIu64
		       " of %u timers pending, %" PRIu64 " fired\n", lc->lcore_id,
		       tl->run_fails, lc->ops, tl->pending, n, tl->fired);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static const struct scale_ops timer_ops = {
	.prepare = timer_prepare,
	.timed = timer_timed,
	.finish = timer_finish,
};

/* rte_timer_manage() on this lcore until tl has want callbacks, or time. */
static bool
timer_manage_until(struct timer_lcore *tl, uint64_t want, uint64_t hz)
{
	uint64_t give_up = rte_rdtsc() + TIMER_FIRE_SECONDS * hz;

	while (tl->fired < want && rte_rdtsc() < give_up)
		rte_timer_manage();
	return tl->fired == want;
}

/* The settling run: stop the even timers, fire the odd ones. */
static int
timer_settle(struct scale_lcore *lc)
{
	struct timer_lcore *tl = lc->arg;
	uint32_t i, n = lc->ctx->env.entries;
	unsigned int fails = 0;

	for (i = 0; i < n; i += 2)
		tl->stopped += rte_timer_stop(&tl->tms[i]) == 0;
	for (i = 1; i < n; i += 2)
		fails += rte_timer_reset(&tl->tms[i], 0, SINGLE, tl->target,
					 timer_fired, tl) != 0;
	if (fails != 0) {
		printf("  lcore %u: %u timers could not be re-armed to fire\n",
		       lc->lcore_id, fails);
		return TEST_FAILED;
	}
	/* its own list: it fires them itself; the shared one is the main's */
	if (tl->target == lc->lcore_id &&
	    !timer_manage_until(tl, n / 2, lc->ctx->env.hz))
		printf("  lcore %u: %" PRIu64 " of %u timers fired\n", lc->lcore_id,
		       tl->fired, n / 2);
	return TEST_SUCCESS;
}

static uint64_t
timer_nothing(struct scale_lcore *lc __rte_unused, uint64_t end __rte_unused)
{
	return 0;
}

static const struct scale_ops timer_settle_ops = {
	.prepare = timer_settle,
	.timed = timer_nothing,
};

/*
 * Every timer of the list out: stopped or fired, none pending. On the main
 * lcore, which runs the shared list's callbacks.
 */
static int
timer_settle_all(struct scale_ctx *c, bool shared)
{
	uint32_t n = c->env.entries, i, k, pending;
	struct timer_lcore *tl;
	int ret;

	ret = scale_run(c, c->nb_workers, &timer_settle_ops, NULL, NULL);
	for (k = 0; k < c->nb_workers && ret == TEST_SUCCESS; k++) {
		tl = c->lc[k].arg;
		if (shared)
			timer_manage_until(tl, n / 2, c->env.hz);
		for (i = 0, pending = 0; i < n; i++)
			pending += rte_timer_pending(&tl->tms[i]) != 0;
		TEST_ASSERT(tl->stopped == (n + 1) / 2 && tl->fired == n / 2 &&
			    pending == 0, "lcore %u: of %u timers %" PRIu64 " stopped, %"
			    PRIu64 " fired, %u still pending", c->lc[k].lcore_id, n,
			    tl->stopped, tl->fired, pending);
	}
	return ret;
}

/* One list: the sweep of N, then every timer out. */
static int
timer_list(struct scale_ctx *c, bool shared)
{
	unsigned int n, i, main_lcore = rte_get_main_lcore();
	double base = 0, mean;
	struct timer_lcore *tl;
	int ret = TEST_SUCCESS;

	printf("  %s\n", shared ?
	       "one shared list: every lcore arms its timers on the main lcore" :
	       "own list: each lcore arms its timers on itself");
	for (i = 0; i < c->nb_workers; i++) {
		tl = c->lc[i].arg;
		tl->target = shared ? main_lcore : c->lc[i].lcore_id;
		tl->armed = false;
		tl->stopped = tl->fired = 0;
	}
	scale_print_rates_header("Mresets/s");
	for (n = 1; n != 0; n = scale_next_n(n, c->nb_workers)) {
		ret = scale_run(c, n, &timer_ops, NULL, NULL);
		if (ret != TEST_SUCCESS)
			break;
		mean = scale_print_rates(c, n, base, 1e6);
		if (n == 1)
			base = mean;
	}
	if (c->nb_workers == 1)
		scale_print_not_measured(1, "worker lcore");
	if (ret == TEST_SUCCESS)
		ret = timer_settle_all(c, shared);
	return ret;
}

static void
timer_free(struct scale_ctx *c)
{
	struct timer_lcore *tl;
	unsigned int i;
	uint32_t k;

	for (i = 0; i < c->nb_workers; i++) {
		tl = c->lc[i].arg;
		if (tl == NULL)
			continue;
		/* none may stay on a list once its memory goes (after a failure) */
		for (k = 0; tl->tms != NULL && k < c->env.entries; k++)
			rte_timer_stop(&tl->tms[k]);
		rte_free(tl->tms);
		rte_free(tl);
		c->lc[i].arg = NULL;
	}
}

/* Each lcore's timers, initialised, on its socket; false without memory. */
static bool
timer_alloc(struct scale_ctx *c)
{
	uint32_t n = c->env.entries, i, k;
	struct timer_lcore *tl;

	for (k = 0; k < c->nb_workers; k++) {
		tl = rte_zmalloc_socket("scale_timer", sizeof(*tl), RTE_CACHE_LINE_SIZE,
					c->lc[k].socket_id);
		c->lc[k].arg = tl;
		if (tl == NULL)
			return false;
		tl->tms = rte_malloc_socket("scale_timers", sizeof(*tl->tms) * n,
					    RTE_CACHE_LINE_SIZE, c->lc[k].socket_id);
		if (tl->tms == NULL)
			return false;
		for (i = 0; i < n; i++)
			rte_timer_init(&tl->tms[i]);
	}
	return true;
}

int
scale_timer(struct scale_ctx *c)
{
	int init, ret;

	printf("\n[3] rte_timer_reset, each lcore %u timers of its own, random timer and"
	       " deadline (1-80 s), %" PRIu64 " ms per N\n", c->env.entries, c->env.ms);
	init = rte_timer_subsystem_init();
	TEST_ASSERT(init == 0 || init == -EALREADY, "rte_timer_subsystem_init: %d", init);
	if (!timer_alloc(c)) {
		printf("  skipped: not enough memory for %u x %u rte_timers (%zu MB"
		       " per lcore; give the EAL more, -m)\n", c->nb_workers,
		       c->env.entries, (sizeof(struct rte_timer) * c->env.entries >> 20) + 1);
		timer_free(c);
		ret = TEST_SKIPPED;
	} else {
		ret = timer_list(c, false);
		if (ret == TEST_SUCCESS)
			ret = timer_list(c, true);
		timer_free(c);
	}
	if (init == 0)
		rte_timer_subsystem_finalize();
	return ret;
}
