/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_faults_autotest: the wheel under faults, each case built so that
 * the fault it is named after would make it fail if handled wrongly:
 *
 *   slab exhausted        ENOSPC locally, REJECTED remotely; nothing else
 *                         moves, every entry still fires once, on time
 *   remote flood          two producers (an EAL worker on its lane, a plain
 *                         pthread on the shared ring) enqueue faster than
 *                         the owner drains channels of 64 messages; every
 *                         message is accounted for; and a
 *                         remote schedule with no adopt_fn still lands
 *   time jumps            now forward by days and back by days
 *   end of time           deadlines near UINT64_MAX, TSC values near wrap,
 *                         and the wrap itself (time going back by 2^64)
 *   budget 0 and 1        with remote messages and due entries waiting
 *   free with live        entries, pending lists and remote messages: the DPDK
 *                         heaps and memzones return to where they were
 *   create fails          at each allocation step in turn (through the
 *                         test app's --wrap hook): ENOMEM, nothing left
 *                         behind, the name reusable
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
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_fault_hook.h"
#include "test_twheel_util.h"

#define DAY_CYCLES (UINT64_C(86400) * 2600000000ULL)

/* What a wheel may hold of DPDK's memory: heap bytes, blocks, memzones. */
struct footprint {
	size_t heap_bytes;
	unsigned int heap_blocks;
	unsigned int memzones;
};

static void
count_memzone(const struct rte_memzone *mz __rte_unused, void *arg)
{
	(*(unsigned int *)arg)++;
}

static void
footprint_get(struct footprint *f)
{
	struct rte_malloc_socket_stats st;
	unsigned int s;

	memset(f, 0, sizeof(*f));
	for (s = 0; s < rte_socket_count(); s++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(s), &st) == 0) {
			f->heap_bytes += st.heap_allocsz_bytes;
			f->heap_blocks += st.alloc_count;
		}
	rte_memzone_walk(count_memzone, &f->memzones);
}

/* Nothing of wheel "name" is left: memory, mempool, ring, registry. */
static int
check_nothing_left(const char *name, const struct footprint *before)
{
	char mp[RTE_MEMPOOL_NAMESIZE], ring[RTE_RING_NAMESIZE];
	struct footprint after;
	struct twheel *w;

	footprint_get(&after);
	TEST_ASSERT(after.heap_bytes == before->heap_bytes &&
		    after.heap_blocks == before->heap_blocks &&
		    after.memzones == before->memzones,
		    "%s: heap %zu bytes in %u blocks, %u memzones; before %zu in %u,"
		    " %u", name, after.heap_bytes, after.heap_blocks,
		    after.memzones, before->heap_bytes, before->heap_blocks,
		    before->memzones);
	snprintf(mp, sizeof(mp), "TW%zu_%s", strlen(name), name);
	snprintf(ring, sizeof(ring), "TWR%zu_%s", strlen(name), name);
	TEST_ASSERT_NULL(rte_mempool_lookup(mp), "%s: mempool left behind", mp);
	TEST_ASSERT_NULL(rte_ring_lookup(ring), "%s: ring left behind", ring);
	/* and the name is free again */
	w = tw_make(name, 16, 8, 10, false);
	TEST_ASSERT_NOT_NULL(w, "%s: name not reusable: %s", name,
			     rte_strerror(rte_errno));
	twheel_free(w);
	return TEST_SUCCESS;
}

/* A wheel with remote channels and adopt_fn storing the id in the payload. */
static void
adopt_store(void *payload, twheel_id_t id, void *arg __rte_unused)
{
	struct tw_payload *p = payload;

	__atomic_store_n(&p->tag, (uint32_t)id, __ATOMIC_RELAXED);
}

static struct twheel *
make_remote(const char *name, uint32_t capacity, uint32_t ring_size)
{
	struct twheel_config cfg = {
		.name = name, .socket_id = SOCKET_ID_ANY, .capacity = capacity,
		.slots = 64, .tick_cycles = 10, .remote_ring_size = ring_size,
		.deadline_fn = tw_payload_deadline, .adopt_fn = adopt_store,
	};

	return twheel_create(&cfg);
}

/* Slab exhausted ------------------------------------------------------------ */

