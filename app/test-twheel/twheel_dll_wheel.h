/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A minimal wheel whose buckets are intrusive doubly linked lists: the
 * baseline the library's chunked buckets are measured against
 * (twheel_layout_perf_autotest; doc/performance.md, "Bucket layout").
 * Test code only.
 *
 * Everything but the bucket layout is kept equal to the library: 24-byte
 * entries laid out as the library's slab lays out its objects (stride and
 * header from twheel_slab_info_get()), a LIFO free list of slab indices,
 * the same geometry, lazy deadlines asked of the payload, the pending list,
 * and a sweep bounded by a budget that resumes where it stopped.
 */

#ifndef _TWHEEL_DLL_WHEEL_H_
#define _TWHEEL_DLL_WHEEL_H_

#include <stdint.h>

#include <twheel.h>

#define DLL_NIL UINT32_MAX

struct dll_wheel;

/* NULL when there is no memory (or the library's slab cannot be asked). */
struct dll_wheel *dll_wheel_create(uint32_t capacity, uint32_t slots,
				   uint64_t tick_cycles, twheel_deadline_fn fn,
				   void *fn_arg, int socket_id);
void dll_wheel_free(struct dll_wheel *w);

/* The entry's slab index, or DLL_NIL when full. */
uint32_t dll_wheel_schedule(struct dll_wheel *w, uint64_t deadline,
			    void *payload);
/* Unlink a live entry (no generation check: the benchmark's ids are live). */
void dll_wheel_cancel(struct dll_wheel *w, uint32_t idx);
/* As twheel_sweep(): records written, at most budget units of work. */
unsigned int dll_wheel_sweep(struct dll_wheel *w, uint64_t now,
			     unsigned int budget, struct twheel_fired *out);
/* Bytes allocated. */
size_t dll_wheel_bytes(const struct dll_wheel *w);

#endif /* _TWHEEL_DLL_WHEEL_H_ */
