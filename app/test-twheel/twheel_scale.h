/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The harness of twheel_scale_perf_autotest (test_twheel_scale_perf.c)
 * and its four sections (twheel_scale_*.c): how a measurement is run on
 * the first N worker lcores at once, and how its figures are printed.
 *
 * A run: the main lcore arms the N lcores and launches them; each one
 * prepares its part untimed (fills its wheel, arms its timers), says it is
 * ready, and waits for the start. Once all are ready the main lcore
 * publishes the end of the run, a TSC value; each lcore then runs its
 * timed loop until the TSC passes it, checks what it did (untimed) and
 * says it is done. The main lcore may run a loop of its own in the
 * meantime (the owner of section 4). Every hand-over between the main
 * lcore and a worker goes through one atomic state per lcore or the
 * published end, with release and acquire: rte_eal_remote_launch() and
 * rte_eal_wait_lcore() synchronise inside the EAL, where ThreadSanitizer
 * cannot see it.
 *
 * A section keeps its per-lcore state across runs (a wheel stays filled
 * from N = 1 to N = all); all of it is allocated before the first run, on
 * the socket of the lcore that uses it, and freed after the last one.
 */

#ifndef _TWHEEL_SCALE_H_
#define _TWHEEL_SCALE_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>

/* the knobs of the test, from the environment (see the test's file) */
struct scale_env {
	uint32_t entries;            /* TWHEEL_SCALE_ENTRIES, per lcore */
	uint64_t ms;                 /* TWHEEL_SCALE_MS, per measurement */
	uint64_t seed;               /* TWHEEL_SCALE_SEED */
	const char *sections;        /* TWHEEL_SCALE_SECTIONS, NULL: all */
	uint64_t hz;                 /* rte_get_tsc_hz() */
	uint64_t run_cycles;         /* ms in TSC cycles */
	bool tsan;                   /* built with ThreadSanitizer */
};

struct scale_ctx;
struct scale_lcore;

/* What a section runs on each lcore of a run; NULL hooks are skipped. */
struct scale_ops {
	/* untimed, before the start: TEST_SUCCESS or TEST_FAILED */
	int (*prepare)(struct scale_lcore *lc);
	/* the timed loop, until the TSC reaches end: operations done */
	uint64_t (*timed)(struct scale_lcore *lc, uint64_t end);
	/* untimed, after the loop: its checks, TEST_SUCCESS or TEST_FAILED */
	int (*finish)(struct scale_lcore *lc);
};

/* A loop the main lcore runs during a run, until the TSC reaches end. */
typedef int (scale_main_fn)(void *arg, uint64_t end);

/* One worker lcore as the harness sees it. */
struct scale_lcore {
	struct scale_ctx *ctx;
	unsigned int lcore_id;
	unsigned int index;          /* 0 .. nb_workers - 1 */
	int socket_id;               /* rte_lcore_to_socket_id(lcore_id) */
	uint32_t state;              /* enum scale_state; atomic */
	void *arg;                   /* the running section's state for it */
	uint64_t rng;                /* its own random sequence */
	/* results of the last run, written by the lcore before DONE */
	int ret;
	uint64_t ops;
	uint64_t cycles;
} __rte_cache_aligned;

struct scale_ctx {
	struct scale_env env;
	unsigned int nb_workers;
	const struct scale_ops *ops; /* the running section's */
	uint64_t go_end;             /* 0, then the run's end; atomic */
	struct scale_lcore lc[RTE_MAX_LCORE];
};

/* Read the knobs; -1 on a bad value (printed). */
int scale_env_init(struct scale_env *env);

/*
 * Run ops on lc[0 .. n-1] for env.ms, main_fn (may be NULL) on the main
 * lcore meanwhile. TEST_SUCCESS, or TEST_FAILED if an lcore's prepare or
 * finish failed, main_fn failed, or an lcore could not be launched.
 */
int scale_run(struct scale_ctx *c, unsigned int n, const struct scale_ops *ops,
	      scale_main_fn *main_fn, void *main_arg);

/* The N after n in the sweep 1, 2, 4, ..., all; 0 after all. */
unsigned int scale_next_n(unsigned int n, unsigned int all);

/* Print that the N beyond what the EAL gave are not measured. */
void scale_print_not_measured(unsigned int have, const char *what);

/*
 * Print the figures of a run of lc[0 .. n-1]: rate in all, per lcore
 * (mean, min, max), efficiency against base (the per-lcore rate at N = 1,
 * 0 at N = 1 itself), then each lcore's rate. unit_ops is the number of
 * operations per unit printed (1e6: millions per second). Returns the
 * per-lcore mean.
 */
double scale_print_rates(const struct scale_ctx *c, unsigned int n,
			 double base, double unit_ops);

/* The table's header matching scale_print_rates(). */
void scale_print_rates_header(const char *unit);

/* An lcore's rate of its last run, operations per second. */
double scale_lcore_rate(const struct scale_ctx *c, const struct scale_lcore *lc);

/* x * span / 2^32, for a 32-bit random x: uniform in [0, span), span < 2^48 */
static inline uint64_t
scale_below(uint32_t x, uint64_t span)
{
	return ((uint64_t)x * (span >> 16)) >> 16;
}

/* A uniform index in [0, n) from a 32-bit random x. */
static inline uint32_t
scale_index(uint32_t x, uint32_t n)
{
	return (uint32_t)(((uint64_t)x * n) >> 32);
}

/* The sections, each in its own file. */
int scale_move(struct scale_ctx *c);         /* twheel_scale_move.c */
int scale_flow(struct scale_ctx *c);         /* twheel_scale_flow.c */
int scale_timer(struct scale_ctx *c);        /* twheel_scale_timer.c */
int scale_remote(struct scale_ctx *c);       /* twheel_scale_remote.c */

#endif /* _TWHEEL_SCALE_H_ */
