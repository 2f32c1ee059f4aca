/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT mapping table: records, both keys of each in a bucket index
 * (base/index.h), the LIVE -> HELD -> free life of a mapping (nat/table.h
 * has the design).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "base/index.h"
#include "nat/table.h"

int
nat_table_create(struct nat_table *t, const char *name, uint32_t capacity,
		 int socket)
{
	uint32_t i;
	int rc;

	RTE_BUILD_BUG_ON(sizeof(struct nat_key) != 16);
	RTE_BUILD_BUG_ON(sizeof(struct nat_mapping) != 64);
	memset(t, 0, sizeof(*t));
	if (capacity == 0 || capacity > UINT32_MAX / 2 || strlen(name) > 20)
		return -EINVAL;
	/* two keys per mapping: a power of two of buckets, at least half
	 * the records (3.5 pairs each) */
	rc = fx_ix_create(&t->ix, "nat_buckets", (capacity + 1) / 2, socket);
	if (rc != 0)
		return rc;
	t->rec = rte_zmalloc_socket("nat_mappings",
				    (size_t)capacity * sizeof(*t->rec),
				    RTE_CACHE_LINE_SIZE, socket);
	if (t->rec == NULL) {
		nat_table_free(t);
		return -ENOMEM;
	}
	/* lowest index first, so a fresh table fills the slab in order;
	 * every free record is in a write section (nat/table.h) */
	for (i = 0; i < capacity; i++) {
		t->rec[i].next_free = i + 1;
		rte_seqcount_write_begin(&t->rec[i].seq);
	}
	t->free_head = 0;
	t->nb_free = capacity;
	t->capacity = capacity;
	return 0;
}

void
nat_table_free(struct nat_table *t)
{
	rte_free(t->rec);
	fx_ix_free(&t->ix);
	memset(t, 0, sizeof(*t));
}

/* key `in` (0 out, 1 in) of record m */
static inline struct nat_key
key_of(const struct nat_mapping *m, uint32_t in)
{
	return in ? nat_key_in(m) : nat_key_out(m);
}

struct key_arg {
	const struct nat_table *t;
	const struct nat_key *key;
};

/* the index's key compare: in the record */
static inline bool
key_at(uint32_t ref, const void *arg)
{
	const struct key_arg *a = arg;
	struct nat_key k = key_of(&a->t->rec[ref >> 1], ref & 1);

	return nat_key_eq(&k, a->key);
}

/* the record of key k with hash, or NULL */
static inline struct nat_mapping *
find(const struct nat_table *t, const struct nat_key *k, uint32_t hash)
{
	struct key_arg a = { .t = t, .key = k };
	int64_t ref = fx_ix_find(&t->ix, hash, key_at, &a);

	return ref >= 0 ? &t->rec[ref >> 1] : NULL;
}

void
nat_table_lookup_bulk(const struct nat_table *t, const struct nat_key **keys,
		      unsigned int n, struct nat_mapping **out)
{
	uint32_t hash[NAT_TABLE_BULK_MAX];
	int64_t cand[NAT_TABLE_BULK_MAX];
	struct nat_key k;
	unsigned int i;

	RTE_ASSERT(n <= NAT_TABLE_BULK_MAX);
	for (i = 0; i < n; i++) {
		hash[i] = nat_key_hash(keys[i]);
		fx_ix_prefetch(&t->ix, hash[i]);
	}
	for (i = 0; i < n; i++) {
		cand[i] = fx_ix_candidate(&t->ix, hash[i]);
		if (cand[i] >= 0)
			rte_prefetch0(&t->rec[cand[i] >> 1]);
	}
	for (i = 0; i < n; i++) {
		/* the first candidate of the home bucket is the record
		 * nearly always; an equal tag of another key, or a key
		 * that may have spilled, takes the whole lookup */
		if (cand[i] >= 0) {
			k = key_of(&t->rec[cand[i] >> 1], cand[i] & 1);
			if (likely(nat_key_eq(&k, keys[i]))) {
				out[i] = &t->rec[cand[i] >> 1];
				continue;
			}
		}
		out[i] = cand[i] == -ENOENT ? NULL : find(t, keys[i], hash[i]);
	}
}

void
nat_table_warm(const struct nat_table *t, struct nat_mapping *const *m,
	       unsigned int n)
{
	struct nat_key k;
	unsigned int i;

	RTE_ASSERT(n <= NAT_TABLE_BULK_MAX);
	for (i = 0; i < n; i++) {
		k = key_of(m[i], m[i]->state != NAT_LIVE);
		fx_ix_prefetch(&t->ix, nat_key_hash(&k));
	}
}

bool
nat_table_tuple_taken(const struct nat_table *t, uint32_t pub_addr,
		      uint16_t pub_port, uint32_t rem_addr, uint16_t rem_port,
		      uint8_t proto)
{
	struct nat_key k = nat_tuple_key(pub_addr, pub_port, rem_addr, rem_port, proto);

	return find(t, &k, nat_key_hash(&k)) != NULL;
}

/* take a free record, fill it from tmpl and add both keys; the keys are
 * known to be absent */
