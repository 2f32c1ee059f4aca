/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Ports: mbuf pools, device and queue configuration, symmetric RSS,
 * offload checks, packet-type support, start and link status.
 */

#ifndef _FX_PORTS_H_
#define _FX_PORTS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "base/compat.h"

/** Longest RSS key a device may ask for. */
#define FX_RSS_KEY_LEN_MAX 128

/** The main lcore's tx queue on a port with addresses; UINT16_MAX: none. */
extern uint16_t fx_ports_main_txq[RTE_MAX_ETHPORTS];

/** What a port's RSS was configured with, for the affinity decision. */
struct fx_port_rss {
	bool on;                        /**< RSS configured */
	enum fx_rss_sym how;            /**< symmetric by algorithm, key, or not */
	struct rte_eth_rss_conf want;   /**< as asked at configure */
	uint16_t reta_size;             /**< the device's redirection table */
};

/** Port's RSS configuration (after fx_ports_init()). */
const struct fx_port_rss *fx_ports_rss(uint16_t port);

/** The rx queues of a port: its --config entries. */
uint16_t fx_ports_rx_queues(uint16_t port);

/**
 * Mbufs per pool (one pool per socket of the workers), as l3fwd counts
 * them; the first call prints the count and its terms. Needs fx_workers[].
 */
unsigned int fx_ports_mbuf_count(void);

/** Bytes of one mbuf of the pools, with its private area and headers. */
size_t fx_ports_mbuf_bytes(void);

/**
 * Configure and start every port of the portmask for the workers in
 * fx_workers[] (their rxq lists must be filled): one rx queue per --config
 * entry, one tx queue per worker and one for the main lcore on a port with
 * addresses. Exits with a message on failure, as l3fwd.
 */
void fx_ports_init(void);

/** Wait (up to 9 s) for the links to come up and print their status. */
void fx_ports_check_link(void);

/** Stop and close every port of the portmask. */
void fx_ports_fini(void);

#endif /* _FX_PORTS_H_ */
