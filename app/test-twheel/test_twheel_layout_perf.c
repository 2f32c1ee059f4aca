/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * twheel_layout_perf_autotest: the bucket layout decision (doc/guide.md,
 * "The bucket layout, and why"), measured. The library's chunked buckets (lists of 64-byte chunks of 14
 * slab indices) against a minimal wheel whose buckets are intrusive doubly
 * linked lists (twheel_dll_wheel.c): same entry size and stride, same free
 * list, same geometry, head insertion, the same lazy deadline in a 64-byte
 * payload, the same budgeted sweep.
 *
 * For each size (TWHEEL_PERF_SIZES, default 1M and 4M) and repetition, each
 * layout gets a new wheel whose slab order is randomised first (every
 * entry scheduled, then cancelled in random order), then:
 *   insert   every flow in random order, deadlines 1..80 s out
 *   cancel   every flow in random order
 *   expire   every flow scheduled within one second, then swept with
 *            budget 256 at a time when all are due (cycles per entry over
 *            the sweep calls that kept the CPU, and the longest such call)
 * Both layouts are driven through the same table of function pointers and
 * see the same random sequences; they take turns to go first.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_dll_wheel.h"
#include "twheel_perf.h"

#define LP_BUDGET 256
#define LP_REPS_MAX 100

struct layout_ops {
	const char *name;
	void *(*create)(uint32_t n, uint64_t tick, uint32_t slots);
	void (*destroy)(void *w);
	uint64_t (*schedule)(void *w, uint64_t deadline, void *payload); /* 0: full */
	void (*cancel)(void *w, uint64_t id);
	unsigned int (*sweep)(void *w, uint64_t now, unsigned int budget,
			      struct twheel_fired *out);
};

/* The library, chunked buckets. */
static void *
chunks_create(uint32_t n, uint64_t tick, uint32_t slots)
{
	struct twheel_config cfg;

	twheel_config_standard(&cfg, "perf_layout", n, rte_socket_id());
	cfg.tick_cycles = tick;
	cfg.slots = slots;
	cfg.remote_ring_size = 0;    /* the layout alone */
	cfg.deadline_fn = perf_flow_deadline;
	return twheel_create(&cfg);
}

static void
chunks_destroy(void *w)
{
	twheel_free(w);
}

static uint64_t
chunks_schedule(void *w, uint64_t deadline, void *payload)
{
	return twheel_schedule(w, deadline, payload);
}

static void
chunks_cancel(void *w, uint64_t id)
{
	twheel_cancel(w, id);
}

static unsigned int
chunks_sweep(void *w, uint64_t now, unsigned int budget, struct twheel_fired *out)
{
	return twheel_sweep(w, now, budget, out);
}

/* The doubly linked baseline; ids are slab index + 1. */
static void *
dll_create(uint32_t n, uint64_t tick, uint32_t slots)
{
	return dll_wheel_create(n, slots, tick, perf_flow_deadline, NULL,
				rte_socket_id());
}

static void
dll_destroy(void *w)
{
	dll_wheel_free(w);
}

static uint64_t
dll_schedule(void *w, uint64_t deadline, void *payload)
{
	return (uint64_t)dll_wheel_schedule(w, deadline, payload) + 1;
}

static void
dll_cancel(void *w, uint64_t id)
{
	dll_wheel_cancel(w, (uint32_t)(id - 1));
}

static unsigned int
dll_sweep(void *w, uint64_t now, unsigned int budget, struct twheel_fired *out)
{
	return dll_wheel_sweep(w, now, budget, out);
}

static const struct layout_ops layouts[] = {
	{ "chunks", chunks_create, chunks_destroy, chunks_schedule,
	  chunks_cancel, chunks_sweep },
	{ "dll", dll_create, dll_destroy, dll_schedule, dll_cancel, dll_sweep },
};
#define NB_LAYOUTS RTE_DIM(layouts)

enum lp_metric { LP_INSERT, LP_CANCEL, LP_EXPIRE, LP_EXPIRE_MAX_US, LP_NB };
static const char * const lp_name[LP_NB] = {
	"insert", "cancel", "expire", "expire_max_call_us",
};