static int
test_fault_slab_exhausted(void)
{
	const uint32_t cap = 100;
	struct twheel *w = make_remote("f_full", cap, 16);
	struct twheel_stats before, after;
	struct twheel_fired out[2 * 100];
	struct tw_payload p[100], extra = { .deadline = 5 };
	twheel_id_t ids[100];
	uint32_t i, n;

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < cap; i++) {
		p[i] = (struct tw_payload){ .deadline = 1000 + 10 * i };
		ids[i] = twheel_schedule(w, p[i].deadline, &p[i]);
		TEST_ASSERT(ids[i] != 0, "schedule %u of %u", i, cap);
	}
	twheel_stats_get(w, &before);
	for (i = 0; i < 1000; i++) {
		rte_errno = 0;
		TEST_ASSERT_EQUAL(twheel_schedule(w, i, &extra), TWHEEL_ID_INVALID,
				  "schedule into a full slab succeeded");
		TEST_ASSERT_EQUAL(rte_errno, ENOSPC, "rte_errno %d", rte_errno);
	}
	twheel_stats_get(w, &after);
	TEST_ASSERT(memcmp(&before, &after, sizeof(before)) == 0,
		    "1000 refused schedules changed the statistics");
	/* remotely: the payload comes back REJECTED, nothing else moves */
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 7, &extra), "remote");
	n = twheel_sweep(w, 500, 2 * cap, out);
	TEST_ASSERT(n == 1 && out[0].reason == TWHEEL_REJECTED &&
		    out[0].payload == &extra && out[0].id == TWHEEL_ID_INVALID &&
		    out[0].deadline == 7, "%u records, want one REJECTED", n);
	twheel_stats_get(w, &after);
	TEST_ASSERT(after.rejected == 1 && after.live == cap &&
		    after.scheduled == cap, "stats after REJECTED");
	/* every live entry still works: move one, cancel one, the rest fire */
	TEST_ASSERT_SUCCESS(twheel_move(w, ids[50], 600), "move in a full wheel");
	p[50].deadline = 600;
	TEST_ASSERT_SUCCESS(twheel_cancel(w, ids[0]), "cancel in a full wheel");
	extra.deadline = 5000;
	TEST_ASSERT(twheel_schedule(w, 5000, &extra) != 0, "no room after cancel");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 599, out, 2 * cap), 0u, "early");
	n = tw_sweep_all(w, 999, out, 2 * cap);
	TEST_ASSERT(n == 1 && out[0].id == ids[50], "the moved entry: %u", n);
	p[50].left++;
	n = tw_sweep_all(w, 1000 + 10 * cap + 10, out, 2 * cap);
	TEST_ASSERT_EQUAL(n, cap - 2, "%u fired, want %u", n, cap - 2);
	for (i = 0; i < n; i++) {
		struct tw_payload *q = out[i].payload;

		TEST_ASSERT(out[i].reason == TWHEEL_DUE && q >= p && q < p + cap &&
			    out[i].id == ids[q - p] && q->left++ == 0,
			    "record %u wrong or repeated", i);
		TEST_ASSERT(out[i].deadline == q->deadline, "record deadline");
	}
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 5010, out, 2 * cap), 1u, "extra lost");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Remote channels flooded ------------------------------------------------------ */

#define FLOOD_RING 64
#define FLOOD_CAP 256
#define FLOOD_MSGS 60000          /* attempts per producer */

struct flood_payload {
	uint64_t deadline;
	twheel_id_t id;               /* from adopt_fn; 0 until adopted */
	uint32_t left;                /* records naming it */
};

static uint64_t
flood_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct flood_payload *)payload)->deadline;
}

static void
flood_adopt(void *payload, twheel_id_t id, void *arg __rte_unused)
{
	__atomic_store_n(&((struct flood_payload *)payload)->id, id,
			 __ATOMIC_RELAXED);
}

struct flood_producer {
	struct twheel *w;
	struct flood_payload *p;      /* FLOOD_MSGS payloads of its own */
	uint64_t seed;
	uint64_t sched_ok, cancel_ok, nobufs;
	int ret;
	int done;                     /* released when the counters are final */
};

