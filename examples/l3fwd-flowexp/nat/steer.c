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

/* whether the hint was worked out for tmpl's reply */
static inline bool
hint_serves(const struct nat_ports_hint *h, const struct nat_mapping *tmpl)
{
	return h->valid && h->rem_addr == tmpl->rem_addr && h->rem_port == tmpl->rem_port &&
		h->pub_addr == tmpl->pub_addr;
}

void
nat_steer_hint(struct fx_nat *nt, const struct nat_miss *miss, const struct nat_key *k,
	       uint32_t pub_addr)
{
	struct nat_ports_hint *h = &nt->steer_hint;

	h->valid = miss->steer_known;
	h->has_first = miss->steer_drawn;
	h->h0 = miss->steer_h0;
	h->first = miss->steer_port;
	h->rem_addr = k->dst;
	h->rem_port = k->dport;
	h->pub_addr = pub_addr;
}

bool
nat_steer_ahead(const struct fx_nat *nt, const struct nat_key *k, uint32_t pub_addr,
		struct nat_miss *miss, uint16_t *port)
{
	const struct nat_steer *st = nt->steer;
	uint16_t in_port = rte_be_to_cpu_16(k->sport);
	uint32_t h0;

	if (st == NULL || !st->proto[nat_proto_class(k->proto)])
		return false;
	h0 = fx_rss_space_h0_v4(&st->space, rte_be_to_cpu_32(k->dst),
				rte_be_to_cpu_16(k->dport), rte_be_to_cpu_32(pub_addr));
	miss->steer_h0 = h0;
	miss->steer_known = 1;
	if (nat_ports_mine(&nt->ports, in_port) && fx_rss_class_has(&st->cls, h0, in_port)) {
		*port = in_port;
		return true;
	}
	if (fx_rss_class_draw(&st->cls, h0, &miss->steer_port) == 0) {
		miss->steer_drawn = 1;
		*port = miss->steer_port;
		return true;
	}
	return false;   /* an empty class: the allocator falls back */
}

/* the steering of new mapping tmpl of class pc into *ps (its h0 from the
 * hint where that is for its reply), or NULL where it is not steered */
static const struct nat_ports_steer *
steer_of(struct fx_nat *nt, const struct nat_mapping *tmpl, enum nat_proto pc,
	 struct nat_ports_steer *ps)
{
	const struct nat_steer *st = nt->steer;
	bool hinted = hint_serves(&nt->steer_hint, tmpl);

	nt->steer_hint.valid = false;
	if (st == NULL || !st->proto[pc])
		return NULL;
	/* the reply: from the remote endpoint to the public address */
	ps->cls = &st->cls;
	ps->has_first = hinted && nt->steer_hint.has_first;
	ps->first = nt->steer_hint.first;
	ps->h0 = hinted ? nt->steer_hint.h0 :
		fx_rss_space_h0_v4(&st->space, rte_be_to_cpu_32(tmpl->rem_addr),
				   rte_be_to_cpu_16(tmpl->rem_port),
				   rte_be_to_cpu_32(tmpl->pub_addr));
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
