/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The benchmark harness shared by the perf autotests (perf-tests suite):
 * run-time knobs from the environment, timed batches and their medians,
 * random permutations, waiting on the TSC, CSV rows for plotting, and a
 * table of named results from which the targets are judged.
 *
 * Knobs (all optional):
 *   TWHEEL_PERF_QUICK=1      smoke run: small sizes, one repetition
 *   TWHEEL_PERF_REPS=n       repetitions per measurement (default 3)
 *   TWHEEL_PERF_SIZES=a,b,.. flow workload sizes (default 1000000,4000000)
 *   TWHEEL_PERF_SEED=n       seed of every random sequence
 *   TWHEEL_PERF_CSV=path     append one CSV row per figure to path
 *   TWHEEL_PERF_STRICT=1     a missed target fails the test
 *   TWHEEL_PERF_SECTIONS=... twheel_perf_autotest: a subset of timer,flow,mem
 *   TWHEEL_PERF_TWHEEL_ONLY=1 flow workloads without rte_timer (A/B runs of
 *                            library changes)
 *   TWHEEL_PERF_TIMER_FROM=N timer workload from N up (100 by default)
 */

#ifndef _TWHEEL_PERF_H_
#define _TWHEEL_PERF_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>

/* ops per timed batch: long enough to hide rdtsc, short enough for medians */
#define PERF_BATCH 1024

struct perf_env {
	bool quick;
	bool strict;
	bool twheel_only;            /* flow workloads without rte_timer */
	unsigned int reps;
	uint64_t seed;
	uint64_t hz;                 /* rte_get_tsc_hz() */
	uint32_t sizes[8];           /* flow workload sizes */
	unsigned int nb_sizes;
	FILE *csv;                   /* NULL: no CSV */
	const char *memory;          /* "hugepages" or "no-huge" */
	const char *test_name;       /* first column of the CSV */
};

/* Read the knobs, open the CSV; prints what it will do. 0 or -1. */
int perf_env_init(struct perf_env *pe, const char *test_name);
void perf_env_close(struct perf_env *pe);

/* Samples of one measurement: cycles per op of each timed batch. */
struct perf_samples {
	double *v;
	uint64_t n, cap;
	uint64_t cycles, ops;        /* totals, for the mean */
};

int perf_samples_init(struct perf_samples *s, uint64_t cap);
void perf_samples_free(struct perf_samples *s);
void perf_samples_reset(struct perf_samples *s);

static inline void
perf_samples_add(struct perf_samples *s, uint64_t cycles, uint64_t ops)
{
	if (s->n < s->cap)
		s->v[s->n++] = (double)cycles / (double)ops;
	s->cycles += cycles;
	s->ops += ops;
}

/*
 * Time body for k = 0 .. n-1 in batches of PERF_BATCH, one sample per batch
 * (cycles per op). body must not contain a top-level comma.
 */
#define PERF_TIMED_LOOP(s, n, k, body) do {				\
	uint64_t _b, _e, _t0;						\
	perf_samples_reset(s);						\
	for (_b = 0; _b < (uint64_t)(n); _b = _e) {			\
		_e = RTE_MIN(_b + PERF_BATCH, (uint64_t)(n));		\
		_t0 = rte_rdtsc_precise();				\
		for ((k) = (uint32_t)_b; (k) < _e; (k)++) {		\
			body;						\
		}							\
		perf_samples_add(s, rte_rdtsc_precise() - _t0, _e - _b); \
	}								\
} while (0)

/* Median of the batch samples (cycles per op); 0 without samples. */
double perf_samples_median(const struct perf_samples *s);
/* Quantile q in [0, 1] of the batch samples. */
double perf_samples_quantile(const struct perf_samples *s, double q);
static inline double
perf_samples_mean(const struct perf_samples *s)
{
	return s->ops != 0 ? (double)s->cycles / (double)s->ops : 0;
}

/* Median of n values (n >= 1); v is reordered. */
double perf_median(double *v, unsigned int n);

/* Fill p with a random permutation of 0 .. n-1. */
void perf_permutation(uint32_t *p, uint32_t n, uint64_t *rng);

/* A new random visiting order, and a value base + [0, span) per visit. */
void perf_shuffle(uint32_t *order, uint64_t *rel, uint32_t n, uint64_t base,
		  uint64_t span, uint64_t *rng);

/* Spin until the TSC reaches t. */
static inline void
perf_wait_until(uint64_t t)
{
	while (rte_rdtsc() < t)
		rte_pause();
}

/* One figure: kept for the targets, printed to the CSV. */
void perf_record(struct perf_env *pe, const char *section, const char *library,
		 const char *workload, uint64_t n, const char *metric,
		 double value, const char *unit);
/* A recorded figure by its key, or NAN. */
double perf_lookup(const char *section, const char *library,
		   const char *workload, uint64_t n, const char *metric);
void perf_results_clear(void);

/* Cycles to nanoseconds and microseconds. */
static inline double
perf_ns(const struct perf_env *pe, double cycles)
{
	return cycles * 1e9 / (double)pe->hz;
}

static inline double
perf_us(const struct perf_env *pe, double cycles)
{
	return cycles * 1e6 / (double)pe->hz;
}

/* A flow as the flow workloads see it: one line, its lazy deadline first. */
struct perf_flow {
	uint64_t expires;            /* the lazy deadline */
	uint64_t id;                 /* its timer id */
	uint32_t key;
	uint32_t hits;
	uint8_t rest[40];            /* the rest of a flow's line */
} __rte_cache_aligned;

/* deadline_fn of the flow workloads: the flow's expires. */
uint64_t perf_flow_deadline(void *payload, void *arg);

/*
 * Context switches of this thread so far: a timed call during which it
 * changed was pre-empted by the scheduler (a shared VM), not slow.
 */
uint64_t perf_ctx_switches(void);

/* Print the main lcore, its CPU set, and a warning if it is not pinned. */
void perf_print_placement(void);

/* Sections of twheel_perf_autotest, each in its own file. */
int perf_timer_workload(struct perf_env *pe);   /* twheel_perf_timer.c */
int perf_flow_workloads(struct perf_env *pe);   /* twheel_perf_flow.c */
int perf_memory(struct perf_env *pe);           /* twheel_perf_mem.c */

#endif /* _TWHEEL_PERF_H_ */
