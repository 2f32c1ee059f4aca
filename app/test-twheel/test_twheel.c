/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_autotest: every public function, every error path, and one named
 * case per invariant of doc/guide.md ("Invariants"), each built so that the
 * violation it is named after makes it fail.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_string_fns.h>

#include <twheel.h>

#include "telemetry_query.h"
#include "test.h"
#include "test_twheel_util.h"

/* Config and life cycle ------------------------------------------------- */

static int
test_config_standard(void)
{
	struct twheel_config cfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	twheel_config_standard(&cfg, "std", 1000, SOCKET_ID_ANY);
	TEST_ASSERT(strcmp(cfg.name, "std") == 0, "name not set");
	TEST_ASSERT_EQUAL(cfg.capacity, 1000u, "capacity %u", cfg.capacity);
	TEST_ASSERT_EQUAL(cfg.socket_id, SOCKET_ID_ANY, "socket %d", cfg.socket_id);
	TEST_ASSERT_EQUAL(cfg.slots, 8192u, "slots %u", cfg.slots);
	TEST_ASSERT_EQUAL(cfg.tick_cycles, rte_get_tsc_hz() / 100,
			  "tick %" PRIu64 " is not 10 ms", cfg.tick_cycles);
	TEST_ASSERT_EQUAL(cfg.remote_ring_size, 4096u, "ring %u", cfg.remote_ring_size);
	TEST_ASSERT(cfg.deadline_fn == NULL && cfg.deadline_arg == NULL &&
		    cfg.adopt_fn == NULL && cfg.adopt_arg == NULL,
		    "callbacks not cleared");
	return TEST_SUCCESS;
}

struct bad_config {
	const char *what;
	struct twheel_config cfg;
	int err;
};

static int
test_create_invalid_config(void)
{
	struct twheel_config good = {
		.name = "cfgchk", .socket_id = SOCKET_ID_ANY, .capacity = 16,
		.slots = 8, .tick_cycles = 100, .remote_ring_size = 0,
	};
	struct bad_config bad[32];
	struct twheel *w;
	unsigned int i, n = 0;

#define BAD(w_, field, value, e) do {			\
		bad[n].what = w_;			\
		bad[n].cfg = good;			\
		bad[n].cfg.field = value;		\
		bad[n].err = e;				\
		n++;					\
	} while (0)
	BAD("name NULL", name, NULL, EINVAL);
	BAD("name empty", name, "", EINVAL);
	BAD("name too long", name, "abcdefghijklmnopqrstu", ENAMETOOLONG);
	BAD("name with comma", name, "a,b", EINVAL);
	BAD("capacity 0", capacity, 0, EINVAL);
	BAD("capacity too big", capacity, TWHEEL_CAPACITY_MAX + 1, EINVAL);
	BAD("slots 0", slots, 0, EINVAL);
	BAD("slots 1", slots, 1, EINVAL);
	BAD("slots 3", slots, 3, EINVAL);
	BAD("slots 6000", slots, 6000, EINVAL);
	BAD("slots too many", slots, TWHEEL_SLOTS_MAX * 2, EINVAL);
	BAD("tick 0", tick_cycles, 0, EINVAL);
	BAD("ring too big", remote_ring_size, (1u << 24) + 1, EINVAL);
	BAD("socket negative", socket_id, -5, EINVAL);
	BAD("socket too big", socket_id, RTE_MAX_NUMA_NODES, EINVAL);
#undef BAD

	rte_errno = 0;
	TEST_ASSERT_NULL(twheel_create(NULL), "NULL config accepted");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "NULL config: rte_errno %d", rte_errno);
	for (i = 0; i < n; i++) {
		rte_errno = 0;
		w = twheel_create(&bad[i].cfg);
		if (w != NULL)
			twheel_free(w);
		TEST_ASSERT_NULL(w, "%s: accepted", bad[i].what);
		TEST_ASSERT_EQUAL(rte_errno, bad[i].err, "%s: rte_errno %d, want %d",
				  bad[i].what, rte_errno, bad[i].err);
	}
	/* nothing was left behind: the good config works, the name is free */
	w = twheel_create(&good);
	TEST_ASSERT_NOT_NULL(w, "good config refused: %s", rte_strerror(rte_errno));
	twheel_free(w);
	/* the longest name is accepted */
	good.name = "abcdefghijklmnopqrst";
	w = twheel_create(&good);
	TEST_ASSERT_NOT_NULL(w, "20-character name refused: %s", rte_strerror(rte_errno));
	TEST_ASSERT(strcmp(twheel_name(w), good.name) == 0, "twheel_name wrong");
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_create_duplicate_name(void)
{
	struct twheel *a, *b;

	a = tw_make("dup", 8, 8, 10, false);
	TEST_ASSERT_NOT_NULL(a, "create: %s", rte_strerror(rte_errno));
	rte_errno = 0;
	b = tw_make("dup", 8, 8, 10, false);
	TEST_ASSERT_NULL(b, "second wheel with the same name created");
	TEST_ASSERT_EQUAL(rte_errno, EEXIST, "rte_errno %d, want EEXIST", rte_errno);
	twheel_free(a);
	b = tw_make("dup", 8, 8, 10, false);
	TEST_ASSERT_NOT_NULL(b, "name not reusable after free: %s",
			     rte_strerror(rte_errno));
	twheel_free(b);
	twheel_free(NULL);
	return TEST_SUCCESS;
}

/*
 * Every pair of names the checker accepts can exist side by side, whatever
 * DPDK derives from them (the mempool's memzones "MP_<pool>" and
 * "MP_<pool>_<n>", the ring's "RG_<ring>"): "x" and "x_0" in both orders.
 */
static int
test_create_names_never_collide(void)
{
	static const char *const pairs[][2] = {
		{ "x", "x_0" }, { "x_0", "x" }, { "y", "y_1" }, { "z_0", "z_0_0" },
	};
	struct twheel_config cfg;
	struct twheel *a, *b;
	unsigned int i;

	for (i = 0; i < RTE_DIM(pairs); i++) {
		twheel_config_standard(&cfg, pairs[i][0], 16, SOCKET_ID_ANY);
		cfg.slots = 8;
		cfg.remote_ring_size = 8;
		a = twheel_create(&cfg);
		TEST_ASSERT_NOT_NULL(a, "create %s: %s", pairs[i][0],
				     rte_strerror(rte_errno));
		cfg.name = pairs[i][1];
		b = twheel_create(&cfg);
		twheel_free(b);
		twheel_free(a);
		TEST_ASSERT_NOT_NULL(b, "create %s beside %s: %s", pairs[i][1],
				     pairs[i][0], rte_strerror(rte_errno));
	}
	return TEST_SUCCESS;
}

/* The name of the mempool a wheel of this name gets, asked of one. */
static int
slab_mempool_name(const char *name, char *buf, size_t size)
{
	struct twheel *w = tw_make(name, 16, 8, 10, false);
	struct twheel_slab_info si;
	int ret;

	if (w == NULL)
		return -rte_errno;
	ret = twheel_slab_info_get(w, &si);
	if (ret == 0)
		strlcpy(buf, si.mempool_name, size);
	twheel_free(w);
	return ret;
}

static int
test_create_no_memory(void)
{
	char mp_name[RTE_MEMPOOL_NAMESIZE];
	struct twheel *w;

	TEST_ASSERT_SUCCESS(slab_mempool_name("hugecap", mp_name, sizeof(mp_name)),
			    "slab info");
	/* 2^30 entries would need 48 GiB: refused cleanly, name reusable */
	rte_errno = 0;
	w = tw_make("hugecap", TWHEEL_CAPACITY_MAX, 8, 10, false);
	if (w != NULL)
		twheel_free(w);
	TEST_ASSERT_NULL(w, "a 48 GiB wheel was created");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "rte_errno %d, want ENOMEM", rte_errno);
	TEST_ASSERT_NULL(rte_mempool_lookup(mp_name), "mempool %s left behind",
			 mp_name);
	w = tw_make("hugecap", 16, 8, 10, false);
	TEST_ASSERT_NOT_NULL(w, "name not reusable after a failed create");
	twheel_free(w);
	return TEST_SUCCESS;
}

/*
 * The slab is an rte_mempool that twheel_slab_info_get() names and
 * describes: its objects are the entries back to back (no trailer, no
 * padding to a cache line), within the 64-byte budget per entry, and the
 * generic mempool API can see but not take them.
 */
