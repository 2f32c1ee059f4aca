/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Benchmark: the flow table's index (flow/table.h) against rte_hash, on
 * the worker's hit path, in one process.
 *
 *   flowexp-flow-table-bench EAL-ARGS -- [FLOWS] [ROUNDS] [MAX_FLOWS]
 *
 * FLOWS distinct keys (default 1M) are added to both, tables made for
 * MAX_FLOWS (default FLOWS); the rte_hash layout has the parameters a
 * flow table would give it (an eighth of headroom, extendable buckets,
 * 40-byte keys compared as five words) and a 64-byte slab line per
 * position. Then bursts of 32 keys, in the order they were
 * made (as flowgen walks its flows: random in memory), go through what the
 * worker does per burst: hash each key and do about as much other work as
 * parsing a packet takes (PARSE_WORK), then look the burst up and refresh
 * each flow (a load and a store to its line). The new index is run
 * twice: as the worker does it (the burst's buckets prefetched and read
 * after the parse loop), and with each bucket prefetched as its key is
 * hashed and read AHEAD keys later inside the parse loop (tried for the
 * worker, where it does not pay: doc/performance.md). A fourth round
 * does the hashing and parse work alone, the floor the lookups add to.
 * Rounds of 2^16 bursts alternate; the medians of the cycles per key are
 * printed, and the ratio. Nothing but this loop runs in the process; the
 * machine's other load shows as spread between rounds.
 *
 * The hash's share: the same worker-like round (the index as the worker
 * uses it) on three more tables of the same keys, one per hash function:
 * CRC32-C (rte_hash_crc, seed 0: unkeyed and linear), SipHash-1-3 of the
 * five words, and the tables' keyed function (fx_hash_words(), base/hash.h);
 * each with its hash and parse work alone. The difference between two
 * functions' rounds is what one costs a packet over the other.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "base/hash.h"
#include "flow/table.h"

#define BURST 32
#define BURSTS_PER_ROUND (1u << 16)
/* dependent multiply-adds standing in for parsing a packet (~50 cycles) */
#define PARSE_WORK 16
/* how far behind hashing the in-parse variant reads a bucket */
#define AHEAD 8

static volatile uint64_t sink;

