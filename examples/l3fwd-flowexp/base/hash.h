/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Keyed hashing: every table the outside can fill and every software
 * steering decision hashes with a secret drawn at start-up, so that keys
 * which collide cannot be computed offline.
 *
 * Why not CRC with a random seed: CRC (rte_hash_crc) and Toeplitz are
 * linear over GF(2) in the key whatever their seed, so the differences
 * between colliding keys do not depend on the seed, and an attacker finds
 * thousands of keys for one bucket by linear algebra.
 *
 * The function. A key is n 8-byte words, each read as two 32-bit halves
 * (lo, hi), and the hash is
 *
 *   s = f + sum over words i of (lo_i + a_i mod 2^32) * (hi_i + b_i mod 2^32)
 *                                                                mod 2^64
 *   h = mix64(s), folded to 32 bits (its high half)
 *
 * with secret 32-bit words a_i, b_i and a 64-bit f (the NH construction
 * of UMAC; mix64 is a xorshift-multiply finaliser, a bijection). Each
 * term is a product of two key-dependent factors, so s is of degree two in
 * the key and, through the carries of the additions and multiplies, not
 * linear over GF(2): which keys collide depends on the secret. For two
 * distinct keys of the same length, the probability over the secret that
 * their sums s are equal is at most 2^-32 (NH is 2^-32-almost-universal);
 * when the sums differ, mix64 keeps them different and their 32-bit hashes
 * and home buckets agree only as often as random values do. So an
 * attacker who does not know the secret can do no better than random
 * keys: a run of one bucket and its spills filled by keys with the same
 * home bucket (what an insert refused at the probe bound takes,
 * flow/table.h, nat/table.h) is as unlikely for his keys as for anyone's.
 * What he can still try is online: guess a secret-dependent value, such
 * as the lo_i that makes a factor zero (every hi_i then collides), and
 * detect success from outside; a guess is right with probability 2^-32
 * and the tables show no per-key outcome (only counters on the control
 * path). The secret is never printed or sent.
 *
 * Cost: n 32x32->64 multiplies (independent, so they pipeline) and two
 * for the finaliser; what that costs per key beside CRC32-C and
 * SipHash-1-3 is in CHANGELOG.md (the keyed hash's entry).
 *
 * The secret (128 bits) comes from getrandom(2) once, on the main lcore,
 * before any table is made (fx_hash_init()); rte_rand() is not used, as an
 * observer of its outputs can learn its state. The per-word key (a_i, b_i)
 * and f are expanded from it with SipHash-1-3, a keyed PRF, at start-up
 * only. It never leaves the process. Tests set a known secret with
 * fx_hash_set_secret(); test/lib/fxpkt.py models the function (fx_hash()).
 */

#ifndef _FX_HASH_H_
#define _FX_HASH_H_

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>

/** Longest key fx_hash_words() takes, in 8-byte words. */
#define FX_HASH_WORDS_MAX 8

/** The secret; read-only once the workers run. */
extern uint64_t fx_hash_secret[2];

/** What the function uses, expanded from the secret (fx_hash_set_secret()). */
struct fx_hash_key {
	uint32_t w[2 * FX_HASH_WORDS_MAX];  /**< a_i, b_i: lo, hi of word i */
	uint64_t f;                         /**< the sum's start */
};

extern struct fx_hash_key fx_hash_key;

/** Start-up, main lcore: draw the secret. 0 or -errno (getrandom failed). */
int fx_hash_init(void);

/** Tests: use this secret instead (and expand it). */
void fx_hash_set_secret(uint64_t k0, uint64_t k1);

static inline uint64_t
fx_hash_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/* one SipRound on the state */
#define FX_SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = fx_hash_rotl(v1, 13); v1 ^= v0; v0 = fx_hash_rotl(v0, 32); \
	v2 += v3; v3 = fx_hash_rotl(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = fx_hash_rotl(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = fx_hash_rotl(v1, 17); v1 ^= v2; v2 = fx_hash_rotl(v2, 32); \
} while (0)

/**
 * SipHash-1-3 (Aumasson and Bernstein: a keyed PRF, one compression round
 * per 8-byte word, three to finalise) of n little-endian 8-byte words
 * under secret k, 64 bits: what the key expansion uses, one word at a
 * time (not the tables' hash: about 80 cycles for a flow key, where the
 * tables' function takes 10-20).
 */
static inline uint64_t
fx_siphash13(const uint64_t k[2], const void *key, unsigned int n)
{
	const uint8_t *p = key;
	uint64_t v0 = k[0] ^ UINT64_C(0x736f6d6570736575);
	uint64_t v1 = k[1] ^ UINT64_C(0x646f72616e646f6d);
	uint64_t v2 = k[0] ^ UINT64_C(0x6c7967656e657261);
	uint64_t v3 = k[1] ^ UINT64_C(0x7465646279746573);
	uint64_t m;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memcpy(&m, p + 8 * i, sizeof(m));
		v3 ^= m;
		FX_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (uint64_t)(8 * n) << 56;   /* the last block: the length alone */
	v3 ^= m;
	FX_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	FX_SIPROUND(v0, v1, v2, v3);
	FX_SIPROUND(v0, v1, v2, v3);
	FX_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/** The finaliser: a bijection of 64 bits, every output bit on every input bit. */
static inline uint64_t
fx_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/**
 * The keyed hash of n 8-byte words (the key's length is 8 * n bytes, n at
 * most FX_HASH_WORDS_MAX), all 64 bits of the finaliser: for a table that
 * keeps hash bits in place of its keys (base/quota.h). Little-endian words, as
 * on x86 and arm64.
 */
static inline uint64_t
fx_hash_words64(const void *key, unsigned int n)
{
	const uint8_t *p = key;
	uint64_t s = fx_hash_key.f, m;
	unsigned int i;

	RTE_ASSERT(n <= FX_HASH_WORDS_MAX);
	for (i = 0; i < n; i++) {
		memcpy(&m, p + 8 * i, sizeof(m));
		s += (uint64_t)(uint32_t)((uint32_t)m + fx_hash_key.w[2 * i]) *
			(uint32_t)((uint32_t)(m >> 32) + fx_hash_key.w[2 * i + 1]);
	}
	return fx_hash_mix64(s);
}

/** The keyed hash of n 8-byte words, 32 bits: fx_hash_words64()'s high half. */
static inline uint32_t
fx_hash_words(const void *key, unsigned int n)
{
	return (uint32_t)(fx_hash_words64(key, n) >> 32);
}

/** The keyed hash of a 32-bit value (an address). */
static inline uint32_t
fx_hash_u32(uint32_t v)
{
	uint64_t w = v;

	return fx_hash_words(&w, 1);
}

/**
 * rte_hash's hash_func signature, for tables built on rte_hash (len a
 * multiple of 8, at most 8 * FX_HASH_WORDS_MAX).
 */
uint32_t fx_hash_rte(const void *key, uint32_t len, uint32_t init_val);

#endif /* _FX_HASH_H_ */
