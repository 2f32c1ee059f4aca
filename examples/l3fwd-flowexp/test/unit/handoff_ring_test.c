/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the handoff ring (worker/handoff_ring.h).
 *
 * One thread: sizes that are not a power of two are refused; a ring takes
 * exactly its size and refuses the rest, gives back what it took in
 * order, and keeps doing so across the wrap of its free-running 32-bit
 * indices (started just below it); room is what is free, and a consumer's
 * reads become room for the producer only once the producer reads the
 * consumer's index again.
 *
 * Two lcores (the main one consuming, a worker producing, as in the
 * example): the producer sends 1..N in batches of random size, asking for
 * room as the handoff does; the consumer takes batches of random size and
 * checks that every number arrives, once, in order. A small ring, so that
 * both sides run it full and empty many times. Needs -l with two lcores;
 * with one it says so and fails.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_lcore.h>
#include <rte_random.h>

#include "worker/handoff_ring.h"
#include "test/lib/test_eal.h"

#define XCORE_N 4000000u      /* numbers sent across */
#define XCORE_SIZE 64u        /* the ring between the lcores */
#define BATCH_MAX 32u

static uintptr_t
num(void *p)
{
	return (uintptr_t)p;
}

static void
test_create(void)
{
	struct fx_ho_ring *r;

	r = fx_ho_ring_create(0, SOCKET_ID_ANY);
	check(r == NULL && rte_errno == EINVAL, "size 0 refused with EINVAL");
	r = fx_ho_ring_create(96, SOCKET_ID_ANY);
	check(r == NULL && rte_errno == EINVAL, "size 96 (not a power of two) refused");
	r = fx_ho_ring_create(64, SOCKET_ID_ANY);
	check(r != NULL, "size 64 made");
	check(r == NULL || ((uintptr_t)&r->prod_tail - (uintptr_t)&r->head >= 2 * RTE_CACHE_LINE_SIZE &&
			    (uintptr_t)&r->cons_tail - (uintptr_t)&r->tail >= 2 * RTE_CACHE_LINE_SIZE),
	      "each side's index on a pair of lines of its own");
	fx_ho_ring_free(r);
}

/* Fill, refuse, drain in order, with the indices starting at `start`. */
static void
test_one_thread(uint32_t start)
{
	struct fx_ho_ring *r = fx_ho_ring_create(16, SOCKET_ID_ANY);
	void *in[24], *out[24];
	uint32_t i, n, round;
	uintptr_t next_in = 1, next_out = 1;
	bool order = true;

	if (!check(r != NULL, "ring of 16"))
		return;
	r->head = r->cons_seen = r->prod_tail = start;
	r->tail = r->prod_seen = r->cons_tail = start;
	for (round = 0; round < 40; round++) {
		for (i = 0; i < 24; i++)
			in[i] = (void *)(next_in + i);
		n = fx_ho_ring_enqueue(r, in, 5 + round % 20);
		next_in += n;
		n = fx_ho_ring_dequeue(r, out, 3 + round % 7);
		for (i = 0; i < n; i++)
			order &= num(out[i]) == next_out++;
	}
	while ((n = fx_ho_ring_dequeue(r, out, 24)) != 0)
		for (i = 0; i < n; i++)
			order &= num(out[i]) == next_out++;
	check(order && next_out == next_in, "start %" PRIu32 ": %" PRIuPTR
	      " in, all out in order across the index wrap", start, next_in - 1);
	for (i = 0; i < 24; i++)
		in[i] = (void *)(uintptr_t)(i + 1);
	n = fx_ho_ring_enqueue(r, in, 24);
	check(n == 16, "an empty ring of 16 takes 16 of 24 (took %u)", n);
	check(fx_ho_ring_enqueue(r, in, 1) == 0, "a full ring takes nothing");
	check(fx_ho_ring_dequeue(r, out, 4) == 4, "4 taken out");
	check(fx_ho_ring_room(r, 0) == 0, "room unseen until the producer asks for more");
	check(fx_ho_ring_room(r, 1) == 4, "room 4 once it asks");
	check(fx_ho_ring_waiting(r), "packets wait");
	while (fx_ho_ring_dequeue(r, out, 24) != 0)
		;
	check(!fx_ho_ring_waiting(r), "nothing waits once drained");
	fx_ho_ring_free(r);
}

struct xcore {
	struct fx_ho_ring *r;
	uint64_t full;      /* producer: asks that found no room */
};

static int
producer(void *arg)
{
	struct xcore *x = arg;
	void *batch[BATCH_MAX];
	uintptr_t next = 1;
	uint32_t n, i, sent;

	while (next <= XCORE_N) {
		n = 1 + (uint32_t)rte_rand_max(BATCH_MAX);
		n = (uint32_t)RTE_MIN((uintptr_t)n, XCORE_N + 1 - next);
		if (fx_ho_ring_room(x->r, n) < n) {
			x->full++;
			continue;
		}
		for (i = 0; i < n; i++)
			batch[i] = (void *)(next + i);
		sent = fx_ho_ring_enqueue(x->r, batch, n);
		if (sent != n)
			return -1;   /* room was promised */
		next += n;
	}
	return 0;
}

static void
test_two_lcores(void)
{
	struct xcore x = { .r = fx_ho_ring_create(XCORE_SIZE, SOCKET_ID_ANY) };
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	uintptr_t expect = 1;
	uint64_t empty = 0, bad = 0;
	void *batch[BATCH_MAX];
	uint32_t n, i;
	int rc;

	if (!check(worker < RTE_MAX_LCORE, "a second lcore for the producer (-l 0-1)") ||
	    !check(x.r != NULL, "ring of %u", XCORE_SIZE))
		return;
	rte_eal_remote_launch(producer, &x, worker);
	while (expect <= XCORE_N) {
		n = fx_ho_ring_dequeue(x.r, batch, 1 + (uint32_t)rte_rand_max(BATCH_MAX));
		if (n == 0)
			empty++;
		for (i = 0; i < n; i++)
			bad += num(batch[i]) != expect++;
	}
	rc = rte_eal_wait_lcore(worker);
	check(rc == 0, "the producer got every slot its room promised");
	check(bad == 0, "%u numbers across lcores, each once and in order (%" PRIu64
	      " out of place)", XCORE_N, bad);
	check(!fx_ho_ring_waiting(x.r), "nothing left over");
	printf("     (producer found the ring full %" PRIu64 " times, consumer empty %" PRIu64 ")\n",
	       x.full, empty);
	fx_ho_ring_free(x.r);
}

int
main(int argc, char **argv)
{
	if (!test_eal_start(argc, argv, 0x4f0))
		return 1;
	test_create();
	test_one_thread(0);
	test_one_thread(UINT32_MAX - 37);
	test_two_lcores();
	return test_eal_end();
}