static int
test_mempool_slab(void)
{
	struct twheel *w = tw_make("slab", 100, 8, 10, false);
	char mp_name[RTE_MEMPOOL_NAMESIZE];
	struct twheel_slab_info si;
	struct twheel_mem_info mi;
	struct tw_payload p[10];
	struct rte_mempool *mp;
	unsigned int i;

	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	TEST_ASSERT_EQUAL(twheel_slab_info_get(NULL, &si), -EINVAL, "NULL wheel");
	TEST_ASSERT_EQUAL(twheel_slab_info_get(w, NULL), -EINVAL, "NULL info");
	TEST_ASSERT_SUCCESS(twheel_slab_info_get(w, &si), "slab info");
	/* the documented scheme, TW<length of the name>_<name> */
	TEST_ASSERT(strcmp(si.mempool_name, "TW4_slab") == 0, "mempool name %s",
		    si.mempool_name);
	strlcpy(mp_name, si.mempool_name, sizeof(mp_name));
	mp = rte_mempool_lookup(si.mempool_name);
	TEST_ASSERT_NOT_NULL(mp, "mempool %s not found", si.mempool_name);
	TEST_ASSERT_EQUAL(mp->size, 100u, "mempool size %u", mp->size);
	TEST_ASSERT_EQUAL(si.capacity, 100u, "slab info capacity %u", si.capacity);
	TEST_ASSERT_EQUAL(mp->cache_size, 0u, "mempool has a per-lcore cache");
	TEST_ASSERT(si.header_size == mp->header_size &&
		    si.entry_size == mp->elt_size &&
		    si.trailer_size == mp->trailer_size &&
		    si.stride == si.header_size + si.entry_size + si.trailer_size,
		    "slab info %u + %u + %u = %u, mempool %u + %u + %u",
		    si.header_size, si.entry_size, si.trailer_size, si.stride,
		    mp->header_size, mp->elt_size, mp->trailer_size);
	TEST_ASSERT(si.trailer_size == 0 && si.stride <= 64,
		    "object takes %u bytes (trailer %u), want the entry behind"
		    " its header within 64", si.stride, si.trailer_size);
	twheel_mem_info_get(w, &mi);
	TEST_ASSERT(mi.slab_bytes >= (size_t)si.stride * si.capacity,
		    "slab %zu bytes for %u objects of %u", mi.slab_bytes,
		    si.capacity, si.stride);
	TEST_ASSERT(strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			   "twheel_slab") == 0, "mempool driver is %s",
		    rte_mempool_get_ops(mp->ops_index)->name);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), 100u, "avail %u",
			  rte_mempool_avail_count(mp));
	for (i = 0; i < 10; i++)
		TEST_ASSERT(twheel_schedule(w, 1000, &p[i]) != 0, "schedule");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), 90u,
			  "mempool and wheel disagree: avail %u",
			  rte_mempool_avail_count(mp));
	/* the generic API may not take or return the wheel's entries */
	{
		void *obj = NULL;
		struct twheel_stats st;

		TEST_ASSERT(rte_mempool_get(mp, &obj) != 0,
			    "rte_mempool_get took an entry from a wheel's slab");
		TEST_ASSERT_EQUAL(rte_mempool_ops_enqueue_bulk(mp, &obj, 1), -ENOTSUP,
				  "the slab accepted an object through the mempool API");
		twheel_stats_get(w, &st);
		TEST_ASSERT(st.live == 10 && rte_mempool_avail_count(mp) == 90,
			    "a refused mempool call changed the wheel");
	}
	rte_mempool_audit(mp);
	twheel_free(w);
	TEST_ASSERT_NULL(rte_mempool_lookup(mp_name), "mempool %s not freed",
			 mp_name);
	return TEST_SUCCESS;
}

/* Basic operations -------------------------------------------------------- */

static int
test_schedule_and_fire(void)
{
	struct twheel *w = tw_make("basic", 16, 8, 10, false);
	struct twheel_fired out[4];
	struct twheel_stats st;
	struct tw_payload p = { 0 };
	twheel_id_t id;
	unsigned int n;

	TEST_ASSERT_NOT_NULL(w, "create");
	id = twheel_schedule(w, 55, &p);
	TEST_ASSERT_NOT_EQUAL(id, TWHEEL_ID_INVALID, "schedule failed");
	TEST_ASSERT((id >> 32) & 1, "live id has an even generation");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.live == 1 && st.scheduled == 1, "stats live %" PRIu64, st.live);
	n = twheel_sweep(w, 54, 4, out);
	TEST_ASSERT_EQUAL(n, 0u, "fired at 54, deadline 55");
	n = twheel_sweep(w, 59, 4, out);
	TEST_ASSERT(n <= 1, "fired twice");
	if (n == 0)     /* fires once its 10-cycle tick has elapsed */
		n = twheel_sweep(w, 60, 4, out);
	TEST_ASSERT_EQUAL(n, 1u, "not fired one tick after its deadline");
	TEST_ASSERT(out[0].id == id && out[0].payload == &p &&
		    out[0].deadline == 55 && out[0].reason == TWHEEL_DUE,
		    "wrong record");
	n = twheel_sweep(w, 1000, 4, out);
	TEST_ASSERT_EQUAL(n, 0u, "fired twice");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.live == 0 && st.due == 1 && st.sweeps >= 3,
		    "stats live %" PRIu64 " due %" PRIu64 " sweeps %" PRIu64,
		    st.live, st.due, st.sweeps);
	TEST_ASSERT(st.max_lag_cycles == 4 || st.max_lag_cycles == 5,
		    "lag %" PRIu64, st.max_lag_cycles);
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_cancel(void)
{
	struct twheel *w = tw_make("cancel", 16, 8, 10, false);
	struct twheel_fired out[4];
	struct twheel_stats st;
	twheel_id_t a, b;

	TEST_ASSERT_NOT_NULL(w, "create");
	a = twheel_schedule(w, 30, NULL);
	b = twheel_schedule(w, 30, NULL);
	TEST_ASSERT(a != 0 && b != 0 && a != b, "schedule");
	TEST_ASSERT_SUCCESS(twheel_cancel(w, a), "cancel of a live entry");
	TEST_ASSERT_EQUAL(twheel_cancel(w, a), -ENOENT, "second cancel");
	TEST_ASSERT_EQUAL(twheel_cancel(w, TWHEEL_ID_INVALID), -ENOENT, "cancel of 0");
	TEST_ASSERT_EQUAL(twheel_cancel(w, (b & 0xffffffff00000000ULL) | 16), -ENOENT,
			  "index beyond capacity accepted");
	TEST_ASSERT_EQUAL(twheel_cancel(w, b + (UINT64_C(1) << 32)), -ENOENT,
			  "even generation accepted");
	TEST_ASSERT_EQUAL(twheel_cancel(w, b + (UINT64_C(2) << 32)), -ENOENT,
			  "future generation accepted");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 100, out, 4), 1u, "cancelled entry fired");
	TEST_ASSERT_EQUAL(out[0].id, b, "wrong entry fired");
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.cancelled == 1 && st.due == 1 && st.live == 0, "stats");
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_move(void)
{
	struct twheel *w = tw_make("move", 16, 8, 10, false);
	struct twheel_fired out[4];
	twheel_id_t a, b;

	TEST_ASSERT_NOT_NULL(w, "create");
	a = twheel_schedule(w, 500, NULL);
	b = twheel_schedule(w, 50, NULL);
	TEST_ASSERT_SUCCESS(twheel_move(w, a, 40), "move earlier");
	TEST_ASSERT_SUCCESS(twheel_move(w, b, 700), "move later");
	TEST_ASSERT_SUCCESS(twheel_move(w, b, 705), "move within the same bucket");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 39, out, 4), 0u, "fired before 40");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 50, out, 4), 1u, "moved-earlier entry late");
	TEST_ASSERT(out[0].id == a && out[0].deadline == 40, "wrong record");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 600, out, 4), 0u, "fired at old deadline");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 704, out, 4), 0u, "fired before 705");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 710, out, 4), 1u, "moved-later entry lost");
	TEST_ASSERT(out[0].id == b && out[0].deadline == 705, "wrong record");
	TEST_ASSERT_EQUAL(twheel_move(w, a, 1000), -ENOENT, "move of a fired entry");
	TEST_ASSERT_EQUAL(twheel_move(w, 0, 1000), -ENOENT, "move of id 0");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariants ---------------------------------------------------------------- */

