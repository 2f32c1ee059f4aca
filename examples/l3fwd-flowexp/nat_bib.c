/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The binding table of endpoint-independent mapping (nat_bib.h has the
 * design): entries in a slab with a free stack, found by either endpoint
 * through a bucket index, and the per-address session counts of
 * address-dependent filtering.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "fx_index.h"
#include "nat_bib.h"
#include "nat_table.h"
#include "quota.h"

/* the address counts' keys are in a table of their own: any kind byte */
#define BIB_REM_KIND 0xffu

static inline struct nat_key
entry_key(const struct nat_bib_entry *e, uint32_t pub)
{
	return pub ? nat_bib_key(e->pub_addr, e->pub_port, e->proto, 1) :
		nat_bib_key(e->in_addr, e->in_port, e->proto, 0);
}

struct bib_arg {
	const struct nat_bib *b;
	const struct nat_key *key;
};

static bool
key_at(uint32_t ref, const void *arg)
{
	const struct bib_arg *a = arg;
	const struct nat_bib_entry *e = &a->b->e[ref >> 1];
	struct nat_key k = entry_key(e, ref & 1);

	return e->used && nat_key_eq(&k, a->key);
}

static struct nat_bib_entry *
find(const struct nat_bib *b, const struct nat_key *k)
{
	struct bib_arg a = { .b = b, .key = k };
	int64_t ref = fx_ix_find(&b->ix, nat_key_hash(k), key_at, &a);

	return ref >= 0 ? &b->e[ref >> 1] : NULL;
}

uint64_t
nat_bib_bytes(uint32_t capacity, bool adf)
{
	uint64_t b = (uint64_t)rte_align32pow2(RTE_MAX((capacity + 1) / 2, 2u)) *
		sizeof(struct fx_ix_bucket) +
		(uint64_t)capacity * (sizeof(struct nat_bib_entry) + 2 * sizeof(uint32_t));

	if (adf)
		b += rte_align64pow2(2 * (uint64_t)capacity) * sizeof(fx_quota_slot_t);
	return b;
}

int
nat_bib_create(struct nat_bib *b, const char *name, uint32_t capacity,
	       bool adf, int socket)
{
	char qname[32];
	uint32_t i;
	int rc;

	memset(b, 0, sizeof(*b));
	if (capacity == 0 || capacity > UINT32_MAX / 2 || strlen(name) > 20)
		return -EINVAL;
	/* two keys an entry, as the mapping table: half as many buckets
	 * (nat_bib_bytes() counts what is allocated here) */
	rc = fx_ix_create(&b->ix, "nat_bib_buckets", (capacity + 1) / 2, socket);
	if (rc != 0)
		return rc;
	b->e = rte_zmalloc_socket(name, (size_t)capacity * sizeof(*b->e),
				  RTE_CACHE_LINE_SIZE, socket);
	b->free_stack = rte_malloc_socket("nat_bib_free",
					  (size_t)capacity * sizeof(uint32_t),
					  RTE_CACHE_LINE_SIZE, socket);
	/* sessions are mapping records: as many as entries */
	b->of_session = rte_zmalloc_socket("nat_bib_sess",
					   (size_t)capacity * sizeof(uint32_t),
					   RTE_CACHE_LINE_SIZE, socket);
	if (b->e == NULL || b->free_stack == NULL || b->of_session == NULL) {
		nat_bib_free(b);
		return -ENOMEM;
	}
	for (i = 0; i < capacity; i++)
		b->free_stack[i] = capacity - 1 - i;
	b->nb_free = capacity;
	b->capacity = capacity;
	if (adf) {
		snprintf(qname, sizeof(qname), "%s_rem", name);
		rc = fx_quota_init(&b->rem, qname, capacity, socket);
		if (rc != 0) {
			nat_bib_free(b);
			return rc;
		}
	}
	return 0;
}

void
nat_bib_free(struct nat_bib *b)
{
	fx_quota_fini(&b->rem);
	rte_free(b->of_session);
	rte_free(b->free_stack);
	rte_free(b->e);
	fx_ix_free(&b->ix);
	memset(b, 0, sizeof(*b));
}

