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

#include <stdint.h>

#include <rte_lpm6.h>
#include <rte_telemetry.h>
#include <rte_version.h>

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

#endif /* _FX_COMPAT_H_ */
