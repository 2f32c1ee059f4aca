/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_scale_perf_autotest: how the library scales with lcores. It
 * measures on every worker lcore the EAL is given, first on one, then on
 * 2, 4, ... and all of them at once (powers of two, then the full count),
 * and prints each lcore's rate and the efficiency: the mean rate per
 * lcore at N over the rate of one lcore alone. A per-lcore wheel shares
 * nothing, so its efficiency stays near 100% until the lcores share a
 * core, a cache or memory bandwidth; the figures show where that starts.
 *
 *   [1] twheel_move: each lcore its own wheel of ENTRIES entries, random
 *       moves (twheel_scale_move.c)
 *   [2] flow churn: each lcore a flow table of ENTRIES slots on a lazy
 *       wheel, 1 packet in 8 a new flow, hits refreshed lazily, sweeps
 *       expire idle flows (twheel_scale_flow.c)
 *   [3] rte_timer beside it: each lcore ENTRIES timers, random
 *       rte_timer_reset(), each lcore on its own list, then every lcore
 *       on one shared list (twheel_scale_timer.c)
 *   [4] the remote path: the main lcore owns a wheel and sweeps it, N =
 *       1 .. all worker lcores call twheel_remote_schedule() as fast as
 *       they can; every message accepted must be applied exactly once,
 *       in order (twheel_scale_remote.c)
 *
 * Every section checks what the library did (counts add up, no entry
 * lost or left twice) and fails on that only. Speed is printed, never
 * judged: machines are noisy, and a run on a shared VM says little.
 *
 * Knobs, all optional, printed in the test's header (the defaults keep
 * the test in fast-tests: 1.3 s on 2 lcores, -l 0-1 --no-huge -m 512;
 * 3.3 s under ThreadSanitizer, 1.4 s under ASan/UBSan):
 *   TWHEEL_SCALE_ENTRIES=n   entries (flows, timers) per lcore; 65536 by
 *                            default, 1048576 for a gateway's figures
 *                            (a section takes up to 130 MB per lcore and
 *                            million: -m 8192 for 16 lcores at 1M)
 *   TWHEEL_SCALE_MS=n        milliseconds per measurement, 200 by default
 *   TWHEEL_SCALE_SECTIONS=.. a comma-separated subset of
 *                            move,flow,timer,remote
 *   TWHEEL_SCALE_SEED=n      seed of every random sequence
 * For example, on a 16-core machine:
 *   TWHEEL_SCALE_ENTRIES=1048576 TWHEEL_SCALE_MS=2000
 *   DPDK_TEST=twheel_scale_perf_autotest dpdk-test-twheel -l 0-15 -m 8192
 *
 * The main lcore coordinates and measures nothing of its own in the
 * sections where every worker runs the same loop. Give each lcore a core
 * of its own: lcores that share a CPU (--lcores 0@0,1@0) halve each
 * other's rate, and the header warns about it. Without a worker lcore
 * (-l 0) the test is skipped; with one, every N beyond it is reported as
 * not measured.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "test.h"
#include "twheel_scale.h"

#define SCALE_DEFAULT_ENTRIES 65536
#define SCALE_DEFAULT_MS 200
#define SCALE_MAX_MS 600000

/* Built with ThreadSanitizer (gcc says it one way, clang the other). */
#if defined(__SANITIZE_THREAD__)
#define SCALE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCALE_TSAN 1
#endif
#endif
#ifndef SCALE_TSAN
#define SCALE_TSAN 0
#endif

int
scale_env_init(struct scale_env *env)
{
	const char *s = getenv("TWHEEL_SCALE_SECTIONS");
	uint64_t entries;

	memset(env, 0, sizeof(*env));
	entries = test_env_u64("TWHEEL_SCALE_ENTRIES", SCALE_DEFAULT_ENTRIES);
	env->ms = test_env_u64("TWHEEL_SCALE_MS", SCALE_DEFAULT_MS);
	env->seed = test_env_u64("TWHEEL_SCALE_SEED", 20261201);
	env->sections = s != NULL && *s != '\0' ? s : NULL;
	env->hz = rte_get_tsc_hz();
	env->tsan = SCALE_TSAN != 0;
	if (entries < 64 || entries > TWHEEL_CAPACITY_MAX) {
		printf("TWHEEL_SCALE_ENTRIES=%" PRIu64 ": must be 64..%u\n",
		       entries, TWHEEL_CAPACITY_MAX);
		return -1;
	}
	if (env->ms == 0 || env->ms > SCALE_MAX_MS) {
		printf("TWHEEL_SCALE_MS=%" PRIu64 ": must be 1..%u\n", env->ms,
		       SCALE_MAX_MS);
		return -1;
	}
	env->entries = (uint32_t)entries;
	env->run_cycles = env->hz * env->ms / 1000;
	return 0;
}

/* Is a section on? TWHEEL_SCALE_SECTIONS: a comma-separated subset. */
static bool
scale_section_on(const struct scale_env *env, const char *name)
{
	size_t len = strlen(name);
	const char *s = env->sections;

	if (s == NULL)
		return true;
	while ((s = strstr(s, name)) != NULL) {
		if ((s == env->sections || s[-1] == ',') &&
		    (s[len] == '\0' || s[len] == ','))
			return true;
		s += len;
	}
	return false;
}

/* The CPUs of an lcore as a printable list; the first one in *first. */
static void
scale_cpus(unsigned int lcore, char *buf, size_t len, int *first)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	size_t used = 0;
	unsigned int cpu;

	*first = -1;
	buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE && used + 8 < len; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (*first < 0)
			*first = (int)cpu;
		used += snprintf(buf + used, len - used, "%s%u",
				 used == 0 ? "" : ",", cpu);
	}
}