struct flood_tally {
	uint64_t rejected, cancelled, due, drained, bad;
};

static volatile int flood_go;

static int
flood_send(struct flood_producer *fp)
{
	uint64_t rng = fp->seed;
	uint32_t i, sent = 0;
	int ret;

	while (!__atomic_load_n(&flood_go, __ATOMIC_ACQUIRE))
		rte_pause();
	for (i = 0; i < FLOOD_MSGS; i++) {
		uint64_t r = tw_rand(&rng);

		if (r % 3 != 0 || sent == 0) {
			/* a new entry, due a little in the (virtual) future */
			fp->p[sent].deadline = 100 + r % 5000;
			ret = twheel_remote_schedule(fp->w, fp->p[sent].deadline,
						     &fp->p[sent]);
			if (ret == 0) {
				sent++;
				fp->sched_ok++;
			}
		} else {
			/* cancel one sent earlier: live, gone, or not adopted yet */
			struct flood_payload *q = &fp->p[(r >> 8) % sent];

			ret = twheel_remote_cancel(fp->w,
					__atomic_load_n(&q->id, __ATOMIC_RELAXED));
			if (ret == 0)
				fp->cancel_ok++;
		}
		if (ret == -ENOBUFS)
			fp->nobufs++;
		else if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * A producer's life; its end is published with a release store that the
 * owner acquires, an order ThreadSanitizer sees (DPDK's lcore wait is not
 * instrumented).
 */
static int
flood_produce(void *arg)
{
	struct flood_producer *fp = arg;

	fp->ret = flood_send(fp);
	__atomic_store_n(&fp->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void *
flood_thread(void *arg)
{
	flood_produce(arg);
	return NULL;
}

/* Count the records of a sweep or a drain; a repeated payload is bad. */
static void
flood_records(const struct twheel_fired *out, unsigned int n, bool drain,
	      struct flood_tally *t)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct flood_payload *q = out[i].payload;

		if (q == NULL || q->left++ != 0)
			t->bad++;
		else if (out[i].reason == TWHEEL_REJECTED)
			t->rejected++;
		else if (out[i].reason == TWHEEL_DUE && !drain)
			t->due++;
		else if (out[i].reason == TWHEEL_CANCELLED && !drain)
			t->cancelled++;
		else if (out[i].reason == TWHEEL_CANCELLED)
			t->drained++;
		else
			t->bad++;
	}
}

static int
test_fault_remote_flood(void)
{
	struct twheel_config cfg = {
		.name = "f_flood", .socket_id = SOCKET_ID_ANY,
		.capacity = FLOOD_CAP, .slots = 64, .tick_cycles = 10,
		.remote_ring_size = FLOOD_RING, .deadline_fn = flood_deadline,
		.adopt_fn = flood_adopt,
	};
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	struct flood_tally t = { 0 };
	struct flood_producer fp[2];
	struct twheel_fired out[64];
	uint64_t sched, cancels, nobufs, now = 0, loops = 0;
	struct twheel_stats st;
	struct twheel *w;
	pthread_t th;
	uint32_t i, k, n;
	int lret, done;

	if (worker >= RTE_MAX_LCORE) {
		printf("remote flood needs a worker lcore (-l 0-1)\n");
		return TEST_SKIPPED;
	}
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < 2; i++) {
		fp[i] = (struct flood_producer){ .w = w, .seed = 1000 + i };
		fp[i].p = calloc(FLOOD_MSGS, sizeof(*fp[i].p));
		TEST_ASSERT_NOT_NULL(fp[i].p, "calloc");
	}
	flood_go = 0;
	TEST_ASSERT_SUCCESS(rte_eal_remote_launch(flood_produce, &fp[0], worker),
			    "launch on lcore %u", worker);
	TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, flood_thread, &fp[1]),
			    "pthread_create");
	__atomic_store_n(&flood_go, 1, __ATOMIC_RELEASE);

	/* the owner: small budgets and pauses, so the channels overflow */
	do {
		done = __atomic_load_n(&fp[0].done, __ATOMIC_ACQUIRE) &&
			__atomic_load_n(&fp[1].done, __ATOMIC_ACQUIRE);
		now += 3;
		n = twheel_sweep(w, now, 16, out);
		flood_records(out, n, false, &t);
		if (++loops % 64 == 0)
			rte_delay_us_block(10);
	} while (!done);
	lret = rte_eal_wait_lcore(worker);
	TEST_ASSERT_SUCCESS(pthread_join(th, NULL), "pthread_join");
	TEST_ASSERT_SUCCESS(lret, "worker lcore returned %d", lret);
	TEST_ASSERT_SUCCESS(fp[0].ret, "worker producer: %d", fp[0].ret);
	TEST_ASSERT_SUCCESS(fp[1].ret, "thread producer: %d", fp[1].ret);

	/* apply what is left in the channels, then hand everything back */
	while ((n = twheel_sweep(w, now, 64, out)) != 0)
		flood_records(out, n, false, &t);
	while ((n = twheel_drain(w, 64, out)) != 0)
		flood_records(out, n, true, &t);

	twheel_stats_get(w, &st);
	sched = fp[0].sched_ok + fp[1].sched_ok;
	cancels = fp[0].cancel_ok + fp[1].cancel_ok;
	nobufs = fp[0].nobufs + fp[1].nobufs;
	printf("flood: %" PRIu64 " schedules and %" PRIu64 " cancels enqueued by"
	       " two producers, %" PRIu64 " refused (-ENOBUFS); owner: %" PRIu64
	       " sweeps, %" PRIu64 " rejected, %" PRIu64 " cancelled, %" PRIu64
	       " stale, %" PRIu64 " due, %" PRIu64 " drained\n", sched, cancels,
	       nobufs, st.sweeps, t.rejected, t.cancelled, st.remote_stale,
	       t.due, t.drained);
	TEST_ASSERT_EQUAL(t.bad, 0u, "%" PRIu64 " records repeated or malformed",
			  t.bad);
	TEST_ASSERT(nobufs > 0, "no channel ever overflowed: no flood");
	/* every message enqueued was applied, every refusal counted */
	TEST_ASSERT_EQUAL(st.remote_schedules, sched, "remote_schedules %" PRIu64
			  ", enqueued %" PRIu64, st.remote_schedules, sched);
	TEST_ASSERT_EQUAL(st.remote_cancels, cancels, "remote_cancels %" PRIu64
			  ", enqueued %" PRIu64, st.remote_cancels, cancels);
	TEST_ASSERT_EQUAL(st.remote_full, nobufs, "remote_full %" PRIu64
			  ", refused %" PRIu64, st.remote_full, nobufs);
	/* a cancel either handed its entry back or was stale */
	TEST_ASSERT_EQUAL(t.cancelled + st.remote_stale, cancels,
			  "%" PRIu64 " cancelled + %" PRIu64 " stale != %" PRIu64,
			  t.cancelled, st.remote_stale, cancels);
	/* a schedule was rejected or adopted, and every adopted one left */
	TEST_ASSERT_EQUAL(t.rejected + t.cancelled + t.due + t.drained, sched,
			  "%" PRIu64 " records for %" PRIu64 " payloads",
			  t.rejected + t.cancelled + t.due + t.drained, sched);
	TEST_ASSERT(st.rejected == t.rejected && st.due == t.due &&
		    st.scheduled == sched - t.rejected && st.live == 0,
		    "statistics disagree with the records");
	for (i = 0; i < 2; i++) {
		for (k = 0; k < fp[i].sched_ok; k++)
			TEST_ASSERT_EQUAL(fp[i].p[k].left, 1u,
					  "producer %u payload %u left %u times", i,
					  k, fp[i].p[k].left);
		free(fp[i].p);
	}
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Time jumps of days ------------------------------------------------------------ */

