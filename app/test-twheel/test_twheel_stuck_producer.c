/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_stuck_producer_autotest: a stalled remote producer blocks nobody.
 *
 * Remote calls travel on a lane per EAL lcore and on one shared ring for
 * every other thread (twheel.h, "Remote calls"). The test stalls one
 * producer of each kind and checks that no other producer, and not the
 * owner, waits for it.
 *
 * The shared ring. A producer stopped between reserving its ring slot and
 * publishing it (pre-empted there) cannot be stopped at that point on
 * purpose from outside, so one non-EAL thread plays it with the ring's own
 * two steps (__rte_ring_rts_move_prod_head(), later
 * __rte_ring_rts_update_tail()): it holds one slot reserved until the end.
 * Two other non-EAL threads (rte_lcore_id() is LCORE_ID_ANY: the ring is
 * their channel) call twheel_remote_cancel() SP_CALLS times each. Every
 * call returns within SP_WAIT_MS: exactly capacity - 1 with 0 (the held
 * slot counts), the rest -ENOBUFS. Nothing they enqueued can be applied
 * yet: the held slot keeps the ring's tail back.
 *
 * The lanes. Each EAL lcore calls twheel_remote_cancel() SP_CALLS times
 * on its own lane, while the ring slot is held: each lane takes exactly
 * remote_ring_size, the rest is -ENOBUFS, within the same deadline. The
 * first worker lcore plays an lcore that stops: it fills its lane first,
 * then stays parked, its messages unapplied, until the end; the main lcore
 * and the other workers start only once it is parked, together with the
 * ring's producers. Then the owner (the main lcore, a producer too) sweeps
 * while the ring slot is still held and the worker still parked: it
 * applies every lane's messages, the parked lcore's included, and none of
 * the ring's, and returns: it waits for neither. (Were it to wait for the
 * held slot, the holder would publish it on its own after SP_HOLD_MS and
 * say so: the test fails rather than hangs.)
 *
 * Then the parked lcore is released, the held slot published, and the
 * owner applies the ring's messages. Every message is a cancel of an id
 * that names nothing, so at both points remote_cancels and remote_stale
 * must equal the messages applied so far, and remote_full the -ENOBUFS
 * that the lanes' and the ring's producers counted.
 *
 * The held slot is never written: the ring is first cycled past its size
 * with real messages, from a non-EAL thread (the main lcore's calls would
 * go to its lane), so the slot still holds a valid one (a cancel of an
 * unknown id) from the earlier lap and is applied as a stale cancel. The
 * test finds the ring by its name (twheel_object_name(), "TWR<len>_").
 *
 * Rings and lanes of 1, 7 and 64 messages. Any number of lcores: meson.build
 * gives four on two cores (--lcores 0@0,1@1,2@0,3@1), so producers are
 * pre-empted; with no worker lcore no lcore is parked. Sleeps only pace the
 * waiting; every wait for a producer's calls has the SP_WAIT_MS deadline.
 * The main lcore and the workers hand over with atomics that
 * ThreadSanitizer sees (rte_eal_remote_launch() and rte_eal_wait_lcore()
 * synchronise inside EAL, where it cannot).
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"

#define SP_RING_PRODUCERS 2     /* non-EAL threads on the shared ring */
#define SP_CALLS 200            /* per producer */
#define SP_WAIT_MS 5000         /* how long any producer may take */
#define SP_HOLD_MS (4 * SP_WAIT_MS)  /* the most the slot is held */

/* a cancel that names nothing: applied as stale */
#define SP_ID ((UINT64_C(7) << 32) | 1)

struct sp_holder {
	struct rte_ring *r;
	int reserved;           /* atomic: 1 held, -1 could not reserve */
	int release;            /* atomic */
	int expired;            /* atomic: published on its own, unreleased */
};

struct sp_producer {
	struct twheel *w;
	unsigned int lcore;     /* EAL lcore, LCORE_ID_ANY for a thread */
	const int *unpark;      /* EAL: park after the calls until *unpark */
	unsigned int ok, full, other;
	int go;                 /* atomic: the fields above are set */
	int done;               /* atomic: the counts are final */
	int exited;             /* atomic: EAL: touches nothing any more */
};

struct sp_ctx {
	struct twheel *w;
	uint32_t size;
	struct rte_ring *ring;
	struct twheel_stats before;
	struct sp_holder hold;
	pthread_t hold_th;
	bool hold_started;
	struct sp_producer ring_prod[SP_RING_PRODUCERS];
	pthread_t ring_th[SP_RING_PRODUCERS];
	unsigned int ring_started;
	/* EAL producers: [0] the main lcore, then the workers, [1] parked */
	struct sp_producer lane_prod[RTE_MAX_LCORE];
	unsigned int nb_lanes;
	unsigned int lanes_launched;  /* workers, from [1] */
	int unpark;                   /* atomic */
};

