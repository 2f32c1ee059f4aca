/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Bulk cancel and move: the single operations, in order, with the cache
 * misses of a burst overlapped.
 *
 * At a million entries one twheel_move() to an earlier deadline is a chain
 * of dependent misses: the entry (its generation and link), then its chunk
 * (to find its list), then the list's head chunk and the entry whose index
 * fills the hole. One operation waits for each in turn. A flow table works
 * a burst of packets at a time, so these functions walk the burst in
 * stages, each issuing the prefetches of one link of the chain for every
 * id, from lines the previous stage brought in:
 *
 *   1. the entries;
 *   2. for entries that will be unlinked: their chunks; for moves, the
 *      list the entry goes to;
 *   3. the head chunks of the lists they leave and enter;
 *   4. the entries whose index fills the hole (the lists' last indices);
 *
 * and only then apply twheel_cancel()/twheel_move() to each id in order.
 * The stages read but never write, and the operations see whatever state
 * the earlier ones in the burst left, so a burst behaves exactly as the
 * same calls one after the other, duplicates and stale ids included; the
 * prefetches are hints that may come too early to matter for an entry a
 * previous operation of the same burst moved.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "twheel_private.h"
#include "twheel_bucket.h"

/* The burst is walked in groups small enough for the lines to stay in L1. */
#define TWHEEL_BULK_GROUP 32

static inline void
prefetch_entry_lines(const struct twheel *w, twheel_id_t id)
{
	uint32_t idx = (uint32_t)id;

	if (likely(idx < w->capacity))
		twheel_entry_prefetch(twheel_entry_at(w, idx));
}

/*
 * Stages 2 to 4 for one group. relink[i] says whether id i will leave its
 * list (cancel: when live; move: when live and the deadline is earlier).
 */
static void
prefetch_chains(const struct twheel *w, const twheel_id_t *ids,
		const uint64_t *deadlines, unsigned int n)
{
	const struct twheel_entry *e[TWHEEL_BULK_GROUP];
	uint32_t to[TWHEEL_BULK_GROUP];
	unsigned int i;

	for (i = 0; i < n; i++) {
		e[i] = twheel_entry_of_id(w, ids[i]);
		if (e[i] != NULL && deadlines != NULL &&
		    deadlines[i] >= e[i]->deadline)
			e[i] = NULL;               /* a later move only stores */
		if (e[i] == NULL)
			continue;
		rte_prefetch0(twheel_entry_chunk(w, e[i]));
		if (deadlines != NULL) {
			to[i] = twheel_list_for(w, deadlines[i]);
			rte_prefetch0(&w->lists[to[i]]);
		}
	}
	for (i = 0; i < n; i++) {
		const struct twheel_list *l;

		if (e[i] == NULL)
			continue;
		/* the entry's own list holds it, so it has a head chunk */
		l = &w->lists[twheel_entry_chunk(w, e[i])->list];
		rte_prefetch0(&w->chunks[l->head]);
		if (deadlines != NULL && w->lists[to[i]].head != TWHEEL_NIL)
			rte_prefetch0(&w->chunks[w->lists[to[i]].head]);
	}
	for (i = 0; i < n; i++) {
		const struct twheel_list *l;

		if (e[i] == NULL)
			continue;
		l = &w->lists[twheel_entry_chunk(w, e[i])->list];
		prefetch_entry_lines(w, w->chunks[l->head].ref[l->fill - 1]);
	}
}

static unsigned int
bulk(struct twheel *w, const twheel_id_t *ids, const uint64_t *deadlines,
     unsigned int n, int *rc)
{
	unsigned int done = 0, g, i, k;
	int ret;

	for (g = 0; g < n; g += TWHEEL_BULK_GROUP) {
		k = RTE_MIN(n - g, (unsigned int)TWHEEL_BULK_GROUP);
		for (i = 0; i < k; i++)
			prefetch_entry_lines(w, ids[g + i]);
		prefetch_chains(w, ids + g, deadlines != NULL ? deadlines + g : NULL, k);
		for (i = 0; i < k; i++) {
			ret = deadlines != NULL ?
				twheel_move(w, ids[g + i], deadlines[g + i]) :
				twheel_cancel(w, ids[g + i]);
			if (rc != NULL)
				rc[g + i] = ret;
			done += ret == 0;
		}
	}
	return done;
}

unsigned int
twheel_cancel_bulk(struct twheel *w, const twheel_id_t *ids, unsigned int n,
		   int *rc)
{
	return bulk(w, ids, NULL, n, rc);
}

unsigned int
twheel_move_bulk(struct twheel *w, const twheel_id_t *ids,
		 const uint64_t *deadlines, unsigned int n, int *rc)
{
	unsigned int i;

	/* bulk() reads "no deadlines" as cancel: refuse it here */
	if (unlikely(deadlines == NULL)) {
		for (i = 0; rc != NULL && i < n; i++)
			rc[i] = -EINVAL;
		return 0;
	}
	return bulk(w, ids, deadlines, n, rc);
}
