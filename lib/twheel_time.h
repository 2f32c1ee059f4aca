/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Time and geometry: a TSC value's tick, and an entry's current deadline.
 *
 * A tick is t / tick_cycles: a shift when tick_cycles is a power of two,
 * otherwise a reciprocal divide (set_tick(), twheel_create.c). Ticks
 * saturate at TWHEEL_TICK_MAX, so end_tick = tick(UINT64_MAX) + 1 never
 * wraps; tick & mask is the bucket. An entry's current deadline is the
 * payload's (deadline_fn) for a lazy wheel, else the one last stored.
 */

#ifndef _TWHEEL_TIME_H_
#define _TWHEEL_TIME_H_

#include <stdint.h>

#include <rte_reciprocal.h>

#include "twheel_layout.h"

/* Highest tick; keeps end_tick = tick(UINT64_MAX) + 1 from wrapping. */
#define TWHEEL_TICK_MAX (UINT64_MAX - 1)

static inline uint64_t
twheel_tick(const struct twheel *w, uint64_t t)
{
	uint64_t tick;

	if (w->tick_shift != 0xff)
		tick = t >> w->tick_shift;
	else
		tick = rte_reciprocal_divide_u64(t, &w->tick_div);
	return tick > TWHEEL_TICK_MAX ? TWHEEL_TICK_MAX : tick;
}

static inline uint64_t
twheel_current_deadline(const struct twheel *w, const struct twheel_entry *e)
{
	if (w->deadline_fn != NULL)
		return w->deadline_fn(e->payload, w->deadline_arg);
	return e->deadline;
}

#endif /* _TWHEEL_TIME_H_ */
