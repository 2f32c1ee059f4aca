/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Routing: which port a packet leaves by, from its destination address.
 *
 * --lookup lpm uses rte_lpm and rte_lpm6 (longest prefix); --lookup em an
 * exact-match rte_hash per family (host routes, /32 and /128 only). As in
 * l3fwd, an address no rule covers, or a rule for a port not in the
 * portmask, sends the packet back out of the port it came in on; on a
 * port with addresses (--port-addr) a packet no rule covers is dropped
 * (no_route), as a router does. Neither library takes a prefix of length
 * 0: a /0 rule is two /1 entries in the table (0/1 and 128/1, ::/1 and
 * 8000::/1), added before every other rule, so that a /1 rule of its own
 * replaces its half.
 *
 * What a lookup gives is an next hop (l3/neigh.h): the port for an on-link
 * prefix, or the number of the rule's next hop (FX_NEXTHOP_GW0 on), given the
 * first time a rule names that next hop on that port and kept for the
 * run, with the neighbour entry it resolves through (fx_neigh_pin()). The
 * id's port and entry are written before the first table that holds the
 * id is published, so the release store below covers them too. A port
 * whose MAC --eth-dest fixes has no next hops: its rules give the port.
 *
 * A route change never modifies a table the workers read: the main lcore
 * builds a new table from the changed rule list, publishes it with one
 * release store, waits with rte_rcu_qsbr until every worker has passed a
 * quiescent state (once per loop iteration) and only then frees the old
 * one. Workers load the table pointer once per burst and take no lock.
 */

#ifndef _FX_ROUTE_H_
#define _FX_ROUTE_H_

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
#include "fwd/parse.h"
#include "l3/neigh.h"

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
 * Next hop (l3/neigh.h: a port, a next hop, or FX_NEXTHOP_NONE) for a packet
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

/**
 * Parse "ADDR/LEN" (IPv4 or IPv6), or "ADDR/LEN,PORT[,NEXTHOP]" if
 * with_port; LEN 0 is the default route. An address with bits set after
 * LEN is refused, with the prefix it would have been in the message.
 * @return 0, or -EINVAL with a reason in err.
 */
int fx_route_parse(const char *s, struct fx_route_rule *r, bool with_port,
		   char *err, size_t errlen);

/** Bytes of one route table (the live one; a change builds a second). */
size_t fx_route_table_bytes(enum fx_lookup lookup);

/** Room for fx_route_format(): two IPv6 addresses, a length, a port. */
#define FX_ROUTE_TEXT 112

/** Print a rule as "ADDR/LEN" (and ",PORT[,NEXTHOP]" if with_port) into buf. */
void fx_route_format(const struct fx_route_rule *r, bool with_port,
		     char *buf, size_t len);

/** Whether addr (family) lies inside prefix p. */
bool fx_prefix_match(const struct fx_route_rule *p, const uint8_t *addr,
		     uint8_t family);

/** The default rules when no --route is given (l3fwd's convention). */
void fx_route_defaults(struct fx_config *c);

/** Build the first table from fx_conf.routes and set up RCU. 0 or -errno. */
int fx_route_init(unsigned int nb_workers);

/**
 * Add (or replace) or delete a rule, publish the new table and free the
 * old one after a grace period. Main lcore. 0, -ENOENT (delete of a
 * missing rule), -ENOSPC (no room for the rule, its next hop or its
 * neighbour entry), -EHOSTUNREACH (a next hop off the port's subnets),
 * -EINVAL or -ENOMEM (the old table stays).
 */
int fx_route_change(const struct fx_route_rule *r, bool add);

/** Copy the current rule list (main lcore). Returns the number copied. */
uint32_t fx_route_list(struct fx_route_rule *out, uint32_t max);

/** Free the current table and the RCU variable. After the workers stopped. */
void fx_route_fini(void);

#endif /* _FX_ROUTE_H_ */