/* Invariant 1: a Due record only at now >= deadline. */
static int
test_inv1_never_early(void)
{
	const uint32_t n = 5000;
	struct twheel *w = tw_make("early", n, 16, 10, false);
	struct twheel_fired *out = malloc(n * sizeof(*out));
	uint64_t rng = 1, now = 0, fired = 0;
	uint32_t i, k;

	TEST_ASSERT(w != NULL && out != NULL, "setup");
	for (i = 0; i < n; i++) {
		uint64_t d = tw_rand(&rng) % 1000;

		TEST_ASSERT(twheel_schedule(w, d, NULL) != 0, "schedule");
	}
	while (fired < n) {
		now += tw_rand(&rng) % 7;
		/* a budget that never binds: lateness is the wheel's alone */
		k = twheel_sweep(w, now, n, out);
		for (i = 0; i < k; i++) {
			TEST_ASSERT(out[i].deadline <= now,
				    "early: deadline %" PRIu64 " at now %" PRIu64,
				    out[i].deadline, now);
			/* one tick (10) + the sweep step (< 7) bound lateness */
			TEST_ASSERT(now - out[i].deadline <= 16,
				    "late: deadline %" PRIu64 " at now %" PRIu64,
				    out[i].deadline, now);
		}
		fired += k;
		TEST_ASSERT(now < 100000, "entries never fired");
	}
	free(out);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 2: every entry leaves exactly once. */
static int
test_inv2_never_lost_or_twice(void)
{
	const uint32_t n = 20000;
	struct twheel *w = tw_make("lost", n, 32, 3, false);
	struct twheel_fired out[128];
	struct tw_payload *p = calloc(n, sizeof(*p));
	twheel_id_t *ids = calloc(n, sizeof(*ids));
	uint64_t rng = 7, now = 0;
	uint32_t i, k, left = 0;

	TEST_ASSERT(w != NULL && p != NULL && ids != NULL, "setup");
	for (i = 0; i < n; i++) {
		p[i].tag = i;
		ids[i] = twheel_schedule(w, tw_rand(&rng) % 2000, &p[i]);
		TEST_ASSERT(ids[i] != 0, "schedule %u", i);
	}
	for (i = 0; i < n; i += 3) {
		TEST_ASSERT_SUCCESS(twheel_cancel(w, ids[i]), "cancel %u", i);
		p[i].left++;
		left++;
	}
	while (left < n && now < 10000) {
		now += 5;
		k = twheel_sweep(w, now, 128, out);
		for (i = 0; i < k; i++) {
			struct tw_payload *q = out[i].payload;

			TEST_ASSERT(out[i].reason == TWHEEL_DUE, "reason %d", out[i].reason);
			TEST_ASSERT_EQUAL(out[i].id, ids[q->tag], "record id mismatch");
			q->left++;
			left++;
		}
	}
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(p[i].left, 1u, "entry %u left %u times", i, p[i].left);
	TEST_ASSERT_EQUAL(twheel_drain(w, 128, out), 0u, "entries left in the wheel");
	free(p);
	free(ids);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 5: a stale id cannot touch the entry that reuses its slot. */
static int
test_inv5_stale_id_reused_slot(void)
{
	struct twheel *w = tw_make("stale", 1, 8, 10, false);
	struct twheel_fired out[2];
	struct tw_payload pa, pb, pc;
	twheel_id_t a, b, c;

	TEST_ASSERT_NOT_NULL(w, "create");
	a = twheel_schedule(w, 100, &pa);
	TEST_ASSERT_SUCCESS(twheel_cancel(w, a), "cancel");
	b = twheel_schedule(w, 200, &pb);
	TEST_ASSERT(b != 0 && b != a, "slot reuse gave the same id");
	TEST_ASSERT_EQUAL((uint32_t)a, (uint32_t)b, "capacity 1 but a new slot");
	TEST_ASSERT_EQUAL(twheel_cancel(w, a), -ENOENT, "stale cancel took effect");
	TEST_ASSERT_EQUAL(twheel_move(w, a, 150), -ENOENT, "stale move took effect");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 199, out, 2), 0u,
			  "stale move made the new entry fire early");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 210, out, 2), 1u,
			  "stale cancel removed the new entry");
	TEST_ASSERT(out[0].id == b && out[0].payload == &pb, "wrong record");
	/* and after a Due, too */
	c = twheel_schedule(w, 300, &pc);
	TEST_ASSERT_EQUAL(twheel_cancel(w, b), -ENOENT, "id of a fired entry accepted");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 310, out, 2), 1u, "entry lost");
	TEST_ASSERT_EQUAL(out[0].id, c, "wrong record");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* The id ops of one wheel with the id of an entry elsewhere: all inert. */
static int
expect_foreign_inert(struct twheel *w, twheel_id_t id, const char *what)
{
	struct twheel_stats before, after;
	int rc = 1;

	twheel_stats_get(w, &before);
	TEST_ASSERT_EQUAL(twheel_cancel(w, id), -ENOENT, "%s: cancel took effect", what);
	TEST_ASSERT_EQUAL(twheel_move(w, id, 1), -ENOENT, "%s: move took effect", what);
	TEST_ASSERT_EQUAL(twheel_cancel_bulk(w, &id, 1, &rc), 0u,
			  "%s: cancel_bulk took effect", what);
	TEST_ASSERT_EQUAL(rc, -ENOENT, "%s: cancel_bulk rc %d", what, rc);
	twheel_stats_get(w, &after);
	TEST_ASSERT(memcmp(&before, &after, sizeof(before)) == 0,
		    "%s: the statistics changed", what);
	return TEST_SUCCESS;
}

/*
 * Invariant 5 across wheels: every wheel starts with the same generations
 * and hands out the lowest index first, yet the first id of one wheel must
 * not name the first entry of another, nor an id kept from before a wheel
 * of the same name was freed and created again its successor's.
 */
static int
test_inv5_id_of_another_wheel(void)
{
	struct twheel *a = tw_make("ids_a", 4, 8, 10, false);
	struct twheel *b = tw_make("ids_b", 4, 8, 10, false);
	struct tw_payload pa, pb, pc;
	struct twheel_fired out[2];
	twheel_id_t ia, ib, ic;

	TEST_ASSERT(a != NULL && b != NULL, "create");
	ia = twheel_schedule(a, 100, &pa);
	ib = twheel_schedule(b, 100, &pb);
	TEST_ASSERT(ia != TWHEEL_ID_INVALID && ib != TWHEEL_ID_INVALID, "schedule");
	TEST_ASSERT_SUCCESS(expect_foreign_inert(b, ia, "b with a's id"), "b");
	TEST_ASSERT_SUCCESS(expect_foreign_inert(a, ib, "a with b's id"), "a");
	TEST_ASSERT_EQUAL(tw_sweep_all(b, 200, out, 2), 1u,
			  "b's entry gone after a's id was used on b");
	TEST_ASSERT(out[0].id == ib && out[0].payload == &pb, "wrong record");
	/* a wheel of the same name, freed and created again */
	twheel_free(a);
	a = tw_make("ids_a", 4, 8, 10, false);
	TEST_ASSERT_NOT_NULL(a, "create again");
	ic = twheel_schedule(a, 100, &pc);
	TEST_ASSERT(ic != TWHEEL_ID_INVALID, "schedule");
	TEST_ASSERT_SUCCESS(expect_foreign_inert(a, ia, "a with its predecessor's id"),
			    "re-created");
	TEST_ASSERT_EQUAL(tw_sweep_all(a, 200, out, 2), 1u,
			  "the new entry gone after a pre-reset id was used");
	TEST_ASSERT(out[0].id == ic && out[0].payload == &pc, "wrong record");
	twheel_free(a);
	twheel_free(b);
	return TEST_SUCCESS;
}

