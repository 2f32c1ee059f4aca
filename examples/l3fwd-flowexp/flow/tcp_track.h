/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * TCP connection tracking: what each side of a connection may send next,
 * learnt from the segments seen, so that a host off the path, which does
 * not see the sequence numbers, cannot change the connection's state.
 *
 * The record. One struct fx_tcp (32 bytes) per flow or NAT mapping, kept
 * beside the table by slot or record index, holds for each direction
 * (the side that sends):
 *   end      the sequence number after the last one it sent (SYN and FIN
 *            count one), the highest seen;
 *   maxwin   the largest window it advertised, scaled;
 *   ack      the highest acknowledgment it sent; while its SYN is not yet
 *            acknowledged and it has sent no ACK, its ISN + 1 instead
 *            (a side that has sent an ACK keeps its pending ISN + 1 in the
 *            other side's field: that side has sent no ACK yet);
 *   scale    its window scale: the option of its SYN, used only when both
 *            SYNs carried one (RFC 7323), else 0.
 * The upper bound of what a side may send is the other side's highest
 * acknowledgment plus the other side's largest window (before the other
 * side acknowledged anything: its own end).
 *
 * A segment from side S to side R, with end = seq + len (+1 for SYN, FIN)
 * and ack (if ACK is set; a RST with ACK and ack 0 counts as without),
 * fits the window, as Linux conntrack's tcp_in_window() checks it, if
 *   I    seq <= the upper bound of S;
 *   II   end >= S.end - R.maxwin (when R advertised one);
 *   III  ack <= R.end;
 *   IV   ack >= R.end - S.maxwin (66000 before S advertised one).
 * A segment that fits updates S (end, maxwin, ack) and the connection.
 * Sequence numbers compare modulo 2^32 (RFC 1982).
 *
 * The connection (fx_tcp.conn):
 *   picked up mid-stream   the first segment was not a SYN: the scale
 *                          factors are unknown, so the windows are not
 *                          checked (conntrack is liberal with such
 *                          connections for the same reason); every
 *                          segment passes and changes nothing, RST and
 *                          FIN included; such a connection never becomes
 *                          established (its flow keeps the one-way
 *                          timeout and stays evictable). A SYN starts
 *                          tracking over from it.
 *   SYN (handshake)        opened by a SYN without ACK from the initiator.
 *                          The responder's first segment must be a SYN-ACK
 *                          whose ack is within (ISN, end] of the
 *                          initiator's SYN, a SYN (simultaneous open), or
 *                          a RST whose ack is exactly the SYN's end (RFC
 *                          793, SYN-SENT); anything else from it is
 *                          invalid. An ACK from the initiator before the
 *                          responder was seen is invalid. A new SYN from
 *                          the initiator before that starts its side over
 *                          (a new ISN).
 *   established            both SYNs acknowledged (SYN, SYN-ACK, the ACK of
 *                          the SYN-ACK; or two SYNs and two SYN-ACKs). An
 *                          ACK that fits but does not acknowledge a
 *                          pending SYN is invalid (RFC 793, SYN-RECEIVED).
 *   FIN                    a FIN that fits, from either side.
 *   RST (closed)           RFC 5961 section 3: a RST that fits and whose
 *                          seq is exactly the receiver's next expected
 *                          (R.ack, the receiver's latest acknowledgment,
 *                          or S.end, what the sender sends next) closes;
 *                          one that fits but is not exact is passed with
 *                          no effect (the endpoint answers it with a
 *                          challenge ACK, and the peer's exact RST then
 *                          closes); one outside the window is dropped.
 * A SYN without ACK on a connection with a FIN or RST: from the initiator
 * it starts a new connection (fx_tcp_track() says REOPEN, the caller
 * calls fx_tcp_open()); from the responder it is invalid, so the side
 * that did not open a connection cannot revive it. A SYN outside the
 * window of an established connection is passed with no effect (RFC 5961
 * section 4: the endpoint answers it with a challenge ACK).
 *
 * Verdicts: PASS (forward; refresh), RST_IGNORED and SYN_IGNORED (forward,
 * no refresh, nothing changed), REOPEN, OUT_OF_WINDOW and INVALID (drop,
 * nothing changed). Pure functions of the record and the segment: no
 * clock, no allocation.
 */

