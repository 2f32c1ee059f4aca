/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT configuration: the public pool (--nat-pool), the inside prefixes
 * (--nat-inside), the public port range (--nat-ports), the hold-down
 * (--nat-holddown), the ports that face the internet (--nat-outside),
 * the per-host quotas (--nat-max-per-host, --nat-max-per-dest) and the
 * port blocks (--nat-port-block, --nat-max-blocks-per-host), checked at
 * start-up, read-only afterwards; and the per-packet questions asked of
 * it: is an address inside, is it in the pool, is a port outside, which
 * pool address does an inside host get. nat/classify.c has the rules that
 * use them (doc/nat.md, "Classification").
 *
 * Paired pooling (RFC 4787 REQ-2): the public address of an inside host is
 * the pool address at hash(inside address) % pool size (the keyed hash,
 * base/hash.h), so all its mappings share one public address.
 */

#ifndef _FX_NAT_CONF_H_
#define _FX_NAT_CONF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_reciprocal.h>

#include "base/config.h"
#include "base/hash.h"
#include "nat/ports.h"

#define NAT_PREFIXES_MAX 64
/* seconds: RFC 6888 REQ-8's reuse delay (doc/nat.md, "Cost and sizing") */
#define NAT_HOLDDOWN_DEFAULT 120.0
#define NAT_PORT_LO_DEFAULT 1024
#define NAT_PORT_HI_DEFAULT 65535
/* mappings (live and held) per inside host on one worker */
#define NAT_MAX_PER_HOST_DEFAULT 4096u
#define NAT_MAX_PER_HOST_MAX (1u << 24)
/* --nat-max-per-dest not given: a quarter of the worker's port share */
#define NAT_MAX_PER_DEST_AUTO UINT32_MAX
#define NAT_MAX_PER_DEST_DIVISOR 4u

/** --nat-mapping: how public endpoints are chosen (RFC 4787 section 4.1). */
enum nat_mapping_mode {
	NAT_MAP_EDM,    /**< endpoint-dependent, ports overlapped (default) */
	NAT_MAP_EIM,    /**< endpoint-independent: one public endpoint per inside one */
};

/** --nat-filtering: which inbound packets reach a mapping (RFC 4787 section 5). */
enum nat_filter_mode {
	NAT_FILTER_APDF,   /**< the exact remote endpoint (default) */
	NAT_FILTER_ADF,    /**< a remote address the inside endpoint sent to */
	NAT_FILTER_EIF,    /**< any remote endpoint */
};

/** --nat-steer: public ports chosen for their replies' RSS (nat/steer.h). */
enum nat_steer_mode {
	NAT_STEER_ON,      /**< under --affinity rss, where the ports allow (default) */
	NAT_STEER_OFF,     /**< never: every port of the share, more entropy */
};

/** An IPv4 prefix, host order. */
struct nat_prefix {
	uint32_t addr;
	uint32_t mask;
};

struct nat_conf {
	bool enabled;                              /**< --nat-pool given */
	struct nat_prefix pool_pfx[NAT_PREFIXES_MAX];
	uint32_t pool_first[NAT_PREFIXES_MAX];     /**< pool index of each one's first address */
	uint32_t nb_pool_pfx;
	struct nat_prefix inside[NAT_PREFIXES_MAX];
	uint32_t nb_inside;
	uint32_t pool[NAT_POOL_ADDRS_MAX];         /**< network order */
	uint32_t nb_pool;
	struct rte_reciprocal pool_rcp;            /**< of nb_pool (nat_pool_index()) */
	uint16_t port_lo;
	uint16_t port_hi;
	bool ports_given;                          /**< --nat-ports given */
	double holddown_s;
	bool holddown_given;                       /**< --nat-holddown given */
	uint32_t outside_mask;                     /**< --nat-outside ports; 0: none */
	uint32_t max_per_host;                     /**< --nat-max-per-host; 0: off */
	uint32_t max_per_dest;                     /**< --nat-max-per-dest; 0: off */
	bool quota_given;                          /**< either given */
	uint8_t mapping;                           /**< enum nat_mapping_mode */
	uint8_t filtering;                         /**< enum nat_filter_mode */
	uint8_t steer;                             /**< enum nat_steer_mode */
	uint32_t port_block;                       /**< --nat-port-block; 0: off */
	uint32_t max_blocks_per_host;              /**< --nat-max-blocks-per-host; 0: no limit */
	bool max_blocks_given;                     /**< --nat-max-blocks-per-host given */
};

