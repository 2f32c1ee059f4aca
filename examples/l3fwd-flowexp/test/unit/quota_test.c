/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the per-host quota table (base/quota.h) against a reference
 * model: random takes and puts over a key space larger than the table
 * holds at once, on tables small enough that runs wrap around the end
 * and backward shifting moves keys every few operations. After every
 * operation the table's answer for the key is the model's; every few
 * hundred, every key of the space is asked, and the table is walked to
 * check that each key sits within FX_QUOTA_PROBES of its home with no
 * empty slot on the way and that no key is present twice. A take at the
 * limit changes nothing; a full table refuses with -ENOSPC.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_memory.h>
#include <rte_random.h>

#include "base/hash.h"
#include "base/quota.h"
#include "test/lib/test_eal.h"

#define SPACE 600u

static struct fx_quota_key
key_of(unsigned int i)
{
	return fx_quota_nat_dest(0x0a000000u + i / 7, 0xc6120000u + i % 7, 53, 17);
}

/* every key sits within its probes, with no hole before it, once (its
 * home and hash bits in no other slot) */
static void
walk(const struct fx_quota *q)
{
	uint32_t s, t, h, d, n = 0;

	for (s = 0; s <= q->mask; s++) {
		if (q->slot[s] == 0)
			continue;
		n++;
		CHECK(fx_quota_slot_count(q->slot[s]) != 0, "slot %u: a key with count 0", s);
		d = fx_quota_slot_disp(q->slot[s]);
		CHECK(d < FX_QUOTA_PROBES, "slot %u: %u from home", s, d);
		h = (s - d) & q->mask;
		for (t = h; t != s; t = (t + 1) & q->mask)
			CHECK(q->slot[t] != 0, "a hole at %u before slot %u", t, s);
		for (t = s + 1; t <= q->mask; t++)
			CHECK(q->slot[t] == 0 || ((t - fx_quota_slot_disp(q->slot[t])) & q->mask) != h ||
			      q->slot[t] >> FX_QUOTA_TAG_SHIFT != q->slot[s] >> FX_QUOTA_TAG_SHIFT,
			      "slots %u and %u: one key", s, t);
	}
	CHECK(n == q->keys, "%u keys in slots, %u counted", n, q->keys);
}

static void
test_model(uint32_t keys, uint32_t limit, unsigned int ops)
{
	static uint32_t model[SPACE];
	struct fx_quota q;
	struct fx_quota_key k;
	unsigned int op, i, present = 0, j;
	int rc, want;

	memset(model, 0, sizeof(model));
	CHECK(fx_quota_init(&q, "quota_test", keys, SOCKET_ID_ANY) == 0, "init %u", keys);
	if (q.slot == NULL)
		return;
	for (op = 0; op < ops; op++) {
		i = (unsigned int)(rte_rand() % SPACE);
		k = key_of(i);
		if (rte_rand() % 2 == 0) {
			rc = fx_quota_take(&q, &k, limit);
			if (model[i] >= limit)
				want = -EDQUOT;
			else if (model[i] == 0 && present >= keys && rc == -ENOSPC)
				want = -ENOSPC;   /* over its sizing a table may refuse */
			else
				want = 0;
			CHECK(rc == want, "op %u take %u: %d, model %u", op, i, rc, model[i]);
			if (rc == 0) {
				present += model[i] == 0;
				model[i]++;
			}
		} else if (model[i] != 0) {
			fx_quota_put(&q, &k);
			model[i]--;
			present -= model[i] == 0;
		}
		CHECK(fx_quota_count(&q, &k) == model[i], "op %u key %u: %u, model %u", op, i,
		      fx_quota_count(&q, &k), model[i]);
		if (op % 500 == 0) {
			for (j = 0; j < SPACE; j++) {
				k = key_of(j);
				CHECK(fx_quota_count(&q, &k) == model[j], "key %u: %u, model %u", j,
				      fx_quota_count(&q, &k), model[j]);
			}
			walk(&q);
		}
	}
	/* every key given back: an empty table */
	for (j = 0; j < SPACE; j++) {
		k = key_of(j);
		while (model[j]-- != 0)
			fx_quota_put(&q, &k);
	}
	CHECK(q.keys == 0, "%u keys left", q.keys);
	walk(&q);
	fx_quota_fini(&q);
	fx_quota_fini(&q);   /* twice: a no-op */
}

static void
test_limits(void)
{
	struct fx_quota q;
	struct fx_quota_key k = fx_quota_nat_host(0x0100000a);
	unsigned int i;

	CHECK(fx_quota_init(&q, "quota_test", 0, SOCKET_ID_ANY) == -EINVAL, "no keys");
	CHECK(fx_quota_init(&q, "quota_test", 4, SOCKET_ID_ANY) == 0, "init");
	CHECK(q.mask == 7, "4 keys: 8 slots (mask %u)", q.mask);
	CHECK(fx_quota_take(&q, &k, 0) == -EDQUOT, "limit 0 refuses");
	for (i = 0; i < 3; i++)
		CHECK(fx_quota_take(&q, &k, 3) == 0, "take %u", i);
	CHECK(fx_quota_take(&q, &k, 3) == -EDQUOT && fx_quota_count(&q, &k) == 3,
	      "at the limit nothing changes");
	/* eight slots hold eight keys; the ninth finds no room */
	for (i = 1; i < 8; i++) {
		k = fx_quota_nat_host(0x0100000a + (i << 24));
		CHECK(fx_quota_take(&q, &k, 1) == 0, "key %u", i);
	}
	k = fx_quota_nat_host(0x0900000a);
	CHECK(fx_quota_take(&q, &k, 1) == -ENOSPC, "a full table refuses");
	walk(&q);
	fx_quota_fini(&q);
}

int
main(int argc, char **argv)
{
	if (!test_eal_start(argc, argv, 0x9e7))
		return 1;
	fx_hash_set_secret(0x0001020304050607, 0x08090a0b0c0d0e0f);
	test_limits();
	test_model(16, 3, 20000);     /* 32 slots, keys over the sizing */
	test_model(64, 5, 50000);     /* 128 slots */
	test_model(300, 2, 50000);    /* 1024 slots */
	return test_eal_end();
}
