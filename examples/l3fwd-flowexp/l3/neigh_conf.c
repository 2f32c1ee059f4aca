/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The gateway's addresses and neighbour options (l3/neigh_conf.h): parsers
 * that check every value completely and name what is wrong, and the
 * start-up checks against the portmask, the routes and --eth-dest.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "fwd/parse.h"
#include "l3/neigh_conf.h"
#include "l3/route_rule.h"

#define ICMP_RATE_MAX 1000000u

struct fx_neigh_conf fx_neigh_conf;

void
neigh_conf_defaults(struct fx_neigh_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->reachable_ms = FX_NEIGH_REACHABLE_MS;
	c->retrans_ms = FX_NEIGH_RETRANS_MS;
	c->delay_ms = FX_NEIGH_DELAY_MS;
	c->stale_ms = FX_NEIGH_STALE_MS;
	c->probes = FX_NEIGH_PROBES;
	c->icmp_rate = FX_ICMP_RATE;
	c->icmp_burst = FX_ICMP_BURST;
}

static int
number(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno != 0 || *end != '\0' || *v < min || *v > max ? -1 : 0;
}

static int
parse_port(const char *s, uint16_t *port)
{
	unsigned long v;

	if (number(s, 0, FX_MAX_PORTS - 1, &v) != 0)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* an address of either family into addr (16 bytes), its family */
static int
parse_addr(const char *s, uint8_t *addr, uint8_t *family)
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = FX_FAMILY_V4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = FX_FAMILY_V6;
		return 0;
	}
	return -1;
}

/* a host address a port may have or reach: not zero, loopback, group */
static bool
unicast(const uint8_t *a, uint8_t family)
{
	static const uint8_t zero[16];
	static const uint8_t lo6[16] = { [15] = 1 };

	if (family == FX_FAMILY_V4)
		return a[0] != 0 && a[0] != 127 && a[0] < 224;
	return memcmp(a, zero, 16) != 0 && memcmp(a, lo6, 16) != 0 && a[0] != 0xff;
}

static void
fmt_addr(const uint8_t *a, uint8_t family, char *buf, size_t len)
{
	inet_ntop(family == FX_FAMILY_V4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len);
}

int
neigh_conf_port_addr(struct fx_neigh_conf *c, const char *s, char *err, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 16], *comma, *slash;
	struct fx_port_addr pa;
	unsigned long v;

	memset(&pa, 0, sizeof(pa));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "--port-addr '%.40s...': too long", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	comma = strchr(buf, ',');
	slash = comma ? strchr(comma, '/') : NULL;
	if (comma == NULL || slash == NULL) {
		snprintf(err, len, "--port-addr '%s': expected PORT,ADDRESS/LENGTH", s);
		return -EINVAL;
	}
	*comma++ = '\0';
	*slash++ = '\0';
	if (parse_port(buf, &pa.port) != 0) {
		snprintf(err, len, "--port-addr '%s': bad port '%s' (0..%u)", s, buf,
			 FX_MAX_PORTS - 1);
		return -EINVAL;
	}
	if (parse_addr(comma, pa.addr, &pa.family) != 0) {
		snprintf(err, len, "--port-addr '%s': '%s' is not an IPv4 or IPv6 address", s, comma);
		return -EINVAL;
	}
	if (number(slash, 1, pa.family == FX_FAMILY_V4 ? 31 : 127, &v) != 0) {
		snprintf(err, len, "--port-addr '%s': bad prefix length '%s' (1..%u: a subnet "
			 "with room for a neighbour)", s, slash, pa.family == FX_FAMILY_V4 ? 31 : 127);
		return -EINVAL;
	}
	pa.len = (uint8_t)v;
	if (!unicast(pa.addr, pa.family) ||
	    (pa.family == FX_FAMILY_V6 && pa.addr[0] == 0xfe && (pa.addr[1] & 0xc0) == 0x80)) {
		snprintf(err, len, "--port-addr '%s': not a unicast host address%s", s,
			 pa.family == FX_FAMILY_V6 ? " (the link-local one is made from the MAC)" : "");
		return -EINVAL;
	}
	if (c->nb_addr == FX_PORT_ADDRS_MAX) {
		snprintf(err, len, "--port-addr: more than %u addresses", FX_PORT_ADDRS_MAX);
		return -EINVAL;
	}
	c->addr[c->nb_addr++] = pa;
	c->ports |= UINT32_C(1) << pa.port;
	if (pa.family == FX_FAMILY_V6)
		c->ports6 |= UINT32_C(1) << pa.port;
	return 0;
}

