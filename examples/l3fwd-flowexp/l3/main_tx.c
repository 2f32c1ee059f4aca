/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sending from the main lcore: its answers, probes, announcements and
 * the packets it held for a neighbour leave by a tx queue of its own on
 * each port with addresses (boot/ports.c gives every such port one; a
 * port without it drops what the main lcore would send there, counted
 * main_tx_dropped). Per port a buffer of up to a burst, sent when full
 * and at the end of each poll; what the port does not take is counted
 * main_tx_dropped and freed.
 *
 * Every answer is built in the mbuf of its question (l3/wire.h), so the
 * only mbufs the main lcore allocates are its probes and announcements,
 * from a pool of its own made at start-up.
 *
 * Each port's MAC and queue are copies of what fx_main_tx_start() is
 * given, so the neighbour files read nothing of boot/. Main lcore only:
 * no atomics but the counters' (l3/neigh_priv.h).
 */

#include <stdlib.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "base/config.h"
#include "fwd/parse.h"
#include "l3/main_tx.h"
#include "l3/neigh_stats.h"

#define FX_MAIN_POOL 1023u       /* the main lcore's own mbufs */

/* a port's queue, its MAC, what waits to be sent */
struct main_tx_port {
	uint16_t queue;          /* the main lcore's tx queue; UINT16_MAX: none */
	uint16_t n;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[MAX_PKT_BURST];
};

static struct main_tx_port tx_ports[FX_MAX_PORTS];
static struct rte_mempool *main_pool;

void
fx_main_tx_start(const struct rte_ether_addr *mac, const uint16_t *main_txq)
{
	unsigned int p;

	for (p = 0; p < FX_MAX_PORTS; p++) {
		tx_ports[p].mac = mac[p];
		tx_ports[p].queue = main_txq[p];
	}
	main_pool = rte_pktmbuf_pool_create("fx_main_pool", FX_MAIN_POOL, 0, FX_MBUF_PRIV_SIZE,
					    RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (main_pool == NULL)
		rte_exit(EXIT_FAILURE, "cannot create the main lcore's mbuf pool: %s\n",
			 rte_strerror(rte_errno));
}

const uint8_t *
fx_main_tx_mac(uint16_t port)
{
	return tx_ports[port].mac.addr_bytes;
}

void
fx_main_tx_flush(uint16_t port)
{
	struct main_tx_port *b = &tx_ports[port];
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(port, b->queue, b->m, b->n);
	FX_NEIGH_COUNT(port, main_tx, sent);
	if (sent < b->n) {
		FX_NEIGH_COUNT(port, main_tx_dropped, b->n - sent);
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

void
fx_main_tx_send(uint16_t port, struct rte_mbuf *m)
{
	struct main_tx_port *b = &tx_ports[port];

	if (b->queue == UINT16_MAX) {
		FX_NEIGH_COUNT(port, main_tx_dropped, 1);
		rte_pktmbuf_free(m);
		return;
	}
	b->m[b->n++] = m;
	if (b->n == MAX_PKT_BURST)
		fx_main_tx_flush(port);
}

void
fx_main_tx_fini(void)
{
	unsigned int p;

	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (tx_ports[p].n != 0)
			rte_pktmbuf_free_bulk(tx_ports[p].m, tx_ports[p].n);
		tx_ports[p].n = 0;
	}
}

uint8_t *
fx_main_frame_alloc(struct rte_mbuf **mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(main_pool);

	*mp = m;
	if (m == NULL)
		return NULL;
	return (uint8_t *)rte_pktmbuf_append(m, len);
}

bool
fx_main_frame_resize(struct rte_mbuf *m, uint16_t len)
{
	if (m->nb_segs != 1 || rte_pktmbuf_tailroom(m) + m->data_len < len)
		return false;
	m->data_len = len;
	m->pkt_len = len;
	return true;
}
