/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The doubly-linked-list wheel of twheel_dll_wheel.h.
 *
 * Each bucket (and the pending list) is a list threaded through the
 * entries' next/prev indices. A list head is an index too: values from
 * capacity up name the heads (capacity + bucket, capacity + slots for
 * pending), so unlinking never needs to know which list an entry is on.
 *
 *   insert   at the head: write the entry, the old head entry's prev
 *            (a second random line), the head
 *   cancel   prev's next and next's prev: two random lines besides the entry
 *   sweep    detach the elapsed buckets into pending, then walk pending: each
 *            entry's successor is known only once its line has arrived, so
 *            the walk is a chain of dependent misses. What can overlap is
 *            overlapped: the successor's line is requested before the
 *            current entry's payload is read.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_reciprocal.h>

#include "twheel_dll_wheel.h"

struct dll_entry {
	void *payload;
	uint64_t deadline;
	uint32_t next;
	uint32_t prev;
};

struct dll_wheel {
	uint8_t *slab;
	uint32_t stride;             /* the library's slab stride */
	uint32_t header;             /* the library's object header, before an entry */
	uint32_t *free_idx;          /* LIFO of free slab indices */
	uint32_t nb_free;
	uint32_t capacity;
	uint32_t *head;              /* slots + 1 heads; the last is pending */
	uint32_t slots, mask, pending;
	uint64_t tick_cycles;
	struct rte_reciprocal_u64 tick_div;  /* as the library divides */
	uint64_t cursor;             /* next tick to detach */
	uint64_t now;                /* latest sweep's now */
	twheel_deadline_fn fn;
	void *fn_arg;
};

static inline struct dll_entry *
entry_at(const struct dll_wheel *w, uint32_t idx)
{
	return (struct dll_entry *)(w->slab + (size_t)idx * w->stride + w->header);
}

/*
 * The library's slab layout, asked of a one-entry wheel: the baseline lays
 * its entries out the same way.
 */
static int
library_slab_layout(struct dll_wheel *w)
{
	struct twheel_config cfg;
	struct twheel_slab_info si;
	struct twheel *tw;
	int ret;

	twheel_config_standard(&cfg, "dll_layout", 1, SOCKET_ID_ANY);
	cfg.slots = 2;
	cfg.tick_cycles = 1;
	cfg.remote_ring_size = 0;
	tw = twheel_create(&cfg);
	if (tw == NULL)
		return -1;
	ret = twheel_slab_info_get(tw, &si);
	twheel_free(tw);
	if (ret != 0 || si.entry_size < sizeof(struct dll_entry))
		return -1;
	w->stride = si.stride;
	w->header = si.header_size;
	return 0;
}

struct dll_wheel *
dll_wheel_create(uint32_t capacity, uint32_t slots, uint64_t tick_cycles,
		 twheel_deadline_fn fn, void *fn_arg, int socket_id)
{
	struct dll_wheel *w = calloc(1, sizeof(*w));
	uint32_t i;

	if (w == NULL)
		return NULL;
	if (library_slab_layout(w) != 0) {
		free(w);
		return NULL;
	}
	w->slab = rte_zmalloc_socket("dll_slab", (size_t)capacity * w->stride,
				     RTE_CACHE_LINE_SIZE, socket_id);
	w->free_idx = rte_malloc_socket("dll_free", sizeof(uint32_t) * capacity,
					RTE_CACHE_LINE_SIZE, socket_id);
	w->head = rte_malloc_socket("dll_heads", sizeof(uint32_t) * (slots + 1),
				    RTE_CACHE_LINE_SIZE, socket_id);
	if (w->slab == NULL || w->free_idx == NULL || w->head == NULL) {
		dll_wheel_free(w);
		return NULL;
	}
	w->capacity = capacity;
	w->slots = slots;
	w->mask = slots - 1;
	w->pending = slots;
	w->tick_cycles = tick_cycles;
	w->tick_div = rte_reciprocal_value_u64(tick_cycles);
	w->fn = fn;
	w->fn_arg = fn_arg;
	for (i = 0; i <= slots; i++)
		w->head[i] = DLL_NIL;
	/* hand out low indices first, as the library's slab does */
	for (i = 0; i < capacity; i++)
		w->free_idx[i] = capacity - 1 - i;
	w->nb_free = capacity;
	return w;
}

void
dll_wheel_free(struct dll_wheel *w)
{
	if (w == NULL)
		return;
	rte_free(w->slab);
	rte_free(w->free_idx);
	rte_free(w->head);
	free(w);
}