int
neigh_conf_static(struct fx_neigh_conf *c, const char *s, char *err, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 40], *a, *m;
	struct fx_static_neigh sn;
	struct rte_ether_addr mac;

	memset(&sn, 0, sizeof(sn));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "--neigh '%.40s...': too long", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	a = strchr(buf, ',');
	m = a ? strchr(a + 1, ',') : NULL;
	if (a == NULL || m == NULL) {
		snprintf(err, len, "--neigh '%s': expected PORT,ADDRESS,MAC", s);
		return -EINVAL;
	}
	*a++ = '\0';
	*m++ = '\0';
	if (parse_port(buf, &sn.port) != 0) {
		snprintf(err, len, "--neigh '%s': bad port '%s' (0..%u)", s, buf,
			 FX_MAX_PORTS - 1);
		return -EINVAL;
	}
	if (parse_addr(a, sn.addr, &sn.family) != 0 || !unicast(sn.addr, sn.family)) {
		snprintf(err, len, "--neigh '%s': '%s' is not a unicast IPv4 or IPv6 address", s, a);
		return -EINVAL;
	}
	if (rte_ether_unformat_addr(m, &mac) != 0 || !rte_is_unicast_ether_addr(&mac) ||
	    rte_is_zero_ether_addr(&mac)) {
		snprintf(err, len, "--neigh '%s': '%s' is not a unicast MAC address", s, m);
		return -EINVAL;
	}
	memcpy(sn.mac, mac.addr_bytes, 6);
	if (c->nb_static == FX_STATIC_NEIGH_MAX) {
		snprintf(err, len, "--neigh: more than %u neighbours", FX_STATIC_NEIGH_MAX);
		return -EINVAL;
	}
	c->st[c->nb_static++] = sn;
	return 0;
}

int
neigh_conf_icmp_rate(struct fx_neigh_conf *c, const char *s, char *err, size_t len)
{
	char buf[32], *comma;
	unsigned long r, b;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (comma != NULL)
		*comma++ = '\0';
	if (number(buf, 1, ICMP_RATE_MAX, &r) != 0)
		goto bad;
	b = r < FX_ICMP_BURST ? r : FX_ICMP_BURST;
	if (comma != NULL && number(comma, 1, ICMP_RATE_MAX, &b) != 0)
		goto bad;
	c->icmp_rate = (uint32_t)r;
	c->icmp_burst = (uint32_t)b;
	return 0;
bad:
	snprintf(err, len, "--icmp-rate '%s': expected RATE[,BURST], messages per second "
		 "1..%u and a burst 1..%u", s, ICMP_RATE_MAX, ICMP_RATE_MAX);
	return -EINVAL;
}

