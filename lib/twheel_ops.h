/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Insertion shared by a local schedule and an adopted remote one
 * (twheel_ops.c): a slot from the free stack, filed where its deadline
 * belongs (twheel_list_for(), twheel_bucket.h).
 */

#ifndef _TWHEEL_OPS_H_
#define _TWHEEL_OPS_H_

#include <stdint.h>

#include "twheel.h"

/* The new entry's id, or TWHEEL_ID_INVALID when the slab is full. */
twheel_id_t twheel_entry_add(struct twheel *w, uint64_t deadline, void *payload);

#endif /* _TWHEEL_OPS_H_ */
