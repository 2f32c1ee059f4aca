/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the flow table's index (flow_table.h) against a reference
 * model: random adds, lookups (single and bulk), removals and bulk
 * deletes, with the key's real hash and with hashes made to collide (few
 * distinct values: equal tags, long spill chains, wrap-around at the last
 * bucket). After every step the index must agree with the model, and
 * every so often each bucket's spill count must equal the one recomputed
 * from where the keys sit. Prints how many keys sit outside their home
 * bucket in a full table with the real hash.
 *
 * Exit 0 when every check passed, 1 otherwise.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_random.h>

#include "../flow_table.h"

static uint64_t checks, failures;

#define CHECK(cond, ...) do { \
	checks++; \
	if (!(cond)) { \
		if (failures++ < 20) { \
			printf("FAIL %s:%d: ", __func__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} \
} while (0)

#define NKEYS 6000

struct model {
	struct fx_key key[NKEYS];
	int32_t slot[NKEYS];      /* -1: not in the table */
	uint8_t taken[NKEYS];     /* by slot: handed out and not freed */
	uint32_t n;               /* keys in the table */
};

enum sig_kind { SIG_REAL, SIG_FEW, SIG_ONE };

static uint32_t
sig_of(const struct fx_key *k, enum sig_kind kind)
{
	switch (kind) {
	case SIG_FEW:
		return ft_hash(k) & 0x7;       /* 8 values: equal tags, spills */
	case SIG_ONE:
		/* every key in one chain, from the last bucket (times the
		 * multiplier, this is 0xffffffff) */
		return 0xf174d0afu;
	default:
		return ft_hash(k);
	}
}

static void
make_keys(struct model *m)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < NKEYS; i++) {
		m->key[i].addr[0][0] = 10;
		memcpy(&m->key[i].addr[0][1], &i, 3);
		m->key[i].addr[1][0] = 192;
		m->key[i].port[0] = (uint16_t)(i * 7);
		m->key[i].port[1] = 53;
		m->key[i].proto = 17;
		m->key[i].family = FX_FAMILY_V4;
		m->slot[i] = -1;
	}
}

/* each bucket's spill count, recomputed from where the keys sit */
static void
check_spills(const struct fx_flow_table *ft, enum sig_kind kind)
{
	uint32_t nb = ft->bucket_mask + 1, b, j, h, sig, used = 0;
	uint32_t *want = calloc(nb, sizeof(*want));
	const struct ft_bucket *bk;

	for (b = 0; b < nb; b++) {
		bk = &ft->buckets[b];
		for (j = 0; j < FT_BUCKET_PAIRS; j++) {
			if (bk->tag[j] == 0)
				continue;
			used++;
			CHECK(bk->slot[j] < ft->capacity, "slot %u in range", bk->slot[j]);
			sig = sig_of(&ft->flows[bk->slot[j]].key, kind);
			CHECK(bk->tag[j] == (sig | 1),
			      "tag of bucket %u pair %u is its flow's hash", b, j);
			for (h = ft_home(ft, sig); h != b;
			     h = (h + 1) & ft->bucket_mask)
				want[h]++;
		}
	}
	for (b = 0; b < nb; b++)
		CHECK(ft->buckets[b].spilled == want[b], "bucket %u spilled %u, want %u",
		      b, ft->buckets[b].spilled, want[b]);
	CHECK(used + ft->n_free == ft->capacity, "pairs used %u + free slots %u == capacity %u",
	      used, ft->n_free, ft->capacity);
	free(want);
}