size_t
dll_wheel_bytes(const struct dll_wheel *w)
{
	return (size_t)w->capacity * (w->stride + sizeof(uint32_t)) +
		sizeof(uint32_t) * (w->slots + 1) + sizeof(*w);
}

/* Set the next/prev pointer named by a link: an entry, or a list head. */
static inline void
set_next_of(struct dll_wheel *w, uint32_t link, uint32_t v)
{
	if (link >= w->capacity)
		w->head[link - w->capacity] = v;
	else
		entry_at(w, link)->next = v;
}

static inline void
list_push(struct dll_wheel *w, uint32_t list, uint32_t idx, struct dll_entry *e)
{
	uint32_t old = w->head[list];

	e->next = old;
	e->prev = w->capacity + list;
	if (old != DLL_NIL)
		entry_at(w, old)->prev = idx;
	w->head[list] = idx;
}

static inline void
list_unlink(struct dll_wheel *w, struct dll_entry *e)
{
	set_next_of(w, e->prev, e->next);
	if (e->next != DLL_NIL)
		entry_at(w, e->next)->prev = e->prev;
}

static inline uint64_t
tick_of(const struct dll_wheel *w, uint64_t t)
{
	return rte_reciprocal_divide_u64(t, &w->tick_div);
}

/* The list of a deadline: pending if overdue, else its bucket, never behind
 * the cursor. */
static inline uint32_t
list_for(const struct dll_wheel *w, uint64_t d)
{
	uint64_t t;

	if (d <= w->now)
		return w->pending;
	t = tick_of(w, d);
	if (t < w->cursor)
		t = w->cursor;
	return (uint32_t)(t & w->mask);
}

uint32_t
dll_wheel_schedule(struct dll_wheel *w, uint64_t deadline, void *payload)
{
	struct dll_entry *e;
	uint32_t idx;

	if (unlikely(w->nb_free == 0))
		return DLL_NIL;
	idx = w->free_idx[--w->nb_free];
	e = entry_at(w, idx);
	e->payload = payload;
	e->deadline = deadline;
	list_push(w, list_for(w, deadline), idx, e);
	return idx;
}

void
dll_wheel_cancel(struct dll_wheel *w, uint32_t idx)
{
	list_unlink(w, entry_at(w, idx));
	w->free_idx[w->nb_free++] = idx;
}

/* Move bucket b's whole list into the (empty) pending list. */
static void
detach(struct dll_wheel *w, uint32_t b)
{
	uint32_t first = w->head[b];

	w->head[b] = DLL_NIL;
	w->head[w->pending] = first;
	entry_at(w, first)->prev = w->capacity + w->pending;
}

/* Detach the next non-empty elapsed bucket; false when there is none. */
static bool
advance(struct dll_wheel *w, uint64_t limit)
{
	uint32_t b;

	if (limit > w->cursor + w->slots)
		w->cursor = limit - w->slots;
	for (; w->cursor < limit; w->cursor++) {
		b = (uint32_t)(w->cursor & w->mask);
		if (w->head[b] != DLL_NIL) {
			detach(w, b);
			w->cursor++;
			return true;
		}
	}
	return false;
}

unsigned int
dll_wheel_sweep(struct dll_wheel *w, uint64_t now, unsigned int budget,
		struct twheel_fired *out)
{
	unsigned int work = 0, nout = 0;
	uint64_t limit = tick_of(w, now), d;
	uint32_t idx, next;
	struct dll_entry *e;

	if (now > w->now)
		w->now = now;
	while (work < budget) {
		idx = w->head[w->pending];
		if (idx == DLL_NIL) {
			if (!advance(w, limit))
				break;
			continue;
		}
		e = entry_at(w, idx);
		next = e->next;
		/* the successor's line first: its miss overlaps the payload's */
		if (next != DLL_NIL)
			rte_prefetch0(entry_at(w, next));
		d = w->fn != NULL ? w->fn(e->payload, w->fn_arg) : e->deadline;
		w->head[w->pending] = next;
		if (next != DLL_NIL)
			entry_at(w, next)->prev = w->capacity + w->pending;
		if (d <= now) {
			out[nout++] = (struct twheel_fired){
				.id = idx, .payload = e->payload,
				.deadline = d, .reason = TWHEEL_DUE,
			};
			w->free_idx[w->nb_free++] = idx;
		} else {
			uint64_t t = RTE_MAX(tick_of(w, d), w->cursor);

			list_push(w, (uint32_t)(t & w->mask), idx, e);
		}
		work++;
	}
	return nout;
}