static struct sp_ctx ctx;

static void *
sp_hold(void *arg)
{
	const uint64_t expiry = rte_rdtsc() + rte_get_tsc_hz() / 1000 * SP_HOLD_MS;
	struct sp_holder *h = arg;
	uint32_t head, free_entries;

	if (__rte_ring_rts_move_prod_head(h->r, 1, RTE_RING_QUEUE_FIXED,
					  &head, &free_entries) != 1) {
		__atomic_store_n(&h->reserved, -1, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&h->reserved, 1, __ATOMIC_RELEASE);
	/* past SP_HOLD_MS something waits for the slot: let it go, and say so */
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE)) {
		if (rte_rdtsc() > expiry) {
			__atomic_store_n(&h->expired, 1, __ATOMIC_RELEASE);
			break;
		}
		usleep(1000);
	}
	__rte_ring_rts_update_tail(&h->r->rts_prod);
	return NULL;
}

static void
sp_calls(struct sp_producer *p)
{
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
}

/* A non-EAL producer: its channel is the shared ring. */
static void *
sp_ring_thread(void *arg)
{
	struct sp_producer *p = arg;

	if (rte_lcore_id() != LCORE_ID_ANY)
		p->other++;      /* not a non-EAL thread: the counts say so */
	sp_calls(p);
	return NULL;
}

/* An EAL producer on a worker lcore: its channel is its lane. */
static int
sp_lane_lcore(void *arg)
{
	struct sp_producer *p = arg;
	const int *unpark;

	while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE))
		rte_pause();
	unpark = p->unpark;
	if (rte_lcore_id() != p->lcore)
		p->other++;
	sp_calls(p);
	/* stopped: its lane full, until the end of the test */
	while (unpark != NULL && !__atomic_load_n(unpark, __ATOMIC_ACQUIRE))
		usleep(1000);
	__atomic_store_n(&p->exited, 1, __ATOMIC_RELEASE);
	return 0;
}

static int
sp_launch(struct sp_producer *p)
{
	int ret;

	__atomic_store_n(&p->go, 1, __ATOMIC_RELEASE);
	ret = rte_eal_remote_launch(sp_lane_lcore, p, p->lcore);
	if (ret == 0)
		ctx.lanes_launched++;
	return ret;
}

/* Wait, SP_WAIT_MS from start at most, for *flag to be non-zero. */
static bool
sp_wait_flag(const int *flag, uint64_t start)
{
	const uint64_t limit = start + rte_get_tsc_hz() / 1000 * SP_WAIT_MS;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (rte_rdtsc() > limit)
			return false;
		usleep(100);
	}
	return true;
}

/* Priming: a non-EAL thread fills the ring (the owner empties it). */
static void *
sp_fill(void *arg)
{
	struct sp_producer *p = arg;
	unsigned int i, cap = rte_ring_get_capacity(ctx.ring);

	for (i = 0; i < cap; i++)
		if (twheel_remote_cancel(p->w, SP_ID) == 0)
			p->ok++;
	return NULL;
}

/* Fill and empty the ring until every slot has held a real message. */
static int
sp_cycle_ring(void)
{
	unsigned int cap = rte_ring_get_capacity(ctx.ring), written = 0;
	struct sp_producer fill;
	struct twheel_fired out[8];
	pthread_t th;

	while (written <= rte_ring_get_size(ctx.ring)) {
		fill = (struct sp_producer){ .w = ctx.w };
		TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, sp_fill, &fill),
				    "prime thread");
		pthread_join(th, NULL);
		TEST_ASSERT_EQUAL(fill.ok, cap, "prime: %u of %u enqueued", fill.ok,
				  cap);
		TEST_ASSERT_EQUAL(rte_ring_count(ctx.ring), cap,
				  "prime: the messages are not on the ring");
		written += cap;
		TEST_ASSERT_EQUAL(tw_sweep_all(ctx.w, 1, out, RTE_DIM(out)), 0u,
				  "stale cancels wrote records");
		TEST_ASSERT_EQUAL(rte_ring_count(ctx.ring), 0u, "ring not emptied");
	}
	return TEST_SUCCESS;
}

