/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Allocation fault injection for the test app, with no hook in the library.
 *
 * dpdk-test-twheel is linked with -Wl,--wrap for each DPDK allocator the
 * library calls (rte_malloc_socket, rte_zmalloc_socket,
 * rte_mempool_create_empty, rte_mempool_populate_default,
 * rte_ring_create_elem; see meson.build). The linker sends every call from
 * the library's objects and the test app to __wrap_<name>
 * (test_twheel_fault_hook.c), which passes it on to __real_<name> unless
 * armed. Armed with n, the n-th wrapped call fails as the real one would when
 * memory runs out (NULL or -ENOMEM, rte_errno ENOMEM) and every other call
 * passes. Calls made inside DPDK's own libraries are not wrapped.
 *
 * So twheel_create() can be made to fail at each of its allocation steps
 * in turn, without a test-only branch in the library: its fast path and its
 * shared library are exactly what users get.
 */

#ifndef _TEST_TWHEEL_FAULT_HOOK_H_
#define _TEST_TWHEEL_FAULT_HOOK_H_

#include <stdint.h>

/* Make the n-th wrapped allocation from now on fail (0: none), and reset
 * the call count. */
void tw_fault_arm(uint32_t n);
/* Wrapped allocations since the last tw_fault_arm(). */
uint32_t tw_fault_calls(void);
/* The function whose call was made to fail, or NULL if none was yet. */
const char *tw_fault_fired(void);

#endif /* _TEST_TWHEEL_FAULT_HOOK_H_ */
