/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The neighbour state machine (l3/neigh_fsm.h has the states and what the
 * workers see). Every transition sets the new state's deadline and
 * `until` together, in one place per state (the enter_* helpers), so the
 * timeline of an entry can be read off this file.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "l3/neigh_fsm.h"

const char *const fx_nstate_names[FX_NS_MAX] = {
#define FX_NSTATE_NAME(e, s) s,
	FX_NSTATES(FX_NSTATE_NAME)
#undef FX_NSTATE_NAME
};

static inline uint64_t
after(uint64_t now, uint64_t d)
{
	return d >= FX_NFSM_NEVER - now ? FX_NFSM_NEVER : now + d;
}

static void
enter(struct fx_nfsm *n, uint8_t state, uint64_t now, uint64_t deadline)
{
	n->state = state;
	n->since = now;
	n->deadline = deadline;
}

/* a broadcast request now and every retrans, probes in all */
static unsigned int
enter_incomplete(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	enter(n, FX_NS_INCOMPLETE, now, after(now, c->retrans));
	n->probes = 1;
	n->has_mac = false;
	n->until = 0;
	return FX_NFSM_SEND_BCAST | FX_NFSM_PUBLISH;
}

static unsigned int
enter_reachable(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now,
		uint32_t rnd)
{
	/* [0.5, 1.5) x base, as Linux's neigh_rand_reach_time() */
	uint64_t t = c->base_reachable / 2 +
		(uint64_t)(((unsigned __int128)c->base_reachable * rnd) >> 32);

	enter(n, FX_NS_REACHABLE, now, after(now, t));
	n->probes = 0;
	n->until = n->deadline;
	return FX_NFSM_PUBLISH;
}

/* usable, but the next packet comes to the main lcore */
static unsigned int
enter_stale(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	enter(n, FX_NS_STALE, now, after(now, c->gc_stale));
	n->probes = 0;
	n->until = now;
	return FX_NFSM_PUBLISH;
}

static unsigned int
enter_delay(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	enter(n, FX_NS_DELAY, now, after(now, c->delay));
	n->until = n->deadline;
	return FX_NFSM_PUBLISH;
}

static unsigned int
enter_probe(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	enter(n, FX_NS_PROBE, now, after(now, c->retrans));
	n->probes = 1;
	n->until = n->deadline;
	return FX_NFSM_SEND_UCAST | FX_NFSM_PUBLISH;
}

static unsigned int
enter_failed(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	enter(n, FX_NS_FAILED, now, after(now, c->gc_stale));
	n->has_mac = false;
	n->until = 0;
	return FX_NFSM_DROP | FX_NFSM_FAILED | FX_NFSM_PUBLISH;
}

static inline void
set_mac(struct fx_nfsm *n, const uint8_t mac[6])
{
	memcpy(n->mac, mac, sizeof(n->mac));
	n->has_mac = true;
}

static inline bool
same_mac(const struct fx_nfsm *n, const uint8_t *mac)
{
	return n->has_mac && memcmp(n->mac, mac, sizeof(n->mac)) == 0;
}

void
fx_nfsm_init(struct fx_nfsm *n)
{
	memset(n, 0, sizeof(*n));
	n->state = FX_NS_NONE;
	n->deadline = FX_NFSM_NEVER;
}

void
fx_nfsm_permanent(struct fx_nfsm *n, const uint8_t mac[6])
{
	fx_nfsm_init(n);
	n->state = FX_NS_PERMANENT;
	n->until = FX_NFSM_NEVER;
	set_mac(n, mac);
}

unsigned int
fx_nfsm_resolve(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	switch (n->state) {
	case FX_NS_NONE:
	case FX_NS_FAILED:
		return enter_incomplete(n, c, now);
	case FX_NS_INCOMPLETE:
		return 0;
	case FX_NS_REACHABLE:
		if (now < n->until)
			return FX_NFSM_USABLE;
		/* its time ran out before the timer said so: stale */
		/* fall through */
	case FX_NS_STALE:
		return enter_delay(n, c, now) | FX_NFSM_USABLE | FX_NFSM_STALE_USE;
	case FX_NS_DELAY:
	case FX_NS_PROBE:
	case FX_NS_PERMANENT:
	default:
		return FX_NFSM_USABLE;
	}
}

