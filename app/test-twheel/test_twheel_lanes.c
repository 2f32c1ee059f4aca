/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_lanes_autotest: which channel a remote call takes, and what the
 * owner does with the channels; sequential, so every figure is exact.
 *
 * A wheel gives each EAL lcore a lane of its own and every other thread
 * one shared ring, each of remote_ring_size messages (twheel.h, "Remote
 * calls"). Three producers send here, one after the other: the main lcore
 * (its lane), worker lcore 1 through rte_eal_remote_launch() (its lane),
 * and a plain pthread (the ring); a thread registered with
 * rte_thread_register() after the wheel was made gets an lcore id but no
 * lane, and must land on the ring too. Each payload names its producer
 * and its sequence number, and the adopt_fn checks both.
 *
 * Checked: each channel takes exactly remote_ring_size messages and then
 * refuses with -ENOBUFS on its own, whatever the others hold (the room is
 * per producer); remote_full counts every refusal once; each producer's
 * messages are adopted in the order it sent them; under a budget smaller
 * than what is waiting, every loaded channel is served within as many
 * calls as there are channels (round-robin: no producer starves another);
 * the memory reported for the channels is what the guide's formula says.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"

#define LANE_ROOM 4
#define PRODUCERS 3                  /* main lcore, lcore 1, a pthread */
#define SEQ_BITS 16

struct lanes_owner {
	unsigned int next_seq[PRODUCERS];
	unsigned int adopted[PRODUCERS];
	unsigned int out_of_order;
	int last_producer;               /* of the latest adoption */
	unsigned int switches;           /* adoptions from another producer */
};

/* What one producer sends; ok/full/other: its results. */
struct lanes_send {
	struct twheel *w;
	unsigned int producer, first_seq, count;
	unsigned int ok, full, other;
	bool do_register;                /* rte_thread_register() first */
	unsigned int lcore_seen;         /* rte_lcore_id() it ran with */
	/* the hand-over to and from lcore 1, which ThreadSanitizer cannot
	 * see through rte_eal_remote_launch() and rte_eal_wait_lcore() */
	int posted, done;
};

static void
lanes_adopt(void *payload, twheel_id_t id __rte_unused, void *arg)
{
	struct lanes_owner *o = arg;
	uintptr_t tag = (uintptr_t)payload;
	unsigned int p = (unsigned int)(tag >> SEQ_BITS);
	unsigned int seq = (unsigned int)(tag & ((1u << SEQ_BITS) - 1));

	if (p >= PRODUCERS || seq != o->next_seq[p]) {
		o->out_of_order++;
		return;
	}
	o->next_seq[p]++;
	o->adopted[p]++;
	if (o->last_producer != (int)p)
		o->switches++;
	o->last_producer = (int)p;
}

static void
lanes_send_all(struct lanes_send *s)
{
	unsigned int i;
	int ret;

	s->lcore_seen = rte_lcore_id();
	for (i = 0; i < s->count; i++) {
		uintptr_t tag = ((uintptr_t)s->producer << SEQ_BITS) |
			(s->first_seq + s->ok);

		ret = twheel_remote_schedule(s->w, UINT64_MAX, (void *)tag);
		if (ret == 0)
			s->ok++;
		else if (ret == -ENOBUFS)
			s->full++;
		else
			s->other++;
	}
}

static int
lanes_send_lcore(void *arg)
{
	struct lanes_send *s = arg;

	while (!__atomic_load_n(&s->posted, __ATOMIC_ACQUIRE))
		rte_pause();
	lanes_send_all(s);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void *
lanes_send_thread(void *arg)
{
	struct lanes_send *s = arg;

	if (s->do_register && rte_thread_register() != 0) {
		s->other = s->count;
		return NULL;
	}
	lanes_send_all(s);
	if (s->do_register)
		rte_thread_unregister();
	return NULL;
}

/* Producer p sends count schedules from its own thread or lcore. */
static int
lanes_send(struct twheel *w, unsigned int p, unsigned int first_seq,
	   unsigned int count, bool do_register, struct lanes_send *s)
{
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	pthread_t th;

	*s = (struct lanes_send){ .w = w, .producer = p, .first_seq = first_seq,
				  .count = count, .do_register = do_register };
	if (p == 0) {
		lanes_send_all(s);
	} else if (p == 1) {
		__atomic_store_n(&s->posted, 1, __ATOMIC_RELEASE);
		TEST_ASSERT_SUCCESS(rte_eal_remote_launch(lanes_send_lcore, s,
							  worker), "launch");
		TEST_ASSERT_SUCCESS(rte_eal_wait_lcore(worker), "wait");
		TEST_ASSERT(__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) == 1,
			    "lcore %u did not finish", worker);
	} else {
		TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, lanes_send_thread, s),
				    "thread");
		pthread_join(th, NULL);
	}
	return TEST_SUCCESS;
}

/* Each case its own name: one that failed half-way leaves its wheel. */
static struct twheel *
lanes_wheel(struct lanes_owner *o, const char *name)
{
	struct twheel_config cfg;

	memset(o, 0, sizeof(*o));
	o->last_producer = -1;
	twheel_config_standard(&cfg, name, 64, SOCKET_ID_ANY);
	cfg.remote_ring_size = LANE_ROOM;
	cfg.adopt_fn = lanes_adopt;
	cfg.adopt_arg = o;
	return twheel_create(&cfg);
}

