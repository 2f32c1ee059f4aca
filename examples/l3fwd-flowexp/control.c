/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Control path (see control.h): the request queue between the telemetry
 * thread and the main lcore, and the flush walk.
 *
 * Hand-over. The caller copies its request to the heap and queues the
 * pointer on a multi-producer ring; the main lcore carries it out and
 * marks it done. A caller that stops waiting (30 s) marks it abandoned
 * instead; whichever of the two comes second frees it, decided by one
 * compare-and-swap, so neither side waits for the other.
 *
 * The walk. Per worker a cursor runs over the slab, FX_SCAN_CHUNK slots per
 * poll (the main lcore polls every millisecond while a request is open).
 * A matching live flow is sent to its owner; if the owner's ring is full
 * the cursor stays on that slot and the walk goes on with the next worker.
 * The request is done when every cursor reached the end of its slab and
 * everything was queued; the workers apply the invalidations at their next
 * expiry poll, and their "invalidated" counters show it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ring.h>

#include "control.h"
#include "nat.h"
#include "expiry.h"
#include "route.h"

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

#define CS_ADD(f, n) __atomic_fetch_add(&cs.f, (n), __ATOMIC_RELAXED)

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
	if (!__atomic_compare_exchange_n(&r->state, &expected, ST_DONE, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
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

/* One step of the walk; true once every flow was sent. */
static bool
flush_step(struct fx_ctl_req *r)
{
	struct fx_flow_table *ft;
	struct fx_lcore *lc;
	struct fx_key key;
	uint32_t s, end;
	unsigned int w;
	bool done = true;
	uint64_t fid;
	int rc;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		ft = &lc->ft;
		if (lc->ops == NULL)
			continue;
		end = RTE_MIN(ft->capacity, cursor[w] + FX_SCAN_CHUNK);
		for (s = cursor[w]; s < end; s++) {
			if (!ft_snapshot(&ft->flows[s], &fid, &key) ||
			    !key_matches(&r->rule, &key))
				continue;
			rc = lc->ops->invalidate(lc, s, fid);
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

			if (!fx_nat_flush_step(&lc->nat, &nat_cursor[w], FX_SCAN_CHUNK,
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

	__atomic_store_n(&ctl_closed, true, __ATOMIC_RELEASE);
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

	if (__atomic_load_n(&ctl_closed, __ATOMIC_ACQUIRE))
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
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == ST_DONE)
			goto done;
		usleep(1000);
	}
	if (__atomic_compare_exchange_n(&r->state, &expected, ST_ABANDONED,
					false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -ETIMEDOUT;   /* the main lcore frees it */
done:
	memcpy(req, r, sizeof(*req));
	free(r);
	return 0;
}

void
fx_control_emit(const struct fx_emitter *e, void *ctx)
{
	e->open(ctx, "control");
	e->u64(ctx, "requests", __atomic_load_n(&cs.requests, __ATOMIC_RELAXED));
	e->u64(ctx, "failed", __atomic_load_n(&cs.failed, __ATOMIC_RELAXED));
	e->u64(ctx, "flows_matched", __atomic_load_n(&cs.flows_matched, __ATOMIC_RELAXED));
	e->u64(ctx, "enobufs_retries", __atomic_load_n(&cs.enobufs_retries, __ATOMIC_RELAXED));
	e->u64(ctx, "route_changes", __atomic_load_n(&cs.route_changes, __ATOMIC_RELAXED));
	e->close(ctx);
}
