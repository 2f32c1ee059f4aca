/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_xcore_autotest: cross-lcore schedules and cancels under load.
 *
 * The owner, the main lcore, sweeps a small wheel with real time.
 * Producers send random remote schedules and remote cancels: of live
 * entries, of entries that already fired, and of forged ids (wrong
 * generation, index out of range, random). The scenario runs three times,
 * on a new wheel each time and for a third of the run time: with 1, with 2
 * and with all worker lcores producing (every lcore but the owner, up to
 * 15), each on its own lane, and each time with one non-EAL pthread
 * producing on the shared ring as well. The channels are small and the
 * wheel too, so channels fill (-ENOBUFS) and the wheel rejects
 * (TWHEEL_REJECTED). Lcores
 * may be oversubscribed (--lcores maps four lcores onto two cores), so
 * producers and the owner are pre-empted mid-call.
 *
 * Each producer tags its schedules with (producer, sequence), the sequence
 * counting the schedules it sent. Messages of one producer are applied in
 * the order it sent them, so the owner must see each producer's sequence
 * numbers strictly increasing: in adopt_fn, and in the REJECTED records.
 *
 * At the end of each run the accounting must be exact:
 *   - every remote schedule a producer sent was adopted or rejected, once;
 *   - every adopted entry left exactly once (Due, Cancelled, or drained);
 *   - remote_schedules, remote_cancels and remote_full equal what the
 *     producers counted, and remote_cancels = Cancelled records + remote_stale;
 *   - no Due record came before its deadline.
 * Each run prints a one-line summary.
 *
 *   TWHEEL_XCORE_SECONDS=<s>   run time of the three runs together (default
 *                              1; the stress suite uses 10); a run goes on
 *                              while not every path was taken
 *   TWHEEL_XCORE_SEED=<n>      seed
 *   TWHEEL_XCORE_CAPACITY=<n>  sizes the wheels: a run with p producers
 *                              gets n * p / 8 entries (default 2048: 256 a
 *                              producer, well under what one keeps live, so
 *                              the wheel rejects; smaller under
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
#define XC_MAX_PRODUCERS 16     /* EAL ones and the non-EAL one */
#define XC_BUDGET_MAX 64
#define XC_RUNS 3               /* 1, 2 and all workers producing */
#define XC_CAPACITY_SHARES 8    /* a producer's share of TWHEEL_XCORE_CAPACITY */

/* One remote schedule a producer made; the owner fills in the outcome. */
struct xc_item {
	uint64_t deadline;
	twheel_id_t id;           /* set by adopt_fn (release), read by producers */
	uint32_t producer;        /* producer only, before sending: the tag */
	uint32_t seq;             /* producer only, before sending */
	uint32_t adopted;         /* owner only */
	uint32_t rejected;        /* owner only */
	uint32_t left;            /* owner only: Due + Cancelled records */
	uint32_t sent;            /* producer only */
};

struct xc_producer {
	struct xc_item *items;
	uint32_t nb_items;
	uint32_t nb_used;
	uint32_t index;           /* the tag of its schedules */
	uint64_t rng;
	uint64_t next_op;         /* TSC: paces the producer */
	/* what the producer counted */
	uint64_t schedules_sent, cancels_sent, enobufs;
	uint64_t forged_sent;
};

struct xc_run {
	struct twheel *w;
	uint64_t tick;
	bool stop;                    /* producers stop (atomic) */
	/*
	 * Hand-offs the test itself synchronises with acquire/release, because
	 * rte_eal_remote_launch() and rte_eal_wait_lcore() do it inside the EAL
	 * library, where ThreadSanitizer cannot see it.
	 */
	bool go;
	unsigned int finished;
	unsigned int nb_producers;    /* the EAL ones, then the non-EAL one */
	struct xc_producer prod[XC_MAX_PRODUCERS];
	/* the owner's findings */
	uint64_t due, cancelled, rejected, adopted, drained, early, bad;
	uint64_t disorder;
	uint32_t next_adopted[XC_MAX_PRODUCERS];  /* lowest sequence allowed */
	uint32_t next_rejected[XC_MAX_PRODUCERS];
	uint64_t sweeps, max_lag;
	uint64_t owner_seed;
	uint32_t capacity;
	double seconds;
};

static struct xc_run run;

/* A producer's schedules must come in the order it sent them. */
static void
xc_order(const struct xc_item *it, uint32_t *next)
{
	if (it->producer >= run.nb_producers || it->seq < next[it->producer]) {
		run.disorder++;
		return;
	}
	next[it->producer] = it->seq + 1;
}

static void
xc_adopt(void *payload, twheel_id_t id, void *arg __rte_unused)
{
	struct xc_item *it = payload;

	xc_order(it, run.next_adopted);
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

/* A full channel: wait a little, as a real producer would, before retrying. */
static void
backoff(struct xc_producer *p)
{
	unsigned int i, n = tw_rand(&p->rng) % 2048;

	for (i = 0; i < n; i++)
		rte_pause();
}

/*
 * A remote call's result: true when the message went; a full channel is
 * counted and backed off from, any other error stops the run.
 */
static bool
call_sent(struct xc_producer *p, int ret, const char *what)
{
	if (ret == 0)
		return true;
	if (ret == -ENOBUFS) {
		p->enobufs++;
		backoff(p);
	} else {
		printf("%s: %d\n", what, ret);
		__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
	}
	return false;
}

static void
producer_schedule(struct xc_producer *p)
{
	struct xc_item *it = &p->items[p->nb_used];
	int ret;

	/* 0 to 20 ticks out; a few already in the past */
	it->deadline = rte_rdtsc() - 2 * run.tick +
		tw_rand(&p->rng) % (22 * run.tick);
	it->producer = p->index;
	it->seq = (uint32_t)p->schedules_sent;
	ret = twheel_remote_schedule(run.w, it->deadline, it);
	if (call_sent(p, ret, "remote_schedule")) {
		it->sent = 1;
		p->nb_used++;
		p->schedules_sent++;
	}
}

static void
producer_cancel(struct xc_producer *p, bool forged)
{
	struct xc_item *it = &p->items[tw_rand(&p->rng) % p->nb_used];
	twheel_id_t id = __atomic_load_n(&it->id, __ATOMIC_ACQUIRE);
	int ret;

	if (id == TWHEEL_ID_INVALID)
		return;          /* not adopted yet, or rejected */
	if (forged)
		id = forge(p, id);
	ret = twheel_remote_cancel(run.w, id);
	if (call_sent(p, ret, "remote_cancel")) {
		p->cancels_sent++;
		p->forged_sent += forged;
	}
}

static void
producer_loop(struct xc_producer *p)
{
	const uint64_t interval = rte_get_tsc_hz() / XC_OPS_PER_SEC;

	while (!__atomic_load_n(&run.go, __ATOMIC_ACQUIRE))
		rte_pause();
	p->next_op = rte_rdtsc();
	while (!__atomic_load_n(&run.stop, __ATOMIC_RELAXED)) {
		uint32_t r = tw_rand(&p->rng) % 100;

		if (rte_rdtsc() < p->next_op) {
			rte_pause();
			continue;
		}
		p->next_op += interval;
		if (r < 60 && p->nb_used < p->nb_items)
			producer_schedule(p);
		else if (p->nb_used > 0)
			producer_cancel(p, r >= 90);
	}
	/* release: all it wrote before the owner checks it */
	__atomic_fetch_add(&run.finished, 1, __ATOMIC_RELEASE);
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
			xc_order(it, run.next_rejected);
			it->rejected++;
			run.rejected++;
			break;
		default:
			run.bad++;
		}
	}
}

