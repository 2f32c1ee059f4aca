/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 1 of twheel_perf_autotest: DPDK's timer_perf_autotest workload,
 * run on rte_timer and on twheel side by side in one process.
 *
 * For N = 100, 1k, 10k, 100k, 1M (pre-allocated timers/entries):
 *   append   every timer at now + 1 s
 *   (wait 1 s)
 *   callbacks  rte_timer_manage() / twheel_sweep() until all have fired
 *   reset    each at now + rte_rand() % 1 s
 *   (wait 1 s)
 *   expire   let all fire again (dpdk-test does this untimed; timed here,
 *            as it is the random-order expiry)
 * then 10M calls of rte_timer_manage() / twheel_sweep() with no timer, and
 * again with one timer 100 s out.
 *
 * As in dpdk-test, the loops call the library and nothing else: rte_timer
 * with SINGLE timers on this lcore and a callback that counts down; twheel
 * with the standard wheel (10 ms x 8192, remote channels of 4096, fixed
 * deadlines), sweeps of budget 256 and a loop over the records that counts
 * down. rte_timer reads the clock in every reset and manage call; the
 * twheel loops read rte_rdtsc() once per 32 schedules (a burst, as a
 * dataplane would) and once per sweep. A twheel entry fires at the first
 * sweep after its 10 ms tick has ended, so the waits are 1 s plus one tick.
 *
 * append and reset are timed in batches of PERF_BATCH calls and the figure
 * is the median batch, so a phase in which the scheduler took the CPU away
 * (a shared VM) is not inflated; the phase's total / N, which is what
 * dpdk-test prints, is shown beside it. The callbacks are timed as a whole,
 * total / N: rte_timer_manage() walks every expired timer once to mark it
 * running before it calls the first callback, so timing batches of
 * callbacks from inside would leave that walk out. Each measurement is
 * repeated TWHEEL_PERF_REPS times, the two libraries taking turns to go
 * first, and the median is reported.
 *
 * Those phases run on a fresh slab: the warm-up leaves the free stack in
 * allocation order, so an append hands out entries that lie back to back.
 * After hours of flow churn it is a random permutation instead, and every
 * append takes an entry at a random place in the slab. So each repetition
 * also times an append on a churned slab ("append_churned"): every entry of
 * the wheel scheduled and cancelled in a fresh random order, then the same
 * N schedules at now + 1 s, batch-timed like the append phase; then the
 * entries are drained and the free stack put back in allocation order, so
 * the other phases keep their fresh slab.
 *
 * Its ratio is taken against the rte_timer append of the same repetition,
 * timers in array order. rte_timer has no slab: its timer lives in memory
 * the caller owns and has just written (a new flow's entry, its key and
 * state), so in real use rte_timer_reset() finds the timer's line in cache
 * whatever order the caller's allocator hands entries out in. The array
 * streamed by the hardware prefetcher is the measurable stand-in for that
 * warm line; rte_timer on timers in a random order would charge it a miss
 * that its caller, not rte_timer, pays, and flatter twheel. twheel's entry
 * is the library's own memory, so its miss is the library's cost and is
 * kept in the churned figure.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_timer.h>

#include <twheel.h>

#include "test.h"
#include "twheel_perf.h"

#define TP_MAX 1000000u
#define TP_BUDGET 256
#define TP_IDLE_CALLS 10000000u
/* a loop that has not finished after this long has lost entries */
#define TP_STUCK_SECONDS 30

static int rt_outstanding;

static void
rt_count_cb(struct rte_timer *t __rte_unused, void *arg __rte_unused)
{
	rt_outstanding--;
}

struct tp_ctx {
	struct perf_env *pe;
	struct rte_timer *tms;
	struct twheel *w;
	twheel_id_t *ids;            /* the whole wheel, for tw_reorder_slab() */
	uint32_t *perm;              /* a cancel order of the whole wheel */
	uint32_t capacity;
	uint64_t rng;
	struct twheel_fired out[TP_BUDGET];
	struct perf_samples s;
	unsigned int lcore;
	uint64_t ticks;              /* 1 s */
	uint64_t tick_cycles;        /* the wheel's tick */
};

