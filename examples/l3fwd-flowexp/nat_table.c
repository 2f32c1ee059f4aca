/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT mapping table: records, both keys of each in one rte_hash, the
 * LIVE -> HELD -> free life of a mapping (nat_table.h has the design).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "fxhash.h"
#include "nat_table.h"

/* rte_hash key compare: 16 bytes as two 8-byte words */
static int
nat_key_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) != 0;
}

int
nat_table_create(struct nat_table *t, const char *name, uint32_t capacity,
		 int socket)
{
	char hname[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = hname,
		/* two keys per mapping; rte_hash wants a bucket's worth */
		.entries = RTE_MAX(2 * capacity, 16u),
		.key_len = sizeof(struct nat_key),
		.hash_func = fx_hash_rte,   /* keyed: the outside chooses keys */
		.hash_func_init_val = 0,
		.socket_id = socket,
		/* an insert never fails while records remain */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	uint32_t i;

	RTE_BUILD_BUG_ON(sizeof(struct nat_key) != 16);
	RTE_BUILD_BUG_ON(sizeof(struct nat_mapping) != 64);
	memset(t, 0, sizeof(*t));
	if (capacity == 0 || capacity > UINT32_MAX / 2 || strlen(name) > 20)
		return -EINVAL;
	snprintf(hname, sizeof(hname), "NATH_%s", name);
	t->hash = rte_hash_create(&hp);
	if (t->hash == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	rte_hash_set_cmp_func(t->hash, nat_key_cmp);
	t->rec = rte_zmalloc_socket("nat_mappings",
				    (size_t)capacity * sizeof(*t->rec),
				    RTE_CACHE_LINE_SIZE, socket);
	t->free_stack = rte_malloc_socket("nat_free",
					  (size_t)capacity * sizeof(uint32_t),
					  RTE_CACHE_LINE_SIZE, socket);
	if (t->rec == NULL || t->free_stack == NULL) {
		nat_table_free(t);
		return -ENOMEM;
	}
	/* lowest index on top, so a fresh table fills the slab in order;
	 * every free record is in a write section (nat_table.h) */
	for (i = 0; i < capacity; i++) {
		t->free_stack[i] = capacity - 1 - i;
		rte_seqcount_write_begin(&t->rec[i].seq);
	}
	t->nb_free = capacity;
	t->capacity = capacity;
	return 0;
}

void
nat_table_free(struct nat_table *t)
{
	rte_free(t->free_stack);
	rte_free(t->rec);
	rte_hash_free(t->hash);
	memset(t, 0, sizeof(*t));
}

void
nat_table_lookup_bulk(const struct nat_table *t, const struct nat_key **keys,
		      unsigned int n, struct nat_mapping **out)
{
	void *data[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t hits = 0;
	unsigned int i;

	RTE_ASSERT(n <= RTE_HASH_LOOKUP_BULK_MAX);
	if (n == 0)
		return;
	rte_hash_lookup_bulk_data(t->hash, (const void **)keys, n, &hits, data);
	for (i = 0; i < n; i++)
		out[i] = (hits >> i) & 1 ?
			&t->rec[(uint32_t)(uintptr_t)data[i]] : NULL;
}

void
nat_table_warm(const struct nat_table *t, struct nat_mapping *const *m,
	       unsigned int n)
{
	struct nat_key keys[RTE_HASH_LOOKUP_BULK_MAX];
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	int32_t pos[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i;

	RTE_ASSERT(n <= RTE_HASH_LOOKUP_BULK_MAX);
	for (i = 0; i < n; i++) {
		keys[i] = m[i]->state == NAT_LIVE ? nat_key_out(m[i]) : nat_key_in(m[i]);
		kp[i] = &keys[i];
	}
	if (n != 0)
		rte_hash_lookup_bulk(t->hash, kp, n, pos);
}

bool
nat_table_tuple_taken(const struct nat_table *t, uint32_t pub_addr,
		      uint16_t pub_port, uint32_t rem_addr, uint16_t rem_port,
		      uint8_t proto)
{
	struct nat_key k = {
		.src = rem_addr, .dst = pub_addr,
		.sport = proto == IPPROTO_ICMP ? pub_port : rem_port,
		.dport = pub_port, .proto = proto,
	};

	return rte_hash_lookup(t->hash, &k) >= 0;
}

/* take a free record, fill it from tmpl and add both keys; the keys are
 * known to be absent */
static struct nat_mapping *
insert(struct nat_table *t, const struct nat_mapping *tmpl, int *err)
{
	struct nat_key out, in;
	struct nat_mapping *m;
	rte_seqcount_t seq;
	uint32_t idx;
	int rc;

	if (t->nb_free == 0) {
		*err = -ENOSPC;
		return NULL;
	}
	idx = t->free_stack[t->nb_free - 1];
	m = &t->rec[idx];
	seq = m->seq;   /* the template's is not the record's */
	*m = *tmpl;
	m->seq = seq;
	m->id = 0;
	m->held_until = 0;
	m->state = NAT_LIVE;
	out = nat_key_out(m);
	in = nat_key_in(m);
	rc = rte_hash_add_key_data(t->hash, &out, (void *)(uintptr_t)idx);
	if (rc == 0) {
		rc = rte_hash_add_key_data(t->hash, &in, (void *)(uintptr_t)idx);
		if (rc != 0)
			rte_hash_del_key(t->hash, &out);
	}
	if (rc != 0) {
		m->state = NAT_FREE;
		*err = -ENOSPC;
		return NULL;
	}
	t->nb_free--;
	return m;
}

struct nat_mapping *
nat_table_insert(struct nat_table *t, const struct nat_mapping *tmpl, int *err)
{
#ifdef RTE_ENABLE_ASSERT
	struct nat_mapping probe = *tmpl;
	struct nat_key out = nat_key_out(&probe), in = nat_key_in(&probe);

	RTE_ASSERT(rte_hash_lookup(t->hash, &out) < 0 &&
		   rte_hash_lookup(t->hash, &in) < 0);
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
	/* rte_hash_add_key_data() would replace an existing key's data */
	if (rte_hash_lookup(t->hash, &out) >= 0 ||
	    rte_hash_lookup(t->hash, &in) >= 0 ||
	    memcmp(&out, &in, sizeof(out)) == 0) {
		*err = -EEXIST;
		return NULL;
	}
	return insert(t, tmpl, err);
}

void
nat_table_hold(struct nat_table *t, struct nat_mapping *m,
	       uint64_t held_until, uint64_t id)
{
	struct nat_key out = nat_key_out(m);

	RTE_ASSERT(m->state == NAT_LIVE);
	/* no longer a live mapping for the control path: the count goes odd
	 * before anything changes (release fence) */
	rte_seqcount_write_begin(&m->seq);
	rte_hash_del_key(t->hash, &out);
	m->state = NAT_HELD;
	m->held_until = held_until;
	m->id = id;
}

void
nat_table_remove(struct nat_table *t, struct nat_mapping *m)
{
	struct nat_key out = nat_key_out(m), in = nat_key_in(m);

	RTE_ASSERT(m->state == NAT_LIVE || m->state == NAT_HELD);
	/* a published live mapping leaves the readers' view first; a held
	 * one, or one never published, is in its write section already */
	if (m->state == NAT_LIVE && m->id != 0)
		rte_seqcount_write_begin(&m->seq);
	m->id = 0;
	if (m->state == NAT_LIVE)
		rte_hash_del_key(t->hash, &out);
	rte_hash_del_key(t->hash, &in);
	m->state = NAT_FREE;
	t->free_stack[t->nb_free++] = nat_table_index(t, m);
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
