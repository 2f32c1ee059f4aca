/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * --table-full evict: when a new flow finds the table full, the oldest
 * flow of the lcore that never got an answer makes room for it, as
 * conntrack's early drop does and VPP's reuse of its oldest session; a
 * SYN flood or a scan then cannot lock new connections out for the
 * one-way timeout.
 *
 * The candidates are kept in creation order in a FIFO of (slot, flow id),
 * one entry per flow created or reopened, allocated at start-up
 * (capacity: --max-flows rounded up to a power of two, 16 bytes each). A
 * pick takes entries from the head: an entry whose slot no longer holds
 * that flow id (the flow left) or whose flow was answered is discarded on
 * the way, and the first live unanswered flow is the victim. At most
 * FX_EVICT_SCAN entries are looked at per insert, so the work per packet
 * is bounded; as every entry is taken once, the total is one entry per
 * flow created. If the bound is reached without a victim the insert fails
 * as with drop (counted in evict_miss and table_full). When the FIFO is
 * full the oldest entry is forgotten to make room (it is then no longer a
 * candidate).
 */

#ifndef _FX_EVICT_H_
#define _FX_EVICT_H_

#include <stdint.h>

#include "flow/table.h"

#define FX_EVICT_SCAN 32u   /**< FIFO entries looked at per insert, at most */

struct fx_evict_ent {
	uint64_t expiry_id;
	uint32_t slot;
	uint32_t pad;
};

struct fx_evict {
	struct fx_evict_ent *q;    /**< NULL unless --table-full evict */
	uint32_t mask;
	uint32_t head;             /**< oldest entry */
	uint32_t tail;             /**< next free */
};

/** Allocate the FIFO for a table of capacity flows. 0 or -ENOMEM. */
int fx_evict_init(struct fx_evict *e, uint32_t capacity, int socket);
void fx_evict_fini(struct fx_evict *e);

/** Remember a flow that was created or reopened (owner). */
static inline void
fx_evict_note(struct fx_evict *e, const struct fx_flow_table *ft,
	      const struct fx_flow *f, uint64_t expiry_id)
{
	struct fx_evict_ent *x;

	if (e->q == NULL)
		return;
	if (e->tail - e->head > e->mask)
		e->head++;   /* full: forget the oldest */
	x = &e->q[e->tail++ & e->mask];
	x->expiry_id = expiry_id;
	x->slot = ft_slot(ft, f);
}

/**
 * The oldest live flow that was never answered, looking at no more than
 * FX_EVICT_SCAN entries; NULL if there is none within that bound.
 */
struct fx_flow *fx_evict_pick(struct fx_evict *e, struct fx_flow_table *ft);

#endif /* _FX_EVICT_H_ */
