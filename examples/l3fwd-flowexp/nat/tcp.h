/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A NAT mapping's TCP connection, kept in 28 bytes instead of the 32 of
 * struct fx_tcp (flow/tcp_track.h) and mostly inside the mapping's own cache
 * line: 20 bytes in the record (struct nat_tcp_rec: both sides' largest
 * window and highest acknowledgment, the window scales and the per-side
 * flags a nibble each, the connection's state and its initiator) and the
 * two sides' ends (8 bytes, struct nat_tcp_ends) in an array beside the
 * table by record index. A segment is checked by the tracker itself on a
 * struct fx_tcp filled from the two (nat_tcp_load()) and written back
 * (nat_tcp_store()): nothing is lost, the scales (at most 14) and the
 * FX_TCPD_* flags (4 bits) fit a nibble, so the tracker's verdicts are
 * those of the flow tracker's record. What it saves is 24 bytes per
 * mapping, one of the 64-byte record's pad and its hold-down time sharing
 * the word of the latest packet's time (nat/table.h).
 */

#ifndef _FX_NAT_TCP_H_
#define _FX_NAT_TCP_H_

#include <stdint.h>

#include <rte_common.h>

#include "flow/tcp_track.h"

/** The part of a TCP connection in the mapping record: 20 bytes. */
struct nat_tcp_rec {
	uint32_t maxwin[2];   /**< fx_tcp_dir.maxwin by side */
	uint32_t ack[2];      /**< fx_tcp_dir.ack by side */
	uint8_t scale;        /**< side 0's scale in the low nibble, side 1's high */
	uint8_t dflags;       /**< side 0's FX_TCPD_* in the low nibble, side 1's high */
	uint8_t conn;         /**< fx_tcp.conn */
	uint8_t init;         /**< fx_tcp.init */
};

/** The part beside the table: both sides' ends, 8 bytes. */
struct nat_tcp_ends {
	uint32_t end[2];      /**< fx_tcp_dir.end by side */
};

/** The whole connection from its two parts. */
static inline void
nat_tcp_load(struct fx_tcp *t, const struct nat_tcp_rec *r,
	     const struct nat_tcp_ends *e)
{
	unsigned int s;

	for (s = 0; s < 2; s++) {
		t->d[s].end = e->end[s];
		t->d[s].maxwin = r->maxwin[s];
		t->d[s].ack = r->ack[s];
		t->scale[s] = (uint8_t)((r->scale >> (4 * s)) & 0xf);
		t->dflags[s] = (uint8_t)((r->dflags >> (4 * s)) & 0xf);
	}
	t->conn = r->conn;
	t->init = r->init;
	t->pad[0] = t->pad[1] = 0;
}

/** Split a connection into its two parts. */
static inline void
nat_tcp_store(struct nat_tcp_rec *r, struct nat_tcp_ends *e,
	      const struct fx_tcp *t)
{
	unsigned int s;

	RTE_BUILD_BUG_ON(FX_TCP_WSCALE_MAX > 0xf);
	RTE_BUILD_BUG_ON((FX_TCPD_SEEN | FX_TCPD_WSCALE | FX_TCPD_ACKED |
			  FX_TCPD_SYNACK) > 0xf);
	for (s = 0; s < 2; s++) {
		e->end[s] = t->d[s].end;
		r->maxwin[s] = t->d[s].maxwin;
		r->ack[s] = t->d[s].ack;
	}
	r->scale = (uint8_t)(t->scale[0] | t->scale[1] << 4);
	r->dflags = (uint8_t)(t->dflags[0] | t->dflags[1] << 4);
	r->conn = t->conn;
	r->init = t->init;
}

#endif /* _FX_NAT_TCP_H_ */
