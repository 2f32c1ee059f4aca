/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/* Small helpers shared by the test files. */

#ifndef _TEST_TWHEEL_UTIL_H_
#define _TEST_TWHEEL_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_memory.h>

#include <twheel.h>

/* A payload with a lazy deadline, as a flow would have. */
struct tw_payload {
	uint64_t deadline;
	uint32_t tag;
	uint32_t left;    /* times it left the wheel */
};

/* splitmix64: small, seedable, good enough for test sequences */
static inline uint64_t
tw_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t tw_payload_deadline(void *payload, void *arg);

/* A wheel without a remote ring; lazy uses tw_payload_deadline. */
struct twheel *tw_make(const char *name, uint32_t capacity, uint32_t slots,
		       uint64_t tick_cycles, bool lazy);

static inline struct twheel *
tw_make_lazy(const char *name, uint32_t capacity, uint32_t slots,
	     uint64_t tick_cycles)
{
	return tw_make(name, capacity, slots, tick_cycles, true);
}

/* Sweep at now until nothing is left at now, or max records; total. */
unsigned int tw_sweep_all(struct twheel *w, uint64_t now,
			  struct twheel_fired *out, unsigned int max);

/* What the rte_malloc heaps and the libc heap have given out. */
struct heap_snapshot {
	size_t rte_alloc_bytes;
	unsigned int rte_alloc_count;
	size_t libc_in_use;
	size_t libc_mmapped;
	size_t libc_arena;
};

void heap_snapshot(struct heap_snapshot *s);

#endif /* _TEST_TWHEEL_UTIL_H_ */
