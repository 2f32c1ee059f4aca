/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sweep and drain: the only places entries leave by time.
 *
 * The cursor is the next tick to detach; every tick before it has been
 * detached. A sweep at `now`:
 *
 *   1. applies the remote messages, lanes and shared ring (twheel_remote.c);
 *   2. examines the pending list, newest index first;
 *   3. when pending is empty, detaches the next non-empty bucket among the
 *      elapsed ticks cursor .. tick(now) - 1 into pending (an O(1) list
 *      swap) and goes back to 2; once none is left, the cursor is at
 *      tick(now).
 *
 * Only elapsed ticks are detached, as in the Linux timer wheel: a bucket
 * detached while its tick is running would hold mostly entries not yet
 * due, and a sweep that polls every few microseconds would examine each of
 * them twice. So an entry fires at the first sweep after its tick ends, at
 * most one tick late; an entry whose deadline is already behind the latest
 * sweep's now goes to pending instead and fires at the very next sweep.
 *
 * Examining an entry asks for its current deadline d (deadline_fn, or the
 * stored one). d <= now: a Due record. d > now: the entry is re-filed in
 * the bucket of d, or the cursor's bucket if d's tick was already passed (a
 * revisit). Every message and every entry examined is one unit of work;
 * the sweep stops when the budget is spent, and since the detached bucket
 * stays in pending, the next sweep resumes exactly there. A sweep that
 * spent its whole budget asks, read-only, whether anything is left at this
 * now (pending entries, published messages, an elapsed bucket not yet
 * detached: work_left()), and counts budget_exhausted if so.
 *
 * "Is work left?" for the caller: twheel_sweep_more() and
 * twheel_drain_more() call the plain functions (through hidden aliases, so
 * the call is direct in the shared library too) and report whether the
 * call counted budget_exhausted. The owner is the counter's only writer,
 * so the answer and the count agree by construction, and the plain
 * functions' code is the same as without the variants.
 *
 * Why this is never early: a Due record needs d <= now at that moment.
 * Why nothing is lost: an entry is always in exactly one list, the cursor
 * only passes a tick after detaching its bucket, and a re-filed entry goes
 * to a tick not yet passed. Why lateness is bounded: an entry is filed at
 * tick(d), or, if that tick had already passed (only when now went
 * backwards), at the cursor. When now jumps more than a rotation ahead the
 * cursor jumps to tick(now) - slots: those slots ticks still cover every
 * bucket once, so each waiting entry is examined once, or twice if it is
 * re-filed into a bucket the same pass has yet to reach. When now goes
 * backwards by up to a rotation tick(now) is behind the cursor: nothing is
 * detached and pending entries are only handed back if d <= now.
 *
 * Re-basing: when now goes back by more than a rotation (from the latest
 * now, w->now), waiting for time to catch up would hold every entry filed
 * meanwhile at the cursor, far ahead: after one sweep at UINT64_MAX every
 * later entry would sit in the end-of-time bucket and be revisited at
 * every sweep. Instead the sweep takes now as the wheel's time (w->now) and
 * moves the cursor back to tick(now). Nothing is lost: every entry is in a list,
 * and the cursor reaches every bucket within a rotation; nothing fires
 * early, as ever; an entry filed before at a tick the cursor had passed
 * waits at most a rotation, and what is filed afterwards is on time. A
 * rotation, not less: a clock that steps back a little (two lcores' TSCs,
 * a retried burst) keeps the cheaper wait, without revisiting buckets.
 *
 * The end of time: ticks are capped (TWHEEL_TICK_MAX), and at now ==
 * UINT64_MAX the current tick counts as elapsed, since no deadline can lie
 * beyond it. The cursor then stands at end_tick, whose bucket collects
 * whatever is filed afterwards; each sweep examines it once.
 *
 * Where the cycles go: at a million entries neither chunks, entries nor
 * payloads are in cache. Chunks give the next 14 indices without chasing a
 * pointer, so the sweep runs a prefetch pipeline a chunk per stage
 * (prefetch_ahead()): chunk lines four chunks ahead, entries three ahead,
 * payload lines (read by deadline_fn) two ahead.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "twheel_atomic.h"
#include "twheel_bucket.h"
#include "twheel_id.h"
#include "twheel_layout.h"
#include "twheel_remote.h"
#include "twheel_slab.h"
#include "twheel_time.h"

static inline void
prefetch_chunk_entries(const struct twheel *w, const struct twheel_chunk *c,
		       uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		twheel_entry_prefetch(twheel_entry_at(w, c->ref[i]));
}

