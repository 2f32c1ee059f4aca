/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT port blocks (nat/block.h has the design): each worker's blocks, the
 * hosts that own them, the choice of a new mapping's port within them, a
 * block's life on the wheel and its log events, and the recount.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include <twheel.h>

#include "base/counter.h"
#include "base/hash.h"
#include "base/toeplitz.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "nat/ports.h"

int
nat_blocks_init(struct nat_blocks *bk, const struct nat_ports *np,
		uint32_t size, uint32_t max_per_host, int socket)
{
	uint32_t a, j, slots;

	memset(bk, 0, sizeof(*bk));
	if (size == 0)
		return 0;
	if (size > np->share || size > NAT_BLOCK_SIZE_MAX)
		return -EINVAL;
	bk->size = size;
	bk->max_per_host = max_per_host;
	bk->per_addr = np->share / size;
	bk->nb = bk->per_addr * np->nb_addrs;
	/* a host owns a block at least: at most half the slots are taken */
	slots = rte_align32pow2(RTE_MAX(2 * bk->nb, 16u));
	bk->host_mask = slots - 1;
	bk->blk = rte_zmalloc_socket("nat_blocks", sizeof(*bk->blk) * bk->nb,
				     RTE_CACHE_LINE_SIZE, socket);
	bk->free_j = rte_malloc_socket("nat_block_free", sizeof(uint32_t) * bk->nb,
				       0, socket);
	bk->free_pos = rte_malloc_socket("nat_block_pos", sizeof(uint32_t) * bk->nb,
					 0, socket);
	bk->free_n = rte_malloc_socket("nat_block_n", sizeof(uint32_t) * np->nb_addrs,
				       0, socket);
	bk->host = rte_zmalloc_socket("nat_block_host", sizeof(*bk->host) * slots,
				      RTE_CACHE_LINE_SIZE, socket);
	if (bk->blk == NULL || bk->free_j == NULL || bk->free_pos == NULL ||
	    bk->free_n == NULL || bk->host == NULL) {
		nat_blocks_fini(bk);
		return -ENOMEM;
	}
	for (a = 0; a < np->nb_addrs; a++) {
		bk->free_n[a] = bk->per_addr;
		for (j = 0; j < bk->per_addr; j++) {
			struct nat_block *b = &bk->blk[a * bk->per_addr + j];

			b->pool_idx = (uint16_t)a;
			b->first = (uint16_t)(np->first + j * size);
			b->next = NAT_BLOCK_NIL;
			bk->free_j[a * bk->per_addr + j] = j;
			bk->free_pos[a * bk->per_addr + j] = j;
		}
	}
	return 0;
}

void
nat_blocks_fini(struct nat_blocks *bk)
{
	rte_free(bk->blk);
	rte_free(bk->free_j);
	rte_free(bk->free_pos);
	rte_free(bk->free_n);
	rte_free(bk->host);
	memset(bk, 0, sizeof(*bk));
}

/* ---- hosts: open addressing, linear probing, backward-shift delete ---- */

static inline uint32_t
host_home(const struct nat_blocks *bk, uint32_t in_addr)
{
	return fx_hash_u32(in_addr) & bk->host_mask;
}

/* the slot of in_addr, or the empty slot where it would go */
static struct nat_block_host *
host_slot(struct nat_blocks *bk, uint32_t in_addr)
{
	uint32_t i = host_home(bk, in_addr);

	while (bk->host[i].count != 0 && bk->host[i].in_addr != in_addr)
		i = (i + 1) & bk->host_mask;
	return &bk->host[i];
}

static void
host_delete(struct nat_blocks *bk, struct nat_block_host *h)
{
	uint32_t i = (uint32_t)(h - bk->host), j = i, k;

	for (;;) {
		j = (j + 1) & bk->host_mask;
		if (bk->host[j].count == 0)
			break;
		k = host_home(bk, bk->host[j].in_addr);
		/* an entry whose home lies cyclically in (i, j] stays */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		bk->host[i] = bk->host[j];
		i = j;
	}
	memset(&bk->host[i], 0, sizeof(bk->host[i]));
}

/* ---- blocks ---- */

static inline uint32_t
block_index(const struct nat_blocks *bk, const struct nat_block *b)
{
	return (uint32_t)(b - bk->blk);
}

