/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A reference model of a wheel, run in lock step with a real one.
 *
 * The model is deliberately plain: a set of live items with their current
 * deadlines and ids, and the counters the wheel should report. Each step
 * applies one operation to both and compares everything observable: return
 * values and rte_errno, every record a sweep or drain hands back, and the
 * statistics. It checks the invariants of doc/guide.md at every step:
 *
 *   1 never early      each Due record's deadline (as the payload reports it
 *                      at that moment) is <= now;
 *   2 exactly once     a record names a live item with its current id, and
 *                      the item leaves; at the end, drain returns the rest;
 *   3 lateness         after a sweep that finished within its budget, no
 *                      live item's deadline lies in an elapsed tick (not
 *                      checked until time has passed its previous maximum
 *                      again after going backwards; after going back by
 *                      more than a rotation, which re-bases the wheel
 *                      there, checked again once time has moved a
 *                      rotation on from the new now);
 *   4 bounded work     records + revisits <= budget; a sweep that did less
 *                      work than its budget must not count budget_exhausted,
 *                      and one that does not count it has finished (the
 *                      channels empty, nothing due left: the lateness check);
 *                      *more of twheel_sweep_more() and twheel_drain_more()
 *                      is true exactly when the call counted it;
 *   5 stale ids        cancel/move of dead or forged ids return -ENOENT and
 *                      change no statistic;
 *   6 capacity         schedule at capacity fails with ENOSPC, nothing moves;
 *   7 time             deadlines in the past, far beyond the span, at
 *                      UINT64_MAX; now jumping and going backwards.
 *
 * The remote API is modelled single-threaded, producers included. The
 * wheel has a channel per EAL lcore (a lane: each lcore of role RTE or
 * SERVICE at create, in lcore order) and a last one, the shared ring, for
 * every other thread; the model works the map out from the EAL itself,
 * as the library's rule states it, and keeps a FIFO queue per channel. A
 * remote call is made as one of the producers (an EAL lcore, a non-EAL
 * thread, a thread with an lcore id but no lane): the model's thread takes
 * that producer's lcore id for the call (twheel_model.c says why that is
 * sound), so what is under test is the routing by rte_lcore_id(). A call
 * must return 0, or -ENOBUFS exactly when the model's queue of the
 * producer's channel holds ring_size messages (counted in remote_full,
 * nothing enqueued), or -ENOTSUP without remote calls. A sweep must first
 * apply min(queued, budget) messages in the library's round-robin order:
 * from the channel after the one the previous sweep or drain visited last,
 * up to 32 messages of a channel per visit (fewer when the budget runs
 * out), until the budget is spent or every channel in a row was empty. A
 * cancel whose id names a live entry at that moment hands it back as
 * TWHEEL_CANCELLED, any other id counts in remote_stale; a schedule calls
 * adopt_fn with a fresh id, or hands the payload back as TWHEEL_REJECTED
 * when the wheel is full; records and adoptions come in that order. Each
 * message is one unit of work (invariant 4: messages + due + revisits <=
 * budget). A drain counts the same way: messages + entries handed back <=
 * budget; it stops short of its budget only when nothing is left, and
 * counts budget_exhausted exactly when it used its whole budget with
 * something left.
 *
 * Used by twheel_model_autotest (random sequences) and by the fuzzer
 * (app/fuzz-twheel), built into both from this one source; the caller
 * chooses operations and times, the model judges them.
 */

#ifndef _TWHEEL_MODEL_H_
#define _TWHEEL_MODEL_H_

#include <stdbool.h>
#include <stdint.h>

/* Saturating time arithmetic, for drivers that pick times and deadlines. */
static inline uint64_t
tw_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t
tw_sat_sub(uint64_t a, uint64_t b)
{
	return a < b ? 0 : a - b;
}

static inline uint64_t
tw_sat_mul(uint64_t a, uint64_t b)
{
	return (b != 0 && a > UINT64_MAX / b) ? UINT64_MAX : a * b;
}

struct tw_model_cfg {
	const char *name;          /* wheel name */
	uint32_t capacity;
	uint32_t slots;
	uint64_t tick_cycles;
	bool lazy;                 /* payload deadlines through deadline_fn */
	uint32_t ring_size;        /* messages per remote channel; 0: none */
};

struct tw_model;

/* Create a model and its wheel; NULL (and a message) on failure. */
struct tw_model *tw_model_create(const struct tw_model_cfg *cfg);
void tw_model_free(struct tw_model *m);

/*
 * Operations. Each returns 0 when the wheel behaved as the model, or -1
 * after recording what diverged (tw_model_error()). "pick" selects an item
 * among the live (or dead) ones; any value works.
 */
int tw_model_schedule(struct tw_model *m, uint64_t deadline);
int tw_model_cancel(struct tw_model *m, uint64_t pick);
int tw_model_move(struct tw_model *m, uint64_t pick, uint64_t deadline);
/* lazy wheels: the payload's deadline becomes later (a plain store) */
int tw_model_refresh(struct tw_model *m, uint64_t pick, uint64_t extend);
/* twheel_cancel_bulk (deadlines NULL) or twheel_move_bulk over n ids that
 * picks[] choose: live (duplicates too), stale and forged ones */
