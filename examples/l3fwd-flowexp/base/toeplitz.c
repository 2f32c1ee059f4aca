/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Toeplitz in software, and the public ports whose replies RSS sends to
 * chosen queues (base/toeplitz.h has the interface).
 *
 * The hash. Number the input bits s_0, s_1, ... in wire order (s_0 is the
 * first byte's top bit) and the key bits k_0, k_1, ... the same way. Bit b
 * of the input selects the key's 32-bit window W(b) = k_b ... k_b+31 (k_b
 * its top bit), and the hash is the XOR of the windows of the input's set
 * bits. It is linear over GF(2): h(s ^ s') = h(s) ^ h(s'). An input of n
 * bytes reads n + 4 key bytes. fx_toeplitz() keeps a 40-bit window of the
 * key, slides it a byte per input byte and XORs, for each set bit, the 32
 * bits under it.
 *
 * The map of the public port. A reply's input is (remote address, public
 * address, remote port, public port): the public port p is the last 16
 * bits, at P .. P + 15 (P = 80 for IPv4, 272 for IPv6), its bit j at
 * P + 15 - j. So h(p) = h0 ^ L(p), where h0 is the hash with p = 0 and
 * L(p) the XOR of col_j = W(P + 15 - j) over p's set bits j. L depends on
 * the key and P only; a reply context (the remote endpoint and the public
 * address) enters through h0 alone. The NIC takes the table index from
 * the hash's low m bits (a table of 2^m entries): i = c ^ M p, with
 * c = h0 & mask and M the m x 16 matrix of the columns' low m bits. Let r
 * be M's rank and K its kernel (dimension 16 - r). For v in M's image the
 * ports with M p = v are one coset base_v + K, 2^(16 - r) ports, an
 * affine subspace; for v outside the image there are none. The ports
 * whose reply lands on entry t are the coset of v = c ^ t, so for a set T
 * of entries (those naming a wanted queue) the class is the disjoint
 * union of the cosets of c ^ t, t in T. Everything but c is fixed per
 * key, table and range: the space and the class precompute it for each
 * of the 2^m values of c, and a context costs the one hash h0. Rank
 * below m: only 2^r of the 2^m entries are reachable from one context,
 * which ones depending on c; a class can be empty for some contexts
 * (the draw says -ENOENT). The symmetric key (6d5a repeated) has full
 * rank: with a period of 16 bits the columns' low 16 bits are the 16
 * rotations of the pattern, a circulant matrix, invertible over GF(2)
 * because the pattern's weight (9) is odd (x + 1 does not divide it), so
 * any m of its rows are independent.
 *
 * The range. A coset cut by [lo, hi] is no subspace, but it is a run in
 * the right order. Reduce K's basis to echelon form (the pivots, each
 * vector's top bit, distinct and clear in every other vector), sort it by
 * pivot, and take base_v with every pivot bit clear (the coset's least
 * port). Then e_v(x) = base_v ^ (XOR of kern_i over x's set bits i) is
 * strictly increasing in x: where two x first differ, at bit i, only kern_i
 * changes bit pivot_i, the vectors above agree, those below have no bit
 * that high. So the coset's ports in [lo, hi] are e_v(first_v) ..
 * e_v(first_v + n_v - 1), first_v the count of its ports below lo; a
 * descent over the basis finds a count below a bound in kdim steps.
 *
 * The draw. For context c the class is the runs of v = c ^ t, t in T,
 * sizes n_v. A round draws u uniformly from [0, nt * n_max), takes
 * t = T[u / n_max], w = u % n_max, and returns e_v(first_v + w) if
 * w < n_v; otherwise it rejects. Each port of the class answers exactly
 * one u, so a round that accepts returns each with the same probability;
 * it accepts with probability size / (nt * n_max): 1 over the whole port
 * range at full rank (every n_v is 2^(16 - m)), and 1 again for the NAT's
 * usual 1024-65535 where the low 10 port bits alone reach every entry (as
 * with the symmetric key: 0-1023 then takes 2^(10 - m) ports from every
 * coset); less for narrow ranges (0.65 for 1000 ports and 512 entries
 * under a random key) or low rank (0.03 at rank 2, 128 entries, 2
 * queues). After FX_RSS_TRIES rejected rounds the draw takes the exact
 * path: r uniform in [0, size), and a walk of T subtracting the n_v until
 * r falls inside one run. So each port of the class has the same
 * probability: a round gives each 1 / (nt * n_max), and the walk, which
 * is reached with a probability that names no port, gives each 1 / size.
 * The work is bounded by FX_RSS_TRIES rounds and nt steps. The entropy
 * of a draw is log2 of the class size.
 *
 * Costs. Space: 16 windows, an elimination of 16 columns of m bits, and
 * per value v a solve and two descents: O(2^m * 16), start-up only.
 * Class: O(2^m * nt) additions (4M at most, for 2048 entries). A context:
 * h0, one hash of the reply with port 0: for IPv4 ten lookups in tables of
 * each input byte's 256 values (linearity again: the hash of an input is
 * the XOR of its bytes' hashes), 10 KiB built with the space; for IPv6
 * one XOR per set input bit. A test: one XOR per set port bit and a bit
 * test. A round: one rte_rand_max(), a division, three table reads and
 * kdim masked XORs (a fixed count: no branch on the random bits to
 * mispredict). No allocation: the caller owns both structures (about 27
 * and 12 KiB at the largest table).
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_common.h>
#include <rte_random.h>

#include "base/toeplitz.h"

#define FX_RSS_PORT_BIT_V4 80
#define FX_RSS_PORT_BIT_V6 272

uint32_t
fx_toeplitz(const uint8_t *key, const uint8_t *in, unsigned int len)
{
	uint64_t w = 0;
	uint32_t h = 0;
	unsigned int i, x;

	/* key bits 8i .. 8i + 39 in the low 40 bits of w */
	for (i = 0; i < 5; i++)
		w = (w << 8) | key[i];
	for (i = 0; i < len; i++) {
		/* bit z of in[i] (z = 0 its least) is input bit 8i + 7 - z,
		 * whose window is w >> (1 + z) */
		for (x = in[i]; x != 0; x &= x - 1)
			h ^= (uint32_t)(w >> (1 + __builtin_ctz(x)));
		if (i + 1 < len)
			w = ((w << 8) | key[i + 5]) & UINT64_C(0xffffffffff);
	}
	return h;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

uint32_t
fx_toeplitz_v4(const uint8_t *key, uint32_t src, uint32_t dst, uint16_t sport,
	       uint16_t dport)
{
	uint8_t in[12];

	put32(in, src);
	put32(in + 4, dst);
	put16(in + 8, sport);
	put16(in + 10, dport);
	return fx_toeplitz(key, in, sizeof(in));
}

uint32_t
fx_toeplitz_v6(const uint8_t *key, const uint8_t src[16], const uint8_t dst[16],
	       uint16_t sport, uint16_t dport)
{
	uint8_t in[36];

	memcpy(in, src, 16);
	memcpy(in + 16, dst, 16);
	put16(in + 32, sport);
	put16(in + 34, dport);
	return fx_toeplitz(key, in, sizeof(in));
}

/* W(b): the 32 key bits from bit b (reads bytes b / 8 .. b / 8 + 4) */
static uint32_t
key_window(const uint8_t *key, unsigned int b)
{
	uint64_t w = 0;
	unsigned int i;

	for (i = 0; i < 5; i++)
		w = (w << 8) | key[b / 8 + i];
	return (uint32_t)(w >> (8 - b % 8));
}

static unsigned int
top_bit(uint32_t v)
{
	return 31 - (unsigned int)__builtin_clz(v);
}

/* Gaussian elimination of M's columns: pivot rows by top bit (pv: the
 * value, pc: the port bits that make it), and the kernel in echelon form */
struct fx_rss_elim {
	uint32_t pv[FX_TOEPLITZ_RETA_LOG2_MAX];
	uint16_t pc[FX_TOEPLITZ_RETA_LOG2_MAX];
	uint32_t have;      /* pivot rows present, a bit per top bit */
	uint16_t kp[16];    /* kernel vectors by their top bit; 0: none */
};

static void
elim_columns(struct fx_rss_space *sp, struct fx_rss_elim *el)
{
	uint32_t v, h;
	uint16_t comb, k;
	unsigned int j, i;

	for (j = 0; j < 16; j++) {
		v = sp->col[j] & sp->mask;
		comb = (uint16_t)(1u << j);
		while (v != 0 && (el->have >> top_bit(v) & 1)) {
			h = top_bit(v);
			v ^= el->pv[h];
			comb ^= el->pc[h];
		}
		if (v != 0) {
			h = top_bit(v);
			el->pv[h] = v;
			el->pc[h] = comb;
			el->have |= 1u << h;
			sp->rank++;
			continue;
		}
		/* a kernel vector: into the echelon basis by its top bit */
		for (k = comb; k != 0 && el->kp[top_bit(k)] != 0; )
			k ^= el->kp[top_bit(k)];
		if (k != 0)
			el->kp[top_bit(k)] = k;
	}
	/* reduce: clear each pivot bit in every other vector, then list them
	 * by pivot ascending */
	for (i = 0; i < 16; i++)
		for (j = i + 1; j < 16; j++)
			if (el->kp[i] != 0 && (el->kp[j] >> i & 1))
				el->kp[j] ^= el->kp[i];
	for (i = 0; i < 16; i++)
		if (el->kp[i] != 0)
			sp->kern[sp->kdim++] = el->kp[i];
}

/* how many ports of the coset with least port base lie below bound */
static uint32_t
coset_below(const struct fx_rss_space *sp, uint16_t base, uint32_t bound)
{
	uint32_t e = base, x = 0, cand;
	unsigned int i;

	if (base >= bound)
		return 0;
	for (i = sp->kdim; i-- > 0; ) {
		cand = e ^ sp->kern[i];
		if (cand < bound) {
			e = cand;
			x |= 1u << i;
		}
	}
	return x + 1;
}

/* the coset of v: its least port, and its run within [lo, hi] */
static void
coset_fill(struct fx_rss_space *sp, const struct fx_rss_elim *el, uint32_t v)
{
	uint32_t r = v, below_lo;
	uint16_t p = 0;
	unsigned int i, h;

	while (r != 0) {
		h = top_bit(r);
		if (!(el->have >> h & 1))
			return;             /* not in the image: n[v] stays 0 */
		r ^= el->pv[h];
		p ^= el->pc[h];
	}
	/* the least port of the coset: every pivot bit clear */
	for (i = sp->kdim; i-- > 0; )
		if (p >> top_bit(sp->kern[i]) & 1)
			p ^= sp->kern[i];
	below_lo = coset_below(sp, p, sp->lo);
	sp->base[v] = p;
	sp->first[v] = (uint16_t)below_lo;
	sp->n[v] = coset_below(sp, p, (uint32_t)sp->hi + 1) - below_lo;
	sp->n_max = RTE_MAX(sp->n_max, sp->n[v]);
}

/* byte4[i][b]: the hash of an input whose byte i is b and the rest 0 */
static void
fill_byte_tables(struct fx_rss_space *sp)
{
	uint8_t in[FX_TOEPLITZ_H0_BYTES_V4];
	unsigned int i, b;

	memset(in, 0, sizeof(in));
	for (i = 0; i < FX_TOEPLITZ_H0_BYTES_V4; i++) {
		for (b = 0; b < 256; b++) {
			in[i] = (uint8_t)b;
			sp->byte4[i][b] = fx_toeplitz(sp->key, in, sizeof(in));
		}
		in[i] = 0;
	}
}

int
fx_rss_space_init(struct fx_rss_space *sp, const uint8_t *key, unsigned int key_len,
		  bool ipv6, unsigned int reta_size, uint16_t lo, uint16_t hi)
{
	unsigned int need = ipv6 ? FX_TOEPLITZ_KEY_V6 : FX_TOEPLITZ_KEY_V4;
	unsigned int pbit = ipv6 ? FX_RSS_PORT_BIT_V6 : FX_RSS_PORT_BIT_V4;
	struct fx_rss_elim el;
	unsigned int j;
	uint32_t v;

	if (sp == NULL || key == NULL || key_len < need || lo > hi ||
	    reta_size == 0 || reta_size > FX_TOEPLITZ_RETA_MAX ||
	    !rte_is_power_of_2(reta_size))
		return -EINVAL;
	memset(sp, 0, sizeof(*sp));
	memset(&el, 0, sizeof(el));
	memcpy(sp->key, key, need);
	sp->ipv6 = ipv6;
	sp->lo = lo;
	sp->hi = hi;
	sp->mask = reta_size - 1;
	for (j = 0; j < 16; j++)
		sp->col[j] = key_window(key, pbit + 15 - j);
	elim_columns(sp, &el);
	for (v = 0; v <= sp->mask; v++)
		coset_fill(sp, &el, v);
	if (!ipv6)
		fill_byte_tables(sp);
	return 0;
}

uint32_t
fx_rss_space_h0_v4(const struct fx_rss_space *sp, uint32_t raddr, uint16_t rport,
		   uint32_t paddr)
{
	const uint32_t (*t)[256] = sp->byte4;

	/* one lookup per input byte: remote address, public address,
	 * remote port (the public port's two bytes are 0) */
	return t[0][raddr >> 24] ^ t[1][raddr >> 16 & 255] ^ t[2][raddr >> 8 & 255] ^
		t[3][raddr & 255] ^ t[4][paddr >> 24] ^ t[5][paddr >> 16 & 255] ^
		t[6][paddr >> 8 & 255] ^ t[7][paddr & 255] ^ t[8][rport >> 8] ^
		t[9][rport & 255];
}

uint32_t
fx_rss_space_h0_v6(const struct fx_rss_space *sp, const uint8_t raddr[16],
		   uint16_t rport, const uint8_t paddr[16])
{
	return fx_toeplitz_v6(sp->key, raddr, paddr, rport, 0);
}

int
fx_rss_class_init(struct fx_rss_class *cl, const struct fx_rss_space *sp,
		  const uint16_t *reta, uint64_t queues)
{
	uint32_t i, c, sum;

	if (cl == NULL || sp == NULL || reta == NULL)
		return -EINVAL;
	memset(cl, 0, sizeof(*cl));
	cl->sp = sp;
	for (i = 0; i <= sp->mask; i++) {
		if (reta[i] >= 64 || !(queues >> reta[i] & 1))
			continue;
		cl->want[i / 64] |= UINT64_C(1) << (i % 64);
		cl->t[cl->nt++] = (uint16_t)i;
	}
	if (cl->nt == 0)
		return -ENOENT;
	cl->span = cl->nt * sp->n_max;
	for (c = 0; c <= sp->mask; c++) {
		for (sum = 0, i = 0; i < cl->nt; i++)
			sum += sp->n[c ^ cl->t[i]];
		cl->cnt[c] = sum;
	}
	return 0;
}

double
fx_rss_class_bits(const struct fx_rss_class *cl, uint32_t h0)
{
	uint32_t n = fx_rss_class_size(cl, h0);

	return n == 0 ? -1.0 : log2((double)n);
}

/* the port of rank x (from 0) in the coset of v */
static uint16_t
coset_port(const struct fx_rss_space *sp, uint32_t v, uint32_t x)
{
	uint32_t p = sp->base[v];
	unsigned int i;

	/* a fixed count of steps (kdim), no branch on x's bits */
	for (i = 0; i < sp->kdim; i++)
		p ^= sp->kern[i] & (0u - (x >> i & 1));
	return (uint16_t)p;
}

int
fx_rss_class_draw(const struct fx_rss_class *cl, uint32_t h0, uint16_t *port)
{
	const struct fx_rss_space *sp = cl->sp;
	uint32_t c = h0 & sp->mask, u, v, w, r, i;

	if (cl->cnt[c] == 0)
		return -ENOENT;
	for (i = 0; i < FX_RSS_TRIES; i++) {
		u = (uint32_t)rte_rand_max(cl->span);   /* span <= 2^25 */
		v = c ^ cl->t[u / sp->n_max];
		w = u % sp->n_max;
		if (w < sp->n[v]) {
			*port = coset_port(sp, v, sp->first[v] + w);
			return 0;
		}
	}
	/* the exact path: the r-th port of the class, runs in T's order */
	r = (uint32_t)rte_rand_max(cl->cnt[c]);
	for (i = 0; i < cl->nt; i++) {
		v = c ^ cl->t[i];
		if (r < sp->n[v]) {
			*port = coset_port(sp, v, sp->first[v] + r);
			return 0;
		}
		r -= sp->n[v];
	}
	return -ENOENT;     /* not reached: cnt[c] is the sum of the runs */
}
