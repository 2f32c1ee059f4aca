/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 3 of twheel_perf_autotest: memory per entry, from what the
 * rte_malloc heap really gave out, for both libraries at each flow size.
 *
 * rte_timer allocates nothing per timer: a struct rte_timer lives in the
 * caller's memory (120 bytes), and rte_timer_subsystem_init() reserves one
 * memzone for every lcore's lists. So its cost per timer is measured the two
 * ways a DPDK application gets timers: an rte_malloc'd array (as dpdk-test
 * does) and an rte_mempool of timers (per-flow allocation), plus the
 * subsystem's memzone, shared by all timers. twheel's is the heap delta of
 * twheel_create() with the standard geometry (slab, chunks, lists, bitmap,
 * remote ring, wheel), checked against twheel_mem_info_get().
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_timer.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_perf.h"

static size_t
heap_delta(const struct heap_snapshot *before)
{
	struct heap_snapshot after;

	heap_snapshot(&after);
	return after.rte_alloc_bytes - before->rte_alloc_bytes;
}

static int
mem_one(struct perf_env *pe, uint32_t n)
{
	struct heap_snapshot before;
	struct twheel_mem_info mi;
	struct twheel_config cfg;
	struct rte_mempool *mp;
	struct rte_timer *tms;
	struct twheel *w;
	size_t arr = 0, pool = 0, tw;

	heap_snapshot(&before);
	tms = rte_malloc(NULL, sizeof(*tms) * n, 0);
	if (tms != NULL)
		arr = heap_delta(&before);
	rte_free(tms);

	heap_snapshot(&before);
	mp = rte_mempool_create("perf_rt_mp", n, sizeof(struct rte_timer), 0, 0,
				NULL, NULL, NULL, NULL, rte_socket_id(), 0);
	if (mp != NULL)
		pool = heap_delta(&before);
	rte_mempool_free(mp);

	heap_snapshot(&before);
	twheel_config_standard(&cfg, "perf_mem", n, rte_socket_id());
	w = twheel_create(&cfg);
	if (w == NULL) {
		printf("  %9u: twheel_create: %s (not enough memory; use -m)\n", n,
		       rte_strerror(rte_errno));
		return TEST_SKIPPED;
	}
	tw = heap_delta(&before);
	twheel_mem_info_get(w, &mi);
	twheel_free(w);
	TEST_ASSERT(mi.total_bytes <= tw, "mem_info %zu above the heap's %zu",
		    mi.total_bytes, tw);

	printf("  %9u  %10zu %10.1f %10.1f %12.1f    %5.1f (slab %.1f, buckets %.1f)\n",
	       n, sizeof(struct rte_timer),
	       arr != 0 ? (double)arr / n : 0.0,
	       pool != 0 ? (double)pool / n : 0.0,
	       (double)tw / n, (double)mi.total_bytes / n,
	       (double)mi.slab_bytes / n, (double)mi.bucket_bytes / n);
	perf_record(pe, "memory", "rte_timer", "struct", n, "bytes_per_entry",
		    sizeof(struct rte_timer), "bytes");
	if (arr != 0)
		perf_record(pe, "memory", "rte_timer", "rte_malloc_array", n,
			    "bytes_per_entry", (double)arr / n, "bytes");
	if (pool != 0)
		perf_record(pe, "memory", "rte_timer", "rte_mempool", n,
			    "bytes_per_entry", (double)pool / n, "bytes");
	perf_record(pe, "memory", "twheel", "heap", n, "bytes_per_entry",
		    (double)tw / n, "bytes");
	return TEST_SUCCESS;
}

int
perf_memory(struct perf_env *pe)
{
	const struct rte_memzone *mz;
	unsigned int i;
	int ret;

	ret = rte_timer_subsystem_init();
	TEST_ASSERT(ret == 0 || ret == -EALREADY, "rte_timer_subsystem_init: %d", ret);
	mz = rte_memzone_lookup("rte_timer_mz");
	printf("\n[3] memory per entry, bytes (from the rte_malloc heap's statistics)\n");
	printf("  rte_timer_subsystem_init(): one memzone of %zu bytes for all timers\n",
	       mz != NULL ? mz->len : (size_t)0);
	printf("  %9s  %10s %10s %10s %12s    %s\n", "N", "rte_timer", "rt array",
	       "rt mempool", "twheel heap", "twheel mem_info");
	/* 1M, where the target is set, and every flow size */
	ret = mem_one(pe, 1000000);
	for (i = 0; i < pe->nb_sizes && ret != TEST_FAILED; i++)
		if (pe->sizes[i] != 1000000)
			ret = mem_one(pe, pe->sizes[i]);
	return ret == TEST_FAILED ? ret : TEST_SUCCESS;
}