/* the block of a port of the share on address pool_idx, NULL in the
 * share's remainder */
static inline struct nat_block *
block_of_port(const struct nat_blocks *bk, const struct nat_ports *np,
	      uint32_t pool_idx, uint16_t port)
{
	uint32_t j = (uint16_t)(port - np->first) / bk->size;

	return j < bk->per_addr ? &bk->blk[pool_idx * bk->per_addr + j] : NULL;
}

static inline bool
block_has(const struct nat_blocks *bk, const struct nat_block *b, uint16_t port)
{
	return (uint16_t)(port - b->first) < bk->size;
}

/* take free block j of address a out of its free list */
static void
free_list_take(struct nat_blocks *bk, uint32_t a, uint32_t j)
{
	uint32_t base = a * bk->per_addr, pos = bk->free_pos[base + j];
	uint32_t last = bk->free_j[base + --bk->free_n[a]];

	bk->free_j[base + pos] = last;
	bk->free_pos[base + last] = pos;
}

static void
free_list_put(struct nat_blocks *bk, uint32_t a, uint32_t j)
{
	uint32_t base = a * bk->per_addr, pos = bk->free_n[a]++;

	bk->free_j[base + pos] = j;
	bk->free_pos[base + j] = pos;
}

/* a new block for host slot h (empty or the host's) on address a at now:
 * the block of the inside port if free, else a random free one */
static struct nat_block *
block_new(struct fx_nat *nt, struct nat_block_host *h, uint32_t in_addr,
	  uint32_t a, uint16_t inside_port, uint64_t now)
{
	struct nat_blocks *bk = &nt->blocks;
	struct nat_block *b = NULL;
	uint32_t j;

	if (bk->free_n[a] == 0)
		return NULL;
	if (nat_ports_mine(&nt->ports, inside_port))
		b = block_of_port(bk, &nt->ports, a, inside_port);
	if (b == NULL || b->state != NAT_BLOCK_FREE)
		b = &bk->blk[a * bk->per_addr +
			     bk->free_j[a * bk->per_addr + rte_rand_max(bk->free_n[a])]];
	j = block_index(bk, b) - a * bk->per_addr;
	/* an entry for every block fits (fx_nat_init()) */
	b->id = twheel_schedule(nt->wheel, NAT_BLOCK_BUSY, nat_block_payload(b));
	if (b->id == TWHEEL_ID_INVALID)
		return NULL;
	free_list_take(bk, a, j);
	b->state = NAT_BLOCK_OWNED;
	b->in_addr = in_addr;
	b->until = NAT_BLOCK_BUSY;
	b->hold_end = 0;
	if (h->count == 0) {
		h->in_addr = in_addr;
		h->head = NAT_BLOCK_NIL;
	}
	b->next = h->head;
	h->head = block_index(bk, b);
	h->count++;
	bk->nb_owned++;
	FX_STAT_ADD(&nt->st, nat_block_allocated, 1);
	FX_STAT_SET(&nt->st, nat_blocks_active, nt->st.nat_blocks_active + 1);
	nat_log_block(nt->log, true, in_addr, fx_nat_conf.pool[a], 0, b->first,
		      (uint16_t)(b->first + bk->size - 1), now);
	return b;
}

/* block b has nothing left: back to its address's free list, logged at t */
static void
block_free(struct fx_nat *nt, struct nat_block *b, uint64_t t)
{
	struct nat_blocks *bk = &nt->blocks;
	struct nat_block_host *h = host_slot(bk, b->in_addr);
	uint32_t idx = block_index(bk, b), *link = &h->head;

	RTE_ASSERT(h->count != 0 && b->live == 0 && b->held == 0);
	while (*link != idx)   /* unlink it from its host's chain */
		link = &bk->blk[*link].next;
	*link = b->next;
	if (--h->count == 0)
		host_delete(bk, h);
	nat_log_block(nt->log, false, b->in_addr, fx_nat_conf.pool[b->pool_idx], 0,
		      b->first, (uint16_t)(b->first + bk->size - 1), t);
	b->state = NAT_BLOCK_FREE;
	b->in_addr = 0;
	b->next = NAT_BLOCK_NIL;
	b->id = 0;
	free_list_put(bk, b->pool_idx, idx - b->pool_idx * bk->per_addr);
	bk->nb_owned--;
	FX_STAT_ADD(&nt->st, nat_block_released, 1);
	FX_STAT_SET(&nt->st, nat_blocks_active, nt->st.nat_blocks_active - 1);
}

