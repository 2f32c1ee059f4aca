/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_xcore_autotest: cross-lcore schedules and cancels under load.
 *
 * One owner lcore sweeps a small wheel with real time. Producers, at least
 * two EAL lcores and one non-EAL pthread, send random remote schedules and
 * remote cancels: of live entries, of entries that already fired, and of
 * forged ids (wrong generation, index out of range, random). The ring is
 * tiny and the wheel small, so the ring fills (-ENOBUFS) and the wheel
 * rejects (TWHEEL_REJECTED). Lcores may be oversubscribed (--lcores maps
 * four lcores onto two cores), so producers are pre-empted mid-enqueue.
 *
 * At the end the accounting must be exact:
 *   - every remote schedule a producer sent was adopted or rejected, once;
 *   - every adopted entry left exactly once (Due, Cancelled, or drained);
 *   - remote_schedules, remote_cancels and remote_full equal what the
 *     producers counted, and remote_cancels = Cancelled records + remote_stale;
 *   - no Due record came before its deadline.
 *
 *   TWHEEL_XCORE_SECONDS=<s>   run time (default 1; the stress suite uses 10);
 *                              longer if not every path was taken by then
 *   TWHEEL_XCORE_SEED=<n>      seed
 *   TWHEEL_XCORE_CAPACITY=<n>  wheel capacity (default 2048; smaller under
 *                              ThreadSanitizer, which slows producers ~20x)
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"

#define XC_CAPACITY 2048     /* default */
#define XC_RING 64
#define XC_OPS_PER_SEC 160000   /* per producer; 60% schedules */
#define XC_MAX_PRODUCERS 8
#define XC_BUDGET_MAX 64

/* One remote schedule a producer made; the owner fills in the outcome. */
struct xc_item {
	uint64_t deadline;
	twheel_id_t id;           /* set by adopt_fn (release), read by producers */
	uint32_t adopted;         /* owner only */
	uint32_t rejected;        /* owner only */
	uint32_t left;            /* owner only: Due + Cancelled records */
	uint32_t sent;            /* producer only */
};

struct xc_producer {
	struct xc_item *items;
	uint32_t nb_items;
	uint32_t nb_used;
	uint64_t rng;
	uint64_t next_op;         /* TSC: paces the producer */
	/* what the producer counted */
	uint64_t schedules_sent, cancels_sent, enobufs;
	uint64_t forged_sent, fired_cancels_sent;
	bool non_eal;
};

struct xc_run {
	struct twheel *w;
	uint64_t tick;
	bool stop;                    /* producers stop (atomic) */
	bool producers_done;          /* owner: finish up (atomic) */
	/*
	 * Hand-offs the test itself synchronises with acquire/release, because
	 * rte_eal_remote_launch() and rte_eal_wait_lcore() do it inside the EAL
	 * library, where ThreadSanitizer cannot see it.
	 */
	bool go;
	unsigned int finished;
	unsigned int nb_producers;
	struct xc_producer prod[XC_MAX_PRODUCERS];
	/* the owner's findings */
	uint64_t due, cancelled, rejected, adopted, drained, early, bad;
	uint64_t sweeps, max_lag;
	uint64_t owner_seed;
	uint32_t capacity;
};

static struct xc_run run;

static void
xc_adopt(void *payload, twheel_id_t id, void *arg __rte_unused)
{
	struct xc_item *it = payload;

	it->adopted++;
	run.adopted++;
	__atomic_store_n(&it->id, id, __ATOMIC_RELEASE);
}

static uint64_t
xc_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct xc_item *)payload)->deadline;
}

/* An id that names nothing live (almost always; see the accounting). */
static twheel_id_t
forge(struct xc_producer *p, twheel_id_t real)
{
	switch (tw_rand(&p->rng) % 3) {
	case 0:
		return real + (UINT64_C(2) << 32);   /* a generation ahead */
	case 1:
		return (real & ~UINT64_C(0xffffffff)) | (run.capacity + 7);
	default:
		return tw_rand(&p->rng) | 1;
	}
}

/* A full ring: wait a little, as a real producer would, before retrying. */
static void
backoff(struct xc_producer *p)
{
	unsigned int i, n = tw_rand(&p->rng) % 2048;

	for (i = 0; i < n; i++)
		rte_pause();
}

static void
wait_go(void)
{
	while (!__atomic_load_n(&run.go, __ATOMIC_ACQUIRE))
		rte_pause();
}

