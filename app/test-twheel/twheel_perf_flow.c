/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Section 2 of twheel_perf_autotest: flow-expiry workloads at 1M and 4M
 * entries (TWHEEL_PERF_SIZES), twheel beside rte_timer where rte_timer has
 * an equivalent.
 *
 * A flow is a 64-byte line with its lazy deadline (`expires`) and its
 * timer id; the wheel has the standard geometry and a deadline_fn that
 * reads `expires`. Nothing is in allocation order: before each repetition
 * every entry is scheduled once and cancelled in random order, so the
 * slab's free list is a random permutation (as after hours of churn), and
 * every phase visits the flows in a fresh random order.
 *
 * twheel, per repetition:
 *   insert         schedule every flow, deadline now + 1..80 s
 *   refresh        the packet path: a lookup reads the flow's line, a hit
 *                  stores the new deadline; the wheel is not touched. The
 *                  cost of the refresh is (lookup + store) - (lookup
 *                  alone); a store to a cold line is shown too
 *   move           twheel_move() to a new random deadline (an eager re-arm)
 *   cancel         twheel_cancel() every flow
 *   storm          every flow scheduled within one second, then swept at a
 *                  time when all are due, budget 256 per call: cycles per
 *                  entry (records consumed), the longest call, total time;
 *                  beside it, the longest of as many calls of fixed
 *                  arithmetic of the same length (the machine's floor)
 *   revisit        every flow at now + 7440 s (TCP established); one
 *                  rotation of sweeps examines and re-files each once
 *   remote cancel  ids sent by another lcore with twheel_remote_cancel()
 *                  (a ring's worth per round), then applied by the owner's
 *                  sweeps: cycles per message on each side
 * rte_timer, per repetition: insert (rte_timer_reset of a stopped timer),
 * re-arm (rte_timer_reset of a pending one), stop (half the timers from
 * this lcore, half from another lcore, which takes the owner's lock), and
 * the storm (every timer due within one second, one rte_timer_manage()).
 *
 * Timed work runs in batches of PERF_BATCH operations; a figure is the
 * median batch, and the reported value the median over repetitions.
 * twheel runs on a virtual clock (time is a parameter of its API), so a
 * storm or a rotation needs no waiting; rte_timer reads the TSC itself, so
 * its storm waits a real second.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_perf.h"

#define FW_BUDGET 256
#define FW_RING 4096                 /* twheel_config_standard()'s ring */
#define FW_REPS_MAX 100

/* The figures of one repetition. */
enum fw_metric {
	TW_INSERT, TW_REFRESH_COLD, TW_LOOKUP, TW_LOOKUP_REFRESH, TW_REFRESH,
	TW_MOVE, TW_CANCEL, TW_MOVE_BULK, TW_CANCEL_BULK, TW_STORM, TW_STORM_WALL, TW_STORM_MAX_US, TW_STORM_MAX_RAW_US,
	TW_STORM_SWITCHED, TW_STORM_P999_US, TW_FLOOR_MAX_US, TW_FLOOR_P999_US,
	TW_STORM_MS, TW_REVISIT, TW_REMOTE_ENQ, TW_REMOTE_APPLY,
	RT_INSERT, RT_REARM, RT_STOP, RT_REMOTE_STOP, RT_STORM, RT_STORM_MS,
	FW_NB_METRICS
};

static const struct {
	const char *lib, *workload, *metric, *unit;
} fw_desc[FW_NB_METRICS] = {
	[TW_INSERT] = { "twheel", "insert", "cycles_per_op", "cycles" },
	[TW_REFRESH_COLD] = { "twheel", "refresh_cold_store", "cycles_per_op", "cycles" },
	[TW_LOOKUP] = { "twheel", "lookup_only", "cycles_per_op", "cycles" },
	[TW_LOOKUP_REFRESH] = { "twheel", "lookup_and_refresh", "cycles_per_op", "cycles" },
	[TW_REFRESH] = { "twheel", "refresh", "cycles_per_op", "cycles" },
	[TW_MOVE] = { "twheel", "rearm", "cycles_per_op", "cycles" },
	[TW_MOVE_BULK] = { "twheel", "rearm_bulk32", "cycles_per_op", "cycles" },
	[TW_CANCEL_BULK] = { "twheel", "cancel_bulk32", "cycles_per_op", "cycles" },
	[TW_CANCEL] = { "twheel", "cancel", "cycles_per_op", "cycles" },
	[TW_STORM] = { "twheel", "storm", "cycles_per_entry", "cycles" },
	[TW_STORM_WALL] = { "twheel", "storm", "wall_cycles_per_entry", "cycles" },
	[TW_STORM_MAX_US] = { "twheel", "storm", "max_call_us", "us" },
	[TW_STORM_MAX_RAW_US] = { "twheel", "storm", "max_call_any_us", "us" },
	[TW_STORM_SWITCHED] = { "twheel", "storm", "calls_switched_out", "calls" },
	[TW_STORM_P999_US] = { "twheel", "storm", "p999_call_us", "us" },
	[TW_FLOOR_MAX_US] = { "machine", "storm", "fixed_work_max_call_us", "us" },
	[TW_FLOOR_P999_US] = { "machine", "storm", "fixed_work_p999_call_us", "us" },
	[TW_STORM_MS] = { "twheel", "storm", "total_ms", "ms" },
	[TW_REVISIT] = { "twheel", "revisit_7440s", "cycles_per_revisit", "cycles" },
	[TW_REMOTE_ENQ] = { "twheel", "remote_cancel_enqueue", "cycles_per_op", "cycles" },
	[TW_REMOTE_APPLY] = { "twheel", "remote_cancel_apply", "cycles_per_op", "cycles" },
	[RT_INSERT] = { "rte_timer", "insert", "cycles_per_op", "cycles" },
	[RT_REARM] = { "rte_timer", "rearm", "cycles_per_op", "cycles" },
	[RT_STOP] = { "rte_timer", "cancel", "cycles_per_op", "cycles" },
	[RT_REMOTE_STOP] = { "rte_timer", "remote_stop", "cycles_per_op", "cycles" },
	[RT_STORM] = { "rte_timer", "storm", "wall_cycles_per_entry", "cycles" },
	[RT_STORM_MS] = { "rte_timer", "storm", "total_ms", "ms" },
};

struct fw_ctx {
	struct perf_env *pe;
	uint32_t n;
	struct perf_flow *flows;     /* rte_malloc, as a flow table would be */
	uint32_t *order;             /* the current visiting order */
	uint64_t *rel;               /* a relative deadline per visit */
	struct twheel *w;
	struct rte_timer *tms;
	struct twheel_fired out[FW_BUDGET];
	struct perf_samples s;
	uint64_t rng;
	uint64_t vnow;               /* the wheel's virtual clock */
	uint64_t tick, rotation;
	unsigned int lcore, worker;  /* worker == lcore: no second lcore */
	double v[FW_NB_METRICS][FW_REPS_MAX];  /* NAN: not measured */
};

/* A new random visiting order and relative deadlines base + [0, span). */
static void
fw_shuffle(struct fw_ctx *c, uint64_t base, uint64_t span)
{
	perf_shuffle(c->order, c->rel, c->n, base, span, &c->rng);
}

static double
fw_median_sample(struct fw_ctx *c)
{
	return perf_samples_median(&c->s);
}

/* twheel ------------------------------------------------------------------ */

static int
tw_setup(struct fw_ctx *c)
{
	struct twheel_config cfg;
	uint32_t k;

	twheel_config_standard(&cfg, "perf_flow", c->n, rte_socket_id());
	cfg.deadline_fn = perf_flow_deadline;
	c->tick = cfg.tick_cycles;
	c->rotation = cfg.tick_cycles * cfg.slots;
	c->w = twheel_create(&cfg);
	if (c->w == NULL) {
		printf("  N=%u: twheel_create: %s (not enough memory; use -m)\n",
		       c->n, rte_strerror(rte_errno));
		return TEST_SKIPPED;
	}
	/* randomise the slab: fill, then cancel in random order */
	c->vnow = rte_rdtsc();
	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	for (k = 0; k < c->n; k++) {
		struct perf_flow *f = &c->flows[k];

		f->expires = c->vnow + c->rel[k];
		f->id = twheel_schedule(c->w, f->expires, f);
		TEST_ASSERT(f->id != TWHEEL_ID_INVALID, "churn schedule %u", k);
	}
	for (k = 0; k < c->n; k++)
		TEST_ASSERT_SUCCESS(twheel_cancel(c->w, c->flows[c->order[k]].id),
				    "churn cancel");
	return TEST_SUCCESS;
}

/*
 * The refresh on the packet path: the flow's line is read by the lookup,
 * and a hit stores the new deadline. Batches alternate between lookup
 * alone and lookup + store over fresh random flows, so both see the same
 * cache and the same noise; the refresh costs the difference of medians.
 * Returns the lookups that hit.
 */
static uint64_t
tw_refresh_packet_path(struct fw_ctx *c, uint64_t base, unsigned int rep)
{
	struct perf_flow *flows = c->flows;
	struct perf_samples lookup;
	uint64_t b, e, t0, sum = 0;
	uint32_t k;

	if (perf_samples_init(&lookup, c->n / PERF_BATCH + 1) != 0)
		return 0;
	perf_samples_reset(&c->s);
	for (b = 0; b < c->n; b = e) {
		e = RTE_MIN(b + PERF_BATCH, (uint64_t)c->n);
		t0 = rte_rdtsc_precise();
		if ((b / PERF_BATCH) & 1) {
			for (k = b; k < e; k++) {
				struct perf_flow *f = &flows[c->order[k]];

				if (likely(f->key == c->order[k])) {
					f->expires = base + c->rel[k];
					sum++;
				}
			}
			perf_samples_add(&c->s, rte_rdtsc_precise() - t0, e - b);
		} else {
			for (k = b; k < e; k++)
				sum += flows[c->order[k]].key == c->order[k];
			perf_samples_add(&lookup, rte_rdtsc_precise() - t0, e - b);
		}
	}
	c->v[TW_LOOKUP][rep] = perf_samples_median(&lookup);
	c->v[TW_LOOKUP_REFRESH][rep] = fw_median_sample(c);
	c->v[TW_REFRESH][rep] = c->v[TW_LOOKUP_REFRESH][rep] - c->v[TW_LOOKUP][rep];
	perf_samples_free(&lookup);
	return sum;
}

/*
 * Re-arm (deadlines != 0) or cancel the flows order[from .. to) in bursts of
 * FW_BURST, as a flow table works a burst of packets: the flows of the
 * next burst are prefetched while this one's ids are gathered (and its new
 * deadlines stored), then one bulk call.
 * One sample per PERF_BATCH flows. Returns the calls that failed.
 */
#define FW_BURST 32

static unsigned int
tw_bulk_timed(struct fw_ctx *c, uint32_t from, uint32_t to, uint64_t base,
	      bool move)
{
	twheel_id_t ids[FW_BURST];
	uint64_t dl[FW_BURST];
	uint32_t b, e, k, j, n;
	unsigned int fails = 0;
	uint64_t t0;

	perf_samples_reset(&c->s);
	for (b = from; b < to; b = e) {
		e = RTE_MIN(b + PERF_BATCH, to);
		t0 = rte_rdtsc_precise();
		for (j = b; j < RTE_MIN(b + FW_BURST, e); j++)
			rte_prefetch0(&c->flows[c->order[j]]);
		for (k = b; k < e; k += n) {
			n = RTE_MIN((uint32_t)FW_BURST, e - k);
			/* the next burst's flows, as an rx loop prefetches ahead */
			for (j = k + n; j < RTE_MIN(k + n + FW_BURST, e); j++)
				rte_prefetch0(&c->flows[c->order[j]]);
			for (j = 0; j < n; j++) {
				struct perf_flow *f = &c->flows[c->order[k + j]];

				ids[j] = f->id;
				if (move)
					dl[j] = f->expires = base + c->rel[k + j];
			}
			fails += n - (move ?
				twheel_move_bulk(c->w, ids, dl, n, NULL) :
				twheel_cancel_bulk(c->w, ids, n, NULL));
		}
		perf_samples_add(&c->s, rte_rdtsc_precise() - t0, e - b);
	}
	return fails;
}

static int
tw_insert_refresh_move_cancel(struct fw_ctx *c, unsigned int rep)
{
	struct perf_flow *flows = c->flows;
	struct twheel *w = c->w;
	unsigned int fails = 0;
	uint64_t base, sum = 0;
	uint32_t k;

	/* insert: new flows, deadlines 1..80 s out */
	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	base = c->vnow;
	PERF_TIMED_LOOP(&c->s, c->n, k,
		struct perf_flow *f = &flows[c->order[k]];
		f->expires = base + c->rel[k];
		f->id = twheel_schedule(w, f->expires, f);
		fails += f->id == TWHEEL_ID_INVALID);
	c->v[TW_INSERT][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u inserts failed", fails);

	/* refresh: a store to a cold line */
	fw_shuffle(c, 80 * c->pe->hz, c->pe->hz);
	PERF_TIMED_LOOP(&c->s, c->n, k,
		flows[c->order[k]].expires = base + c->rel[k]);
	c->v[TW_REFRESH_COLD][rep] = fw_median_sample(c);
	/* the packet path: lookup alone and lookup + store, alternating batches */
	fw_shuffle(c, 80 * c->pe->hz, c->pe->hz);
	sum = tw_refresh_packet_path(c, base, rep);
	TEST_ASSERT(sum == c->n, "lookups missed: %" PRIu64 " of %u hit", sum, c->n);

	/* move: an eager re-arm to a new random deadline 1..80 s out */
	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	PERF_TIMED_LOOP(&c->s, c->n, k,
		struct perf_flow *f = &flows[c->order[k]];
		f->expires = base + c->rel[k];
		fails += twheel_move(w, f->id, f->expires) != 0);
	c->v[TW_MOVE][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u moves failed", fails);

	/* the same re-arm, a burst of 32 flows per twheel_move_bulk() */
	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	fails = tw_bulk_timed(c, 0, c->n, base, true);
	c->v[TW_MOVE_BULK][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u bulk moves failed", fails);

	/* cancel: half one at a time, half in bursts, in random order */
	fw_shuffle(c, 1, 1);
	PERF_TIMED_LOOP(&c->s, c->n / 2, k,
		fails += twheel_cancel(w, flows[c->order[k]].id) != 0);
	c->v[TW_CANCEL][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u cancels failed", fails);
	fails = tw_bulk_timed(c, c->n / 2, c->n, 0, false);
	c->v[TW_CANCEL_BULK][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u bulk cancels failed", fails);
	return TEST_SUCCESS;
}

/* Schedule every flow at vnow + rel[k], untimed. */
static int
tw_fill(struct fw_ctx *c)
{
	uint32_t k;

	for (k = 0; k < c->n; k++) {
		struct perf_flow *f = &c->flows[c->order[k]];

		f->expires = c->vnow + c->rel[k];
		f->id = twheel_schedule(c->w, f->expires, f);
		TEST_ASSERT(f->id != TWHEEL_ID_INVALID, "fill %u", k);
	}
	return TEST_SUCCESS;
}

/*
 * The machine's own floor for "the longest call": as many calls of pure
 * arithmetic as the storm made, each as long as the storm's median call,
 * on the same lcore, bracketed the same way. On a VM the hypervisor and the
 * guest kernel interrupt any code for tens of microseconds now and then; a
 * sweep's longest call cannot be judged below that floor.
 */
static uint64_t
fixed_work(uint64_t iters)
{
	uint64_t x = iters;

	while (iters-- > 0) {
		x = x * UINT64_C(6364136223846793005) + 1;
		__asm__ volatile("" : "+r" (x));
	}
	return x;
}

static void
machine_floor(struct fw_ctx *c, unsigned int rep, uint64_t calls,
	      double call_cycles)
{
	const uint64_t probe = 1000000;
	uint64_t t0, t1, cs, iters, i, max_clean = 0;
	double per_iter;

	t0 = rte_rdtsc_precise();
	fixed_work(probe);
	per_iter = (double)(rte_rdtsc_precise() - t0) / probe;
	iters = (uint64_t)(call_cycles / per_iter) + 1;
	perf_samples_reset(&c->s);
	for (i = 0; i < calls; i++) {
		cs = perf_ctx_switches();
		t0 = rte_rdtsc_precise();
		fixed_work(iters);
		t1 = rte_rdtsc_precise();
		if (perf_ctx_switches() == cs)
			max_clean = RTE_MAX(max_clean, t1 - t0);
		perf_samples_add(&c->s, t1 - t0, 1);
	}
	c->v[TW_FLOOR_MAX_US][rep] = perf_us(c->pe, (double)max_clean);
	c->v[TW_FLOOR_P999_US][rep] = perf_us(c->pe,
					      perf_samples_quantile(&c->s, 0.999));
}

/*
 * The storm. On a shared VM the scheduler may take the CPU in the middle of
 * a sweep call, which is no cost of the sweep: each call is bracketed by
 * the thread's context-switch count (read outside the timed window), and
 * the longest call and the cycles per entry are reported over the calls that
 * were not switched out; the longest of all calls and the total drain time
 * (wall clock, switches included) are reported as well.
 */
static int
tw_storm(struct fw_ctx *c, unsigned int rep)
{
	uint64_t now, t0, t1, t2, total = 0, max_call = 0, max_clean = 0, cs;
	uint64_t clean_cycles = 0, clean_entries = 0, calls = 0;
	uint32_t got = 0, bad = 0, switched = 0, j, k;

	fw_shuffle(c, 0, c->pe->hz);
	TEST_ASSERT_SUCCESS(tw_fill(c), "fill");
	now = c->vnow + c->pe->hz + 2 * c->tick;
	perf_samples_reset(&c->s);
	while (got < c->n) {
		cs = perf_ctx_switches();
		t0 = rte_rdtsc_precise();
		k = twheel_sweep(c->w, now, FW_BUDGET, c->out);
		t1 = rte_rdtsc();
		/* the consumer: what a flow table does with each record */
		for (j = 0; j < k; j++) {
			const struct perf_flow *f = c->out[j].payload;

			bad += c->out[j].reason != TWHEEL_DUE || f->expires > now;
		}
		t2 = rte_rdtsc_precise();
		total += t2 - t0;
		max_call = RTE_MAX(max_call, t1 - t0);
		if (perf_ctx_switches() != cs) {
			switched++;
		} else {
			max_clean = RTE_MAX(max_clean, t1 - t0);
			clean_cycles += t2 - t0;
			clean_entries += k;
		}
		perf_samples_add(&c->s, t1 - t0, 1);
		calls++;
		got += k;
		if (k == 0)
			break;
	}
	TEST_ASSERT(got == c->n && bad == 0, "storm: %u of %u records, %u wrong",
		    got, c->n, bad);
	c->vnow = now;
	/* per entry over the calls that kept the CPU; the total is wall time */
	c->v[TW_STORM][rep] = clean_entries != 0 ?
		(double)clean_cycles / clean_entries : (double)total / c->n;
	c->v[TW_STORM_WALL][rep] = (double)total / c->n;
	c->v[TW_STORM_MS][rep] = perf_us(c->pe, (double)total) / 1000;
	c->v[TW_STORM_MAX_RAW_US][rep] = perf_us(c->pe, (double)max_call);
	c->v[TW_STORM_MAX_US][rep] = perf_us(c->pe, (double)max_clean);
	c->v[TW_STORM_SWITCHED][rep] = switched;
	c->v[TW_STORM_P999_US][rep] = perf_us(c->pe,
					      perf_samples_quantile(&c->s, 0.999));
	machine_floor(c, rep, calls, perf_samples_median(&c->s));
	return TEST_SUCCESS;
}

static int
tw_revisit(struct fw_ctx *c, unsigned int rep)
{
	struct twheel_stats before, after;
	uint64_t now, t0, t1;
	uint32_t got = 0;
	bool more;

	/* 7440 s out, spread over one rotation */
	fw_shuffle(c, 7440 * c->pe->hz, c->rotation);
	TEST_ASSERT_SUCCESS(tw_fill(c), "fill");
	now = c->vnow + c->rotation + 2 * c->tick;
	twheel_stats_get(c->w, &before);
	t0 = rte_rdtsc_precise();
	/* until nothing is left at now: the rotation is done */
	do
		got += twheel_sweep_more(c->w, now, FW_BUDGET, c->out, &more);
	while (more);
	t1 = rte_rdtsc_precise();
	twheel_stats_get(c->w, &after);
	TEST_ASSERT(got == 0, "revisit: %u entries fired 7440 s early", got);
	TEST_ASSERT(after.revisits - before.revisits == c->n,
		    "revisit: %" PRIu64 " revisits for %u entries",
		    after.revisits - before.revisits, c->n);
	c->vnow = now;
	c->v[TW_REVISIT][rep] = (double)(t1 - t0) / c->n;
	return TEST_SUCCESS;
}

struct remote_job {
	struct twheel *w;
	const twheel_id_t *ids;
	uint32_t n;
	uint64_t cycles;
	unsigned int fails;
};

static int
remote_cancel_producer(void *arg)
{
	struct remote_job *j = arg;
	uint64_t t0 = rte_rdtsc_precise();
	uint32_t i;

	for (i = 0; i < j->n; i++)
		j->fails += twheel_remote_cancel(j->w, j->ids[i]) != 0;
	j->cycles = rte_rdtsc_precise() - t0;
	return 0;
}

/* Run fn(job) on the worker lcore, or here without one. */
static void
fw_on_worker(struct fw_ctx *c, lcore_function_t *fn, void *job)
{
	if (c->worker == c->lcore) {
		fn(job);
		return;
	}
	rte_eal_remote_launch(fn, job, c->worker);
	rte_eal_wait_lcore(c->worker);
}

static int
tw_remote(struct fw_ctx *c, unsigned int rep)
{
	static twheel_id_t ids[FW_RING];
	struct perf_samples apply;
	struct remote_job job;
	uint64_t t0, t1;
	uint32_t b, i, got, k, j;
	unsigned int bad = 0;

	/* the entries of the revisit phase are all live, 7440 s out */
	TEST_ASSERT_SUCCESS(perf_samples_init(&apply, c->n / FW_RING + 1), "no memory");
	fw_shuffle(c, 1, 1);
	perf_samples_reset(&c->s);
	for (b = 0; b < c->n; b += FW_RING) {
		memset(&job, 0, sizeof(job));
		job.w = c->w;
		job.ids = ids;
		job.n = RTE_MIN((uint32_t)FW_RING, c->n - b);
		for (i = 0; i < job.n; i++)
			ids[i] = c->flows[c->order[b + i]].id;
		fw_on_worker(c, remote_cancel_producer, &job);
		bad += job.fails;
		perf_samples_add(&c->s, job.cycles, job.n);

		got = 0;
		t0 = rte_rdtsc_precise();
		do {
			k = twheel_sweep(c->w, c->vnow, FW_BUDGET, c->out);
			for (j = 0; j < k; j++)
				got += c->out[j].reason == TWHEEL_CANCELLED;
		} while (k != 0);
		t1 = rte_rdtsc_precise();
		perf_samples_add(&apply, t1 - t0, job.n);
		bad += got != job.n;
	}
	c->v[TW_REMOTE_ENQ][rep] = fw_median_sample(c);
	c->v[TW_REMOTE_APPLY][rep] = perf_samples_median(&apply);
	perf_samples_free(&apply);
	TEST_ASSERT(bad == 0, "remote cancel: %u failures", bad);
	return TEST_SUCCESS;
}

static int
tw_rep(struct fw_ctx *c, unsigned int rep)
{
	struct twheel_stats st;
	int ret;

	ret = tw_setup(c);
	if (ret == TEST_SUCCESS)
		ret = tw_insert_refresh_move_cancel(c, rep);
	if (ret == TEST_SUCCESS)
		ret = tw_storm(c, rep);
	if (ret == TEST_SUCCESS)
		ret = tw_revisit(c, rep);
	if (ret == TEST_SUCCESS)
		ret = tw_remote(c, rep);
	if (ret == TEST_SUCCESS) {
		twheel_stats_get(c->w, &st);
		if (st.live != 0) {
			printf("  %" PRIu64 " entries left in the wheel\n", st.live);
			ret = TEST_FAILED;
		}
	}
	twheel_free(c->w);
	c->w = NULL;
	return ret;
}

/* rte_timer ------------------------------------------------------------------ */

static uint32_t rt_fired;

static void
rt_flow_cb(struct rte_timer *t __rte_unused, void *arg __rte_unused)
{
	rt_fired++;
}

struct rt_stop_job {
	struct rte_timer *tms;
	const uint32_t *order;
	uint32_t n;
	struct perf_samples *s;
	unsigned int fails;
};

static int
rt_stop_worker(void *arg)
{
	struct rt_stop_job *j = arg;
	uint32_t k;

	PERF_TIMED_LOOP(j->s, j->n, k,
		j->fails += rte_timer_stop(&j->tms[j->order[k]]) != 0);
	return 0;
}

static int
rt_rep(struct fw_ctx *c, unsigned int rep)
{
	struct rte_timer *tms;
	struct rt_stop_job job;
	unsigned int fails = 0;
	uint64_t t0, t1, ready;
	uint32_t k, half = c->n / 2;

	tms = c->tms = rte_malloc(NULL, sizeof(*tms) * c->n, 0);
	if (tms == NULL) {
		printf("  N=%u: no memory for %u rte_timers; use -m\n", c->n, c->n);
		return TEST_SKIPPED;
	}
	for (k = 0; k < c->n; k++)
		rte_timer_init(&tms[k]);

	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	PERF_TIMED_LOOP(&c->s, c->n, k,
		fails += rte_timer_reset(&tms[c->order[k]], c->rel[k], SINGLE,
					 c->lcore, rt_flow_cb,
					 &c->flows[c->order[k]]) != 0);
	c->v[RT_INSERT][rep] = fw_median_sample(c);

	fw_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	PERF_TIMED_LOOP(&c->s, c->n, k,
		fails += rte_timer_reset(&tms[c->order[k]], c->rel[k], SINGLE,
					 c->lcore, rt_flow_cb,
					 &c->flows[c->order[k]]) != 0);
	c->v[RT_REARM][rep] = fw_median_sample(c);

	/* half stopped here, half from the worker lcore (under the lock) */
	fw_shuffle(c, 1, 1);
	PERF_TIMED_LOOP(&c->s, half, k,
		fails += rte_timer_stop(&tms[c->order[k]]) != 0);
	c->v[RT_STOP][rep] = fw_median_sample(c);
	job = (struct rt_stop_job){ .tms = tms, .order = c->order + half,
		.n = c->n - half, .s = &c->s };
	fw_on_worker(c, rt_stop_worker, &job);
	fails += job.fails;
	c->v[RT_REMOTE_STOP][rep] = fw_median_sample(c);
	TEST_ASSERT(fails == 0, "%u rte_timer calls failed", fails);

	/* storm: every timer due within a second, one manage call */
	fw_shuffle(c, 0, c->pe->hz);
	for (k = 0; k < c->n; k++)
		fails += rte_timer_reset(&tms[c->order[k]], c->rel[k], SINGLE,
					 c->lcore, rt_flow_cb,
					 &c->flows[c->order[k]]) != 0;
	ready = rte_rdtsc() + c->pe->hz + c->pe->hz / 1000;
	perf_wait_until(ready);
	rt_fired = 0;
	t0 = rte_rdtsc_precise();
	rte_timer_manage();
	t1 = rte_rdtsc_precise();
	TEST_ASSERT(fails == 0 && rt_fired == c->n,
		    "rte_timer storm: %u of %u fired", rt_fired, c->n);
	c->v[RT_STORM][rep] = (double)(t1 - t0) / c->n;
	c->v[RT_STORM_MS][rep] = perf_us(c->pe, (double)(t1 - t0)) / 1000;
	rte_free(tms);
	c->tms = NULL;
	return TEST_SUCCESS;
}

/* Report ------------------------------------------------------------------- */

static void
fw_row(const char *what, double rt, double tw, const char *unit)
{
	char rts[32], ratio[32];

	if (isnan(rt)) {
		strlcpy(rts, "-", sizeof(rts));
		strlcpy(ratio, "", sizeof(ratio));
	} else {
		snprintf(rts, sizeof(rts), "%.1f", rt);
		snprintf(ratio, sizeof(ratio), "%.1fx", rt / tw);
	}
	printf("    %-44s %12s %10.1f %8s  %s\n", what, rts, tw, ratio, unit);
}

static void
fw_report(struct fw_ctx *c, unsigned int reps)
{
	double m[FW_NB_METRICS];
	unsigned int i;

	for (i = 0; i < FW_NB_METRICS; i++) {
		m[i] = perf_median(c->v[i], reps);
		perf_record(c->pe, "flow", fw_desc[i].lib, fw_desc[i].workload,
			    c->n, fw_desc[i].metric, m[i], fw_desc[i].unit);
	}
	printf("  N = %u (median of %u; ratio = rte_timer / twheel)\n", c->n, reps);
	printf("    %-44s %12s %10s %8s\n", "workload", "rte_timer", "twheel", "ratio");
	fw_row("insert, random deadline 1-80 s", m[RT_INSERT], m[TW_INSERT], "cycles/op");
	fw_row("re-arm live entry (rte_timer_reset/move)", m[RT_REARM], m[TW_MOVE], "cycles/op");
	fw_row("lazy refresh, packet path (vs re-arm)", m[RT_REARM], m[TW_REFRESH], "cycles/op");
	fw_row("  lookup alone (not a cost of the wheel)", NAN, m[TW_LOOKUP], "cycles/op");
	fw_row("  lookup + refresh store", NAN, m[TW_LOOKUP_REFRESH], "cycles/op");
	fw_row("  refresh store to a cold line", NAN, m[TW_REFRESH_COLD], "cycles/op");
	fw_row("  re-arm in bursts of 32 (twheel_move_bulk)", m[RT_REARM], m[TW_MOVE_BULK],
	       "cycles/op");
	fw_row("cancel (rte_timer_stop/cancel)", m[RT_STOP], m[TW_CANCEL], "cycles/op");
	fw_row("  cancel in bursts of 32 (twheel_cancel_bulk)", m[RT_STOP],
	       m[TW_CANCEL_BULK], "cycles/op");
	fw_row("expiry storm, per entry (wall clock)", m[RT_STORM], m[TW_STORM_WALL],
	       "cycles/entry");
	fw_row("  per entry, calls that kept the CPU", NAN, m[TW_STORM], "cycles/entry");
	fw_row("expiry storm, longest call not switched out", m[RT_STORM_MS] * 1000,
	       m[TW_STORM_MAX_US], "us");
	fw_row("  longest call incl. switched-out calls", NAN,
	       m[TW_STORM_MAX_RAW_US], "us");
	fw_row("  calls switched out by the scheduler", NAN,
	       m[TW_STORM_SWITCHED], "calls");
	fw_row("  99.9th percentile call", NAN, m[TW_STORM_P999_US], "us");
	fw_row("  same calls of fixed arithmetic: longest", NAN, m[TW_FLOOR_MAX_US], "us");
	fw_row("  same calls of fixed arithmetic: 99.9th", NAN, m[TW_FLOOR_P999_US], "us");
	fw_row("expiry storm, total", m[RT_STORM_MS], m[TW_STORM_MS], "ms");
	fw_row("revisit of a 7440 s deadline, per rotation", NAN, m[TW_REVISIT],
	       "cycles/revisit");
	printf("    %-44s %12s %10.1f %8s  %s\n", "  = per flow lifetime (7440 s / 81.92 s)",
	       "", m[TW_REVISIT] * 7440 / 81.92, "", "cycles");
	printf("    %-44s %12s %10.4f %8s  %s\n", "  = CPU share of revisits at N flows",
	       "", 100.0 * m[TW_REVISIT] * c->n / (81.92 * c->pe->hz), "", "%");
	fw_row("remote cancel, producer (stop from lcore)", m[RT_REMOTE_STOP],
	       m[TW_REMOTE_ENQ], "cycles/op");
	fw_row("remote cancel, owner apply", NAN, m[TW_REMOTE_APPLY], "cycles/op");
}

static int
fw_run_size(struct perf_env *pe, uint32_t n)
{
	struct fw_ctx *c;
	unsigned int rep, reps = RTE_MIN(pe->reps, (unsigned int)FW_REPS_MAX);
	int ret = TEST_SUCCESS;
	uint32_t k;

	c = calloc(1, sizeof(*c));
	TEST_ASSERT_NOT_NULL(c, "no memory");
	c->pe = pe;
	c->n = n;
	c->rng = pe->seed ^ n;
	for (k = 0; k < FW_NB_METRICS; k++)
		for (rep = 0; rep < FW_REPS_MAX; rep++)
			c->v[k][rep] = NAN;
	c->lcore = rte_lcore_id();
	c->worker = rte_get_next_lcore(-1, 1, 0);
	if (c->worker >= RTE_MAX_LCORE)
		c->worker = c->lcore;
	c->flows = rte_malloc(NULL, sizeof(*c->flows) * n, RTE_CACHE_LINE_SIZE);
	c->order = malloc(sizeof(*c->order) * n);
	c->rel = malloc(sizeof(*c->rel) * n);
	if (c->flows == NULL || c->order == NULL || c->rel == NULL ||
	    perf_samples_init(&c->s, n / PERF_BATCH + FW_BUDGET + n / FW_BUDGET) != 0) {
		printf("  N=%u: no memory for the flows (%zu MB); use -m\n", n,
		       sizeof(*c->flows) * n >> 20);
		ret = TEST_SKIPPED;
		goto out;
	}
	for (k = 0; k < n; k++)
		c->flows[k] = (struct perf_flow){ .key = k };
	if (c->worker == c->lcore)
		printf("  (one lcore only: remote calls run on the owner lcore)\n");

	for (rep = 0; rep < reps && ret == TEST_SUCCESS; rep++) {
		/* take turns to go first */
		if (rep & 1) {
			ret = tw_rep(c, rep);
			if (ret == TEST_SUCCESS && !pe->twheel_only)
				ret = rt_rep(c, rep);
		} else {
			if (!pe->twheel_only)
				ret = rt_rep(c, rep);
			if (ret == TEST_SUCCESS)
				ret = tw_rep(c, rep);
		}
	}
	if (ret == TEST_SUCCESS)
		fw_report(c, reps);
out:
	perf_samples_free(&c->s);
	rte_free(c->tms);
	rte_free(c->flows);
	free(c->order);
	free(c->rel);
	free(c);
	return ret;
}

int
perf_flow_workloads(struct perf_env *pe)
{
	unsigned int i;
	int ret;

	ret = rte_timer_subsystem_init();
	TEST_ASSERT(ret == 0 || ret == -EALREADY, "rte_timer_subsystem_init: %d", ret);
	printf("\n[2] flow expiry workloads (randomised slab and visiting order; cycles per op: median batch of %d, median over repetitions)\n",
	       PERF_BATCH);
	for (i = 0; i < pe->nb_sizes; i++) {
		ret = fw_run_size(pe, pe->sizes[i]);
		if (ret == TEST_SKIPPED)
			printf("  N = %u skipped: not enough memory\n", pe->sizes[i]);
		else if (ret != TEST_SUCCESS)
			return ret;
	}
	return TEST_SUCCESS;
}