/* a block has no live mapping left from t: its entry is moved to the end
 * of its last hold-down (filed again if it had left); at exit it is
 * released at once if nothing is held and its entry was handed back */
static void
block_idle(struct fx_nat *nt, struct nat_block *b, uint64_t t)
{
	b->until = RTE_MAX(b->hold_end, t);
	if (nt->blocks.draining) {
		if (b->id == 0 && b->held == 0)
			block_free(nt, b, t);
		return;
	}
	if (b->id != 0 && twheel_move(nt->wheel, b->id, b->until) == 0)
		return;
	b->id = twheel_schedule(nt->wheel, b->until, nat_block_payload(b));
	if (b->id == TWHEEL_ID_INVALID && b->held == 0)
		block_free(nt, b, t);
}

/* count a live mapping on port p of block b */
static void
block_take(struct fx_nat *nt, struct nat_block *b, enum nat_proto pc, uint16_t p)
{
	if (nat_ports_unit_free(&nt->ports, b->pool_idx, pc, p))
		b->busy[pc]++;
	nat_ports_take(&nt->ports, b->pool_idx, pc, p);
	b->live++;
	b->until = NAT_BLOCK_BUSY;   /* a lazy extension: a plain store */
}

/* random candidates in the host's blocks under steering: the class holds
 * about one port in W of them */
#define STEER_TRIES (4 * NAT_PORT_TRIES)

/* whether port p may be taken under steering st: in its class (or none) */
static inline bool
in_class(const struct nat_ports_steer *st, uint16_t p)
{
	return st == NULL || fx_rss_class_has(st->cls, st->h0, p);
}

/* a wholly free unit of block b for pc in st's class, from a random port
 * on: 0 with *port, or -ENOENT */
static int
free_unit(const struct nat_ports *np, const struct nat_block *b, uint32_t size,
	  enum nat_proto pc, const struct nat_ports_steer *st, uint16_t *port)
{
	uint32_t start = (uint32_t)rte_rand_max(size), k;
	uint16_t p;

	for (k = 0; k < size; k++) {
		p = (uint16_t)(b->first + (start + k) % size);
		if (nat_ports_unit_free(np, b->pool_idx, pc, p) && in_class(st, p)) {
			*port = p;
			return 0;
		}
	}
	return -ENOENT;
}

/* the host's n-th block (n < its count) */
static struct nat_block *
host_block(struct nat_blocks *bk, const struct nat_block_host *h, uint32_t n)
{
	uint32_t i = h->head;

	while (n-- != 0)
		i = bk->blk[i].next;
	return &bk->blk[i];
}

/* steps 1-3 of nat/block.h in the blocks of host h: 0 with *pb and *port,
 * or -EADDRINUSE when they are full */
static int
port_in_blocks(struct nat_blocks *bk, const struct nat_ports *np,
	       const struct nat_block_host *h, uint32_t a, enum nat_proto pc,
	       uint16_t inside_port, const struct nat_ports_steer *st,
	       nat_tuple_taken_fn taken, void *arg, struct nat_block **pb,
	       uint16_t *port)
{
	struct nat_block *b;
	unsigned int t;
	uint64_t r;
	uint32_t i;

	if (nat_ports_mine(np, inside_port) && in_class(st, inside_port)) {
		b = block_of_port(bk, np, a, inside_port);
		if (b != NULL && b->state == NAT_BLOCK_OWNED &&
		    b->in_addr == h->in_addr && !taken(inside_port, arg)) {
			*pb = b;
			*port = inside_port;
			return 0;
		}
	}
	for (i = h->head; i != NAT_BLOCK_NIL; i = bk->blk[i].next) {
		b = &bk->blk[i];
		RTE_ASSERT(b->pool_idx == a);
		if (b->busy[pc] < bk->size && free_unit(np, b, bk->size, pc, st, port) == 0) {
			*pb = b;
			return 0;
		}
	}
	/* steered: as many tries again for the candidates out of the class */
	for (t = 0; t < (st != NULL ? STEER_TRIES : NAT_PORT_TRIES); t++) {
		r = rte_rand_max((uint64_t)h->count * bk->size);
		b = host_block(bk, h, (uint32_t)(r / bk->size));
		*port = (uint16_t)(b->first + r % bk->size);
		if (in_class(st, *port) && !taken(*port, arg)) {
			*pb = b;
			return 0;
		}
	}
	return -EADDRINUSE;
}