struct nat_bib_entry *
nat_bib_inside(struct nat_bib *b, uint32_t in_addr, uint16_t in_port,
	       uint8_t proto)
{
	struct nat_key k = nat_bib_key(in_addr, in_port, proto, 0);
	struct nat_bib_entry *e;

	if (b->last_valid && nat_key_eq(&k, &b->last_key))
		return b->last;
	e = find(b, &k);
	b->last = e;
	b->last_key = k;
	b->last_valid = true;
	return e;
}

struct nat_bib_entry *
nat_bib_public(const struct nat_bib *b, uint32_t pub_addr, uint16_t pub_port,
	       uint8_t proto)
{
	struct nat_key k = nat_bib_key(pub_addr, pub_port, proto, 1);

	return find(b, &k);
}

void
nat_bib_prefetch_inside(const struct nat_bib *b, uint32_t in_addr,
			uint16_t in_port, uint8_t proto)
{
	struct nat_key k = nat_bib_key(in_addr, in_port, proto, 0);

	fx_ix_prefetch(&b->ix, nat_key_hash(&k));
}

void
nat_bib_prefetch_public(const struct nat_bib *b, uint32_t pub_addr,
			uint16_t pub_port, uint8_t proto)
{
	struct nat_key k = nat_bib_key(pub_addr, pub_port, proto, 1);

	fx_ix_prefetch(&b->ix, nat_key_hash(&k));
}

struct nat_bib_entry *
nat_bib_add(struct nat_bib *b, const struct nat_bib_entry *tmpl)
{
	struct nat_bib_entry *e;
	struct nat_key in, pub;
	uint32_t idx, sig_in;

	if (b->nb_free == 0)
		return NULL;
	idx = b->free_stack[b->nb_free - 1];
	e = &b->e[idx];
	*e = *tmpl;
	e->refs = 0;
	e->live = 0;
	in = entry_key(e, 0);
	pub = entry_key(e, 1);
	sig_in = nat_key_hash(&in);
	if (fx_ix_insert(&b->ix, sig_in, idx << 1) != 0)
		return NULL;
	if (fx_ix_insert(&b->ix, nat_key_hash(&pub), idx << 1 | 1) != 0) {
		fx_ix_remove(&b->ix, sig_in, idx << 1);
		return NULL;
	}
	e->used = 1;
	b->nb_free--;
	b->last = e;
	b->last_key = in;
	b->last_valid = true;
	/* the next new binding's entry, on its way meanwhile */
	if (b->nb_free != 0)
		rte_prefetch0(&b->e[b->free_stack[b->nb_free - 1]]);
	return e;
}

void
nat_bib_remove(struct nat_bib *b, struct nat_bib_entry *e)
{
	uint32_t idx = (uint32_t)(e - b->e);
	struct nat_key in = entry_key(e, 0), pub = entry_key(e, 1);

	RTE_ASSERT(e->used && e->refs == 0);
	fx_ix_remove(&b->ix, nat_key_hash(&in), idx << 1);
	fx_ix_remove(&b->ix, nat_key_hash(&pub), idx << 1 | 1);
	e->used = 0;
	if (b->last == e)
		b->last_valid = false;
	b->free_stack[b->nb_free++] = idx;
}

static inline struct fx_quota_key
rem_key(const struct nat_bib *b, const struct nat_bib_entry *e, uint32_t rem_addr)
{
	struct fx_quota_key k = {
		.k0 = (uint64_t)(uint32_t)(e - b->e) | (uint64_t)rem_addr << 32,
		.k1 = BIB_REM_KIND << 24,
	};

	return k;
}

bool
nat_bib_rem_take(struct nat_bib *b, const struct nat_bib_entry *e,
		 uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	return !fx_quota_on(&b->rem) || fx_quota_take(&b->rem, &k, UINT32_MAX) == 0;
}

void
nat_bib_rem_put(struct nat_bib *b, const struct nat_bib_entry *e,
		uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	if (fx_quota_on(&b->rem))
		fx_quota_put(&b->rem, &k);
}

bool
nat_bib_rem_seen(const struct nat_bib *b, const struct nat_bib_entry *e,
		 uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	return fx_quota_count(&b->rem, &k) != 0;
}
