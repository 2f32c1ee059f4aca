/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The gateway's own addresses and its neighbour settings, from the
 * command line (l3/neigh_conf.c), read-only once the workers run:
 *   --port-addr PORT,ADDR/LEN   an address of a port and its connected
 *                               subnet (repeat; IPv4 and IPv6). A port
 *                               with an address answers ARP, neighbour
 *                               solicitations and ICMP echo for it,
 *                               resolves its next hops and on-link
 *                               destinations (unless --eth-dest names
 *                               the port), and drops what no route
 *                               covers. An IPv6 port also gets its EUI-64
 *                               link-local address (fe80::/64);
 *   --neigh PORT,ADDR,MAC       a permanent neighbour;
 *   --neigh-reachable-ms, -retrans-ms, -delay-ms, -stale-ms, --neigh-probes
 *                               the neighbour times (l3/neigh_fsm.h),
 *                               plain numbers the option table sets
 *                               (boot/args_table.c);
 *   --icmp-rate RATE[,BURST]    the token buckets of the echo replies and
 *                               of the time-exceeded messages, each.
 * The checks that need the routes and --eth-dest: a route's next hop on
 * a connected subnet of its port, a resolving port with an address of
 * every family routed to it (neigh_conf_check_route()).
 */

#ifndef _FX_NEIGH_CONF_H_
#define _FX_NEIGH_CONF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"

#define FX_PORT_ADDRS_MAX 64      /**< --port-addr in all */
#define FX_STATIC_NEIGH_MAX 64    /**< --neigh in all */

#define FX_NEIGH_REACHABLE_MS 30000u
#define FX_NEIGH_RETRANS_MS 1000u
#define FX_NEIGH_DELAY_MS 5000u
#define FX_NEIGH_STALE_MS 60000u
#define FX_NEIGH_PROBES 3u
#define FX_NEIGH_MS_MAX 3600000u   /**< --neigh-*-ms at most */
#define FX_NEIGH_PROBES_MAX 10u    /**< --neigh-probes at most */
#define FX_ICMP_RATE 1000u
#define FX_ICMP_BURST 50u

/** One --port-addr: the address itself and its prefix length. */
struct fx_port_addr {
	uint8_t addr[16];    /**< IPv4 in the first 4 bytes */
	uint8_t family;      /**< FX_FAMILY_V4 or FX_FAMILY_V6 */
	uint8_t len;
	uint16_t port;
};

/** One --neigh. */
struct fx_static_neigh {
	uint8_t addr[16];
	uint8_t mac[6];
	uint8_t family;
	uint16_t port;
};

struct fx_neigh_conf {
	struct fx_port_addr addr[FX_PORT_ADDRS_MAX];
	uint32_t nb_addr;
	struct fx_static_neigh st[FX_STATIC_NEIGH_MAX];
	uint32_t nb_static;
	uint32_t reachable_ms, retrans_ms, delay_ms, stale_ms, probes;
	uint32_t icmp_rate, icmp_burst;
	uint32_t ports;      /**< ports with an address (a mask) */
	uint32_t ports6;     /**< of them, ports with an IPv6 address */
};

extern struct fx_neigh_conf fx_neigh_conf;

void neigh_conf_defaults(struct fx_neigh_conf *c);

/** --port-addr PORT,ADDR/LEN. 0 or -EINVAL with the reason in err. */
int neigh_conf_port_addr(struct fx_neigh_conf *c, const char *s, char *err, size_t len);
/** --neigh PORT,ADDR,MAC */
int neigh_conf_static(struct fx_neigh_conf *c, const char *s, char *err, size_t len);
/** --icmp-rate RATE[,BURST] */
int neigh_conf_icmp_rate(struct fx_neigh_conf *c, const char *s, char *err, size_t len);

/**
 * After the command line: every address's port in the portmask, no
 * address given twice, each permanent neighbour on a connected subnet of
 * its port. 0 or -EINVAL with the reason in err.
 */
int neigh_conf_check(const struct fx_neigh_conf *c, uint32_t portmask,
		     char *err, size_t len);

/**
 * A route on the ports' addresses: a next hop must be a unicast address
 * on a connected subnet of its port (unless --eth-dest names the port:
 * then the next hop is not resolved), and a resolving port needs an
 * address of the route's family. 0, or -EHOSTUNREACH / -EINVAL with the
 * reason in err.
 */
int neigh_conf_check_route(const struct fx_neigh_conf *c, const struct fx_route_rule *r,
			   uint32_t eth_dest_given, char *err, size_t len);

/** Whether addr (family) is on a connected subnet of port (fe80::/64 too). */
bool neigh_conf_connected(const struct fx_neigh_conf *c, uint16_t port,
			  uint8_t family, const uint8_t *addr);

/** Whether port has an address of family. */
bool neigh_conf_has_family(const struct fx_neigh_conf *c, uint16_t port, uint8_t family);

#endif /* _FX_NEIGH_CONF_H_ */
