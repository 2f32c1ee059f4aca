/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The id codec: an id is ((generation + salt) << 32 | slab index).
 *
 * A live entry's generation is odd; releasing the slot makes it even and
 * the next allocation odd again, so an id goes stale the moment its entry
 * leaves and stays stale when the slot is reused (until the 32-bit
 * generation wraps after 2^31 reuses of that one slot).
 *
 * Ids are wheel-specific: the salt is the wheel's own (salt_next(),
 * twheel_create.c) and even, so a live id's high half is odd like its
 * generation and 0 is never valid. Every wheel starts with all generations
 * at 0, but the first id of one wheel is not another's, nor that of an
 * earlier wheel of the same name. One add each way, on the line that holds
 * the capacity the id check reads anyway.
 */

#ifndef _TWHEEL_ID_H_
#define _TWHEEL_ID_H_

#include <stdint.h>

#include <rte_branch_prediction.h>

#include "twheel.h"
#include "twheel_layout.h"

static inline twheel_id_t
twheel_make_id(uint32_t idx, uint32_t gen, uint32_t salt)
{
	return ((uint64_t)(uint32_t)(gen + salt) << 32) | idx;
}

/* The live entry an id names, or NULL. */
static inline struct twheel_entry *
twheel_entry_of_id(const struct twheel *w, twheel_id_t id)
{
	uint32_t idx = (uint32_t)id;
	uint32_t gen = (uint32_t)(id >> 32) - w->salt;
	struct twheel_entry *e;

	if (unlikely(idx >= w->capacity))
		return NULL;
	e = twheel_entry_at(w, idx);
	/* even generations are free slots, so a forged even id never matches */
	if (unlikely(e->gen != gen || (gen & 1) == 0))
		return NULL;
	return e;
}

#endif /* _TWHEEL_ID_H_ */
