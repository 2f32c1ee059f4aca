/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The only place the library names the compiler's __atomic builtins
 * (DPDK 22.11 has no rte_atomic_*_explicit; 23.11 does, and checkpatch
 * refuses the builtins). The counters need relaxed ordering alone: one
 * writer per counter, readers that want no snapshot. The remote messages
 * are ordered by acquire and release: a lane's head and tail
 * (twheel_lane.h), the shared ring's own (twheel_remote.c).
 */

#ifndef _TWHEEL_ATOMIC_H_
#define _TWHEEL_ATOMIC_H_

#define twheel_atomic_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define twheel_atomic_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define twheel_atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define twheel_atomic_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define twheel_atomic_store_release(p, v) \
	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* _TWHEEL_ATOMIC_H_ */
