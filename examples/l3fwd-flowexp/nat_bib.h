/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The binding table of endpoint-independent mapping (--nat-mapping eim,
 * RFC 4787 REQ-1): one worker's bindings of an inside endpoint (address,
 * port, protocol) to its public endpoint (address, port), the mapping in
 * RFC 4787's sense, and under it the sessions, one per remote endpoint,
 * which are the records of the mapping table (nat_table.h), each with its
 * own wheel entry.
 *
 * An entry is found by either endpoint. By its inside endpoint
 * (outbound packets: which public port) through an index (fx_index.h,
 * as the mapping table's) of one key per entry, a struct nat_key with
 * the address in src, the port in sport and 0 in dport, hashed with the
 * keyed hash. By its public endpoint (inbound packets under adf and eif
 * filtering, and with port blocks the allocator's "is this public port
 * bound") through an array beside the port allocator's units, one slot
 * per unit of the worker's share (nat_ports_unit_index()): a public
 * endpoint is a unit, and under eim a unit is bound to at most one
 * inside endpoint, so it takes no hash, no probe and no key compare: a
 * new binding writes its slot and its removal clears it. A session
 * record finds its entry without a lookup too: its public endpoint is
 * its binding's, so its unit's slot names the entry, which the reaper
 * reads, and prefetches, when the session is held and when it leaves.
 *
 * The entry counts its sessions, live and held (refs), and its live ones
 * (live): it is removed with its last session record, so a public port
 * stays bound to one inside endpoint while any session under it, held
 * ones included, holds the port unit; it filters inbound packets only
 * while a session is live (the mapping's life is its sessions').
 *
 * Address-dependent filtering asks whether the inside endpoint has sent
 * to a remote address: a per-worker count of session records per (entry,
 * remote address), a quota table (quota.h) with no limit.
 *
 * Memory, allocated at start-up under eim only, per session record: 24
 * bytes of entry, 16-32 bytes of index (a quarter of a bucket, the
 * buckets a power of two: at least 1.75 pairs a key), a free-stack slot
 * (4 bytes), and for the address counts 16-32 bytes (two 8-byte quota
 * slots, the table a power of two): 44-92 bytes; and 4 bytes per port
 * unit of the share (nat_bib_bytes(), doc/nat.md). Only the owner lcore
 * reads or changes it.
 */

#ifndef _FX_NAT_BIB_H_
#define _FX_NAT_BIB_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_debug.h>
#include <rte_prefetch.h>

#include "fx_index.h"
#include "nat_table.h"
#include "quota.h"

/** One binding; fields in network order but pool_idx and the counts. */
struct nat_bib_entry {
	uint32_t in_addr;
	uint32_t pub_addr;
	uint16_t in_port;
	uint16_t pub_port;
	uint16_t pool_idx;
	uint8_t proto;
	uint8_t used;        /**< 0: free */
	uint32_t refs;       /**< session records, live and held */
	uint32_t live;       /**< live sessions */
};

struct nat_bib {
	struct fx_index ix;           /**< inside key hash -> entry */
	struct nat_bib_entry *e;
	uint32_t *of_unit;            /**< a public unit's entry + 1 (0: unbound), by unit index */
	uint32_t units;
	uint32_t *free_stack;
	uint32_t nb_free;
	uint32_t capacity;
	struct fx_quota rem;          /**< adf: sessions per (entry, remote address) */
	/* the answer nat_bib_inside() gave last (an entry or NULL) and its
	 * key, while last_valid: a session's steps (its prefetch, its held
	 * check, its port, its hold and release) each ask it; an add makes
	 * the new entry the answer, a remove forgets it */
	struct nat_bib_entry *last;
	struct nat_key last_key;
	bool last_valid;
};

/**
 * The index key of an inside endpoint, address and port in network
 * order; its nat_key_hash() is also the inside endpoint's owner
 * (nat_eim.h).
 */
static inline struct nat_key
nat_bib_key(uint32_t addr, uint16_t port, uint8_t proto)
{
	return nat_key_make(addr, 0, port, 0, proto);
}

/**
 * Create a table for `capacity` entries, whose public endpoints are among
 * `units` port units (nat_ports.h), on `socket` (with the address counts
 * if adf); `name` at most 20 characters. 0, -EINVAL or -ENOMEM.
 */
int nat_bib_create(struct nat_bib *b, const char *name, uint32_t capacity,
		   uint32_t units, bool adf, int socket);

/** The bytes nat_bib_create() allocates for `capacity` entries and
 * `units` units (the start-up estimate, preflight.c). */
uint64_t nat_bib_bytes(uint32_t capacity, uint64_t units, bool adf);

/** Free it; one never created is a no-op. */
void nat_bib_free(struct nat_bib *b);

/** Whether the table was created (--nat-mapping eim). */
static inline bool
nat_bib_on(const struct nat_bib *b)
{
	return b->e != NULL;
}

/** The entry of an inside endpoint, or NULL (the last answer is
 * remembered). */
struct nat_bib_entry *nat_bib_inside(struct nat_bib *b, uint32_t in_addr,
				     uint16_t in_port, uint8_t proto);

/** The entry bound to the public endpoint of port unit `unit`
 * (nat_ports_unit_index()), or NULL. */
static inline struct nat_bib_entry *
nat_bib_public(const struct nat_bib *b, uint32_t unit)
{
	uint32_t v;

	RTE_ASSERT(unit < b->units);
	v = b->of_unit[unit];
	return v != 0 ? &b->e[v - 1] : NULL;
}

/** Start reading the bucket nat_bib_inside() of this endpoint reads. */
void nat_bib_prefetch_inside(const struct nat_bib *b, uint32_t in_addr,
			     uint16_t in_port, uint8_t proto);

/** Start reading the slot of unit `unit` that nat_bib_public() reads and
 * nat_bib_add() and nat_bib_remove() write. */
static inline void
nat_bib_prefetch_public(const struct nat_bib *b, uint32_t unit)
{
	rte_prefetch0(&b->of_unit[unit]);
}

/**
 * Add an entry from tmpl (endpoints, proto, pool_idx), with no session
 * yet, bound to `unit`, the unit of its public endpoint; both endpoints
 * must be unbound. NULL when no entry is free or the inside key finds no
 * pair within the probe bound.
 */
struct nat_bib_entry *nat_bib_add(struct nat_bib *b,
				  const struct nat_bib_entry *tmpl, uint32_t unit);

/** Remove entry e, bound to `unit` (its last session record went, or
 * none was made). */
void nat_bib_remove(struct nat_bib *b, struct nat_bib_entry *e, uint32_t unit);

/**
 * Address counts (adf): a session record of e towards rem_addr was made
 * (false: no room, nothing counted), went, or whether any is there.
 */
bool nat_bib_rem_take(struct nat_bib *b, const struct nat_bib_entry *e,
		      uint32_t rem_addr);
void nat_bib_rem_put(struct nat_bib *b, const struct nat_bib_entry *e,
		     uint32_t rem_addr);
bool nat_bib_rem_seen(const struct nat_bib *b, const struct nat_bib_entry *e,
		      uint32_t rem_addr);

/** Entries in the table. */
static inline uint32_t
nat_bib_count(const struct nat_bib *b)
{
	return b->capacity - b->nb_free;
}

#endif /* _FX_NAT_BIB_H_ */
