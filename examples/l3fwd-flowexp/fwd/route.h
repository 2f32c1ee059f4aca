/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The route lookup, as the workers do it: which next hop (fwd/neigh.h,
 * FX_NEXTHOP_*) a packet leaves by, from its destination address.
 *
 * --lookup lpm looks up rte_lpm and rte_lpm6 (longest prefix); --lookup em
 * an exact-match rte_hash per family (host routes). As in l3fwd, an
 * address no rule covers, or a rule for a port not in the portmask, sends
 * the packet back out of the port it came in on; on a port with addresses
 * (--port-addr) a packet no rule covers is dropped (no_route), as a
 * router does.
 *
 * The table is built and replaced by the main lcore (l3/route.h), never
 * modified while the workers read it: a new one is published with one
 * release store, and the old one freed after every worker has passed a
 * quiescent state on fx_route_rcu (once per loop iteration). A worker
 * loads the pointer once per burst (acquire) and takes no lock.
 */

#ifndef _FX_FWD_ROUTE_H_
#define _FX_FWD_ROUTE_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>

#include "base/atomic.h"
#include "base/compat.h"
#include "base/config.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"

struct fx_route_table {
	enum fx_lookup lookup;
	struct rte_lpm *lpm;
	struct rte_lpm6 *lpm6;
	struct rte_hash *em4;
	struct rte_hash *em6;
	uint32_t portmask;
};

extern struct fx_route_table *fx_route_cur;
extern struct rte_rcu_qsbr *fx_route_rcu;

/** The table to use for this burst. Workers. */
static inline const struct fx_route_table *
fx_route_get(void)
{
	/* pairs with fx_route_change()'s release: the table is whole */
	return fx_load_acquire(&fx_route_cur);
}

/** A worker is between bursts and holds no table pointer. */
static inline void
fx_route_quiescent(unsigned int worker_idx)
{
	rte_rcu_qsbr_quiescent(fx_route_rcu, worker_idx);
}

/**
 * Next hop (fwd/neigh.h: a port, a next hop, or FX_NEXTHOP_NONE) for a packet
 * towards endpoint `ep` of key k, arriving on in_port.
 */
static inline uint16_t
fx_route_lookup(const struct fx_route_table *rt, const struct fx_key *k,
		unsigned int ep, uint16_t in_port)
{
	const uint8_t *a = k->addr[ep];
	uint32_t nh, ip;
	void *data;
	int rc;

	if (k->family == FX_FAMILY_V4) {
		if (rt->lookup == FX_LOOKUP_LPM) {
			memcpy(&ip, a, 4);
			rc = rte_lpm_lookup(rt->lpm, rte_be_to_cpu_32(ip), &nh);
		} else {
			rc = rte_hash_lookup_data(rt->em4, a, &data);
			nh = (uint32_t)(uintptr_t)data;
		}
	} else {
		if (rt->lookup == FX_LOOKUP_LPM) {
			rc = fx_lpm6_lookup(rt->lpm6, a, &nh);
		} else {
			rc = rte_hash_lookup_data(rt->em6, a, &data);
			nh = (uint32_t)(uintptr_t)data;
		}
	}
	if (unlikely(rc < 0))
		return fx_l3.local[in_port] ? FX_NEXTHOP_NONE : in_port;
	if (nh >= FX_NEXTHOP_NONE || !(rt->portmask & (1u << fx_nexthop_port((uint16_t)nh))))
		return in_port;
	return (uint16_t)nh;
}

/** The output port a lookup means (FX_PORT_NONE: none). */
static inline uint16_t
fx_route_port(const struct fx_route_table *rt, const struct fx_key *k,
	      unsigned int ep, uint16_t in_port)
{
	return fx_nexthop_port(fx_route_lookup(rt, k, ep, in_port));
}

#endif /* _FX_FWD_ROUTE_H_ */
