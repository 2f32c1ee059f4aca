/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT mapping table: one worker's masquerade mappings, each one record
 * found from either direction, with one wheel entry.
 *
 * Keys. A mapping translates the inside tuple (inside address and port ->
 * remote address and port) to the public one (public address and port ->
 * the same remote). Both directions are looked up with the packet's own
 * 5-tuple as it arrives (struct nat_key: source, destination, ports,
 * protocol), so the index holds two keys per mapping:
 *   out  (inside, remote, inside port, remote port)   packets from inside;
 *   in   (remote, public, remote port, public port)   replies from outside.
 * An ICMP echo's identifier takes both port places (rem_port is unused
 * then: inside id out, public id in). The in key is the
 * public 5-tuple, so its presence is what "this public tuple is taken"
 * means to the port allocator (nat_table_tuple_taken()).
 *
 * Index and records. struct nat_mapping is one cache line in a slab of
 * `capacity` records; the free ones are a list through the records
 * themselves (next_free, in the word a live mapping keeps its latest
 * packet time in), and taking one prefetches the next, so that the next
 * new mapping finds its record's line on its way. The index is a bucket index
 * (base/index.h): each key's keyed hash (base/hash.h) as the tag, and as the
 * reference the record's index and which of its keys it is (index << 1 |
 * 0 out, 1 in); the key is compared in the record, which holds every
 * field of both keys. A lookup reads one bucket line and the record's
 * line, and a burst's lookups prefetch all their buckets, then all their
 * candidate records (nat_table_lookup_bulk()). No lookup reads more than
 * FX_IX_PROBE_MAX buckets: a mapping one of whose keys finds no pair
 * within the bound is refused (-EOVERFLOW, counted in the index's `full`).
 * The hashes are computed again where a key leaves (a few cycles), so the
 * record holds nothing but the mapping. There are at least 3.5 pairs per
 * record (a power of two of buckets, at least half the records): a table
 * of live mappings uses at most 57 % of the pairs. Memory per mapping:
 * the record (64 B), 32-64 B of buckets and the wheel entry (54 B):
 * 150-182 B (doc/nat.md).
 *
 * Life. A mapping is LIVE from its first outbound packet. Every packet in
 * either direction stores the packet time in `last` (one store, as a flow
 * refresh); the wheel's lazy deadline is last + the timeout of the
 * mapping's class, so the two halves cannot expire apart: a reply keeps
 * the outbound half alive and an outbound packet the reply half (RFC 4787
 * REQ-6). When it expires, the out key goes (the next outbound packet makes
 * a new mapping) and the record stays HELD, its in key still in the table,
 * for the hold-down time: inbound packets to it are dropped as no match
 * and the allocator cannot hand its public tuple out again. Then the in key
 * and the record go and the allocator releases the unit.
 *
 * Only the owner lcore changes the table. The main lcore may read records
 * for the control path (flush by inside prefix) with nat_table_snapshot(),
 * through one rte_seqcount per record, as the flow table does: the count
 * is odd while the record holds no published live mapping (free, being
 * filled, or held), and the owner ends that write section when it
 * publishes a mapping under its wheel id and begins it again when the
 * mapping is held or removed.
 */

#ifndef _FX_NAT_TABLE_H_
#define _FX_NAT_TABLE_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_seqcount.h>

#include "base/hash.h"
#include "base/index.h"
#include "nat/tcp.h"

/** A packet's IPv4 5-tuple as it arrives; 16 bytes, no holes. */
struct nat_key {
	uint32_t src;        /**< Network order. */
	uint32_t dst;
	uint16_t sport;      /**< Network order; ICMP echo id. */
	uint16_t dport;      /**< Network order; ICMP echo id again. */
	uint8_t proto;
	uint8_t zero[3];     /**< Always 0. */
};

/** Mapping states. */
enum nat_state {
	NAT_FREE,            /**< Record unused. */
	NAT_LIVE,            /**< Translating. */
	NAT_HELD,            /**< Expired; its public tuple in hold-down. */
};

/** One mapping; 64 bytes, one cache line on x86. */
struct nat_mapping {
	union {
		uint64_t last;        /**< NAT_LIVE: time of the latest packet, either direction. */
		uint64_t held_until;  /**< NAT_HELD: end of the hold-down. */
		uint32_t next_free;   /**< NAT_FREE: the next free record's index. */
	};
	uint64_t id;          /**< Wheel id while in the table; 0: free. */
	uint32_t in_addr;     /**< Inside host (network order). */
	uint32_t pub_addr;    /**< Public address (network order). */
	uint32_t rem_addr;    /**< Remote host (network order). */
	uint16_t in_port;     /**< Network order. */
	uint16_t pub_port;    /**< Network order. */
	uint16_t rem_port;    /**< Network order. */
	uint16_t pool_idx;    /**< Index of pub_addr in the pool. */
	uint8_t proto;
	uint8_t state;        /**< enum nat_state. */
	uint8_t tmo;          /**< Timeout class of the deadline (caller's). */
	uint8_t flags;        /**< Caller's (replied, TCP state, ...). */
	rte_seqcount_t seq;   /**< Odd unless a published live mapping (snapshots). */
	struct nat_tcp_rec tcp;  /**< Caller's: most of a TCP connection (nat/tcp.h). */
} __rte_aligned(64);    /* 64 also where cache lines are 128 bytes */

/** Keys nat_table_lookup_bulk() and nat_table_warm() take at once, at most. */
#define NAT_TABLE_BULK_MAX 64

/** The index's reference to key `in` (0 out, 1 in) of record idx. */
#define NAT_REF(idx, in) ((uint32_t)(idx) << 1 | (in))

struct nat_table {
	struct fx_index ix;           /**< key hash -> NAT_REF(record, key) */
	struct nat_mapping *rec;      /**< capacity records */
	uint32_t free_head;           /**< first free record (a list through next_free) */
	uint32_t nb_free;
	uint32_t capacity;
};

/**
 * A key from its fields (network order), built in two 64-bit words: a key
 * assembled field by field in memory and read back as words (the hash,
 * the compare) would stall each time on the store buffer, which cannot
 * forward several narrow stores to one wide load.
 */
static inline struct nat_key
nat_key_make(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
	     uint8_t proto)
{
	struct nat_key k;
	uint64_t w[2];

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	w[0] = (uint64_t)src | (uint64_t)dst << 32;
	w[1] = (uint64_t)sport | (uint64_t)dport << 16 | (uint64_t)proto << 32;
#else
	w[0] = (uint64_t)src << 32 | dst;
	w[1] = (uint64_t)sport << 48 | (uint64_t)dport << 32 | (uint64_t)proto << 24;
#endif
	memcpy(&k, w, sizeof(k));
	return k;
}

/** Out key of a mapping (packets from inside). */
static inline struct nat_key
nat_key_out(const struct nat_mapping *m)
{
	return nat_key_make(m->in_addr, m->rem_addr, m->in_port,
			    m->proto == IPPROTO_ICMP ? m->in_port : m->rem_port,
			    m->proto);
}

/** In key of a mapping: its public 5-tuple (replies from outside). */
static inline struct nat_key
nat_key_in(const struct nat_mapping *m)
{
	return nat_key_make(m->rem_addr, m->pub_addr,
			    m->proto == IPPROTO_ICMP ? m->pub_port : m->rem_port,
			    m->pub_port, m->proto);
}

/** The keyed hash of a key, the index's tag. */
static inline uint32_t
nat_key_hash(const struct nat_key *k)
{
	RTE_BUILD_BUG_ON(sizeof(*k) != 16);
	return fx_hash_words(k, 2);
}

/** Whether two keys are equal (two 8-byte words). */
static inline bool
nat_key_eq(const struct nat_key *a, const struct nat_key *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

/**
 * Create the table for `capacity` mappings on `socket`; `name` at most 20
 * characters. 0, -EINVAL or -ENOMEM.
 */
int nat_table_create(struct nat_table *t, const char *name, uint32_t capacity,
		     int socket);

/** Free everything (records still live are dropped). */
void nat_table_free(struct nat_table *t);

/** Index of a record. */
static inline uint32_t
nat_table_index(const struct nat_table *t, const struct nat_mapping *m)
{
	return (uint32_t)(m - t->rec);
}

/**
 * Look up n packets' keys at once (n <= NAT_TABLE_BULK_MAX): their buckets
 * prefetched together, then the candidate records, then each key compared
 * in its record; out[i] is the record or NULL. Either direction; the
 * caller tells which by comparing the packet with the record
 * (nat_mapping_is_out()).
 */
void nat_table_lookup_bulk(const struct nat_table *t, const struct nat_key **keys,
			   unsigned int n, struct nat_mapping **out);

/** Whether a packet with key k travels outbound on mapping m. */
static inline bool
nat_mapping_is_out(const struct nat_mapping *m, const struct nat_key *k)
{
	return k->src == m->in_addr && k->sport == m->in_port;
}

/** The in key of a public 5-tuple (as nat_table_tuple_taken() takes it). */
static inline struct nat_key
nat_tuple_key(uint32_t pub_addr, uint16_t pub_port, uint32_t rem_addr,
	      uint16_t rem_port, uint8_t proto)
{
	return nat_key_make(rem_addr, pub_addr,
			    proto == IPPROTO_ICMP ? pub_port : rem_port,
			    pub_port, proto);
}

/** Start reading the bucket nat_table_tuple_taken() of these will read. */
static inline void
nat_table_prefetch_tuple(const struct nat_table *t, uint32_t pub_addr,
			 uint16_t pub_port, uint32_t rem_addr, uint16_t rem_port,
			 uint8_t proto)
{
	struct nat_key k = nat_tuple_key(pub_addr, pub_port, rem_addr, rem_port, proto);

	fx_ix_prefetch(&t->ix, nat_key_hash(&k));
}

/**
 * Whether the public 5-tuple (pub_addr, pub_port, rem_addr, rem_port,
 * proto) belongs to a live or held mapping. For ICMP rem_port is ignored.
 */
bool nat_table_tuple_taken(const struct nat_table *t, uint32_t pub_addr,
			   uint16_t pub_port, uint32_t rem_addr,
			   uint16_t rem_port, uint8_t proto);

/**
 * Add a live mapping: a free record is filled from *tmpl (addresses,
 * ports, proto, pool_idx, tmo, flags, last) and both keys are added.
 * The caller publishes it with nat_table_publish() once it has a wheel id.
 * @return the record, or NULL with *err = -ENOSPC (no free record),
 *   -EOVERFLOW (a key finds no pair in the index within its probe bound,
 *   counted in the index's `full`) or -EEXIST (a key is in the table
 *   already); nothing changed.
 */
struct nat_mapping *nat_table_add(struct nat_table *t,
				  const struct nat_mapping *tmpl, int *err);

/**
 * nat_table_add() for a caller that has just looked both keys up and found
 * neither (the NAT step: its bulk lookup missed the out key, and the port
 * allocator asked for the in key): the same, without looking them up
 * again. Debug builds check the promise.
 */
struct nat_mapping *nat_table_insert(struct nat_table *t,
				     const struct nat_mapping *tmpl, int *err);

/** Make a record visible to the control path under its wheel id. */
static inline void
nat_table_publish(struct nat_mapping *m, uint64_t id)
{
	m->id = id;
	/* a reader that sees the count even sees the record (release) */
	rte_seqcount_write_end(&m->seq);
}

/**
 * A live mapping expired: drop its out key and keep it HELD until
 * held_until under wheel id `id`; its public tuple stays taken.
 */
void nat_table_hold(struct nat_table *t, struct nat_mapping *m,
		    uint64_t held_until, uint64_t id);

/**
 * Bring a HELD mapping back to LIVE (endpoint-independent mapping: its own
 * inside endpoint needs its public tuple again): its out key goes back in
 * the table; the caller sets its time, state and deadline and publishes
 * it (nat_table_publish()) under its wheel id. 0, or -EOVERFLOW (the out
 * key finds no pair within the probe bound) with nothing changed.
 */
int nat_table_unhold(struct nat_table *t, struct nat_mapping *m);

/**
 * Before ending or removing n mappings: prefetch together the buckets of
 * the key each will lose next (a live mapping's out key, a held one's in
 * key), so that their cache misses overlap instead of coming one delete at
 * a time. n <= NAT_TABLE_BULK_MAX.
 */
void nat_table_warm(const struct nat_table *t, struct nat_mapping *const *m,
		    unsigned int n);

/** Remove a mapping (live or held): both keys that remain, then the record. */
void nat_table_remove(struct nat_table *t, struct nat_mapping *m);

/**
 * Read a record's id and inside address consistently from another thread.
 * @return 1 with *id, *in_addr filled for a live mapping, else 0.
 */
int nat_table_snapshot(const struct nat_mapping *m, uint64_t *id,
		       uint32_t *in_addr);

/** Mappings in the table (live or held). */
static inline uint32_t
nat_table_count(const struct nat_table *t)
{
	return t->capacity - t->nb_free;
}

#endif /* _FX_NAT_TABLE_H_ */
