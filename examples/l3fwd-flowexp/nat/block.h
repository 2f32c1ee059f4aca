/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT port blocks (--nat-port-block N, --nat-max-blocks-per-host M): port-
 * block allocation (RFC 6888 REQ-4/13/14, RFC 7422's bulk allocation) on
 * top of the worker's port units (nat/ports.h). Off (N 0, the default),
 * every mapping takes its port from the whole share.
 *
 * Blocks. The worker's share is cut into share / N blocks of N consecutive
 * ports from its first port (the remainder of the share is unused), on
 * each public address. A block is a port range on one address for TCP,
 * UDP and ICMP echo together: one block serves every protocol of its
 * host, and its events name it once, with protocol 0. A host owns the
 * blocks it was given on its paired address (one address per host,
 * nat/conf.h), at most M of them on one worker (0: no limit); only its
 * mappings take ports in them.
 *
 * A new mapping of host H (protocol p, remote R) takes, in this order:
 *   1. its inside port, if that lies in one of H's blocks and its public
 *      tuple towards R is free (port preservation);
 *   2. a wholly free unit (no mapping, live or held) of H's blocks for p,
 *      scanned from a random port of each block with room (the block's
 *      count of busy units says which have);
 *   3. port overlapping, as without blocks (RFC 7857 section 3): the first
 *      of NAT_PORT_TRIES random ports of H's blocks whose public tuple
 *      towards R is free (the mapping table's answer);
 *   4. a new block, if H holds fewer than M: the block of its inside port
 *      if that lies in a free block of the share (the host's first port is
 *      kept), else one drawn uniformly among the address's free blocks
 *      (REQ-14: a block cannot be guessed from the previous one), and in
 *      it the inside port, else a random one.
 * H's blocks are full when every unit of them carries a mapping for p and
 * the overlap candidates are taken. Then a host at M is refused:
 * nat_block_limit, a quota-exceeded event; an address with no free block:
 * nat_block_exhausted and nat_no_port, a ports-exhausted event.
 *
 * Life. A block is owned from its allocation until its last mapping has
 * left, hold-down included: a block keeps every tuple of it in hold-down,
 * so no other host gets a public tuple a late packet may still reach. The
 * block's lifetime is an entry on the worker's wheel, beside its mappings'
 * (its payload a tagged pointer, nat_block_of()), with a lazy deadline:
 * NAT_BLOCK_BUSY while a mapping of it is live; when the last live one
 * ends, the latest end of the hold-down of its tuples (twheel_move()).
 * A new mapping during that time stores NAT_BLOCK_BUSY again and keeps
 * the block. When the entry comes due with nothing left the block is
 * released; if a tuple of it is still held (due in the same tick, later in
 * the sweep), the block waits without an entry and the release of that
 * tuple releases it. The log (nat/log/events.h) gets the block's allocation at
 * the time of the packet that made it and its release at the end of its
 * last hold-down, instead of each mapping's create and delete.
 *
 * Endpoint-independent mappings (--nat-mapping eim, nat/eim.h): a new
 * binding's port is chosen as a new mapping's above, a port being taken
 * while any binding holds it; every session under the binding then takes
 * the binding's unit (nat_block_get()), and a held one revived turns its
 * unit live again (nat_block_unhold()). A binding lives as long as a
 * session record under it, live or held, and each record counts in its
 * block: the block outlives every binding in it, and is released after
 * the hold-down of the last session of the last of them. The log has the
 * block events only, no session or binding event (nat/log/events.h).
 *
 * Accounting, checked by nat_blocks_check(): each block's live and held
 * counts are the sums of its units', its busy counts the units with any,
 * a free block's units are all free, each host's chain holds its blocks,
 * and the free lists the blocks nobody owns.
 *
 * Memory per worker: 64 bytes a block, 8 more for its free-list places,
 * 12 for two host slots, and one wheel entry (54 bytes): 138 bytes a
 * block, e.g. 1.1 MB for 16 addresses of a 32K-port share in blocks of 64.
 */

#ifndef _FX_NAT_BLOCK_H_
#define _FX_NAT_BLOCK_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "nat/ports.h"

struct fx_nat;
enum nat_log_refusal;

/** Ports per block at most (--nat-port-block). */
#define NAT_BLOCK_SIZE_MAX 32768u
/** Default --nat-max-blocks-per-host. */
#define NAT_BLOCKS_PER_HOST_DEFAULT 8u
#define NAT_BLOCKS_PER_HOST_MAX 65536u
/** A block's deadline while one of its mappings is live. */
#define NAT_BLOCK_BUSY (UINT64_MAX >> 1)
/** No block (host chains). */
#define NAT_BLOCK_NIL UINT32_MAX

/** Block states. */
enum nat_block_state {
	NAT_BLOCK_FREE,       /**< In its address's free list. */
	NAT_BLOCK_OWNED,      /**< A host's. */
};

/** One block; 64 bytes. */
struct nat_block {
	uint64_t until;       /**< Lazy deadline: NAT_BLOCK_BUSY, or its hold-down's end. */
	uint64_t hold_end;    /**< Latest hold-down end of its tuples. */
	uint64_t id;          /**< Wheel id; 0: no entry. */
	uint32_t in_addr;     /**< Owner (network order). */
	uint32_t live;        /**< Live mappings on its units. */
	uint32_t held;        /**< Tuples in hold-down on its units. */
	uint32_t next;        /**< Next block of the owner, or NAT_BLOCK_NIL. */
	uint32_t busy[NAT_PROTO_MAX];   /**< Units with a mapping, per protocol. */
	uint16_t pool_idx;    /**< Its address. */
	uint16_t first;       /**< First port (host order). */
	uint8_t state;        /**< enum nat_block_state. */
} __rte_aligned(64);

/** A host's blocks (open addressing on the keyed hash). */
struct nat_block_host {
	uint32_t in_addr;     /**< Network order. */
	uint32_t head;        /**< First block. */
	uint32_t count;       /**< Blocks owned; 0: an empty slot. */
};

/** One worker's blocks. Owner lcore only, but for the counts read whole. */
struct nat_blocks {
	uint32_t size;              /**< Ports per block; 0: blocks off. */
	uint32_t max_per_host;      /**< 0: no limit. */
	uint32_t per_addr;          /**< Blocks per address. */
	uint32_t nb;                /**< per_addr * addresses. */
	uint32_t nb_owned;          /**< Blocks owned. */
	uint32_t host_mask;         /**< Host slots - 1. */
	bool draining;              /**< fx_nat_drain(): release, schedule nothing. */
	struct nat_block *blk;      /**< [addr * per_addr + j] */
	uint32_t *free_j;           /**< [addr * per_addr + k]: free block j's of addr */
	uint32_t *free_pos;         /**< [block]: its place in free_j */
	uint32_t *free_n;           /**< [addr]: free blocks */
	struct nat_block_host *host;
};

/** Whether port blocks are on. */
static inline bool
nat_blocks_on(const struct nat_blocks *bk)
{
	return bk->size != 0;
}

/**
 * Set up the blocks of the share of np: blocks of `size` ports (0: off,
 * nothing allocated), at most max_per_host a host. 0, -EINVAL (size over
 * the share) or -ENOMEM.
 */
int nat_blocks_init(struct nat_blocks *bk, const struct nat_ports *np,
		    uint32_t size, uint32_t max_per_host, int socket);

/** Free what nat_blocks_init() allocated. */
void nat_blocks_fini(struct nat_blocks *bk);

/** The wheel payload of block b: its address tagged in bit 0. */
static inline void *
nat_block_payload(struct nat_block *b)
{
	return (void *)((uintptr_t)b | 1);
}

/** The block of a wheel payload, or NULL for a mapping's. */
static inline struct nat_block *
nat_block_of(void *payload)
{
	uintptr_t p = (uintptr_t)payload;

	return (p & 1) ? (struct nat_block *)(p & ~(uintptr_t)1) : NULL;
}

/**
 * Choose the public port of a new mapping of host in_addr (its address
 * pool_idx, protocol pc, inside port inside_port) in the host's blocks,
 * allocating one if need be (as above), and count it live; a new block is
 * logged and put on the wheel at `now`. With st (nat/steer.h), steps 1 to
 * 3 take the ports of st's class alone, then, if none served, any port;
 * step 4 a port of the class in the new block where it has one.
 * @return 0 with *port set (host order), or -EDQUOT (the host holds its
 *   maximum, nat_block_limit counted) or -EADDRINUSE (no free block,
 *   nat_block_exhausted counted); the log's cause in *why. Nothing changed.
 */
int nat_block_port(struct fx_nat *nt, uint64_t now, uint32_t in_addr,
		   uint32_t pool_idx, enum nat_proto pc, uint16_t inside_port,
		   const struct nat_ports_steer *st, nat_tuple_taken_fn taken, void *arg,
		   uint16_t *port, enum nat_log_refusal *why);

/* The life of a mapping's unit, as nat/ports.h's, with the block's counts. */

/** A live mapping never made, or ended with no hold-down (at exit), at now. */
void nat_block_put(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		   uint16_t port, uint64_t now);

/** A live mapping ended; its tuple is held until held_until. */
void nat_block_hold(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		    uint16_t port, uint64_t held_until);

/** A held tuple's hold-down ended at `at`. */
void nat_block_release(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		       uint16_t port, uint64_t at);

/**
 * A new live mapping on (pool_idx, pc, port), a port of a block its
 * caller knows is owned: under eim a session under an existing binding,
 * whose sessions keep the binding's block owned (nat/eim.h).
 */
void nat_block_get(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		   uint16_t port);

/**
 * A held tuple live again (eim: a held session revived): counted live
 * before its hold is dropped, so that the block is never free between.
 */
void nat_block_unhold(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		      uint16_t port);

/** Whether port (host order) of address pool_idx lies in a block that
 * host in_addr owns (a check: eim's bindings, the fuzzer). */
bool nat_block_owns(const struct nat_blocks *bk, const struct nat_ports *np,
		    uint32_t in_addr, uint32_t pool_idx, uint16_t port);

/**
 * Block b's wheel entry was handed back: Due (at its deadline `at`) or
 * drained at exit (at = exit time, then the earlier of it and the
 * deadline is logged). The block is released if nothing is left on it.
 */
void nat_block_due(struct fx_nat *nt, struct nat_block *b, uint64_t at);

/**
 * Recount every block against the port units and the lists.
 * @return 0, or -EFAULT if anything drifted (a bug).
 */
int nat_blocks_check(const struct nat_blocks *bk, const struct nat_ports *np);

#endif /* _FX_NAT_BLOCK_H_ */
