/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The --wrap targets of test_twheel_fault_hook.h: count the library's
 * allocation calls and fail the armed one. Control path only; the counters
 * are atomics because tests may allocate from more than one lcore.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring_elem.h>

#include "test_twheel_fault_hook.h"

void *__real_rte_malloc_socket(const char *type, size_t size,
			       unsigned int align, int socket);
void *__wrap_rte_malloc_socket(const char *type, size_t size,
			       unsigned int align, int socket);
void *__real_rte_zmalloc_socket(const char *type, size_t size,
				unsigned int align, int socket);
void *__wrap_rte_zmalloc_socket(const char *type, size_t size,
				unsigned int align, int socket);
struct rte_mempool *__real_rte_mempool_create_empty(const char *name,
		unsigned int n, unsigned int elt_size, unsigned int cache_size,
		unsigned int private_data_size, int socket_id, unsigned int flags);
struct rte_mempool *__wrap_rte_mempool_create_empty(const char *name,
		unsigned int n, unsigned int elt_size, unsigned int cache_size,
		unsigned int private_data_size, int socket_id, unsigned int flags);
int __real_rte_mempool_set_ops_byname(struct rte_mempool *mp,
		const char *name, void *pool_config);
int __wrap_rte_mempool_set_ops_byname(struct rte_mempool *mp,
		const char *name, void *pool_config);
int __real_rte_mempool_populate_default(struct rte_mempool *mp);
int __wrap_rte_mempool_populate_default(struct rte_mempool *mp);
struct rte_ring *__real_rte_ring_create_elem(const char *name,
		unsigned int esize, unsigned int count, int socket_id,
		unsigned int flags);
struct rte_ring *__wrap_rte_ring_create_elem(const char *name,
		unsigned int esize, unsigned int count, int socket_id,
		unsigned int flags);

static uint32_t fail_at;   /* 0: disarmed */
static uint32_t calls;
static uint32_t fired;
static const char *fired_in;

void
tw_fault_arm(uint32_t n)
{
	__atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fired, 0, __ATOMIC_RELAXED);
	fired_in = NULL;
	__atomic_store_n(&fail_at, n, __ATOMIC_RELAXED);
}

uint32_t
tw_fault_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

const char *
tw_fault_fired(void)
{
	return __atomic_load_n(&fired, __ATOMIC_ACQUIRE) != 0 ? fired_in : NULL;
}

/* Count a call; true when it is the one to fail (rte_errno is then err). */
static int
fault_now_err(const char *fn, int err)
{
	uint32_t n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);

	if (n != __atomic_load_n(&fail_at, __ATOMIC_RELAXED))
		return 0;
	fired_in = fn;
	__atomic_store_n(&fired, 1, __ATOMIC_RELEASE);
	rte_errno = err;
	return 1;
}

#define fault_now() fault_now_err(__func__ + strlen("__wrap_"), ENOMEM)

void *
__wrap_rte_malloc_socket(const char *type, size_t size, unsigned int align,
			 int socket)
{
	return fault_now() ? NULL :
		__real_rte_malloc_socket(type, size, align, socket);
}

void *
__wrap_rte_zmalloc_socket(const char *type, size_t size, unsigned int align,
			  int socket)
{
	return fault_now() ? NULL :
		__real_rte_zmalloc_socket(type, size, align, socket);
}

struct rte_mempool *
__wrap_rte_mempool_create_empty(const char *name, unsigned int n,
		unsigned int elt_size, unsigned int cache_size,
		unsigned int private_data_size, int socket_id, unsigned int flags)
{
	return fault_now() ? NULL :
		__real_rte_mempool_create_empty(name, n, elt_size, cache_size,
						private_data_size, socket_id, flags);
}

/* no allocation, but it fails if the driver is unknown: -EINVAL */
int
__wrap_rte_mempool_set_ops_byname(struct rte_mempool *mp, const char *name,
				  void *pool_config)
{
	return fault_now_err("rte_mempool_set_ops_byname", EINVAL) ? -EINVAL :
		__real_rte_mempool_set_ops_byname(mp, name, pool_config);
}

int
__wrap_rte_mempool_populate_default(struct rte_mempool *mp)
{
	return fault_now() ? -ENOMEM : __real_rte_mempool_populate_default(mp);
}

struct rte_ring *
__wrap_rte_ring_create_elem(const char *name, unsigned int esize,
			    unsigned int count, int socket_id, unsigned int flags)
{
	return fault_now() ? NULL :
		__real_rte_ring_create_elem(name, esize, count, socket_id, flags);
}