static void
run_model(enum sig_kind kind, uint32_t max_flows, unsigned int steps)
{
	static struct model m;
	struct fx_flow_table ft;
	const struct fx_key *keys[32];
	struct fx_flow *gone[32];
	uint32_t sig[32], gone_sig[32], i, k, n;
	int32_t pos[32], p;
	bool added;
	unsigned int s;

	make_keys(&m);
	CHECK(ft_create(&ft, "unit", max_flows, 0, false) == 0, "ft_create(%u)", max_flows);
	for (s = 0; s < steps; s++) {
		k = (uint32_t)(rte_rand() % NKEYS);
		switch (rte_rand() % 8) {
		case 0: case 1: case 2:                          /* add */
			p = ft_add(&ft, &m.key[k], sig_of(&m.key[k], kind), &added);
			if (m.slot[k] >= 0) {
				CHECK(p == m.slot[k] && !added, "add of a present key: slot %d, not added", m.slot[k]);
			} else if (m.n == ft.capacity) {
				CHECK(p == -ENOSPC, "add to a full table: -ENOSPC (got %d)", p);
			} else {
				CHECK(p >= 0 && added, "add: a new slot (got %d)", p);
				if (p < 0)
					break;
				CHECK(p < NKEYS && !m.taken[p], "slot %d not handed out twice", p);
				m.taken[p % NKEYS] = 1;
				CHECK(ft_key_eq(&ft.flows[p].key, &m.key[k]), "add wrote the key");
				m.slot[k] = p;
				m.n++;
			}
			break;
		case 3:                                          /* remove */
			if (m.slot[k] < 0)
				break;
			ft_remove(&ft, (uint32_t)m.slot[k], sig_of(&m.key[k], kind));
			m.taken[m.slot[k]] = 0;
			m.slot[k] = -1;
			m.n--;
			break;
		case 4:                                          /* bulk delete of present keys */
			for (n = 0, i = k; n < 32 && i < NKEYS; i++)
				if (m.slot[i] >= 0) {
					gone_sig[n] = sig_of(&m.key[i], kind);
					gone[n++] = &ft.flows[m.slot[i]];
					m.taken[m.slot[i]] = 0;
					m.slot[i] = -1;
					m.n--;
				}
			ft_delete_bulk(&ft, gone, gone_sig, n);
			break;
		case 5:                                          /* bulk lookup */
			n = 1 + (uint32_t)(rte_rand() % 32);
			for (i = 0; i < n; i++) {
				keys[i] = &m.key[(k + i * 13) % NKEYS];
				sig[i] = sig_of(keys[i], kind);
			}
			/* as the worker does a burst */
			for (i = 0; i < n; i++)
				ft_prefetch(&ft, sig[i]);
			for (i = 0; i < n; i++)
				pos[i] = ft_candidate(&ft, sig[i]);
			for (i = 0; i < n; i++)
				pos[i] = ft_confirm(&ft, keys[i], sig[i], pos[i]);
			for (i = 0; i < n; i++) {
				int32_t want = m.slot[(k + i * 13) % NKEYS];

				CHECK(pos[i] == (want >= 0 ? want : -ENOENT),
				      "bulk lookup %u: %d (got %d)", i, want, pos[i]);
			}
			break;
		default:                                         /* lookup */
			p = ft_lookup(&ft, &m.key[k], sig_of(&m.key[k], kind));
			CHECK(p == (m.slot[k] >= 0 ? m.slot[k] : -ENOENT),
			      "lookup: %d (got %d)", m.slot[k], p);
			break;
		}
		if (s % 4096 == 0)
			check_spills(&ft, kind);
	}
	check_spills(&ft, kind);
	/* empty it: every slot back, no spill left */
	for (k = 0; k < NKEYS; k++)
		if (m.slot[k] >= 0)
			ft_remove(&ft, (uint32_t)m.slot[k], sig_of(&m.key[k], kind));
	CHECK(ft.n_free == ft.capacity, "every slot free after removing all");
	for (i = 0; i <= ft.bucket_mask; i++)
		CHECK(ft.buckets[i].spilled == 0, "bucket %u: no spill left", i);
	ft_free(&ft);
}

