/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Ports: mbuf pools, device and queue configuration, symmetric RSS,
 * offload checks, packet-type support, start and link status.
 */

#ifndef _FX_PORTS_H_
#define _FX_PORTS_H_

#include <rte_ether.h>

#include "flowexp.h"

/** Source MAC of each port. */
extern struct rte_ether_addr fx_port_mac[RTE_MAX_ETHPORTS];

/**
 * Configure and start every port of the portmask for the workers in
 * fx_workers[] (their rxq lists must be filled): one rx queue per --config
 * entry, one tx queue per worker. Exits with a message on failure, as l3fwd.
 */
void fx_ports_init(void);

/** Wait (up to 9 s) for the links to come up and print their status. */
void fx_ports_check_link(void);

/** Stop and close every port of the portmask. */
void fx_ports_fini(void);

#endif /* _FX_PORTS_H_ */
