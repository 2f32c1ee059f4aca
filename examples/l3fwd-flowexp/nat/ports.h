/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT public ports: which worker owns which public port, and each worker's
 * allocator over its own share.
 *
 * Shares. The public port range [lo, hi] (--nat-ports) is cut into one
 * contiguous share per worker, as equal as possible (the first
 * (hi - lo + 1) % workers shares get one port more). A port's owner is then
 * one lookup in a 64K-entry table (nat_port_owner()), which is how an
 * inbound packet finds the worker that holds its mapping. Allocation and
 * release touch only the worker's own share: no shared state, no atomics.
 *
 * Units. A unit is (public address, protocol, port) for a port of the
 * share; the ICMP echo identifier counts as a port. Mappings are endpoint-
 * dependent with port overlapping (RFC 7857 section 3; VPP NAT44-ED, Linux
 * nf_nat): the same unit may carry several mappings at once, one per remote
 * endpoint, so whether a candidate public 5-tuple is free is the mapping
 * table's answer, given to nat_ports_alloc() as a callback. The allocator
 * chooses the candidates and keeps, per unit, the number of live mappings
 * and of expired public tuples in hold-down:
 *   free    no live mapping, nothing held;
 *   held    only tuples in hold-down;
 *   in use  at least one live mapping.
 * free + held + in use is the number of units of the share at every moment
 * (nat_ports_check()); at exit, with every mapping gone, free + held is.
 *
 * Candidates (RFC 4787 REQ-1/REQ-3, RFC 6056): the inside port first when
 * it lies in the share (port preservation), then up to NAT_PORT_TRIES
 * ports drawn uniformly from the share with rte_rand() (a share of at
 * most NAT_PORT_TRIES ports is tried whole, in order, so none free is
 * missed). When all are taken
 * the caller drops the packet and counts nat_no_port: the number of tries,
 * not the table's fill, bounds the work per new mapping. The random ports
 * are drawn ahead, into a ring of NAT_PORTS_AHEAD that each draw takes
 * from and refills, so that a burst can look at the candidates its new
 * mappings will try (nat_ports_ahead()) and prefetch what checking them
 * reads: their unit here and their public tuple in the mapping table.
 *
 * Steered (nat_ports_alloc_steered(), --affinity rss, nat/steer.h): the
 * candidates come from the ports of the share whose reply RSS sends to
 * this worker, the inside port only if it is one of them, and the
 * unsteered candidates only when none of those was free.
 */

#ifndef _FX_NAT_PORTS_H_
#define _FX_NAT_PORTS_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_debug.h>
#include <rte_prefetch.h>
#include <rte_reciprocal.h>

/** Protocol classes that own separate port spaces. */
enum nat_proto {
	NAT_PROTO_TCP,
	NAT_PROTO_UDP,
	NAT_PROTO_ICMP,   /**< ICMP echo identifiers. */
	NAT_PROTO_MAX
};

/** Random candidates tried after the inside port. */
#define NAT_PORT_TRIES 16

/** Random candidates drawn ahead (a power of two, a burst's worth). */
#define NAT_PORTS_AHEAD 32

/** Largest pool the allocator accepts (units are counted per address). */
#define NAT_POOL_ADDRS_MAX 1024

/** Live and held counts of one unit. */
struct nat_port_unit {
	uint32_t live;
	uint32_t held;
};

/** One worker's share and its accounting. Owner lcore only. */
struct nat_ports {
	uint16_t first;               /**< First port of the share. */
	uint16_t last;                /**< Last port of the share. */
	uint32_t share;               /**< last - first + 1. */
	struct rte_reciprocal share_rcp;  /**< share as a divisor (nat_ports_unit_of()). */
	uint32_t nb_addrs;            /**< Public addresses in the pool. */
	uint64_t units;               /**< nb_addrs * NAT_PROTO_MAX * share. */
	uint64_t nb_free;             /**< Units free. */
	uint64_t nb_held;             /**< Units held (and not in use). */
	struct nat_port_unit *unit;   /**< [addr][proto][port - first], 1 << unit_shift bytes apart. */
	uint32_t unit_shift;          /**< log2 of a unit's bytes, with the caller's beside it. */
	uint32_t ahead_next;          /**< Next of ahead[] a draw takes (mod NAT_PORTS_AHEAD). */
	uint16_t ahead[NAT_PORTS_AHEAD];  /**< Random ports of the share, drawn ahead. */
};

