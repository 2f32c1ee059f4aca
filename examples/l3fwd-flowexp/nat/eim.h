/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sessions under endpoint-independent mappings (--nat-mapping eim), for
 * the NAT step's files: which public port a new session takes (its
 * inside endpoint's binding's, or a new binding's), the binding's log
 * events and removal as its sessions are made and leave, and a held
 * session brought back to life by its own inside endpoint or by an
 * inbound packet the filter lets in (nat/eim.c). Without eim every
 * function here is a no-op or the endpoint-dependent path. nat/bib.h has
 * the binding table.
 *
 * A binding's counts are its port unit's (nat_eim_counts()): a session
 * takes the unit when its port is picked, so from nat_eim_pick() to
 * nat_eim_attach() (or nat_eim_unpick()) the unit counts it before it
 * exists, and a session's unit is held, put back or released before the
 * binding hears of it. A binding is removed with the last session record
 * under it, held ones included, so its public port is never overlapped
 * by another inside endpoint while a session holds the port unit. A held
 * session's public 5-tuple is its binding's with the same remote
 * endpoint: a new session of the same inside endpoint to that remote
 * would need exactly that tuple, so the held session is revived instead
 * (the hold-down protects a public tuple from another host; this is the
 * same host, the same tuple, and no create or delete is logged for it).
 *
 * On several workers a binding holds only if every session of its inside
 * endpoint is made on one worker: under eim the outbound packets (and an
 * inside host's ICMP error, and the outbound half of a hairpinned packet)
 * belong to the owner of their inside endpoint, nat_eim_owner(), not to
 * their flow's owner (fx_nat_classify()), in every affinity mode. That
 * worker makes the binding and takes its public port from its own share,
 * so the inbound packets, which go to the owner of their public port, meet
 * it there too. The owner is the keyed hash of the binding table's inside
 * key (address, port or echo identifier, protocol), mixed onto the
 * workers as the handoff owner of a flow is (boot/affinity.h).
 *
 * With port blocks (--nat-port-block, nat/block.h) a new binding's port
 * lies in a block of its inside host on the owner's share, as an
 * endpoint-dependent mapping's would: the same order of candidates, a new
 * block when the host's are full and its limit allows, the same refusals.
 * Its sessions take its unit in that block, so the block, which counts
 * every session record on it, stays the host's while any binding in it
 * lives, and its release waits for the last session's hold-down.
 */

#ifndef _FX_NAT_EIM_H_
#define _FX_NAT_EIM_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "fwd/owner.h"
#include "fwd/parse.h"
#include "nat/bib.h"
#include "nat/conf.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "nat/ports.h"
#include "nat/priv.h"
#include "nat/table.h"

/**
 * The public port of a new session from tmpl (its inside endpoint, remote,
 * proto, pool_idx, pub_addr) at now, counted live in its unit, in *port
 * (host order): the binding's port, or for an inside endpoint without one
 * a new binding's (the allocator's choice among ports no binding holds;
 * with port blocks, in the inside host's blocks, nat_block_port()). *be:
 * on entry the inside endpoint's binding where the caller knows it has
 * one (else NULL: it is looked up); on return the binding. 0, -EADDRINUSE (no free port; with blocks nat_block_exhausted
 * counted), -EDQUOT (the host holds its maximum of blocks, nat_block_limit
 * counted) or -ENOSPC (no room for a binding or its address count), the
 * log's cause in *why; nothing taken then.
 */
int nat_eim_pick(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
		 enum nat_proto pc, uint16_t *port, struct nat_bib_entry **be,
		 enum nat_log_refusal *why);

/** The unit of public endpoint (pool index, proto, port in network
 * order) of a binding or of a session under it, which share it: where the
 * binding table finds the binding (nat_bib_public()). */
static inline uint32_t
nat_eim_unit(const struct fx_nat *nt, uint32_t pool_idx, uint8_t proto,
	     uint16_t pub_port)
{
	return nat_ports_unit_index(&nt->ports, pool_idx, nat_proto_class(proto),
				    rte_be_to_cpu_16(pub_port));
}

/**
 * The home of an inside endpoint of pool index pool_idx (its paired
 * address), port and proto (network order), nat/bib.h: the unit of its
 * own port on that address, which the allocator tries first for a new
 * binding, or NAT_BIB_NO_HOME when the port is not in this worker's share
 * or with port blocks (a host's binding lies in its blocks).
 */
static inline uint32_t
nat_eim_home_at(const struct fx_nat *nt, uint32_t pool_idx, uint16_t in_port,
		uint8_t proto)
{
	uint16_t port = rte_be_to_cpu_16(in_port);

	if (nat_blocks_on(&nt->blocks) || !nat_ports_mine(&nt->ports, port))
		return NAT_BIB_NO_HOME;
	return nat_ports_unit_index(&nt->ports, pool_idx, nat_proto_class(proto), port);
}

/** The same for inside endpoint (in_addr, in_port, proto), network order. */
static inline uint32_t
nat_eim_home(const struct fx_nat *nt, uint32_t in_addr, uint16_t in_port,
	     uint8_t proto)
{
	return nat_eim_home_at(nt, nat_pool_index(&fx_nat_conf, in_addr), in_port, proto);
}

/** The public endpoint of a binding. */
struct nat_eim_pub {
	uint32_t addr;        /**< network order */
	uint16_t port;        /**< network order */
	uint16_t pool_idx;
};

/** The public endpoint of binding be, from its unit (nat_ports_unit_of()). */
static inline struct nat_eim_pub
nat_eim_pub_of(const struct fx_nat *nt, const struct nat_bib_entry *be)
{
	struct nat_eim_pub p;
	enum nat_proto pc;
	uint32_t a;
	uint16_t port;

	nat_ports_unit_of(&nt->ports, nat_bib_unit(&nt->bib, be), &a, &pc, &port);
	p.addr = fx_nat_conf.pool[a];
	p.port = rte_cpu_to_be_16(port);
	p.pool_idx = (uint16_t)a;
	return p;
}

/** The counts of binding be, its unit's: live sessions (live) and session
 * records, live or held (live + held). */
static inline const struct nat_port_unit *
nat_eim_counts(const struct fx_nat *nt, const struct nat_bib_entry *be)
{
	return nat_ports_unit_at(&nt->ports, nat_bib_unit(&nt->bib, be));
}

/** Undo nat_eim_pick() (the session was not made), after its unit was
 * put back. */
void nat_eim_unpick(struct fx_nat *nt, struct nat_bib_entry *be,
		    const struct nat_mapping *tmpl);

/** Session m under binding be was made at now; a binding's first is its
 * create (logged). */
static inline void
nat_eim_attach(struct fx_nat *nt, const struct nat_bib_entry *be,
	       const struct nat_mapping *m, uint64_t now)
{
	const struct nat_port_unit *u;

	if (nt->log == NULL)
		return;
	u = nat_eim_counts(nt, be);
	if (u->live + u->held == 1)   /* m's own */
		nat_log_binding(nt, true, m, now);
}

/* nat_eim_session_gone() under eim */
void nat_eim_session_end(struct fx_nat *nt, const struct nat_mapping *m,
			 uint64_t at);

/** Session m (live or held) left the table at `at`, its unit put back or
 * released (no-op without eim); a binding's last is its delete (logged). */
static inline void
nat_eim_session_gone(struct fx_nat *nt, const struct nat_mapping *m, uint64_t at)
{
	if (nat_bib_on(&nt->bib))
		nat_eim_session_end(nt, m, at);
}

/* nat_eim_held() of an endpoint the burst did not find unbound */
struct nat_mapping *nat_eim_held_bound(struct fx_nat *nt, const struct nat_key *k,
				       const struct nat_miss *miss);

/**
 * The held session of inside endpoint k towards k's remote, if any (eim:
 * the one public 5-tuple a new session of k would take), else NULL; *miss
 * is what the burst learnt of k (its pool index, and its binding where
 * nat_eim_prefetch_session() found out).
 */
static inline struct nat_mapping *
nat_eim_held(struct fx_nat *nt, const struct nat_key *k, const struct nat_miss *miss)
{
	if (miss->bib == NAT_MISS_UNBOUND)
		return NULL;   /* no binding when the burst began, so none held */
	return nat_eim_held_bound(nt, k, miss);
}

/**
 * Bring held session m back to life at now for packet pk of side (0 from
 * inside, 1 from the remote, which made its connection then): its out
 * key back in the table, its port unit live again, its deadline and
 * connection new. NULL with nat_table_full counted if the out key finds
 * no room in the index.
 */
struct nat_mapping *nat_eim_revive(struct fx_nat *nt, struct nat_mapping *m,
				   const struct fx_pkt *pk, unsigned int side,
				   uint64_t now);

/**
 * eim: the worker of nb_workers that owns inside endpoint (addr, port,
 * proto), network order: its binding and every session under it are
 * made there.
 */
static inline uint16_t
nat_eim_owner(uint32_t addr, uint16_t port, uint8_t proto, uint16_t nb_workers)
{
	struct nat_key k = nat_bib_key(addr, port, proto);

	return fx_affinity_owner(nat_key_hash(&k), nb_workers);
}

/**
 * Start reading what nat_eim_pick() for inside endpoint k of pool index
 * pool_idx reads: with a home, nothing more (its home's entry, and a new
 * binding's there, lie in its first candidate's port unit's line, which
 * the caller prefetches); without, its binding's bucket.
 */
static inline void
nat_eim_prefetch(const struct fx_nat *nt, const struct nat_key *k, uint32_t pool_idx)
{
	if (nat_eim_home_at(nt, pool_idx, k->sport, k->proto) == NAT_BIB_NO_HOME)
		nat_bib_prefetch_inside(&nt->bib, k->src, k->sport, k->proto);
}

/**
 * The binding of public endpoint (pub_addr, pub_port, proto), network
 * order, or NULL: none, or not an endpoint of this worker's pool share.
 */
struct nat_bib_entry *nat_eim_public(const struct fx_nat *nt, uint32_t pub_addr,
				     uint16_t pub_port, uint8_t proto);

/**
 * After nat_eim_prefetch() of a burst's new sessions, for new session k
 * (*miss from nat_in2out_prefetch(); its home's line or its binding's
 * bucket on its way): whether its inside endpoint has a binding, in
 * *miss where nat_bib_inside_try() tells (else it stays unasked), and if it has one, start reading what the session under it
 * reads next, which nat_eim_prefetch() could not know: the bucket of its
 * public 5-tuple (a held session of it, nat_eim_held(), and the insert of
 * its in key) and the binding's port unit.
 */
static inline void
nat_eim_prefetch_session(struct fx_nat *nt, const struct nat_key *k,
			 struct nat_miss *miss)
{
	struct nat_bib_entry *e;
	struct nat_eim_pub p;

	/* away from its home, only its bucket now: the lookup comes later */
	if (!nat_bib_inside_try(&nt->bib, k->src, k->sport, k->proto,
				nat_eim_home_at(nt, miss->pool_idx, k->sport, k->proto),
				&e))
		return;
	miss->be = e;
	miss->bib = e != NULL ? NAT_MISS_BOUND : NAT_MISS_UNBOUND;
	if (e == NULL)
		return;   /* a new binding: its candidate's unit is on its way */
	p = nat_eim_pub_of(nt, e);
	nat_table_prefetch_tuple(&nt->tbl, p.addr, p.port, k->dst, k->dport, k->proto);
	rte_prefetch0(nat_eim_counts(nt, e));
}

#endif /* _FX_NAT_EIM_H_ */
