/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 4 of twheel_scale_perf_autotest: the remote path, N producer
 * lcores sending to one owner, N = 1 .. every worker lcore, each N over
 * both channels a producer can have, alternated:
 * - lanes: each producer lcore writes its own single-producer lane, the
 *   path of every EAL lcore;
 * - ring: every producer writes the one shared multi-producer ring, the
 *   path of non-EAL threads, and the only one before the lanes: a
 *   producer lcore takes it by presenting itself as a non-EAL thread
 *   (rte_lcore_id() is LCORE_ID_ANY during its timed loop, put back
 *   after), so the two are compared in one binary, one run.
 * The ring's producers contend for its head line; the lanes share
 * nothing but the owner.
 *
 * The owner is the main lcore. Its wheel (standard geometry, the standard
 * ring of 4096 messages, on its socket) holds REMOTE_BUDGET entries. It
 * sweeps with the TSC for TWHEEL_SCALE_MS, a budget of REMOTE_BUDGET per
 * call; each sweep applies the messages published so far (at most its
 * budget), and adopt_fn collects the new entries' ids, which the owner
 * cancels with one twheel_cancel_bulk() after the sweep: the wheel stays
 * nearly empty however long the run, so what is measured is the message
 * path, an adoption and a cancel per message. Each producer lcore calls
 * twheel_remote_schedule() as fast as it can for the same time, deadline
 * an hour out; on -ENOBUFS it retries the same message (counted).
 *
 * Printed per N: messages the owner applied per second (adoptions within
 * its timed loop), the ratio to N = 1, the owner's cycles per message
 * applied (its empty sweeps included: its cost per message once it is
 * the bottleneck), the retries per accepted message, and each producer's
 * accepted messages per second. The owner is one lcore, so its rate is
 * the ceiling: once it is the bottleneck, more producers only fill the
 * ring sooner and retry more.
 *
 * Under ThreadSanitizer every message costs reports that tsan.supp
 * suppresses (the ring's element copies, see there), over a hundred
 * microseconds a message, so a run moves only some thousands of
 * messages; the exactness check holds for each of them all the same.
 *
 * Exactness, checked after each run once the producers stopped and the
 * owner applied what was left in the ring: each message carries its
 * producer and its sequence number in the payload (a number, not a
 * pointer: a wheel without deadline_fn never reads a payload, it only
 * hands it to adopt_fn and back in records), and adopt_fn must see
 * each producer's messages exactly in the order it sent them, no gap, no
 * repeat, up to the last one it got accepted; the wheel's statistics must
 * agree (remote_schedules = messages accepted, remote_full = retries, no
 * rejection, every adopted entry cancelled, none live), and no sweep may
 * write a record (nothing comes due, nothing is rejected).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include <twheel.h>

#include "test.h"
#include "twheel_scale.h"

#define REMOTE_BUDGET 256
#define REMOTE_BATCH 64
#define REMOTE_SEQ_BITS 40           /* the payload: producer << 40 | seq */
#define REMOTE_SEQ_MASK ((UINT64_C(1) << REMOTE_SEQ_BITS) - 1)
#define REMOTE_DEADLINE_S 3600
/* messages left in the ring must be applied within this */
#define REMOTE_DRAIN_SECONDS 10
#define IDLE_SWEEPS 100000

/* The owner's side, on the main lcore's socket. */
struct remote_owner {
	struct twheel *w;
	unsigned int nb_producers;
	twheel_id_t adopted_ids[REMOTE_BUDGET];
	unsigned int nb_adopted;
	/* this run */
	uint64_t adopted, adopted_timed, cancelled, records, out_of_order;
	uint64_t timed_cycles;
	uint64_t next_seq[RTE_MAX_LCORE];   /* per producer, the next expected */
	struct twheel_fired out[REMOTE_BUDGET];
};

/* One producer, on its lcore's socket. */
struct remote_producer {
	struct twheel *w;
	uint64_t tag;                /* its index, shifted into place */
	uint64_t deadline;
	bool via_ring;               /* the shared ring rather than its lane */
	uint64_t retries, errors;    /* this run */
};

static void
remote_adopt(void *payload, twheel_id_t id, void *arg)
{
	struct remote_owner *o = arg;
	uint64_t tag = (uint64_t)(uintptr_t)payload;
	uint64_t p = tag >> REMOTE_SEQ_BITS;

	if (p < o->nb_producers && (tag & REMOTE_SEQ_MASK) == o->next_seq[p])
		o->next_seq[p]++;
	else
		o->out_of_order++;
	/* a sweep applies at most its budget of messages */
	if (o->nb_adopted < RTE_DIM(o->adopted_ids))
		o->adopted_ids[o->nb_adopted++] = id;
	o->adopted++;
}

/* One sweep and the cancel of what it adopted; whether work is left. */
static bool
remote_owner_step(struct remote_owner *o, uint64_t now)
{
	bool more;

	o->records += twheel_sweep_more(o->w, now, REMOTE_BUDGET, o->out, &more);
	if (o->nb_adopted != 0) {
		o->cancelled += twheel_cancel_bulk(o->w, o->adopted_ids,
						   o->nb_adopted, NULL);
		o->nb_adopted = 0;
	}
	return more;
}

static int
remote_owner_loop(void *arg, uint64_t end)
{
	struct remote_owner *o = arg;
	uint64_t t0 = rte_rdtsc_precise(), now;

	while ((now = rte_rdtsc()) < end)
		remote_owner_step(o, now);
	o->timed_cycles = rte_rdtsc_precise() - t0;
	o->adopted_timed = o->adopted;
	return TEST_SUCCESS;
}

static int
remote_prepare(struct scale_lcore *lc)
{
	struct remote_producer *p = lc->arg;

	p->retries = 0;
	p->errors = 0;
	p->tag = (uint64_t)lc->index << REMOTE_SEQ_BITS;
	p->deadline = rte_rdtsc() + REMOTE_DEADLINE_S * lc->ctx->env.hz;
	return TEST_SUCCESS;
}

static uint64_t
remote_timed(struct scale_lcore *lc, uint64_t end)
{
	struct remote_producer *p = lc->arg;
	struct twheel *w = p->w;
	const uint64_t deadline = p->deadline, tag = p->tag;
	uint64_t seq = 0, retries = 0, errors = 0;
	unsigned int i, lcore_id = rte_lcore_id();
	int ret;

	/* the shared ring is the channel of a thread without an lcore id */
	if (p->via_ring)
		RTE_PER_LCORE(_lcore_id) = LCORE_ID_ANY;
	do {
		for (i = 0; i < REMOTE_BATCH; i++) {
			ret = twheel_remote_schedule(w, deadline,
						     (void *)(uintptr_t)(tag | seq));
			if (likely(ret == 0)) {
				seq++;
			} else if (ret == -ENOBUFS) {
				/* the ring is full: the same message again */
				retries++;
				rte_pause();
			} else {
				errors++;
			}
		}
	} while (rte_rdtsc() < end);
	RTE_PER_LCORE(_lcore_id) = lcore_id;
	p->retries = retries;
	p->errors = errors;
	return seq;
}

static const struct scale_ops remote_ops = {
	.prepare = remote_prepare,
	.timed = remote_timed,
};

/* After a run: apply what the ring still holds, then check the books. */
static int
remote_check(struct scale_ctx *c, struct remote_owner *o, unsigned int n,
	     const struct twheel_stats *before)
{
	uint64_t sent = 0, retries = 0, give_up;
	struct twheel_stats st;
	unsigned int i;
	bool more;

	for (i = 0; i < n; i++) {
		const struct remote_producer *p = c->lc[i].arg;

		TEST_ASSERT(p->errors == 0, "lcore %u: %" PRIu64 " calls failed",
			    c->lc[i].lcore_id, p->errors);
		sent += c->lc[i].ops;
		retries += p->retries;
	}
	give_up = rte_rdtsc() + REMOTE_DRAIN_SECONDS * c->env.hz;
	do
		more = remote_owner_step(o, rte_rdtsc());
	while ((more || o->adopted < sent) && rte_rdtsc() < give_up);
	for (i = 0; i < n; i++)
		TEST_ASSERT(o->next_seq[i] == c->lc[i].ops, "lcore %u: %" PRIu64
			    " messages accepted, %" PRIu64 " applied in order",
			    c->lc[i].lcore_id, c->lc[i].ops, o->next_seq[i]);
	twheel_stats_get(o->w, &st);
	TEST_ASSERT(o->out_of_order == 0 && o->records == 0 && o->adopted == sent &&
		    o->cancelled == sent, "%" PRIu64 " accepted; applied %" PRIu64
		    ", %" PRIu64 " out of order, %" PRIu64 " cancelled, %" PRIu64
		    " records", sent, o->adopted, o->out_of_order, o->cancelled,
		    o->records);
	TEST_ASSERT(st.remote_schedules - before->remote_schedules == sent &&
		    st.remote_full - before->remote_full == retries &&
		    st.rejected == before->rejected && st.live == 0 &&
		    st.cancelled - before->cancelled == sent,
		    "wheel: %" PRIu64 " applied, %" PRIu64 " full, %" PRIu64
		    " rejected, %" PRIu64 " live; producers: %" PRIu64 " accepted, %"
		    PRIu64 " retries", st.remote_schedules - before->remote_schedules,
		    st.remote_full - before->remote_full, st.rejected - before->rejected,
		    st.live, sent, retries);
	return TEST_SUCCESS;
}

/* The row of a run: the owner's rate, then the producers'. */
static double
remote_print(const struct scale_ctx *c, const struct remote_owner *o,
	     unsigned int n, bool via_ring, double base)
{
	double applied = o->timed_cycles != 0 ? (double)o->adopted_timed *
		(double)c->env.hz / (double)o->timed_cycles / 1e6 : 0;
	uint64_t sent = 0, retries = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sent += c->lc[i].ops;
		retries += ((const struct remote_producer *)c->lc[i].arg)->retries;
	}
	printf("  %4u %6s %12.2f %9.0f%% %12.1f %14.2f\n", n,
	       via_ring ? "ring" : "lanes", applied,
	       base > 0 ? 100.0 * applied / base : 100.0,
	       o->adopted_timed != 0 ? (double)o->timed_cycles / o->adopted_timed : 0,
	       sent != 0 ? (double)retries / sent : 0);
	printf("              accepted per producer (Mmsg/s):");
	for (i = 0; i < n; i++)
		printf(" %u:%.2f", c->lc[i].lcore_id,
		       scale_lcore_rate(c, &c->lc[i]) / 1e6);
	printf("\n");
	return applied;
}

