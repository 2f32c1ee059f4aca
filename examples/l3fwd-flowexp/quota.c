/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Per-host quota table (quota.h): linear probing over a keyed hash with a
 * bounded probe length, backward-shift deletion.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "fxhash.h"
#include "quota.h"

int
fx_quota_init(struct fx_quota *q, const char *name, uint32_t keys, int socket)
{
	uint64_t slots;

	q->slot = NULL;
	q->mask = 0;
	q->keys = 0;
	if (keys == 0 || keys > (UINT32_C(1) << 30))
		return -EINVAL;
	slots = rte_align64pow2(2 * (uint64_t)keys);
	q->slot = rte_zmalloc_socket(name, slots * sizeof(*q->slot),
				     RTE_CACHE_LINE_SIZE, socket);
	if (q->slot == NULL)
		return -ENOMEM;
	q->mask = (uint32_t)(slots - 1);
	return 0;
}

void
fx_quota_fini(struct fx_quota *q)
{
	rte_free(q->slot);
	q->slot = NULL;
}

static inline uint32_t
home_of(const struct fx_quota *q, uint64_t k0, uint32_t k1)
{
	uint64_t w[2] = { k0, k1 };

	return fx_hash_words(w, 2) & q->mask;
}

static inline bool
slot_is(const struct fx_quota_slot *s, const struct fx_quota_key *k)
{
	return s->k0 == k->k0 && s->k1 == k->k1;
}

/* the slot of k, or of the first free slot on its run (*found false), or
 * -1 when neither lies within FX_QUOTA_PROBES of its home */
static int64_t
find(const struct fx_quota *q, const struct fx_quota_key *k, bool *found)
{
	uint32_t h = home_of(q, k->k0, k->k1), i, s;

	for (i = 0; i < FX_QUOTA_PROBES && i <= q->mask; i++) {
		s = (h + i) & q->mask;
		if (q->slot[s].count == 0) {
			*found = false;
			return s;
		}
		if (slot_is(&q->slot[s], k)) {
			*found = true;
			return s;
		}
	}
	*found = false;
	return -1;
}

int
fx_quota_take(struct fx_quota *q, const struct fx_quota_key *k, uint32_t limit)
{
	struct fx_quota_slot *s;
	bool found;
	int64_t i = find(q, k, &found);

	if (i < 0)
		return -ENOSPC;
	s = &q->slot[i];
	if (found) {
		if (s->count >= limit)
			return -EDQUOT;
		s->count++;
		return 0;
	}
	if (limit == 0)
		return -EDQUOT;
	s->k0 = k->k0;
	s->k1 = k->k1;
	s->count = 1;
	q->keys++;
	return 0;
}

/* empty slot i: move up the keys of the run after it that may go there */
static void
shift_back(struct fx_quota *q, uint32_t i)
{
	uint32_t j = i, h;

	for (;;) {
		j = (j + 1) & q->mask;
		if (q->slot[j].count == 0 || j == i)
			break;
		h = home_of(q, q->slot[j].k0, q->slot[j].k1);
		/* the key at j may move to i unless its home lies in (i, j] */
		if (((j - h) & q->mask) >= ((j - i) & q->mask)) {
			q->slot[i] = q->slot[j];
			i = j;
		}
	}
	q->slot[i].count = 0;
	q->slot[i].k0 = 0;
	q->slot[i].k1 = 0;
}

void
fx_quota_put(struct fx_quota *q, const struct fx_quota_key *k)
{
	bool found;
	int64_t i = find(q, k, &found);

	if (i < 0 || !found)
		return;   /* not taken: a caller's bug, nothing to undo */
	if (--q->slot[i].count == 0) {
		q->keys--;
		shift_back(q, (uint32_t)i);
	}
}

uint32_t
fx_quota_count(const struct fx_quota *q, const struct fx_quota_key *k)
{
	bool found;
	int64_t i = find(q, k, &found);

	return i >= 0 && found ? q->slot[i].count : 0;
}