struct lp_ctx {
	struct perf_env *pe;
	uint32_t n;
	struct perf_flow *flows;
	uint32_t *order;
	uint64_t *rel;
	struct twheel_fired out[LP_BUDGET];
	struct perf_samples s;
	uint64_t rng, tick;
	uint32_t slots;
	double v[NB_LAYOUTS][LP_NB][LP_REPS_MAX];
};

static void
lp_shuffle(struct lp_ctx *c, uint64_t base, uint64_t span)
{
	perf_shuffle(c->order, c->rel, c->n, base, span, &c->rng);
}

/* Schedule every flow in the current order at now + rel[k]; 0 or -1. */
static int
lp_fill(struct lp_ctx *c, const struct layout_ops *o, void *w, uint64_t now)
{
	uint32_t k;

	for (k = 0; k < c->n; k++) {
		struct perf_flow *f = &c->flows[c->order[k]];

		f->expires = now + c->rel[k];
		f->id = o->schedule(w, f->expires, f);
		if (f->id == 0)
			return -1;
	}
	return 0;
}

static int
lp_expire(struct lp_ctx *c, const struct layout_ops *o, void *w, uint64_t now,
	  double *per_entry, double *max_us)
{
	uint64_t t0, t1, cs, cycles = 0, entries = 0, max_call = 0;
	uint32_t got = 0, bad = 0, j, k;

	while (got < c->n) {
		cs = perf_ctx_switches();
		t0 = rte_rdtsc_precise();
		k = o->sweep(w, now, LP_BUDGET, c->out);
		for (j = 0; j < k; j++)
			bad += ((const struct perf_flow *)c->out[j].payload)->expires > now;
		t1 = rte_rdtsc_precise();
		if (perf_ctx_switches() == cs) {
			cycles += t1 - t0;
			entries += k;
			max_call = RTE_MAX(max_call, t1 - t0);
		}
		got += k;
		if (k == 0)
			break;
	}
	TEST_ASSERT(got == c->n && bad == 0, "%s: %u of %u expired, %u early",
		    o->name, got, c->n, bad);
	*per_entry = entries != 0 ? (double)cycles / entries : NAN;
	*max_us = perf_us(c->pe, (double)max_call);
	return TEST_SUCCESS;
}

static int
lp_one(struct lp_ctx *c, const struct layout_ops *o, unsigned int l,
       unsigned int rep)
{
	struct perf_flow *flows = c->flows;
	uint64_t now = rte_rdtsc(), seed = c->rng;
	unsigned int fails = 0;
	void *w;
	uint32_t k;
	int ret;

	w = o->create(c->n, c->tick, c->slots);
	if (w == NULL) {
		printf("  %s, N=%u: no memory (%s); use -m\n", o->name, c->n,
		       rte_strerror(rte_errno));
		return TEST_SKIPPED;
	}
	/* randomise the slab order */
	lp_shuffle(c, c->pe->hz, 79 * c->pe->hz);
	ret = lp_fill(c, o, w, now);
	for (k = 0; k < c->n && ret == 0; k++)
		o->cancel(w, flows[c->order[k]].id);

	if (ret == 0) {
		lp_shuffle(c, c->pe->hz, 79 * c->pe->hz);
		PERF_TIMED_LOOP(&c->s, c->n, k,
			struct perf_flow *f = &flows[c->order[k]];
			f->expires = now + c->rel[k];
			f->id = o->schedule(w, f->expires, f);
			fails += f->id == 0);
		c->v[l][LP_INSERT][rep] = perf_samples_median(&c->s);

		lp_shuffle(c, 1, 1);
		PERF_TIMED_LOOP(&c->s, c->n, k,
			o->cancel(w, flows[c->order[k]].id));
		c->v[l][LP_CANCEL][rep] = perf_samples_median(&c->s);

		lp_shuffle(c, 0, c->pe->hz);
		ret = lp_fill(c, o, w, now);
	}
	if (ret == 0 && fails == 0)
		ret = lp_expire(c, o, w, now + c->pe->hz + 2 * c->tick,
				&c->v[l][LP_EXPIRE][rep],
				&c->v[l][LP_EXPIRE_MAX_US][rep]);
	else
		ret = TEST_FAILED;
	o->destroy(w);
	/* the other layout sees the same random sequences */
	c->rng = seed;
	return ret;
}

