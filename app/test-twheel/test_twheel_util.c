/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Helpers shared by the test files (test_twheel_util.h): a lazy payload,
 * small wheels without a ring, a sweep that runs a wheel up to now, and a
 * view of the DPDK and libc heaps for the tests that prove no allocation.
 */

#include <malloc.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "test_twheel_util.h"

uint64_t
tw_payload_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct tw_payload *)payload)->deadline;
}

struct twheel *
tw_make(const char *name, uint32_t capacity, uint32_t slots,
	uint64_t tick_cycles, bool lazy)
{
	struct twheel_config cfg = {
		.name = name,
		.socket_id = SOCKET_ID_ANY,
		.capacity = capacity,
		.slots = slots,
		.tick_cycles = tick_cycles,
		.remote_ring_size = 0,
		.deadline_fn = lazy ? tw_payload_deadline : NULL,
	};

	return twheel_create(&cfg);
}

unsigned int
tw_sweep_all(struct twheel *w, uint64_t now, struct twheel_fired *out,
	     unsigned int max)
{
	unsigned int total = 0;
	bool more = true;

	/* until a sweep leaves nothing at now, or max records */
	while (more && total < max)
		total += twheel_sweep_more(w, now, max - total, out + total,
					   &more);
	return total;
}

void
heap_snapshot(struct heap_snapshot *s)
{
	struct rte_malloc_socket_stats st;
	struct mallinfo2 mi;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < rte_socket_count(); i++) {
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) != 0)
			continue;
		s->rte_alloc_bytes += st.heap_allocsz_bytes;
		s->rte_alloc_count += st.alloc_count;
	}
	mi = mallinfo2();
	s->libc_in_use = mi.uordblks;
	s->libc_mmapped = mi.hblkhd;
	s->libc_arena = mi.arena;
}