/**
 * The share of worker `w` of `nb_workers` in [lo, hi].
 * @return 0, or -EINVAL if lo > hi, w >= nb_workers, or the range has
 *   fewer ports than there are workers.
 */
int nat_ports_share(uint16_t lo, uint16_t hi, unsigned int nb_workers,
		    unsigned int w, uint16_t *first, uint16_t *last);

/**
 * Fill owner[port] with the worker owning each port of [lo, hi] (0xff
 * outside). 0 or -EINVAL as nat_ports_share().
 */
int nat_ports_owner_table(uint16_t lo, uint16_t hi, unsigned int nb_workers,
			  uint8_t owner[65536]);

/**
 * Set up worker `w`'s allocator: its share and a unit array for nb_addrs
 * addresses on `socket`, with `beside` bytes (0 or 8, zeroed) after each
 * unit's counts for the caller (the binding table's entry,
 * nat_ports_beside()), so that a unit and what is kept of it share a
 * line. 0, -EINVAL (bad share, nb_addrs 0 or over NAT_POOL_ADDRS_MAX,
 * another `beside`) or -ENOMEM.
 */
int nat_ports_init(struct nat_ports *np, uint16_t lo, uint16_t hi,
		   unsigned int nb_workers, unsigned int w, uint32_t nb_addrs,
		   uint32_t beside, int socket);

/** Release the unit array. */
void nat_ports_fini(struct nat_ports *np);

/** Whether `port` lies in this worker's share. */
static inline bool
nat_ports_mine(const struct nat_ports *np, uint16_t port)
{
	return (uint16_t)(port - np->first) < np->share;
}

/**
 * The index of unit (address index, protocol, port of the share), in
 * [0, units): its place in the unit array and in any array beside it
 * (the binding table's, nat/bib.h).
 */
static inline uint32_t
nat_ports_unit_index(const struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		     uint16_t port)
{
	RTE_ASSERT(addr < np->nb_addrs && nat_ports_mine(np, port));
	return (addr * NAT_PROTO_MAX + proto) * np->share + (uint16_t)(port - np->first);
}

/**
 * The unit of index `idx` (< units), nat_ports_unit_index()'s inverse:
 * its address index, protocol and port (host order). A multiply and
 * shifts, no divide instruction.
 */
static inline void
nat_ports_unit_of(const struct nat_ports *np, uint32_t idx, uint32_t *addr,
		  enum nat_proto *proto, uint16_t *port)
{
	uint32_t q = rte_reciprocal_divide(idx, np->share_rcp);

	RTE_ASSERT(idx < np->units);
	*port = (uint16_t)(np->first + (idx - q * np->share));
	*proto = (enum nat_proto)(q % NAT_PROTO_MAX);
	*addr = q / NAT_PROTO_MAX;
}

/** The unit of index `idx` (< units). */
static inline struct nat_port_unit *
nat_ports_unit_at(const struct nat_ports *np, uint32_t idx)
{
	return (struct nat_port_unit *)((uintptr_t)np->unit +
					((uintptr_t)idx << np->unit_shift));
}

/** The caller's bytes beside the unit of index `idx` (nat_ports_init()'s
 * `beside`), in the unit's line. */
static inline void *
nat_ports_beside(const struct nat_ports *np, uint32_t idx)
{
	return nat_ports_unit_at(np, idx) + 1;
}

/** The unit of (address index, protocol, port of the share). */
static inline struct nat_port_unit *
nat_ports_unit(const struct nat_ports *np, uint32_t addr, enum nat_proto proto,
	       uint16_t port)
{
	return nat_ports_unit_at(np, nat_ports_unit_index(np, addr, proto, port));
}

