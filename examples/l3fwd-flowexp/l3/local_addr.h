/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The gateway's own addresses per port (l3/local_addr.c): which it has,
 * which to speak from, the workers' copy, the announcements.
 */

#ifndef _FX_LOCAL_ADDR_H_
#define _FX_LOCAL_ADDR_H_

#include <stdbool.h>
#include <stdint.h>

/** The addresses of --port-addr, per port and in fx_l3 (link-local ones later). */
void fx_local_addrs_init(void);

/** Each port with IPv6 addresses gets its link-local one (its MAC is known). */
void fx_local_addrs_add_linklocal(void);

/** Gratuitous ARP and unsolicited NA for port's addresses and NAT's pool. */
void fx_local_addrs_announce(uint16_t port);

/** Whether a (IPv4, 4 bytes) is one of port's addresses. */
bool fx_local_addr_has4(uint16_t port, const uint8_t *a);

/** Whether a (IPv6, 16 bytes) is one of port's addresses. */
bool fx_local_addr_has6(uint16_t port, const uint8_t *a);

/** Whether port answers ARP for the NAT pool's addresses too. */
bool fx_local_addr_answers_pool(uint16_t port);

/** Port's IPv4 address to speak to peer from: on its subnet, else the first; NULL: none. */
const uint8_t *fx_local_addr_source4(uint16_t port, const uint8_t *peer);

/** Port's IPv6 address to speak to peer from: on its subnet, else the link-local one. */
const uint8_t *fx_local_addr_source6(uint16_t port, const uint8_t *peer);

/** Whether a4 is the network or broadcast address of a connected subnet of port. */
bool fx_local_addr_subnet_edge4(uint16_t port, const uint8_t *a4);

#endif /* _FX_LOCAL_ADDR_H_ */