static inline uint64_t
parse_work(uint64_t x)
{
	unsigned int i;

	for (i = 0; i < PARSE_WORK; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* the next key in the walk, wrapping */
static inline const struct fx_key *
next_key(const struct fx_key *keys, uint32_t n, uint32_t *cursor)
{
	const struct fx_key *k = &keys[*cursor];

	if (++*cursor == n)
		*cursor = 0;
	return k;
}

static int
key_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	return !ft_key_eq(a, b);
}

static void
make_key(struct fx_key *k, uint32_t i)
{
	memset(k, 0, sizeof(*k));
	k->addr[0][0] = 10;
	k->addr[0][1] = (uint8_t)(i >> 16);
	k->addr[0][2] = (uint8_t)(i >> 8);
	k->addr[0][3] = (uint8_t)i;
	k->addr[1][0] = 198;
	k->addr[1][1] = 18;
	k->port[0] = (uint16_t)(1024 + i % 50000);
	k->port[1] = 53;
	k->proto = 17;
	k->family = FX_FAMILY_V4;
}

/* one round of the rte_hash layout: rte_hash, then the slab line */
static uint64_t
round_rte_hash(const struct rte_hash *h, struct fx_flow *slab,
	       const struct fx_key *keys, uint32_t n, uint32_t *cursor)
{
	const void *kp[BURST];
	uint32_t hash[BURST];
	int32_t pos[BURST];
	uint64_t t0, x = 0;
	unsigned int b, i;

	t0 = rte_rdtsc();
	for (b = 0; b < BURSTS_PER_ROUND; b++) {
		for (i = 0; i < BURST; i++) {
			kp[i] = next_key(keys, n, cursor);
			hash[i] = ft_hash(kp[i]);
			x = parse_work(x + hash[i]);
		}
		rte_hash_lookup_with_hash_bulk(h, kp, hash, BURST, pos);
		for (i = 0; i < BURST; i++)
			rte_prefetch0(&slab[pos[i]]);
		for (i = 0; i < BURST; i++)
			slab[pos[i]].expire = slab[pos[i]].expire + 1;
	}
	sink = x;
	return rte_rdtsc() - t0;
}

/* the hash functions compared: CRC32-C, SipHash-1-3, the tables' own */
enum hash_kind { HASH_CRC, HASH_SIP, HASH_KEYED, HASH_MAX };

static const char *const hash_names[HASH_MAX] = { "crc32c", "siphash13", "keyed" };

static __rte_always_inline uint32_t
hash_of(const struct fx_key *k, enum hash_kind kind)
{
	uint64_t h;

	switch (kind) {
	case HASH_CRC:
		return rte_hash_crc(k, sizeof(*k), 0);
	case HASH_SIP:
		h = fx_siphash13(fx_hash_secret, k, sizeof(*k) / 8);
		return (uint32_t)(h ^ (h >> 32));
	default:
		return ft_hash(k);
	}
}

/*
 * One round of the new index as the worker does it (ahead 0): after the
 * parse loop, the burst's buckets prefetched, then read for the candidate
 * flows (prefetching them), then each key compared in its flow. Or, tried
 * and not used (see doc/performance.md): each bucket prefetched as its key is
 * hashed and read `ahead` keys later inside the parse loop.
 */
static __rte_always_inline uint64_t
round_index_h(const struct fx_flow_table *ft, const struct fx_key *keys,
	      uint32_t n, uint32_t *cursor, unsigned int ahead, enum hash_kind kind)
{
	const struct fx_key *kp[BURST];
	uint32_t hash[BURST];
	int32_t pos[BURST];
	uint64_t t0, x = 0;
	unsigned int b, i;

	t0 = rte_rdtsc();
	for (b = 0; b < BURSTS_PER_ROUND; b++) {
		for (i = 0; i < BURST; i++) {
			kp[i] = next_key(keys, n, cursor);
			hash[i] = hash_of(kp[i], kind);
			if (ahead != 0)
				ft_prefetch(ft, hash[i]);
			x = parse_work(x + hash[i]);
			if (ahead != 0 && i >= ahead)
				pos[i - ahead] = ft_candidate(ft, hash[i - ahead]);
		}
		for (i = 0; ahead == 0 && i < BURST; i++)
			ft_prefetch(ft, hash[i]);
		for (i = ahead != 0 ? BURST - ahead : 0; i < BURST; i++)
			pos[i] = ft_candidate(ft, hash[i]);
		for (i = 0; i < BURST; i++) {
			pos[i] = ft_confirm(ft, kp[i], hash[i], pos[i]);
			ft->flows[pos[i]].expire = ft->flows[pos[i]].expire + 1;
		}
	}
	sink = x;
	return rte_rdtsc() - t0;
}

static uint64_t
round_index(const struct fx_flow_table *ft, const struct fx_key *keys,
	    uint32_t n, uint32_t *cursor, unsigned int ahead)
{
	return round_index_h(ft, keys, n, cursor, ahead, HASH_KEYED);
}

/* one round of the hashing and parse work alone: the floor of both */
static __rte_always_inline uint64_t
round_floor_h(const struct fx_key *keys, uint32_t n, uint32_t *cursor,
	      enum hash_kind kind)
{
	uint64_t t0, x = 0;
	unsigned int b, i;

	t0 = rte_rdtsc();
	for (b = 0; b < BURSTS_PER_ROUND; b++) {
		for (i = 0; i < BURST; i++)
			x = parse_work(x + hash_of(next_key(keys, n, cursor), kind));
	}
	sink = x;
	return rte_rdtsc() - t0;
}

static uint64_t
round_floor(const struct fx_key *keys, uint32_t n, uint32_t *cursor)
{
	return round_floor_h(keys, n, cursor, HASH_KEYED);
}

/* the index round as the worker does it, or the floor, with hash kind */
#define ROUND_HASH(kind) (floor ? round_floor_h(keys, n, cursor, kind) : \
			  round_index_h(ft, keys, n, cursor, 0, kind))