static int
test_fault_time_days(void)
{
	const uint32_t n = 20000;
	struct twheel_config cfg;
	struct twheel *w;
	struct twheel_fired *out = malloc(3 * n * sizeof(*out));
	struct tw_payload *p = calloc(n, sizeof(*p));
	struct twheel_stats st;
	uint64_t rng = 5, t0 = UINT64_C(1) << 50, now, back;
	uint32_t i, k, fired = 0;

	TEST_ASSERT(out != NULL && p != NULL, "alloc");
	/* the standard geometry, at a 2.6 GHz TSC whatever this machine has */
	twheel_config_standard(&cfg, "f_days", n, SOCKET_ID_ANY);
	cfg.tick_cycles = 26000000;
	cfg.deadline_fn = tw_payload_deadline;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	TEST_ASSERT_EQUAL(twheel_sweep(w, t0, 16, out), 0u, "empty wheel fired");
	/* flows over the next week: a quarter within day one */
	for (i = 0; i < n; i++) {
		p[i].deadline = t0 + 1 + tw_rand(&rng) % (7 * DAY_CYCLES);
		p[i].tag = i;
		TEST_ASSERT(twheel_schedule(w, p[i].deadline, &p[i]) != 0, "schedule");
	}
	/* three days forward in one step: one pass over the buckets */
	now = t0 + 3 * DAY_CYCLES;
	k = tw_sweep_all(w, now, out, 3 * n);
	for (i = 0; i < k; i++) {
		struct tw_payload *q = out[i].payload;

		TEST_ASSERT(q->deadline <= now && q->left++ == 0,
			    "early or repeated after a 3-day jump");
	}
	fired = k;
	for (i = 0; i < n; i++)
		TEST_ASSERT(p[i].deadline > now || p[i].left == 1,
			    "entry %u due in the jump was not handed back", i);
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.revisits <= 2 * (n - fired), "%" PRIu64 " revisits for %u"
		    " waiting: more than one pass", st.revisits, n - fired);

	/* back by two days: nothing fires, new flows keep their deadlines */
	back = now - 2 * DAY_CYCLES;
	TEST_ASSERT_EQUAL(tw_sweep_all(w, back, out, 3 * n), 0u,
			  "fired while time went back two days");
	for (i = 0; i < n; i++)
		if (p[i].left == 0 && i % 4 == 0)
			p[i].deadline = back + DAY_CYCLES;  /* refreshed, lazily */
	TEST_ASSERT_EQUAL(tw_sweep_all(w, back + DAY_CYCLES - 1, out, 3 * n), 0u,
			  "fired before time came back");
	/* and forward past everything: each remaining entry exactly once */
	now = t0 + 8 * DAY_CYCLES;
	k = tw_sweep_all(w, now, out, 3 * n);
	for (i = 0; i < k; i++) {
		struct tw_payload *q = out[i].payload;

		TEST_ASSERT(q->deadline <= now && q->left++ == 0, "repeated record");
	}
	fired += k;
	TEST_ASSERT_EQUAL(fired, n, "%u of %u entries left the wheel", fired, n);
	twheel_stats_get(w, &st);
	printf("days: %u entries over a week, jumps of +3, -2, +7 days: %" PRIu64
	       " sweeps, %" PRIu64 " revisits\n", n, st.sweeps, st.revisits);
	free(out);
	free(p);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* The end of time: near UINT64_MAX, and the TSC wrapping -------------------------- */