/* Invariant 4: at most budget work per sweep, and resumption mid-bucket. */
static int
test_inv4_budget_bound_and_resume(void)
{
	const uint32_t n = 1000;
	struct twheel *w = tw_make("budget", n + 10, 8, 10, false);
	struct twheel_fired out[7 + 64];   /* room to see an overrun */
	struct tw_payload *p = calloc(n, sizeof(*p));
	struct twheel_stats st;
	twheel_id_t ids[3];
	uint32_t i, k, total = 0, calls = 0;

	TEST_ASSERT(w != NULL && p != NULL, "setup");
	for (i = 0; i < n; i++) {
		p[i].tag = i;
		TEST_ASSERT(twheel_schedule(w, 15, &p[i]) != 0, "schedule");
	}
	TEST_ASSERT_EQUAL(twheel_sweep(w, 100, 0, out), 0u, "budget 0 did work");
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.live, (uint64_t)n, "budget 0 changed the wheel");

	k = twheel_sweep(w, 100, 7, out);
	TEST_ASSERT_EQUAL(k, 7u, "first sweep returned %u", k);
	/* mid-bucket: add to and cancel from the wheel between sweeps */
	for (i = 0; i < 3; i++)
		ids[i] = twheel_schedule(w, 15, NULL);
	TEST_ASSERT_SUCCESS(twheel_cancel(w, ids[1]), "cancel mid-sweep");
	total = k;
	calls = 1;
	while ((k = twheel_sweep(w, 100, 7, out)) != 0) {
		TEST_ASSERT(k <= 7, "budget overrun: %u records for budget 7", k);
		total += k;
		calls++;
		TEST_ASSERT(calls < 1000, "sweep never finishes");
	}
	TEST_ASSERT_EQUAL(total, n + 2, "%u records for %u entries", total, n + 2);
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.budget_exhausted >= (n + 2) / 7 - 1,
		    "budget_exhausted %" PRIu64, st.budget_exhausted);
	TEST_ASSERT_EQUAL(st.live, 0u, "live %" PRIu64, st.live);

	/* budget 1 */
	for (i = 0; i < 5; i++)
		twheel_schedule(w, 200, NULL);
	for (i = 0; i < 5; i++)
		TEST_ASSERT_EQUAL(twheel_sweep(w, 300, 1, out), 1u, "budget 1, step %u", i);
	TEST_ASSERT_EQUAL(twheel_sweep(w, 300, 1, out), 0u, "budget 1: extra record");
	free(p);
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Revisits count against the budget, and are resumed like Due entries. */
static int
test_inv4_budget_counts_revisits(void)
{
	struct twheel *w = tw_make_lazy("revbudget", 64, 8, 10);
	struct twheel_fired out[20];
	struct tw_payload p[20];
	struct twheel_stats st;
	uint32_t i;

	TEST_ASSERT_NOT_NULL(w, "create");
	for (i = 0; i < 20; i++) {
		p[i].deadline = 15;
		TEST_ASSERT(twheel_schedule(w, 15, &p[i]) != 0, "schedule");
		p[i].deadline = 10000;    /* refreshed: a plain store */
	}
	TEST_ASSERT_EQUAL(twheel_sweep(w, 20, 8, out), 0u, "a refreshed entry fired");
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.revisits, 8u, "revisits %" PRIu64 " for budget 8",
			  st.revisits);
	TEST_ASSERT_EQUAL(st.budget_exhausted, 1u, "budget_exhausted not counted");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 20, 8, out), 0u, "fired");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 20, 8, out), 0u, "fired");
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.revisits, 20u, "revisits %" PRIu64, st.revisits);
	TEST_ASSERT_EQUAL(st.budget_exhausted, 2u, "last sweep had work left?");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 10010, out, 20), 20u, "entries lost");
	twheel_free(w);
	return TEST_SUCCESS;
}

/*
 * Invariant 4, the caller's side: *more of twheel_sweep_more() and
 * twheel_drain_more() is true exactly when the call counted in
 * budget_exhausted. more_call() checks that for every call below; the
 * cases are the edges: a budget exactly equal to the work (false), one
 * unit short (true), a budget spent on revisits or on ring messages that
 * wrote no record (0 records; true while work is left, false after the
 * last), budget 0 (false, nothing done), a drain after adoptions, and
 * more == NULL.
 */
struct more_case {
	struct twheel *w;
	struct twheel_fired out[16];
	bool more;
	bool failed;
};

static unsigned int
more_call(struct more_case *c, bool drain, uint64_t now, unsigned int budget)
{
	struct twheel_stats a, b;
	unsigned int n;

	twheel_stats_get(c->w, &a);
	c->more = !drain || budget != 0;   /* a value the call must overwrite */
	n = drain ? twheel_drain_more(c->w, budget, c->out, &c->more) :
		twheel_sweep_more(c->w, now, budget, c->out, &c->more);
	twheel_stats_get(c->w, &b);
	if (c->more != (b.budget_exhausted - a.budget_exhausted == 1) ||
	    b.budget_exhausted - a.budget_exhausted > 1) {
		printf("%s(budget %u): more %d, budget_exhausted moved by %" PRIu64 "\n",
		       drain ? "drain" : "sweep", budget, c->more,
		       b.budget_exhausted - a.budget_exhausted);
		c->failed = true;
	}
	return n;
}

static void
count_adopt(void *payload __rte_unused, twheel_id_t id __rte_unused, void *arg)
{
	(*(unsigned int *)arg)++;
}

static int
test_inv4_more_iff_budget_exhausted(void)
{
	struct twheel_config cfg;
	struct more_case c = { .failed = false };
	struct tw_payload p[4];
	unsigned int adopted = 0, i, n;

	twheel_config_standard(&cfg, "more", 64, SOCKET_ID_ANY);
	cfg.slots = 8;
	cfg.tick_cycles = 10;
	cfg.remote_ring_size = 16;
	cfg.deadline_fn = tw_payload_deadline;
	cfg.adopt_fn = count_adopt;
	cfg.adopt_arg = &adopted;
	c.w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(c.w, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < 4; i++)
		p[i].deadline = 15;

	/* the budget exactly the work: finished, nothing left */
	for (i = 0; i < 4; i++)
		TEST_ASSERT(twheel_schedule(c.w, 15, &p[i]) != 0, "schedule");
	n = more_call(&c, false, 100, 4);
	TEST_ASSERT(n == 4 && !c.more, "exact budget: %u records, more %d", n, c.more);
	/* one short, then the rest exactly */
	for (i = 0; i < 4; i++)
		TEST_ASSERT(twheel_schedule(c.w, 115, &p[i]) != 0, "schedule");
	for (i = 0; i < 4; i++)
		p[i].deadline = 115;
	n = more_call(&c, false, 200, 3);
	TEST_ASSERT(n == 3 && c.more, "short budget: %u records, more %d", n, c.more);
	/* budget 0 does nothing and says nothing is left to do by it */
	n = more_call(&c, false, 200, 0);
	TEST_ASSERT(n == 0 && !c.more, "budget 0: %u records, more %d", n, c.more);
	n = more_call(&c, false, 200, 1);
	TEST_ASSERT(n == 1 && !c.more, "last unit: %u records, more %d", n, c.more);
	n = more_call(&c, false, 200, 8);
	TEST_ASSERT(n == 0 && !c.more, "idle sweep: %u records, more %d", n, c.more);

	/* revisits only: the budget spent, no record, more */
	for (i = 0; i < 4; i++) {
		p[i].deadline = 215;
		TEST_ASSERT(twheel_schedule(c.w, 215, &p[i]) != 0, "schedule");
		p[i].deadline = 10000;              /* refreshed */
	}
	n = more_call(&c, false, 300, 2);
	TEST_ASSERT(n == 0 && c.more, "revisits: %u records, more %d", n, c.more);
	n = more_call(&c, false, 300, 2);
	TEST_ASSERT(n == 0 && !c.more, "revisits done: %u records, more %d", n,
		    c.more);

	/* messages that write no record: adoptions and a stale cancel */
	for (i = 0; i < 3; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_schedule(c.w, 5000, &p[i]), "rs");
	TEST_ASSERT_SUCCESS(twheel_remote_cancel(c.w, UINT64_C(3) << 32), "rc");
	n = more_call(&c, false, 300, 3);
	TEST_ASSERT(n == 0 && c.more && adopted == 3,
		    "messages: %u records, more %d, %u adopted", n, c.more, adopted);
	n = more_call(&c, false, 300, 1);
	TEST_ASSERT(n == 0 && !c.more, "last message: %u records, more %d", n,
		    c.more);
	/* with more == NULL the call is the plain one */
	TEST_ASSERT_EQUAL(twheel_sweep_more(c.w, 300, 4, c.out, NULL), 0u,
			  "sweep_more with more NULL");

	/* drain: budget 0, after adoptions, exactly, and empty */
	n = more_call(&c, true, 0, 0);
	TEST_ASSERT(n == 0 && !c.more, "drain budget 0: %u, more %d", n, c.more);
	TEST_ASSERT_SUCCESS(twheel_remote_schedule(c.w, 6000, &p[3]), "rs");
	/* 4 refreshed + 3 + 1 adopted live; the ring holds one adoption */
	n = more_call(&c, true, 0, 1);
	TEST_ASSERT(n == 0 && c.more && adopted == 4,
		    "drain spent on an adoption: %u records, more %d", n, c.more);
	n = more_call(&c, true, 0, 7);
	TEST_ASSERT(n == 7 && c.more, "drain short: %u records, more %d", n, c.more);
	n = more_call(&c, true, 0, 1);
	TEST_ASSERT(n == 1 && !c.more, "drain exact: %u records, more %d", n, c.more);
	n = more_call(&c, true, 0, 4);
	TEST_ASSERT(n == 0 && !c.more, "drain empty: %u records, more %d", n, c.more);
	/* the budget spent on stale cancels, nothing left after them */
	for (i = 0; i < 2; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_cancel(c.w, UINT64_C(5) << 32), "rc");
	n = more_call(&c, true, 0, 2);
	TEST_ASSERT(n == 0 && !c.more, "drain of stale cancels: %u records, more %d",
		    n, c.more);
	TEST_ASSERT_EQUAL(twheel_drain_more(c.w, 4, c.out, NULL), 0u,
			  "drain_more with more NULL");
	TEST_ASSERT(!c.failed, "more and budget_exhausted disagreed");
	twheel_free(c.w);
	return TEST_SUCCESS;
}