int
nat_block_port(struct fx_nat *nt, uint64_t now, uint32_t in_addr,
	       uint32_t pool_idx, enum nat_proto pc, uint16_t inside_port,
	       const struct nat_ports_steer *st, nat_tuple_taken_fn taken, void *arg,
	       uint16_t *port, enum nat_log_refusal *why)
{
	struct nat_blocks *bk = &nt->blocks;
	struct nat_block_host *h = host_slot(bk, in_addr);
	struct nat_block *b;
	uint16_t p;

	if (h->count != 0) {
		/* steered: the ports of the class first, then any */
		if ((st != NULL && port_in_blocks(bk, &nt->ports, h, pool_idx, pc,
						  inside_port, st, taken, arg, &b, &p) == 0) ||
		    port_in_blocks(bk, &nt->ports, h, pool_idx, pc, inside_port, NULL,
				   taken, arg, &b, &p) == 0)
			goto found;
		if (bk->max_per_host != 0 && h->count >= bk->max_per_host) {
			FX_STAT_ADD(&nt->st, nat_block_limit, 1);
			*why = NAT_LOG_BLOCK_LIMIT;
			return -EDQUOT;
		}
	}
	b = block_new(nt, h, in_addr, pool_idx, inside_port, now);
	if (b == NULL) {
		FX_STAT_ADD(&nt->st, nat_block_exhausted, 1);
		*why = NAT_LOG_NO_PORT;
		return -EADDRINUSE;
	}
	/* a new block's units are all free: no tuple of it is taken */
	if (block_has(bk, b, inside_port) && in_class(st, inside_port))
		p = inside_port;
	else if (st == NULL || free_unit(&nt->ports, b, bk->size, pc, st, &p) != 0)
		p = (uint16_t)(b->first + rte_rand_max(bk->size));
found:
	block_take(nt, b, pc, p);
	*port = p;
	return 0;
}

/* the block of a mapping's unit (it has one: its port was taken in it) */
static inline struct nat_block *
unit_block(struct fx_nat *nt, uint32_t pool_idx, uint16_t port)
{
	struct nat_block *b = block_of_port(&nt->blocks, &nt->ports, pool_idx, port);

	RTE_ASSERT(b != NULL && b->state == NAT_BLOCK_OWNED);
	return b;
}

/* a mapping leaves unit (pool_idx, pc, port) of its block: a live one
 * (put) or a held tuple (release) */
static struct nat_block *
unit_left(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
	  uint16_t port, bool held)
{
	struct nat_block *b = unit_block(nt, pool_idx, port);

	if (held)
		nat_ports_release(&nt->ports, pool_idx, pc, port);
	else
		nat_ports_put(&nt->ports, pool_idx, pc, port);
	if (nat_ports_unit_free(&nt->ports, pool_idx, pc, port))
		b->busy[pc]--;
	return b;
}

void
nat_block_put(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
	      uint16_t port, uint64_t now)
{
	struct nat_block *b = unit_left(nt, pool_idx, pc, port, false);

	if (--b->live == 0)
		block_idle(nt, b, now);
}

void
nat_block_hold(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
	       uint16_t port, uint64_t held_until)
{
	struct nat_block *b = unit_block(nt, pool_idx, port);

	nat_ports_hold(&nt->ports, pool_idx, pc, port);
	b->held++;
	b->hold_end = RTE_MAX(b->hold_end, held_until);
	if (--b->live == 0)
		block_idle(nt, b, held_until);
}

void
nat_block_release(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		  uint16_t port, uint64_t at)
{
	struct nat_block *b = unit_left(nt, pool_idx, pc, port, true);

	/* its entry came due before this last tuple (a sweep hands back a
	 * tick's records in any order): it waited for it, and is free from
	 * the later of this tuple's end and its own deadline */
	if (--b->held == 0 && b->live == 0 && b->id == 0)
		block_free(nt, b, RTE_MAX(at, b->until));
}

void
nat_block_get(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
	      uint16_t port)
{
	block_take(nt, unit_block(nt, pool_idx, port), pc, port);
}