/** Start reading the unit a later call for (addr, proto, port) needs. */
static inline void
nat_ports_prefetch(const struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		   uint16_t port)
{
	rte_prefetch0(nat_ports_unit(np, addr, proto, port));
}

/**
 * The random candidate the n-th random draw from now will give (n <
 * NAT_PORTS_AHEAD), host order: what a burst's n-th new mapping without
 * its inside port will try first.
 */
static inline uint16_t
nat_ports_ahead(const struct nat_ports *np, unsigned int n)
{
	return np->ahead[(np->ahead_next + n) % NAT_PORTS_AHEAD];
}

/**
 * Is the public 5-tuple (address, proto, port, remote endpoint) live or in
 * hold-down? Answered by the mapping table, which knows the remote end.
 */
typedef bool (*nat_tuple_taken_fn)(uint16_t port, void *arg);

/**
 * Choose a public port for a new mapping on address `addr` and count it
 * live: `inside_port` if it is in the share and its tuple is not taken,
 * else the first of NAT_PORT_TRIES random ports of the share whose tuple is
 * not taken.
 * @return 0 with *port set (host order), or -EADDRINUSE when every
 *   candidate was taken (nothing changed).
 */
int nat_ports_alloc(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		    uint16_t inside_port, nat_tuple_taken_fn taken, void *arg,
		    uint16_t *port);

struct fx_rss_class;

/**
 * A new mapping's reply, as RSS sees it (nat/steer.h): the ports of the
 * share whose reply the outside port's RSS sends to this worker, and the
 * reply's context (its hash with public port 0).
 */
struct nat_ports_steer {
	const struct fx_rss_class *cls;
	uint32_t h0;
	uint16_t first;      /**< has_first: the first draw, made ahead */
	bool has_first;
};

/**
 * nat_ports_alloc() with the candidates taken in the class of `steer`
 * first: the inside port if it is in the share, in the class and free,
 * else up to NAT_PORT_TRIES ports drawn uniformly from the class, the
 * first of them steer->first where the caller drew it ahead (a share
 * of at most NAT_PORT_TRIES ports: each of its ports in the class, in
 * order). When none was free, nat_ports_alloc()'s own candidates, and
 * *missed says the port is outside the class (its replies reach another
 * worker).
 * @return 0 with *port set (host order), or -EADDRINUSE (nothing changed).
 */
int nat_ports_alloc_steered(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
			    uint16_t inside_port, const struct nat_ports_steer *steer,
			    nat_tuple_taken_fn taken, void *arg, uint16_t *port,
			    bool *missed);

/**
 * Count a new live mapping on (addr, proto, port), a port the caller chose
 * itself (the port-block allocator, nat/block.h) and whose tuple it found
 * free.
 */
void nat_ports_take(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		    uint16_t port);

/** Whether no mapping, live or held, is on unit (addr, proto, port). */
static inline bool
nat_ports_unit_free(const struct nat_ports *np, uint32_t addr,
		    enum nat_proto proto, uint16_t port)
{
	const struct nat_port_unit *u = nat_ports_unit(np, addr, proto, port);

	return u->live == 0 && u->held == 0;
}

/**
 * Undo nat_ports_alloc() for a mapping that was never made (the table
 * refused it), or end a live mapping with no hold-down (shutdown).
 */
void nat_ports_put(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		   uint16_t port);

/** A live mapping on the unit ended and its public tuple goes into hold-down. */
void nat_ports_hold(struct nat_ports *np, uint32_t addr, enum nat_proto proto,
		    uint16_t port);

/** A public tuple's hold-down ended: it may be handed out again. */
void nat_ports_release(struct nat_ports *np, uint32_t addr,
		       enum nat_proto proto, uint16_t port);

/**
 * Recount every unit and compare with nb_free and nb_held.
 * @return 0, or -EFAULT if the counters drifted (a bug).
 */
int nat_ports_check(const struct nat_ports *np);

#endif /* _FX_NAT_PORTS_H_ */
