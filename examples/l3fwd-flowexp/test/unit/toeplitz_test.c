/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the software Toeplitz hash and the RSS port classes
 * (base/toeplitz.h; meson test flowexp_toeplitz, suite fast-tests):
 *   - the hash against DPDK's rte_softrss() (and rte_softrss_be() with
 *     the converted key) bit for bit: random IPv4 and IPv6 tuples, with
 *     and without ports, under random 40- and 52-byte keys; the symmetric
 *     key 6d5a... gives both directions of a tuple one hash;
 *   - the classes against brute force: for random reply contexts, every
 *     port's reply hashed with rte_softrss() and looked up in the
 *     redirection table: the space's hash of each port is rte_softrss()'s,
 *     a class says a port lands on a wanted queue exactly when it does,
 *     its size is the count of such ports in [lo, hi], the rank is what
 *     the number of reachable table entries says; every port drawn is in
 *     the range and lands on a wanted queue. Keys: symmetric, random, and
 *     random with the bits that reach the table index cleared but for one
 *     (rank 2) or all (rank 0); tables of 1 to 2048 entries; ranges from
 *     the whole to 4 ports, so that some classes are empty (the draw then
 *     says -ENOENT);
 *   - uniformity: 100000 draws for 2, 4, 16 and 64 queues (a table of
 *     128 entries round robin, one queue per owner or the queues q with
 *     q % owners == owner), cases whose rounds mostly reject (rank 2,
 *     a narrow range), and the classes NAT draws from on 2, 4, 16 and 64
 *     workers (a worker's share of 1024-65535, a queue each): the draws' Shannon entropy beside log2 of the
 *     class size, beside the entropy of as many draws from an ideal
 *     uniform sampler over the same class (the estimator's bias at this
 *     sample size), and a chi-square against uniform;
 *   - bad arguments refused with -EINVAL, a class with no wanted entry
 *     with -ENOENT;
 *   - the cost of a draw, a context's h0 and a test in TSC cycles, the
 *     median of 5 runs (printed, not checked).
 * Exit 0 when every check passed; prints each failure.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "base/toeplitz.h"
#include "test/lib/test_eal.h"

#define TUPLES 100000
#define DRAWS 100000
#define CONTEXTS 4
#define RUNS 5

/* a key as rte_softrss() reads it: 32-bit words */
union key {
	uint32_t w[16];
	uint8_t b[64];
};

enum key_kind { KEY_SYM, KEY_RAND, KEY_RANK2, KEY_RANK0 };

static uint32_t hashes[65536];
static uint32_t hist[65536];
static uint16_t members[65536];
static volatile uint32_t sink;  /* keeps the timed loops' results */

static void
key_make(union key *k, enum key_kind kind, unsigned int len, bool ipv6)
{
	unsigned int i, pbit = ipv6 ? 272 : 80;

	memset(k, 0, sizeof(*k));
	if (kind == KEY_SYM)
		fx_toeplitz_symmetric_key(k->b, len);
	else
		for (i = 0; i < len; i++)
			k->b[i] = (uint8_t)rte_rand();
	if (kind == KEY_SYM || kind == KEY_RAND)
		return;
	/* key bits pbit + 23 .. pbit + 46 are all that reach the low 9 bits of
	 * the port's windows: clear them, then set one that reaches two */
	for (i = pbit + 23; i <= pbit + 46; i++)
		k->b[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
	if (kind == KEY_RANK2)
		k->b[(pbit + 45) / 8] |= (uint8_t)(0x80u >> ((pbit + 45) % 8));
}

/* an IPv4 tuple as rte_softrss() takes it: host-order fields */
static union rte_thash_tuple
tuple_v4(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	union rte_thash_tuple t;

	memset(&t, 0, sizeof(t));
	t.v4.src_addr = src;
	t.v4.dst_addr = dst;
	t.v4.sport = sport;
	t.v4.dport = dport;
	return t;
}

static uint32_t
soft_v4(const union key *k, uint32_t src, uint32_t dst, uint16_t sport,
	uint16_t dport, uint32_t words)
{
	union rte_thash_tuple t = tuple_v4(src, dst, sport, dport);

	return rte_softrss((uint32_t *)&t, words, k->b);
}

static uint32_t
soft_v6(const union key *k, const uint8_t src[16], const uint8_t dst[16],
	uint16_t sport, uint16_t dport, uint32_t words)
{
	union rte_thash_tuple t;
	struct rte_ipv6_hdr h;

	memset(&t, 0, sizeof(t));
	memset(&h, 0, sizeof(h));
	memcpy(&h.src_addr, src, 16);
	memcpy(&h.dst_addr, dst, 16);
	rte_thash_load_v6_addrs(&h, &t);
	t.v6.sport = sport;
	t.v6.dport = dport;
	return rte_softrss((uint32_t *)&t, words, k->b);
}

static void
rand_bytes(uint8_t *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rte_rand();
}

/* rte_softrss_be() with the converted key, IPv4 with ports */
static uint32_t
soft_be_v4(const union key *conv, uint32_t src, uint32_t dst, uint16_t sport,
	   uint16_t dport)
{
	union rte_thash_tuple t = tuple_v4(src, dst, sport, dport);

	return rte_softrss_be((uint32_t *)&t, RTE_THASH_V4_L4_LEN, conv->b);
}

/* the hash against rte_softrss() under one key of len bytes */
static void
test_hash_key(const union key *k, unsigned int len, const char *what)
{
	unsigned int i, bad4 = 0, bad4l3 = 0, bad4be = 0, bad6 = 0, bad6l3 = 0;
	uint8_t s6[16], d6[16], in[32];
	union key conv;
	uint32_t s, d;
	uint16_t sp, dp;

	rte_convert_rss_key(k->w, conv.w, (int)len);
	for (i = 0; i < TUPLES; i++) {
		s = (uint32_t)rte_rand();
		d = (uint32_t)rte_rand();
		sp = (uint16_t)rte_rand();
		dp = (uint16_t)rte_rand();
		bad4 += fx_toeplitz_v4(k->b, s, d, sp, dp) !=
			soft_v4(k, s, d, sp, dp, RTE_THASH_V4_L4_LEN);
		bad4be += fx_toeplitz_v4(k->b, s, d, sp, dp) != soft_be_v4(&conv, s, d, sp, dp);
		s = rte_cpu_to_be_32(s);
		d = rte_cpu_to_be_32(d);
		memcpy(in, &s, 4);
		memcpy(in + 4, &d, 4);
		bad4l3 += fx_toeplitz(k->b, in, 8) !=
			soft_v4(k, rte_be_to_cpu_32(s), rte_be_to_cpu_32(d), 0, 0,
				RTE_THASH_V4_L3_LEN);
		rand_bytes(s6, 16);
		rand_bytes(d6, 16);
		bad6 += fx_toeplitz_v6(k->b, s6, d6, sp, dp) !=
			soft_v6(k, s6, d6, sp, dp, RTE_THASH_V6_L4_LEN);
		memcpy(in, s6, 16);
		memcpy(in + 16, d6, 16);
		bad6l3 += fx_toeplitz(k->b, in, 32) != soft_v6(k, s6, d6, 0, 0, RTE_THASH_V6_L3_LEN);
	}
	check(bad4 + bad4be + bad4l3 + bad6 + bad6l3 == 0,
	      "%s key of %u bytes, %u tuples each: differ from rte_softrss(): IPv4 %u "
	      "(rte_softrss_be() %u, addresses only %u), IPv6 %u (addresses only %u)",
	      what, len, TUPLES, bad4, bad4be, bad4l3, bad6, bad6l3);
}

static void
test_hash(void)
{
	unsigned int i, asym = 0;
	union key k;
	uint8_t a[16], b[16];
	uint32_t s, d;
	uint16_t sp, dp;

	for (i = 0; i < 3; i++) {
		key_make(&k, KEY_RAND, 40, false);
		test_hash_key(&k, 40, "random");
		key_make(&k, KEY_RAND, 52, false);
		test_hash_key(&k, 52, "random");
	}
	key_make(&k, KEY_SYM, 40, false);
	test_hash_key(&k, 40, "symmetric");
	for (i = 0; i < TUPLES; i++) {
		s = (uint32_t)rte_rand();
		d = (uint32_t)rte_rand();
		sp = (uint16_t)rte_rand();
		dp = (uint16_t)rte_rand();
		rand_bytes(a, 16);
		rand_bytes(b, 16);
		asym += fx_toeplitz_v4(k.b, s, d, sp, dp) != fx_toeplitz_v4(k.b, d, s, dp, sp);
		asym += fx_toeplitz_v6(k.b, a, b, sp, dp) != fx_toeplitz_v6(k.b, b, a, dp, sp);
	}
	check(asym == 0, "symmetric key: %u of %u IPv4 and IPv6 tuples hash apart from their reverse",
	      asym, 2 * TUPLES);
}

/* one class's configuration */
struct cfg {
	enum key_kind kind;
	unsigned int key_len;
	bool ipv6;
	unsigned int reta_size;
	uint16_t lo, hi;
	unsigned int nq;          /* queues, table entry i -> i % nq */
	unsigned int owners;      /* owner o wants the queues q % owners == o */
};

static uint64_t
owner_queues(const struct cfg *c, unsigned int o)
{
	uint64_t m = 0;
	unsigned int q;

	for (q = 0; q < c->nq; q++)
		if (q % c->owners == o)
			m |= UINT64_C(1) << q;
	return m;
}

/* a random reply context: h0 from the space and from rte_softrss() */
static uint32_t
context(const struct fx_rss_space *sp, const union key *k, uint8_t ra[16],
	uint16_t *rport, uint8_t pa[16])
{
	uint32_t r, p, h0;

	rand_bytes(ra, 16);
	rand_bytes(pa, 16);
	*rport = (uint16_t)rte_rand();
	if (sp->ipv6) {
		h0 = fx_rss_space_h0_v6(sp, ra, *rport, pa);
		CHECK(h0 == soft_v6(k, ra, pa, *rport, 0, RTE_THASH_V6_L4_LEN), "h0 v6");
		return h0;
	}
	memcpy(&r, ra, 4);
	memcpy(&p, pa, 4);
	h0 = fx_rss_space_h0_v4(sp, r, *rport, p);
	CHECK(h0 == soft_v4(k, r, p, *rport, 0, RTE_THASH_V4_L4_LEN), "h0 v4");
	return h0;
}

/* every port's reply hash, by rte_softrss() */
static void
brute_hashes(const struct fx_rss_space *sp, const union key *k, const uint8_t ra[16],
	     uint16_t rport, const uint8_t pa[16])
{
	uint32_t p, r, a;

	memcpy(&r, ra, 4);
	memcpy(&a, pa, 4);
	for (p = 0; p < 65536; p++)
		hashes[p] = sp->ipv6 ?
			soft_v6(k, ra, pa, rport, (uint16_t)p, RTE_THASH_V6_L4_LEN) :
			soft_v4(k, r, a, rport, (uint16_t)p, RTE_THASH_V4_L4_LEN);
}

static bool
lands(const uint16_t *reta, uint32_t mask, uint64_t queues, uint32_t hash)
{
	uint16_t q = reta[hash & mask];

	return q < 64 && (queues >> q & 1);
}

/* one class in one context against the brute-force hashes; 1 if empty */
static unsigned int
check_class(const struct fx_rss_class *cl, uint32_t h0, const uint16_t *reta,
	    uint64_t queues)
{
	const struct fx_rss_space *sp = cl->sp;
	uint32_t p, n = 0, bad_hash = 0, bad_has = 0, bad_draw = 0, i;
	uint16_t port;
	bool good;
	int rc;

	for (p = 0; p < 65536; p++) {
		good = lands(reta, sp->mask, queues, hashes[p]);
		bad_hash += fx_rss_space_hash(sp, h0, (uint16_t)p) != hashes[p];
		bad_has += fx_rss_class_has(cl, h0, (uint16_t)p) != good;
		n += good && p >= sp->lo && p <= sp->hi;
	}
	CHECK(bad_hash == 0 && bad_has == 0, "%u hashes, %u tests wrong", bad_hash, bad_has);
	CHECK(fx_rss_class_size(cl, h0) == n, "class size %u, brute force %u",
	      fx_rss_class_size(cl, h0), n);
	for (i = 0; i < 1000; i++) {
		rc = fx_rss_class_draw(cl, h0, &port);
		if (n == 0) {
			bad_draw += rc != -ENOENT;
			continue;
		}
		bad_draw += rc != 0 || port < sp->lo || port > sp->hi ||
			!lands(reta, sp->mask, queues, hashes[port]);
	}
	CHECK(bad_draw == 0, "%u of 1000 draws wrong (class of %u)", bad_draw, n);
	CHECK(n == 0 ? fx_rss_class_bits(cl, h0) == -1.0 :
	      fabs(fx_rss_class_bits(cl, h0) - log2(n)) < 1e-9, "bits of a class of %u", n);
	return n == 0;
}

static void
fill_reta(uint16_t *reta, const struct cfg *c)
{
	unsigned int i;

	for (i = 0; i < c->reta_size; i++)
		reta[i] = (uint16_t)(i % c->nq);
}

/* the number of distinct table indices the ports reach: 2^rank */
static unsigned int
reached(uint32_t mask)
{
	static uint8_t seen[FX_TOEPLITZ_RETA_MAX];
	unsigned int p, n = 0;

	memset(seen, 0, sizeof(seen));
	for (p = 0; p < 65536; p++) {
		n += !seen[hashes[p] & mask];
		seen[hashes[p] & mask] = 1;
	}
	return n;
}

static void
test_cfg(const struct cfg *c, unsigned int want_rank)
{
	static struct fx_rss_space sp;
	static struct fx_rss_class cl;
	uint16_t reta[FX_TOEPLITZ_RETA_MAX], rport;
	uint8_t ra[16], pa[16];
	unsigned int ctx, o, empty = 0, classes = 0, c0 = checks, f0 = failures;
	uint32_t h0;
	union key k;

	key_make(&k, c->kind, c->key_len, c->ipv6);
	fill_reta(reta, c);
	CHECK(fx_rss_space_init(&sp, k.b, c->key_len, c->ipv6, c->reta_size, c->lo, c->hi) == 0,
	      "space init");
	CHECK(sp.rank + sp.kdim == 16, "rank %u, kernel %u", sp.rank, sp.kdim);
	if (want_rank != UINT32_MAX)
		CHECK(sp.rank == want_rank, "rank %u, want %u", sp.rank, want_rank);
	for (ctx = 0; ctx < CONTEXTS; ctx++) {
		h0 = context(&sp, &k, ra, &rport, pa);
		brute_hashes(&sp, &k, ra, rport, pa);
		CHECK(reached(sp.mask) == 1u << sp.rank, "%u entries reached, rank %u",
		      reached(sp.mask), sp.rank);
		for (o = 0; o < RTE_MIN(c->owners, 3u); o++) {
			CHECK(fx_rss_class_init(&cl, &sp, reta, owner_queues(c, o)) == 0, "class init");
			empty += check_class(&cl, h0, reta, owner_queues(c, o));
			classes++;
		}
	}
	check(failures == f0, "IPv%c, %u-entry table, ports %u-%u, %u queues, %u owners: rank %u; "
	      "%u classes (%u empty) against brute force, %u checks",
	      c->ipv6 ? '6' : '4', c->reta_size, c->lo, c->hi, c->nq, c->owners, sp.rank,
	      classes, empty, checks - c0);
}

static void
test_classes(void)
{
	/* kind, key length, IPv6, table, lo, hi, queues, owners */
	static const struct cfg cfgs[] = {
		{KEY_SYM, 40, false, 128, 1024, 65535, 4, 4},
		{KEY_SYM, 40, true, 512, 1024, 65535, 16, 16},
		{KEY_SYM, 40, false, 2048, 1024, 33279, 16, 16},
		{KEY_RAND, 40, false, 128, 0, 65535, 2, 2},
		{KEY_RAND, 52, true, 128, 40000, 40999, 64, 64},
		{KEY_RAND, 52, false, 512, 5000, 5003, 64, 64},
		{KEY_RAND, 40, false, 1, 0, 65535, 1, 1},
		{KEY_SYM, 40, false, 4, 1, 65535, 4, 2},
		{KEY_RANK2, 40, false, 128, 1024, 65535, 2, 2},
		{KEY_RANK2, 40, true, 128, 0, 65535, 64, 64},
		{KEY_RANK0, 40, false, 128, 0, 65535, 4, 4},
		{KEY_RANK0, 52, true, 512, 1024, 2047, 16, 8},
	};
	unsigned int i, rank;

	for (i = 0; i < RTE_DIM(cfgs); i++) {
		rank = cfgs[i].kind == KEY_RANK2 ? 2 : cfgs[i].kind == KEY_RANK0 ? 0 :
			cfgs[i].kind == KEY_SYM ? (unsigned int)__builtin_ctz(cfgs[i].reta_size) :
			UINT32_MAX;
		test_cfg(&cfgs[i], rank);
	}
}

/* Shannon entropy (bits) of n draws over the histogram's bins */
static double
entropy(const uint32_t *h, unsigned int bins, uint32_t n, unsigned int *used)
{
	double e = 0, p;
	unsigned int i;

	*used = 0;
	for (i = 0; i < bins; i++) {
		if (h[i] == 0)
			continue;
		p = (double)h[i] / n;
		e -= p * log2(p);
		(*used)++;
	}
	return e;
}

/* the plug-in entropy of DRAWS draws of an ideal uniform sampler over
 * the class's members (the estimator's own bias at this sample size) */
static double
ideal_entropy(uint32_t size)
{
	unsigned int i, used;

	memset(hist, 0, sizeof(hist));
	for (i = 0; i < DRAWS; i++)
		hist[members[rte_rand_max(size)]]++;
	return entropy(hist, 65536, DRAWS, &used);
}

static uint64_t
median(uint64_t *v, unsigned int n)
{
	unsigned int i, j;
	uint64_t t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* cycles per draw: the median of RUNS runs of DRAWS draws over 64 contexts */
static double
draw_cycles(const struct fx_rss_class *cl, const uint32_t *h0s)
{
	uint64_t t[RUNS], t0;
	unsigned int r, i;
	uint16_t port = 0, x = 0;

	for (r = 0; r < RUNS; r++) {
		t0 = rte_rdtsc();
		for (i = 0; i < DRAWS; i++) {
			if (fx_rss_class_draw(cl, h0s[i & 63], &port) == 0)
				x ^= port;
		}
		t[r] = rte_rdtsc() - t0;
	}
	sink ^= x;
	return (double)median(t, RUNS) / DRAWS;
}

/* the chi-square of the histogram against uniform over the class, as a
 * z-score (its mean is size - 1, its variance twice that) */
static double
chi_z(uint32_t size)
{
	double e = (double)DRAWS / size, chi = 0, d;
	uint32_t i;

	for (i = 0; i < size; i++) {
		d = hist[members[i]] - e;
		chi += d * d / e;
	}
	return size > 1 ? (chi - (size - 1)) / sqrt(2.0 * (size - 1)) : 0;
}

/* 64 random reply contexts whose class is not empty (the first also has
 * its hashes in hashes[]) */
static void
contexts_nonempty(const struct fx_rss_class *cl, const union key *k, uint32_t *h0s)
{
	uint8_t ra[16], pa[16];
	uint16_t rport;
	unsigned int n = 0;
	uint32_t h0;

	while (n < 64) {
		h0 = context(cl->sp, k, ra, &rport, pa);
		if (fx_rss_class_size(cl, h0) == 0)
			continue;
		if (n == 0)
			brute_hashes(cl->sp, k, ra, rport, pa);
		h0s[n++] = h0;
	}
}

/* DRAWS draws in one context: entropy beside log2 of the class size */
static void
test_uniform(const struct cfg *c, const char *what)
{
	static struct fx_rss_space sp;
	static struct fx_rss_class cl;
	uint16_t reta[FX_TOEPLITZ_RETA_MAX], port = 0;
	uint32_t h0s[64], size, i, p, bad = 0;
	uint64_t queues = owner_queues(c, 0);
	double bits, h, hmm, hid, z, cyc;
	unsigned int used;
	union key k;

	key_make(&k, c->kind, c->key_len, c->ipv6);
	fill_reta(reta, c);
	if (fx_rss_space_init(&sp, k.b, c->key_len, c->ipv6, c->reta_size, c->lo, c->hi) != 0 ||
	    fx_rss_class_init(&cl, &sp, reta, queues) != 0) {
		check(false, "%s: init", what);
		return;
	}
	contexts_nonempty(&cl, &k, h0s);
	size = fx_rss_class_size(&cl, h0s[0]);
	bits = fx_rss_class_bits(&cl, h0s[0]);
	for (i = 0, p = c->lo; p <= c->hi; p++)
		if (lands(reta, sp.mask, queues, hashes[p]))
			members[i++] = (uint16_t)p;
	CHECK(i == size, "class of %u, brute force %u", size, i);
	memset(hist, 0, sizeof(hist));
	for (i = 0; i < DRAWS; i++) {
		bad += fx_rss_class_draw(&cl, h0s[0], &port) != 0 || port < c->lo ||
			port > c->hi || !lands(reta, sp.mask, queues, hashes[port]);
		hist[port]++;
	}
	h = entropy(hist, 65536, DRAWS, &used);
	hmm = h + (used - 1) / (2.0 * DRAWS * M_LN2);
	z = chi_z(size);
	hid = ideal_entropy(size);
	cyc = draw_cycles(&cl, h0s);
	check(bad == 0 && fabs(h - hid) < 0.05 && fabs(z) < 6,
	      "%s: class %u ports, log2 %.3f bits; %u draws: entropy %.3f (Miller-Madow %.3f), "
	      "ideal sampler %.3f, chi-square z %.2f, %u off the class; a round accepts %.3f; "
	      "%.1f cycles a draw",
	      what, size, bits, DRAWS, h, hmm, hid, z, bad, (double)size / cl.span, cyc);
}

static void
test_uniformity(void)
{
	/* kind, key length, IPv6, table, lo, hi, queues, owners */
	static const struct {
		struct cfg c;
		const char *what;
	} u[] = {
		{{KEY_SYM, 40, false, 128, 1024, 65535, 2, 2}, "2 queues, one an owner"},
		{{KEY_SYM, 40, false, 128, 1024, 65535, 4, 4}, "4 queues, one an owner"},
		{{KEY_SYM, 40, false, 128, 1024, 65535, 16, 16}, "16 queues, one an owner"},
		{{KEY_SYM, 40, false, 128, 1024, 65535, 64, 64}, "64 queues, one an owner"},
		{{KEY_SYM, 40, false, 128, 1024, 65535, 16, 4}, "16 queues, 4 an owner"},
		{{KEY_SYM, 40, false, 128, 1024, 65535, 64, 8}, "64 queues, 8 an owner"},
		{{KEY_SYM, 40, true, 512, 1024, 65535, 64, 64}, "IPv6, 512 entries, 64 queues"},
		{{KEY_RAND, 52, false, 128, 0, 65535, 16, 16}, "random key, 16 queues, all ports"},
		{{KEY_RAND, 40, false, 512, 40000, 40999, 16, 16}, "random key, 16 queues, 1000 ports"},
		{{KEY_RANK2, 40, false, 128, 1024, 65535, 2, 2}, "rank 2, 2 queues"},
		/* as NAT steers (nat/steer.h): worker 0's share of 1024-65535
		 * among W workers, a queue each, its class of that share */
		{{KEY_SYM, 40, false, 128, 1024, 33279, 2, 2}, "NAT, 2 workers: a share's class"},
		{{KEY_SYM, 40, false, 128, 1024, 17151, 4, 4}, "NAT, 4 workers: a share's class"},
		{{KEY_SYM, 40, false, 128, 1024, 5055, 16, 16}, "NAT, 16 workers: a share's class"},
		{{KEY_SYM, 40, false, 128, 1024, 2031, 64, 64}, "NAT, 64 workers: a share's class"},
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(u); i++)
		test_uniform(&u[i].c, u[i].what);
}

static void
test_errors(void)
{
	static struct fx_rss_space sp;
	static struct fx_rss_class cl;
	uint16_t reta[FX_TOEPLITZ_RETA_MAX], port = 0;
	union key k;
	unsigned int bad = 0, i;

	key_make(&k, KEY_SYM, 40, false);
	memset(reta, 0, sizeof(reta));
	bad += fx_rss_space_init(NULL, k.b, 40, false, 128, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, NULL, 40, false, 128, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 15, false, 128, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 39, true, 128, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 40, false, 0, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 40, false, 96, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 40, false, 4096, 0, 65535) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 40, false, 128, 2000, 1999) != -EINVAL;
	bad += fx_rss_space_init(&sp, k.b, 16, false, 128, 0, 65535) != 0;
	bad += fx_rss_class_init(NULL, &sp, reta, 1) != -EINVAL;
	bad += fx_rss_class_init(&cl, NULL, reta, 1) != -EINVAL;
	bad += fx_rss_class_init(&cl, &sp, NULL, 1) != -EINVAL;
	bad += fx_rss_class_init(&cl, &sp, reta, 0) != -ENOENT;
	bad += fx_rss_class_init(&cl, &sp, reta, 2) != -ENOENT;     /* only queue 0 */
	for (i = 0; i < 128; i++)
		reta[i] = (uint16_t)(64 + i % 2);                /* beyond the mask's 64 */
	bad += fx_rss_class_init(&cl, &sp, reta, UINT64_MAX) != -ENOENT;
	/* one port, whose entry is not the wanted one: empty for that context */
	for (i = 0; i < 128; i++)
		reta[i] = (uint16_t)(i % 2);
	bad += fx_rss_space_init(&sp, k.b, 40, false, 128, 4242, 4242) != 0;
	bad += fx_rss_class_init(&cl, &sp, reta, 1) != 0;
	for (i = 0; i < 2; i++) {
		uint32_t h0 = (fx_rss_space_hash(&sp, 0, 4242) & 1) ^ (uint32_t)i;
		bool in = (fx_rss_space_hash(&sp, h0, 4242) & 1) == 0;

		bad += fx_rss_class_size(&cl, h0) != (in ? 1u : 0u);
		bad += fx_rss_class_draw(&cl, h0, &port) != (in ? 0 : -ENOENT);
		bad += in && port != 4242;
		bad += fx_rss_class_bits(&cl, h0) != (in ? 0.0 : -1.0);
	}
	check(bad == 0, "bad arguments refused with -EINVAL, no wanted entry and an empty class "
	      "with -ENOENT: %u wrong", bad);
}

/* what a context's h0 and a test cost, in cycles */
static void
test_costs(void)
{
	static struct fx_rss_space sp4, sp6;
	static struct fx_rss_class cl;
	static uint8_t a6[64][16];
	uint64_t t4[RUNS], t6[RUNS], th[RUNS], tr[RUNS], t0;
	uint16_t reta[128];
	uint32_t x = 0, a4[64];
	unsigned int r, i;
	union key k;

	key_make(&k, KEY_SYM, 40, false);
	for (i = 0; i < 128; i++)
		reta[i] = (uint16_t)(i % 16);
	for (i = 0; i < 64; i++) {
		a4[i] = (uint32_t)rte_rand();
		rand_bytes(a6[i], 16);
	}
	if (fx_rss_space_init(&sp4, k.b, 40, false, 128, 1024, 65535) != 0 ||
	    fx_rss_space_init(&sp6, k.b, 40, true, 128, 1024, 65535) != 0 ||
	    fx_rss_class_init(&cl, &sp4, reta, 1) != 0) {
		check(false, "costs: init");
		return;
	}
	for (r = 0; r < RUNS; r++) {
		t0 = rte_rdtsc();
		for (i = 0; i < DRAWS; i++)
			x += fx_rss_space_h0_v4(&sp4, a4[i & 63], (uint16_t)i, a4[(i + 1) & 63]);
		t4[r] = rte_rdtsc() - t0;
		t0 = rte_rdtsc();
		for (i = 0; i < DRAWS; i++)
			x += fx_rss_space_h0_v6(&sp6, a6[i & 63], (uint16_t)i, a6[(i + 1) & 63]);
		t6[r] = rte_rdtsc() - t0;
		t0 = rte_rdtsc();
		for (i = 0; i < DRAWS; i++)
			x += fx_rss_class_has(&cl, a4[i & 63], (uint16_t)(i * 40503u));
		th[r] = rte_rdtsc() - t0;
		t0 = rte_rdtsc();
		for (i = 0; i < DRAWS; i++)
			x += (uint32_t)rte_rand_max(32256);
		tr[r] = rte_rdtsc() - t0;
	}
	sink ^= x;
	printf("     cycles (median of %u runs of %u): h0 IPv4 %.1f, h0 IPv6 %.1f, a port's test %.1f, "
	       "rte_rand_max() alone %.1f; sizes: space %zu, class %zu bytes\n", RUNS, DRAWS,
	       (double)median(t4, RUNS) / DRAWS, (double)median(t6, RUNS) / DRAWS,
	       (double)median(th, RUNS) / DRAWS, (double)median(tr, RUNS) / DRAWS,
	       sizeof(sp4), sizeof(cl));
}

int
main(int argc, char **argv)
{
	if (!test_eal_start(argc, argv, 0x7f17))
		return 1;
	test_hash();
	test_classes();
	test_errors();
	test_uniformity();
	test_costs();
	return test_eal_end();
}