static void
finish(void)
{
	__atomic_fetch_add(&run.finished, 1, __ATOMIC_RELEASE);
}

static void
producer_loop(struct xc_producer *p)
{
	const uint64_t interval = rte_get_tsc_hz() / XC_OPS_PER_SEC;

	wait_go();

	p->next_op = rte_rdtsc();
	while (!__atomic_load_n(&run.stop, __ATOMIC_RELAXED)) {
		uint32_t r = tw_rand(&p->rng) % 100;
		int ret;

		if (rte_rdtsc() < p->next_op) {
			rte_pause();
			continue;
		}
		p->next_op += interval;
		if (r < 60 && p->nb_used < p->nb_items) {
			struct xc_item *it = &p->items[p->nb_used];
			/* 0 to 20 ticks out; a few already in the past */
			it->deadline = rte_rdtsc() - 2 * run.tick +
				tw_rand(&p->rng) % (22 * run.tick);
			ret = twheel_remote_schedule(run.w, it->deadline, it);
			if (ret == 0) {
				it->sent = 1;
				p->nb_used++;
				p->schedules_sent++;
			} else if (ret == -ENOBUFS) {
				p->enobufs++;
				backoff(p);
			} else {
				printf("remote_schedule: %d\n", ret);
				__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
			}
		} else if (p->nb_used > 0) {
			struct xc_item *it = &p->items[tw_rand(&p->rng) % p->nb_used];
			twheel_id_t id = __atomic_load_n(&it->id, __ATOMIC_ACQUIRE);
			bool forged = r >= 90;

			if (id == TWHEEL_ID_INVALID)
				continue;        /* not adopted yet, or rejected */
			if (forged)
				id = forge(p, id);
			ret = twheel_remote_cancel(run.w, id);
			if (ret == 0) {
				p->cancels_sent++;
				p->forged_sent += forged;
			} else if (ret == -ENOBUFS) {
				p->enobufs++;
				backoff(p);
			} else {
				printf("remote_cancel: %d\n", ret);
				__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
			}
		}
	}
	finish();
}

static int
producer_lcore(void *arg)
{
	producer_loop(arg);
	return 0;
}

static void *
producer_thread(void *arg)
{
	producer_loop(arg);
	return NULL;
}

static void
owner_records(const struct twheel_fired *out, unsigned int n, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct xc_item *it = out[i].payload;

		switch (out[i].reason) {
		case TWHEEL_DUE:
			if (out[i].deadline > now || it->deadline > now)
				run.early++;
			if (now - out[i].deadline > run.max_lag)
				run.max_lag = now - out[i].deadline;
			it->left++;
			run.due++;
			break;
		case TWHEEL_CANCELLED:
			it->left++;
			run.cancelled++;
			break;
		case TWHEEL_REJECTED:
			if (out[i].id != TWHEEL_ID_INVALID)
				run.bad++;
			it->rejected++;
			run.rejected++;
			break;
		default:
			run.bad++;
		}
	}
}

static int
owner_lcore(void *arg __rte_unused)
{
	struct twheel_fired out[XC_BUDGET_MAX];
	uint64_t rng = run.owner_seed;
	unsigned int n;

	wait_go();
	while (!__atomic_load_n(&run.producers_done, __ATOMIC_ACQUIRE)) {
		uint64_t now = rte_rdtsc();

		n = twheel_sweep(run.w, now, 1 + tw_rand(&rng) % XC_BUDGET_MAX, out);
		owner_records(out, n, now);
		run.sweeps++;
	}
	/* the producers have stopped: apply what is left in the ring, then drain */
	do {
		uint64_t now = rte_rdtsc();

		n = twheel_sweep(run.w, now, XC_BUDGET_MAX, out);
		owner_records(out, n, now);
	} while (n != 0);
	while ((n = twheel_drain(run.w, XC_BUDGET_MAX, out)) != 0) {
		owner_records(out, n, rte_rdtsc());
		run.drained += n;
	}
	finish();
	return 0;
}