/* Invariant 7: a deadline past the span wraps and is revisited. */
static int
test_inv7_wrap_revisit(void)
{
	/* 8 slots x 10 cycles: a rotation is 80 cycles, the deadline 12.5 of them */
	struct twheel *w = tw_make("wrap", 4, 8, 10, false);
	struct twheel_fired out[2];
	struct twheel_stats st;
	uint64_t now;
	twheel_id_t id;

	TEST_ASSERT_NOT_NULL(w, "create");
	id = twheel_schedule(w, 1005, NULL);
	for (now = 0; now < 1010; now += 5)
		TEST_ASSERT_EQUAL(twheel_sweep(w, now, 2, out), 0u,
				  "wrapped entry fired at %" PRIu64, now);
	twheel_stats_get(w, &st);
	/* tick 100 is in bucket 4, passed early at ticks 4, 12, ..., 92 */
	TEST_ASSERT_EQUAL(st.revisits, 12u, "revisited %" PRIu64
			  " times, want once per earlier pass (12)", st.revisits);
	TEST_ASSERT_EQUAL(twheel_sweep(w, 1010, 2, out), 1u,
			  "not fired when its tick ended");
	TEST_ASSERT_EQUAL(out[0].id, id, "wrong record");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 7: a deadline in the past fires at the next sweep. */
static int
test_inv7_past_deadline_next_sweep(void)
{
	struct twheel *w = tw_make("past", 8, 8, 1000, false);
	struct twheel_fired out[4];

	TEST_ASSERT_NOT_NULL(w, "create");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 5500, 4, out), 0u, "empty wheel fired");
	twheel_schedule(w, 10, NULL);      /* long past */
	twheel_schedule(w, 5500, NULL);    /* == now */
	twheel_schedule(w, 5200, NULL);    /* earlier in the current tick */
	/* same now, same tick: must fire now, not a tick later */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 5500, 4, out), 3u,
			  "past deadlines did not fire at the next sweep");
	TEST_ASSERT(out[0].deadline <= 5500 && out[1].deadline <= 5500 &&
		    out[2].deadline <= 5500, "wrong records");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 7: now going backwards makes no progress and breaks nothing. */
static int
test_inv7_time_backwards(void)
{
	struct twheel *w = tw_make("back", 16, 8, 10, false);
	struct twheel_fired out[8];
	twheel_id_t a, b;
	unsigned int n;

	TEST_ASSERT_NOT_NULL(w, "create");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 100000, 8, out), 0u, "empty");
	a = twheel_schedule(w, 100050, NULL);
	b = twheel_schedule(w, 99990, NULL);     /* overdue */
	TEST_ASSERT_EQUAL(twheel_sweep(w, 10, 8, out), 0u,
			  "fired while now went backwards");
	TEST_ASSERT_EQUAL(twheel_sweep(w, 0, 8, out), 0u, "fired at now 0");
	/* b may fire once now >= 99990 again; a must not before 100050 */
	n = tw_sweep_all(w, 100049, out, 8);
	TEST_ASSERT(n <= 1 && (n == 0 || out[0].id == b), "early after backwards");
	n += tw_sweep_all(w, 100070, out + n, 8 - n);
	TEST_ASSERT_EQUAL(n, 2u, "entries lost after going backwards");
	TEST_ASSERT(out[0].id == b && out[1].id == a, "wrong records");
	twheel_free(w);
	return TEST_SUCCESS;
}

/*
 * A sweep at now0, then n entries due within the next rotation and a sweep
 * once a tick for a rotation: every one fires within a tick of its
 * deadline, none is revisited, no sweep runs out of budget.
 */
static int
sweep_on_time(struct twheel *w, uint64_t now0, uint64_t tick, uint32_t rot_ticks,
	      uint32_t n, const char *what)
{
	struct twheel_stats before, after;
	struct twheel_fired out[64];
	uint64_t rng = 17, now = now0;
	uint32_t i, k, fired = 0;

	TEST_ASSERT_EQUAL(twheel_sweep(w, now0, RTE_DIM(out), out), 0u,
			  "%s: the first sweep fired", what);
	for (i = 0; i < n; i++)
		TEST_ASSERT(twheel_schedule(w, now0 + 1 + tw_rand(&rng) %
					    ((uint64_t)rot_ticks * tick - 1), NULL) !=
			    TWHEEL_ID_INVALID, "%s: schedule", what);
	twheel_stats_get(w, &before);
	for (i = 0; i <= rot_ticks + 1; i++, now += tick) {
		k = twheel_sweep(w, now, RTE_DIM(out), out);
		for (uint32_t j = 0; j < k; j++)
			TEST_ASSERT(out[j].deadline <= now && now - out[j].deadline <= tick,
				    "%s: deadline %" PRIu64 " fired at %" PRIu64, what,
				    out[j].deadline, now);
		fired += k;
	}
	twheel_stats_get(w, &after);
	TEST_ASSERT_EQUAL(fired, n, "%s: %u of %u fired within a rotation", what,
			  fired, n);
	TEST_ASSERT(after.revisits == before.revisits &&
		    after.budget_exhausted == before.budget_exhausted,
		    "%s: %" PRIu64 " revisits, %" PRIu64 " sweeps out of budget in"
		    " %u sweeps", what, after.revisits - before.revisits,
		    after.budget_exhausted - before.budget_exhausted, rot_ticks + 2);
	return TEST_SUCCESS;
}

/*
 * Invariant 7: one absurd now does not degrade the wheel for good. After a
 * sweep at UINT64_MAX (or any jump ahead) time comes back by more than a
 * rotation: that sweep re-bases the cursor there, and entries scheduled
 * afterwards fire on time with no revisits, as on a fresh wheel.
 */
