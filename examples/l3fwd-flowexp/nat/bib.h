/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The binding table of endpoint-independent mapping (--nat-mapping eim,
 * RFC 4787 REQ-1): one worker's bindings of an inside endpoint (address,
 * port, protocol) to its public endpoint (address, port), the mapping in
 * RFC 4787's sense, and under it the sessions, one per remote endpoint,
 * which are the records of the mapping table (nat/table.h), each with its
 * own wheel entry.
 *
 * An entry per port unit of the worker's share, beside the unit's counts
 * in the allocator's array (nat_ports_beside()): a public endpoint is a
 * unit, and under eim a unit is bound to at most one inside endpoint, so
 * an entry holds only that inside endpoint (8 bytes) and its public
 * endpoint is its unit's index (nat_ports_unit_of()). It lies in the line
 * that choosing, taking, holding and releasing the port read anyway, so a
 * binding costs no line of its own there. By its public endpoint (inbound
 * packets under adf and eif filtering, and with port blocks the
 * allocator's "is this public port bound") an entry is its unit's: no
 * hash, no probe, no key compare. By its inside endpoint (outbound
 * packets: which public port) it is found at its home, or else through
 * an index. An inside endpoint's home is the unit of its own port on its
 * paired public address, when that port is in the worker's share and
 * there are no port blocks (nat_eim_home()): the unit the allocator tries
 * first for a new binding, port preservation. A binding at its home is
 * found there, in the line its session's port unit is, and is in no index.
 * One bound elsewhere (its home was taken, or it has none) has a key in an
 * index (base/index.h, as the mapping table's): a struct nat_key with the
 * address in src, the port in sport and 0 in dport, hashed with the keyed
 * hash, whose references are unit indices; and its home's entry counts it
 * in `away`. So a lookup reads the home and stops there when the home is
 * the endpoint's, or counts nobody away; only otherwise does it probe the
 * index. `away` saturates at NAT_BIB_AWAY_MAX and then stays there: that
 * home's lookups always probe the index, which is slower, never wrong. A
 * session record finds its entry without a lookup: its public endpoint is
 * its binding's, so its unit is the entry's.
 *
 * An entry keeps no counts: every session record of a binding, live or
 * held, is counted on the binding's port unit (nat/ports.h), and no
 * other mapping is, so the unit's live and held counts are the binding's
 * live sessions and all its sessions (nat/eim.h reads them). A binding
 * is removed when its unit's counts fall to zero, so a public port stays
 * bound to one inside endpoint while any session under it, held ones
 * included, holds the port unit; it filters inbound packets only while
 * a session is live (the mapping's life is its sessions').
 *
 * Address-dependent filtering asks whether the inside endpoint has sent
 * to a remote address: a per-worker count of session records per (entry,
 * remote address), a quota table (base/quota.h) with no limit.
 *
 * Memory, allocated at start-up under eim only: 8 bytes of entry beside
 * each port unit of the share (its counts take 8 more in either mode);
 * per session record 16-32 bytes of index, sized as if every binding were
 * away from its home (a quarter of a bucket, the
 * buckets a power of two: at least 1.75 pairs a key), and for the
 * address counts 16-32 bytes (two 8-byte quota slots, the table a power
 * of two) (nat_bib_bytes(), doc/nat.md). Only the owner lcore reads or
 * changes it.
 */

#ifndef _FX_NAT_BIB_H_
#define _FX_NAT_BIB_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_debug.h>
#include <rte_prefetch.h>

#include "base/index.h"
#include "base/quota.h"
#include "nat/ports.h"
#include "nat/table.h"

/** One binding: the inside endpoint bound to the port unit of the
 * entry's index, in network order. */
struct nat_bib_entry {
	uint32_t in_addr;
	uint16_t in_port;
	uint8_t proto;
	uint8_t used:1;      /**< 0: the unit is unbound */
	/** Bindings whose home is this unit, bound elsewhere (of the unit,
	 * not of its binding: kept while it is unbound); at
	 * NAT_BIB_AWAY_MAX, at least that many once, and kept there. */
	uint8_t away:7;
};

/** Where `away` stops counting. */
#define NAT_BIB_AWAY_MAX 127u

/** An inside endpoint with no home (nat_bib_inside()). */
#define NAT_BIB_NO_HOME UINT32_MAX

struct nat_bib {
	struct fx_index ix;           /**< inside key hash -> unit index */
	uintptr_t base;               /**< unit 0's entry, beside its counts (nat_ports_beside()) */
	uint32_t shift;               /**< log2 of the bytes from one unit's entry to the next */
	uint32_t units;
	uint32_t nb;                  /**< entries in use */
	uint32_t capacity;            /**< most entries in use */
	struct fx_quota rem;          /**< adf: sessions per (entry, remote address) */
	/* the index's last answer (an entry or NULL, nat_bib_inside_index()),
	 * its key and hash, while last_valid: a session of an endpoint away
	 * from its home asks it at each step (its prefetch, its held check,
	 * its port) instead of the index; an add away from its home makes the
	 * new entry the answer, a remove forgets it (an endpoint at its home
	 * is answered there first, so an answer about it here is never read) */
	struct nat_bib_entry *last;
	struct nat_key last_key;
	uint32_t last_hash;            /**< last_key's hash while last_hashed, for an add of it */
	bool last_hashed;
	bool last_valid;
};

/**
 * The index key of an inside endpoint, address and port in network
 * order; its nat_key_hash() is also the inside endpoint's owner
 * (nat/eim.h).
 */
static inline struct nat_key
nat_bib_key(uint32_t addr, uint16_t port, uint8_t proto)
{
	return nat_key_make(addr, 0, port, 0, proto);
}

/**
 * Create a table for at most `capacity` entries in use at once, whose
 * entries lie beside the units of allocator np, made with room for them
 * (nat_ports_init()'s `beside`), on `socket` (with the address counts if
 * adf); `name` at most 20 characters. 0, -EINVAL or -ENOMEM.
 */
int nat_bib_create(struct nat_bib *b, const char *name, uint32_t capacity,
		   const struct nat_ports *np, bool adf, int socket);

/** The bytes nat_bib_create() allocates for `capacity` entries, and with
 * `units` units the room beside them it needs in the allocator's array
 * (the start-up estimate, boot/preflight.c). */
uint64_t nat_bib_bytes(uint32_t capacity, uint64_t units, bool adf);

/** The entry of port unit `unit`, bound or not. */
static inline struct nat_bib_entry *
nat_bib_at(const struct nat_bib *b, uint32_t unit)
{
	RTE_ASSERT(unit < b->units);
	return (struct nat_bib_entry *)(b->base + ((uintptr_t)unit << b->shift));
}

/** Free it; one never created is a no-op. */
void nat_bib_free(struct nat_bib *b);

/** Whether the table was created (--nat-mapping eim). */
static inline bool
nat_bib_on(const struct nat_bib *b)
{
	return b->base != 0;
}

/** The inside endpoint of entry e, as nat_bib_key() makes it. */
static inline struct nat_key
nat_bib_entry_key(const struct nat_bib_entry *e)
{
	return nat_bib_key(e->in_addr, e->in_port, e->proto);
}

/** Whether entry e is bound to inside endpoint k (nat_bib_key()). */
static inline bool
nat_bib_is_of(const struct nat_bib_entry *e, const struct nat_key *k)
{
	struct nat_key ek = nat_bib_entry_key(e);

	return e->used && nat_key_eq(&ek, k);
}

/**
 * Whether the home of inside endpoint k (nat_bib_key()), unit `home` or
 * NAT_BIB_NO_HOME, tells its binding without the index, which is then in
 * *e: the home's entry is k's, or nobody whose home it is is bound
 * elsewhere (none). Reads the home's entry only, which lies in its port
 * unit's line.
 */
static inline bool
nat_bib_home_answers(const struct nat_bib *b, const struct nat_key *k,
		     uint32_t home, struct nat_bib_entry **e)
{
	struct nat_bib_entry *h;

	if (home == NAT_BIB_NO_HOME)
		return false;
	h = nat_bib_at(b, home);
	if (nat_bib_is_of(h, k)) {
		*e = h;
		return true;
	}
	if (h->away != 0)
		return false;
	*e = NULL;
	return true;
}

/** Whether inside endpoint k's answer from the index is remembered,
 * which is then in *e. */
static inline bool
nat_bib_remembered(const struct nat_bib *b, const struct nat_key *k,
		   struct nat_bib_entry **e)
{
	if (!b->last_valid || !nat_key_eq(k, &b->last_key))
		return false;
	*e = b->last;
	return true;
}

/** The entry of inside endpoint k looked up in the index, and
 * remembered: for an endpoint whose home did not answer (or that has
 * none) and whose answer is not remembered (nat_bib_remembered()). */
struct nat_bib_entry *nat_bib_inside_index(struct nat_bib *b, const struct nat_key *k);

/** The entry of an inside endpoint whose home is unit `home` (or
 * NAT_BIB_NO_HOME), or NULL: its home's answer, else the index's
 * (remembered). */
static inline struct nat_bib_entry *
nat_bib_inside(struct nat_bib *b, uint32_t in_addr, uint16_t in_port,
	       uint8_t proto, uint32_t home)
{
	struct nat_key k = nat_bib_key(in_addr, in_port, proto);
	struct nat_bib_entry *e;

	if (nat_bib_home_answers(b, &k, home, &e) || nat_bib_remembered(b, &k, &e))
		return e;
	return nat_bib_inside_index(b, &k);
}

/**
 * nat_bib_inside() as far as the endpoint's home answers: true with the
 * answer in *e (at its home, or none: nobody whose home it is is away; or
 * the index's answer, remembered, or without a home looked up: its bucket
 * was prefetched with the burst, nat_bib_prefetch_inside()); false when
 * only the index can tell, whose bucket it then starts reading for the
 * nat_bib_inside() to come.
 */
static inline bool
nat_bib_inside_try(struct nat_bib *b, uint32_t in_addr, uint16_t in_port,
		   uint8_t proto, uint32_t home, struct nat_bib_entry **e)
{
	struct nat_key k = nat_bib_key(in_addr, in_port, proto);

	if (nat_bib_home_answers(b, &k, home, e) || nat_bib_remembered(b, &k, e))
		return true;
	if (home == NAT_BIB_NO_HOME) {
		*e = nat_bib_inside_index(b, &k);
		return true;
	}
	fx_ix_prefetch(&b->ix, nat_key_hash(&k));
	return false;
}

/** The entry bound to the public endpoint of port unit `unit`
 * (nat_ports_unit_index()), or NULL. */
static inline struct nat_bib_entry *
nat_bib_public(const struct nat_bib *b, uint32_t unit)
{
	struct nat_bib_entry *e = nat_bib_at(b, unit);

	return e->used ? e : NULL;
}

/** The port unit entry e is bound to (its index). */
static inline uint32_t
nat_bib_unit(const struct nat_bib *b, const struct nat_bib_entry *e)
{
	return (uint32_t)(((uintptr_t)e - b->base) >> b->shift);
}

/** Start reading the index bucket nat_bib_inside() of this endpoint
 * reads when its home does not answer (and nat_bib_remove() of its entry
 * away from its home). */
void nat_bib_prefetch_inside(const struct nat_bib *b, uint32_t in_addr,
			     uint16_t in_port, uint8_t proto);

/* nat_bib_add() away from the endpoint's home, or without one */
struct nat_bib_entry *nat_bib_add_away(struct nat_bib *b, uint32_t in_addr,
				       uint16_t in_port, uint8_t proto,
				       uint32_t unit, uint32_t home);

/* entry e, unbound, is inside endpoint (in_addr, in_port, proto)'s now */
static inline void
nat_bib_fill(struct nat_bib *b, struct nat_bib_entry *e, uint32_t in_addr,
	     uint16_t in_port, uint8_t proto)
{
	e->in_addr = in_addr;
	e->in_port = in_port;
	e->proto = proto;
	e->used = 1;
	b->nb++;
}

/**
 * Bind inside endpoint (in_addr, in_port, proto), network order, whose
 * home is unit `home` (or NAT_BIB_NO_HOME), to the public endpoint of
 * port unit `unit`; both must be unbound. The new entry, or NULL when
 * `capacity` entries are in use or, away from its home, the inside key
 * finds no pair within the probe bound (nothing changed then). At its
 * home the entry is all it writes: a lookup asks the home first, so
 * neither the index nor the remembered answer is involved.
 */
static inline struct nat_bib_entry *
nat_bib_add(struct nat_bib *b, uint32_t in_addr, uint16_t in_port, uint8_t proto,
	    uint32_t unit, uint32_t home)
{
	struct nat_bib_entry *e = nat_bib_at(b, unit);

	if (unit != home)
		return nat_bib_add_away(b, in_addr, in_port, proto, unit, home);
	RTE_ASSERT(!e->used);
	if (b->nb == b->capacity)
		return NULL;
	nat_bib_fill(b, e, in_addr, in_port, proto);
	return e;
}

/* nat_bib_remove() of an entry away from its home */
void nat_bib_remove_away(struct nat_bib *b, struct nat_bib_entry *e, uint32_t home);

/** Remove entry e, whose inside endpoint's home is unit `home` (its
 * unit's last session record went, or none was made). */
static inline void
nat_bib_remove(struct nat_bib *b, struct nat_bib_entry *e, uint32_t home)
{
	RTE_ASSERT(e->used);
	if (nat_bib_unit(b, e) != home)
		nat_bib_remove_away(b, e, home);
	e->used = 0;
	b->nb--;
	if (b->last == e)
		b->last_valid = false;
}

/* the address counts' steps, with them on */
bool nat_bib_rem_count(struct nat_bib *b, const struct nat_bib_entry *e,
		       uint32_t rem_addr);
void nat_bib_rem_uncount(struct nat_bib *b, const struct nat_bib_entry *e,
			 uint32_t rem_addr);

/**
 * Address counts (adf; without them these do nothing and take or see
 * everything): a session record of e towards rem_addr was made (false:
 * no room, nothing counted), went, or whether any is there.
 */
static inline bool
nat_bib_rem_take(struct nat_bib *b, const struct nat_bib_entry *e, uint32_t rem_addr)
{
	return !fx_quota_on(&b->rem) || nat_bib_rem_count(b, e, rem_addr);
}

static inline void
nat_bib_rem_put(struct nat_bib *b, const struct nat_bib_entry *e, uint32_t rem_addr)
{
	if (fx_quota_on(&b->rem))
		nat_bib_rem_uncount(b, e, rem_addr);
}

bool nat_bib_rem_seen(const struct nat_bib *b, const struct nat_bib_entry *e,
		      uint32_t rem_addr);

/** Entries in the table. */
static inline uint32_t
nat_bib_count(const struct nat_bib *b)
{
	return b->nb;
}

#endif /* _FX_NAT_BIB_H_ */