static int
check_accounting(void)
{
	uint64_t sent = 0, cancels = 0, enobufs = 0, forged = 0;
	struct twheel_stats st;
	unsigned int i, j;

	twheel_stats_get(run.w, &st);
	for (i = 0; i < run.nb_producers; i++) {
		struct xc_producer *p = &run.prod[i];

		sent += p->schedules_sent;
		cancels += p->cancels_sent;
		enobufs += p->enobufs;
		forged += p->forged_sent;
		for (j = 0; j < p->nb_used; j++) {
			struct xc_item *it = &p->items[j];

			TEST_ASSERT_EQUAL(it->adopted + it->rejected, 1u,
					  "producer %u item %u: adopted %u rejected %u",
					  i, j, it->adopted, it->rejected);
			TEST_ASSERT_EQUAL(it->left, it->adopted,
					  "producer %u item %u: adopted %u, left %u times",
					  i, j, it->adopted, it->left);
		}
		/* items never sent must not have been seen by the owner */
		for (; j < p->nb_items && j < p->nb_used + 64; j++)
			TEST_ASSERT(p->items[j].adopted + p->items[j].rejected +
				    p->items[j].left == 0, "unsent item seen");
	}
	printf("xcore: %u producers (1 non-EAL), %" PRIu64 " sweeps; sent %" PRIu64
	       " schedules, %" PRIu64 " cancels (%" PRIu64 " forged); %" PRIu64
	       " -ENOBUFS; adopted %" PRIu64 ", rejected %" PRIu64 "; left: %" PRIu64
	       " due, %" PRIu64 " cancelled, %" PRIu64 " drained; remote_stale %" PRIu64
	       "; max lag %.2f ms\n", run.nb_producers, run.sweeps, sent, cancels,
	       forged, enobufs, run.adopted, run.rejected, run.due,
	       run.cancelled - run.drained, run.drained, st.remote_stale,
	       (double)run.max_lag * 1000 / rte_get_tsc_hz());

	TEST_ASSERT_EQUAL(run.early, 0u, "%" PRIu64 " Due records came early", run.early);
	TEST_ASSERT_EQUAL(run.bad, 0u, "%" PRIu64 " malformed records", run.bad);
	TEST_ASSERT_EQUAL(run.adopted + run.rejected, sent,
			  "sent %" PRIu64 " schedules, adopted %" PRIu64 " + rejected %"
			  PRIu64, sent, run.adopted, run.rejected);
	TEST_ASSERT_EQUAL(st.remote_schedules, sent, "remote_schedules %" PRIu64
			  ", producers sent %" PRIu64, st.remote_schedules, sent);
	TEST_ASSERT_EQUAL(st.rejected, run.rejected, "rejected stat");
	TEST_ASSERT_EQUAL(st.scheduled, run.adopted, "scheduled %" PRIu64
			  ", adopted %" PRIu64, st.scheduled, run.adopted);
	TEST_ASSERT_EQUAL(st.remote_cancels, cancels, "remote_cancels %" PRIu64
			  ", producers sent %" PRIu64, st.remote_cancels, cancels);
	TEST_ASSERT_EQUAL(st.remote_cancels,
			  run.cancelled - run.drained + st.remote_stale,
			  "remote_cancels %" PRIu64 " != cancelled records %" PRIu64
			  " + stale %" PRIu64, st.remote_cancels,
			  run.cancelled - run.drained, st.remote_stale);
	TEST_ASSERT_EQUAL(st.remote_full, enobufs, "remote_full %" PRIu64
			  ", producers saw %" PRIu64 " -ENOBUFS", st.remote_full, enobufs);
	TEST_ASSERT_EQUAL(st.due, run.due, "due stat");
	TEST_ASSERT_EQUAL(st.cancelled, run.cancelled, "cancelled stat");
	TEST_ASSERT_EQUAL(st.live, 0u, "live %" PRIu64 " after drain", st.live);
	/* the run must have exercised what it claims to */
	TEST_ASSERT(enobufs > 0, "the ring never filled");
	TEST_ASSERT(run.rejected > 0, "the wheel never rejected");
	TEST_ASSERT(st.remote_stale > 0 && run.cancelled > run.drained,
		    "cancels were not both stale and live");
	TEST_ASSERT(run.due > 0, "nothing came due");
	return TEST_SUCCESS;
}

/*
 * Run at least the given time, then until the statistics show that every
 * path was taken (a full ring, a full wheel, live and stale cancels, Due
 * records), so a slow or loaded machine makes the test longer, not flaky.
 * check_accounting() still fails if the cap was reached without them.
 */
