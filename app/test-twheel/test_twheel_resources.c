/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Resource tests:
 *
 * twheel_noalloc_autotest  no allocation after twheel_create(): the
 *                          rte_malloc heaps and the libc heap are unchanged
 *                          across 1M schedule/cancel/move/sweep/drain calls.
 * twheel_mem_autotest      memory per entry, from what the heaps really gave
 *                          out (mempool objects with headers, bucket chunks,
 *                          lists, bitmap, ring, malloc element overhead),
 *                          checked against twheel_mem_info_get(); fails
 *                          above 64 bytes per entry.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"

#define NOALLOC_CAP 65536
#define NOALLOC_OPS 1000000

static int
test_noalloc(void)
{
	struct twheel_config cfg;
	struct heap_snapshot before, after;
	struct tw_payload *p = calloc(NOALLOC_CAP, sizeof(*p));
	twheel_id_t *ids = calloc(NOALLOC_CAP, sizeof(*ids));
	struct twheel_fired out[64];
	struct twheel *w;
	uint64_t rng = 42, now = 1000, ops = 0, i;
	uint32_t k, n;

	TEST_ASSERT(p != NULL && ids != NULL, "calloc");
	twheel_config_standard(&cfg, "noalloc", NOALLOC_CAP, SOCKET_ID_ANY);
	cfg.tick_cycles = 100;
	cfg.slots = 1024;
	cfg.deadline_fn = tw_payload_deadline;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	printf("noalloc: %d operations on a %u-entry wheel\n", NOALLOC_OPS,
	       NOALLOC_CAP);
	fflush(stdout);

	heap_snapshot(&before);
	while (ops < NOALLOC_OPS) {
		/* fill, refresh, move, cancel some, sweep; all in the window */
		for (i = 0; i < NOALLOC_CAP / 8; i++, ops++) {
			uint32_t j = tw_rand(&rng) % NOALLOC_CAP;

			if (ids[j] != 0 && tw_rand(&rng) % 4 == 0) {
				if (twheel_cancel(w, ids[j]) == 0)
					ids[j] = 0;
				continue;
			}
			if (ids[j] != 0 && tw_rand(&rng) % 3 == 0) {
				p[j].deadline = now + tw_rand(&rng) % 200000;
				twheel_move(w, ids[j], p[j].deadline);
				continue;
			}
			if (ids[j] != 0) {
				p[j].deadline += 500;    /* lazy refresh */
				continue;
			}
			p[j].deadline = now + tw_rand(&rng) % 200000;
			p[j].tag = j;
			ids[j] = twheel_schedule(w, p[j].deadline, &p[j]);
		}
		now += 20000;
		while ((k = twheel_sweep(w, now, 64, out)) != 0) {
			for (n = 0; n < k; n++)
				ids[((struct tw_payload *)out[n].payload)->tag] = 0;
			ops += k;
		}
		ops++;
	}
	while ((k = twheel_drain(w, 64, out)) != 0)
		ops += k;
	heap_snapshot(&after);

	printf("noalloc: %" PRIu64 " operations; rte_malloc %zu -> %zu bytes (%u -> %u"
	       " allocations), libc in use %zu -> %zu, mmapped %zu -> %zu\n", ops,
	       before.rte_alloc_bytes, after.rte_alloc_bytes,
	       before.rte_alloc_count, after.rte_alloc_count,
	       before.libc_in_use, after.libc_in_use,
	       before.libc_mmapped, after.libc_mmapped);
	TEST_ASSERT(ops >= NOALLOC_OPS, "only %" PRIu64 " operations", ops);
	TEST_ASSERT(memcmp(&before, &after, sizeof(before)) == 0,
		    "the heaps changed during the operations");
	twheel_free(w);
	free(p);
	free(ids);
	return TEST_SUCCESS;
}

static struct unit_test_suite noalloc_suite = {
	.suite_name = "twheel no-allocation test suite",
	.unit_test_cases = {
		TEST_CASE(test_noalloc),
		TEST_CASES_END()
	}
};

static int
test_twheel_noalloc(void)
{
	return unit_test_suite_runner(&noalloc_suite);
}

REGISTER_TEST_COMMAND(twheel_noalloc_autotest, test_twheel_noalloc);

/* Memory per entry ------------------------------------------------------- */

#define MEM_BUDGET_PER_ENTRY 64.0

static int
measure_one(uint32_t capacity, double *per_entry)
{
	struct heap_snapshot before, after;
	struct twheel_mem_info mi;
	struct twheel_config cfg;
	struct twheel *w;
	size_t heap;

	twheel_config_standard(&cfg, "memtest", capacity, SOCKET_ID_ANY);
	heap_snapshot(&before);
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create %u: %s", capacity, rte_strerror(rte_errno));
	heap_snapshot(&after);
	twheel_mem_info_get(w, &mi);
	heap = after.rte_alloc_bytes - before.rte_alloc_bytes;

	printf("  %9u entries: slab %zu + buckets %zu + ring %zu + wheel %zu = %zu"
	       " bytes; heap gave out %zu; per entry %.2f (slab %.2f, buckets %.2f)\n",
	       capacity, mi.slab_bytes, mi.bucket_bytes, mi.ring_bytes,
	       mi.wheel_bytes, mi.total_bytes, heap, (double)heap / capacity,
	       (double)mi.slab_bytes / capacity,
	       (double)mi.bucket_bytes / capacity);
	twheel_free(w);
	/* the accounting must not hide memory: the heap is the truth */
	TEST_ASSERT(mi.total_bytes <= heap, "mem_info %zu exceeds the heap's %zu",
		    mi.total_bytes, heap);
	TEST_ASSERT(heap - mi.total_bytes < 64 * 1024 + heap / 100,
		    "%zu heap bytes not accounted for by mem_info",
		    heap - mi.total_bytes);
	*per_entry = (double)heap / capacity;
	return TEST_SUCCESS;
}

static int
test_mem_per_entry(void)
{
	/* 1M and 2^20 (a power of two, where ring-based free lists double) */
	const uint32_t sizes[] = { 1000000, 1u << 20, 4u << 20 };
	double per_entry;
	unsigned int i;

	printf("wheel memory per entry (standard geometry, remote channels of 4096, %u lanes):\n",
	       rte_lcore_count());
	for (i = 0; i < RTE_DIM(sizes); i++) {
		TEST_ASSERT_SUCCESS(measure_one(sizes[i], &per_entry), "measure");
		TEST_ASSERT(per_entry <= MEM_BUDGET_PER_ENTRY,
			    "%u entries: %.2f bytes per entry, budget %.0f",
			    sizes[i], per_entry, MEM_BUDGET_PER_ENTRY);
	}
	return TEST_SUCCESS;
}

static struct unit_test_suite mem_suite = {
	.suite_name = "twheel memory test suite",
	.unit_test_cases = {
		TEST_CASE(test_mem_per_entry),
		TEST_CASES_END()
	}
};

static int
test_twheel_mem(void)
{
	return unit_test_suite_runner(&mem_suite);
}

REGISTER_TEST_COMMAND(twheel_mem_autotest, test_twheel_mem);