/*
 * Per N and repetition: cycles per op of each phase, each library. The
 * churned append is twheel's alone; its rte_timer column is the append's.
 */
enum tp_phase {
	TP_APPEND, TP_CALLBACKS, TP_RESET, TP_EXPIRE, TP_APPEND_CHURNED,
	TP_NB_PHASES
};
static const char * const tp_phase_name[TP_NB_PHASES] = {
	"append", "callbacks", "reset", "expire_reset", "append_churned",
};
enum { LIB_RT, LIB_TW, NB_LIBS };
static const char * const lib_name[NB_LIBS] = { "rte_timer", "twheel" };

/* n resets at now + 1 s (random: rte_rand() % 1 s), batch-timed. */
static void
rt_reset_n(struct tp_ctx *c, unsigned int n, bool random, unsigned int *fails)
{
	struct rte_timer *tms = c->tms;
	uint64_t ticks = c->ticks;
	unsigned int lcore = c->lcore;
	uint32_t i;

	PERF_TIMED_LOOP(&c->s, n, i,
		*fails += rte_timer_reset(&tms[i],
					  random ? rte_rand() % ticks : ticks,
					  SINGLE, lcore, rt_count_cb, NULL) != 0);
}

/* rte_timer_manage() until n callbacks ran, one sample; -1 if stuck. */
static int
rt_fire_all(struct tp_ctx *c, unsigned int n)
{
	uint64_t t0, stuck = c->pe->hz * TP_STUCK_SECONDS;

	rt_outstanding = (int)n;
	t0 = rte_rdtsc_precise();
	while (rt_outstanding > 0) {
		rte_timer_manage();
		if (unlikely(rte_rdtsc() - t0 > stuck))
			return -1;
	}
	perf_samples_reset(&c->s);
	perf_samples_add(&c->s, rte_rdtsc_precise() - t0, n);
	return rt_outstanding == 0 ? 0 : -1;
}

/* n schedules at now + 1 s (random: now + rte_rand() % 1 s), batch-timed. */
static void
tw_schedule_n(struct tp_ctx *c, unsigned int n, bool random,
	      unsigned int *fails, uint64_t *last_deadline)
{
	struct twheel *w = c->w;
	uint64_t now = 0, d, last = 0, ticks = c->ticks;
	uint32_t i;

	PERF_TIMED_LOOP(&c->s, n, i,
		if ((i & 31) == 0)
			now = rte_rdtsc();
		d = now + (random ? rte_rand() % ticks : ticks);
		*fails += twheel_schedule(w, d, NULL) == TWHEEL_ID_INVALID;
		last = RTE_MAX(last, d));
	*last_deadline = last;
}

/* twheel_sweep() until n entries were due, one sample; -1 if stuck. */
static int
tw_fire_all(struct tp_ctx *c, unsigned int n)
{
	uint64_t t0, stuck = c->pe->hz * TP_STUCK_SECONDS;
	unsigned int left = n, k, j;

	t0 = rte_rdtsc_precise();
	while (left > 0) {
		k = twheel_sweep(c->w, rte_rdtsc(), TP_BUDGET, c->out);
		for (j = 0; j < k; j++)
			left -= c->out[j].reason == TWHEEL_DUE;
		if (unlikely(rte_rdtsc() - t0 > stuck))
			return -1;
	}
	perf_samples_reset(&c->s);
	perf_samples_add(&c->s, rte_rdtsc_precise() - t0, n);
	return 0;
}

/*
 * Put the empty wheel's free stack in a known order: every entry scheduled,
 * then cancelled in c->perm's random order (churned) or highest index first
 * (fresh: the lowest index is handed out first, as after twheel_create()).
 * -1 if a call failed.
 */