/* whether a and b (family) agree in their first len bits */
static bool
same_prefix(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int full = len / 8, rest = len % 8;
	uint8_t mask;

	if (memcmp(a, b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == (b[full] & mask);
}

bool
neigh_conf_has_family(const struct fx_neigh_conf *c, uint16_t port, uint8_t family)
{
	uint32_t i;

	for (i = 0; i < c->nb_addr; i++)
		if (c->addr[i].port == port && c->addr[i].family == family)
			return true;
	return false;
}

bool
neigh_conf_connected(const struct fx_neigh_conf *c, uint16_t port, uint8_t family,
		     const uint8_t *addr)
{
	static const uint8_t ll[8] = { 0xfe, 0x80 };
	uint32_t i;

	if (family == FX_FAMILY_V6 && (c->ports6 >> port & 1) && memcmp(addr, ll, 8) == 0)
		return true;
	for (i = 0; i < c->nb_addr; i++)
		if (c->addr[i].port == port && c->addr[i].family == family &&
		    same_prefix(c->addr[i].addr, addr, c->addr[i].len))
			return true;
	return false;
}

int
neigh_conf_check(const struct fx_neigh_conf *c, uint32_t portmask, char *err, size_t len)
{
	const struct fx_port_addr *a, *b;
	const struct fx_static_neigh *sn;
	char text[INET6_ADDRSTRLEN];
	uint32_t i, j;

	for (i = 0; i < c->nb_addr; i++) {
		a = &c->addr[i];
		fmt_addr(a->addr, a->family, text, sizeof(text));
		if (!(portmask >> a->port & 1)) {
			snprintf(err, len, "--port-addr %u,%s/%u: port %u is not in the portmask",
				 a->port, text, a->len, a->port);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			b = &c->addr[j];
			if (b->family == a->family && memcmp(b->addr, a->addr, 16) == 0) {
				snprintf(err, len, "--port-addr %u,%s/%u: %s is already an address "
					 "of port %u", a->port, text, a->len, text, b->port);
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < c->nb_static; i++) {
		sn = &c->st[i];
		fmt_addr(sn->addr, sn->family, text, sizeof(text));
		if (!(c->ports >> sn->port & 1)) {
			snprintf(err, len, "--neigh %u,%s: port %u has no --port-addr",
				 sn->port, text, sn->port);
			return -EINVAL;
		}
		if (!neigh_conf_connected(c, sn->port, sn->family, sn->addr)) {
			snprintf(err, len, "--neigh %u,%s: not on a connected subnet of port %u "
				 "(its --port-addr)", sn->port, text, sn->port);
			return -EINVAL;
		}
		for (j = 0; j < i; j++)
			if (c->st[j].port == sn->port && c->st[j].family == sn->family &&
			    memcmp(c->st[j].addr, sn->addr, 16) == 0) {
				snprintf(err, len, "--neigh %u,%s: given twice", sn->port, text);
				return -EINVAL;
			}
	}
	return 0;
}

int
neigh_conf_check_route(const struct fx_neigh_conf *c, const struct fx_route_rule *r,
		       uint32_t eth_dest_given, char *err, size_t len)
{
	const char *fam = r->family == FX_FAMILY_V4 ? "IPv4" : "IPv6";
	char text[FX_ROUTE_TEXT], gw[INET6_ADDRSTRLEN];

	fx_route_format(r, true, text, sizeof(text));
	if (r->has_gw && !unicast(r->gw, r->family)) {
		snprintf(err, len, "--route %s: the next hop is not a unicast address", text);
		return -EINVAL;
	}
	if (!(c->ports >> r->port & 1)) {
		if (r->has_gw && !(eth_dest_given >> r->port & 1)) {
			snprintf(err, len, "--route %s: port %u has no address to resolve the next "
				 "hop from; give it one (--port-addr %u,ADDR/LEN) or a fixed "
				 "destination MAC (--eth-dest %u,MAC)", text, r->port, r->port,
				 r->port);
			return -EINVAL;
		}
		return 0;
	}
	if (eth_dest_given >> r->port & 1)
		return 0;   /* --eth-dest: nothing is resolved on this port */
	if (!neigh_conf_has_family(c, r->port, r->family)) {
		snprintf(err, len, "--route %s: port %u has no %s --port-addr to resolve %s "
			 "from", text, r->port, fam,
			 r->has_gw ? "the next hop" : "on-link destinations");
		return -EHOSTUNREACH;
	}
	if (r->has_gw && !neigh_conf_connected(c, r->port, r->family, r->gw)) {
		fmt_addr(r->gw, r->family, gw, sizeof(gw));
		snprintf(err, len, "--route %s: next hop %s is not on a connected subnet of "
			 "port %u (its --port-addr)", text, gw, r->port);
		return -EHOSTUNREACH;
	}
	return 0;
}
