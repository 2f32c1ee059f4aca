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
 *                      again after going backwards);
 *   4 bounded work     records + revisits <= budget; a sweep that did less
 *                      work than its budget must not count budget_exhausted;
 *   5 stale ids        cancel/move of dead or forged ids return -ENOENT and
 *                      change no statistic;
 *   6 capacity         schedule at capacity fails with ENOSPC, nothing moves;
 *   7 time             deadlines in the past, far beyond the span, at
 *                      UINT64_MAX; now jumping and going backwards.
 *
 * Used by twheel_model_autotest (random sequences) and by the fuzzer; the
 * caller chooses operations and times, the model judges them.
 */

#ifndef _TWHEEL_MODEL_H_
#define _TWHEEL_MODEL_H_

#include <stdbool.h>
#include <stdint.h>

struct tw_model_cfg {
	const char *name;          /* wheel name */
	uint32_t capacity;
	uint32_t slots;
	uint64_t tick_cycles;
	bool lazy;                 /* payload deadlines through deadline_fn */
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
/* cancel and move of an id whose entry has left (its slot may be reused) */
int tw_model_stale(struct tw_model *m, uint64_t pick, uint64_t deadline);
/* cancel and move of a made-up id; kind selects how it is forged */
int tw_model_forged(struct tw_model *m, uint64_t raw, unsigned int kind);
int tw_model_sweep(struct tw_model *m, uint64_t now, unsigned int budget);
int tw_model_drain(struct tw_model *m, unsigned int budget);
/* drain everything and check that every item is accounted for */
int tw_model_finish(struct tw_model *m);

/* The latest now given to a sweep, and the model's sizes. */
uint64_t tw_model_now(const struct tw_model *m);
uint32_t tw_model_live(const struct tw_model *m);
uint64_t tw_model_steps(const struct tw_model *m);
uint64_t tw_model_rotation(const struct tw_model *m);
uint64_t tw_model_tick_cycles(const struct tw_model *m);
const char *tw_model_error(const struct tw_model *m);

/* Per-run tallies, for the report. */
struct tw_model_tally {
	uint64_t schedules, enospc, cancels, moves, refreshes, stale, forged;
	uint64_t sweeps, due, revisits, drained, lateness_checks;
	uint64_t backwards, jumps;
};
void tw_model_tally_get(const struct tw_model *m, struct tw_model_tally *t);
void tw_model_note_time(struct tw_model *m, bool backwards, bool jump);

#endif /* _TWHEEL_MODEL_H_ */