/* Has every path been taken: a full channel, a full wheel, ... */
static bool
exercised(void)
{
	struct twheel_stats st;

	twheel_stats_get(run.w, &st);
	return st.remote_full > 0 && st.rejected > 0 && st.remote_stale > 0 &&
		st.cancelled > 0 && st.due > 0;
}

/*
 * Sweep at least ms milliseconds, then until the statistics show that every
 * path was taken (a full channel, a full wheel, live and stale cancels, Due
 * records), so a slow or loaded machine makes the run longer, not flaky.
 * check_accounting() still fails if the cap was reached without them.
 */
static void
owner_sweep(uint64_t ms)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t start = rte_rdtsc();
	const uint64_t cap = start + (10 * ms + 20000) * (hz / 1000);
	uint64_t check = start + ms * (hz / 1000);
	struct twheel_fired out[XC_BUDGET_MAX];
	uint64_t rng = run.owner_seed;
	unsigned int n;

	for (;;) {
		uint64_t now = rte_rdtsc();

		n = twheel_sweep(run.w, now, 1 + tw_rand(&rng) % XC_BUDGET_MAX, out);
		owner_records(out, n, now);
		run.sweeps++;
		if (now < check)
			continue;
		if (exercised() || now > cap)
			break;
		check = now + hz / 100;
	}
	run.seconds = (double)(rte_rdtsc() - start) / hz;
}

