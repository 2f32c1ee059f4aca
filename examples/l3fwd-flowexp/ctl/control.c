/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Control path (see ctl/control.h): the request queue between the telemetry
 * thread and the main lcore, the flush walk over flows and mappings, and
 * the two writers that need no hand-over (reset, hold).
 *
 * Hand-over. The caller copies its request to the heap and queues the
 * pointer on a multi-producer ring; the main lcore carries it out and
 * marks it done. A caller that stops waiting (30 s) marks it abandoned
 * instead; whichever of the two comes second frees it, decided by one
 * compare-and-swap, so neither side waits for the other.
 *
 * The walk. Per worker a cursor runs over the flow slab and another over
 * the mapping records, FX_SCAN_CHUNK of each per poll (the main lcore
 * polls every millisecond while a request is open). A matching live flow
 * or mapping is sent to its owner; if the owner's ring is full the cursor
 * stays on that record and the walk goes on with the next worker.
 * The request is done when every cursor reached the end of its slab and
 * everything was queued; the workers apply the invalidations at their next
 * expiry poll, and their "invalidated" counters show it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include <twheel.h>

#include "base/atomic.h"
#include "ctl/control.h"
#include "expiry/expiry.h"
#include "flow/table.h"
#include "l3/neigh.h"
#include "l3/route.h"
#include "nat/nat.h"
#include "nat/table.h"
#include "worker/lcore.h"

#define FX_CTL_RING 64
#define FX_SCAN_CHUNK (1u << 16)
#define FX_CALL_WAIT_MS 30000

enum { ST_PENDING, ST_DONE, ST_ABANDONED };

static struct rte_ring *ctl_ring;
static bool ctl_closed;               /* set at shutdown */
static struct fx_ctl_req *cur;        /* being carried out */
static bool cur_flushing;
static uint32_t cursor[RTE_MAX_LCORE];
static uint32_t nat_cursor[RTE_MAX_LCORE];   /* the walk of the NAT mappings */

/* main-lcore counters, read by any thread */
static struct {
	uint64_t requests;
	uint64_t flows_matched;
	uint64_t enobufs_retries;
	uint64_t route_changes;
	uint64_t failed;
} cs;

/* counters: whole values, ordering nothing */
#define CS_ADD(f, n) fx_add_relaxed(&cs.f, (n))
#define CS_GET(f) fx_load_relaxed(&cs.f)

int
fx_control_init(void)
{
	ctl_ring = rte_ring_create("FX_CTL", FX_CTL_RING, SOCKET_ID_ANY,
				   RING_F_SC_DEQ);
	return ctl_ring == NULL ? -rte_errno : 0;
}

static void
complete(struct fx_ctl_req *r)
{
	uint32_t expected = ST_PENDING;

	if (r->rc != 0)
		CS_ADD(failed, 1);
	/* release: the caller that sees DONE sees the result; acquire on
	 * failure: the caller's ABANDONED came first, free after it */
	if (!fx_cas_acq_rel(&r->state, &expected, ST_DONE))
		free(r);   /* the caller gave up waiting */
}

static void
flush_start(void)
{
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		cursor[w] = nat_cursor[w] = 0;
	cur_flushing = true;
}

static inline bool
key_matches(const struct fx_route_rule *p, const struct fx_key *k)
{
	return fx_prefix_match(p, k->addr[0], k->family) ||
		fx_prefix_match(p, k->addr[1], k->family);
}

/*
 * The NAT mappings of worker nt: walk at most `chunk` records from
 * *cursor and cancel the live mappings whose inside host is in prefix
 * rule, through the wheel's remote ring, so the owner ends them at its
 * next sweep. Adds to *matched; a full ring leaves the cursor on that
 * record and adds to *enobufs. Returns true when the walk reached the end.
 */
