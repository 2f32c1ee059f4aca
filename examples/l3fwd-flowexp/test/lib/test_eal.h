/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The start and end of the example's unit tests that run on EAL (the
 * others need no DPDK and include test/lib/test_check.h alone): a test
 * starts with test_eal_start(), EAL and rte_rand seeded so that a run
 * repeats, and ends with test_eal_end(): EAL released, the counts of
 * test_check.h printed, the exit status.
 */

#ifndef FX_TEST_EAL_H
#define FX_TEST_EAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_eal.h>
#include <rte_random.h>

#include "test/lib/test_check.h"

/* EAL from the command line, rte_rand seeded with seed; false when EAL
 * cannot start (said on stdout) */
static inline bool
test_eal_start(int argc, char **argv, uint64_t seed)
{
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return false;
	}
	rte_srand(seed);
	return true;
}

/* EAL released, the counts printed; the exit status: 0 when none failed */
static inline int
test_eal_end(void)
{
	rte_eal_cleanup();
	printf("%u checks, %u failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}

#endif /* FX_TEST_EAL_H */
