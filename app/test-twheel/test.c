/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * dpdk-test-twheel: main, the environment knobs and the suite runner;
 * the command table and the prompt are in commands.c.
 *
 * As with dpdk-test: EAL arguments first; then tests come from the
 * DPDK_TEST variable or from the remaining arguments, and without either
 * the RTE>> prompt reads commands. Each test ends with "Test OK",
 * "Test Failed" or "Test Skipped"; the exit status is 0, 255 or 77.
 * --version anywhere prints twheel's version and DPDK's, before EAL.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_debug.h>
#include <rte_version.h>

#include "test.h"

uint64_t
test_env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	char *end;
	uint64_t x;

	if (v == NULL || *v == '\0')
		return dflt;
	x = strtoull(v, &end, 0);
	if (*end != '\0') {
		printf("ignoring %s=%s: not a number\n", name, v);
		return dflt;
	}
	return x;
}

#define SUITE_LINE " + ------------------------------------------------------- +\n"

int
unit_test_suite_runner(struct unit_test_suite *suite)
{
	unsigned int total = 0, skipped = 0, executed = 0, passed = 0;
	unsigned int failed = 0, unsupported = 0;
	struct unit_test_case *tc;
	const char *status;
	int ret;

	printf(SUITE_LINE " + Test Suite : %s\n", suite->suite_name);
	if (suite->setup != NULL) {
		ret = suite->setup();
		if (ret != TEST_SUCCESS) {
			for (tc = suite->unit_test_cases; tc->testcase; tc++)
				total++;
			if (ret == TEST_SKIPPED)
				skipped = total;
			else
				failed = total;
			printf(" + Test Suite setup %s\n",
			       ret == TEST_SKIPPED ? "skipped" : "failed");
			goto summary;
		}
	}
	printf(SUITE_LINE);
	for (tc = suite->unit_test_cases; tc->testcase; tc++) {
		total++;
		if (!tc->enabled) {
			skipped++;
			printf(" + TestCase [%2u] : %s skipped\n", total - 1, tc->name);
			continue;
		}
		ret = TEST_SUCCESS;
		if (tc->setup != NULL)
			ret = tc->setup();
		if (ret == TEST_SUCCESS) {
			ret = tc->testcase();
			if (tc->teardown != NULL)
				tc->teardown();
		}
		executed++;
		if (ret == TEST_SUCCESS) {
			passed++;
			status = "succeeded";
		} else if (ret == TEST_SKIPPED) {
			executed--;
			skipped++;
			status = "skipped";
		} else if (ret == -ENOTSUP) {
			unsupported++;
			status = "unsupported";
		} else {
			failed++;
			status = "failed";
		}
		printf(" + TestCase [%2u] : %s %s\n", total - 1, tc->name, status);
		fflush(stdout);
	}
	if (suite->teardown != NULL)
		suite->teardown();
summary:
	printf(SUITE_LINE " + Test Suite Summary : %s\n" SUITE_LINE,
	       suite->suite_name);
	printf(" + Tests Total :       %2u\n", total);
	printf(" + Tests Skipped :     %2u\n", skipped);
	printf(" + Tests Executed :    %2u\n", executed);
	printf(" + Tests Unsupported:  %2u\n", unsupported);
	printf(" + Tests Passed :      %2u\n", passed);
	printf(" + Tests Failed :      %2u\n", failed);
	printf(SUITE_LINE);
	if (failed != 0)
		return TEST_FAILED;
	if (total == skipped + unsupported)
		return TEST_SKIPPED;
	return TEST_SUCCESS;
}

/* --version anywhere on the command line: print, and say so */
static bool
print_version(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--version") != 0)
			continue;
		printf("dpdk-test-twheel (twheel %s)\n", TWHEEL_TEST_VERSION);
		printf("DPDK %d.%02d.%d built against, %s running\n", RTE_VER_YEAR,
		       RTE_VER_MONTH, RTE_VER_MINOR, rte_version());
		return true;
	}
	return false;
}

int
main(int argc, char **argv)
{
	const char *env;
	int ret, i, last = TEST_SUCCESS, worst = TEST_SUCCESS;

	/* a crashing test must not take its output with it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (print_version(argc, argv))
		return 0;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("EAL initialisation failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;

	env = getenv("DPDK_TEST");
	if ((env == NULL || env[0] == '\0') && argc <= 1) {
		ret = test_interactive();
		rte_eal_cleanup();
		return ret;
	}
	if (env != NULL && env[0] != '\0') {
		printf("RTE>>%s\n", env);
		fflush(stdout);
		worst = last = run_test_command(env);
	}
	for (i = 1; i < argc; i++) {
		printf("RTE>>%s\n", argv[i]);
		fflush(stdout);
		last = run_test_command(argv[i]);
		if (last != TEST_SUCCESS && worst != TEST_FAILED)
			worst = last;
	}
	(void)last;
	printf("RTE>>\n");
	rte_eal_cleanup();
	if (worst == TEST_SUCCESS)
		return 0;
	if (worst == TEST_SKIPPED)
		return 77;
	return 255;
}
