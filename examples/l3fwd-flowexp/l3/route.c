/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Route rules and tables (see l3/route.h for the replacement protocol).
 *
 * The rule list lives here and belongs to the main lcore: the command line
 * fills it at start-up, the control path changes it later. Every change
 * builds a complete new table (about 130 MiB with lpm: rte_lpm and
 * rte_lpm6 each have a 2^24-entry first level), so for a moment two
 * tables exist. So do the next hops the rules name: each (port, address)
 * gets an next hop the first time (gateway_nexthop()), kept for the run even when
 * no rule names it any more, so a flow that cached it never sees it reused
 * (at most FX_NH_MAX of them).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "l3/route.h"
#include "l3/route_rule.h"

#define FX_LPM_TBL8S 256
#define FX_LPM6_TBL8S 8192


static struct fx_route_rule rules[FX_MAX_ROUTES];
static uint32_t nb_rules;
static uint32_t table_gen;

/* the next hops named so far: next hop FX_NEXTHOP_GW0 + index */
static struct {
	uint8_t gw[16];
	uint8_t family;
	uint16_t port;
} nhs[FX_NH_MAX];
static uint32_t nb_nhs;

size_t
fx_route_table_bytes(enum fx_lookup lookup)
{
	/* rte_lpm and rte_lpm6: a tbl24 of 2^24 4-byte entries each, then
	 * their tbl8 groups of 256 entries; em: two rte_hash of host routes */
	if (lookup == FX_LOOKUP_LPM)
		return ((size_t)4 << 24) + (size_t)FX_LPM_TBL8S * 256 * 4 +
			((size_t)4 << 24) + (size_t)FX_LPM6_TBL8S * (256 * 4 + 12) +
			(size_t)FX_MAX_ROUTES * 64;
	return (size_t)2 * FX_MAX_ROUTES * 256;
}

void
fx_route_defaults(struct fx_config *c)
{
	bool em = c->lookup == FX_LOOKUP_EM, v4, v6;
	char rule[64], err[128];
	unsigned int p;

	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!(c->portmask & (1u << p)))
			continue;
		/* a resolving port only gets the families it has addresses of */
		if (!(c->eth_dest_given >> p & 1) && (fx_neigh_conf.ports >> p & 1)) {
			v4 = neigh_conf_has_family(&fx_neigh_conf, (uint16_t)p, FX_FAMILY_V4);
			v6 = neigh_conf_has_family(&fx_neigh_conf, (uint16_t)p, FX_FAMILY_V6);
		} else {
			v4 = v6 = true;
		}
		snprintf(rule, sizeof(rule), em ? "198.18.%u.1/32,%u" : "198.18.%u.0/24,%u", p, p);
		if (v4 && fx_route_parse(rule, &c->routes[c->nb_routes], true, err, sizeof(err)) == 0)
			c->nb_routes++;
		snprintf(rule, sizeof(rule), em ? "2001:200:0:%x::1/128,%u" : "2001:200:0:%x::/64,%u",
			 p, p);
		if (v6 && fx_route_parse(rule, &c->routes[c->nb_routes], true, err, sizeof(err)) == 0)
			c->nb_routes++;
	}
}

static void
table_free(struct fx_route_table *rt)
{
	if (rt == NULL)
		return;
	rte_lpm_free(rt->lpm);
	rte_lpm6_free(rt->lpm6);
	rte_hash_free(rt->em4);
	rte_hash_free(rt->em6);
	rte_free(rt);
}

static struct rte_hash *
em_create(const char *prefix, uint32_t gen, uint32_t key_len)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = FX_MAX_ROUTES,
		.key_len = key_len,
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "%s_%u", prefix, gen);
	return rte_hash_create(&hp);
}

/*
 * The next hop of rule r: its port, or the id of its next hop (made on
 * first use, with its neighbour entry). -ENOSPC when there is no room.
 */