static int
test_inv7_time_back_rebase(void)
{
	const uint64_t tick = 1000, t0 = 5000000;
	const uint32_t slots = 64, n = 500;
	struct twheel *w = tw_make("rebase", n, slots, tick, false);
	struct twheel_fired out[4];

	TEST_ASSERT_NOT_NULL(w, "create");
	TEST_ASSERT_EQUAL(twheel_sweep(w, t0, 4, out), 0u, "empty");
	TEST_ASSERT_SUCCESS(sweep_on_time(w, t0, tick, slots, n, "fresh"), "fresh");
	TEST_ASSERT_EQUAL(twheel_sweep(w, UINT64_MAX, 4, out), 0u, "end of time");
	TEST_ASSERT_SUCCESS(sweep_on_time(w, t0 + 100 * tick, tick, slots, n,
					  "after UINT64_MAX"), "after UINT64_MAX");
	/* a clock reset: back by a thousand rotations */
	TEST_ASSERT_EQUAL(twheel_sweep(w, t0 + 1000000 * tick, 4, out), 0u, "ahead");
	TEST_ASSERT_SUCCESS(sweep_on_time(w, t0 + 2000 * tick, tick, slots, n,
					  "after a clock reset"), "after a reset");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 7: UINT64_MAX works as deadline and as now, at any tick size. */
static int
test_inv7_uint64_max(void)
{
	const uint64_t ticks[] = { 1, 2, 7, 26000000, UINT64_MAX };
	struct twheel_fired out[4];
	unsigned int i;

	for (i = 0; i < RTE_DIM(ticks); i++) {
		struct twheel *w = tw_make("u64max", 8, 8, ticks[i], false);
		twheel_id_t a, b;

		TEST_ASSERT_NOT_NULL(w, "create, tick %" PRIu64, ticks[i]);
		unsigned int n;

		a = twheel_schedule(w, UINT64_MAX, NULL);
		b = twheel_schedule(w, UINT64_MAX - 1, NULL);
		TEST_ASSERT_EQUAL(tw_sweep_all(w, UINT64_MAX - 2, out, 4), 0u,
				  "tick %" PRIu64 ": fired early", ticks[i]);
		n = tw_sweep_all(w, UINT64_MAX - 1, out, 4);
		TEST_ASSERT(n == 0 || (n == 1 && out[0].id == b),
			    "tick %" PRIu64 ": UINT64_MAX fired early", ticks[i]);
		n += tw_sweep_all(w, UINT64_MAX, out + n, 4 - n);
		TEST_ASSERT_EQUAL(n, 2u, "tick %" PRIu64 ": not fired at UINT64_MAX",
				  ticks[i]);
		TEST_ASSERT((out[0].id == a && out[1].id == b) ||
			    (out[0].id == b && out[1].id == a), "wrong records");
		/* the end of time: schedule more, go back, come back */
		a = twheel_schedule(w, UINT64_MAX, NULL);
		b = twheel_schedule(w, 5, NULL);
		TEST_ASSERT_EQUAL(tw_sweep_all(w, 3, out, 4), 0u, "fired after going back");
		TEST_ASSERT_EQUAL(tw_sweep_all(w, UINT64_MAX, out, 4), 2u,
				  "tick %" PRIu64 ": entries lost at the end of time",
				  ticks[i]);
		twheel_free(w);
	}
	return TEST_SUCCESS;
}

/* Invariant 6: past capacity, schedule fails with ENOSPC and nothing changes. */
static int
test_inv6_capacity_enospc(void)
{
	struct twheel *w = tw_make("cap", 4, 8, 10, false);
	struct twheel_fired out[8];
	struct twheel_stats before, after;
	twheel_id_t ids[4];
	unsigned int i;

	TEST_ASSERT_NOT_NULL(w, "create");
	for (i = 0; i < 4; i++)
		ids[i] = twheel_schedule(w, 100 + i, NULL);
	twheel_stats_get(w, &before);
	rte_errno = 0;
	TEST_ASSERT_EQUAL(twheel_schedule(w, 50, NULL), TWHEEL_ID_INVALID,
			  "schedule past capacity succeeded");
	TEST_ASSERT_EQUAL(rte_errno, ENOSPC, "rte_errno %d", rte_errno);
	twheel_stats_get(w, &after);
	TEST_ASSERT(memcmp(&before, &after, sizeof(before)) == 0,
		    "a failed schedule changed the statistics");
	TEST_ASSERT_SUCCESS(twheel_cancel(w, ids[2]), "cancel");
	TEST_ASSERT(twheel_schedule(w, 50, NULL) != 0, "no room after a cancel");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 200, out, 8), 4u, "entries lost");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Invariant 3: with a sweep every tick, Due within one tick of the deadline. */
static int
test_inv3_bounded_lateness(void)
{
	const uint64_t tick = 1000;
	const uint32_t n = 4096;
	struct twheel *w = tw_make("late", n, 64, tick, false);
	struct twheel_fired out[256];
	uint64_t rng = 3, now = 0, fired = 0;
	uint32_t i, k;

	TEST_ASSERT_NOT_NULL(w, "create");
	for (i = 0; i < n; i++)
		twheel_schedule(w, 500 + tw_rand(&rng) % (3 * 64 * tick), NULL);
	while (fired < n) {
		now += tick;
		do {
			k = twheel_sweep(w, now, 256, out);
			for (i = 0; i < k; i++)
				TEST_ASSERT(now - out[i].deadline <= tick,
					    "lateness %" PRIu64 " > one tick",
					    now - out[i].deadline);
			fired += k;
		} while (k == 256);
		TEST_ASSERT(now < 10 * 64 * tick, "entries never fired");
	}
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Lazy deadlines ------------------------------------------------------------ */

static int
test_lazy_deadline(void)
{
	struct twheel *w = tw_make_lazy("lazy", 8, 8, 10);
	struct twheel_fired out[4];
	struct twheel_stats st;
	struct tw_payload p = { .deadline = 100 };
	twheel_id_t id;

	TEST_ASSERT_NOT_NULL(w, "create");
	id = twheel_schedule(w, 100, &p);
	p.deadline = 500;                 /* refresh: the wheel is untouched */
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 150, out, 4), 0u, "refreshed entry fired");
	twheel_stats_get(w, &st);
	TEST_ASSERT_EQUAL(st.revisits, 1u, "revisits %" PRIu64, st.revisits);
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 499, out, 4), 0u, "fired before 500");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 510, out, 4), 1u, "lost after refresh");
	TEST_ASSERT(out[0].id == id && out[0].deadline == 500,
		    "record deadline %" PRIu64 ", want 500", out[0].deadline);
	/* move brings a lazy deadline closer */
	p.deadline = 5000;
	id = twheel_schedule(w, 5000, &p);
	p.deadline = 600;
	TEST_ASSERT_SUCCESS(twheel_move(w, id, 600), "move");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 610, out, 4), 1u, "moved lazy entry late");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* A jump of hours: every bucket is visited once, everything due fires. */
static int
test_time_jump_hours(void)
{
	const uint64_t hz = 2600000000ULL, tick = hz / 100;
	const uint32_t n = 10000;
	struct twheel *w = tw_make("jump", n, 8192, tick, false);
	struct twheel_fired *out = malloc(sizeof(*out) * 3 * n);
	struct twheel_stats st;
	uint64_t rng = 11, t0 = 123456789ULL;
	uint32_t i, k, fired = 0;

	TEST_ASSERT(w != NULL && out != NULL, "setup");
	TEST_ASSERT_EQUAL(twheel_sweep(w, t0, 16, out), 0u, "empty");
	for (i = 0; i < n; i++)
		/* half within the next hour, half in hour two */
		twheel_schedule(w, t0 + tw_rand(&rng) % (2 * 3600 * hz), NULL);
	/* work is at most n due + 2n revisits: one sweep does it all */
	k = twheel_sweep(w, t0 + 3600 * hz, 3 * n, out);
	for (i = 0; i < k; i++)
		TEST_ASSERT(out[i].deadline <= t0 + 3600 * hz, "early");
	fired = k;
	TEST_ASSERT(fired > n / 3 && fired < 2 * n / 3, "%u of %u fired", fired, n);
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.revisits >= n - fired && st.revisits <= 2 * (n - fired),
		    "a waiting entry is examined once or twice per pass: %" PRIu64
		    " revisits for %u waiting", st.revisits, n - fired);
	TEST_ASSERT_EQUAL(st.budget_exhausted, 0u, "the pass was cut short");
	fired += tw_sweep_all(w, t0 + 3 * 3600 * hz, out, n);
	TEST_ASSERT_EQUAL(fired, n, "lost entries: %u of %u", fired, n);
	free(out);
	twheel_free(w);
	return TEST_SUCCESS;
}

/*
 * Bulk cancel and move are the single calls in order: two wheels fed the
 * same operations, one through the bulk calls, one call at a time, give
 * the same results and then hand back the same records. The bursts mix
 * live ids, duplicates, stale ids of reused slots and forged ids, earlier
 * and later deadlines. Ids are wheel-specific, so each entry's pair of ids
 * (one per wheel) is kept side by side.
 *
 * A second run takes bursts of distinct live entries on a small wheel of
 * few buckets: twheel_move_bulk() then re-files a group's entries in one
 * pass after storing all their deadlines (twheel_bulk.c), while they fill
 * each other's holes and empty and refill the same lists.
 */
struct id_pair {
	twheel_id_t a, b;
};

/* Forget pair k of n (it goes to the dead ones); returns the new n. */
static uint32_t
pair_retire(struct id_pair *live, uint32_t k, uint32_t n, struct id_pair *dead,
	    uint32_t *ndead, uint32_t cap)
{
	dead[(*ndead)++ % cap] = live[k];
	if (*ndead > cap)
		*ndead = cap;
	live[k] = live[n - 1];
	return n - 1;
}

#define BULK_BURST_MAX 96

struct bulk_case {
	uint32_t cap, slots, burst, rounds;
	bool distinct;           /* bursts of distinct live entries only */
};

