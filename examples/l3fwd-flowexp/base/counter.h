/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Counters and how they are read.
 *
 * Every subsystem keeps its own counters in its own context (the flow
 * table's in struct fx_flows, NAT's in struct fx_nat, the handoff's in
 * struct fx_handoff...), each written by one thread only, the worker that
 * owns the context: relaxed atomic stores, so that any thread may read
 * them whole while the worker runs (base/atomic.h). Nothing here knows
 * which counters exist: the walk that shows them all (ctl/stats.c) reads
 * each subsystem's, and a subsystem that has figures of its own to add
 * writes them into a struct fx_emitter it is handed.
 *
 * Three kinds of figures: counters, which only grow; gauges, values of
 * now; maxima, which a reset request zeroes (each owner zeroes its own).
 */

#ifndef _FX_COUNTER_H_
#define _FX_COUNTER_H_

#include <stddef.h>
#include <stdint.h>

#include "base/atomic.h"

/* Owner-side updates; a reader on another thread sees whole values. */
#define FX_STAT_SET(st, field, v) fx_store_relaxed(&(st)->field, (v))
#define FX_STAT_ADD(st, field, n) FX_STAT_SET(st, field, (st)->field + (n))
#define FX_STAT_MAX(st, field, v) do { \
	if ((v) > (st)->field) \
		FX_STAT_SET(st, field, v); \
} while (0)
/* Any thread. */
#define FX_STAT_GET(st, field) fx_load_relaxed(&(st)->field)

/** A sink for a walk over statistics: one level of nested dictionaries. */
struct fx_emitter {
	void (*open)(void *ctx, const char *name);
	void (*close)(void *ctx);
	void (*u64)(void *ctx, const char *name, uint64_t v);
	void (*str)(void *ctx, const char *name, const char *v);
};

/** Which figures a walk emits. */
enum fx_emit_what {
	FX_EMIT_COUNTERS = 1,   /**< counters and gauges: never reset */
	FX_EMIT_MAXIMA = 2,     /**< the maxima and lag figures a reset zeroes */
	FX_EMIT_ALL = 3,
};

/** TSC cycles in microseconds. */
uint64_t fx_cycles_us(uint64_t cycles);

/** v in at most 6 characters ("1.23k", "45.0M"), for the tables; returns buf. */
const char *fx_human(double v, char *buf, size_t len);

#endif /* _FX_COUNTER_H_ */
