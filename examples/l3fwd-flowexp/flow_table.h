/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Per-lcore flow table: an rte_hash on the symmetric 5-tuple (fx_key) and
 * a slab of struct fx_flow indexed by the position rte_hash gives the key,
 * one cache line per flow.
 *
 * Only the owner lcore changes the table. Keys are compared 8 bytes at a
 * time (fx_key_cmp) instead of by memcmp.
 *
 * Only the owner lcore changes the table. The main lcore reads the slab to
 * find flows for the control path (flush by prefix, route change); for that
 * each flow's id `fid` doubles as a sequence word: a flow is published by
 * writing key and state first and then the non-zero fid with release
 * semantics, and unpublished by storing 0 before the slot can be reused.
 * ft_snapshot() reads fid, the key, and fid again; equal non-zero values
 * mean the key belongs to that fid. Ids are never reused (twheel ids carry
 * a generation, the other back-ends count), so a stale snapshot can only
 * lead to a request the owner recognises as stale. Workers take no lock.
 *
 * Back-ends without twheel's remote ring (rte_timer, scan) receive the
 * control path's delete requests on the table's own ring (main -> owner,
 * single producer, single consumer) and check the fid before deleting.
 */

#ifndef _FX_FLOW_TABLE_H_
#define _FX_FLOW_TABLE_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_ring.h>

#include "parse.h"

/* fx_flow.flags */
#define FX_FLOW_INIT_DIR1 0x01  /**< The first packet came from endpoint 1. */
#define FX_FLOW_REPLIED   0x02  /**< Seen in both directions. */
#define FX_FLOW_FIN       0x04  /**< TCP FIN seen. */
#define FX_FLOW_RST       0x08  /**< TCP RST seen. */
#define FX_FLOW_SYN       0x10  /**< TCP: opened by a SYN. */

/**
 * Timeout classes (flow_state.h): enum, counter name, option, default
 * seconds. The TCP ones are conntrack's states.
 */
#define FX_TMOS(X) \
	X(ONEWAY, "oneway", "timeout-oneway", 5.0) \
	X(TCP_SYN, "tcp_syn", "timeout-tcp-syn", 120.0) \
	X(TCP, "tcp", "timeout-tcp", 7440.0) \
	X(TCP_CLOSE, "tcp_close", "timeout-tcp-close", 240.0) \
	X(TCP_RST, "tcp_rst", "timeout-tcp-rst", 10.0) \
	X(UDP, "udp", "timeout-udp", 300.0) \
	X(ICMP, "icmp", "timeout-icmp", 60.0) \
	X(OTHER, "other", "timeout-other", 600.0)

enum fx_tmo {
#define FX_TMO_ENUM(e, n, o, d) FX_TMO_ ## e,
	FX_TMOS(FX_TMO_ENUM)
#undef FX_TMO_ENUM
	FX_TMO_MAX
};

/** Counter names of the timeout classes. */
extern const char *const fx_tmo_names[FX_TMO_MAX];

/** fx_flow.port[]: route not resolved yet. */
#define FX_PORT_UNKNOWN 0xff

/** One tracked connection; one cache line. */
struct fx_flow {
	uint64_t expire;     /**< TSC deadline; a hit stores now + timeout. */
	uint64_t fid;        /**< Flow id (twheel id or count); 0: slot free. */
	struct fx_key key;   /**< Copy of the hash key. */
	uint32_t sig;        /**< rte_hash signature of key. */
	uint8_t port[2];     /**< Output port by packet direction (cached route). */
	uint8_t flags;       /**< FX_FLOW_*. */
	uint8_t tmo;         /**< Timeout class (enum fx_tmo) of expire. */
} __rte_cache_aligned;

/** A delete request sent to the owner (back-ends without remote cancel). */
struct fx_del_req {
	uint64_t fid;
	uint32_t slot;
	uint32_t pad;
};

/** The hash and slab hold max_flows plus this fraction (1/8) more. */
#define FX_FT_HEADROOM 8u

struct fx_flow_table {
	struct rte_hash *hash;
	struct fx_flow *flows;        /**< capacity entries, by hash position. */
	uint32_t capacity;            /**< slab length: max_flows + headroom */
	struct rte_ring *del_ring;    /**< NULL unless requested at create. */
};

/**
 * Create the hash and the slab for max_flows flows (with headroom, see
 * flow_table.c) and, if del_ring, the request ring; all on socket. name is
 * at most 20 characters. 0 or a negative errno.
 */
int ft_create(struct fx_flow_table *ft, const char *name, uint32_t max_flows,
	      int socket, bool del_ring);
void ft_free(struct fx_flow_table *ft);

/** Slot index of a flow in the slab. */
static inline uint32_t
ft_slot(const struct fx_flow_table *ft, const struct fx_flow *f)
{
	return (uint32_t)(f - ft->flows);
}

/** Make a fully written flow visible to the main lcore. Owner only. */
static inline void
ft_publish(struct fx_flow *f, uint64_t fid)
{
	__atomic_store_n(&f->fid, fid, __ATOMIC_RELEASE);
}

/**
 * First half of removing a flow: unpublish it (fid = 0), so neither the
 * main lcore nor an expiry back-end sees it again. Its key stays in the
 * hash, and its slot taken, until ft_delete_bulk(). Owner only.
 */
static inline void
ft_unpublish(struct fx_flow *f)
{
	__atomic_store_n(&f->fid, 0, __ATOMIC_RELAXED);
	/* a later reuse of the slot must not be seen before fid == 0 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/**
 * Second half: delete n unpublished flows from the hash, which frees their
 * slots. The keys are looked up together first, so the cache misses on
 * their buckets and keys overlap instead of following one another.
 * Owner only; no packet may be processed between the two halves.
 */
void ft_delete_bulk(struct fx_flow_table *ft, struct fx_flow *const *f,
		    unsigned int n);

/**
 * Read a flow's fid and key consistently, from any thread.
 * @return 1 with *fid and *key filled if the slot held a live flow, else 0.
 */
int ft_snapshot(const struct fx_flow *f, uint64_t *fid, struct fx_key *key);

/** Ask the owner to delete flow fid in slot; any one thread. 0 or -ENOBUFS. */
int ft_request_delete(struct fx_flow_table *ft, uint32_t slot, uint64_t fid);

/**
 * Owner: take at most n delete requests; for each one whose flow is still
 * live with that fid, call del(f, arg). Returns requests taken.
 */
unsigned int ft_apply_requests(struct fx_flow_table *ft, unsigned int n,
			       void (*del)(struct fx_flow *f, void *arg),
			       void *arg);

#endif /* _FX_FLOW_TABLE_H_ */