/* Each channel's room is its own; refusals counted once each. */
static int
test_lanes_room(void)
{
	struct twheel_fired out[4 * LANE_ROOM];
	struct lanes_send s[PRODUCERS], late;
	struct twheel_stats st;
	struct lanes_owner o;
	struct twheel *w = lanes_wheel(&o, "lanes_room");
	unsigned int p, n;

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (p = 0; p < PRODUCERS; p++) {
		TEST_ASSERT_SUCCESS(lanes_send(w, p, 0, LANE_ROOM + 2, false, &s[p]),
				    "producer %u", p);
		TEST_ASSERT(s[p].ok == LANE_ROOM && s[p].full == 2 && s[p].other == 0,
			    "producer %u (lcore %u): %u sent, %u -ENOBUFS, %u other;"
			    " want %u, 2, 0", p, s[p].lcore_seen, s[p].ok, s[p].full,
			    s[p].other, LANE_ROOM);
	}
	/* registered after the wheel: an lcore id, no lane, the full ring */
	TEST_ASSERT_SUCCESS(lanes_send(w, 2, LANE_ROOM, 1, true, &late), "late");
	TEST_ASSERT(late.lcore_seen != LCORE_ID_ANY && late.ok == 0 &&
		    late.full == 1, "registered thread (lcore %u): %u sent, %u"
		    " -ENOBUFS, %u other; want the full shared ring's -ENOBUFS",
		    late.lcore_seen, late.ok, late.full, late.other);
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.remote_full, (uint64_t)(2 * PRODUCERS + 1),
			  "remote_full %" PRIu64, st.remote_full);
	n = tw_sweep_all(w, 1, out, RTE_DIM(out));
	twheel_stats_get(w, &st);
	TEST_ASSERT(n == 0 && o.out_of_order == 0 &&
		    st.remote_schedules == PRODUCERS * LANE_ROOM &&
		    st.live == PRODUCERS * LANE_ROOM, "%u records, %u out of"
		    " order, %" PRIu64 " applied, %" PRIu64 " live", n,
		    o.out_of_order, st.remote_schedules, st.live);
	for (p = 0; p < PRODUCERS; p++)
		TEST_ASSERT_EQUAL(o.adopted[p], LANE_ROOM, "producer %u adopted %u",
				  p, o.adopted[p]);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Under a budget of 1, channels take turns: one adoption each in turn. */
static int
test_lanes_round_robin(void)
{
	struct twheel_fired out[1];
	struct lanes_send s;
	struct lanes_owner o;
	struct twheel *w = lanes_wheel(&o, "lanes_rr");
	unsigned int p, calls = 0;
	bool more = true;

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (p = 0; p < PRODUCERS; p++) {
		TEST_ASSERT_SUCCESS(lanes_send(w, p, 0, LANE_ROOM, false, &s), "send");
		TEST_ASSERT_EQUAL(s.ok, LANE_ROOM, "producer %u sent %u", p, s.ok);
	}
	/* each call applies one message, from the channel after the last */
	while (more && calls < 4 * PRODUCERS * LANE_ROOM) {
		TEST_ASSERT_EQUAL(twheel_sweep_more(w, 1, 1, out, &more), 0u,
				  "records");
		calls++;
	}
	TEST_ASSERT(o.out_of_order == 0 && calls == PRODUCERS * LANE_ROOM &&
		    o.switches == PRODUCERS * LANE_ROOM, "%u calls, %u adoptions"
		    " out of order, %u changes of producer; want %u calls, each"
		    " from the next producer", calls, o.out_of_order, o.switches,
		    PRODUCERS * LANE_ROOM);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* ring_bytes: a lane per EAL lcore and the ring, as the guide says. */
static int
test_lanes_memory(void)
{
	uint32_t slots = rte_align32pow2(LANE_ROOM);
	size_t lane = 2 * RTE_CACHE_LINE_SIZE +
		RTE_ALIGN_CEIL(slots * 24, RTE_CACHE_LINE_SIZE);
	ssize_t ring = rte_ring_get_memsize_elem(24, rte_align32pow2(LANE_ROOM + 1));
	struct twheel_mem_info mi;
	struct lanes_owner o;
	struct twheel *w = lanes_wheel(&o, "lanes_mem");

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	TEST_ASSERT(ring > 0, "ring size");
	twheel_mem_info_get(w, &mi);
	twheel_free(w);
	TEST_ASSERT_EQUAL(mi.ring_bytes, rte_lcore_count() * lane + (size_t)ring,
			  "ring_bytes %zu for %u lanes of %zu B and a ring of"
			  " %zd B", mi.ring_bytes, rte_lcore_count(), lane, ring);
	return TEST_SUCCESS;
}

static int
lanes_setup(void)
{
	if (rte_lcore_count() < 2) {
		printf("needs two lcores (-l 0-1)\n");
		return TEST_SKIPPED;
	}
	return TEST_SUCCESS;
}

static struct unit_test_suite lanes_suite = {
	.suite_name = "twheel remote lanes",
	.setup = lanes_setup,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE(test_lanes_room),
		TEST_CASE(test_lanes_round_robin),
		TEST_CASE(test_lanes_memory),
		TEST_CASES_END()
	}
};

static int
test_twheel_lanes(void)
{
	return unit_test_suite_runner(&lanes_suite);
}

REGISTER_TEST_COMMAND(twheel_lanes_autotest, test_twheel_lanes);