/* Print where every lcore runs; warn when two share a CPU. */
static void
scale_print_lcores(const struct scale_ctx *c)
{
	static uint8_t cpu_users[CPU_SETSIZE];
	unsigned int i, shared = 0;
	char cpus[64];
	int first;

	memset(cpu_users, 0, sizeof(cpu_users));
	scale_cpus(rte_get_main_lcore(), cpus, sizeof(cpus), &first);
	printf("  main lcore %u (socket %u) on CPU %s\n", rte_get_main_lcore(),
	       rte_lcore_to_socket_id(rte_get_main_lcore()), cpus);
	if (first >= 0)
		cpu_users[first]++;
	printf("  %u worker lcore(s):", c->nb_workers);
	for (i = 0; i < c->nb_workers; i++) {
		scale_cpus(c->lc[i].lcore_id, cpus, sizeof(cpus), &first);
		printf(" %u@%s(socket %d)", c->lc[i].lcore_id, cpus,
		       c->lc[i].socket_id);
		if (first >= 0 && cpu_users[first]++ != 0)
			shared++;
	}
	printf("\n");
	if (shared != 0)
		printf("  WARNING: %u lcore(s) share a CPU with another: their rates"
		       " and the efficiency fall for that reason alone\n", shared);
}

static void
scale_print_header(const struct scale_ctx *c)
{
	const struct scale_env *env = &c->env;

	printf("twheel_scale_perf_autotest: TSC %.3f GHz, memory %s\n",
	       (double)env->hz / 1e9, rte_eal_has_hugepages() ? "hugepages" : "no-huge");
	printf("  TWHEEL_SCALE_ENTRIES=%u (per lcore) TWHEEL_SCALE_MS=%" PRIu64
	       " (per measurement)\n  TWHEEL_SCALE_SECTIONS=%s TWHEEL_SCALE_SEED=%"
	       PRIu64 "\n", env->entries, env->ms,
	       env->sections != NULL ? env->sections : "move,flow,timer,remote",
	       env->seed);
	printf("  (larger by hand, e.g. TWHEEL_SCALE_ENTRIES=1048576 TWHEEL_SCALE_MS=2000"
	       " with -l 0-15 -m 8192)\n");
	scale_print_lcores(c);
	if (env->tsan)
		printf("  ThreadSanitizer build: the checks count, the rates do not\n");
}

/* Fill in the worker lcores; their number. */
static unsigned int
scale_find_workers(struct scale_ctx *c)
{
	unsigned int lcore, n = 0;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct scale_lcore *lc = &c->lc[n];

		lc->ctx = c;
		lc->lcore_id = lcore;
		lc->index = n;
		lc->socket_id = (int)rte_lcore_to_socket_id(lcore);
		lc->rng = c->env.seed ^ ((uint64_t)lcore << 32);
		n++;
	}
	return n;
}

static const struct {
	const char *name;
	int (*run)(struct scale_ctx *c);
} scale_sections[] = {
	{ "move", scale_move },
	{ "flow", scale_flow },
	{ "timer", scale_timer },
	{ "remote", scale_remote },
};

/* Does TWHEEL_SCALE_SECTIONS name sections only? (printed if not) */
static bool
scale_sections_valid(const struct scale_env *env)
{
	const char *s = env->sections, *end;
	unsigned int i;
	size_t len;

	while (s != NULL && *s != '\0') {
		end = strchr(s, ',');
		len = end != NULL ? (size_t)(end - s) : strlen(s);
		for (i = 0; i < RTE_DIM(scale_sections); i++)
			if (strlen(scale_sections[i].name) == len &&
			    strncmp(scale_sections[i].name, s, len) == 0)
				break;
		if (i == RTE_DIM(scale_sections)) {
			printf("TWHEEL_SCALE_SECTIONS=%s: '%.*s' is none of"
			       " move,flow,timer,remote\n", env->sections, (int)len, s);
			return false;
		}
		s = end != NULL ? end + 1 : NULL;
	}
	return true;
}

/*
 * The sections that are on, in order, until one fails. TEST_SKIPPED when
 * none could run (each skips without memory).
 */
static int
scale_run_sections(struct scale_ctx *c)
{
	unsigned int i, ran = 0;
	int ret;

	for (i = 0; i < RTE_DIM(scale_sections); i++) {
		if (!scale_section_on(&c->env, scale_sections[i].name))
			continue;
		ret = scale_sections[i].run(c);
		if (ret == TEST_SUCCESS)
			ran++;
		else if (ret != TEST_SKIPPED)
			return TEST_FAILED;
	}
	return ran != 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static int
test_twheel_scale_perf(void)
{
	struct scale_ctx *c;
	int ret;

	c = rte_zmalloc_socket("scale_ctx", sizeof(*c), RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	TEST_ASSERT_NOT_NULL(c, "no memory for the context");
	if (scale_env_init(&c->env) != 0 || !scale_sections_valid(&c->env)) {
		rte_free(c);
		return TEST_FAILED;
	}
	c->nb_workers = scale_find_workers(c);
	scale_print_header(c);
	if (c->nb_workers == 0) {
		printf("  no worker lcore: nothing to measure (give the EAL two lcores"
		       " or more, -l 0-1)\n");
		rte_free(c);
		return TEST_SKIPPED;
	}
	ret = scale_run_sections(c);
	rte_free(c);
	return ret;
}

REGISTER_TEST_COMMAND(twheel_scale_perf_autotest, test_twheel_scale_perf);
