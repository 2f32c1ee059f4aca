/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Flow state: which timeout a flow has, from the packets it has seen.
 *
 * TCP follows the connection tracker (flow/tcp_track.h), which checks every
 * segment against both sides' windows; a segment that does not fit
 * changes nothing:
 *   SYN_SENT     opened by a SYN, handshake not complete   --timeout-tcp-syn   120 s
 *   ESTABLISHED  SYN, SYN-ACK, the ACK of the SYN-ACK      --timeout-tcp      7440 s
 *   closing      a FIN in the window, after ESTABLISHED    --timeout-tcp-close 240 s
 *   closed       an exact RST (RFC 5961 section 3)         --timeout-tcp-rst    10 s
 * A TCP flow that did not start with a SYN (picked up mid-stream) has the
 * one-way timeout for as long as it lives, as every unanswered flow, and
 * its RST and FIN segments change nothing; a SYN starts tracking it over.
 * Defaults: ESTABLISHED and closing are RFC 5382's minimums for a NAT
 * (2 h 4 min, 4 min); SYN_SENT and RST are conntrack's (syn_sent 120 s,
 * close 10 s). An RST wins over everything else, a FIN over ESTABLISHED.
 *
 * A SYN from the side that opened a connection, once it has a FIN or a
 * RST, starts a fresh connection on the same tuple: the state starts over
 * from the SYN (counted as "reopened", and as created). A SYN from the
 * other side does not: it is dropped.
 *
 * Other protocols, and TCP fragments (tracked without ports): one-way
 * until a packet from the other endpoint, then UDP, ICMP/ICMPv6 (echo and
 * the other request/answer types) or other; TCP fragments stay one-way.
 *
 * "Answered" (FX_FLOW_REPLIED; --table-full evict evicts only flows
 * without it): TCP, a completed handshake; the others, a packet from the
 * endpoint that did not send the first one.
 */

#ifndef _FX_FLOW_STATE_H_
#define _FX_FLOW_STATE_H_

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include "base/atomic.h"
#include "base/timeouts.h"
#include "flow/tcp_track.h"
#include "fwd/parse.h"

/* fx_flow.flags and nat_mapping.flags */
#define FX_FLOW_INIT_DIR1 0x01  /**< The first packet came from endpoint 1. */
#define FX_FLOW_REPLIED   0x02  /**< Answered (above). */
#define FX_FLOW_FIN       0x04  /**< TCP FIN in the window. */
#define FX_FLOW_RST       0x08  /**< TCP exact RST. */
#define FX_FLOW_SYN       0x10  /**< TCP: opened by a SYN, windows tracked. */

/** Timeout class of a flow with flags and protocol proto. */
static inline uint8_t
fx_state_class(uint8_t flags, uint8_t proto)
{
	if (proto == IPPROTO_TCP) {
		if (flags & FX_FLOW_RST)
			return FX_TMO_TCP_RST;
		if (!(flags & FX_FLOW_REPLIED))
			return (flags & FX_FLOW_SYN) ? FX_TMO_TCP_SYN : FX_TMO_ONEWAY;
		return (flags & FX_FLOW_FIN) ? FX_TMO_TCP_CLOSE : FX_TMO_TCP;
	}
	if (!(flags & FX_FLOW_REPLIED))
		return FX_TMO_ONEWAY;
	switch (proto) {
	case IPPROTO_UDP:
		return FX_TMO_UDP;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return FX_TMO_ICMP;
	default:
		return FX_TMO_OTHER;
	}
}

/** Whether pk is a TCP segment the connection tracker follows (not a fragment). */
static inline bool
fx_state_tracked(const struct fx_pkt *pk)
{
	return pk->key.proto == IPPROTO_TCP && !pk->fragment;
}

/* a SYN without ACK: the first packet of a connection */
static inline bool
fx_state_is_syn(const struct fx_pkt *pk)
{
	return (pk->tcp_flags & (FX_TCP_SYN | FX_TCP_ACK)) == FX_TCP_SYN;
}

/** Flags of a flow whose TCP connection is t, with the flow's flags. */
static inline uint8_t
fx_state_tcp(uint8_t flags, const struct fx_tcp *t)
{
	return (flags & FX_FLOW_INIT_DIR1) |
		((t->conn & FX_TCPC_SYN) ? FX_FLOW_SYN : 0) |
		((t->conn & FX_TCPC_EST) ? FX_FLOW_REPLIED : 0) |
		((t->conn & FX_TCPC_FIN) ? FX_FLOW_FIN : 0) |
		((t->conn & FX_TCPC_RST) ? FX_FLOW_RST : 0);
}

/**
 * Count a tracked segment that changes nothing (verdict v, not PASS or
 * REOPEN) in the one of a table's four counters that says why.
 */
static inline void
fx_state_tcp_count(enum fx_tcp_verdict v, uint64_t *rst_ignored, uint64_t *syn_ignored,
		   uint64_t *out_of_window, uint64_t *invalid)
{
	uint64_t *c = v == FX_TCP_RST_IGNORED ? rst_ignored :
		v == FX_TCP_SYN_IGNORED ? syn_ignored :
		v == FX_TCP_OUT_OF_WINDOW ? out_of_window : invalid;

	fx_store_relaxed(c, *c + 1);
}

/**
 * Flags of a flow that pk opens; for a tracked TCP segment, t is the
 * connection fx_tcp_open() started from it (else unused).
 */
static inline uint8_t
fx_state_first(const struct fx_pkt *pk, const struct fx_tcp *t)
{
	uint8_t flags = pk->dir ? FX_FLOW_INIT_DIR1 : 0;

	return fx_state_tracked(pk) ? fx_state_tcp(flags, t) : flags;
}

/** Flags of a flow with flags after packet pk, which is not tracked TCP. */
static inline uint8_t
fx_state_next(uint8_t flags, const struct fx_pkt *pk)
{
	if (pk->key.proto != IPPROTO_TCP && pk->dir != (flags & FX_FLOW_INIT_DIR1))
		flags |= FX_FLOW_REPLIED;
	return flags;
}

#endif /* _FX_FLOW_STATE_H_ */