/*
 * The prefetch pipeline over the pending list, one stage per chunk: while
 * chunk k is examined, the payloads of chunk k+2 (read by deadline_fn),
 * the entries of chunk k+3 and the line of chunk k+4 are requested, each
 * from lines an earlier stage brought in. A chunk is examined in a few
 * hundred cycles when nothing is lazy, about one memory round trip on
 * these machines, so the entries are asked for three chunks ahead and the
 * payloads two; a sweep waits for memory only while the pipeline fills.
 */
#define SWEEP_AHEAD_PAYLOAD 2
#define SWEEP_AHEAD_ENTRIES 3

/* The chunk k chunks after c (full ones), or NULL. */
static inline const struct twheel_chunk *
chunk_after(const struct twheel *w, const struct twheel_chunk *c, unsigned int k)
{
	while (k-- > 0) {
		if (c->next == TWHEEL_NIL)
			return NULL;
		c = &w->chunks[c->next];
	}
	return c;
}

static inline void
prefetch_payloads(const struct twheel *w, const struct twheel_chunk *c,
		  uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		rte_prefetch0(twheel_entry_at(w, c->ref[i])->payload);
}

static inline void
prefetch_ahead(const struct twheel *w, const struct twheel_chunk *c, bool lazy)
{
	const struct twheel_chunk *p, *e;

	p = chunk_after(w, c, SWEEP_AHEAD_PAYLOAD);
	if (p == NULL)
		return;
	if (lazy)
		prefetch_payloads(w, p, TWHEEL_CHUNK_REFS);
	e = chunk_after(w, p, SWEEP_AHEAD_ENTRIES - SWEEP_AHEAD_PAYLOAD);
	if (e == NULL)
		return;
	prefetch_chunk_entries(w, e, TWHEEL_CHUNK_REFS);
	if (e->next != TWHEEL_NIL)
		rte_prefetch0(&w->chunks[e->next]);
}

/*
 * Fill the pipeline at the start of a sweep: the entries of the head chunk
 * and of the chunks up to k+3, the lines up to k+4, then the payloads of
 * the chunks up to k+2 (the first of them wait for their entries).
 */
static inline void
prefetch_prime(const struct twheel *w, const struct twheel_list *l, bool lazy)
{
	const struct twheel_chunk *c = &w->chunks[l->head], *x = c;
	unsigned int k;

	prefetch_chunk_entries(w, c, l->fill);
	for (k = 1; k <= SWEEP_AHEAD_ENTRIES; k++) {
		x = chunk_after(w, x, 1);
		if (x == NULL)
			break;
		prefetch_chunk_entries(w, x, TWHEEL_CHUNK_REFS);
	}
	if (x != NULL && x->next != TWHEEL_NIL)
		rte_prefetch0(&w->chunks[x->next]);
	if (!lazy)
		return;
	prefetch_payloads(w, c, l->fill);
	for (k = 1, x = c; k <= SWEEP_AHEAD_PAYLOAD; k++) {
		x = chunk_after(w, x, 1);
		if (x == NULL)
			break;
		prefetch_payloads(w, x, TWHEEL_CHUNK_REFS);
	}
}

/* Per-sweep tallies, stored to the shared counters once at the end. */
struct sweep_tally {
	uint64_t due;
	uint64_t revisits;
	uint64_t max_lag;
};

/*
 * Examine n entries popped from pending (batch[], their indices in idx[]):
 * the due ones are handed back to out[] and their slots freed together at
 * the end, the others re-filed. Returns how many were due; *max_lag grows
 * with their lateness. Tallies stay in the caller's locals, which stores
 * to records and entries cannot alias.
 */
static __rte_always_inline uint32_t
examine_batch(struct twheel *w, uint64_t now, struct twheel_entry *const *batch,
	      const uint32_t *idx, uint32_t n, struct twheel_fired *out,
	      uint64_t *max_lag)
{
	const twheel_deadline_fn fn = w->deadline_fn;
	void *const fn_arg = w->deadline_arg;
	const uint32_t salt = w->salt;
	uint32_t freed[TWHEEL_CHUNK_REFS], nfreed = 0, i;
	uint64_t lag = *max_lag;

	for (i = 0; i < n; i++) {
		struct twheel_entry *e = batch[i];
		uint64_t d = fn != NULL ? fn(e->payload, fn_arg) : e->deadline;

		if (d <= now) {
			uint32_t gen = e->gen;

			if (now - d > lag)
				lag = now - d;
			/* leaves: its id goes stale; its slot is freed below */
			e->gen = gen + 1;
			out[nfreed] = (struct twheel_fired){
				.id = twheel_make_id(idx[i], gen, salt),
				.payload = e->payload,
				.deadline = d,
				.reason = TWHEEL_DUE,
			};
			freed[nfreed++] = idx[i];
		} else {
			/*
			 * never into pending: that list is this one. The
			 * stored deadline follows, so the entry stays filed
			 * at or before it (twheel_ops.c, move).
			 */
			e->deadline = d;
			twheel_list_insert(w, twheel_bucket_list_for(w, d),
					   idx[i], e);
		}
	}
	/* the slots of the batch's due entries, in one go */
	for (i = 0; i < nfreed; i++)
		twheel_free_push(w, freed[i]);
	*max_lag = lag;
	return nfreed;
}

