/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The keyed hash's secret and its expansion (base/hash.h): the secret from
 * getrandom(2) or a test, and the function's per-word key derived from it
 * with SipHash-1-3, word i of the expansion being SipHash-1-3 of the
 * little-endian 64-bit number i (0 .. FX_HASH_WORDS_MAX - 1: a_i in its
 * low half, b_i in its high half; FX_HASH_WORDS_MAX: f).
 */

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>

#include <rte_common.h>

#include "base/hash.h"

uint64_t fx_hash_secret[2];
struct fx_hash_key fx_hash_key;

int
fx_hash_init(void)
{
	uint64_t k[2];
	ssize_t n;

	do
		n = getrandom(k, sizeof(k), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(k))
		return n < 0 ? -errno : -EIO;
	fx_hash_set_secret(k[0], k[1]);
	return 0;
}

void
fx_hash_set_secret(uint64_t k0, uint64_t k1)
{
	unsigned int i;
	uint64_t w;

	fx_hash_secret[0] = k0;
	fx_hash_secret[1] = k1;
	for (i = 0; i < FX_HASH_WORDS_MAX; i++) {
		w = i;   /* the word's little-endian bytes on x86 and arm64 */
		w = fx_siphash13(fx_hash_secret, &w, 1);
		fx_hash_key.w[2 * i] = (uint32_t)w;
		fx_hash_key.w[2 * i + 1] = (uint32_t)(w >> 32);
	}
	w = FX_HASH_WORDS_MAX;
	fx_hash_key.f = fx_siphash13(fx_hash_secret, &w, 1);
}

/* before fx_hash_init() or a test's secret: the expansion of the zero
 * secret, so that the function is never used with an all-zero key */
RTE_INIT(fx_hash_default_key)
{
	fx_hash_set_secret(0, 0);
}

uint32_t
fx_hash_rte(const void *key, uint32_t len, uint32_t init_val __rte_unused)
{
	return fx_hash_words(key, len / 8);
}
