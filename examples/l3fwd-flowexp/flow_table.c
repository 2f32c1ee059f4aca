/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Flow table set-up, the main lcore's consistent read of a slot, and the
 * delete-request ring (see flow_table.h for the publication protocol).
 *
 * The hash is created for max_flows plus an eighth (FX_FT_HEADROOM) and
 * with extendable buckets, so that it never refuses a key while fewer than
 * max_flows are in it; the worker enforces max_flows itself. The headroom
 * matters at the limit: in a cuckoo hash that is completely full, an
 * insert into a freed slot first runs the displacement search over about
 * a thousand buckets before it falls back to an extendable bucket (the
 * insert after an eviction cost about three times a whole new flow when
 * the table was sized exactly). rte_hash_add_key's position is always
 * below the slab's length. No reader-writer flags: only the owner lcore
 * touches the hash.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "flow_table.h"

#define FX_DEL_RING_SIZE 4096

const char *const fx_tmo_names[FX_TMO_MAX] = {
#define FX_TMO_NAME(e, n, o, d) n,
	FX_TMOS(FX_TMO_NAME)
#undef FX_TMO_NAME
};

/* rte_hash key compare: 40 bytes as five 8-byte words */
static int
fx_key_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	uint64_t x[5], y[5];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		(x[3] ^ y[3]) | (x[4] ^ y[4])) != 0;
}

int
ft_create(struct fx_flow_table *ft, const char *name, uint32_t max_flows,
	  int socket, bool del_ring)
{
	uint32_t capacity = max_flows + RTE_MAX(max_flows / FX_FT_HEADROOM, 64u);
	char hname[RTE_HASH_NAMESIZE], rname[RTE_RING_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = hname,
		.entries = capacity,
		.key_len = sizeof(struct fx_key),
		.hash_func = rte_hash_crc,
		.hash_func_init_val = 0,
		.socket_id = socket,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	RTE_BUILD_BUG_ON(sizeof(struct fx_key) != 40);
	RTE_BUILD_BUG_ON(sizeof(struct fx_flow) != RTE_CACHE_LINE_SIZE);
	memset(ft, 0, sizeof(*ft));
	snprintf(hname, sizeof(hname), "FXH_%s", name);
	ft->hash = rte_hash_create(&hp);
	if (ft->hash == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	rte_hash_set_cmp_func(ft->hash, fx_key_cmp);
	ft->flows = rte_zmalloc_socket("fx_flows",
				       (size_t)capacity * sizeof(struct fx_flow),
				       RTE_CACHE_LINE_SIZE, socket);
	if (ft->flows == NULL) {
		ft_free(ft);
		return -ENOMEM;
	}
	ft->capacity = capacity;
	if (del_ring) {
		snprintf(rname, sizeof(rname), "FXD_%s", name);
		ft->del_ring = rte_ring_create_elem(rname,
				sizeof(struct fx_del_req), FX_DEL_RING_SIZE,
				socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ft->del_ring == NULL) {
			ft_free(ft);
			return -(rte_errno ? rte_errno : ENOMEM);
		}
	}
	return 0;
}

void
ft_free(struct fx_flow_table *ft)
{
	rte_ring_free(ft->del_ring);
	rte_free(ft->flows);
	rte_hash_free(ft->hash);
	memset(ft, 0, sizeof(*ft));
}

void
ft_delete_bulk(struct fx_flow_table *ft, struct fx_flow *const *f,
	       unsigned int n)
{
	const void *keys[RTE_HASH_LOOKUP_BULK_MAX];
	hash_sig_t sig[RTE_HASH_LOOKUP_BULK_MAX];
	int32_t pos[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, m;

	while (n != 0) {
		m = RTE_MIN(n, (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		for (i = 0; i < m; i++) {
			keys[i] = &f[i]->key;
			sig[i] = f[i]->sig;
		}
		rte_hash_lookup_with_hash_bulk(ft->hash, keys, sig, m, pos);
		for (i = 0; i < m; i++)
			rte_hash_del_key_with_hash(ft->hash, keys[i], sig[i]);
		f += m;
		n -= m;
	}
}

int
ft_snapshot(const struct fx_flow *f, uint64_t *fid, struct fx_key *key)
{
	uint64_t a, b;

	a = __atomic_load_n(&f->fid, __ATOMIC_ACQUIRE);
	if (a == 0)
		return 0;
	memcpy(key, &f->key, sizeof(*key));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	b = __atomic_load_n(&f->fid, __ATOMIC_RELAXED);
	if (a != b)
		return 0;
	*fid = a;
	return 1;
}

int
ft_request_delete(struct fx_flow_table *ft, uint32_t slot, uint64_t fid)
{
	struct fx_del_req r = { .fid = fid, .slot = slot };

	if (ft->del_ring == NULL)
		return -ENOTSUP;
	if (rte_ring_enqueue_elem(ft->del_ring, &r, sizeof(r)) != 0)
		return -ENOBUFS;
	return 0;
}

unsigned int
ft_apply_requests(struct fx_flow_table *ft, unsigned int n,
		  void (*del)(struct fx_flow *f, void *arg), void *arg)
{
	struct fx_del_req req[32];
	unsigned int got, i, total = 0;
	struct fx_flow *f;

	if (ft->del_ring == NULL)
		return 0;
	while (total < n) {
		got = rte_ring_dequeue_burst_elem(ft->del_ring, req, sizeof(req[0]),
				RTE_MIN(n - total, RTE_DIM(req)), NULL);
		if (got == 0)
			break;
		for (i = 0; i < got; i++) {
			if (req[i].slot >= ft->capacity)
				continue;
			f = &ft->flows[req[i].slot];
			if (f->fid != 0 && f->fid == req[i].fid)
				del(f, arg);
		}
		total += got;
	}
	return total;
}
