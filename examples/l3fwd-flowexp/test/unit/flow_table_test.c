/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the flow table's index (flow/table.h, base/index.h) against
 * a reference model: random adds, lookups (single and bulk), removals and
 * bulk deletes, with the key's real hash and with hashes made to collide
 * (few distinct values: equal tags, spill chains, wrap-around at the last
 * bucket; all keys in one home bucket: the probe bound fills and every add
 * past it is refused with -EOVERFLOW and counted). The model keeps how
 * many pairs each bucket holds, so it knows where an add must land and
 * when it must be refused. After every step the index must agree with the
 * model, and every so often each bucket's spill count must equal the one
 * recomputed from where the keys sit, no key lying past the bound.
 *
 * The bound's justification: a table at max_flows with the largest load
 * its sizing allows (51 % of the pairs), filled and then churned (random
 * removals and new keys) with the real hash: how far past their home the
 * keys sit, and how many adds the bound refused.
 *
 * And the keyed hash (base/hash.h) against known answers computed with its
 * Python model (test/lib/fxpkt.py: fx_hash(), siphash13()), so the two agree.
 *
 * Exit 0 when every check passed, 1 otherwise.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_random.h>

#include "base/hash.h"
#include "base/index.h"
#include "flow/table.h"

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

#define MODEL_BUCKETS_MAX 4096

struct model {
	struct fx_key key[NKEYS];
	int32_t slot[NKEYS];      /* -1: not in the table */
	uint32_t bucket[NKEYS];   /* where the key's pair is */
	uint8_t taken[NKEYS];     /* by slot: handed out and not freed */
	uint8_t used[MODEL_BUCKETS_MAX];  /* pairs taken in each bucket */
	uint32_t n;               /* keys in the table */
};

/* where an add of hash must put its pair: the first bucket with room
 * within the bound, or -1 (refused) */
static int64_t
model_place(const struct model *m, const struct fx_flow_table *ft, uint32_t hash)
{
	uint32_t b = ft_home(ft, hash), i;

	for (i = 0; i < FX_IX_PROBE_MAX; i++, b = (b + 1) & ft->ix.mask)
		if (m->used[b] < FX_IX_PAIRS)
			return b;
	return -1;
}

/* whether bucket b holds the pair (tag of hash, slot) */
static bool
pair_in(const struct fx_flow_table *ft, uint32_t b, uint32_t hash, uint32_t slot)
{
	unsigned int j;

	for (j = 0; j < FX_IX_PAIRS; j++)
		if (ft->ix.b[b].tag[j] == fx_ix_tag(hash) && ft->ix.b[b].ref[j] == slot)
			return true;
	return false;
}

enum hash_kind { HASH_REAL, HASH_FEW, HASH_ONE };