static int
tw_reorder_slab(struct tp_ctx *c, bool churned)
{
	uint64_t d = rte_rdtsc() + c->ticks;
	twheel_id_t id;
	uint32_t i, k;

	for (i = 0; i < c->capacity; i++) {
		id = twheel_schedule(c->w, d, NULL);
		if (id == TWHEEL_ID_INVALID)
			return -1;
		c->ids[(uint32_t)id] = id;      /* by slab index */
	}
	if (churned)
		perf_permutation(c->perm, c->capacity, &c->rng);
	for (k = 0; k < c->capacity; k++) {
		i = churned ? c->perm[k] : c->capacity - 1 - k;
		if (twheel_cancel(c->w, c->ids[i]) != 0)
			return -1;
	}
	return 0;
}

/*
 * n schedules at now + 1 s on a churned slab, batch-timed; the samples are
 * left in c->s. The entries are drained and the free stack put back in
 * allocation order after. 0, or -1 if a call failed.
 */
static int
tw_append_churned(struct tp_ctx *c, unsigned int n, unsigned int *fails)
{
	uint64_t last;
	unsigned int k;

	if (tw_reorder_slab(c, true) != 0)
		return -1;
	tw_schedule_n(c, n, false, fails, &last);
	do {
		k = twheel_drain(c->w, TP_BUDGET, c->out);
	} while (k != 0);
	return tw_reorder_slab(c, false);
}

/* One phase on one library; the samples are left in c->s. 0, or -1 if
 * timers were lost. */
static int
tp_phase(struct tp_ctx *c, unsigned int lib, enum tp_phase p, unsigned int n,
	 unsigned int *fails, uint64_t *tw_last)
{
	bool random = p == TP_RESET;

	switch (p) {
	case TP_APPEND_CHURNED:
		/* twheel only; the caller keeps rte_timer's append figure */
		return lib == LIB_TW ? tw_append_churned(c, n, fails) : 0;
	case TP_APPEND:
	case TP_RESET:
		if (lib == LIB_TW)
			tw_schedule_n(c, n, random, fails, tw_last);
		else
			rt_reset_n(c, n, random, fails);
		return 0;
	default:
		return lib == LIB_TW ? tw_fire_all(c, n) : rt_fire_all(c, n);
	}
}

/*
 * One repetition at n: cyc[lib][phase] gets the median batch (cycles per
 * op), mean[lib][phase] the phase's total over n as dpdk-test prints it.
 */
static int
tp_one_rep(struct tp_ctx *c, unsigned int n, unsigned int first,
	   double cyc[NB_LIBS][TP_NB_PHASES], double mean[NB_LIBS][TP_NB_PHASES])
{
	unsigned int fails = 0, p, k, l;
	uint64_t tw_last = 0;

	for (p = 0; p < TP_NB_PHASES; p++) {
		for (k = 0; k < NB_LIBS; k++) {
			l = first ^ k;
			TEST_ASSERT(tp_phase(c, l, p, n, &fails, &tw_last) == 0,
				    "N=%u, %s, %s: not all timers fired",
				    n, lib_name[l], tp_phase_name[p]);
			if (p == TP_APPEND_CHURNED && l == LIB_RT) {
				cyc[l][p] = cyc[l][TP_APPEND];
				mean[l][p] = mean[l][TP_APPEND];
				continue;
			}
			cyc[l][p] = perf_samples_median(&c->s);
			mean[l][p] = perf_samples_mean(&c->s);
		}
		TEST_ASSERT(fails == 0, "N=%u, %s: %u calls failed", n,
			    tp_phase_name[p], fails);
		/* after append and reset: wait until everything is due */
		if (p == TP_APPEND || p == TP_RESET)
			perf_wait_until(RTE_MAX(rte_rdtsc() + c->ticks,
						tw_last + c->tick_cycles) +
					c->pe->hz / 1000);
	}
	return TEST_SUCCESS;
}

