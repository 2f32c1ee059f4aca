/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT public ports: shares per worker and the per-worker allocator
 * (nat/ports.h has the design).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "base/toeplitz.h"
#include "nat/ports.h"

int
nat_ports_share(uint16_t lo, uint16_t hi, unsigned int nb_workers,
		unsigned int w, uint16_t *first, uint16_t *last)
{
	uint32_t n, base, extra, start;

	if (lo > hi || nb_workers == 0 || w >= nb_workers)
		return -EINVAL;
	n = (uint32_t)hi - lo + 1;
	if (n < nb_workers)
		return -EINVAL;
	base = n / nb_workers;
	extra = n % nb_workers;
	/* the first `extra` shares have base + 1 ports */
	start = lo + w * base + RTE_MIN(w, extra);
	*first = (uint16_t)start;
	*last = (uint16_t)(start + base - (w < extra ? 0 : 1));
	return 0;
}

int
nat_ports_owner_table(uint16_t lo, uint16_t hi, unsigned int nb_workers,
		      uint8_t owner[65536])
{
	uint16_t first, last;
	unsigned int w;
	int rc;

	if (nb_workers > UINT8_MAX)
		return -EINVAL;
	memset(owner, 0xff, 65536);
	for (w = 0; w < nb_workers; w++) {
		rc = nat_ports_share(lo, hi, nb_workers, w, &first, &last);
		if (rc != 0)
			return rc;
		memset(owner + first, (int)w, (size_t)last - first + 1);
	}
	return 0;
}

int
nat_ports_init(struct nat_ports *np, uint16_t lo, uint16_t hi,
	       unsigned int nb_workers, unsigned int w, uint32_t nb_addrs,
	       uint32_t beside, int socket)
{
	unsigned int i;
	int rc;

	memset(np, 0, sizeof(*np));
	if (nb_addrs == 0 || nb_addrs > NAT_POOL_ADDRS_MAX ||
	    (beside != 0 && beside != sizeof(struct nat_port_unit)))
		return -EINVAL;
	/* 8 or 16 bytes a unit: whole units a line, none across two */
	RTE_BUILD_BUG_ON(sizeof(struct nat_port_unit) != 8);
	np->unit_shift = beside != 0 ? 4 : 3;
	rc = nat_ports_share(lo, hi, nb_workers, w, &np->first, &np->last);
	if (rc != 0)
		return rc;
	np->share = (uint32_t)np->last - np->first + 1;
	np->share_rcp = rte_reciprocal_value(np->share);
	np->nb_addrs = nb_addrs;
	np->units = (uint64_t)nb_addrs * NAT_PROTO_MAX * np->share;
	np->unit = rte_zmalloc_socket("nat_ports", np->units << np->unit_shift,
				      RTE_CACHE_LINE_SIZE, socket);
	if (np->unit == NULL)
		return -ENOMEM;
	np->nb_free = np->units;
	for (i = 0; i < NAT_PORTS_AHEAD; i++)
		np->ahead[i] = (uint16_t)(np->first + rte_rand_max(np->share));
	return 0;
}

void
nat_ports_fini(struct nat_ports *np)
{
	rte_free(np->unit);
	np->unit = NULL;
}

/* the next random candidate, drawn ahead; a new one takes its place */
static inline uint16_t
draw(struct nat_ports *np)
{
	uint32_t i = np->ahead_next++ % NAT_PORTS_AHEAD;
	uint16_t p = np->ahead[i];

	np->ahead[i] = (uint16_t)(np->first + rte_rand_max(np->share));
	return p;
}

static void
count_live(struct nat_ports *np, struct nat_port_unit *u)
{
	if (u->live++ == 0) {
		if (u->held == 0)
			np->nb_free--;
		else
			np->nb_held--;
	}
}

void
nat_ports_take(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
	       uint16_t port)
{
	count_live(np, nat_ports_unit(np, addr, proto, port));
}