extern struct nat_conf fx_nat_conf;

/** Whether masquerade is on (--nat-pool given). */
static inline bool
fx_nat_enabled(void)
{
	return fx_nat_conf.enabled;
}

/** Defaults (NAT off, ports 1024-65535, hold-down NAT_HOLDDOWN_DEFAULT). */
void nat_conf_defaults(struct nat_conf *c);

/** --nat-pool A.B.C.D/LEN: every address of the prefix joins the pool. */
int nat_conf_add_pool(struct nat_conf *c, const char *s, char *err, size_t len);
/** --nat-inside A.B.C.D/LEN */
int nat_conf_add_inside(struct nat_conf *c, const char *s, char *err, size_t len);
/** --nat-ports LO-HI */
int nat_conf_ports(struct nat_conf *c, const char *s, char *err, size_t len);
/**
 * The interface roles against the ports in use (portmask): an outside
 * port not in it, every port outside, --nat-outside without --nat-pool,
 * NAT on more than one port without --nat-outside. 0 or -EINVAL with the
 * reason in err.
 */
int nat_conf_check_roles(const struct nat_conf *c, uint32_t portmask,
			 char *err, size_t len);

/**
 * After the command line: --nat-inside, --nat-ports or the port blocks
 * without --nat-pool, an inside prefix that overlaps the pool, fewer ports
 * than workers, a block larger than a worker's share, a block limit
 * without blocks.
 * 0 or -EINVAL with the reason in err.
 */
int nat_conf_check(const struct nat_conf *c, unsigned int nb_workers,
		   char *err, size_t len);

static inline bool
nat_prefix_has(const struct nat_prefix *p, uint32_t n, uint32_t addr_be)
{
	uint32_t a = rte_be_to_cpu_32(addr_be);
	uint32_t i;

	for (i = 0; i < n; i++)
		if ((a & p[i].mask) == p[i].addr)
			return true;
	return false;
}

/** Whether addr (network order) is in the public pool. */
static inline bool
nat_is_pool(const struct nat_conf *c, uint32_t addr_be)
{
	return nat_prefix_has(c->pool_pfx, c->nb_pool_pfx, addr_be);
}

/** Whether addr (network order) is an inside address. */
static inline bool
nat_is_inside(const struct nat_conf *c, uint32_t addr_be)
{
	return nat_prefix_has(c->inside, c->nb_inside, addr_be);
}

/** Whether the ports have roles (--nat-outside given). */
static inline bool
nat_roles(const struct nat_conf *c)
{
	return c->outside_mask != 0;
}

/** Whether port faces the internet (--nat-outside). */
static inline bool
nat_is_outside_port(const struct nat_conf *c, uint16_t port)
{
	return port < FX_MAX_PORTS && (c->outside_mask & (UINT32_C(1) << port)) != 0;
}

/** Pool index of public address addr (network order), or -1 if not in the pool. */
static inline int32_t
nat_pool_find(const struct nat_conf *c, uint32_t addr_be)
{
	uint32_t a = rte_be_to_cpu_32(addr_be);
	uint32_t i;

	for (i = 0; i < c->nb_pool_pfx; i++)
		if ((a & c->pool_pfx[i].mask) == c->pool_pfx[i].addr)
			return (int32_t)(c->pool_first[i] + (a - c->pool_pfx[i].addr));
	return -1;
}

/** Pool index of the public address of inside host addr (paired pooling). */
static inline uint32_t
nat_pool_index(const struct nat_conf *c, uint32_t addr_be)
{
	uint32_t h = fx_hash_u32(addr_be);

	/* h % nb_pool without a divide instruction */
	return h - rte_reciprocal_divide(h, c->pool_rcp) * c->nb_pool;
}

#endif /* _FX_NAT_CONF_H_ */