static bool
nat_flush_step(struct fx_nat *nt, uint32_t *cursor, uint32_t chunk,
	       const struct fx_route_rule *rule, uint64_t *matched,
	       uint64_t *enobufs)
{
	uint32_t s, end = RTE_MIN(nt->tbl.capacity, *cursor + chunk);
	uint8_t addr[16] = { 0 };
	uint32_t in_addr;
	uint64_t id;
	int rc;

	for (s = *cursor; s < end; s++) {
		if (!nat_table_snapshot(&nt->tbl.rec[s], &id, &in_addr))
			continue;
		memcpy(addr, &in_addr, 4);
		if (!fx_prefix_match(rule, addr, FX_FAMILY_V4))
			continue;
		rc = twheel_remote_cancel(nt->wheel, id);
		if (rc == -ENOBUFS) {
			(*enobufs)++;
			break;   /* this record again at the next step */
		}
		if (rc == 0)
			(*matched)++;
	}
	*cursor = s;
	return s >= nt->tbl.capacity;
}

/* One step of the walk; true once every flow and mapping was sent. */
static bool
flush_step(struct fx_ctl_req *r)
{
	struct fx_flow_table *ft;
	struct fx_lcore *lc;
	struct fx_key key;
	uint32_t s, end;
	unsigned int w;
	bool done = true;
	uint64_t expiry_id;
	int rc;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		ft = &lc->flows.table;
		if (lc->flows.expiry == NULL)
			continue;
		end = RTE_MIN(ft->capacity, cursor[w] + FX_SCAN_CHUNK);
		for (s = cursor[w]; s < end; s++) {
			if (!ft_snapshot(&ft->flows[s], &expiry_id, &key) ||
			    !key_matches(&r->rule, &key))
				continue;
			rc = lc->flows.expiry->invalidate(&lc->flows, s, expiry_id);
			if (rc == -ENOBUFS) {
				r->enobufs++;
				CS_ADD(enobufs_retries, 1);
				break;   /* this slot again at the next poll */
			}
			if (rc == 0) {
				r->matched[w]++;
				r->sent++;
				CS_ADD(flows_matched, 1);
			}
		}
		cursor[w] = s;
		if (s < ft->capacity)
			done = false;
		if (fx_nat_enabled() && r->rule.family == FX_FAMILY_V4) {
			uint64_t matched = 0, enobufs = 0;

			if (!nat_flush_step(&lc->nat, &nat_cursor[w], FX_SCAN_CHUNK,
					    &r->rule, &matched, &enobufs))
				done = false;
			r->matched[w] += matched;
			r->sent += matched;
			r->enobufs += enobufs;
			CS_ADD(flows_matched, matched);
			CS_ADD(enobufs_retries, enobufs);
		}
	}
	return done;
}

static void
start(struct fx_ctl_req *r)
{
	CS_ADD(requests, 1);
	switch (r->type) {
	case FX_CTL_FLUSH:
		if (fx_conf.expiry == FX_EXPIRY_NONE) {
			r->rc = -ENOTSUP;
			break;
		}
		flush_start();
		return;
	case FX_CTL_ROUTE_ADD:
	case FX_CTL_ROUTE_DEL:
		r->rc = fx_route_change(&r->rule, r->type == FX_CTL_ROUTE_ADD);
		if (r->rc != 0)
			break;
		CS_ADD(route_changes, 1);
		if (fx_conf.expiry != FX_EXPIRY_NONE) {
			flush_start();
			return;
		}
		break;
	case FX_CTL_ROUTES:
		r->nb_routes = fx_route_list(r->routes, FX_CTL_ROUTES_MAX);
		break;
	case FX_CTL_NEIGH:
		r->nb_neigh = fx_neigh_snapshot(r->port, r->from, r->neigh, FX_CTL_NEIGH_MAX,
						&r->neigh_total);
		break;
	default:
		r->rc = -EINVAL;
		break;
	}
	complete(r);
}

