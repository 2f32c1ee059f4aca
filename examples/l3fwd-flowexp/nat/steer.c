/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Steered port choice (nat/steer.h has the design): a worker's class, built
 * once, and the allocation of a new mapping's port through it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_malloc.h>

#include "base/counter.h"
#include "base/toeplitz.h"
#include "nat/block.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/priv.h"
#include "nat/steer.h"
#include "nat/table.h"

/* the entropy of a draw at its smallest and largest class, over every
 * context (h0's table index bits) */
static void
steer_bits(struct nat_steer *st)
{
	uint32_t c;
	double b;

	st->bits_min = 64;
	st->bits_max = -1;
	for (c = 0; c <= st->space.mask; c++) {
		b = fx_rss_class_bits(&st->cls, c);
		st->bits_min = RTE_MIN(st->bits_min, b);
		st->bits_max = RTE_MAX(st->bits_max, b);
	}
}

int
fx_nat_steer_init(struct fx_nat *nt, const struct nat_steer_conf *c, int socket)
{
	uint16_t *mine;
	struct nat_steer *st;
	unsigned int i;
	int rc;

	if (c->reta_size == 0 || c->reta_size > FX_TOEPLITZ_RETA_MAX)
		return -EINVAL;
	st = rte_zmalloc_socket("nat_steer", sizeof(*st), RTE_CACHE_LINE_SIZE, socket);
	mine = rte_malloc_socket("nat_steer_reta", c->reta_size * sizeof(*mine), 0, socket);
	if (st == NULL || mine == NULL) {
		rte_free(st);
		rte_free(mine);
		return -ENOMEM;
	}
	/* the class wants "queue" 1: the entries this worker owns */
	for (i = 0; i < c->reta_size; i++)
		mine[i] = c->owner[i] == nt->self;
	rc = fx_rss_space_init(&st->space, c->key, c->key_len, false, c->reta_size,
			       nt->ports.first, nt->ports.last);
	if (rc == 0)
		rc = fx_rss_class_init(&st->cls, &st->space, mine, UINT64_C(1) << 1);
	rte_free(mine);
	if (rc != 0) {
		rte_free(st);
		return rc;
	}
	for (i = 0; i < NAT_PROTO_MAX; i++)
		st->proto[i] = c->proto[i];
	steer_bits(st);
	nt->steer = st;
	return 0;
}

void
fx_nat_steer_fini(struct fx_nat *nt)
{
	rte_free(nt->steer);
	nt->steer = NULL;
}

/* the hash of the reply to public port 0 (addresses and port in network
 * order) */
static inline uint32_t
reply_h0(const struct nat_steer *st, uint32_t rem_addr, uint16_t rem_port, uint32_t pub_addr)
{
	return fx_rss_space_h0_v4(&st->space, rte_be_to_cpu_32(rem_addr),
				  rte_be_to_cpu_16(rem_port), rte_be_to_cpu_32(pub_addr));
}

bool
nat_steer_ahead(const struct fx_nat *nt, const struct nat_key *k, uint32_t pub_addr,
		struct nat_miss *miss, uint16_t *port)
{
	const struct nat_steer *st = nt->steer;
	struct nat_ports_steer *ps = &miss->steer;
	uint16_t in_port = rte_be_to_cpu_16(k->sport);

	if (st == NULL || !st->proto[nat_proto_class(k->proto)])
		return false;
	ps->cls = &st->cls;
	ps->h0 = reply_h0(st, k->dst, k->dport, pub_addr);
	ps->has_first = false;
	if (nat_ports_mine(&nt->ports, in_port) && fx_rss_class_has(ps->cls, ps->h0, in_port)) {
		*port = in_port;
		return true;
	}
	if (fx_rss_class_draw(ps->cls, ps->h0, &ps->first) == 0) {
		ps->has_first = true;
		*port = ps->first;
		return true;
	}
	return false;   /* an empty class: the allocator falls back */
}

/* the steering of new mapping tmpl of class pc: the prefetch's where it
 * worked it out (nt->steer_ahead), else made here into *ps; NULL where
 * tmpl is not steered */
static const struct nat_ports_steer *
steer_of(struct fx_nat *nt, const struct nat_mapping *tmpl, enum nat_proto pc,
	 struct nat_ports_steer *ps)
{
	const struct nat_ports_steer *ahead = nt->steer_ahead;
	const struct nat_steer *st = nt->steer;

	nt->steer_ahead = NULL;
	if (st == NULL || !st->proto[pc])
		return NULL;
	if (ahead != NULL)
		return ahead;
	ps->cls = &st->cls;
	ps->h0 = reply_h0(st, tmpl->rem_addr, tmpl->rem_port, tmpl->pub_addr);
	ps->has_first = false;
	return ps;
}

static void
steer_count(struct fx_nat *nt, bool missed)
{
	if (missed)
		FX_STAT_ADD(&nt->st, nat_steer_missed, 1);
	else
		FX_STAT_ADD(&nt->st, nat_steered, 1);
}

int
nat_steer_alloc(struct fx_nat *nt, const struct nat_mapping *tmpl, enum nat_proto pc,
		nat_tuple_taken_fn taken, void *arg, uint16_t *port)
{
	uint16_t in_port = rte_be_to_cpu_16(tmpl->in_port);
	const struct nat_ports_steer *ps;
	struct nat_ports_steer buf;
	bool missed;

	ps = steer_of(nt, tmpl, pc, &buf);
	if (ps == NULL)
		return nat_ports_alloc(&nt->ports, tmpl->pool_idx, pc, in_port, taken, arg,
				       port) != 0 ? -EADDRINUSE : 0;
	if (nat_ports_alloc_steered(&nt->ports, tmpl->pool_idx, pc, in_port, ps, taken,
				    arg, port, &missed) != 0)
		return -EADDRINUSE;
	steer_count(nt, missed);
	return 0;
}

int
nat_steer_block_port(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
		     enum nat_proto pc, nat_tuple_taken_fn taken, void *arg, uint16_t *port,
		     enum nat_log_refusal *why)
{
	const struct nat_ports_steer *ps;
	struct nat_ports_steer buf;
	int rc;

	ps = steer_of(nt, tmpl, pc, &buf);
	rc = nat_block_port(nt, now, tmpl->in_addr, tmpl->pool_idx, pc,
			    rte_be_to_cpu_16(tmpl->in_port), ps, taken, arg, port, why);
	if (rc == 0 && ps != NULL)
		steer_count(nt, !fx_rss_class_has(ps->cls, ps->h0, *port));
	return rc;
}