unsigned int
fx_nfsm_confirm(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now,
		const uint8_t mac[6], uint32_t rnd)
{
	bool was_incomplete = n->state == FX_NS_INCOMPLETE;

	if (n->state == FX_NS_PERMANENT)
		return 0;
	set_mac(n, mac);
	return enter_reachable(n, c, now, rnd) |
		(was_incomplete ? FX_NFSM_FLUSH | FX_NFSM_RESOLVED : 0);
}

unsigned int
fx_nfsm_learn(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now,
	      const uint8_t mac[6])
{
	switch (n->state) {
	case FX_NS_PERMANENT:
		return 0;
	case FX_NS_INCOMPLETE:
		/* STALE, and at once used by the held packets: DELAY */
		set_mac(n, mac);
		return enter_delay(n, c, now) | FX_NFSM_FLUSH | FX_NFSM_RESOLVED;
	case FX_NS_NONE:
	case FX_NS_FAILED:
		set_mac(n, mac);
		return enter_stale(n, c, now);
	default:
		if (same_mac(n, mac))
			return 0;
		set_mac(n, mac);
		return enter_stale(n, c, now);
	}
}

unsigned int
fx_nfsm_advert(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now,
	       const uint8_t *mac, bool solicited, bool override, uint32_t rnd)
{
	bool differs;

	switch (n->state) {
	case FX_NS_PERMANENT:
	case FX_NS_NONE:
	case FX_NS_FAILED:
		return 0;   /* nothing asked: RFC 4861 7.2.5 discards it */
	case FX_NS_INCOMPLETE:
		if (mac == NULL)
			return 0;
		return solicited ? fx_nfsm_confirm(n, c, now, mac, rnd) :
			fx_nfsm_learn(n, c, now, mac);
	default:
		break;
	}
	differs = mac != NULL && !same_mac(n, mac);
	if (!override && differs) {
		/* keep the address it has; doubt it if it was reachable */
		if (n->state == FX_NS_REACHABLE)
			return enter_stale(n, c, now);
		return 0;
	}
	if (solicited)
		return fx_nfsm_confirm(n, c, now, differs ? mac : n->mac, rnd);
	if (!differs)
		return 0;
	set_mac(n, mac);
	return enter_stale(n, c, now);
}

unsigned int
fx_nfsm_timer(struct fx_nfsm *n, const struct fx_nfsm_conf *c, uint64_t now)
{
	switch (n->state) {
	case FX_NS_INCOMPLETE:
		if (n->probes < c->probes) {
			n->probes++;
			n->deadline = after(now, c->retrans);
			return FX_NFSM_SEND_BCAST;
		}
		return enter_failed(n, c, now);
	case FX_NS_REACHABLE:
		/* until is already past: the workers' next packet comes here */
		enter(n, FX_NS_STALE, now, after(now, c->gc_stale));
		return 0;
	case FX_NS_DELAY:
		return enter_probe(n, c, now);
	case FX_NS_PROBE:
		if (n->probes < c->probes) {
			n->probes++;
			n->deadline = after(now, c->retrans);
			n->until = n->deadline;
			return FX_NFSM_SEND_UCAST | FX_NFSM_PUBLISH;
		}
		return enter_failed(n, c, now);
	case FX_NS_STALE:
	case FX_NS_FAILED:
		/* unused for gc_stale; if it stays (a route's next hop), with
		 * no deadline until something uses it */
		n->deadline = FX_NFSM_NEVER;
		return FX_NFSM_DELETE;
	default:
		n->deadline = FX_NFSM_NEVER;
		return 0;
	}
}
