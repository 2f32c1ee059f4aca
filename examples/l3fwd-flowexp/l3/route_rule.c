/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A route rule as text (l3/route_rule.h): parsed from "ADDR/LEN[,PORT
 * [,NEXTHOP]]", printed back, and whether an address lies in its prefix.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l3/route_rule.h"

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

/* "ADDR" of family into a (16 bytes) */
static int
parse_gw(const char *s, uint8_t family, uint8_t *a)
{
	memset(a, 0, 16);
	return inet_pton(family == FX_FAMILY_V4 ? AF_INET : AF_INET6, s, a) == 1 ? 0 : -1;
}

int
fx_route_parse(const char *s, struct fx_route_rule *r, bool with_port,
	       char *err, size_t errlen)
{
	char buf[2 * INET6_ADDRSTRLEN + 24], *slash, *comma = NULL, *gw = NULL, *end;
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
			snprintf(err, errlen, "'%s': expected PREFIX/LEN,PORT[,NEXTHOP]", s);
			return -EINVAL;
		}
		*comma++ = '\0';
		gw = strchr(comma, ',');
		if (gw != NULL)
			*gw++ = '\0';
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
	if (errno || end == slash || *end != '\0' || *slash < '0' || *slash > '9' ||
	    v > (r->family == FX_FAMILY_V4 ? 32u : 128u)) {
		snprintf(err, errlen, "'%s': bad prefix length '%s' (0..%u)", s, slash,
			 r->family == FX_FAMILY_V4 ? 32u : 128u);
		return -EINVAL;
	}
	r->depth = (uint8_t)v;
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
		if (errno || end == comma || *end != '\0' || *comma < '0' || *comma > '9' ||
		    v >= RTE_MAX_ETHPORTS || v >= FX_NEXTHOP_GW0) {
			snprintf(err, errlen, "'%s': bad port '%s'", s, comma);
			return -EINVAL;
		}
		r->port = (uint16_t)v;
		if (gw != NULL) {
			if (parse_gw(gw, r->family, r->gw) != 0) {
				snprintf(err, errlen, "'%s': next hop '%s' is not an %s address", s, gw,
					 r->family == FX_FAMILY_V4 ? "IPv4" : "IPv6");
				return -EINVAL;
			}
			r->has_gw = true;
		}
	}
	return 0;
}

void
fx_route_format(const struct fx_route_rule *r, bool with_port, char *buf,
		size_t len)
{
	int af = r->family == FX_FAMILY_V4 ? AF_INET : AF_INET6;
	char a[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];

	inet_ntop(af, r->addr, a, sizeof(a));
	if (with_port && r->has_gw) {
		inet_ntop(af, r->gw, g, sizeof(g));
		snprintf(buf, len, "%s/%u,%u,%s", a, r->depth, r->port, g);
	} else if (with_port) {
		snprintf(buf, len, "%s/%u,%u", a, r->depth, r->port);
	} else {
		snprintf(buf, len, "%s/%u", a, r->depth);
	}
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
