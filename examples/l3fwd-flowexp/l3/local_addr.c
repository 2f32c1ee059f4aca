/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The gateway's own addresses (--port-addr), per port, as the main lcore
 * uses them: whether an address is the port's, which of the port's to
 * speak from to a peer (one on the peer's subnet, else the first IPv4
 * one, or the link-local IPv6 one, which goes last), whether an address
 * is a connected subnet's network or broadcast address, and the
 * gratuitous ARP and unsolicited NA that announce them at start.
 *
 * It also writes the workers' copy (fx_l3.local4/6, fwd/neigh.h)
 * before they are launched: every address, with a hint byte per last
 * byte, and for each IPv4 one whether it is also NAT's pool (then NAT
 * takes what the gateway does not answer). A port that answers ARP for
 * the pool (NAT on, and the port outside or no roles given) announces
 * the pool's addresses too, up to FX_GARP_POOL_MAX.
 *
 * Main lcore only, no atomics: the workers read fx_l3 only after launch.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "base/config.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"
#include "l3/local_addr.h"
#include "l3/main_tx.h"
#include "l3/neigh_conf.h"
#include "l3/neigh_stats.h"
#include "l3/wire.h"
#include "nat/conf.h"

#define FX_GARP_POOL_MAX 64u     /* pool addresses announced per port */

/* the addresses of a port with addresses */
struct port_addrs {
	uint8_t n4, n6;
	uint8_t a4[FX_PORT_ADDRS_MAX][4];
	uint8_t len4[FX_PORT_ADDRS_MAX];
	uint8_t a6[FX_PORT_ADDRS_MAX + 1][16];   /* and the link-local one */
	uint8_t len6[FX_PORT_ADDRS_MAX + 1];
	bool arp_pool;           /* answers ARP for the NAT pool */
};

static struct port_addrs addrs[FX_MAX_PORTS];

/* whether a and b have the same first len bits */
static bool
prefix_contains(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int full = len / 8, rest = len % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool
fx_local_addr_has4(uint16_t port, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n4; i++)
		if (memcmp(addrs[port].a4[i], a, 4) == 0)
			return true;
	return false;
}

bool
fx_local_addr_has6(uint16_t port, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n6; i++)
		if (memcmp(addrs[port].a6[i], a, 16) == 0)
			return true;
	return false;
}

bool
fx_local_addr_answers_pool(uint16_t port)
{
	return addrs[port].arp_pool;
}

const uint8_t *
fx_local_addr_source4(uint16_t port, const uint8_t *peer)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n4; i++)
		if (prefix_contains(addrs[port].a4[i], peer, addrs[port].len4[i]))
			return addrs[port].a4[i];
	return addrs[port].n4 ? addrs[port].a4[0] : NULL;
}

const uint8_t *
fx_local_addr_source6(uint16_t port, const uint8_t *peer)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n6; i++)
		if (prefix_contains(addrs[port].a6[i], peer, addrs[port].len6[i]))
			return addrs[port].a6[i];
	return addrs[port].n6 ? addrs[port].a6[addrs[port].n6 - 1] : NULL;
}

bool
fx_local_addr_subnet_edge4(uint16_t port, const uint8_t *a4)
{
	uint32_t a, n, mask;
	unsigned int i;

	memcpy(&a, a4, 4);
	a = rte_be_to_cpu_32(a);
	for (i = 0; i < addrs[port].n4; i++) {
		if (addrs[port].len4[i] >= 31)
			continue;
		memcpy(&n, addrs[port].a4[i], 4);
		n = rte_be_to_cpu_32(n);
		mask = ~UINT32_C(0) << (32 - addrs[port].len4[i]);
		if ((a & mask) == (n & mask) && ((a & ~mask) == 0 || (a & ~mask) == ~mask))
			return true;
	}
	return false;
}

