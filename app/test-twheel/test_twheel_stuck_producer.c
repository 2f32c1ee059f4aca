/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_stuck_producer_autotest: a remote producer stopped between
 * reserving its ring slot and publishing it must not make the others wait.
 *
 * A pre-empted producer cannot be stopped at that point on purpose from
 * outside, so one non-EAL thread plays it with the ring's own two steps
 * (__rte_ring_rts_move_prod_head(), later __rte_ring_rts_update_tail()):
 * it holds one slot reserved while two other non-EAL threads call
 * twheel_remote_cancel() as fast as they can. Each of their calls must
 * return, 0 while the ring has room and -ENOBUFS once it is full (the held
 * slot counts), within a deadline, before the held slot is published.
 * Then the held slot is published and the owner applies every message.
 *
 * The held slot is never written: the ring is first cycled past its size
 * with real messages, so the slot still holds a valid one (a cancel of an
 * unknown id) from the earlier lap and is applied as a stale cancel.
 * The test finds the ring by its name (twheel_object_name(), "TWR<len>_").
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"

#define SP_PRODUCERS 2
#define SP_CALLS 200            /* per producer */
#define SP_WAIT_MS 5000         /* how long the producers may take */

/* a cancel that names nothing: applied as stale */
#define SP_ID ((UINT64_C(7) << 32) | 1)

struct sp_holder {
	struct rte_ring *r;
	volatile int reserved;
	volatile int release;
};

struct sp_producer {
	struct twheel *w;
	unsigned int ok, full, other;
	volatile int done;
};

static void *
sp_hold(void *arg)
{
	struct sp_holder *h = arg;
	uint32_t head, free_entries;

	if (__rte_ring_rts_move_prod_head(h->r, 1, RTE_RING_QUEUE_FIXED,
					  &head, &free_entries) != 1)
		return NULL;
	__atomic_store_n(&h->reserved, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		usleep(1000);
	__rte_ring_rts_update_tail(&h->r->rts_prod);
	return NULL;
}

static void *
sp_produce(void *arg)
{
	struct sp_producer *p = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < SP_CALLS; i++) {
		ret = twheel_remote_cancel(p->w, SP_ID);
		if (ret == 0)
			p->ok++;
		else if (ret == -ENOBUFS)
			p->full++;
		else
			p->other++;
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Fill and empty the ring until every slot has held a real message. */
static int
sp_cycle_ring(struct twheel *w, const struct rte_ring *r)
{
	unsigned int cap = rte_ring_get_capacity(r), written = 0, i;
	struct twheel_fired out[8];

	while (written <= rte_ring_get_size(r)) {
		for (i = 0; i < cap; i++)
			TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, SP_ID), "prime");
		written += cap;
		TEST_ASSERT_EQUAL(tw_sweep_all(w, 1, out, RTE_DIM(out)), 0u,
				  "stale cancels wrote records");
		TEST_ASSERT_EQUAL(rte_ring_count(r), 0u, "ring not emptied");
	}
	return TEST_SUCCESS;
}

static int
sp_run(uint32_t ring_size)
{
	char wname[TWHEEL_NAME_MAX_LEN + 1], rname[RTE_RING_NAMESIZE];
	struct sp_producer prod[SP_PRODUCERS];
	struct twheel_stats before, after;
	struct twheel_fired out[8];
	struct twheel_config cfg;
	struct sp_holder hold;
	pthread_t th, tp[SP_PRODUCERS];
	unsigned int i, ok = 0, full = 0, other = 0, waited = 0;
	bool all_done = false;
	struct twheel *w;
	int ret = TEST_SUCCESS;

	snprintf(wname, sizeof(wname), "stuck%u", ring_size);
	twheel_config_standard(&cfg, wname, 16, SOCKET_ID_ANY);
	cfg.slots = 8;
	cfg.tick_cycles = 10;
	cfg.remote_ring_size = ring_size;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	/* the documented scheme, TWR<length of the name>_<name> */
	TEST_ASSERT(snprintf(rname, sizeof(rname), "TWR%zu_%s", strlen(wname),
			     wname) < (int)sizeof(rname), "ring name too long");
	memset(&hold, 0, sizeof(hold));
	hold.r = rte_ring_lookup(rname);
	TEST_ASSERT_NOT_NULL(hold.r, "ring %s not found", rname);
	TEST_ASSERT_SUCCESS(sp_cycle_ring(w, hold.r), "cycle the ring");
	twheel_stats_get(w, &before);

	TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, sp_hold, &hold), "holder");
	while (!__atomic_load_n(&hold.reserved, __ATOMIC_ACQUIRE))
		usleep(100);
	for (i = 0; i < SP_PRODUCERS; i++) {
		prod[i] = (struct sp_producer){ .w = w };
		TEST_ASSERT_SUCCESS(pthread_create(&tp[i], NULL, sp_produce,
						   &prod[i]), "producer");
	}
	/* the producers must finish while the slot is still held */
	while (!all_done && waited < SP_WAIT_MS) {
		all_done = true;
		for (i = 0; i < SP_PRODUCERS; i++)
			all_done &= __atomic_load_n(&prod[i].done, __ATOMIC_ACQUIRE) != 0;
		if (!all_done) {
			usleep(1000);
			waited++;
		}
	}
	__atomic_store_n(&hold.release, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	for (i = 0; i < SP_PRODUCERS; i++) {
		pthread_join(tp[i], NULL);
		ok += prod[i].ok;
		full += prod[i].full;
		other += prod[i].other;
	}
	if (!all_done) {
		printf("ring %u: producers still inside twheel_remote_cancel() after"
		       " %u ms behind one held slot (they finished once it was"
		       " published)\n", ring_size, SP_WAIT_MS);
		ret = TEST_FAILED;
		goto out;
	}
	if (ok != ring_size - 1 || full != SP_PRODUCERS * SP_CALLS - ok ||
	    other != 0) {
		printf("ring %u with one slot held: %u enqueued, %u -ENOBUFS, %u"
		       " other; want %u, %u, 0\n", ring_size, ok, full, other,
		       ring_size - 1, SP_PRODUCERS * SP_CALLS - (ring_size - 1));
		ret = TEST_FAILED;
		goto out;
	}
	/* the held slot published, the owner applies all, in one sweep */
	if (tw_sweep_all(w, 2, out, RTE_DIM(out)) != 0)
		ret = TEST_FAILED;
	twheel_stats_get(w, &after);
	if (after.remote_stale - before.remote_stale != ring_size ||
	    after.remote_full - before.remote_full != full) {
		printf("ring %u: %" PRIu64 " stale cancels applied, want %u; %"
		       PRIu64 " remote_full, want %u\n", ring_size,
		       after.remote_stale - before.remote_stale, ring_size,
		       after.remote_full - before.remote_full, full);
		ret = TEST_FAILED;
	}
out:
	twheel_free(w);
	return ret;
}

static int
test_stuck_producer(void)
{
	static const uint32_t sizes[] = { 1, 7, 64 };
	unsigned int i;

	for (i = 0; i < RTE_DIM(sizes); i++)
		TEST_ASSERT_SUCCESS(sp_run(sizes[i]), "ring of %u", sizes[i]);
	return TEST_SUCCESS;
}

static struct unit_test_suite stuck_producer_suite = {
	.suite_name = "twheel remote producers never wait",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE(test_stuck_producer),
		TEST_CASES_END()
	}
};

static int
test_twheel_stuck_producer(void)
{
	return unit_test_suite_runner(&stuck_producer_suite);
}

REGISTER_TEST_COMMAND(twheel_stuck_producer_autotest, test_twheel_stuck_producer);
