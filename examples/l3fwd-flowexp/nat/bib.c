/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The binding table of endpoint-independent mapping (nat/bib.h has the
 * design): entries by the port unit of their public endpoint, found by
 * their inside endpoint at its home or through a bucket index, and the
 * per-address
 * session counts of address-dependent filtering.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "base/index.h"
#include "base/quota.h"
#include "nat/bib.h"
#include "nat/table.h"

/* the address counts' keys are in a table of their own: any kind byte */
#define BIB_REM_KIND 0xffu

struct bib_arg {
	const struct nat_bib *b;
	const struct nat_key *key;
};

static bool
key_at(uint32_t ref, const void *arg)
{
	const struct bib_arg *a = arg;

	return nat_bib_is_of(nat_bib_at(a->b, ref), a->key);
}

static struct nat_bib_entry *
find(const struct nat_bib *b, const struct nat_key *k, uint32_t hash)
{
	struct bib_arg a = { .b = b, .key = k };
	int64_t ref = fx_ix_find(&b->ix, hash, key_at, &a);

	return ref >= 0 ? nat_bib_at(b, (uint32_t)ref) : NULL;
}

/* one key an entry: a quarter as many buckets as entries, 1.75 pairs a
 * key (base/index.h) */
static inline uint32_t
buckets(uint32_t capacity)
{
	return RTE_MAX((capacity + 3) / 4, 2u);
}

uint64_t
nat_bib_bytes(uint32_t capacity, uint64_t units, bool adf)
{
	uint64_t b = (uint64_t)rte_align32pow2(buckets(capacity)) *
		sizeof(struct fx_ix_bucket) +
		units * sizeof(struct nat_bib_entry);

	if (adf)
		b += rte_align64pow2(2 * (uint64_t)capacity) * sizeof(fx_quota_slot_t);
	return b;
}

int
nat_bib_create(struct nat_bib *b, const char *name, uint32_t capacity,
	       const struct nat_ports *np, bool adf, int socket)
{
	char qname[32];
	int rc;

	memset(b, 0, sizeof(*b));
	if (capacity == 0 || capacity == UINT32_MAX || np->unit == NULL ||
	    np->unit_shift != 4 || np->units > UINT32_MAX || strlen(name) > 20)
		return -EINVAL;
	/* nat_bib_bytes() counts what is allocated here, and the entries in
	 * the allocator's array */
	rc = fx_ix_create(&b->ix, "nat_bib_buckets", buckets(capacity), socket);
	if (rc != 0)
		return rc;
	/* an entry fills the room beside its unit's counts */
	RTE_BUILD_BUG_ON(sizeof(struct nat_bib_entry) != sizeof(struct nat_port_unit));
	b->base = (uintptr_t)nat_ports_beside(np, 0);
	b->shift = np->unit_shift;
	b->units = (uint32_t)np->units;
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
	fx_ix_free(&b->ix);
	memset(b, 0, sizeof(*b));
}

static inline void
remember(struct nat_bib *b, const struct nat_key *k, struct nat_bib_entry *e)
{
	b->last = e;
	b->last_key = *k;
	b->last_valid = true;
}

struct nat_bib_entry *
nat_bib_inside_index(struct nat_bib *b, const struct nat_key *k)
{
	struct nat_bib_entry *e;

	b->last_hash = nat_key_hash(k);
	b->last_hashed = true;
	e = find(b, k, b->last_hash);
	remember(b, k, e);
	return e;
}

void
nat_bib_prefetch_inside(const struct nat_bib *b, uint32_t in_addr,
			uint16_t in_port, uint8_t proto)
{
	struct nat_key k = nat_bib_key(in_addr, in_port, proto);

	fx_ix_prefetch(&b->ix, nat_key_hash(&k));
}

struct nat_bib_entry *
nat_bib_add_away(struct nat_bib *b, uint32_t in_addr, uint16_t in_port,
		 uint8_t proto, uint32_t unit, uint32_t home)
{
	struct nat_key in = nat_bib_key(in_addr, in_port, proto);
	struct nat_bib_entry *e = nat_bib_at(b, unit), *h;
	uint32_t hash;

	RTE_ASSERT(!e->used && unit != home);
	if (b->nb == b->capacity)
		return NULL;
	/* the index, and the home's count */
	hash = b->last_valid && b->last_hashed &&
		nat_key_eq(&in, &b->last_key) ? b->last_hash : nat_key_hash(&in);
	if (fx_ix_insert(&b->ix, hash, unit) != 0)
		return NULL;
	if (home != NAT_BIB_NO_HOME) {
		h = nat_bib_at(b, home);
		if (h->away < NAT_BIB_AWAY_MAX)
			h->away++;
	}
	nat_bib_fill(b, e, in_addr, in_port, proto);
	/* the index's answer for it now, with its hash */
	remember(b, &in, e);
	b->last_hashed = true;
	b->last_hash = hash;
	return e;
}

void
nat_bib_remove_away(struct nat_bib *b, struct nat_bib_entry *e, uint32_t home)
{
	struct nat_key in = nat_bib_entry_key(e);
	struct nat_bib_entry *h;

	fx_ix_remove(&b->ix, nat_key_hash(&in), nat_bib_unit(b, e));
	if (home != NAT_BIB_NO_HOME) {
		/* saturated, it stays: its lookups probe the index */
		h = nat_bib_at(b, home);
		RTE_ASSERT(h->away > 0);
		if (h->away < NAT_BIB_AWAY_MAX)
			h->away--;
	}
}

static inline struct fx_quota_key
rem_key(const struct nat_bib *b, const struct nat_bib_entry *e, uint32_t rem_addr)
{
	struct fx_quota_key k = {
		.k0 = (uint64_t)nat_bib_unit(b, e) | (uint64_t)rem_addr << 32,
		.k1 = BIB_REM_KIND << 24,
	};

	return k;
}

bool
nat_bib_rem_count(struct nat_bib *b, const struct nat_bib_entry *e,
		  uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	return fx_quota_take(&b->rem, &k, UINT32_MAX) == 0;
}

void
nat_bib_rem_uncount(struct nat_bib *b, const struct nat_bib_entry *e,
		    uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	fx_quota_put(&b->rem, &k);
}

bool
nat_bib_rem_seen(const struct nat_bib *b, const struct nat_bib_entry *e,
		 uint32_t rem_addr)
{
	struct fx_quota_key k = rem_key(b, e, rem_addr);

	return fx_quota_count(&b->rem, &k) != 0;
}
