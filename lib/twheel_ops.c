/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The owner's O(1) operations: schedule, cancel, move.
 *
 * Every operation on an id starts with the id check (twheel_id.h): the
 * generation and the wheel's salt in the id must match the entry's, so a
 * stale id, or one of another wheel, changes nothing.
 *
 * Where an entry is filed is decided by twheel_list_for(): a deadline at or
 * before the latest sweep's now goes to the pending list and fires at the
 * next sweep; otherwise it goes to its tick's bucket, never behind the
 * cursor. A deadline beyond one rotation simply lands in tick & mask and is
 * re-filed each time the sweep passes it early.
 *
 * The rule that makes moves cheap: an entry is always filed at or before
 * the tick of its stored deadline (schedule and move file it there or
 * earlier; a sweep that re-files it stores the deadline it re-filed for).
 * So a move to a later deadline only stores it, as Linux's mod_timer does
 * for a timer that stays in its bucket: the entry is examined where it is
 * and re-filed then (one revisit), instead of being unlinked from a chunk
 * and linked into another now (two more cache misses). Only a move to an
 * earlier deadline moves the entry.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "twheel_bucket.h"
#include "twheel_id.h"
#include "twheel_layout.h"
#include "twheel_ops.h"
#include "twheel_slab.h"

/* Insert a new entry: its id, or TWHEEL_ID_INVALID when the slab is full. */
twheel_id_t
twheel_entry_add(struct twheel *w, uint64_t deadline, void *payload)
{
	struct twheel_entry *e;
	uint32_t idx;

	idx = twheel_slab_alloc(w);
	if (unlikely(idx == TWHEEL_NIL))
		return TWHEEL_ID_INVALID;
	e = twheel_entry_at(w, idx);
	e->payload = payload;
	e->deadline = deadline;
	twheel_list_insert(w, twheel_list_for(w, deadline), idx, e);
	TWHEEL_STAT_ADD(w, scheduled, 1);
	TWHEEL_STAT_ADD(w, live, 1);
	return twheel_make_id(idx, e->gen, w->salt);
}

twheel_id_t
twheel_schedule(struct twheel *w, uint64_t deadline, void *payload)
{
	twheel_id_t id = twheel_entry_add(w, deadline, payload);

	if (unlikely(id == TWHEEL_ID_INVALID))
		rte_errno = ENOSPC;
	return id;
}

int
twheel_cancel(struct twheel *w, twheel_id_t id)
{
	struct twheel_entry *e = twheel_entry_of_id(w, id);

	if (unlikely(e == NULL))
		return -ENOENT;
	twheel_entry_cancel(w, (uint32_t)id, e, NULL);
	return 0;
}

int
twheel_move(struct twheel *w, twheel_id_t id, uint64_t deadline)
{
	struct twheel_entry *e = twheel_entry_of_id(w, id);

	if (unlikely(e == NULL))
		return -ENOENT;
	/*
	 * Later: the entry is filed no later than the tick of its stored
	 * deadline, so where it is, it is examined no later than it would be
	 * in the bucket of the new one, and the sweep re-files it then.
	 */
	twheel_entry_move(w, (uint32_t)id, e, deadline, TWHEEL_NIL);
	return 0;
}