/*
 * Examine up to budget entries of the pending list, a batch (a chunk, or
 * what the budget leaves of one) at a time. Returns the work done.
 */
static unsigned int
sweep_pending(struct twheel *w, uint64_t now, unsigned int budget,
	      struct twheel_fired *out, unsigned int *nb_out,
	      struct sweep_tally *tally)
{
	struct twheel_list *l = &w->lists[w->pending];
	struct twheel_entry *batch[TWHEEL_CHUNK_REFS];
	uint32_t batch_idx[TWHEEL_CHUNK_REFS];
	bool lazy = w->deadline_fn != NULL;
	uint64_t due = 0, max_lag = tally->max_lag;
	unsigned int done = 0, nout = *nb_out;
	uint32_t i, n, fill, ndue;

	/* called only with pending non-empty */
	prefetch_prime(w, l, lazy);
	while (done < budget && l->head != TWHEEL_NIL) {
		const struct twheel_chunk *c = &w->chunks[l->head];

		prefetch_ahead(w, c, lazy);
		fill = l->fill;
		n = RTE_MIN(fill, budget - done);
		for (i = 0; i < n; i++) {
			batch_idx[i] = c->ref[fill - 1 - i];
			batch[i] = twheel_entry_at(w, batch_idx[i]);
		}
		/*
		 * Pop the batch before re-filing any of it: an emptied head
		 * chunk goes back to the pool first, so the pool's bound (one
		 * partial chunk per list) holds at every step. batch[] keeps
		 * what the chunk held.
		 */
		l->fill = fill - n;
		if (l->fill == 0)
			twheel_list_drop_head(w, l);
		ndue = examine_batch(w, now, batch, batch_idx, n, out + nout,
				     &max_lag);
		nout += ndue;
		due += ndue;
		done += n;
	}
	tally->due += due;
	tally->revisits += done - due;
	tally->max_lag = max_lag;
	*nb_out = nout;
	return done;
}

/*
 * The next bucket a sweep up to limit would detach: the first non-empty
 * one among the ticks cursor .. limit - 1 (the last rotation of them when
 * the cursor is further behind), or at the end of time its own bucket once
 * per sweep. Read-only: true and its tick in *tick, or false; either way
 * *cursor is where the cursor goes (past the tick, or to limit).
 */
static bool
next_bucket(const struct twheel *w, uint64_t limit, bool end_examined,
	    uint64_t *tick, uint64_t *cursor)
{
	uint64_t from = w->cursor, span;
	int64_t k;

	*cursor = from;
	if (unlikely(from == w->end_tick)) {
		*tick = from;
		return !end_examined &&
			!twheel_list_empty(w, w->bucket_list[from & w->mask]);
	}
	if (from >= limit)
		return false;
	span = limit - from;
	if (span > w->slots) {
		/* more than a rotation behind: one pass over every bucket */
		from = limit - w->slots;
		span = w->slots;
	}
	k = twheel_bucket_find(w, from, span);
	if (k < 0) {
		*cursor = limit;
		return false;
	}
	*tick = from + (uint64_t)k;
	*cursor = *tick + 1;
	return true;
}

/* Detach the next bucket into pending; false when there is none. */
static bool
advance_cursor(struct twheel *w, uint64_t limit, bool *end_examined)
{
	uint64_t t = 0, c;
	bool found = next_bucket(w, limit, *end_examined, &t, &c);

	if (unlikely(found && w->cursor == w->end_tick))
		*end_examined = true;
	w->cursor = c;
	if (found)
		twheel_bucket_detach(w, (uint32_t)(t & w->mask));
	return found;
}

/* Is there work a sweep up to limit would still do? (read-only) */
static bool
work_left(const struct twheel *w, uint64_t limit, bool end_examined)
{
	uint64_t t, c;

	return !twheel_list_empty(w, w->pending) ||
		twheel_remote_pending(w) ||
		next_bucket(w, limit, end_examined, &t, &c);
}

