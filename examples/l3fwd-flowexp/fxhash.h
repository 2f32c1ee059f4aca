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
 * thousands of keys for one bucket by linear algebra. The function here is
 * SipHash-1-3 (Aumasson and Bernstein: a keyed PRF, one compression round
 * per 8-byte word and three to finalise) on the fixed-size keys the
 * example hashes, folded to 32 bits.
 *
 * The secret (128 bits) comes from getrandom(2) once, on the main lcore,
 * before any table is made (fx_hash_init()); rte_rand() is not used, as an
 * observer of its outputs can learn its state. It never leaves the
 * process. Tests set a known secret with fx_hash_set_secret().
 */

#ifndef _FX_HASH_H_
#define _FX_HASH_H_

#include <stdint.h>
#include <string.h>

#include <rte_common.h>

/** The secret; read-only once the workers run. */
extern uint64_t fx_hash_secret[2];

/** Start-up, main lcore: draw the secret. 0 or -errno (getrandom failed). */
int fx_hash_init(void);

/** Tests: use this secret instead. */
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
 * SipHash-1-3 of n 8-byte words (the key's length is 8 * n bytes, a
 * multiple of 8: the last block is the length alone), folded to 32 bits.
 */
static inline uint32_t
fx_hash_words(const void *key, unsigned int n)
{
	const uint8_t *p = key;
	uint64_t v0 = fx_hash_secret[0] ^ UINT64_C(0x736f6d6570736575);
	uint64_t v1 = fx_hash_secret[1] ^ UINT64_C(0x646f72616e646f6d);
	uint64_t v2 = fx_hash_secret[0] ^ UINT64_C(0x6c7967656e657261);
	uint64_t v3 = fx_hash_secret[1] ^ UINT64_C(0x7465646279746573);
	uint64_t m, h;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memcpy(&m, p + 8 * i, sizeof(m));   /* little-endian words on x86 and arm64 */
		v3 ^= m;
		FX_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (uint64_t)(8 * n) << 56;
	v3 ^= m;
	FX_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	FX_SIPROUND(v0, v1, v2, v3);
	FX_SIPROUND(v0, v1, v2, v3);
	FX_SIPROUND(v0, v1, v2, v3);
	h = v0 ^ v1 ^ v2 ^ v3;
	return (uint32_t)(h ^ (h >> 32));
}

/** The keyed hash of a 32-bit value (an address). */
static inline uint32_t
fx_hash_u32(uint32_t v)
{
	uint64_t w = v;

	return fx_hash_words(&w, 1);
}

/** rte_hash's hash_func signature, for tables built on rte_hash (len a multiple of 8). */
uint32_t fx_hash_rte(const void *key, uint32_t len, uint32_t init_val);

#endif /* _FX_HASH_H_ */
