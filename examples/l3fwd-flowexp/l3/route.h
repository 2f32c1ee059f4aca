/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Routes as the main lcore keeps them: the rule list, parsed from --route
 * and changed by the control path, and the tables built from it for the
 * workers' lookup (fwd/route.h).
 *
 * Neither rte_lpm nor rte_lpm6 takes a prefix of length 0: a /0 rule is
 * two /1 entries in the table (0/1 and 128/1, ::/1 and 8000::/1), added
 * before every other rule, so that a /1 rule of its own replaces its half.
 *
 * What a lookup gives is a next hop (fwd/route.h): the port for an
 * on-link prefix, or the number of the rule's gateway (FX_NEXTHOP_GW0 on),
 * given the first time a rule names that gateway on that port and kept
 * for the run, with the neighbour entry it resolves through
 * (fx_neigh_pin()). The next hop's port and entry are written before the
 * first table that holds it is published, so the release store that
 * publishes the table covers them too. A port whose MAC --eth-dest fixes
 * has no gateways: its rules give the port.
 *
 * A route change never modifies a table the workers read: the main lcore
 * builds a new table from the changed rule list, publishes it with one
 * release store, waits with rte_rcu_qsbr until every worker has passed a
 * quiescent state (once per loop iteration) and only then frees the old
 * one.
 */

#ifndef _FX_ROUTE_H_
#define _FX_ROUTE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "base/config.h"
#include "fwd/parse.h"
#include "fwd/route.h"
#include "l3/route_rule.h"
#include "l3/neigh.h"

/** Bytes of one route table (the live one; a change builds a second). */
size_t fx_route_table_bytes(enum fx_lookup lookup);

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
