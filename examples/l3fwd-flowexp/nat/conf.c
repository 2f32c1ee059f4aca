/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT configuration (nat/conf.h): the parsers of the structured --nat-*
 * values (prefixes, the port range), each value in full, and the checks:
 * each combination that cannot work refused with the reason. The plain
 * numbers and choices are set by the option table (boot/args_table.c).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "nat/block.h"
#include "nat/conf.h"

struct nat_conf fx_nat_conf;

void
nat_conf_defaults(struct nat_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->port_lo = NAT_PORT_LO_DEFAULT;
	c->port_hi = NAT_PORT_HI_DEFAULT;
	c->holddown_s = NAT_HOLDDOWN_DEFAULT;
	c->max_per_host = NAT_MAX_PER_HOST_DEFAULT;
	c->max_per_dest = NAT_MAX_PER_DEST_AUTO;
	c->max_blocks_per_host = NAT_BLOCKS_PER_HOST_DEFAULT;
}

static int
parse_prefix(const char *s, struct nat_prefix *p, char *err, size_t len)
{
	char buf[INET_ADDRSTRLEN + 4], *slash, *end;
	struct in_addr a;
	unsigned long v;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "'%s' is not an IPv4 prefix A.B.C.D/LEN", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL) {
		snprintf(err, len, "'%s': expected A.B.C.D/LEN", s);
		return -EINVAL;
	}
	*slash++ = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(err, len, "'%s': '%s' is not an IPv4 address", s, buf);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(slash, &end, 10);
	if (errno != 0 || end == slash || *end != '\0' || v > 32) {
		snprintf(err, len, "'%s': bad prefix length '%s'", s, slash);
		return -EINVAL;
	}
	p->mask = v == 0 ? 0 : ~UINT32_C(0) << (32 - v);
	p->addr = rte_be_to_cpu_32(a.s_addr) & p->mask;
	if (p->addr != rte_be_to_cpu_32(a.s_addr)) {
		struct in_addr n = { .s_addr = rte_cpu_to_be_32(p->addr) };
		char net[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &n, net, sizeof(net));
		snprintf(err, len, "'%s': host bits set after /%lu: the prefix is %s/%lu",
			 s, v, net, v);
		return -EINVAL;
	}
	return 0;
}

static bool
prefixes_overlap(const struct nat_prefix *a, const struct nat_prefix *b)
{
	uint32_t m = a->mask & b->mask;

	return (a->addr & m) == (b->addr & m);
}

int
nat_conf_add_pool(struct nat_conf *c, const char *s, char *err, size_t len)
{
	struct nat_prefix p;
	uint64_t n, i;
	uint32_t j;

	if (parse_prefix(s, &p, err, len) != 0)
		return -EINVAL;
	if (c->nb_pool_pfx == NAT_PREFIXES_MAX) {
		snprintf(err, len, "--nat-pool %s: at most %u prefixes", s, NAT_PREFIXES_MAX);
		return -EINVAL;
	}
	for (j = 0; j < c->nb_pool_pfx; j++) {
		if (prefixes_overlap(&p, &c->pool_pfx[j])) {
			snprintf(err, len, "--nat-pool %s overlaps an earlier --nat-pool", s);
			return -EINVAL;
		}
	}
	n = (uint64_t)(~p.mask) + 1;
	if (c->nb_pool + n > NAT_POOL_ADDRS_MAX) {
		snprintf(err, len, "--nat-pool %s: the pool may hold at most %u addresses",
			 s, NAT_POOL_ADDRS_MAX);
		return -EINVAL;
	}
	c->pool_first[c->nb_pool_pfx] = c->nb_pool;
	for (i = 0; i < n; i++)
		c->pool[c->nb_pool++] = rte_cpu_to_be_32(p.addr + (uint32_t)i);
	c->pool_pfx[c->nb_pool_pfx++] = p;
	c->pool_rcp = rte_reciprocal_value(c->nb_pool);
	c->enabled = true;
	return 0;
}

int
nat_conf_add_inside(struct nat_conf *c, const char *s, char *err, size_t len)
{
	struct nat_prefix p;

	if (parse_prefix(s, &p, err, len) != 0)
		return -EINVAL;
	if (c->nb_inside == NAT_PREFIXES_MAX) {
		snprintf(err, len, "--nat-inside %s: at most %u prefixes", s, NAT_PREFIXES_MAX);
		return -EINVAL;
	}
	c->inside[c->nb_inside++] = p;
	return 0;
}