/* Sweep from now to until (included) in steps; every record on time, once. */
static int
sweep_span(struct twheel *w, uint64_t now, uint64_t until, uint64_t step,
	   uint32_t *fired)
{
	struct twheel_fired out[16];
	uint32_t n, i;

	for (;; now += step) {
		n = tw_sweep_all(w, now, out, 16);
		for (i = 0; i < n; i++) {
			struct tw_payload *q = out[i].payload;

			TEST_ASSERT(q->deadline <= now && q->left++ == 0,
				    "deadline %" PRIu64 " fired at %" PRIu64 " (%u"
				    " times before)", q->deadline, now, q->left - 1);
		}
		*fired += n;
		if (now == until)
			break;
		if (until - now <= step)
			now = until - step;      /* the last sweep is at until */
	}
	return TEST_SUCCESS;
}

static int
tsc_wrap_case(uint64_t last_now, uint32_t *after_wrap_fired)
{
	const uint64_t tick = 26000000, ttl = 30 * tick;
	struct twheel *w = tw_make_lazy("f_wrap", 64, 8192, tick);
	struct tw_payload p[6];
	struct twheel_fired out[16];
	uint64_t now = UINT64_MAX - 50 * tick;
	uint32_t fired = 0, i, n;

	TEST_ASSERT_NOT_NULL(w, "create");
	memset(p, 0, sizeof(p));
	TEST_ASSERT_EQUAL(twheel_sweep(w, now, 16, out), 0u, "empty");
	p[0].deadline = now + ttl;                /* near the top */
	p[1].deadline = UINT64_MAX - 1;
	p[2].deadline = UINT64_MAX;
	p[3].deadline = now + 100 * tick;         /* the caller's sum wrapped */
	for (i = 0; i < 4; i++)
		TEST_ASSERT(twheel_schedule(w, p[i].deadline, &p[i]) != 0, "schedule");
	/* a wrapped deadline looks long past: it fires at the next sweep */
	n = tw_sweep_all(w, now, out, 16);
	TEST_ASSERT(n == 1 && out[0].payload == &p[3], "wrapped deadline %" PRIu64
		    ": %u records", p[3].deadline, n);
	p[3].left = 1;
	TEST_ASSERT_SUCCESS(sweep_span(w, now, last_now, tick / 3, &fired), "top");
	TEST_ASSERT(p[0].left == 1, "near-top entry not fired by %" PRIu64,
		    last_now);
	/* the TSC wraps: to the wheel, time went back by almost 2^64 */
	now = 1000;
	p[4].deadline = now + ttl;
	p[5].deadline = now + 3 * ttl;
	for (i = 4; i < 6; i++)
		TEST_ASSERT(twheel_schedule(w, p[i].deadline, &p[i]) != 0, "schedule");
	TEST_ASSERT_SUCCESS(sweep_span(w, now, now + 10 * ttl, tick / 3, &fired),
			    "after the wrap");
	*after_wrap_fired = p[4].left + p[5].left;
	/* whatever did not fire is still there, once */
	n = twheel_drain(w, 16, out);
	for (i = 0; i < n; i++)
		((struct tw_payload *)out[i].payload)->left++;
	for (i = 0; i < 6; i++)
		TEST_ASSERT_EQUAL(p[i].left, 1u, "entry %u left %u times", i,
				  p[i].left);
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_fault_tsc_wrap(void)
{
	uint32_t end_fired, wrap_fired;

	/* time reached UINT64_MAX: the end bucket is examined every sweep */
	TEST_ASSERT_SUCCESS(tsc_wrap_case(UINT64_MAX, &end_fired), "end of time");
	TEST_ASSERT_EQUAL(end_fired, 2u, "after the end of time, %u of 2 entries"
			  " fired", end_fired);
	/*
	 * A real wrap, from a few ticks short of the top: the wheel makes no
	 * progress until time is back, which for a wrapped TSC is never;
	 * nothing fires early and nothing is lost (doc/reliability.md).
	 */
	TEST_ASSERT_SUCCESS(tsc_wrap_case(UINT64_MAX - 3 * 26000000, &wrap_fired),
			    "wrap");
	printf("tsc wrap: after reaching UINT64_MAX %u of 2 later entries fired on"
	       " time; after a wrap from below it %u of 2 (the rest drained)\n",
	       end_fired, wrap_fired);
	return TEST_SUCCESS;
}

/* A remote schedule for an owner that asked for no ids (no adopt_fn). */
static int
test_fault_remote_no_adopt(void)
{
	struct twheel_config cfg = {
		.name = "f_noadopt", .socket_id = SOCKET_ID_ANY, .capacity = 4,
		.slots = 8, .tick_cycles = 10, .remote_ring_size = 4,
	};
	struct twheel *w = twheel_create(&cfg);
	struct twheel_fired out[4];
	struct twheel_stats st;
	int x;

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 50, &x), "remote schedule");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 10, 4, out), 0u, "record at adoption");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.live == 1 && st.remote_schedules == 1, "not adopted");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 60, out, 4), 1u, "adopted entry lost");
	TEST_ASSERT(out[0].payload == &x && out[0].reason == TWHEEL_DUE &&
		    out[0].id != TWHEEL_ID_INVALID, "record");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Budgets 0 and 1 -------------------------------------------------------------- */

