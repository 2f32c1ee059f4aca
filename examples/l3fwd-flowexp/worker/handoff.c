/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Handoff rings between workers (see worker/handoff.h for the design): set-up,
 * the sender's dispatch, teardown.
 */

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "worker/handoff.h"

static void drop(struct fx_handoff *h, struct rte_mbuf **m, unsigned int n);

int
fx_handoff_init(struct fx_handoff *const *h, const int *socket,
		unsigned int nb_workers)
{
	uint32_t size = fx_handoff_ring_size(nb_workers);
	struct fx_ho_ring *r;
	unsigned int s, o;
	size_t ptrs = sizeof(struct fx_ho_ring *) * nb_workers;

	for (o = 0; o < nb_workers; o++) {
		h[o]->self = (uint16_t)o;
		h[o]->nb_workers = (uint16_t)nb_workers;
		h[o]->in = rte_zmalloc_socket("fx_ho_in", ptrs, 0, socket[o]);
		h[o]->out = rte_zmalloc_socket("fx_ho_out", ptrs, 0, socket[o]);
		h[o]->buf = rte_zmalloc_socket("fx_ho_buf",
				sizeof(struct fx_ho_buf) * nb_workers,
				RTE_CACHE_LINE_SIZE, socket[o]);
		if (h[o]->in == NULL || h[o]->out == NULL || h[o]->buf == NULL)
			return -ENOMEM;
	}
	for (s = 0; s < nb_workers; s++) {
		for (o = 0; o < nb_workers; o++) {
			if (s == o)
				continue;
			r = fx_ho_ring_create(size, socket[o]);
			if (r == NULL)
				return -(rte_errno ? rte_errno : ENOMEM);
			h[s]->out[o] = r;
			h[o]->in[s] = r;
		}
	}
	return 0;
}

void
fx_handoff_fini(struct fx_handoff *const *h, unsigned int nb_workers)
{
	struct rte_mbuf *m[FX_HANDOFF_BURST];
	unsigned int o, s, n;

	for (o = 0; o < nb_workers; o++) {
		if (h[o]->in == NULL)
			continue;
		for (s = 0; s < nb_workers; s++) {
			if (h[o]->in[s] == NULL)
				continue;
			while ((n = fx_ho_ring_dequeue(h[o]->in[s], (void **)m,
						       RTE_DIM(m))) != 0)
				drop(h[o], m, n);
			fx_ho_ring_free(h[o]->in[s]);
		}
	}
	for (o = 0; o < nb_workers; o++) {
		rte_free(h[o]->in);
		rte_free(h[o]->out);
		rte_free(h[o]->buf);
		h[o]->in = h[o]->out = NULL;
		h[o]->buf = NULL;
	}
}

/* Count packets lost to a full ring (or left at exit) and free them. */
static void
drop(struct fx_handoff *h, struct rte_mbuf **m, unsigned int n)
{
	unsigned int i;

	FX_STAT_ADD(&h->st, dropped, n);
	for (i = 0; i < n; i++)
		FX_STAT_ADD(&h->st, dropped_port[m[i]->port], 1);
	rte_pktmbuf_free_bulk(m, n);
}

void
fx_handoff_flush_owner(struct fx_handoff *h, uint16_t o)
{
	struct fx_ho_buf *b = &h->buf[o];
	unsigned int sent;

	sent = fx_ho_ring_enqueue(h->out[o], (void **)b->m, b->n);
	FX_STAT_ADD(&h->st, handed_off, sent);
	FX_STAT_ADD(&h->st, sends, 1);
	if (unlikely(sent < b->n))
		drop(h, &b->m[sent], b->n - sent);
	b->n = 0;
}

void
fx_handoff_flush(struct fx_handoff *h)
{
	uint64_t pending = h->pending;
	uint16_t o;

	h->pending = 0;
	if (h->nb_workers <= 64) {
		while (pending != 0) {
			o = (uint16_t)rte_bsf64(pending);
			pending &= pending - 1;
			if (h->buf[o].n != 0)
				fx_handoff_flush_owner(h, o);
		}
	} else {
		for (o = 0; o < h->nb_workers; o++)
			if (h->buf[o].n != 0)
				fx_handoff_flush_owner(h, o);
	}
}

uint16_t
fx_handoff_dispatch(struct fx_handoff *h, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, kept = 0, o;

	for (i = 0; i < n; i++) {
		o = fx_pkt_of(pkts[i])->owner;
		if (o == h->self)
			pkts[kept++] = pkts[i];
		else
			fx_handoff_send(h, o, pkts[i]);
	}
	if (kept != n)
		fx_handoff_flush(h);
	return kept;
}

uint16_t
fx_handoff_verdicts(struct fx_handoff *h, struct rte_mbuf **pkts, uint16_t *next,
		    uint16_t n)
{
	uint16_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (next[i] == FX_VERDICT_HANDOFF) {
			fx_handoff_send(h, fx_pkt_of(pkts[i])->owner, pkts[i]);
			continue;
		}
		pkts[kept] = pkts[i];
		next[kept++] = next[i];
	}
	if (kept != n)
		fx_handoff_flush(h);
	return kept;
}