/* Cycles per manage/sweep call over calls calls. */
static double
rt_idle(unsigned int calls)
{
	uint64_t t0 = rte_rdtsc();
	unsigned int i;

	for (i = 0; i < calls; i++)
		rte_timer_manage();
	return (double)(rte_rdtsc() - t0) / calls;
}

static double
tw_idle(struct tp_ctx *c, unsigned int calls)
{
	uint64_t t0 = rte_rdtsc();
	unsigned int i, k = 0;

	for (i = 0; i < calls; i++)
		k += twheel_sweep(c->w, rte_rdtsc(), TP_BUDGET, c->out);
	RTE_SET_USED(k);
	return (double)(rte_rdtsc() - t0) / calls;
}

static int
tp_idle(struct tp_ctx *c)
{
	unsigned int calls = c->pe->quick ? TP_IDLE_CALLS / 10 : TP_IDLE_CALLS;
	unsigned int reps = c->pe->reps, r;
	double v[4][100];
	const char *what[4] = { "manage_zero_timers", "manage_zero_timers",
		"manage_one_timer_100s", "manage_one_timer_100s" };
	twheel_id_t id;
	double med[4];
	int i;

	for (r = 0; r < reps; r++) {
		v[0][r] = rt_idle(calls);
		v[1][r] = tw_idle(c, calls);
	}
	rte_timer_reset(&c->tms[0], c->ticks * 100, SINGLE, c->lcore,
			rt_count_cb, NULL);
	id = twheel_schedule(c->w, rte_rdtsc() + c->ticks * 100, NULL);
	TEST_ASSERT(id != TWHEEL_ID_INVALID, "schedule 100 s out");
	for (r = 0; r < reps; r++) {
		v[2][r] = rt_idle(calls);
		v[3][r] = tw_idle(c, calls);
	}
	rte_timer_stop(&c->tms[0]);
	TEST_ASSERT_SUCCESS(twheel_cancel(c->w, id), "the entry 100 s out left early");

	for (i = 0; i < 4; i++) {
		med[i] = perf_median(v[i], reps);
		perf_record(c->pe, "timer_perf", lib_name[i & 1], what[i], calls,
			    "cycles_per_call", med[i], "cycles");
	}
	printf("  idle calls (%u each, median of %u)      rte_timer_manage  twheel_sweep\n",
	       calls, reps);
	printf("    no timer                                   %8.1f      %8.1f cycles\n",
	       med[0], med[1]);
	printf("    one timer 100 s out, nothing due           %8.1f      %8.1f cycles\n",
	       med[2], med[3]);
	return TEST_SUCCESS;
}