static int
test_fault_budget_0_1(void)
{
	struct twheel *w = make_remote("f_budget", 16, 8);
	struct tw_payload p[4] = { { .deadline = 10 }, { .deadline = 20 },
				   { .deadline = 30 }, { .deadline = 15 } };
	struct twheel_stats a, b;
	struct twheel_fired out[4];
	twheel_id_t id0;
	uint32_t i;

	TEST_ASSERT_NOT_NULL(w, "create");
	id0 = twheel_schedule(w, p[0].deadline, &p[0]);
	TEST_ASSERT(twheel_schedule(w, p[1].deadline, &p[1]) != 0, "schedule");
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, p[3].deadline, &p[3]), "rs");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, id0), "rc");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, id0), "rc again (stale)");

	/* budget 0: nothing applied, nothing examined, only counted */
	twheel_stats_get(w, &a);
	for (i = 0; i < 10; i++) {
		TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 0, out), 0u, "budget 0 sweep");
		TEST_ASSERT_EQUAL(twheel_drain(w, 0, out), 0u, "budget 0 drain");
	}
	twheel_stats_get(w, &b);
	a.sweeps += 10;
	TEST_ASSERT(memcmp(&a, &b, sizeof(a)) == 0,
		    "budget 0 changed more than the sweep count");

	/* budget 1: one message, then one entry, per sweep */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 0u, "adopt: no record");
	twheel_stats_get(w, &b);
	TEST_ASSERT(b.remote_schedules == 1 && b.remote_cancels == 0 &&
		    b.live == 3 && b.budget_exhausted == 1, "first message");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 1u, "remote cancel");
	TEST_ASSERT(out[0].reason == TWHEEL_CANCELLED && out[0].id == id0,
		    "remote cancel record");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 0u, "stale: no record");
	twheel_stats_get(w, &b);
	TEST_ASSERT(b.remote_cancels == 2 && b.remote_stale == 1 &&
		    b.budget_exhausted == 3, "stale message");
	/* two entries due: one per sweep, and the last sweep finds none left */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 1u, "entry 1");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 1u, "entry 2");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1000, 1, out), 0u, "nothing left");
	twheel_stats_get(w, &b);
	TEST_ASSERT(b.live == 0 && b.due == 2, "live %" PRIu64, b.live);
	TEST_ASSERT_EQUAL(b.budget_exhausted, 4u, "budget_exhausted %" PRIu64
			  ": the second entry's sweep had work left, the last none",
			  b.budget_exhausted);

	/*
	 * drain with budget 1: one message or one entry per call, as the
	 * sweep; a call spent on a message without a record returns 0 and
	 * counts in budget_exhausted
	 */
	TEST_ASSERT(twheel_schedule(w, 5000, &p[2]) != 0, "schedule");
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 5000, &p[3]), "rs");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, id0), "stale rc");
	TEST_ASSERT_EQUAL(twheel_drain(w, 1, out), 0u, "drain 1: adoption");
	TEST_ASSERT_EQUAL(twheel_drain(w, 1, out), 0u, "drain 1: stale cancel");
	twheel_stats_get(w, &b);
	TEST_ASSERT(b.remote_schedules == 2 && b.remote_stale == 2 &&
		    b.live == 2 && b.budget_exhausted == 6,
		    "drain 1 applied more or less than one message per call");
	TEST_ASSERT_EQUAL(twheel_drain(w, 1, out), 1u, "drain 1: entry");
	TEST_ASSERT_EQUAL(twheel_drain(w, 1, out), 1u, "drain 1: entry");
	TEST_ASSERT_EQUAL(twheel_drain(w, 1, out), 0u, "drain: empty");
	twheel_stats_get(w, &b);
	TEST_ASSERT(b.live == 0 && b.budget_exhausted == 7,
		    "live %" PRIu64 ", budget_exhausted %" PRIu64
		    ": the last entry's drain had nothing left", b.live,
		    b.budget_exhausted);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Free with live entries -------------------------------------------------------- */

