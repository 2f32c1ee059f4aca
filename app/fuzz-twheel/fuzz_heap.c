/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The fuzzers' heap: the library's rte_malloc_socket, rte_zmalloc_socket and
 * rte_free calls (and the example's, with rte_zmalloc, in fuzz-flowexp),
 * sent to libc by -Wl,--wrap (meson.build), so that
 * AddressSanitizer sees the wheel's own arrays (the wheel, bucket chunks,
 * lists, bucket map, bitmap, slab free-list head) with exact bounds. DPDK's
 * libraries are not instrumented: memory from its heaps is invisible to
 * ASan, and a write one element past a chunk array would go unnoticed.
 *
 * Only calls from objects linked into a fuzzer are wrapped; DPDK's own
 * calls inside its shared libraries keep its heaps. Every rte_free() in the
 * library frees memory the library got from the two allocators above. The
 * mempool's objects (the entries) come from a memzone that DPDK reserves
 * itself, so they stay outside ASan's view.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

void *__wrap_rte_malloc_socket(const char *type, size_t size,
			       unsigned int align, int socket);
void *__wrap_rte_zmalloc_socket(const char *type, size_t size,
				unsigned int align, int socket);
void *__wrap_rte_zmalloc(const char *type, size_t size, unsigned int align);
void __wrap_rte_free(void *ptr);

void *
__wrap_rte_malloc_socket(const char *type __rte_unused, size_t size,
			 unsigned int align, int socket __rte_unused)
{
	void *p = NULL;

	/* rte_malloc aligns to a cache line at least */
	if (align < RTE_CACHE_LINE_SIZE)
		align = RTE_CACHE_LINE_SIZE;
	if (size == 0 || !rte_is_power_of_2(align) ||
	    posix_memalign(&p, align, size) != 0) {
		rte_errno = ENOMEM;
		return NULL;
	}
	return p;
}

void *
__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned int align,
			  int socket)
{
	void *p = __wrap_rte_malloc_socket(type, size, align, socket);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

void *
__wrap_rte_zmalloc(const char *type, size_t size, unsigned int align)
{
	return __wrap_rte_zmalloc_socket(type, size, align, SOCKET_ID_ANY);
}

void
__wrap_rte_free(void *ptr)
{
	free(ptr);
}