void
fx_control_poll(void)
{
	void *p;

	if (cur == NULL) {
		if (rte_ring_dequeue(ctl_ring, &p) != 0)
			return;
		cur = p;
		cur_flushing = false;
		start(cur);
		if (!cur_flushing) {
			cur = NULL;
			return;
		}
	}
	if (flush_step(cur)) {
		complete(cur);
		cur = NULL;
		cur_flushing = false;
	}
}

bool
fx_control_busy(void)
{
	return cur != NULL || rte_ring_count(ctl_ring) != 0;
}

void
fx_control_fini(void)
{
	void *p;

	/* pairs with fx_control_call()'s acquire: a caller that sees the
	 * flag queues nothing more */
	fx_store_release(&ctl_closed, true);
	if (cur != NULL) {
		cur->rc = -ESHUTDOWN;
		complete(cur);
		cur = NULL;
	}
	while (ctl_ring != NULL && rte_ring_dequeue(ctl_ring, &p) == 0) {
		((struct fx_ctl_req *)p)->rc = -ESHUTDOWN;
		complete(p);
	}
}

int
fx_control_call(struct fx_ctl_req *req)
{
	uint32_t expected = ST_PENDING;
	struct fx_ctl_req *r;
	unsigned int ms;

	if (fx_load_acquire(&ctl_closed))   /* pairs with fx_control_fini() */
		return -ESHUTDOWN;
	r = malloc(sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	memcpy(r, req, sizeof(*r));
	r->rc = 0;
	r->sent = r->enobufs = 0;
	r->nb_routes = 0;
	memset(r->matched, 0, sizeof(r->matched));
	r->state = ST_PENDING;
	if (rte_ring_mp_enqueue(ctl_ring, r) != 0) {
		free(r);
		return -EBUSY;
	}
	for (ms = 0; ms < FX_CALL_WAIT_MS; ms++) {
		/* pairs with complete()'s release: the result is there */
		if (fx_load_acquire(&r->state) == ST_DONE)
			goto done;
		usleep(1000);
	}
	/* the main lcore frees it; failure: it completed first (acquire:
	 * its result is there) */
	if (fx_cas_acq_rel(&r->state, &expected, ST_ABANDONED))
		return -ETIMEDOUT;
done:
	memcpy(req, r, sizeof(*req));
	free(r);
	return 0;
}

void
fx_control_emit(const struct fx_emitter *e, void *ctx)
{
	e->open(ctx, "control");
	e->u64(ctx, "requests", CS_GET(requests));
	e->u64(ctx, "failed", CS_GET(failed));
	e->u64(ctx, "flows_matched", CS_GET(flows_matched));
	e->u64(ctx, "enobufs_retries", CS_GET(enobufs_retries));
	e->u64(ctx, "route_changes", CS_GET(route_changes));
	e->close(ctx);
}

/* the reset requests: how many, and the TSC of the last (any thread) */
static struct {
	uint64_t n;
	uint64_t tsc;
} resets;

void
fx_control_reset_maxima(void)
{
	unsigned int w;

	/* values for the telemetry replies, ordering nothing */
	fx_store_relaxed(&resets.tsc, rte_rdtsc());
	fx_add_relaxed(&resets.n, 1);
	/* a count, ordering nothing: the worker resets its own fields */
	for (w = 0; w < fx_nb_workers; w++)
		fx_add_relaxed(&fx_workers[w]->requests.reset, 1);
}

void
fx_control_reset_info(uint64_t *n, uint64_t *tsc)
{
	*n = fx_load_relaxed(&resets.n);
	*tsc = fx_load_relaxed(&resets.tsc);
}

void
fx_control_hold_expiry(unsigned int ms)
{
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;
	unsigned int w;

	/* a time, ordering nothing (worker/bench.h reads it) */
	for (w = 0; w < fx_nb_workers; w++)
		fx_store_relaxed(&fx_workers[w]->requests.hold_until, until);
}