int
nat_conf_ports(struct nat_conf *c, const char *s, char *err, size_t len)
{
	unsigned long lo, hi;
	char *end, *end2;

	errno = 0;
	lo = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '-') {
		snprintf(err, len, "--nat-ports '%s': expected LO-HI", s);
		return -EINVAL;
	}
	hi = strtoul(end + 1, &end2, 10);
	if (errno != 0 || end2 == end + 1 || *end2 != '\0') {
		snprintf(err, len, "--nat-ports '%s': expected LO-HI", s);
		return -EINVAL;
	}
	if (lo < 1 || hi > 65535 || lo > hi) {
		snprintf(err, len, "--nat-ports '%s': need 1 <= LO <= HI <= 65535", s);
		return -EINVAL;
	}
	c->port_lo = (uint16_t)lo;
	c->port_hi = (uint16_t)hi;
	c->ports_given = true;
	return 0;
}

int
nat_conf_check_roles(const struct nat_conf *c, uint32_t portmask, char *err,
		     size_t len)
{
	uint32_t stray = c->outside_mask & ~portmask;

	if (!c->enabled) {
		if (c->outside_mask != 0 || c->quota_given) {
			snprintf(err, len, "--nat-outside, --nat-max-per-host and "
				 "--nat-max-per-dest need --nat-pool");
			return -EINVAL;
		}
		return 0;
	}
	if (stray != 0) {
		snprintf(err, len, "--nat-outside %u: port %u is not in the portmask (-p)",
			 (unsigned int)__builtin_ctz(stray), (unsigned int)__builtin_ctz(stray));
		return -EINVAL;
	}
	if (c->outside_mask != 0 && c->outside_mask == portmask) {
		snprintf(err, len, "--nat-outside: every port of -p is outside; "
			 "masquerade needs at least one inside port");
		return -EINVAL;
	}
	if (c->outside_mask == 0 && __builtin_popcount(portmask) > 1) {
		snprintf(err, len, "--nat-pool on %d ports needs --nat-outside PORT for the "
			 "ports that face the internet: without roles a packet's receive port "
			 "cannot be checked against its addresses", __builtin_popcount(portmask));
		return -EINVAL;
	}
	return 0;
}

int
nat_conf_check(const struct nat_conf *c, unsigned int nb_workers, char *err,
	       size_t len)
{
	uint32_t i, j;

	if (!c->enabled) {
		if (c->nb_inside != 0 || c->ports_given || c->holddown_given ||
		    c->mapping != NAT_MAP_EDM || c->filtering != NAT_FILTER_APDF ||
		    c->port_block != 0 || c->max_blocks_given) {
			snprintf(err, len, "--nat-inside, --nat-ports, --nat-holddown, --nat-mapping, "
				 "--nat-filtering, --nat-port-block and --nat-max-blocks-per-host "
				 "need --nat-pool");
			return -EINVAL;
		}
		return 0;
	}
	if (c->max_blocks_given && c->port_block == 0) {
		snprintf(err, len, "--nat-max-blocks-per-host needs --nat-port-block");
		return -EINVAL;
	}
	if (c->nb_inside == 0) {
		snprintf(err, len, "--nat-pool needs at least one --nat-inside");
		return -EINVAL;
	}
	for (i = 0; i < c->nb_inside; i++)
		for (j = 0; j < c->nb_pool_pfx; j++)
			if (prefixes_overlap(&c->inside[i], &c->pool_pfx[j])) {
				snprintf(err, len, "an --nat-inside prefix overlaps the --nat-pool");
				return -EINVAL;
			}
	if (c->filtering != NAT_FILTER_APDF && c->mapping != NAT_MAP_EIM) {
		/* overlapped ports: an inbound packet from a new remote
		 * names no one inside host */
		snprintf(err, len, "--nat-filtering adf and eif need --nat-mapping eim");
		return -EINVAL;
	}
	if ((unsigned int)c->port_hi - c->port_lo + 1 < nb_workers) {
		snprintf(err, len, "--nat-ports %u-%u: fewer ports than the %u workers",
			 c->port_lo, c->port_hi, nb_workers);
		return -EINVAL;
	}
	/* the smallest share (nat_ports_share()) holds one block at least */
	if (c->port_block > ((unsigned int)c->port_hi - c->port_lo + 1) / nb_workers) {
		snprintf(err, len, "--nat-port-block %u: larger than a worker's share "
			 "of --nat-ports %u-%u (%u ports for each of %u workers)",
			 c->port_block, c->port_lo, c->port_hi,
			 ((unsigned int)c->port_hi - c->port_lo + 1) / nb_workers,
			 nb_workers);
		return -EINVAL;
	}
	return 0;
}