unsigned int
twheel_sweep(struct twheel *w, uint64_t now, unsigned int budget,
	     struct twheel_fired *out)
{
	struct sweep_tally tally = { 0, 0, w->st.max_lag_cycles };
	unsigned int work = 0, nout = 0;
	bool end_examined = false;
	uint64_t limit;

	TWHEEL_STAT_ADD(w, sweeps, 1);
	if (unlikely(budget == 0))
		return 0;
	if (w->nb_chan != 0 && twheel_remote_pending(w))
		work = twheel_remote_apply(w, budget, out, &nout);
	if (now > w->now) {
		w->now = now;
	} else if (unlikely(w->now - now > w->rotation_cycles)) {
		/* back by more than a rotation: time starts again from here */
		w->now = now;
		w->cursor = twheel_tick(w, now);
	}
	/* only elapsed ticks; at now == UINT64_MAX nothing can be later */
	limit = twheel_tick(w, now) + (now == UINT64_MAX);

	while (work < budget) {
		if (!twheel_list_empty(w, w->pending))
			work += sweep_pending(w, now, budget - work, out, &nout,
					      &tally);
		else if (!advance_cursor(w, limit, &end_examined))
			break;
	}

	if (tally.due != 0) {
		TWHEEL_STAT_ADD(w, due, tally.due);
		TWHEEL_STAT_SUB(w, live, tally.due);
		if (tally.max_lag > w->st.max_lag_cycles)
			twheel_atomic_store(&w->st.max_lag_cycles, tally.max_lag);
	}
	if (tally.revisits != 0)
		TWHEEL_STAT_ADD(w, revisits, tally.revisits);
	if (work == budget && work_left(w, limit, end_examined))
		TWHEEL_STAT_ADD(w, budget_exhausted, 1);
	return nout;
}

/*
 * Drain: messages first, as in a sweep, then the pending list and the
 * buckets in order. Each message and each entry handed back is one unit of
 * the budget, as in a sweep; a message may write no record (an adoption, a
 * stale cancel), so a call can end at its budget with no record written:
 * it is counted in budget_exhausted like a sweep cut short.
 */
unsigned int
twheel_drain(struct twheel *w, unsigned int budget, struct twheel_fired *out)
{
	unsigned int nout = 0, work = 0;
	struct twheel_entry *e;
	uint32_t list, b, idx;

	if (w->nb_chan != 0 && twheel_remote_pending(w))
		work = twheel_remote_apply(w, budget, out, &nout);

	list = w->pending;
	b = 0;
	while (work < budget) {
		if (twheel_list_empty(w, list)) {
			int64_t k = b < w->slots ?
				twheel_bucket_find(w, b, w->slots - b) : -1;

			if (k < 0)
				break;
			b += (uint32_t)k;
			list = w->bucket_list[b];
			b++;
			continue;
		}
		/* the list's last index: unlinking it moves nothing */
		idx = w->chunks[w->lists[list].head].ref[w->lists[list].fill - 1];
		e = twheel_entry_at(w, idx);
		twheel_entry_cancel(w, idx, e, &out[nout++]);
		work++;
	}
	if (work == budget && budget != 0 && (w->st.live != 0 ||
	    twheel_remote_pending(w)))
		TWHEEL_STAT_ADD(w, budget_exhausted, 1);
	return nout;
}

/*
 * The plain functions under names of the library's own: a call through
 * them binds inside the library, where one through the exported name
 * would go through the PLT (the exported name may be interposed).
 */
extern __typeof__(twheel_sweep) twheel_sweep_internal
	__attribute__((alias("twheel_sweep"), visibility("hidden")));
extern __typeof__(twheel_drain) twheel_drain_internal
	__attribute__((alias("twheel_drain"), visibility("hidden")));

unsigned int
twheel_sweep_more(struct twheel *w, uint64_t now, unsigned int budget,
		  struct twheel_fired *out, bool *more)
{
	uint64_t exhausted = w->st.budget_exhausted;
	unsigned int n = twheel_sweep_internal(w, now, budget, out);

	if (more != NULL)
		*more = w->st.budget_exhausted != exhausted;
	return n;
}

unsigned int
twheel_drain_more(struct twheel *w, unsigned int budget,
		  struct twheel_fired *out, bool *more)
{
	uint64_t exhausted = w->st.budget_exhausted;
	unsigned int n = twheel_drain_internal(w, budget, out);

	if (more != NULL)
		*more = w->st.budget_exhausted != exhausted;
	return n;
}