#ifndef _FX_TCP_TRACK_H_
#define _FX_TCP_TRACK_H_

#include <stdbool.h>
#include <stdint.h>

#include "fwd/parse.h"

/* fx_tcp.conn */
#define FX_TCPC_SYN 0x01   /**< Opened by a SYN: the windows are tracked. */
#define FX_TCPC_EST 0x02   /**< Both SYNs acknowledged. */
#define FX_TCPC_FIN 0x04   /**< A FIN that fit. */
#define FX_TCPC_RST 0x08   /**< An exact RST: closed. */

/* fx_tcp.dflags[side] */
#define FX_TCPD_SEEN   0x01   /**< Its SYN was seen: end and maxwin are known. */
#define FX_TCPD_WSCALE 0x02   /**< Its SYN offered window scaling. */
#define FX_TCPD_ACKED  0x04   /**< It has sent an ACK: ack is the highest. */
#define FX_TCPD_SYNACK 0x08   /**< Its SYN was acknowledged. */

/** One side of a connection, as the sender of its segments. */
struct fx_tcp_dir {
	uint32_t end;      /**< Sequence number after the last one sent. */
	uint32_t maxwin;   /**< Largest window advertised, scaled; 0: none yet. */
	uint32_t ack;      /**< Highest ACK sent, or a pending ISN + 1 (above). */
};

/** A tracked connection: 32 bytes, two per cache line. */
struct fx_tcp {
	struct fx_tcp_dir d[2];   /**< By side: fx_pkt.dir, or NAT 0 out / 1 in. */
	uint8_t scale[2];         /**< Window scale of each side's windows. */
	uint8_t dflags[2];        /**< FX_TCPD_* by side. */
	uint8_t conn;             /**< FX_TCPC_*; 0: picked up mid-stream. */
	uint8_t init;             /**< Side that sent the opening SYN (or the first segment). */
	uint8_t pad[2];
};

/** What to do with a segment (above). */
enum fx_tcp_verdict {
	FX_TCP_PASS,            /**< Forward; the state may have changed. */
	FX_TCP_RST_IGNORED,     /**< Forward; a RST in the window, not exact. */
	FX_TCP_SYN_IGNORED,     /**< Forward; a SYN on an established connection. */
	FX_TCP_REOPEN,          /**< A new connection on the tuple: fx_tcp_open(). */
	FX_TCP_OUT_OF_WINDOW,   /**< Drop: outside the receiver's window. */
	FX_TCP_INVALID,         /**< Drop: does not fit the connection's state. */
};

/** The window scale factor limit (RFC 7323 section 2.3). */
#define FX_TCP_WSCALE_MAX 14

/** Start tracking from the first segment of a connection, sent by side. */
void fx_tcp_open(struct fx_tcp *t, unsigned int side, const struct fx_tcp_seg *s);

/** A segment sent by side (0 or 1) of the connection t. */
enum fx_tcp_verdict fx_tcp_track(struct fx_tcp *t, unsigned int side,
				 const struct fx_tcp_seg *s);

/** Whether a segment with verdict v is forwarded. */
static inline bool
fx_tcp_forwards(enum fx_tcp_verdict v)
{
	return v <= FX_TCP_REOPEN;
}

/** Whether a segment is a SYN without ACK or RST: the opening of a connection. */
static inline bool
fx_tcp_is_open(const struct fx_tcp_seg *s)
{
	return (s->flags & (FX_TCP_SYN | FX_TCP_ACK | FX_TCP_RST)) == FX_TCP_SYN;
}

#endif /* _FX_TCP_TRACK_H_ */
