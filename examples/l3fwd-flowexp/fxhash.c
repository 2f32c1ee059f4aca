/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/* The keyed hash's secret (fxhash.h). */

#include <errno.h>
#include <sys/random.h>

#include "fxhash.h"

uint64_t fx_hash_secret[2];

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
	fx_hash_secret[0] = k0;
	fx_hash_secret[1] = k1;
}

uint32_t
fx_hash_rte(const void *key, uint32_t len, uint32_t init_val __rte_unused)
{
	return fx_hash_words(key, len / 8);
}