/* a full table with the real hash: how many keys sit outside their home */
static void
spill_rate(uint32_t max_flows)
{
	struct fx_flow_table ft;
	struct fx_key key;
	uint32_t i, away = 0, probes = 0, b, j;
	bool added;
	int32_t p;

	CHECK(ft_create(&ft, "spill", max_flows, 0, false) == 0, "ft_create(%u)", max_flows);
	memset(&key, 0, sizeof(key));
	key.family = FX_FAMILY_V4;
	key.proto = 6;
	for (i = 0; i < ft.capacity; i++) {
		memcpy(key.addr[0], &i, 4);
		p = ft_add(&ft, &key, ft_hash(&key), &added);
		CHECK(p >= 0 && added, "fill: key %u added", i);
	}
	memcpy(key.addr[0], &i, 4);
	CHECK(ft_add(&ft, &key, ft_hash(&key), &added) == -ENOSPC, "one more: -ENOSPC");
	for (b = 0; b <= ft.bucket_mask; b++) {
		for (j = 0; j < FT_BUCKET_PAIRS; j++)
			if (ft.buckets[b].tag[j] != 0 &&
			    ft_home(&ft, ft_hash(&ft.flows[ft.buckets[b].slot[j]].key)) != b)
				away++;
		probes += ft.buckets[b].spilled != 0;
	}
	check_spills(&ft, SIG_REAL);
	printf("full table of %u slots, %u buckets: %u keys (%.3f%%) outside their home bucket, "
	       "%u buckets (%.3f%%) with a spill count\n", ft.capacity, ft.bucket_mask + 1,
	       away, 100.0 * away / ft.capacity, probes, 100.0 * probes / (ft.bucket_mask + 1));
	ft_free(&ft);
}

/* the control path sees a slot's flow only while it is published, and
 * always with the key of the fid it reports */
static void
snapshot_only_published(void)
{
	struct fx_flow_table ft;
	struct fx_key key, got;
	uint64_t fid;
	int32_t p, q;
	bool added;

	CHECK(ft_create(&ft, "snap", 64, 0, false) == 0, "ft_create(64)");
	memset(&key, 0, sizeof(key));
	key.family = FX_FAMILY_V4;
	key.proto = 17;
	key.port[0] = 1;
	CHECK(ft_snapshot(&ft.flows[0], &fid, &got) == 0, "a free slot: no flow");
	p = ft_add(&ft, &key, ft_hash(&key), &added);
	CHECK(p >= 0 && added, "add");
	CHECK(ft_snapshot(&ft.flows[p], &fid, &got) == 0, "added, not published: no flow");
	ft_publish(&ft.flows[p], 5);
	CHECK(ft_snapshot(&ft.flows[p], &fid, &got) == 1 && fid == 5 && ft_key_eq(&got, &key),
	      "published: fid 5 and its key");
	ft_unpublish(&ft.flows[p]);
	CHECK(ft_snapshot(&ft.flows[p], &fid, &got) == 0, "unpublished: no flow");
	ft_remove(&ft, (uint32_t)p, ft_hash(&key));
	key.port[0] = 2;
	q = ft_add(&ft, &key, ft_hash(&key), &added);
	CHECK(q == p, "the slot is reused (%d, got %d)", p, q);
	CHECK(ft_snapshot(&ft.flows[q], &fid, &got) == 0, "reused, not published: no flow");
	ft_publish(&ft.flows[q], 6);
	CHECK(ft_snapshot(&ft.flows[q], &fid, &got) == 1 && fid == 6 && got.port[0] == 2,
	      "published again: fid 6 and the new key");
	ft_free(&ft);
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	rte_srand(20261130);
	run_model(SIG_REAL, 4000, 400000);
	run_model(SIG_FEW, 1000, 200000);
	run_model(SIG_ONE, 200, 100000);
	run_model(SIG_REAL, 200, 200000);      /* full most of the time */
	spill_rate(1000000);
	snapshot_only_published();
	CHECK(ft_create(&(struct fx_flow_table){0}, "bad", 0, 0, false) == -EINVAL,
	      "max_flows 0: -EINVAL");
	printf("%" PRIu64 " checks, %" PRIu64 " failed\n", checks, failures);
	rte_eal_cleanup();
	return failures == 0 ? 0 : 1;
}