/* the workers' copy: a is one of the gateway's addresses */
static void
add_local_addr(uint8_t family, const uint8_t *a)
{
	uint32_t a4;

	if (family == FX_FAMILY_V4 && fx_l3.nb_local4 < FX_LOCAL_MAX) {
		memcpy(&a4, a, 4);
		/* what fx_slow_classify() leaves to NAT */
		fx_l3.local4_nat_pool[fx_l3.nb_local4] =
			fx_nat_enabled() && nat_is_pool(&fx_nat_conf, a4);
		fx_l3.local4[fx_l3.nb_local4++] = a4;
		fx_l3.hint4[a[3]] = 1;
	} else if (family == FX_FAMILY_V6 && fx_l3.nb_local6 < FX_LOCAL_MAX) {
		memcpy(fx_l3.local6[fx_l3.nb_local6++], a, 16);
		fx_l3.hint6[a[15]] = 1;
	}
}

void
fx_local_addrs_init(void)
{
	const struct fx_neigh_conf *c = &fx_neigh_conf;
	const struct fx_port_addr *a;
	struct port_addrs *l;
	uint32_t i, p;

	/* NAT's pool is answered for where NAT faces the outside */
	for (p = 0; p < FX_MAX_PORTS; p++)
		addrs[p].arp_pool = fx_l3.local[p] && fx_nat_enabled() &&
			(!nat_roles(&fx_nat_conf) ||
			 nat_is_outside_port(&fx_nat_conf, (uint16_t)p));
	for (i = 0; i < c->nb_addr; i++) {
		a = &c->addr[i];
		l = &addrs[a->port];
		if (a->family == FX_FAMILY_V4) {
			memcpy(l->a4[l->n4], a->addr, 4);
			l->len4[l->n4++] = a->len;
		} else {
			memcpy(l->a6[l->n6], a->addr, 16);
			l->len6[l->n6++] = a->len;
		}
		add_local_addr(a->family, a->addr);
	}
}

void
fx_local_addrs_add_linklocal(void)
{
	struct port_addrs *l;
	unsigned int p;

	for (p = 0; p < FX_MAX_PORTS; p++) {
		l = &addrs[p];
		if (!fx_l3.local[p] || l->n6 == 0)
			continue;
		/* the link-local address goes last (fx_local_addr_source6()) */
		fx_wire_ip6_linklocal(fx_main_tx_mac((uint16_t)p), l->a6[l->n6]);
		l->len6[l->n6] = 64;
		add_local_addr(FX_FAMILY_V6, l->a6[l->n6]);
		l->n6++;
	}
}

/* a gratuitous ARP request for a on port (counted garp_sent) */
static void
announce4(uint16_t port, const uint8_t *a)
{
	static const uint8_t zero[6];
	struct rte_mbuf *m;
	uint8_t *f;

	if ((f = fx_main_frame_alloc(&m, FX_ETH_MIN)) == NULL)
		return;
	fx_wire_arp_build(f, fx_bcast_mac, FX_ARP_REQUEST, fx_main_tx_mac(port), a, zero, a);
	FX_NEIGH_COUNT(port, garp_sent, 1);
	fx_main_tx_send(port, m);
}

void
fx_local_addrs_announce(uint16_t port)
{
	const struct port_addrs *l = &addrs[port];
	struct rte_mbuf *m;
	uint8_t *f, dmac[6];
	unsigned int i;

	for (i = 0; i < l->n4; i++)
		announce4(port, l->a4[i]);
	for (i = 0; l->arp_pool && i < fx_nat_conf.nb_pool && i < FX_GARP_POOL_MAX; i++) {
		const uint8_t *a = (const uint8_t *)&fx_nat_conf.pool[i];

		if (!fx_local_addr_has4(port, a))
			announce4(port, a);
	}
	for (i = 0; i < l->n6; i++) {
		if ((f = fx_main_frame_alloc(&m, FX_ND_FRAME)) == NULL)
			continue;
		fx_wire_ip6_mcast_mac(fx_all_nodes, dmac);
		fx_wire_nd_build(f, FX_ICMP6_NA, dmac, fx_main_tx_mac(port), l->a6[i],
				 fx_all_nodes, l->a6[i], FX_NA_ROUTER | FX_NA_OVERRIDE, true);
		FX_NEIGH_COUNT(port, una_sent, 1);
		fx_main_tx_send(port, m);
	}
	fx_main_tx_flush(port);
}