/* The producers have stopped: apply what is left in the channels, drain. */
static void
owner_finish(void)
{
	struct twheel_fired out[XC_BUDGET_MAX];
	unsigned int n;
	bool more;

	do {
		uint64_t now = rte_rdtsc();

		n = twheel_sweep_more(run.w, now, XC_BUDGET_MAX, out, &more);
		owner_records(out, n, now);
	} while (more);
	do {
		n = twheel_drain_more(run.w, XC_BUDGET_MAX, out, &more);
		owner_records(out, n, rte_rdtsc());
		run.drained += n;
	} while (more);
}

static int
check_items(void)
{
	unsigned int i, j;

	for (i = 0; i < run.nb_producers; i++) {
		struct xc_producer *p = &run.prod[i];

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
	return TEST_SUCCESS;
}

static int
check_accounting(void)
{
	uint64_t sent = 0, cancels = 0, enobufs = 0, forged = 0;
	struct twheel_stats st;
	unsigned int i;

	twheel_stats_get(run.w, &st);
	for (i = 0; i < run.nb_producers; i++) {
		sent += run.prod[i].schedules_sent;
		cancels += run.prod[i].cancels_sent;
		enobufs += run.prod[i].enobufs;
		forged += run.prod[i].forged_sent;
	}
	printf("xcore: %u EAL + 1 non-EAL producers, wheel of %u, %.2f s: %" PRIu64
	       " schedules (adopted %" PRIu64 ", rejected %" PRIu64 "), %" PRIu64
	       " cancels (%" PRIu64 " forged, stale %" PRIu64 "), %" PRIu64
	       " -ENOBUFS; left %" PRIu64 " due, %" PRIu64 " cancelled, %" PRIu64
	       " drained; %" PRIu64 " sweeps, max lag %.2f ms\n",
	       run.nb_producers - 1, run.capacity, run.seconds, sent, run.adopted, run.rejected,
	       cancels, forged, st.remote_stale, enobufs, run.due,
	       run.cancelled - run.drained, run.drained, run.sweeps,
	       (double)run.max_lag * 1000 / rte_get_tsc_hz());

	TEST_ASSERT_SUCCESS(check_items(), "items");
	TEST_ASSERT_EQUAL(run.disorder, 0u, "%" PRIu64 " schedules applied out of"
			  " their producer's order", run.disorder);
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
	TEST_ASSERT(enobufs > 0, "no channel ever filled");
	TEST_ASSERT(run.rejected > 0, "the wheel never rejected");
	TEST_ASSERT(st.remote_stale > 0 && run.cancelled > run.drained,
		    "cancels were not both stale and live");
	TEST_ASSERT(run.due > 0, "nothing came due");
	return TEST_SUCCESS;
}

/* A new wheel, and nb_eal EAL producers and the non-EAL one for ms. */
static int
xc_setup(unsigned int nb_eal, uint64_t ms, uint64_t capacity, uint64_t seed)
{
	struct twheel_config cfg;
	unsigned int i;

	memset(&run, 0, sizeof(run));
	run.capacity = (uint32_t)RTE_MAX(capacity * (nb_eal + 1) /
					 XC_CAPACITY_SHARES, UINT64_C(1));
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
	run.nb_producers = nb_eal + 1;
	for (i = 0; i < run.nb_producers; i++) {
		struct xc_producer *p = &run.prod[i];

		p->nb_items = (ms / 1000 + 1) * XC_OPS_PER_SEC;
		p->items = calloc(p->nb_items, sizeof(struct xc_item));
		p->rng = seed + 1 + i;
		p->index = i;
		TEST_ASSERT_NOT_NULL(p->items, "no memory for %u items", p->nb_items);
	}
	return TEST_SUCCESS;
}

static void
xc_teardown(void)
{
	unsigned int i;

	for (i = 0; i < run.nb_producers; i++)
		free(run.prod[i].items);
	twheel_free(run.w);
}

/* One run: the main lcore owns the wheel, workers[0 .. nb_eal) produce. */
static int
xc_run(const unsigned int *workers, unsigned int nb_eal, uint64_t ms,
       uint64_t capacity, uint64_t seed)
{
	unsigned int i, launched = 0;
	bool thread_started = false;
	pthread_t thread;
	int ret;

	ret = xc_setup(nb_eal, ms, capacity, seed);
	if (ret != TEST_SUCCESS)
		goto out;
	__atomic_store_n(&run.go, true, __ATOMIC_RELEASE);
	while (launched < nb_eal &&
	       rte_eal_remote_launch(producer_lcore, &run.prod[launched],
				     workers[launched]) == 0)
		launched++;
	thread_started = pthread_create(&thread, NULL, producer_thread,
					&run.prod[nb_eal]) == 0;
	if (launched == nb_eal && thread_started)
		owner_sweep(ms);
	else
		ret = TEST_FAILED;
	__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
	/* acquire: the producers' last calls before the owner's finish */
	while (__atomic_load_n(&run.finished, __ATOMIC_ACQUIRE) !=
	       launched + thread_started)
		rte_pause();
	if (thread_started)
		pthread_join(thread, NULL);
	for (i = 0; i < launched; i++)
		rte_eal_wait_lcore(workers[i]);
	if (ret == TEST_SUCCESS) {
		owner_finish();
		ret = check_accounting();
	}
out:
	xc_teardown();
	return ret;
}

static int
test_xcore(void)
{
	uint64_t seed = test_env_u64("TWHEEL_XCORE_SEED", rte_rdtsc());
	uint64_t seconds = test_env_u64("TWHEEL_XCORE_SECONDS", 1);
	uint64_t capacity = test_env_u64("TWHEEL_XCORE_CAPACITY", XC_CAPACITY);
	unsigned int workers[RTE_MAX_LCORE], runs[XC_RUNS];
	unsigned int lcore, n = 0, nb_runs = 0, i;

	RTE_LCORE_FOREACH_WORKER(lcore)
		workers[n++] = lcore;
	if (n < 2) {
		printf("xcore: needs 2 worker lcores (two producers besides the "
		       "owner), have %u; run with e.g. --lcores 0@0,1@1,2@0,3@1\n", n);
		return TEST_SKIPPED;
	}
	n = RTE_MIN(n, (unsigned int)XC_MAX_PRODUCERS - 1);
	/* 1, 2 and all the workers producing; all may be 2 */
	runs[nb_runs++] = 1;
	runs[nb_runs++] = 2;
	if (n > 2)
		runs[nb_runs++] = n;
	printf("xcore: seed %#" PRIx64 " (TWHEEL_XCORE_SEED), %" PRIu64
	       " s in %u runs, owner lcore %u\n", seed, seconds, nb_runs,
	       rte_get_main_lcore());
	for (i = 0; i < nb_runs; i++)
		TEST_ASSERT_SUCCESS(xc_run(workers, runs[i],
					   seconds * 1000 / nb_runs, capacity,
					   seed + i * XC_MAX_PRODUCERS),
				    "%u EAL producers", runs[i]);
	return TEST_SUCCESS;
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