static void
run_until_exercised(uint64_t seconds)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t start = rte_rdtsc();
	const uint64_t cap = (10 * seconds + 20) * hz;
	struct twheel_stats st;

	rte_delay_us_sleep(seconds * 1000000);
	for (;;) {
		twheel_stats_get(run.w, &st);
		if (st.remote_full > 0 && st.rejected > 0 && st.remote_stale > 0 &&
		    st.cancelled > 0 && st.due > 0)
			break;
		if (rte_rdtsc() - start > cap)
			break;
		rte_delay_us_sleep(10000);
	}
	printf("xcore: ran %.1f s\n", (double)(rte_rdtsc() - start) / hz);
}

static int
test_xcore(void)
{
	struct twheel_config cfg;
	unsigned int lcore, owner = RTE_MAX_LCORE, i, n = 0;
	uint64_t seed = test_env_u64("TWHEEL_XCORE_SEED", rte_rdtsc());
	uint64_t seconds = test_env_u64("TWHEEL_XCORE_SECONDS", 1);
	uint64_t capacity = test_env_u64("TWHEEL_XCORE_CAPACITY", XC_CAPACITY);
	unsigned int workers[RTE_MAX_LCORE];
	pthread_t thread;
	int ret = TEST_SUCCESS;

	RTE_LCORE_FOREACH_WORKER(lcore)
		workers[n++] = lcore;
	if (n < 3) {
		printf("xcore: needs 3 worker lcores (an owner and two producers), "
		       "have %u; run with e.g. --lcores 0@0,1@1,2@0,3@1\n", n);
		return TEST_SKIPPED;
	}
	memset(&run, 0, sizeof(run));
	run.capacity = (uint32_t)capacity;
	twheel_config_standard(&cfg, "xcore", run.capacity, SOCKET_ID_ANY);
	cfg.tick_cycles = rte_get_tsc_hz() / 1000;       /* 1 ms ticks */
	cfg.slots = 64;
	cfg.remote_ring_size = XC_RING;
	cfg.deadline_fn = xc_deadline;
	cfg.adopt_fn = xc_adopt;
	run.w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(run.w, "create: %s", rte_strerror(rte_errno));
	run.tick = cfg.tick_cycles;
	run.owner_seed = seed;
	/* the EAL producers, then one non-EAL thread */
	run.nb_producers = RTE_MIN(n - 1, (unsigned int)XC_MAX_PRODUCERS - 1) + 1;
	for (i = 0; i < run.nb_producers; i++) {
		run.prod[i].nb_items = (seconds + 1) * XC_OPS_PER_SEC;
		run.prod[i].items = calloc(run.prod[i].nb_items, sizeof(struct xc_item));
		run.prod[i].rng = seed + 1 + i;
		if (run.prod[i].items == NULL)
			ret = TEST_FAILED;
	}
	if (ret != TEST_SUCCESS)
		goto out;
	printf("xcore: seed %#" PRIx64 " (TWHEEL_XCORE_SEED), %" PRIu64 " s, owner lcore %u\n",
	       seed, seconds, workers[0]);

	owner = workers[0];
	__atomic_store_n(&run.go, true, __ATOMIC_RELEASE);
	rte_eal_remote_launch(owner_lcore, NULL, owner);
	for (i = 0; i + 1 < run.nb_producers; i++)
		rte_eal_remote_launch(producer_lcore, &run.prod[i], workers[1 + i]);
	run.prod[i].non_eal = true;
	if (pthread_create(&thread, NULL, producer_thread, &run.prod[i]) != 0) {
		__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
		ret = TEST_FAILED;
	}
	run_until_exercised(seconds);
	__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
	if (ret == TEST_SUCCESS)
		pthread_join(thread, NULL);
	for (i = 1; i < n && i < run.nb_producers; i++)
		rte_eal_wait_lcore(workers[i]);
	/* release: the producers' last enqueues happen before the owner's finish */
	__atomic_store_n(&run.producers_done, true, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(owner);
	while (__atomic_load_n(&run.finished, __ATOMIC_ACQUIRE) !=
	       (ret == TEST_SUCCESS ? run.nb_producers + 1 : run.nb_producers))
		rte_pause();
	if (ret == TEST_SUCCESS)
		ret = check_accounting();
out:
	for (i = 0; i < run.nb_producers; i++)
		free(run.prod[i].items);
	twheel_free(run.w);
	return ret;
}

/* Single-threaded: the API's error returns. */
static int
test_remote_errors(void)
{
	struct twheel *w = tw_make("noring", 4, 8, 10, false);
	struct twheel_config cfg;
	struct twheel_fired out[8];
	struct twheel_stats st;
	uint64_t payload[4];
	unsigned int i, n;

	TEST_ASSERT_NOT_NULL(w, "create");
	TEST_ASSERT_EQUAL(twheel_remote_cancel(w, 1), -ENOTSUP, "no ring: cancel");
	TEST_ASSERT_EQUAL(twheel_remote_schedule(w, 1, NULL), -ENOTSUP,
			  "no ring: schedule");
	twheel_free(w);

	twheel_config_standard(&cfg, "smallring", 2, SOCKET_ID_ANY);
	cfg.tick_cycles = 10;
	cfg.slots = 8;
	cfg.remote_ring_size = 3;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < 3; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 100, &payload[i]),
				    "schedule %u", i);
	TEST_ASSERT_EQUAL(twheel_remote_schedule(w, 100, &payload[3]), -ENOBUFS,
			  "a full ring accepted a message");
	TEST_ASSERT_EQUAL(twheel_remote_cancel(w, 5), -ENOBUFS, "full ring: cancel");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.remote_full == 2 && st.remote_schedules == 0 && st.live == 0,
		    "a refused message left a trace: full %" PRIu64, st.remote_full);
	/* budget 1: one message per sweep; the third finds the wheel full */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 0, 1, out), 0u, "adopting is not a record");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 0, 1, out), 0u, "adopting is not a record");
	n = twheel_sweep(w, 0, 1, out);
	TEST_ASSERT(n == 1 && out[0].reason == TWHEEL_REJECTED &&
		    out[0].payload == &payload[2] && out[0].id == TWHEEL_ID_INVALID,
		    "no REJECTED record for a full wheel");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.remote_schedules == 3 && st.rejected == 1 && st.live == 2,
		    "stats after adoption");
	TEST_ASSERT_EQUAL(twheel_drain(w, 8, out), 2u, "drain");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Remote cancel of live, fired and forged ids; drain applies the ring. */
