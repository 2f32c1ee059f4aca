/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Sending from the main lcore (l3/main_tx.c): per port its tx queue, its
 * MAC and a burst buffer, and the main lcore's own mbuf pool, for the
 * neighbour files' frames and answers.
 */

#ifndef _FX_MAIN_TX_H_
#define _FX_MAIN_TX_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

/** Keep each port's MAC and main lcore tx queue; make the mbuf pool. */
void fx_main_tx_start(const struct rte_ether_addr *mac, const uint16_t *main_txq);

/** Port's MAC (6 bytes), as fx_main_tx_start() was given it. */
const uint8_t *fx_main_tx_mac(uint16_t port);

/** Queue m for port (sent when a burst is full or at fx_main_tx_flush()). */
void fx_main_tx_send(uint16_t port, struct rte_mbuf *m);

/** Send what waits for port. */
void fx_main_tx_flush(uint16_t port);

/** Free what waits for any port (shutdown). */
void fx_main_tx_fini(void);

/** A frame of len bytes from the main lcore's pool in *mp: its bytes, or NULL. */
uint8_t *fx_main_frame_alloc(struct rte_mbuf **mp, uint16_t len);

/** Make m hold exactly len bytes from its start (one segment): false if it cannot. */
bool fx_main_frame_resize(struct rte_mbuf *m, uint16_t len);

#endif /* _FX_MAIN_TX_H_ */
