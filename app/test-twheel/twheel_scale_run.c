/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The run harness of twheel_scale_perf_autotest (see twheel_scale.h): one
 * measurement on the first N worker lcores at once, and the table rows
 * that print its rates.
 *
 * Each worker lcore goes IDLE -> ARMED (main: the run's parameters are
 * written) -> READY (the lcore: prepared, waiting for the start) -> DONE
 * (the lcore: timed loop and checks over, results written). The main
 * lcore publishes the run's end, a TSC value, once all are READY, so the
 * timed loops start together within the time it takes each lcore to see
 * one store. The rates divide each lcore's operations by the cycles it
 * spent in its own timed loop, not by the run's nominal length.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "test.h"
#include "twheel_scale.h"

/* how long the main lcore sleeps between looks at a running run */
#define SCALE_WAIT_SLEEP_US 100

enum scale_state {
	SCALE_IDLE,
	SCALE_ARMED,
	SCALE_READY,
	SCALE_DONE,
};

static int
scale_worker(void *arg)
{
	struct scale_lcore *lc = arg;
	struct scale_ctx *c = lc->ctx;
	const struct scale_ops *ops;
	uint64_t end, t0;

	/* acquire: what main wrote before arming us (the ops, lc->arg) */
	while (__atomic_load_n(&lc->state, __ATOMIC_ACQUIRE) != SCALE_ARMED)
		rte_pause();
	ops = c->ops;
	lc->ops = 0;
	lc->cycles = 0;
	lc->ret = ops->prepare != NULL ? ops->prepare(lc) : TEST_SUCCESS;
	/* release: main reads lc->ret once it sees READY */
	__atomic_store_n(&lc->state, SCALE_READY, __ATOMIC_RELEASE);
	/* acquire: pairs with main's release of the end, the start signal */
	while ((end = __atomic_load_n(&c->go_end, __ATOMIC_ACQUIRE)) == 0)
		rte_pause();
	if (lc->ret == TEST_SUCCESS) {
		t0 = rte_rdtsc_precise();
		lc->ops = ops->timed(lc, end);
		lc->cycles = rte_rdtsc_precise() - t0;
		if (ops->finish != NULL)
			lc->ret = ops->finish(lc);
	}
	/* release: the results and the section's state go back to main */
	__atomic_store_n(&lc->state, SCALE_DONE, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Wait until lc[0 .. n-1] are all in state s (acquire: their writes).
 * Sleeping between looks gives the main lcore's CPU to a worker lcore
 * that shares it (--lcores 0@0,2@0) for the length of a run.
 */
static void
scale_wait_all(struct scale_ctx *c, unsigned int n, enum scale_state s,
	       bool sleep)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		while (__atomic_load_n(&c->lc[i].state, __ATOMIC_ACQUIRE) != s) {
			if (sleep)
				rte_delay_us_sleep(SCALE_WAIT_SLEEP_US);
			else
				rte_pause();
		}
}

int
scale_run(struct scale_ctx *c, unsigned int n, const struct scale_ops *ops,
	  scale_main_fn *main_fn, void *main_arg)
{
	int ret = TEST_SUCCESS;
	unsigned int i, launched;
	uint64_t end;

	c->ops = ops;
	/* relaxed: no lcore of this run runs yet; arming below publishes it */
	__atomic_store_n(&c->go_end, 0, __ATOMIC_RELAXED);
	for (launched = 0; launched < n; launched++) {
		struct scale_lcore *lc = &c->lc[launched];

		/* release: c->ops, lc->arg and the section's state */
		__atomic_store_n(&lc->state, SCALE_ARMED, __ATOMIC_RELEASE);
		if (rte_eal_remote_launch(scale_worker, lc, lc->lcore_id) != 0) {
			printf("  lcore %u: cannot launch (busy)\n", lc->lcore_id);
			/* relaxed: it never ran, nobody else reads its state */
			__atomic_store_n(&lc->state, SCALE_IDLE, __ATOMIC_RELAXED);
			ret = TEST_FAILED;
			break;
		}
	}
	scale_wait_all(c, launched, SCALE_READY, false);
	end = rte_rdtsc() + c->env.run_cycles;
	/* release: the start; nothing else is published with it */
	__atomic_store_n(&c->go_end, ret == TEST_SUCCESS ? end : 1, __ATOMIC_RELEASE);
	if (main_fn != NULL && ret == TEST_SUCCESS)
		ret = main_fn(main_arg, end);
	scale_wait_all(c, launched, SCALE_DONE, true);
	for (i = 0; i < launched; i++) {
		rte_eal_wait_lcore(c->lc[i].lcore_id);
		/* relaxed: the lcore has returned; the next arming publishes */
		__atomic_store_n(&c->lc[i].state, SCALE_IDLE, __ATOMIC_RELAXED);
		if (c->lc[i].ret != TEST_SUCCESS)
			ret = TEST_FAILED;
	}
	return ret;
}

unsigned int
scale_next_n(unsigned int n, unsigned int all)
{
	if (n >= all)
		return 0;
	return RTE_MIN(n * 2, all);
}

void
scale_print_not_measured(unsigned int have, const char *what)
{
	printf("  N > %u: skipped, the EAL gave %u %s (give it more, e.g. -l 0-16)\n",
	       have, have, what);
}

double
scale_lcore_rate(const struct scale_ctx *c, const struct scale_lcore *lc)
{
	if (lc->cycles == 0)
		return 0;
	return (double)lc->ops * (double)c->env.hz / (double)lc->cycles;
}

void
scale_print_rates_header(const char *unit)
{
	printf("  %4s %12s %12s %10s %10s %10s   (%s; per lcore: lcore:rate)\n",
	       "N", "all", "per lcore", "min", "max", "efficiency", unit);
}

double
scale_print_rates(const struct scale_ctx *c, unsigned int n, double base,
		  double unit_ops)
{
	double r, sum = 0, lo = 0, hi = 0, mean;
	unsigned int i;

	for (i = 0; i < n; i++) {
		r = scale_lcore_rate(c, &c->lc[i]) / unit_ops;
		sum += r;
		lo = i == 0 ? r : RTE_MIN(lo, r);
		hi = i == 0 ? r : RTE_MAX(hi, r);
	}
	mean = n != 0 ? sum / n : 0;
	printf("  %4u %12.2f %12.2f %10.2f %10.2f %9.0f%%\n", n, sum, mean, lo,
	       hi, base > 0 ? 100.0 * mean / base : 100.0);
	printf("      ");
	for (i = 0; i < n; i++)
		printf(" %u:%.2f", c->lc[i].lcore_id,
		       scale_lcore_rate(c, &c->lc[i]) / unit_ops);
	printf("\n");
	return mean;
}
