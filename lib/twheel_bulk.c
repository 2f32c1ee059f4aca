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
 *   1. the line of each entry that holds its deadline, generation and link;
 *   2. which ids will be unlinked (live; for a move, an earlier deadline):
 *      their chunks and, for moves, the list each goes to;
 *   3. the head chunks of the lists they leave and enter;
 *   4. the entries whose index fills the hole (the lists' last indices);
 *
 * and only then apply the single operation to each id in order. The
 * stages read but never write, and the operations see whatever state the
 * earlier ones in the burst left (they check the id and derive the entry's
 * list anew), so a burst behaves exactly as the same calls one after the
 * other, duplicates and stale ids included; the prefetches are hints that
 * may come too early to matter for an entry a previous operation of the
 * same burst moved. Only the destination list computed in stage 2 is
 * handed to the operation: it depends on the deadline and the wheel's
 * clock, which no cancel or move changes.
 *
 * Work matters as much as misses: with random re-arms, "earlier or later"
 * is a coin toss, and a branch on it in every stage mispredicts half the
 * time. Stage 2 makes the choice once, without a branch, into a list of
 * the ids to unlink, and stages 3 and 4 walk that list only. The moves of
 * a group whose ids name distinct entries (a filter in stage 2 says so)
 * skip the branch in the apply step too: a move changes neither which ids
 * are live nor another entry's deadline, so stage 2's choice holds, and
 * the group's deadlines are stored first and its picked entries re-filed
 * after, in order, which leaves the wheel as the moves in order do
 * (apply_moves()). A group with a repeated entry, and every cancel, takes
 * the single operations in order.
 *
 * A move and a cancel touch an entry's deadline, generation and link,
 * never its payload: stage 1 fetches the line that holds those three (an
 * entry at stride 48 that straddles two lines keeps only its payload in
 * the first).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "twheel_bucket.h"
#include "twheel_id.h"
#include "twheel_layout.h"
#include "twheel_slab.h"

/* The burst is walked in groups small enough for the lines to stay in L1. */
#define TWHEEL_BULK_GROUP 32
/* bits of the filter that spots ids naming the same entry in a group */
#define TWHEEL_BULK_SEEN_SHIFT 12
#define TWHEEL_BULK_SEEN_BITS (1u << TWHEEL_BULK_SEEN_SHIFT)

/* Stage 1: the line of a (possibly) live entry's deadline, gen and link. */
static inline void
stage_entry(const struct twheel *w, twheel_id_t id)
{
	uint32_t idx = (uint32_t)id;
	const struct twheel_entry *e;

	if (unlikely(idx >= w->capacity))
		return;
	e = twheel_entry_at(w, idx);
	rte_prefetch0(&e->deadline);
	rte_prefetch0(&e->link);
}

/* The list a live entry is filed in. */
static inline const struct twheel_list *
entry_list(const struct twheel *w, const struct twheel_entry *e)
{
	return &w->lists[twheel_entry_chunk(w, e)->list];
}

/*
 * A group's stage 2 outcome: each id's live entry (or NULL) and
 * destination list, the ids that will be unlinked, and whether two ids
 * may name the same entry.
 */
struct bulk_group {
	struct twheel_entry *e[TWHEEL_BULK_GROUP];
	uint32_t to[TWHEEL_BULK_GROUP];
	uint8_t sel[TWHEEL_BULK_GROUP];
	unsigned int m;
	uint64_t seen[TWHEEL_BULK_SEEN_BITS / 64];
	uint64_t dup;
};

/*
 * Stages 2 to 4 for a group of k ids. Stage 2 picks the ids that will be
 * unlinked (live, and for a move an earlier deadline) into sel[] without a
 * branch on that test, which is a coin toss for random re-arms; stages 3
 * and 4 then walk sel[] only. It also sets dup when two ids hash to the
 * same bit of seen[] (so maybe name the same entry).
 */
static void
stage_chains(const struct twheel *w, const twheel_id_t *ids,
	     const uint64_t *deadlines, unsigned int k, struct bulk_group *bg)
{
	const struct twheel_list *l;
	unsigned int i, j, m = 0;
	struct twheel_entry *e;
	uint32_t h;

	bg->dup = 0;
	/* only moves use the filter (apply_moves()) */
	if (deadlines != NULL) {
		memset(bg->seen, 0, sizeof(bg->seen));
		for (i = 0; i < k; i++) {
			h = ((uint32_t)ids[i] * UINT32_C(0x9e3779b1)) >>
				(32 - TWHEEL_BULK_SEEN_SHIFT);
			bg->dup |= bg->seen[h / 64] >> (h % 64);
			bg->seen[h / 64] |= UINT64_C(1) << (h % 64);
		}
	}
	for (i = 0; i < k; i++) {
		bg->to[i] = TWHEEL_NIL;
		e = bg->e[i] = twheel_entry_of_id(w, ids[i]);
		bg->sel[m] = (uint8_t)i;
		m += e != NULL &&
			(deadlines == NULL || deadlines[i] < e->deadline);
	}
	bg->dup &= 1;
	bg->m = m;
	for (j = 0; j < m; j++) {
		i = bg->sel[j];
		rte_prefetch0(twheel_entry_chunk(w, bg->e[i]));
		if (deadlines != NULL) {
			bg->to[i] = twheel_list_for(w, deadlines[i]);
			rte_prefetch0(&w->lists[bg->to[i]]);
		}
	}
	for (j = 0; j < m; j++) {
		i = bg->sel[j];
		/* the entry's own list holds it, so it has a head chunk */
		rte_prefetch0(&w->chunks[entry_list(w, bg->e[i])->head]);
		if (deadlines != NULL && w->lists[bg->to[i]].head != TWHEEL_NIL)
			rte_prefetch0(&w->chunks[w->lists[bg->to[i]].head]);
	}
	for (j = 0; j < m; j++) {
		l = entry_list(w, bg->e[bg->sel[j]]);
		rte_prefetch0(&twheel_entry_at(w,
			w->chunks[l->head].ref[l->fill - 1])->link);
	}
}

/*
 * Moves of a group in which no two ids name the same entry. A move never
 * changes which ids are live, and a move of one entry never changes
 * another's deadline, so stage 2's outcome still holds for every id, and
 * the deadline stores commute with the re-filing of other entries (which
 * may rewrite an entry's link, never its deadline). Storing every deadline
 * first, then re-filing the picked entries in order, leaves the wheel
 * exactly as the moves in order do, without a branch on "earlier" per id.
 */
static unsigned int
apply_moves(struct twheel *w, const twheel_id_t *ids,
	    const uint64_t *deadlines, unsigned int k,
	    const struct bulk_group *bg, int *rc)
{
	struct twheel_entry *e;
	unsigned int i, j, done = 0;

	for (i = 0; i < k; i++) {
		e = bg->e[i];
		if (likely(e != NULL))
			e->deadline = deadlines[i];
		if (rc != NULL)
			rc[i] = e != NULL ? 0 : -ENOENT;
		done += e != NULL;
	}
	for (j = 0; j < bg->m; j++) {
		i = bg->sel[j];
		e = bg->e[i];
		/* same list: rewriting the deadline was all it took */
		if (twheel_entry_chunk(w, e)->list != bg->to[i]) {
			twheel_list_remove(w, e);
			twheel_list_insert(w, bg->to[i], (uint32_t)ids[i], e);
		}
	}
	return done;
}

static unsigned int
bulk(struct twheel *w, const twheel_id_t *ids, const uint64_t *deadlines,
     unsigned int n, int *rc)
{
	struct bulk_group bg;
	struct twheel_entry *e;
	unsigned int done = 0, g, i, k;
	int ret;

	/* sel[] holds positions in a group */
	RTE_BUILD_BUG_ON(TWHEEL_BULK_GROUP > UINT8_MAX + 1);
	for (g = 0; g < n; g += TWHEEL_BULK_GROUP) {
		k = RTE_MIN(n - g, (unsigned int)TWHEEL_BULK_GROUP);
		for (i = 0; i < k; i++)
			stage_entry(w, ids[g + i]);
		stage_chains(w, ids + g, deadlines != NULL ? deadlines + g : NULL,
			     k, &bg);
		if (deadlines != NULL && bg.dup == 0) {
			done += apply_moves(w, ids + g, deadlines + g, k, &bg,
					    rc != NULL ? rc + g : NULL);
			continue;
		}
		/* the single operations, in order, on the state they find */
		for (i = 0; i < k; i++) {
			e = twheel_entry_of_id(w, ids[g + i]);
			ret = 0;
			if (unlikely(e == NULL))
				ret = -ENOENT;
			else if (deadlines != NULL)
				twheel_entry_move(w, (uint32_t)ids[g + i], e,
						  deadlines[g + i], bg.to[i]);
			else
				twheel_entry_cancel(w, (uint32_t)ids[g + i], e, NULL);
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