static twheel_id_t adopted_id;

static void
remember_id(void *payload __rte_unused, twheel_id_t id, void *arg __rte_unused)
{
	adopted_id = id;
}

static int
test_remote_cancel_kinds(void)
{
	struct twheel_config cfg;
	struct twheel_fired out[8];
	struct twheel_stats st;
	struct twheel *w;
	twheel_id_t live, fired;
	int payload;

	twheel_config_standard(&cfg, "rcancel", 8, SOCKET_ID_ANY);
	cfg.tick_cycles = 10;
	cfg.slots = 8;
	cfg.remote_ring_size = 16;
	cfg.adopt_fn = remember_id;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create");
	live = twheel_schedule(w, 1000, &payload);
	fired = twheel_schedule(w, 5, NULL);
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 20, out, 8), 1u, "fire");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, fired), "send");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, live + (UINT64_C(2) << 32)), "send");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, live), "send");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, live), "send");  /* twice */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 20, 8, out), 1u, "one live cancel");
	TEST_ASSERT(out[0].reason == TWHEEL_CANCELLED && out[0].id == live &&
		    out[0].payload == &payload && out[0].deadline == 1000,
		    "wrong CANCELLED record");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.remote_cancels == 4 && st.remote_stale == 3 &&
		    st.cancelled == 1 && st.live == 0, "stats: cancels %" PRIu64
		    " stale %" PRIu64, st.remote_cancels, st.remote_stale);
	/* drain applies the ring first: the adopted entry comes straight back */
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 5000, &payload), "send");
	TEST_ASSERT_EQUAL(twheel_drain(w, 8, out), 1u, "drain");
	TEST_ASSERT(out[0].reason == TWHEEL_CANCELLED && out[0].id == adopted_id &&
		    adopted_id != TWHEEL_ID_INVALID, "drained record");
	twheel_free(w);
	return TEST_SUCCESS;
}

static struct unit_test_suite xcore_suite = {
	.suite_name = "twheel cross-lcore test suite",
	.unit_test_cases = {
		TEST_CASE(test_remote_errors),
		TEST_CASE(test_remote_cancel_kinds),
		TEST_CASE(test_xcore),
		TEST_CASES_END()
	}
};

static int
test_twheel_xcore(void)
{
	return unit_test_suite_runner(&xcore_suite);
}

REGISTER_TEST_COMMAND(twheel_xcore_autotest, test_twheel_xcore);