#define TW_MODEL_BULK_MAX 96
int tw_model_bulk(struct tw_model *m, const uint64_t *picks,
		  const uint64_t *deadlines, unsigned int n);
/* cancel and move of an id whose entry has left (its slot may be reused) */
int tw_model_stale(struct tw_model *m, uint64_t pick, uint64_t deadline);
/*
 * cancel and move of a made-up id; kind % TW_MODEL_FORGE_KINDS selects how:
 * raw, a live slot's later generation, a live slot's even generation, an
 * index past capacity, a dead id's next (even, free) generation,
 * TWHEEL_ID_INVALID, a live id of the paired wheel, a dead id of the paired
 * wheel (the last two: raw without a pair). An id of the paired wheel must
 * never name a live entry: that is an error, not a lucky forgery.
 */
#define TW_MODEL_FORGE_KINDS 8
int tw_model_forged(struct tw_model *m, uint64_t raw, unsigned int kind);
/*
 * Pair two models (two wheels, usually of one geometry, driven in turns):
 * each one's forged ids and remote cancels then include the other's ids.
 */
void tw_model_pair(struct tw_model *a, struct tw_model *b);
/*
 * Producers of remote calls, 0 .. tw_model_producers() - 1: first the EAL
 * lcores with a lane, in lcore order (producer i sends on lane i), then a
 * non-EAL thread (LCORE_ID_ANY) and, when the EAL leaves one, an lcore id
 * without a lane (a thread registered after the wheel); these last send on
 * the shared ring. Any value picks one (modulo their number).
 */
unsigned int tw_model_producers(const struct tw_model *m);
unsigned int tw_model_lanes(const struct tw_model *m);
/* "lcore 3 (lane 1)", "a non-EAL thread (ring)": for traces */
const char *tw_model_producer_name(const struct tw_model *m,
				   unsigned int producer);
/* remote schedule of a new item, sent as that producer */
int tw_model_remote_schedule(struct tw_model *m, unsigned int producer,
			     uint64_t deadline);
/*
 * remote cancel, sent as that producer; kind 0: a live item's id, 1: a
 * dead id, 2..9: forged as by tw_model_forged(raw, kind - 2). The id is
 * judged when the message is applied, so a live id may be stale by then
 * and a forged one live (but never one of the paired wheel).
 */
#define TW_MODEL_REMOTE_CANCEL_KINDS (2 + TW_MODEL_FORGE_KINDS)
int tw_model_remote_cancel(struct tw_model *m, unsigned int producer,
			   uint64_t raw, unsigned int kind);
int tw_model_sweep(struct tw_model *m, uint64_t now, unsigned int budget);
int tw_model_drain(struct tw_model *m, unsigned int budget);
/* drain everything (channels included), check every item is accounted for */
int tw_model_finish(struct tw_model *m);

/* The latest now given to a sweep, and the model's sizes. */
uint64_t tw_model_now(const struct tw_model *m);
uint32_t tw_model_live(const struct tw_model *m);
uint32_t tw_model_capacity(const struct tw_model *m);
/* messages queued in all channels, and in the channel of a producer */
uint32_t tw_model_queued(const struct tw_model *m);
uint32_t tw_model_queued_by(const struct tw_model *m, unsigned int producer);
/* the room of one channel (ring_size), and of all of them together */
uint32_t tw_model_ring_size(const struct tw_model *m);
uint32_t tw_model_remote_room(const struct tw_model *m);
uint64_t tw_model_steps(const struct tw_model *m);
uint64_t tw_model_rotation(const struct tw_model *m);
uint64_t tw_model_tick_cycles(const struct tw_model *m);
const char *tw_model_error(const struct tw_model *m);

/* Per-run tallies, for the report. */
struct tw_model_tally {
	uint64_t schedules, enospc, cancels, moves, refreshes, stale, forged;
	uint64_t sweeps, due, revisits, drained, lateness_checks;
	uint64_t backwards, jumps;
	uint64_t remote_schedules, remote_cancels, remote_full, remote_stale;
	uint64_t adopted, rejected, remote_cancelled;
	uint64_t lane_calls, ring_calls;   /* remote calls sent on each kind */
	uint64_t lane_full, ring_full;     /* and refused with -ENOBUFS */
	uint64_t visits_cut;   /* channel visits that left messages: budget */
	uint64_t visits_burst; /* ... a full burst, more waiting */
	uint64_t mixed;        /* applies that took from several channels */
	uint64_t foreign;      /* ids of the paired wheel tried here */
	uint64_t rebases;      /* sweeps that went back more than a rotation */
	uint64_t more;         /* sweeps that stopped at the budget, work left */
	uint64_t exact;        /* sweeps that finished on the budget's last unit */
};
void tw_model_tally_get(const struct tw_model *m, struct tw_model_tally *t);
void tw_model_note_time(struct tw_model *m, bool backwards, bool jump);

#endif /* _TWHEEL_MODEL_H_ */
