/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Route rules and tables (see route.h for the replacement protocol).
 *
 * The rule list lives here and belongs to the main lcore: the command line
 * fills it at start-up, the control path changes it later. Every change
 * builds a complete new table (about 130 MiB with lpm: rte_lpm and
 * rte_lpm6 each have a 2^24-entry first level), so for a moment two
 * tables exist.
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

#include "route.h"

#define FX_LPM_TBL8S 256
#define FX_LPM6_TBL8S 8192

struct fx_route_table *fx_route_cur;
struct rte_rcu_qsbr *fx_route_rcu;

static struct fx_route_rule rules[FX_MAX_ROUTES];
static uint32_t nb_rules;
static uint32_t table_gen;

/* clears the host bits; true if any was set */
static bool
mask_prefix(struct fx_route_rule *r)
{
	unsigned int bits = r->family == FX_FAMILY_V4 ? 32 : 128;
	uint8_t old[sizeof(r->addr)];
	unsigned int i;

	memcpy(old, r->addr, sizeof(old));
	for (i = r->depth; i < bits; i++)
		r->addr[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
	return memcmp(old, r->addr, sizeof(old)) != 0;
}

int
fx_route_parse(const char *s, struct fx_route_rule *r, bool with_port,
	       char *err, size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 16], *slash, *comma = NULL, *end;
	unsigned long v;

	memset(r, 0, sizeof(*r));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "'%s' is too long", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	if (with_port) {
		comma = strchr(buf, ',');
		if (comma == NULL) {
			snprintf(err, errlen, "'%s': expected PREFIX/LEN,PORT", s);
			return -EINVAL;
		}
		*comma++ = '\0';
	}
	slash = strchr(buf, '/');
	if (slash == NULL) {
		snprintf(err, errlen, "'%s': expected ADDRESS/LENGTH", s);
		return -EINVAL;
	}
	*slash++ = '\0';
	if (inet_pton(AF_INET, buf, r->addr) == 1) {
		r->family = FX_FAMILY_V4;
	} else if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->family = FX_FAMILY_V6;
	} else {
		snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", buf);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(slash, &end, 10);
	if (errno || end == slash || *end != '\0' ||
	    v > (r->family == FX_FAMILY_V4 ? 32u : 128u) ||
	    (v == 0 && r->family == FX_FAMILY_V6)) {
		snprintf(err, errlen, "'%s': bad prefix length '%s'", s, slash);
		return -EINVAL;
	}
	r->depth = (uint8_t)v;
	if (r->family == FX_FAMILY_V4 && r->depth == 0) {
		/* rte_lpm takes depth 1..32: 0/0 is two /1 rules */
		snprintf(err, errlen, "'%s': use 0.0.0.0/1 and 128.0.0.0/1 for a default route", s);
		return -EINVAL;
	}
	if (mask_prefix(r)) {
		/* a typo in the address or the length: never guess which */
		char a[INET6_ADDRSTRLEN];

		inet_ntop(r->family == FX_FAMILY_V4 ? AF_INET : AF_INET6, r->addr, a, sizeof(a));
		snprintf(err, errlen, "'%s': host bits set after /%u: the prefix is %s/%u",
			 s, r->depth, a, r->depth);
		return -EINVAL;
	}
	if (with_port) {
		errno = 0;
		v = strtoul(comma, &end, 10);
		if (errno || end == comma || *end != '\0' || v >= RTE_MAX_ETHPORTS) {
			snprintf(err, errlen, "'%s': bad port '%s'", s, comma);
			return -EINVAL;
		}
		r->port = (uint16_t)v;
	}
	return 0;
}

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
fx_route_format(const struct fx_route_rule *r, bool with_port, char *buf,
		size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(r->family == FX_FAMILY_V4 ? AF_INET : AF_INET6, r->addr, a,
		  sizeof(a));
	if (with_port)
		snprintf(buf, len, "%s/%u,%u", a, r->depth, r->port);
	else
		snprintf(buf, len, "%s/%u", a, r->depth);
}

bool
fx_prefix_match(const struct fx_route_rule *p, const uint8_t *addr,
		uint8_t family)
{
	unsigned int full = p->depth / 8, rest = p->depth % 8;
	uint8_t mask;

	if (family != p->family)
		return false;
	if (memcmp(p->addr, addr, full) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (uint8_t)(0xff << (8 - rest));
	return (addr[full] & mask) == p->addr[full];
}

void
fx_route_defaults(struct fx_config *c)
{
	bool em = c->lookup == FX_LOOKUP_EM;
	char rule[64], err[128];
	unsigned int p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		if (!(c->portmask & (1u << p)))
			continue;
		snprintf(rule, sizeof(rule), em ? "198.18.%u.1/32,%u" : "198.18.%u.0/24,%u", p, p);
		if (fx_route_parse(rule, &c->routes[c->nb_routes], true, err, sizeof(err)) == 0)
			c->nb_routes++;
		snprintf(rule, sizeof(rule), em ? "2001:200:0:%x::1/128,%u" : "2001:200:0:%x::/64,%u",
			 p, p);
		if (fx_route_parse(rule, &c->routes[c->nb_routes], true, err, sizeof(err)) == 0)
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

static int
table_add(struct fx_route_table *rt, const struct fx_route_rule *r)
{
	void *port = (void *)(uintptr_t)r->port;
	uint32_t ip;

	if (r->family == FX_FAMILY_V4) {
		if (rt->lookup == FX_LOOKUP_EM)
			return rte_hash_add_key_data(rt->em4, r->addr, port);
		memcpy(&ip, r->addr, 4);
		return rte_lpm_add(rt->lpm, rte_be_to_cpu_32(ip), r->depth, r->port);
	}
	if (rt->lookup == FX_LOOKUP_EM)
		return rte_hash_add_key_data(rt->em6, r->addr, port);
	return fx_lpm6_add(rt->lpm6, r->addr, r->depth, r->port);
}

static struct fx_route_table *
table_build(const struct fx_route_rule *rl, uint32_t n)
{
	struct rte_lpm_config c4 = {
		.max_rules = FX_MAX_ROUTES, .number_tbl8s = FX_LPM_TBL8S,
	};
	struct rte_lpm6_config c6 = {
		.max_rules = FX_MAX_ROUTES, .number_tbl8s = FX_LPM6_TBL8S,
	};
	struct fx_route_table *rt;
	uint32_t gen = table_gen++, i;
	char name[64];
	int rc;

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
	for (i = 0; i < n; i++) {
		rc = table_add(rt, &rl[i]);
		if (rc < 0) {
			fx_route_format(&rl[i], true, name, sizeof(name));
			FX_LOG(ERR, "route %s: %s", name, rte_strerror(-rc));
			goto fail;
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

	memcpy(rules, fx_conf.routes, sizeof(rules[0]) * fx_conf.nb_routes);
	nb_rules = fx_conf.nb_routes;
	fx_route_cur = table_build(rules, nb_rules);
	if (fx_route_cur == NULL)
		return -ENOMEM;
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
	int i;

	if (add && (r->port >= RTE_MAX_ETHPORTS || !(fx_conf.portmask & (1u << r->port))))
		return -EINVAL;
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
	nt = table_build(next, n);
	if (nt == NULL)
		return -ENOMEM;

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