static int
sp_setup(uint32_t size)
{
	char wname[TWHEEL_NAME_MAX_LEN + 1], rname[RTE_RING_NAMESIZE];
	struct twheel_config cfg;
	unsigned int lcore, i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.size = size;
	snprintf(wname, sizeof(wname), "stuck%u", size);
	twheel_config_standard(&cfg, wname, 16, SOCKET_ID_ANY);
	cfg.slots = 8;
	cfg.tick_cycles = 10;
	cfg.remote_ring_size = size;
	ctx.w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(ctx.w, "create: %s", rte_strerror(rte_errno));
	/* the documented scheme, TWR<length of the name>_<name> */
	TEST_ASSERT(snprintf(rname, sizeof(rname), "TWR%zu_%s", strlen(wname),
			     wname) < (int)sizeof(rname), "ring name too long");
	ctx.ring = rte_ring_lookup(rname);
	TEST_ASSERT_NOT_NULL(ctx.ring, "ring %s not found", rname);
	ctx.hold.r = ctx.ring;
	for (i = 0; i < SP_RING_PRODUCERS; i++)
		ctx.ring_prod[i] = (struct sp_producer){
			.w = ctx.w, .lcore = LCORE_ID_ANY,
		};
	ctx.lane_prod[0] = (struct sp_producer){
		.w = ctx.w, .lcore = rte_get_main_lcore(),
	};
	/* the first worker parks */
	i = 1;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		ctx.lane_prod[i] = (struct sp_producer){
			.w = ctx.w, .lcore = lcore,
			.unpark = i == 1 ? &ctx.unpark : NULL,
		};
		i++;
	}
	ctx.nb_lanes = i;
	return sp_cycle_ring();
}

/*
 * Hold the ring slot, park the first worker with its lane full, then let
 * every other producer make its calls; all within the deadline.
 */
static int
sp_stall(void)
{
	unsigned int i;
	uint64_t start;

	TEST_ASSERT_SUCCESS(pthread_create(&ctx.hold_th, NULL, sp_hold,
					   &ctx.hold), "holder");
	ctx.hold_started = true;
	TEST_ASSERT(sp_wait_flag(&ctx.hold.reserved, rte_rdtsc()) &&
		    __atomic_load_n(&ctx.hold.reserved, __ATOMIC_ACQUIRE) == 1,
		    "the holder reserved no ring slot");
	if (ctx.nb_lanes > 1) {
		TEST_ASSERT_SUCCESS(sp_launch(&ctx.lane_prod[1]), "launch lcore %u",
				    ctx.lane_prod[1].lcore);
		TEST_ASSERT(sp_wait_flag(&ctx.lane_prod[1].done, rte_rdtsc()),
			    "lcore %u: calls on its own lane took over %u ms",
			    ctx.lane_prod[1].lcore, SP_WAIT_MS);
	}
	start = rte_rdtsc();
	for (i = 0; i < SP_RING_PRODUCERS; i++) {
		TEST_ASSERT_SUCCESS(pthread_create(&ctx.ring_th[i], NULL,
						   sp_ring_thread, &ctx.ring_prod[i]),
				    "ring producer");
		ctx.ring_started++;
	}
	for (i = 2; i < ctx.nb_lanes; i++)
		TEST_ASSERT_SUCCESS(sp_launch(&ctx.lane_prod[i]), "launch lcore %u",
				    ctx.lane_prod[i].lcore);
	sp_calls(&ctx.lane_prod[0]);
	for (i = 0; i < SP_RING_PRODUCERS; i++)
		TEST_ASSERT(sp_wait_flag(&ctx.ring_prod[i].done, start),
			    "ring producer %u still inside twheel_remote_cancel() after"
			    " %u ms behind one held slot", i, SP_WAIT_MS);
	for (i = 0; i < ctx.nb_lanes; i++)
		TEST_ASSERT(sp_wait_flag(&ctx.lane_prod[i].done, start),
			    "lcore %u still inside twheel_remote_cancel() after %u ms"
			    " (lcore %u parked, a ring slot held)",
			    ctx.lane_prod[i].lcore, SP_WAIT_MS, ctx.lane_prod[1].lcore);
	return TEST_SUCCESS;
}

/* The statistics since the ring was cycled: applied and refused. */
static int
sp_check_stats(uint64_t applied, uint64_t full, const char *when)
{
	struct twheel_stats st;

	twheel_stats_get(ctx.w, &st);
	TEST_ASSERT(st.remote_cancels - ctx.before.remote_cancels == applied &&
		    st.remote_stale - ctx.before.remote_stale == applied &&
		    st.remote_full - ctx.before.remote_full == full,
		    "ring %u, %s: remote_cancels %" PRIu64 ", remote_stale %"
		    PRIu64 ", remote_full %" PRIu64 "; want %" PRIu64 ", %" PRIu64
		    ", %" PRIu64, ctx.size, when,
		    st.remote_cancels - ctx.before.remote_cancels,
		    st.remote_stale - ctx.before.remote_stale,
		    st.remote_full - ctx.before.remote_full, applied, applied, full);
	return TEST_SUCCESS;
}