static int
gateway_nexthop(const struct fx_route_rule *r)
{
	uint32_t i, slot;

	if (!r->has_gw || !fx_l3.resolve[r->port])
		return r->port;
	for (i = 0; i < nb_nhs; i++)
		if (nhs[i].port == r->port && nhs[i].family == r->family &&
		    memcmp(nhs[i].gw, r->gw, 16) == 0)
			return (int)(FX_NEXTHOP_GW0 + i);
	if (nb_nhs == FX_NH_MAX)
		return -ENOSPC;
	slot = fx_neigh_pin(r->port, r->family, r->gw);
	if (slot == 0)
		return -ENOSPC;
	memcpy(nhs[i].gw, r->gw, 16);
	nhs[i].family = r->family;
	nhs[i].port = r->port;
	/* plain stores: the table that first holds this id is published
	 * after them with a release store (fx_route_change()) or before
	 * the workers start (fx_route_init()) */
	fx_l3.nexthop_port[FX_NEXTHOP_GW0 + i] = (uint8_t)r->port;
	fx_l3.nexthop_slot[FX_NEXTHOP_GW0 + i] = (uint16_t)slot;
	nb_nhs++;
	return (int)(FX_NEXTHOP_GW0 + i);
}

/* one entry of the table: addr/depth (depth >= 1) to nexthop */
static int
table_add_one(struct fx_route_table *rt, uint8_t family, const uint8_t *addr,
	      uint8_t depth, uint32_t nexthop)
{
	void *data = (void *)(uintptr_t)nexthop;
	uint32_t ip;

	if (family == FX_FAMILY_V4) {
		if (rt->lookup == FX_LOOKUP_EM)
			return rte_hash_add_key_data(rt->em4, addr, data);
		memcpy(&ip, addr, 4);
		return rte_lpm_add(rt->lpm, rte_be_to_cpu_32(ip), depth, nexthop);
	}
	if (rt->lookup == FX_LOOKUP_EM)
		return rte_hash_add_key_data(rt->em6, addr, data);
	return fx_lpm6_add(rt->lpm6, addr, depth, nexthop);
}

static int
table_add(struct fx_route_table *rt, const struct fx_route_rule *r)
{
	uint8_t half[16] = { 0 };
	int nexthop, rc;

	nexthop = gateway_nexthop(r);
	if (nexthop < 0)
		return nexthop;
	if (r->depth != 0)
		return table_add_one(rt, r->family, r->addr, r->depth, (uint32_t)nexthop);
	/* the default route: both halves of the address space */
	rc = table_add_one(rt, r->family, half, 1, (uint32_t)nexthop);
	if (rc < 0)
		return rc;
	half[0] = 0x80;
	return table_add_one(rt, r->family, half, 1, (uint32_t)nexthop);
}

static struct fx_route_table *
table_build(const struct fx_route_rule *rl, uint32_t n, int *err)
{
	struct rte_lpm_config c4 = {
		.max_rules = FX_MAX_ROUTES, .number_tbl8s = FX_LPM_TBL8S,
	};
	struct rte_lpm6_config c6 = {
		.max_rules = FX_MAX_ROUTES, .number_tbl8s = FX_LPM6_TBL8S,
	};
	struct fx_route_table *rt;
	uint32_t gen = table_gen++, i, pass;
	char name[FX_ROUTE_TEXT];
	int rc;

	*err = -ENOMEM;
	rt = rte_zmalloc("fx_routes", sizeof(*rt), 0);
	if (rt == NULL)
		return NULL;
	rt->lookup = fx_conf.lookup;
	rt->portmask = fx_conf.portmask;
	if (rt->lookup == FX_LOOKUP_LPM) {
		snprintf(name, sizeof(name), "FXR4_%u", gen);
		rt->lpm = rte_lpm_create(name, SOCKET_ID_ANY, &c4);
		snprintf(name, sizeof(name), "FXR6_%u", gen);
		rt->lpm6 = rte_lpm6_create(name, SOCKET_ID_ANY, &c6);
		if (rt->lpm == NULL || rt->lpm6 == NULL)
			goto fail;
	} else {
		rt->em4 = em_create("FXE4", gen, 4);
		rt->em6 = em_create("FXE6", gen, 16);
		if (rt->em4 == NULL || rt->em6 == NULL)
			goto fail;
	}
	/* the /0 rules first: a /1 rule replaces their half */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			if ((rl[i].depth == 0) != (pass == 0))
				continue;
			rc = table_add(rt, &rl[i]);
			if (rc < 0) {
				fx_route_format(&rl[i], true, name, sizeof(name));
				FX_LOG(ERR, "route %s: %s", name, rte_strerror(-rc));
				*err = rc;
				goto fail;
			}
		}
	}
	return rt;