static struct nat_mapping *
insert(struct nat_table *t, const struct nat_mapping *tmpl, int *err)
{
	struct nat_key out, in;
	struct nat_mapping *m;
	rte_seqcount_t seq;
	uint32_t idx, hash_out, next;

	if (t->nb_free == 0) {
		*err = -ENOSPC;
		return NULL;
	}
	idx = t->free_head;
	m = &t->rec[idx];
	seq = m->seq;   /* the template's is not the record's */
	next = m->next_free;
	*m = *tmpl;
	m->seq = seq;
	m->id = 0;
	m->state = NAT_LIVE;
	out = nat_key_out(m);
	in = nat_key_in(m);
	hash_out = nat_key_hash(&out);
	if (fx_ix_insert(&t->ix, hash_out, NAT_REF(idx, 0)) != 0)
		goto refused;
	if (fx_ix_insert(&t->ix, nat_key_hash(&in), NAT_REF(idx, 1)) != 0) {
		fx_ix_remove(&t->ix, hash_out, NAT_REF(idx, 0));
		goto refused;
	}
	t->nb_free--;
	t->free_head = next;
	/* the next new mapping's record, on its way meanwhile */
	if (t->nb_free != 0)
		rte_prefetch0(&t->rec[next]);
	return m;
refused:
	m->state = NAT_FREE;
	m->next_free = next;
	*err = -EOVERFLOW;
	return NULL;
}

struct nat_mapping *
nat_table_insert(struct nat_table *t, const struct nat_mapping *tmpl, int *err)
{
#ifdef RTE_ENABLE_ASSERT
	struct nat_mapping probe = *tmpl;
	struct nat_key out = nat_key_out(&probe), in = nat_key_in(&probe);

	RTE_ASSERT(find(t, &out, nat_key_hash(&out)) == NULL &&
		   find(t, &in, nat_key_hash(&in)) == NULL);
#endif
	return insert(t, tmpl, err);
}

struct nat_mapping *
nat_table_add(struct nat_table *t, const struct nat_mapping *tmpl, int *err)
{
	struct nat_mapping probe = *tmpl;
	struct nat_key out, in;

	probe.state = NAT_LIVE;
	out = nat_key_out(&probe);
	in = nat_key_in(&probe);
	if (find(t, &out, nat_key_hash(&out)) != NULL ||
	    find(t, &in, nat_key_hash(&in)) != NULL ||
	    nat_key_eq(&out, &in)) {
		*err = -EEXIST;
		return NULL;
	}
	return insert(t, tmpl, err);
}

/* remove key `in` of record m from the index */
static inline void
unindex(struct nat_table *t, struct nat_mapping *m, uint32_t in)
{
	struct nat_key k = key_of(m, in);
	bool found = fx_ix_remove(&t->ix, nat_key_hash(&k),
				  NAT_REF(nat_table_index(t, m), in));

	RTE_ASSERT(found);
	RTE_SET_USED(found);
}

void
nat_table_hold(struct nat_table *t, struct nat_mapping *m,
	       uint64_t held_until, uint64_t id)
{
	RTE_ASSERT(m->state == NAT_LIVE);
	/* no longer a live mapping for the control path: the count goes odd
	 * before anything changes (release fence) */
	rte_seqcount_write_begin(&m->seq);
	unindex(t, m, 0);
	m->state = NAT_HELD;
	m->held_until = held_until;
	m->id = id;
}

int
nat_table_unhold(struct nat_table *t, struct nat_mapping *m)
{
	struct nat_key k;

	RTE_ASSERT(m->state == NAT_HELD);
	k = nat_key_out(m);
	if (fx_ix_insert(&t->ix, nat_key_hash(&k), NAT_REF(nat_table_index(t, m), 0)) != 0)
		return -EOVERFLOW;
	m->state = NAT_LIVE;
	m->held_until = 0;
	return 0;
}

void
nat_table_remove(struct nat_table *t, struct nat_mapping *m)
{
	RTE_ASSERT(m->state == NAT_LIVE || m->state == NAT_HELD);
	/* a published live mapping leaves the readers' view first; a held
	 * one, or one never published, is in its write section already */
	if (m->state == NAT_LIVE && m->id != 0)
		rte_seqcount_write_begin(&m->seq);
	m->id = 0;
	if (m->state == NAT_LIVE)
		unindex(t, m, 0);
	unindex(t, m, 1);
	m->state = NAT_FREE;
	m->next_free = t->free_head;
	t->free_head = nat_table_index(t, m);
	t->nb_free++;
}

int
nat_table_snapshot(const struct nat_mapping *m, uint64_t *id, uint32_t *in_addr)
{
	uint32_t sn, addr;
	uint64_t a;

	/* pairs with nat_table_publish()'s write end (acquire) */
	sn = rte_seqcount_read_begin(&m->seq);
	a = m->id;
	addr = m->in_addr;
	/* odd: not a published live mapping; moved: it changed meanwhile */
	if (rte_seqcount_read_retry(&m->seq, sn))
		return 0;
	*id = a;
	*in_addr = addr;
	return 1;
}