static int
test_fault_free_live(void)
{
	struct footprint before;
	struct twheel_fired out[8];
	struct twheel_stats st;
	struct tw_payload *p = calloc(5000, sizeof(*p));
	struct twheel *w, *other;
	uint64_t rng = 9;
	uint32_t i;

	TEST_ASSERT_NOT_NULL(p, "calloc");
	/* a neighbour first, so f_free is not the registry's first wheel */
	other = tw_make("f_other", 8, 8, 10, false);
	TEST_ASSERT_NOT_NULL(other, "create");
	footprint_get(&before);
	w = make_remote("f_free", 5000, 256);
	TEST_ASSERT_NOT_NULL(w, "create");
	for (i = 0; i < 5000; i++) {
		p[i].deadline = tw_rand(&rng) % 100000;
		TEST_ASSERT(twheel_schedule(w, p[i].deadline, &p[i]) != 0, "schedule");
	}
	/* a sweep cut short leaves a detached bucket in pending */
	twheel_sweep(w, 50000, 8, out);
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.budget_exhausted, 1u, "the sweep was not cut short");
	for (i = 0; i < 200; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, i, &p[i]), "in flight");
	twheel_free(w);
	free(p);
	if (check_nothing_left("f_free", &before) != TEST_SUCCESS)
		return TEST_FAILED;
	/* the neighbour is untouched */
	TEST_ASSERT(twheel_schedule(other, 5, NULL) != 0, "neighbour broken");
	TEST_ASSERT_EQUAL(tw_sweep_all(other, 10, out, 8), 1u, "neighbour lost");
	twheel_free(other);
	return TEST_SUCCESS;
}