fail:
	table_free(rt);
	return NULL;
}

int
fx_route_init(unsigned int nb_workers)
{
	size_t sz;
	int err;

	memcpy(rules, fx_conf.routes, sizeof(rules[0]) * fx_conf.nb_routes);
	nb_rules = fx_conf.nb_routes;
	fx_route_cur = table_build(rules, nb_rules, &err);
	if (fx_route_cur == NULL)
		return err;
	sz = rte_rcu_qsbr_get_memsize(nb_workers);
	fx_route_rcu = rte_zmalloc("fx_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (fx_route_rcu == NULL || rte_rcu_qsbr_init(fx_route_rcu, nb_workers) != 0) {
		fx_route_fini();
		return -ENOMEM;
	}
	return 0;
}

static int
rule_find(const struct fx_route_rule *rl, uint32_t n,
	  const struct fx_route_rule *r)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (rl[i].family == r->family && rl[i].depth == r->depth &&
		    memcmp(rl[i].addr, r->addr, sizeof(r->addr)) == 0)
			return (int)i;
	return -1;
}

int
fx_route_change(const struct fx_route_rule *r, bool add)
{
	static struct fx_route_rule next[FX_MAX_ROUTES];
	struct fx_route_table *nt, *old;
	uint32_t n = nb_rules;
	uint64_t token;
	char err[256];
	int i, rc;

	if (add && (r->port >= RTE_MAX_ETHPORTS || !(fx_conf.portmask & (1u << r->port))))
		return -EINVAL;
	if (add) {
		rc = neigh_conf_check_route(&fx_neigh_conf, r, fx_conf.eth_dest_given, err,
					    sizeof(err));
		if (rc != 0) {
			FX_LOG(WARNING, "%s", err);
			return rc;
		}
	}
	if (fx_conf.lookup == FX_LOOKUP_EM &&
	    r->depth != (r->family == FX_FAMILY_V4 ? 32 : 128))
		return -EINVAL;
	memcpy(next, rules, sizeof(rules[0]) * n);
	i = rule_find(next, n, r);
	if (add) {
		if (i >= 0) {
			next[i] = *r;
		} else {
			if (n == FX_MAX_ROUTES)
				return -ENOSPC;
			next[n++] = *r;
		}
	} else {
		if (i < 0)
			return -ENOENT;
		next[i] = next[--n];
	}
	nt = table_build(next, n, &rc);
	if (nt == NULL)
		return rc;

	old = fx_route_cur;
	/* pairs with fx_route_get()'s acquire: a worker sees the whole table */
	fx_store_release(&fx_route_cur, nt);
	/* every worker has finished the bursts that could hold `old` */
	token = rte_rcu_qsbr_start(fx_route_rcu);
	while (rte_rcu_qsbr_check(fx_route_rcu, token, false) == 0)
		rte_delay_us_sleep(100);   /* a worker may share this CPU */
	table_free(old);

	memcpy(rules, next, sizeof(rules[0]) * n);
	nb_rules = n;
	return 0;
}

uint32_t
fx_route_list(struct fx_route_rule *out, uint32_t max)
{
	uint32_t n = RTE_MIN(max, nb_rules);

	memcpy(out, rules, sizeof(rules[0]) * n);
	return n;
}

void
fx_route_fini(void)
{
	table_free(fx_route_cur);
	fx_route_cur = NULL;
	rte_free(fx_route_rcu);
	fx_route_rcu = NULL;
}