static int
bulk_vs_single(const struct bulk_case *bc)
{
	const uint32_t cap = bc->cap, burst = bc->burst;
	struct twheel *a = tw_make("bulk_a", cap, bc->slots, 10, false);
	struct twheel *b = tw_make("bulk_b", cap, bc->slots, 10, false);
	struct id_pair *ids = calloc(cap, sizeof(*ids));
	struct id_pair *dead = calloc(cap, sizeof(*dead));
	struct twheel_fired ra[64], rb[64];
	twheel_id_t bida[BULK_BURST_MAX], bidb[BULK_BURST_MAX];
	uint64_t dl[BULK_BURST_MAX], rng = 5, now = 0;
	int rca[BULK_BURST_MAX], rcb[BULK_BURST_MAX];
	uint32_t i, j, nlive = 0, ndead = 0, round;
	unsigned int na, nb;

	TEST_ASSERT(a != NULL && b != NULL && ids != NULL && dead != NULL, "setup");
	TEST_ASSERT(burst <= BULK_BURST_MAX && burst <= cap / 2, "burst");
	for (round = 0; round < bc->rounds; round++) {
		/* fill up with the same schedules in both */
		while (nlive < cap * 3 / 4) {
			uint64_t d = now + tw_rand(&rng) % 5000;

			ids[nlive].a = twheel_schedule(a, d, NULL);
			ids[nlive].b = twheel_schedule(b, d, NULL);
			TEST_ASSERT((uint32_t)ids[nlive].a == (uint32_t)ids[nlive].b,
				    "the wheels diverged on schedule");
			nlive++;
		}
		for (i = 0; i < burst; i++) {
			uint32_t k = tw_rand(&rng) % 10;
			struct id_pair pr;

			if (bc->distinct) {
				/* the first i live pairs are taken: swap one in */
				k = i + tw_rand(&rng) % (nlive - i);
				pr = ids[k];
				ids[k] = ids[i];
				ids[i] = pr;
			} else if (k < 7 || ndead == 0)
				pr = ids[tw_rand(&rng) % nlive];
			else if (k < 9)
				pr = dead[tw_rand(&rng) % ndead];
			else
				pr.a = pr.b = tw_rand(&rng) | (UINT64_C(1) << 32);
			bida[i] = pr.a;
			bidb[i] = pr.b;
			dl[i] = now + tw_rand(&rng) % 5000;
		}
		if (round & 1) {
			na = twheel_cancel_bulk(a, bida, burst, rca);
			for (i = 0, nb = 0; i < burst; i++) {
				rcb[i] = twheel_cancel(b, bidb[i]);
				nb += rcb[i] == 0;
			}
		} else {
			na = twheel_move_bulk(a, bida, dl, burst, rca);
			for (i = 0, nb = 0; i < burst; i++) {
				rcb[i] = twheel_move(b, bidb[i], dl[i]);
				nb += rcb[i] == 0;
			}
		}
		TEST_ASSERT_EQUAL(na, nb, "round %u: bulk did %u, one by one %u", round, na, nb);
		TEST_ASSERT(memcmp(rca, rcb, sizeof(rca[0]) * burst) == 0,
			    "round %u: results differ", round);
		/* forget cancelled ids (they become stale ids to test with) */
		for (i = 0; i < nlive;) {
			bool gone = false;

			for (j = 0; j < burst && (round & 1); j++)
				gone |= bida[j] == ids[i].a && rca[j] == 0;
			if (gone)
				nlive = pair_retire(ids, i, nlive, dead, &ndead, cap);
			else
				i++;
		}
		/* both wheels must hand back the same records */
		now += 100;
		do {
			na = twheel_sweep(a, now, 64, ra);
			nb = twheel_sweep(b, now, 64, rb);
			TEST_ASSERT_EQUAL(na, nb, "round %u: sweeps differ", round);
			for (i = 0; i < na; i++) {
				/* field by field: records have padding */
				TEST_ASSERT(ra[i].payload == rb[i].payload &&
					    ra[i].deadline == rb[i].deadline &&
					    ra[i].reason == rb[i].reason,
					    "round %u: record %u differs", round, i);
				for (j = 0; j < nlive && ids[j].a != ra[i].id; j++)
					;
				TEST_ASSERT(j < nlive && ids[j].b == rb[i].id,
					    "round %u: record %u: ids not a pair", round, i);
				nlive = pair_retire(ids, j, nlive, dead, &ndead, cap);
			}
		} while (na == 64);
	}
	TEST_ASSERT_EQUAL(twheel_cancel_bulk(a, bida, 0, NULL), 0u, "empty burst");
	/* without rc[], the count alone, a burst at a time */
	for (i = 0, na = 0, nb = 0; i < nlive; i += burst) {
		uint32_t k = RTE_MIN(burst, nlive - i);

		for (j = 0; j < k; j++) {
			bida[j] = ids[i + j].a;
			nb += twheel_cancel(b, ids[i + j].b) == 0;
		}
		na += twheel_cancel_bulk(a, bida, k, NULL);
	}
	TEST_ASSERT(na == nb && na == nlive, "cancel_bulk without rc: %u, %u, %u live",
		    na, nb, nlive);
	free(ids);
	free(dead);
	twheel_free(a);
	twheel_free(b);
	return TEST_SUCCESS;
}

static int
test_bulk_equals_sequential(void)
{
	static const struct bulk_case cases[] = {
		{ .cap = 4096, .slots = 64, .burst = 77, .rounds = 400 },
		{ .cap = 256, .slots = 8, .burst = 64, .rounds = 400,
		  .distinct = true },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++)
		TEST_ASSERT_SUCCESS(bulk_vs_single(&cases[i]),
				    "case %u (capacity %u, burst %u)", i,
				    cases[i].cap, cases[i].burst);
	return TEST_SUCCESS;
}

/*
 * twheel_move_bulk() without deadlines is a caller's mistake, not a cancel:
 * every id gets -EINVAL, nothing changes, and the entries still fire.
 */
static int
test_move_bulk_null_deadlines(void)
{
	struct twheel *w = tw_make("bulk_null", 8, 8, 10, false);
	struct twheel_stats before, after;
	struct twheel_fired out[8];
	twheel_id_t ids[3];
	int rc[3] = { 1, 1, 1 };
	unsigned int i;

	TEST_ASSERT_NOT_NULL(w, "create");
	for (i = 0; i < RTE_DIM(ids); i++)
		ids[i] = twheel_schedule(w, 100 + i, NULL);
	twheel_stats_get(w, &before);
	TEST_ASSERT_EQUAL(twheel_move_bulk(w, ids, NULL, RTE_DIM(ids), rc), 0u,
			  "move_bulk without deadlines moved (or cancelled) entries");
	for (i = 0; i < RTE_DIM(ids); i++)
		TEST_ASSERT_EQUAL(rc[i], -EINVAL, "rc[%u] %d, want -EINVAL", i, rc[i]);
	TEST_ASSERT_EQUAL(twheel_move_bulk(w, ids, NULL, RTE_DIM(ids), NULL), 0u,
			  "move_bulk without deadlines or rc[]");
	twheel_stats_get(w, &after);
	TEST_ASSERT(memcmp(&before, &after, sizeof(before)) == 0,
		    "move_bulk without deadlines changed the statistics");
	TEST_ASSERT_EQUAL(tw_sweep_all(w, 200, out, 8), 3u,
			  "entries lost after move_bulk without deadlines");
	twheel_free(w);
	return TEST_SUCCESS;
}

/* Drain, stats, telemetry ----------------------------------------------------- */

static int
test_drain(void)
{
	const uint32_t n = 300;
	struct twheel *w = tw_make_lazy("drain", n, 16, 10);
	struct twheel_fired out[7];
	struct tw_payload p[300];
	struct twheel_stats st;
	uint32_t i, k, got = 0;

	TEST_ASSERT_NOT_NULL(w, "create");
	TEST_ASSERT_EQUAL(twheel_drain(w, 7, out), 0u, "empty wheel drained");
	twheel_sweep(w, 1000, 7, out);
	for (i = 0; i < n; i++) {
		p[i].tag = i;
		p[i].left = 0;
		/* some overdue (pending), the rest over several rotations */
		p[i].deadline = (i % 5 == 0) ? 500 : 1000 + i * 7;
		twheel_schedule(w, p[i].deadline, &p[i]);
	}
	twheel_sweep(w, 1001, 3, out);  /* leave a partly swept pending list */
	for (i = 0; i < 3; i++)
		((struct tw_payload *)out[i].payload)->left++;
	got = 3;
	while ((k = twheel_drain(w, 7, out)) != 0) {
		TEST_ASSERT(k <= 7, "drain budget overrun");
		for (i = 0; i < k; i++) {
			struct tw_payload *q = out[i].payload;

			TEST_ASSERT(out[i].reason == TWHEEL_CANCELLED, "reason");
			TEST_ASSERT_EQUAL(out[i].deadline, q->deadline, "deadline");
			q->left++;
		}
		got += k;
	}
	TEST_ASSERT_EQUAL(got, n, "drained %u of %u", got, n);
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(p[i].left, 1u, "entry %u left %u times", i, p[i].left);
	twheel_stats_get(w, &st);
	TEST_ASSERT(st.live == 0 && st.cancelled == n - 3 && st.due == 3,
		    "stats live %" PRIu64 " cancelled %" PRIu64, st.live, st.cancelled);
	TEST_ASSERT_EQUAL(tw_sweep_all(w, UINT64_MAX, out, 7), 0u, "fired after drain");
	twheel_free(w);
	return TEST_SUCCESS;
}