void
nat_block_unhold(struct fx_nat *nt, uint32_t pool_idx, enum nat_proto pc,
		 uint16_t port)
{
	struct nat_block *b = unit_block(nt, pool_idx, port);

	/* live first: the unit is busy throughout, the block never idle */
	block_take(nt, b, pc, port);
	nat_ports_release(&nt->ports, pool_idx, pc, port);
	RTE_ASSERT(b->held != 0);
	b->held--;
}

bool
nat_block_owns(const struct nat_blocks *bk, const struct nat_ports *np,
	       uint32_t in_addr, uint32_t pool_idx, uint16_t port)
{
	const struct nat_block *b;

	if (!nat_blocks_on(bk) || !nat_ports_mine(np, port) ||
	    pool_idx >= np->nb_addrs)
		return false;
	b = block_of_port(bk, np, pool_idx, port);
	return b != NULL && b->state == NAT_BLOCK_OWNED && b->in_addr == in_addr;
}

void
nat_block_due(struct fx_nat *nt, struct nat_block *b, uint64_t at)
{
	RTE_ASSERT(b->state == NAT_BLOCK_OWNED);
	b->id = 0;
	if (b->live == 0 && b->held == 0)
		block_free(nt, b, RTE_MIN(b->until, at));
	else if (b->live == 0)   /* it waits: its last held tuple releases it */
		b->until = RTE_MIN(b->until, at);
	/* else its last live mapping files it again (block_idle()) */
}

/* ---- the recount ---- */

static int
check_block(const struct nat_blocks *bk, const struct nat_ports *np,
	    const struct nat_block *b)
{
	const struct nat_port_unit *u;
	uint32_t live = 0, held = 0, busy, k;
	unsigned int pc;

	for (pc = 0; pc < NAT_PROTO_MAX; pc++) {
		busy = 0;
		for (k = 0; k < bk->size; k++) {
			u = nat_ports_unit(np, b->pool_idx, pc,
					   (uint16_t)(b->first + k));
			live += u->live;
			held += u->held;
			busy += u->live != 0 || u->held != 0;
		}
		if (busy != b->busy[pc])
			return -EFAULT;
	}
	if (live != b->live || held != b->held)
		return -EFAULT;
	if (b->state == NAT_BLOCK_FREE)
		return live == 0 && held == 0 && b->id == 0 ? 0 : -EFAULT;
	/* an owned block with a live mapping is on the wheel unless it waits */
	return b->live != 0 && b->until != NAT_BLOCK_BUSY ? -EFAULT : 0;
}

static int
check_hosts(const struct nat_blocks *bk)
{
	const struct nat_block_host *h;
	const struct nat_block *b;
	uint32_t s, i, n, total = 0;

	for (s = 0; s <= bk->host_mask; s++) {
		h = &bk->host[s];
		if (h->count == 0)
			continue;
		for (n = 0, i = h->head; i != NAT_BLOCK_NIL && n <= h->count;
		     i = b->next, n++) {
			b = &bk->blk[i];
			if (b->state != NAT_BLOCK_OWNED || b->in_addr != h->in_addr)
				return -EFAULT;
		}
		if (n != h->count)
			return -EFAULT;
		total += n;
	}
	return total == bk->nb_owned ? 0 : -EFAULT;
}

int
nat_blocks_check(const struct nat_blocks *bk, const struct nat_ports *np)
{
	uint32_t a, k, j, owned = 0, nb_free = 0;

	if (!nat_blocks_on(bk))
		return 0;
	for (k = 0; k < bk->nb; k++) {
		if (check_block(bk, np, &bk->blk[k]) != 0)
			return -EFAULT;
		owned += bk->blk[k].state == NAT_BLOCK_OWNED;
	}
	for (a = 0; a < np->nb_addrs; a++) {
		for (k = 0; k < bk->free_n[a]; k++) {
			j = bk->free_j[a * bk->per_addr + k];
			if (j >= bk->per_addr || bk->free_pos[a * bk->per_addr + j] != k ||
			    bk->blk[a * bk->per_addr + j].state != NAT_BLOCK_FREE)
				return -EFAULT;
		}
		nb_free += bk->free_n[a];
	}
	if (owned != bk->nb_owned || nb_free != bk->nb - owned)
		return -EFAULT;
	return check_hosts(bk);
}
