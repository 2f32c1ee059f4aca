/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The DPDK API differences between the releases the example is built and
 * tested against (22.11, 23.11, 24.11, 25.11 LTS), each behind one helper,
 * keyed on RTE_VERSION. Everything else in the example calls the same API
 * in every release.
 */

#ifndef _FX_COMPAT_H_
#define _FX_COMPAT_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_lpm6.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "base/toeplitz.h"

/*
 * IPv6 addresses: 24.11 made them struct rte_ipv6_addr (16 bytes, byte
 * order as on the wire) in rte_lpm6; before they were uint8_t[16]. The
 * example keeps them as bytes.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define FX_LPM6_ADDR(a) ((const struct rte_ipv6_addr *)(const void *)(a))
#else
#define FX_LPM6_ADDR(a) ((const uint8_t *)(a))
#endif

static inline int
fx_lpm6_add(struct rte_lpm6 *lpm, const uint8_t addr[16], uint8_t depth,
	    uint32_t next_hop)
{
	return rte_lpm6_add(lpm, FX_LPM6_ADDR(addr), depth, next_hop);
}

static inline int
fx_lpm6_lookup(const struct rte_lpm6 *lpm, const uint8_t addr[16],
	       uint32_t *next_hop)
{
	return rte_lpm6_lookup(lpm, FX_LPM6_ADDR(addr), next_hop);
}

/* telemetry: _u64 is deprecated from 23.03 (for _uint) and gone in 25.11 */
static inline int
fx_tel_dict_u64(struct rte_tel_data *d, const char *name, uint64_t v)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_dict_uint(d, name, v);
#else
	return rte_tel_data_add_dict_u64(d, name, v);
#endif
}

/*
 * Symmetric RSS. From 23.11 struct rte_eth_rss_conf has an algorithm and
 * a device may offer RTE_ETH_HASH_FUNCTION_SYMMETRIC_TOEPLITZ
 * (dev_info.rss_algo_capa); 22.11 has neither (the value exists there only
 * for rte_flow RSS actions), so the symmetric key, with the device's own
 * function, is all it can ask for.
 */
enum fx_rss_sym {
	FX_RSS_SYM_NONE,    /**< the device can be asked for neither */
	FX_RSS_SYM_ALGO,    /**< RTE_ETH_HASH_FUNCTION_SYMMETRIC_TOEPLITZ */
	FX_RSS_SYM_KEY,     /**< Toeplitz with a key of period 16 bits */
};

/*
 * Ask for symmetric hashing in c; key has room for the device's
 * hash_key_size bytes. A device with hash_key_size 0 takes no key (23.11+
 * ethdev rejects one).
 */
static inline enum fx_rss_sym
fx_rss_set_symmetric(struct rte_eth_rss_conf *c,
		     const struct rte_eth_dev_info *info, uint8_t *key)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	if (info->rss_algo_capa & RTE_ETH_HASH_ALGO_CAPA_MASK(SYMMETRIC_TOEPLITZ)) {
		c->algorithm = RTE_ETH_HASH_FUNCTION_SYMMETRIC_TOEPLITZ;
		return FX_RSS_SYM_ALGO;
	}
	if (info->hash_key_size != 0 &&
	    (info->rss_algo_capa & RTE_ETH_HASH_ALGO_CAPA_MASK(TOEPLITZ)))
		c->algorithm = RTE_ETH_HASH_FUNCTION_TOEPLITZ;
#endif
	if (info->hash_key_size == 0)
		return FX_RSS_SYM_NONE;
	fx_toeplitz_symmetric_key(key, info->hash_key_size);
	c->rss_key = key;
	c->rss_key_len = info->hash_key_size;
	return FX_RSS_SYM_KEY;
}

/*
 * Did the device keep the algorithm asked for? A device that offers the
 * symmetric function must report it; with the key, a device may report
 * its default (the key is then what is checked). Before 23.11 nothing can
 * be asked or read.
 */
static inline bool
fx_rss_algo_kept(const struct rte_eth_rss_conf *want,
		 const struct rte_eth_rss_conf *got)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	if (want->algorithm == RTE_ETH_HASH_FUNCTION_SYMMETRIC_TOEPLITZ)
		return got->algorithm == want->algorithm;
	return got->algorithm == want->algorithm ||
		got->algorithm == RTE_ETH_HASH_FUNCTION_DEFAULT;
#else
	RTE_SET_USED(want);
	RTE_SET_USED(got);
	return true;
#endif
}

/* The algorithm of an RSS configuration, for messages (ethdev's own name
 * function is experimental API). */
static inline const char *
fx_rss_algo_name(const struct rte_eth_rss_conf *c)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
	switch (c->algorithm) {
	case RTE_ETH_HASH_FUNCTION_DEFAULT:
		return "device default";
	case RTE_ETH_HASH_FUNCTION_TOEPLITZ:
		return "Toeplitz";
	case RTE_ETH_HASH_FUNCTION_SIMPLE_XOR:
		return "simple XOR";
	case RTE_ETH_HASH_FUNCTION_SYMMETRIC_TOEPLITZ:
		return "symmetric Toeplitz";
	default:
		return "other";
	}
#else
	RTE_SET_USED(c);
	return "device default (22.11 cannot say)";
#endif
}

#endif /* _FX_COMPAT_H_ */