/*
 * Every producer done, the slot still held, the worker still parked: the
 * counts, then a sweep that applies the lanes and nothing of the ring.
 */
static int
sp_check_stalled(uint64_t *full)
{
	struct twheel_fired out[8];
	unsigned int i, ok = 0, refused = 0;

	for (i = 0; i < ctx.nb_lanes; i++) {
		const struct sp_producer *p = &ctx.lane_prod[i];

		TEST_ASSERT(p->ok == ctx.size && p->full == SP_CALLS - ctx.size &&
			    p->other == 0, "lane %u of lcore %u: %u enqueued, %u"
			    " -ENOBUFS, %u other; want %u, %u, 0", ctx.size,
			    p->lcore, p->ok, p->full, p->other, ctx.size,
			    SP_CALLS - ctx.size);
		*full += p->full;
	}
	for (i = 0; i < SP_RING_PRODUCERS; i++) {
		ok += ctx.ring_prod[i].ok;
		refused += ctx.ring_prod[i].full;
		TEST_ASSERT_EQUAL(ctx.ring_prod[i].other, 0u,
				  "ring producer %u: other errors", i);
	}
	TEST_ASSERT(ok == ctx.size - 1 && refused == SP_RING_PRODUCERS * SP_CALLS - ok,
		    "ring %u with one slot held: %u enqueued, %u -ENOBUFS; want"
		    " %u, %u", ctx.size, ok, refused, ctx.size - 1,
		    SP_RING_PRODUCERS * SP_CALLS - (ctx.size - 1));
	*full += refused;
	TEST_ASSERT_EQUAL(tw_sweep_all(ctx.w, 2, out, RTE_DIM(out)), 0u,
			  "stale cancels wrote records");
	TEST_ASSERT(__atomic_load_n(&ctx.hold.expired, __ATOMIC_ACQUIRE) == 0,
		    "ring %u: the held slot was published after %u ms on its own:"
		    " the sweep waited for it", ctx.size, SP_HOLD_MS);
	TEST_ASSERT(__atomic_load_n(&ctx.hold.release, __ATOMIC_ACQUIRE) == 0 &&
		    __atomic_load_n(&ctx.unpark, __ATOMIC_ACQUIRE) == 0,
		    "released too early");
	return sp_check_stats((uint64_t)ctx.nb_lanes * ctx.size, *full,
			      "slot held, lcore parked");
}

/* Release the parked lcore and the held slot; wait for every producer. */
static void
sp_release(void)
{
	unsigned int i;

	__atomic_store_n(&ctx.unpark, 1, __ATOMIC_RELEASE);
	for (i = 1; i <= ctx.lanes_launched; i++) {
		while (!__atomic_load_n(&ctx.lane_prod[i].exited, __ATOMIC_ACQUIRE))
			usleep(100);
		rte_eal_wait_lcore(ctx.lane_prod[i].lcore);
	}
	__atomic_store_n(&ctx.hold.release, 1, __ATOMIC_RELEASE);
	if (ctx.hold_started)
		pthread_join(ctx.hold_th, NULL);
	for (i = 0; i < ctx.ring_started; i++)
		pthread_join(ctx.ring_th[i], NULL);
}

static int
sp_run(uint32_t size)
{
	struct twheel_fired out[8];
	uint64_t full = 0;
	int ret;

	ret = sp_setup(size);
	if (ret == TEST_SUCCESS) {
		twheel_stats_get(ctx.w, &ctx.before);
		ret = sp_stall();
	}
	if (ret == TEST_SUCCESS)
		ret = sp_check_stalled(&full);
	sp_release();
	/* the held slot published, the owner applies the ring in one sweep */
	if (ret == TEST_SUCCESS && tw_sweep_all(ctx.w, 3, out, RTE_DIM(out)) != 0)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS)
		ret = sp_check_stats((uint64_t)(ctx.nb_lanes + 1) * size, full,
				     "all released");
	if (ret == TEST_SUCCESS && ctx.nb_lanes > 1)
		printf("ring %u: %u lanes took %u each, lcore %u parked; the ring"
		       " %u behind a held slot; %" PRIu64 " -ENOBUFS\n", size,
		       ctx.nb_lanes, size, ctx.lane_prod[1].lcore, size - 1, full);
	else if (ret == TEST_SUCCESS)
		printf("ring %u: 1 lane took %u (no worker lcore to park); the"
		       " ring %u behind a held slot; %" PRIu64 " -ENOBUFS\n", size,
		       size, size - 1, full);
	twheel_free(ctx.w);
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