static int
lp_run_size(struct perf_env *pe, uint32_t n)
{
	unsigned int reps = RTE_MIN(pe->reps, (unsigned int)LP_REPS_MAX);
	double med[NB_LAYOUTS][LP_NB];
	struct twheel_config std;
	unsigned int rep, l, i, m;
	struct lp_ctx *c;
	uint32_t k;
	int ret = TEST_SUCCESS;

	c = calloc(1, sizeof(*c));
	TEST_ASSERT_NOT_NULL(c, "no memory");
	twheel_config_standard(&std, "unused", n, SOCKET_ID_ANY);
	c->pe = pe;
	c->n = n;
	c->tick = std.tick_cycles;
	c->slots = std.slots;
	c->flows = rte_malloc(NULL, sizeof(*c->flows) * n, RTE_CACHE_LINE_SIZE);
	c->order = malloc(sizeof(*c->order) * n);
	c->rel = malloc(sizeof(*c->rel) * n);
	if (c->flows == NULL || c->order == NULL || c->rel == NULL ||
	    perf_samples_init(&c->s, n / PERF_BATCH + 1) != 0) {
		printf("  N=%u: no memory for the flows; use -m\n", n);
		ret = TEST_SKIPPED;
		goto out;
	}
	for (k = 0; k < n; k++)
		c->flows[k] = (struct perf_flow){ .key = k };

	for (rep = 0; rep < reps && ret == TEST_SUCCESS; rep++) {
		c->rng = pe->seed ^ ((uint64_t)n << 20) ^ rep;
		for (i = 0; i < NB_LAYOUTS && ret == TEST_SUCCESS; i++) {
			l = (i + rep) % NB_LAYOUTS;
			ret = lp_one(c, &layouts[l], l, rep);
		}
	}
	if (ret != TEST_SUCCESS)
		goto out;
	printf("  N = %u (median of %u)\n", n, reps);
	printf("    %-28s %10s %10s %12s\n", "operation", "chunks", "dll",
	       "dll/chunks");
	for (m = 0; m < LP_NB; m++) {
		for (l = 0; l < NB_LAYOUTS; l++) {
			med[l][m] = perf_median(c->v[l][m], reps);
			perf_record(pe, "layout", layouts[l].name, lp_name[m], n,
				    m == LP_EXPIRE_MAX_US ? "us" : "cycles_per_op",
				    med[l][m], m == LP_EXPIRE_MAX_US ? "us" : "cycles");
		}
		printf("    %-28s %10.1f %10.1f %11.2fx  %s\n", lp_name[m], med[0][m],
		       med[1][m], med[1][m] / med[0][m],
		       m == LP_EXPIRE_MAX_US ? "us" : "cycles/op");
	}
out:
	perf_samples_free(&c->s);
	rte_free(c->flows);
	free(c->order);
	free(c->rel);
	free(c);
	return ret;
}

static int
test_twheel_layout_perf(void)
{
	struct perf_env pe;
	unsigned int i;
	int ret = TEST_SUCCESS;

	if (perf_env_init(&pe, "twheel_layout_perf_autotest") != 0)
		return TEST_FAILED;
	printf("\nbucket layout: chunks (the library) vs an intrusive doubly linked list\n"
	       "(randomised slab and visiting order; cycles per op: median batch of %d, median over repetitions)\n",
	       PERF_BATCH);
	for (i = 0; i < pe.nb_sizes && ret != TEST_FAILED; i++) {
		ret = lp_run_size(&pe, pe.sizes[i]);
		if (ret == TEST_SKIPPED)
			printf("  N = %u skipped: not enough memory\n", pe.sizes[i]);
	}
	perf_env_close(&pe);
	return ret == TEST_FAILED ? TEST_FAILED : TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(twheel_layout_perf_autotest, test_twheel_layout_perf);