/* One run with n producers on one path; its applied rate in *applied. */
static int
remote_run(struct scale_ctx *c, struct remote_owner *o, unsigned int n,
	   bool via_ring, double base, double *applied)
{
	struct twheel_stats before;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		((struct remote_producer *)c->lc[i].arg)->via_ring = via_ring;
	o->nb_producers = n;
	o->adopted = o->adopted_timed = o->cancelled = o->records = 0;
	o->out_of_order = o->timed_cycles = 0;
	memset(o->next_seq, 0, sizeof(o->next_seq));
	twheel_stats_get(o->w, &before);
	ret = scale_run(c, n, &remote_ops, remote_owner_loop, o);
	if (ret == TEST_SUCCESS)
		ret = remote_check(c, o, n, &before);
	if (ret == TEST_SUCCESS)
		*applied = remote_print(c, o, n, via_ring, base);
	return ret;
}

static void
remote_free(struct scale_ctx *c, struct remote_owner *o)
{
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		rte_free(c->lc[i].arg);
		c->lc[i].arg = NULL;
	}
	if (o != NULL)
		twheel_free(o->w);
	rte_free(o);
}

/* The owner's wheel and each producer's state; NULL without memory. */
static struct remote_owner *
remote_alloc(struct scale_ctx *c)
{
	struct remote_owner *o;
	struct remote_producer *p;
	struct twheel_config cfg;
	unsigned int i;

	o = rte_zmalloc_socket("scale_owner", sizeof(*o), RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (o == NULL)
		return NULL;
	twheel_config_standard(&cfg, "scale_rm", REMOTE_BUDGET, (int)rte_socket_id());
	cfg.adopt_fn = remote_adopt;
	cfg.adopt_arg = o;
	o->w = twheel_create(&cfg);
	if (o->w == NULL) {
		printf("  twheel_create: %s\n", rte_strerror(rte_errno));
		rte_free(o);
		return NULL;
	}
	for (i = 0; i < c->nb_workers; i++) {
		p = rte_zmalloc_socket("scale_producer", sizeof(*p), RTE_CACHE_LINE_SIZE,
				       c->lc[i].socket_id);
		c->lc[i].arg = p;
		if (p == NULL) {
			remote_free(c, o);
			return NULL;
		}
		p->w = o->w;
	}
	return o;
}

/*
 * What an owner pays per sweep for remote calls when none come: the sweep
 * looks at every lane and the ring before it drains. The best of 5 rounds
 * of IDLE_SWEEPS sweeps of the empty wheel at one now.
 */
static void
remote_idle_cost(struct remote_owner *o)
{
	uint64_t now = rte_rdtsc(), best = UINT64_MAX, t0, t;
	unsigned int r, i;

	for (r = 0; r < 5; r++) {
		t0 = rte_rdtsc_precise();
		for (i = 0; i < IDLE_SWEEPS; i++)
			o->records += twheel_sweep(o->w, now, REMOTE_BUDGET, o->out);
		t = rte_rdtsc_precise() - t0;
		best = RTE_MIN(best, t);
	}
	printf("  an idle sweep (nothing due, no message) with %u lanes and the"
	       " shared ring: %.1f cycles\n", rte_lcore_count(),
	       (double)best / IDLE_SWEEPS);
}

/* N producers over both paths, alternated; the lanes' gain printed. */
static int
remote_pair(struct scale_ctx *c, struct remote_owner *o, unsigned int n,
	    double base[2])
{
	double applied[2] = { 0, 0 };
	unsigned int k, path;
	int ret;

	for (k = 0; k < 2; k++) {
		/* 1: the ring, first for odd N + seed: runs alternate with both */
		path = (unsigned int)((n + k + c->env.seed) % 2);
		ret = remote_run(c, o, n, path == 1, base[path], &applied[path]);
		if (ret != TEST_SUCCESS)
			return ret;
		if (n == 1)
			base[path] = applied[path];
	}
	printf("       lanes / ring, applied: %.2f\n",
	       applied[1] > 0 ? applied[0] / applied[1] : 0);
	return TEST_SUCCESS;
}

int
scale_remote(struct scale_ctx *c)
{
	struct remote_owner *o;
	double base[2] = { 0, 0 };   /* N = 1: lanes, ring */
	unsigned int n;
	int ret = TEST_SUCCESS;

	RTE_BUILD_BUG_ON(sizeof(uintptr_t) < sizeof(uint64_t));
	printf("\n[4] remote path: owner lcore %u (the main lcore) sweeps, N producer lcores"
	       " call twheel_remote_schedule(), %" PRIu64 " ms per N\n",
	       rte_get_main_lcore(), c->env.ms);
	o = remote_alloc(c);
	if (o == NULL) {
		printf("  skipped: no memory for the owner's wheel\n");
		return TEST_SKIPPED;
	}
	remote_idle_cost(o);
	printf("  %4s %6s %12s %10s %12s %14s   (applied by the owner, Mmsg/s; its"
	       " cycles per message)\n", "N", "path", "applied", "to N=1",
	       "cycles/msg", "retries/msg");
	for (n = 1; n <= c->nb_workers && ret == TEST_SUCCESS; n++)
		ret = remote_pair(c, o, n, base);
	if (c->nb_workers == 1)
		scale_print_not_measured(1, "worker lcore to produce");
	remote_free(c, o);
	return ret;
}