int
nat_ports_alloc(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		uint16_t inside_port, nat_tuple_taken_fn taken, void *arg,
		uint16_t *port)
{
	unsigned int i;
	uint16_t p;

	if (nat_ports_mine(np, inside_port) && !taken(inside_port, arg)) {
		p = inside_port;
		goto found;
	}
	if (np->share <= NAT_PORT_TRIES) {
		/* no more ports than tries: each one, so a free one is found */
		for (i = 0; i < np->share; i++) {
			p = (uint16_t)(np->first + i);
			if (!taken(p, arg))
				goto found;
		}
		return -EADDRINUSE;
	}
	for (i = 0; i < NAT_PORT_TRIES; i++) {
		p = draw(np);
		if (!taken(p, arg))
			goto found;
	}
	return -EADDRINUSE;
found:
	count_live(np, nat_ports_unit(np, addr, proto, p));
	*port = p;
	return 0;
}

/* a free port of the class in a share of at most NAT_PORT_TRIES ports, or
 * of the class drawn NAT_PORT_TRIES times; -EADDRINUSE when none was */
static int
steered_pick(const struct nat_ports *np, const struct nat_ports_steer *steer,
	     nat_tuple_taken_fn taken, void *arg, uint16_t *port)
{
	unsigned int i;
	uint16_t p;

	if (np->share <= NAT_PORT_TRIES) {
		for (i = 0; i < np->share; i++) {
			p = (uint16_t)(np->first + i);
			if (fx_rss_class_has(steer->cls, steer->h0, p) && !taken(p, arg)) {
				*port = p;
				return 0;
			}
		}
		return -EADDRINUSE;
	}
	for (i = 0; i < NAT_PORT_TRIES; i++) {
		if (i == 0 && steer->has_first)
			p = steer->first;   /* drawn ahead, from the same class */
		else if (fx_rss_class_draw(steer->cls, steer->h0, &p) != 0)
			break;   /* an empty class */
		if (!taken(p, arg)) {
			*port = p;
			return 0;
		}
	}
	return -EADDRINUSE;
}

int
nat_ports_alloc_steered(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
			uint16_t inside_port, const struct nat_ports_steer *steer,
			nat_tuple_taken_fn taken, void *arg, uint16_t *port,
			bool *missed)
{
	uint16_t p;

	*missed = false;
	if (nat_ports_mine(np, inside_port) &&
	    fx_rss_class_has(steer->cls, steer->h0, inside_port) &&
	    !taken(inside_port, arg))
		p = inside_port;
	else if (steered_pick(np, steer, taken, arg, &p) != 0) {
		if (nat_ports_alloc(np, addr, proto, inside_port, taken, arg, port) != 0)
			return -EADDRINUSE;
		*missed = !fx_rss_class_has(steer->cls, steer->h0, *port);
		return 0;
	}
	count_live(np, nat_ports_unit(np, addr, proto, p));
	*port = p;
	return 0;
}

void
nat_ports_put(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
	      uint16_t port)
{
	struct nat_port_unit *u = nat_ports_unit(np, addr, proto, port);

	RTE_ASSERT(u->live > 0);
	if (--u->live == 0) {
		if (u->held == 0)
			np->nb_free++;
		else
			np->nb_held++;
	}
}

void
nat_ports_hold(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
	       uint16_t port)
{
	struct nat_port_unit *u = nat_ports_unit(np, addr, proto, port);

	RTE_ASSERT(u->live > 0);
	u->held++;
	if (--u->live == 0)
		np->nb_held++;
}

void
nat_ports_release(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		  uint16_t port)
{
	struct nat_port_unit *u = nat_ports_unit(np, addr, proto, port);

	RTE_ASSERT(u->held > 0);
	if (--u->held == 0 && u->live == 0) {
		np->nb_held--;
		np->nb_free++;
	}
}

int
nat_ports_check(const struct nat_ports *np)
{
	const struct nat_port_unit *u;
	uint64_t i, nb_free = 0, nb_held = 0;

	for (i = 0; i < np->units; i++) {
		u = nat_ports_unit_at(np, (uint32_t)i);
		if (u->live != 0)
			continue;
		if (u->held == 0)
			nb_free++;
		else
			nb_held++;
	}
	return nb_free == np->nb_free && nb_held == np->nb_held ? 0 : -EFAULT;
}