static uint64_t
round_hash_kind(const struct fx_flow_table *ft, const struct fx_key *keys,
		uint32_t n, uint32_t *cursor, enum hash_kind kind, bool floor)
{
	switch (kind) {
	case HASH_CRC:
		return ROUND_HASH(HASH_CRC);
	case HASH_SIP:
		return ROUND_HASH(HASH_SIP);
	default:
		return ROUND_HASH(HASH_KEYED);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* keys looked up in a round */
static const double keys_per_round = BURST * (double)BURSTS_PER_ROUND;

/* the benchmark's tables, its keys and each round's cycles */
struct bench {
	uint32_t n, rounds, max_flows;       /* FLOWS, ROUNDS, MAX_FLOWS */
	struct rte_hash *h;                  /* the rte_hash layout: index */
	struct fx_flow *slab;                /* and a line per position */
	struct fx_flow_table ft;             /* the new index */
	struct fx_flow_table fth[HASH_MAX];  /* it again, one per hash */
	struct fx_key *keys;
	/* cycles of each round: rte_hash, index, floor, index ahead, and
	 * the index and floor of each hash function */
	uint64_t *t_old, *t_new, *t_floor, *t_ahead, *t_hash[HASH_MAX], *t_hfloor[HASH_MAX];
	/* where each walk of the keys is */
	uint32_t c_old, c_new, c_floor, c_ahead, c_hash[HASH_MAX];
};

/* FLOWS, ROUNDS and MAX_FLOWS from what follows the EAL's arguments;
 * false (the usage printed) where one is out of its range */
static bool
bench_args(struct bench *b, int argc, char **argv)
{
	b->n = 1000000;
	b->rounds = 9;
	if (argc > 1)
		b->n = (uint32_t)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		b->rounds = (uint32_t)strtoul(argv[2], NULL, 0);
	b->max_flows = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : b->n;
	if (b->n < BURST || b->rounds == 0 || b->max_flows < b->n) {
		fprintf(stderr, "usage: EAL-ARGS -- [FLOWS >= %d] [ROUNDS >= 1] [MAX_FLOWS >= FLOWS]\n",
			BURST);
		return false;
	}
	return true;
}

/* the rte_hash layout, the keys, the new index and the timings; false
 * (said) where memory is short */
static bool
bench_create(struct bench *b)
{
	struct rte_hash_parameters hp = { 0 };

	hp.name = "bench_old";
	hp.entries = b->max_flows + RTE_MAX(b->max_flows / FX_FT_HEADROOM, 64u);
	hp.key_len = sizeof(struct fx_key);
	hp.hash_func = rte_hash_crc;
	hp.socket_id = 0;
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	b->h = rte_hash_create(&hp);
	b->slab = rte_zmalloc("bench_slab", (size_t)hp.entries * sizeof(*b->slab),
			      RTE_CACHE_LINE_SIZE);
	b->keys = malloc((size_t)b->n * sizeof(*b->keys));
	b->t_old = calloc(b->rounds, sizeof(*b->t_old));
	b->t_new = calloc(b->rounds, sizeof(*b->t_new));
	b->t_floor = calloc(b->rounds, sizeof(*b->t_floor));
	b->t_ahead = calloc(b->rounds, sizeof(*b->t_ahead));
	if (b->h == NULL || b->slab == NULL || b->keys == NULL || b->t_old == NULL ||
	    b->t_new == NULL || b->t_floor == NULL || b->t_ahead == NULL ||
	    ft_create(&b->ft, "bench", b->max_flows, 0, false) != 0) {
		fprintf(stderr, "out of memory for %u flows (give EAL more with -m)\n", b->n);
		return false;
	}
	rte_hash_set_cmp_func(b->h, key_cmp);
	return true;
}

/* a table of the keys and the timings for each hash function; false
 * (said) where memory is short */
static bool
bench_create_hashes(struct bench *b)
{
	unsigned int k;

	for (k = 0; k < HASH_MAX; k++) {
		b->t_hash[k] = calloc(b->rounds, sizeof(uint64_t));
		b->t_hfloor[k] = calloc(b->rounds, sizeof(uint64_t));
		if (b->t_hash[k] == NULL || b->t_hfloor[k] == NULL ||
		    ft_create(&b->fth[k], hash_names[k], b->max_flows, 0, false) != 0) {
			fprintf(stderr, "out of memory for %u flows (give EAL more with -m)\n",
				b->n);
			return false;
		}
	}
	return true;
}

/* the keys made and added to every table; false (said) where one refused */
static bool
bench_fill(struct bench *b)
{
	unsigned int k;
	bool added;
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		make_key(&b->keys[i], i);
		if (rte_hash_add_key_with_hash(b->h, &b->keys[i], ft_hash(&b->keys[i])) < 0 ||
		    ft_add(&b->ft, &b->keys[i], ft_hash(&b->keys[i]), &added) < 0) {
			fprintf(stderr, "add %u failed\n", i);
			return false;
		}
		for (k = 0; k < HASH_MAX; k++)
			if (ft_add(&b->fth[k], &b->keys[i], hash_of(&b->keys[i], k), &added) < 0) {
				fprintf(stderr, "add %u (%s) failed\n", i, hash_names[k]);
				return false;
			}
	}
	return true;
}

/* round i of rte_hash against the index (each first in turn), the floor
 * and the index ahead, printed */
static void
bench_round_tables(struct bench *b, uint32_t i)
{
	const double per = keys_per_round;

	if (i & 1) {
		b->t_new[i] = round_index(&b->ft, b->keys, b->n, &b->c_new, 0);
		b->t_old[i] = round_rte_hash(b->h, b->slab, b->keys, b->n, &b->c_old);
	} else {
		b->t_old[i] = round_rte_hash(b->h, b->slab, b->keys, b->n, &b->c_old);
		b->t_new[i] = round_index(&b->ft, b->keys, b->n, &b->c_new, 0);
	}
	b->t_floor[i] = round_floor(b->keys, b->n, &b->c_floor);
	b->t_ahead[i] = round_index(&b->ft, b->keys, b->n, &b->c_ahead, AHEAD);
	printf("round %u: rte_hash %.1f, index %.1f, index ahead %.1f, hash and parse work alone %.1f cycles per key\n",
	       i + 1, b->t_old[i] / per, b->t_new[i] / per, b->t_ahead[i] / per,
	       b->t_floor[i] / per);
}

/* round i of the hash functions (each first in turn), printed */
static void
bench_round_hashes(struct bench *b, uint32_t i)
{
	const double per = keys_per_round;
	unsigned int k;

	for (k = 0; k < HASH_MAX; k++) {
		unsigned int f = (k + i) % HASH_MAX;

		b->t_hash[f][i] = round_hash_kind(&b->fth[f], b->keys, b->n, &b->c_hash[f], f,
						  false);
		b->t_hfloor[f][i] = round_hash_kind(&b->fth[f], b->keys, b->n, &b->c_hash[f], f,
						    true);
	}
	printf("round %u, hash functions (index as the worker uses it / hash and parse work alone):",
	       i + 1);
	for (k = 0; k < HASH_MAX; k++)
		printf(" %s %.1f / %.1f", hash_names[k], b->t_hash[k][i] / per,
		       b->t_hfloor[k][i] / per);
	printf("\n");
}

/* the median of `rounds` timings t (sorting them) */
static uint64_t
median(uint64_t *t, uint32_t rounds)
{
	qsort(t, rounds, sizeof(*t), cmp_u64);
	return t[rounds / 2];
}

/* the medians of rte_hash, the index, the floor and the index ahead */
static void
bench_report_tables(struct bench *b)
{
	const double per = keys_per_round;
	uint64_t old_median = median(b->t_old, b->rounds);
	uint64_t new_median = median(b->t_new, b->rounds);
	uint64_t floor_median = median(b->t_floor, b->rounds);
	uint64_t ahead_median = median(b->t_ahead, b->rounds);

	printf("%u flows, bursts of %d, %d multiply-adds of parse work per key, medians of %u rounds:\n"
	       "  hash + parse work + lookup + refresh: rte_hash %.1f, index %.1f cycles per key\n"
	       "  hash + parse work alone: %.1f; so lookup + refresh: rte_hash %.1f, index %.1f"
	       " (rte_hash / index %.2f)\n",
	       b->n, BURST, PARSE_WORK, b->rounds, old_median / per, new_median / per,
	       floor_median / per, (old_median - floor_median) / per,
	       (new_median - floor_median) / per,
	       (double)(old_median - floor_median) / (double)(new_median - floor_median));
	printf("  with each bucket prefetched at hashing and read %d keys later (in the parse loop): %.1f,"
	       " lookup + refresh %.1f\n", AHEAD, ahead_median / per,
	       (ahead_median - floor_median) / per);
}

/* the medians of each hash function's rounds, and each against CRC32-C */
static void
bench_report_hashes(struct bench *b)
{
	const double per = keys_per_round;
	uint64_t hash_median[HASH_MAX], floor_median[HASH_MAX];
	unsigned int k;

	for (k = 0; k < HASH_MAX; k++) {
		hash_median[k] = median(b->t_hash[k], b->rounds);
		floor_median[k] = median(b->t_hfloor[k], b->rounds);
	}
	printf("  hash functions, index as the worker uses it (hash and parse work alone), medians:");
	for (k = 0; k < HASH_MAX; k++)
		printf(" %s %.1f (%.1f)", hash_names[k], hash_median[k] / per,
		       floor_median[k] / per);
	printf("\n  against crc32c, cycles per key: ");
	for (k = 1; k < HASH_MAX; k++)
		printf("%s%s %+.1f (alone %+.1f)", k > 1 ? ", " : "", hash_names[k],
		       ((double)hash_median[k] - (double)hash_median[HASH_CRC]) / per,
		       ((double)floor_median[k] - (double)floor_median[HASH_CRC]) / per);
	printf("\n");
}

/* what bench_create() and bench_create_hashes() made */
static void
bench_free(struct bench *b)
{
	unsigned int k;

	for (k = 0; k < HASH_MAX; k++) {
		ft_free(&b->fth[k]);
		free(b->t_hash[k]);
		free(b->t_hfloor[k]);
	}
	rte_hash_free(b->h);
	rte_free(b->slab);
	ft_free(&b->ft);
	free(b->keys);
	free(b->t_old);
	free(b->t_new);
	free(b->t_floor);
	free(b->t_ahead);
}

int
main(int argc, char **argv)
{
	static struct bench b;
	uint32_t i;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (!bench_args(&b, argc, argv))
		return 2;
	if (!bench_create(&b))
		return 1;
	/* a fixed secret for the keyed hash, the same each run */
	fx_hash_set_secret(UINT64_C(0x243f6a8885a308d3), UINT64_C(0x13198a2e03707344));
	if (!bench_create_hashes(&b) || !bench_fill(&b))
		return 1;
	for (i = 0; i < b.rounds; i++) {
		bench_round_tables(&b, i);
		bench_round_hashes(&b, i);
	}
	bench_report_tables(&b);
	bench_report_hashes(&b);
	bench_free(&b);
	rte_eal_cleanup();
	return 0;
}