/* Create failing at each allocation step ------------------------------------------ */

static int
test_fault_create_each_step(void)
{
	struct twheel_config cfg;
	struct footprint before;
	struct twheel *w;
	uint32_t step, steps = 0;

	/* a real socket this time, not SOCKET_ID_ANY */
	twheel_config_standard(&cfg, "f_create", 1000, (int)rte_socket_id());
	/* count the allocation steps of a create that succeeds */
	footprint_get(&before);
	tw_fault_arm(0);
	w = twheel_create(&cfg);
	steps = tw_fault_calls();
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	twheel_free(w);
	TEST_ASSERT_SUCCESS(check_nothing_left("f_create", &before), "free");
	/* wheel, mempool, ops, populate, slab data, 4 bucket arrays, lanes, ring */
	TEST_ASSERT(steps >= 10, "only %u allocation calls seen: is the --wrap"
		    " hook linked in?", steps);
	for (step = 1; step <= steps; step++) {
		const char *fn;
		int want, err;

		footprint_get(&before);
		tw_fault_arm(step);
		rte_errno = 0;
		w = twheel_create(&cfg);
		err = rte_errno;
		fn = tw_fault_fired();
		tw_fault_arm(0);
		if (w != NULL)
			twheel_free(w);
		TEST_ASSERT_NOT_NULL(fn, "step %u of %u was not reached", step, steps);
		TEST_ASSERT_NULL(w, "create succeeded with %s (step %u) failing",
				 fn, step);
		want = strcmp(fn, "rte_mempool_set_ops_byname") == 0 ? EINVAL : ENOMEM;
		TEST_ASSERT_EQUAL(err, want, "step %u (%s): rte_errno %d, want %d",
				  step, fn, err, want);
		if (check_nothing_left("f_create", &before) != TEST_SUCCESS) {
			printf("failed at step %u of %u (%s)\n", step, steps, fn);
			return TEST_FAILED;
		}
		printf("  step %u: %s failed, create failed with %s, nothing left\n",
		       step, fn, rte_strerror(err));
	}
	printf("create: failed at each of its %u allocation steps, nothing left"
	       " behind\n", steps);
	return TEST_SUCCESS;
}

static struct unit_test_suite faults_suite = {
	.suite_name = "twheel fault injection suite",
	.unit_test_cases = {
		TEST_CASE(test_fault_slab_exhausted),
		TEST_CASE(test_fault_remote_flood),
		TEST_CASE(test_fault_remote_no_adopt),
		TEST_CASE(test_fault_time_days),
		TEST_CASE(test_fault_tsc_wrap),
		TEST_CASE(test_fault_budget_0_1),
		TEST_CASE(test_fault_free_live),
		TEST_CASE(test_fault_create_each_step),
		TEST_CASES_END()
	}
};

static int
test_twheel_faults(void)
{
	return unit_test_suite_runner(&faults_suite);
}

REGISTER_TEST_COMMAND(twheel_faults_autotest, test_twheel_faults);