/*
 * Drain counts remote messages against its budget as the sweep does: with
 * budget 1 a call applies one message or hands back one entry, never the
 * whole ring. A call whose budget went to messages that wrote no record
 * (adoptions, stale cancels) returns 0 and counts in budget_exhausted; the
 * loop "until *more is false" hands back everything.
 */
static int
test_drain_budget_counts_messages(void)
{
	const unsigned int nsched = 100, nstale = 50;
	struct twheel_config cfg;
	struct twheel_stats st, prev;
	struct twheel_fired out[2];
	struct twheel *w;
	unsigned int adopted = 0, got = 0, calls = 0, i, n;
	bool more;

	twheel_config_standard(&cfg, "drain_msgs", 256, SOCKET_ID_ANY);
	cfg.slots = 16;
	cfg.tick_cycles = 10;
	cfg.remote_ring_size = 256;
	cfg.adopt_fn = count_adopt;
	cfg.adopt_arg = &adopted;
	w = twheel_create(&cfg);
	TEST_ASSERT_NOT_NULL(w, "create: %s", rte_strerror(rte_errno));
	for (i = 0; i < nstale; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_cancel(w, UINT64_C(3) << 32),
				    "remote cancel");
	for (i = 0; i < nsched; i++)
		TEST_ASSERT_SUCCESS(twheel_remote_schedule(w, 1000 + i, NULL),
				    "remote schedule");
	n = twheel_drain(w, 1, out);
	twheel_stats_get(w, &st);
	TEST_ASSERT(n == 0 && st.remote_cancels + st.remote_schedules == 1 &&
		    adopted == 0, "drain with budget 1 applied %" PRIu64
		    " messages (%u adopt_fn calls) and wrote %u records",
		    st.remote_cancels + st.remote_schedules, adopted, n);
	TEST_ASSERT_EQUAL(st.budget_exhausted, 1u,
			  "a drain that stopped at its budget was not counted");
	do {
		prev = st;
		n = twheel_drain_more(w, 2, out, &more);
		twheel_stats_get(w, &st);
		TEST_ASSERT(n <= 2, "drain budget overrun");
		TEST_ASSERT(st.remote_cancels + st.remote_schedules +
			    st.cancelled - prev.remote_cancels -
			    prev.remote_schedules - prev.cancelled <= 2,
			    "a drain with budget 2 did more than 2 units of work");
		TEST_ASSERT(more == (st.budget_exhausted != prev.budget_exhausted),
			    "more %d, budget_exhausted %" PRIu64 " -> %" PRIu64,
			    more, prev.budget_exhausted, st.budget_exhausted);
		got += n;
		calls++;
	} while (more);
	TEST_ASSERT(got == nsched && adopted == nsched && st.live == 0 &&
		    st.remote_stale == nstale, "drained %u of %u, %u adopted, "
		    "%" PRIu64 " live, %" PRIu64 " stale", got, nsched, adopted,
		    st.live, st.remote_stale);
	/* 149 messages and 100 entries, two units a call */
	TEST_ASSERT(calls >= (nsched + nstale - 1 + nsched) / 2, "%u calls", calls);
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_mem_info(void)
{
	struct twheel *w = tw_make("meminfo", 1000, 64, 10, false);
	struct twheel_slab_info si;
	struct twheel_mem_info mi;

	TEST_ASSERT_NOT_NULL(w, "create");
	twheel_mem_info_get(w, &mi);
	TEST_ASSERT_SUCCESS(twheel_slab_info_get(w, &si), "slab info");
	TEST_ASSERT_EQUAL(mi.capacity, 1000u, "capacity");
	TEST_ASSERT(mi.slab_bytes >= 1000u * (size_t)si.stride, "slab %zu",
		    mi.slab_bytes);
	TEST_ASSERT(mi.bucket_bytes > 0 && mi.ring_bytes == 0, "bucket/ring bytes");
	TEST_ASSERT_EQUAL(mi.total_bytes, mi.slab_bytes + mi.bucket_bytes +
			  mi.ring_bytes + mi.wheel_bytes, "total");
	twheel_free(w);
	return TEST_SUCCESS;
}

static int
test_telemetry(void)
{
	struct twheel *w = tw_make("telem", 8, 8, 10, false);
	char buf[4096];
	int ret;

	TEST_ASSERT_NOT_NULL(w, "create");
	twheel_schedule(w, 100, NULL);
	twheel_schedule(w, 200, NULL);
	ret = telemetry_query("/twheel/list", buf, sizeof(buf));
	if (ret == -ENOTCONN) {
		twheel_free(w);
		printf("telemetry socket not available (--no-telemetry?)\n");
		return TEST_SKIPPED;
	}
	TEST_ASSERT_SUCCESS(ret, "telemetry query");
	TEST_ASSERT(strstr(buf, "\"telem\"") != NULL, "list: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/twheel/stats,telem", buf, sizeof(buf)),
			    "stats query");
	TEST_ASSERT(strstr(buf, "\"live\":2") != NULL &&
		    strstr(buf, "\"scheduled\":2") != NULL &&
		    strstr(buf, "\"capacity\":8") != NULL, "stats: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/twheel/stats,nosuch", buf, sizeof(buf)),
			    "query");
	TEST_ASSERT(strstr(buf, "null") != NULL, "unknown wheel: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/twheel/stats", buf, sizeof(buf)),
			    "query");
	TEST_ASSERT(strstr(buf, "null") != NULL, "stats without a name: %s", buf);
	TEST_ASSERT_SUCCESS(telemetry_query("/twheel/stats,", buf, sizeof(buf)),
			    "query");
	TEST_ASSERT(strstr(buf, "null") != NULL, "stats, empty name: %s", buf);
	twheel_free(w);
	TEST_ASSERT_SUCCESS(telemetry_query("/twheel/list", buf, sizeof(buf)), "query");
	TEST_ASSERT(strstr(buf, "\"telem\"") == NULL, "freed wheel listed: %s", buf);
	return TEST_SUCCESS;
}

static struct unit_test_suite twheel_suite = {
	.suite_name = "twheel library unit test suite",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE(test_config_standard),
		TEST_CASE(test_create_invalid_config),
		TEST_CASE(test_create_duplicate_name),
		TEST_CASE(test_create_names_never_collide),
		TEST_CASE(test_create_no_memory),
		TEST_CASE(test_mempool_slab),
		TEST_CASE(test_schedule_and_fire),
		TEST_CASE(test_cancel),
		TEST_CASE(test_move),
		TEST_CASE(test_inv1_never_early),
		TEST_CASE(test_inv2_never_lost_or_twice),
		TEST_CASE(test_inv3_bounded_lateness),
		TEST_CASE(test_inv4_budget_bound_and_resume),
		TEST_CASE(test_inv4_budget_counts_revisits),
		TEST_CASE(test_inv4_more_iff_budget_exhausted),
		TEST_CASE(test_inv5_stale_id_reused_slot),
		TEST_CASE(test_inv5_id_of_another_wheel),
		TEST_CASE(test_inv6_capacity_enospc),
		TEST_CASE(test_inv7_wrap_revisit),
		TEST_CASE(test_inv7_past_deadline_next_sweep),
		TEST_CASE(test_inv7_time_backwards),
		TEST_CASE(test_inv7_time_back_rebase),
		TEST_CASE(test_inv7_uint64_max),
		TEST_CASE(test_lazy_deadline),
		TEST_CASE(test_bulk_equals_sequential),
		TEST_CASE(test_move_bulk_null_deadlines),
		TEST_CASE(test_time_jump_hours),
		TEST_CASE(test_drain),
		TEST_CASE(test_drain_budget_counts_messages),
		TEST_CASE(test_mem_info),
		TEST_CASE(test_telemetry),
		TEST_CASES_END()
	}
};

static int
test_twheel(void)
{
	return unit_test_suite_runner(&twheel_suite);
}

REGISTER_TEST_COMMAND(twheel_autotest, test_twheel);
