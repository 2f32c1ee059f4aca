/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Per-host quota table (base/quota.h): linear probing over a keyed hash with a
 * bounded probe length, hash bits in place of the keys, backward-shift
 * deletion.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "base/config.h"
#include "base/hash.h"
#include "base/quota.h"

int
fx_quota_init(struct fx_quota *q, const char *name, uint32_t keys, int socket)
{
	uint64_t slots;

	q->slot = NULL;
	q->mask = 0;
	q->keys = 0;
	RTE_BUILD_BUG_ON(FX_QUOTA_PROBES > (1u << FX_QUOTA_DISP_BITS));
	RTE_BUILD_BUG_ON(FX_MAX_FLOWS_MAX >= (1u << FX_QUOTA_COUNT_BITS));
	RTE_BUILD_BUG_ON(FX_QUOTA_TAG_SHIFT != 31);
	if (keys == 0 || keys > FX_QUOTA_SLOTS_MAX / 2)
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

/* the slot word of a key of hash h at distance d from its home, count c */
static inline fx_quota_slot_t
slot_word(uint64_t h, uint32_t d, uint32_t c)
{
	return (h >> FX_QUOTA_TAG_SHIFT) << FX_QUOTA_TAG_SHIFT |
		(uint64_t)d << FX_QUOTA_COUNT_BITS | c;
}

/* whether slot word s, at distance d from the home of hash h, is that key */
static inline bool
slot_is(fx_quota_slot_t s, uint64_t h, uint32_t d)
{
	return (s >> FX_QUOTA_COUNT_BITS) ==
		((h >> FX_QUOTA_TAG_SHIFT) << FX_QUOTA_DISP_BITS | d);
}

/* the slot of hash h, or of the first free slot on its run (*found false),
 * or -1 when neither lies within FX_QUOTA_PROBES of its home; *d its
 * distance from the home */
static int64_t
find(const struct fx_quota *q, uint64_t h, bool *found, uint32_t *d)
{
	uint32_t home = (uint32_t)h & q->mask, i, s;

	for (i = 0; i < FX_QUOTA_PROBES && i <= q->mask; i++) {
		s = (home + i) & q->mask;
		*d = i;
		if (q->slot[s] == 0) {
			*found = false;
			return s;
		}
		if (slot_is(q->slot[s], h, i)) {
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
	uint64_t h = fx_quota_hash(k);
	fx_quota_slot_t *s;
	bool found;
	uint32_t d;
	int64_t i = find(q, h, &found, &d);

	if (i < 0)
		return -ENOSPC;
	s = &q->slot[i];
	if (found) {
		if (fx_quota_slot_count(*s) >= limit)
			return -EDQUOT;
		(*s)++;   /* the count is the low field; limit < 2^25 */
		return 0;
	}
	if (limit == 0)
		return -EDQUOT;
	*s = slot_word(h, d, 1);
	q->keys++;
	return 0;
}

/* empty slot i: move up the keys of the run after it that may go there */
static void
shift_back(struct fx_quota *q, uint32_t i)
{
	uint32_t j = i, d, gap;

	for (;;) {
		j = (j + 1) & q->mask;
		if (q->slot[j] == 0 || j == i)
			break;
		d = fx_quota_slot_disp(q->slot[j]);
		gap = (j - i) & q->mask;
		/* the key at j may move to i unless its home lies in (i, j] */
		if (d >= gap) {
			q->slot[i] = q->slot[j] - ((uint64_t)gap << FX_QUOTA_COUNT_BITS);
			i = j;
		}
	}
	q->slot[i] = 0;
}

void
fx_quota_put(struct fx_quota *q, const struct fx_quota_key *k)
{
	bool found;
	uint32_t d;
	int64_t i = find(q, fx_quota_hash(k), &found, &d);

	if (i < 0 || !found)
		return;   /* not taken: a caller's bug, nothing to undo */
	if (fx_quota_slot_count(--q->slot[i]) == 0) {
		q->keys--;
		shift_back(q, (uint32_t)i);
	}
}

uint32_t
fx_quota_count(const struct fx_quota *q, const struct fx_quota_key *k)
{
	bool found;
	uint32_t d;
	int64_t i = find(q, fx_quota_hash(k), &found, &d);

	return i >= 0 && found ? fx_quota_slot_count(q->slot[i]) : 0;
}
