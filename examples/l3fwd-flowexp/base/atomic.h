/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The example's atomic operations: the one file that names the compiler's
 * __atomic builtins (DPDK 22.11 has no rte_atomic_*_explicit). Each macro
 * carries its memory order in its name, and each use says what it pairs
 * with, so the orderings can be checked by reading one call site at a time.
 *
 * Almost everything shared between threads in the example is a counter
 * with a single writer (the worker that owns it) and any number of
 * readers (the main lcore, the telemetry thread): relaxed loads and
 * stores, so a reader sees whole values and nothing is ordered. The few
 * orderings that matter (the route table pointer, the control requests'
 * hand-over, the snapshots of flows and mappings through rte_seqcount)
 * are written where they are used.
 */

#ifndef _FX_ATOMIC_H_
#define _FX_ATOMIC_H_

#include <stdbool.h>

/** A whole value, no ordering. */
#define fx_load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
/** Later loads and stores are not seen before this load. */
#define fx_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
/** A whole value, no ordering. */
#define fx_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
/** Earlier loads and stores are seen before this store. */
#define fx_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/** An increment from any number of threads, no ordering. */
#define fx_add_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
/**
 * Replace *p by desired if it holds *expected (else *expected gets *p);
 * acquire and release on success, acquire on failure. Returns whether
 * it replaced.
 */
#define fx_cas_acq_rel(p, expected, desired) \
	__atomic_compare_exchange_n((p), (expected), (desired), false, \
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

#endif /* _FX_ATOMIC_H_ */