static int
tp_run(struct tp_ctx *c)
{
	unsigned int max_n = c->pe->quick ? 10000 : TP_MAX;
	/* TWHEEL_PERF_TIMER_FROM=N starts the series at N (A/B runs at 1M) */
	unsigned int first_n = (unsigned int)test_env_u64("TWHEEL_PERF_TIMER_FROM", 100);
	unsigned int n, r, reps = c->pe->reps, p, l;
	double cyc[100][NB_LIBS][TP_NB_PHASES], mean[100][NB_LIBS][TP_NB_PHASES];
	double med[NB_LIBS][TP_NB_PHASES], tmp[100];
	unsigned int i;
	int ret;

	/* warm-up: touch every timer and entry, and the code, untimed */
	for (i = 0; i < max_n; i++)
		rte_timer_reset(&c->tms[i], c->ticks, SINGLE, c->lcore,
				rt_count_cb, NULL);
	for (i = max_n; i-- > 0;)
		rte_timer_stop(&c->tms[i]);
	/* the free stack hands out entries in allocation order */
	TEST_ASSERT(tw_reorder_slab(c, false) == 0, "warm-up: a twheel call failed");

	printf("\n[1] timer_perf_autotest workload (cycles per timer, median of %u; append, reset: median batch of %d,\n"
	       "    callbacks, expiry: total / N; in brackets total / N as dpdk-test prints it; ratio = rte_timer / twheel)\n",
	       reps, PERF_BATCH);
	printf("  %9s  %-14s %20s %20s %9s\n", "N", "phase", "rte_timer",
	       "twheel", "ratio");
	for (n = first_n; n <= max_n; n *= 10) {
		for (r = 0; r < reps; r++) {
			ret = tp_one_rep(c, n, r & 1, cyc[r], mean[r]);
			if (ret != TEST_SUCCESS)
				return ret;
		}
		for (l = 0; l < NB_LIBS; l++)
			for (p = 0; p < TP_NB_PHASES; p++) {
				for (r = 0; r < reps; r++)
					tmp[r] = cyc[r][l][p];
				med[l][p] = perf_median(tmp, reps);
				perf_record(c->pe, "timer_perf", lib_name[l],
					    tp_phase_name[p], n, "cycles_per_op",
					    med[l][p], "cycles");
				for (r = 0; r < reps; r++)
					tmp[r] = mean[r][l][p];
				perf_record(c->pe, "timer_perf", lib_name[l],
					    tp_phase_name[p], n, "total_over_n",
					    perf_median(tmp, reps), "cycles");
			}
		for (p = 0; p < TP_NB_PHASES; p++) {
			perf_record(c->pe, "timer_perf", "ratio", tp_phase_name[p],
				    n, "rte_timer_over_twheel",
				    med[LIB_RT][p] / med[LIB_TW][p], "x");
			printf("  %9u  %-14s %9.1f (%8.1f) %9.1f (%8.1f) %8.1fx\n", n,
			       tp_phase_name[p], med[LIB_RT][p],
			       perf_lookup("timer_perf", "rte_timer", tp_phase_name[p],
					   n, "total_over_n"),
			       med[LIB_TW][p],
			       perf_lookup("timer_perf", "twheel", tp_phase_name[p],
					   n, "total_over_n"),
			       med[LIB_RT][p] / med[LIB_TW][p]);
		}
	}
	return tp_idle(c);
}

int
perf_timer_workload(struct perf_env *pe)
{
	struct twheel_config cfg;
	struct tp_ctx *c;
	unsigned int i, max_n = pe->quick ? 10000 : TP_MAX;
	int ret;

	ret = rte_timer_subsystem_init();
	TEST_ASSERT(ret == 0 || ret == -EALREADY, "rte_timer_subsystem_init: %d", ret);
	c = calloc(1, sizeof(*c));
	TEST_ASSERT_NOT_NULL(c, "no memory");
	c->pe = pe;
	c->lcore = rte_lcore_id();
	c->ticks = rte_get_timer_hz();
	/* as dpdk-test: one array from rte_malloc */
	c->tms = rte_malloc(NULL, sizeof(*c->tms) * max_n, 0);
	c->capacity = max_n;
	c->rng = pe->seed;
	c->ids = malloc(sizeof(*c->ids) * max_n);
	c->perm = malloc(sizeof(*c->perm) * max_n);
	twheel_config_standard(&cfg, "perf_tp", max_n, rte_socket_id());
	c->tick_cycles = cfg.tick_cycles;
	c->w = twheel_create(&cfg);
	if (c->tms == NULL || c->w == NULL || c->ids == NULL || c->perm == NULL) {
		printf("timer workload: no memory for %u timers (%s); use -m\n",
		       max_n, c->w == NULL ? rte_strerror(rte_errno) : "rte_malloc");
		ret = TEST_FAILED;
	} else {
		for (i = 0; i < max_n; i++)
			rte_timer_init(&c->tms[i]);
		ret = perf_samples_init(&c->s, max_n / PERF_BATCH + 2) == 0 ?
			tp_run(c) : TEST_FAILED;
	}
	perf_samples_free(&c->s);
	twheel_free(c->w);
	rte_free(c->tms);
	free(c->ids);
	free(c->perm);
	free(c);
	return ret;
}
