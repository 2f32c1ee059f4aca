/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Per-host quotas: how many records (NAT mappings, tracked flows) one key
 * holds on one worker, so that a limit can refuse the next one. A key is a
 * host (an inside address, an IPv4 address, an IPv6 /64) or a host and a
 * remote endpoint (inside address, remote address, port, protocol).
 *
 * The table is an open-addressing array of 8-byte slots (eight to a cache
 * line), allocated at start-up with at least twice as many slots as keys
 * can ever be present, so its load stays at most one half. A key's 64-bit
 * keyed hash h (base/hash.h) picks its home slot (the low bits of h) and the
 * slot keeps, in place of the key, the rest of h that the home does not
 * give: its high 33 bits, with the slot's distance from the home (6 bits)
 * and the count (25 bits, room for FX_MAX_FLOWS_MAX). Two keys are one if
 * their home and their high 33 bits agree: for keys the hash scatters as
 * random values, at 2^21 slots 54 bits, so that 1M keys present at once
 * hold one pair in about 30,000 start-ups that counts as one key (the
 * pair's records are counted together and may meet the limit together).
 * Keys whose hash sums collide outright, which the secret decides with
 * probability at most 2^-32 a pair (base/hash.h), are one key as well; the
 * 16-byte slots that held the whole key refused them at the probe bound
 * instead. Which keys share slots cannot be computed without the secret.
 * Linear probing, at
 * most FX_QUOTA_PROBES slots from the home slot: an insert that finds no
 * free slot within them fails (the caller refuses the record and counts
 * it). A slot whose count drops to zero is emptied by backward shifting
 * (the next keys of its run move up when their home allows it), so there
 * are no tombstones and a lookup stops at the first empty slot. Nothing
 * is allocated after fx_quota_init(); owner lcore only.
 */

#ifndef _FX_QUOTA_H_
#define _FX_QUOTA_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "base/hash.h"

/** Slots a lookup or insert examines from a key's home slot, at most. */
#define FX_QUOTA_PROBES 64u

/** Slots at most (the home is in the low 31 bits of the hash). */
#define FX_QUOTA_SLOTS_MAX (UINT32_C(1) << 31)

/** What a key names (the top byte of k1). */
enum fx_quota_kind {
	FX_QUOTA_NAT_HOST = 1,   /**< k0: inside address */
	FX_QUOTA_NAT_DEST,       /**< k0: inside | remote address; k1: port, proto */
	FX_QUOTA_FLOW_V4,        /**< k0: IPv4 address */
	FX_QUOTA_FLOW_V6,        /**< k0: the first 64 bits of an IPv6 address */
};

/** A key; fields in the packet's byte order, unused bits zero. */
struct fx_quota_key {
	uint64_t k0;
	uint32_t k1;    /**< low 24 bits: the kind's data; high 8: the kind */
};

/** Bits of a slot (fx_quota_slot_t): count, distance from the home, hash. */
#define FX_QUOTA_COUNT_BITS 25
#define FX_QUOTA_DISP_BITS 6
#define FX_QUOTA_TAG_SHIFT (FX_QUOTA_COUNT_BITS + FX_QUOTA_DISP_BITS)

/**
 * One slot: h >> FX_QUOTA_TAG_SHIFT (the key's hash above the bits a home
 * can take), the distance from the home, the count; 0: the slot is empty.
 */
typedef uint64_t fx_quota_slot_t;

/** The count of a slot. */
static inline uint32_t
fx_quota_slot_count(fx_quota_slot_t s)
{
	return (uint32_t)(s & ((UINT64_C(1) << FX_QUOTA_COUNT_BITS) - 1));
}

/** The distance of a slot's key from its home slot. */
static inline uint32_t
fx_quota_slot_disp(fx_quota_slot_t s)
{
	return (uint32_t)(s >> FX_QUOTA_COUNT_BITS) & ((1u << FX_QUOTA_DISP_BITS) - 1);
}

/** One worker's table. */
struct fx_quota {
	fx_quota_slot_t *slot;
	uint32_t mask;      /**< slots - 1 */
	uint32_t keys;      /**< keys present */
};

/**
 * Allocate a table for at most `keys` keys at once on `socket` (zeroed;
 * the slot count is the power of two at or above 2 * keys). 0, -EINVAL or
 * -ENOMEM.
 */
int fx_quota_init(struct fx_quota *q, const char *name, uint32_t keys,
		  int socket);

/** Free the table; a table never set up or already freed is a no-op. */
void fx_quota_fini(struct fx_quota *q);

/** Whether the table was set up (a quota is on). */
static inline bool
fx_quota_on(const struct fx_quota *q)
{
	return q->slot != NULL;
}

/** The 64-bit keyed hash of a key: its home is the low bits, its tag the high ones. */
static inline uint64_t
fx_quota_hash(const struct fx_quota_key *k)
{
	uint64_t w[2] = { k->k0, k->k1 };

	return fx_hash_words64(w, 2);
}

/** Slots a cache line holds. */
#define FX_QUOTA_LINE_SLOTS (RTE_CACHE_LINE_SIZE / sizeof(fx_quota_slot_t))

/**
 * Start reading the slot where a take, put or count of k begins, so that
 * a burst's misses overlap; and the next line when the home is one of the
 * last two slots of its line, as a take's probes and a put's shift of the
 * run after the key (the next slots, nearly always one or two at a load
 * of at most one half) then read it; a home in a line's last slot (one
 * in eight) would otherwise wait for that line from memory.
 */
static inline void
fx_quota_prefetch(const struct fx_quota *q, const struct fx_quota_key *k)
{
	uint32_t home = (uint32_t)fx_quota_hash(k) & q->mask;

	rte_prefetch0(&q->slot[home]);
	if (home % FX_QUOTA_LINE_SLOTS >= FX_QUOTA_LINE_SLOTS - 2)
		rte_prefetch0(&q->slot[(home + 2) & q->mask]);
}

/**
 * Count one more record for k unless it already has `limit`:
 * 0, -EDQUOT (at the limit; nothing changed) or -ENOSPC (a new key found
 * no free slot within FX_QUOTA_PROBES; nothing changed).
 */
int fx_quota_take(struct fx_quota *q, const struct fx_quota_key *k,
		  uint32_t limit);

/** One record of k is gone (it must have been taken). */
void fx_quota_put(struct fx_quota *q, const struct fx_quota_key *k);

/** The count of k (0 when absent). */
uint32_t fx_quota_count(const struct fx_quota *q, const struct fx_quota_key *k);

/** The key of an IPv4 inside address (network order) for NAT. */
static inline struct fx_quota_key
fx_quota_nat_host(uint32_t in_addr)
{
	struct fx_quota_key k = {
		.k0 = in_addr, .k1 = (uint32_t)FX_QUOTA_NAT_HOST << 24,
	};
	return k;
}

/** The key of an inside host and a remote endpoint for NAT. */
static inline struct fx_quota_key
fx_quota_nat_dest(uint32_t in_addr, uint32_t rem_addr, uint16_t rem_port,
		  uint8_t proto)
{
	struct fx_quota_key k = {
		.k0 = in_addr | ((uint64_t)rem_addr << 32),
		.k1 = rem_port | ((uint32_t)proto << 16) |
			((uint32_t)FX_QUOTA_NAT_DEST << 24),
	};
	return k;
}

#endif /* _FX_QUOTA_H_ */