static uint32_t
hash_of(const struct fx_key *k, enum hash_kind kind)
{
	switch (kind) {
	case HASH_FEW:
		return ft_hash(k) & 0x7;       /* 8 values: equal tags, spills */
	case HASH_ONE:
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
check_spills(const struct fx_flow_table *ft, enum hash_kind kind)
{
	uint32_t nb = fx_ix_buckets(&ft->ix), b, j, h, d, hash, used = 0;
	uint32_t *want = calloc(nb, sizeof(*want));
	const struct fx_ix_bucket *bk;

	for (b = 0; b < nb; b++) {
		bk = &ft->ix.b[b];
		for (j = 0; j < FX_IX_PAIRS; j++) {
			if (bk->tag[j] == 0)
				continue;
			used++;
			CHECK(bk->ref[j] < ft->capacity, "slot %u in range", bk->ref[j]);
			hash = hash_of(&ft->flows[bk->ref[j]].key, kind);
			CHECK(bk->tag[j] == fx_ix_tag(hash),
			      "tag of bucket %u pair %u is its flow's hash", b, j);
			for (h = ft_home(ft, hash), d = 0; h != b;
			     h = (h + 1) & ft->ix.mask, d++)
				want[h]++;
			CHECK(d < FX_IX_PROBE_MAX, "bucket %u pair %u: %u buckets past its home",
			      b, j, d);
		}
	}
	for (b = 0; b < nb; b++)
		CHECK(ft->ix.b[b].spilled == want[b], "bucket %u spilled %u, want %u",
		      b, ft->ix.b[b].spilled, want[b]);
	CHECK(used + ft->n_free == ft->capacity, "pairs used %u + free slots %u == capacity %u",
	      used, ft->n_free, ft->capacity);
	free(want);
}

/* an add of key k: where the model says its pair lands, or refused as
 * it says; returns whether it was refused at the probe bound */
static bool
step_add(struct model *m, struct fx_flow_table *ft, enum hash_kind kind, uint32_t k)
{
	uint64_t full0 = ft->ix.full;
	int64_t place = model_place(m, ft, hash_of(&m->key[k], kind));
	bool added;
	int32_t p;

	p = ft_add(ft, &m->key[k], hash_of(&m->key[k], kind), &added);
	if (m->slot[k] >= 0) {
		CHECK(p == m->slot[k] && !added, "add of a present key: slot %d, not added",
		      m->slot[k]);
	} else if (m->n == ft->capacity) {
		CHECK(p == -ENOSPC, "add to a full table: -ENOSPC (got %d)", p);
	} else if (place < 0) {
		CHECK(p == -EOVERFLOW && !added && ft->ix.full == full0 + 1,
		      "add past the probe bound: -EOVERFLOW, counted (got %d)", p);
		return true;
	} else {
		CHECK(p >= 0 && added, "add: a new slot (got %d)", p);
		if (p < 0)
			return false;
		CHECK(p < NKEYS && !m->taken[p], "slot %d not handed out twice", p);
		m->taken[p % NKEYS] = 1;
		CHECK(ft_key_eq(&ft->flows[p].key, &m->key[k]), "add wrote the key");
		CHECK(pair_in(ft, (uint32_t)place, hash_of(&m->key[k], kind), (uint32_t)p),
		      "add: the pair in the first bucket with room (%" PRId64 ")", place);
		m->slot[k] = p;
		m->bucket[k] = (uint32_t)place;
		m->used[place]++;
		m->n++;
	}
	return false;
}

/* the model's side of a removal: key k out of its slot and bucket */
static void
model_forget(struct model *m, uint32_t k)
{
	m->taken[m->slot[k]] = 0;
	m->slot[k] = -1;
	m->used[m->bucket[k]]--;
	m->n--;
}

/* a removal of key k, if it is in the table */
static void
step_remove(struct model *m, struct fx_flow_table *ft, enum hash_kind kind, uint32_t k)
{
	if (m->slot[k] < 0)
		return;
	ft_remove(ft, (uint32_t)m->slot[k], hash_of(&m->key[k], kind));
	model_forget(m, k);
}

/* a bulk delete of the (up to 32) present keys from key k on */
static void
step_delete_bulk(struct model *m, struct fx_flow_table *ft, enum hash_kind kind, uint32_t k)
{
	struct fx_flow *gone[32];
	uint32_t gone_hash[32], i, n;

	for (n = 0, i = k; n < 32 && i < NKEYS; i++)
		if (m->slot[i] >= 0) {
			gone_hash[n] = hash_of(&m->key[i], kind);
			gone[n++] = &ft->flows[m->slot[i]];
			model_forget(m, i);
		}
	ft_delete_bulk(ft, gone, gone_hash, n);
}

/* a bulk lookup of a random number of keys, every 13th from key k on, as
 * the worker does a burst */
static void
step_lookup_bulk(const struct model *m, const struct fx_flow_table *ft, enum hash_kind kind,
		 uint32_t k)
{
	const struct fx_key *keys[32];
	uint32_t hash[32], i, n;
	int32_t pos[32];

	n = 1 + (uint32_t)(rte_rand() % 32);
	for (i = 0; i < n; i++) {
		keys[i] = &m->key[(k + i * 13) % NKEYS];
		hash[i] = hash_of(keys[i], kind);
	}
	for (i = 0; i < n; i++)
		ft_prefetch(ft, hash[i]);
	for (i = 0; i < n; i++)
		pos[i] = ft_candidate(ft, hash[i]);
	for (i = 0; i < n; i++)
		pos[i] = ft_confirm(ft, keys[i], hash[i], pos[i]);
	for (i = 0; i < n; i++) {
		int32_t want = m->slot[(k + i * 13) % NKEYS];

		CHECK(pos[i] == (want >= 0 ? want : -ENOENT),
		      "bulk lookup %u: %d (got %d)", i, want, pos[i]);
	}
}

/* a lookup of key k */
static void
step_lookup(const struct model *m, const struct fx_flow_table *ft, enum hash_kind kind,
	    uint32_t k)
{
	int32_t p = ft_lookup(ft, &m->key[k], hash_of(&m->key[k], kind));

	CHECK(p == (m->slot[k] >= 0 ? m->slot[k] : -ENOENT),
	      "lookup: %d (got %d)", m->slot[k], p);
}

/* one random step on a random key; returns whether an add was refused at
 * the probe bound */
static bool
model_step(struct model *m, struct fx_flow_table *ft, enum hash_kind kind)
{
	uint32_t k = (uint32_t)(rte_rand() % NKEYS);

	switch (rte_rand() % 8) {
	case 0: case 1: case 2:
		return step_add(m, ft, kind, k);
	case 3:
		step_remove(m, ft, kind, k);
		break;
	case 4:
		step_delete_bulk(m, ft, kind, k);
		break;
	case 5:
		step_lookup_bulk(m, ft, kind, k);
		break;
	default:
		step_lookup(m, ft, kind, k);
		break;
	}
	return false;
}

/* empty the table: every slot back, no spill left, the refusals counted,
 * no add read past the bound */
static void
model_empty(const struct model *m, struct fx_flow_table *ft, enum hash_kind kind,
	    uint64_t refused)
{
	uint32_t i, k;

	for (k = 0; k < NKEYS; k++)
		if (m->slot[k] >= 0)
			ft_remove(ft, (uint32_t)m->slot[k], hash_of(&m->key[k], kind));
	CHECK(ft->n_free == ft->capacity, "every slot free after removing all");
	for (i = 0; i <= ft->ix.mask; i++)
		CHECK(ft->ix.b[i].spilled == 0, "bucket %u: no spill left", i);
	CHECK(ft->ix.full == refused, "refusals counted: %" PRIu64 " (got %" PRIu64 ")",
	      refused, ft->ix.full);
	CHECK(kind != HASH_ONE || refused > 0, "one home bucket: adds past the bound refused");
	CHECK(ft->ix.lines_max <= FX_IX_PROBE_MAX, "an add read %" PRIu64 " buckets",
	      ft->ix.lines_max);
}

/* `steps` random steps (model_step()) with keys hashed as kind, on a table
 * made for max_flows, its spill counts recomputed every 4096 steps and at
 * the end; then the table emptied (model_empty()) */
static void
run_model(enum hash_kind kind, uint32_t max_flows, unsigned int steps)
{
	static struct model m;
	struct fx_flow_table ft;
	uint64_t refused = 0;
	unsigned int s;

	make_keys(&m);
	CHECK(ft_create(&ft, "unit", max_flows, 0, false) == 0, "ft_create(%u)", max_flows);
	if (fx_ix_buckets(&ft.ix) > MODEL_BUCKETS_MAX) {
		CHECK(false, "%u buckets: more than the model holds", fx_ix_buckets(&ft.ix));
		ft_free(&ft);
		return;
	}
	for (s = 0; s < steps; s++) {
		refused += model_step(&m, &ft, kind);
		if (s % 4096 == 0)
			check_spills(&ft, kind);
	}
	check_spills(&ft, kind);
	model_empty(&m, &ft, kind, refused);
	printf("model %s, %u flows: %u steps, %" PRIu64 " adds refused at the probe bound, "
	       "at most %" PRIu64 " buckets read by an add\n",
	       kind == HASH_REAL ? "real hash" : kind == HASH_FEW ? "8 hashes" : "one hash",
	       max_flows, steps, refused, ft.ix.lines_max);
	ft_free(&ft);
}

/*
 * A table at max_flows with the largest load its sizing allows (capacity
 * four times a power of two, so the buckets are a quarter of the slots:
 * max_flows takes 51 % of the pairs), with the real hash: filled, then
 * churned (a random flow removed, a new key added) `churn` times. Prints
 * how far from home the keys sit at the end and how many adds the bound
 * refused.
 */
static void
spill_rate(uint32_t max_flows, uint32_t churn)
{
	struct fx_flow_table ft;
	uint32_t *live, i, n = 0, b, j, d, h, next = 0, away = 0;
	uint64_t dist[FX_IX_PROBE_MAX] = { 0 }, inserts = 0;
	struct fx_key key;
	bool added;
	int32_t p;

	CHECK(ft_create(&ft, "spill", max_flows, 0, false) == 0, "ft_create(%u)", max_flows);
	live = malloc(sizeof(*live) * max_flows);
	if (live == NULL || ft.capacity == 0) {
		CHECK(false, "memory for the spill test");
		free(live);
		ft_free(&ft);
		return;
	}
	memset(&key, 0, sizeof(key));
	key.family = FX_FAMILY_V4;
	key.proto = 6;
	for (i = 0; i < max_flows + churn; i++) {
		if (i >= max_flows) {
			/* a random flow leaves */
			j = (uint32_t)rte_rand_max(n);
			ft_remove(&ft, live[j], ft_hash(&ft.flows[live[j]].key));
			live[j] = live[--n];
		}
		next++;
		memcpy(key.addr[0], &next, 4);
		key.port[0] = (uint16_t)(next * 7);
		p = ft_add(&ft, &key, ft_hash(&key), &added);
		inserts++;
		if (p >= 0)
			live[n++] = (uint32_t)p;
		else
			CHECK(p == -EOVERFLOW, "churn: an add failed with %d", p);
	}
	for (b = 0; b <= ft.ix.mask; b++)
		for (j = 0; j < FX_IX_PAIRS; j++) {
			if (ft.ix.b[b].tag[j] == 0)
				continue;
			h = ft_home(&ft, ft_hash(&ft.flows[ft.ix.b[b].ref[j]].key));
			d = (b - h) & ft.ix.mask;
			if (d < FX_IX_PROBE_MAX)
				dist[d]++;
			away += d != 0;
		}
	check_spills(&ft, HASH_REAL);
	printf("table at max_flows %u (%u slots, %u buckets, %.1f%% of the pairs), %u adds "
	       "and removals after filling it: %u keys (%.3f%%) outside their home bucket; "
	       "keys 0..%d buckets past home:", max_flows, ft.capacity, ft.ix.mask + 1,
	       100.0 * n / ((ft.ix.mask + 1) * (double)FX_IX_PAIRS), churn, away,
	       100.0 * away / n, FX_IX_PROBE_MAX - 1);
	for (d = 0; d < FX_IX_PROBE_MAX; d++)
		printf(" %" PRIu64, dist[d]);
	printf("; adds refused at the bound of %d buckets: %" PRIu64 " of %" PRIu64 "\n",
	       FX_IX_PROBE_MAX, ft.ix.full, inserts);
	/* a refusal rate of 10^-5 would already be a sign of a broken hash
	 * or sizing: the bound is chosen for about 10^-7 */
	CHECK(ft.ix.full * 100000 < inserts, "refusals at the bound: %" PRIu64 " of %" PRIu64,
	      ft.ix.full, inserts);
	free(live);
	ft_free(&ft);
}

/* the keyed hash against its Python model (test/lib/fxpkt.py) */
static void
hash_known_answers(void)
{
	static const uint32_t want[] = { 0x547ea160, 0x3a410e17, 0xe3d4af20, 0x50990832 };
	static const unsigned int words[] = { 1, 2, 5, 8 };
	uint8_t data[8 * FX_HASH_WORDS_MAX];
	uint64_t zero = 0;
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	fx_hash_set_secret(UINT64_C(0x0001020304050607), UINT64_C(0x08090a0b0c0d0e0f));
	CHECK(fx_siphash13(fx_hash_secret, &zero, 1) == UINT64_C(0xb1d57b7993f320e5),
	      "SipHash-1-3 of 0: %#" PRIx64, fx_siphash13(fx_hash_secret, &zero, 1));
	for (i = 0; i < RTE_DIM(words); i++)
		CHECK(fx_hash_words(data, words[i]) == want[i], "hash of %u words: %#x, want %#x",
		      words[i], fx_hash_words(data, words[i]), want[i]);
	fx_hash_set_secret(0, 0);
	CHECK(fx_hash_words(&zero, 1) == 0xfd6581d8, "hash of 0 with the zero secret: %#x",
	      fx_hash_words(&zero, 1));
}

/* the control path sees a slot's flow only while it is published, and
 * always with the key of the expiry_id it reports */
static void
snapshot_only_published(void)
{
	struct fx_flow_table ft;
	struct fx_key key, got;
	uint64_t expiry_id;
	int32_t p, q;
	bool added;

	CHECK(ft_create(&ft, "snap", 64, 0, false) == 0, "ft_create(64)");
	memset(&key, 0, sizeof(key));
	key.family = FX_FAMILY_V4;
	key.proto = 17;
	key.port[0] = 1;
	CHECK(ft_snapshot(&ft.flows[0], &expiry_id, &got) == 0, "a free slot: no flow");
	p = ft_add(&ft, &key, ft_hash(&key), &added);
	CHECK(p >= 0 && added, "add");
	CHECK(ft_snapshot(&ft.flows[p], &expiry_id, &got) == 0, "added, not published: no flow");
	ft_publish(&ft.flows[p], 5);
	CHECK(ft_snapshot(&ft.flows[p], &expiry_id, &got) == 1 && expiry_id == 5 && ft_key_eq(&got, &key),
	      "published: expiry_id 5 and its key");
	ft_unpublish(&ft.flows[p]);
	CHECK(ft_snapshot(&ft.flows[p], &expiry_id, &got) == 0, "unpublished: no flow");
	ft_remove(&ft, (uint32_t)p, ft_hash(&key));
	key.port[0] = 2;
	q = ft_add(&ft, &key, ft_hash(&key), &added);
	CHECK(q == p, "the slot is reused (%d, got %d)", p, q);
	CHECK(ft_snapshot(&ft.flows[q], &expiry_id, &got) == 0, "reused, not published: no flow");
	ft_publish(&ft.flows[q], 6);
	CHECK(ft_snapshot(&ft.flows[q], &expiry_id, &got) == 1 && expiry_id == 6 && got.port[0] == 2,
	      "published again: expiry_id 6 and the new key");
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
	hash_known_answers();
	fx_hash_set_secret(UINT64_C(0x5eed5eed5eed5eed), 20261130);
	run_model(HASH_REAL, 4000, 400000);
	run_model(HASH_FEW, 1000, 200000);
	run_model(HASH_ONE, 200, 100000);
	run_model(HASH_REAL, 200, 200000);      /* full most of the time */
	/* capacity 2^20 - 1: 2^18 buckets */
	spill_rate(932067, 4 * 932067);
	snapshot_only_published();
	CHECK(ft_create(&(struct fx_flow_table){0}, "bad", 0, 0, false) == -EINVAL,
	      "max_flows 0: -EINVAL");
	printf("%" PRIu64 " checks, %" PRIu64 " failed\n", checks, failures);
	rte_eal_cleanup();
	return failures == 0 ? 0 : 1;
}
