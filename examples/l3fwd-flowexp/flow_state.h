/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Flow state: which timeout a flow has, from the packets it has seen.
 *
 * TCP follows conntrack's states, as far as flags seen in either direction
 * tell them (no sequence-number tracking):
 *   SYN_SENT     opened by a SYN (no ACK), no answer yet   --timeout-tcp-syn   120 s
 *   ESTABLISHED  both directions seen                      --timeout-tcp      7440 s
 *   closing      a FIN seen, both directions seen          --timeout-tcp-close 240 s
 *   closed       an RST seen                               --timeout-tcp-rst    10 s
 * A TCP flow that did not start with a SYN (picked up mid-stream) and got
 * no answer has the one-way timeout, as every other unanswered flow.
 * Defaults: ESTABLISHED and closing are RFC 5382's minimums for a NAT
 * (2 h 4 min, 4 min); SYN_SENT and RST are conntrack's (syn_sent 120 s,
 * close 10 s). An RST wins over everything else, a FIN over ESTABLISHED.
 *
 * A SYN without ACK on a closing or closed flow that has seen both
 * directions starts a fresh connection on the same tuple: the state starts
 * over from the SYN (counted as "reopened", and as created). A flow seen
 * from one side only is not closed for that: with the directions on
 * different rx queues (handoff), a server's FIN can be processed before
 * the client's SYN of the same connection; the SYN then answers it.
 *
 * Other protocols: one-way until answered, then UDP, ICMP/ICMPv6 (echo and
 * the other request/answer types) or other.
 */

#ifndef _FX_FLOW_STATE_H_
#define _FX_FLOW_STATE_H_

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include "parse.h"
#include "timeouts.h"

/* fx_flow.flags and nat_mapping.flags */
#define FX_FLOW_INIT_DIR1 0x01  /**< The first packet came from endpoint 1. */
#define FX_FLOW_REPLIED   0x02  /**< Seen in both directions. */
#define FX_FLOW_FIN       0x04  /**< TCP FIN seen. */
#define FX_FLOW_RST       0x08  /**< TCP RST seen. */
#define FX_FLOW_SYN       0x10  /**< TCP: opened by a SYN. */

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

/* TCP flags of pk as flow flags */
static inline uint8_t
fx_state_tcp(const struct fx_pkt *pk)
{
	return ((pk->tcp_flags & FX_TCP_FIN) ? FX_FLOW_FIN : 0) |
		((pk->tcp_flags & FX_TCP_RST) ? FX_FLOW_RST : 0);
}

/* a SYN without ACK: the first packet of a connection */
static inline bool
fx_state_is_syn(const struct fx_pkt *pk)
{
	return (pk->tcp_flags & (FX_TCP_SYN | FX_TCP_ACK)) == FX_TCP_SYN;
}

/** Flags of a flow that pk opens. */
static inline uint8_t
fx_state_first(const struct fx_pkt *pk)
{
	return (pk->dir ? FX_FLOW_INIT_DIR1 : 0) |
		(fx_state_is_syn(pk) ? FX_FLOW_SYN : 0) | fx_state_tcp(pk);
}

/**
 * Flags of a flow with flags after packet pk. *reopen is set when pk
 * starts a fresh connection on a closing or closed tuple (the flags are
 * then those of a new flow).
 */
static inline uint8_t
fx_state_next(uint8_t flags, const struct fx_pkt *pk, bool *reopen)
{
	if (pk->tcp_flags != 0) {   /* TCP only */
		if ((flags & FX_FLOW_REPLIED) && (flags & (FX_FLOW_FIN | FX_FLOW_RST)) &&
		    fx_state_is_syn(pk)) {
			*reopen = true;
			return fx_state_first(pk);
		}
		flags |= fx_state_tcp(pk);
	}
	if (pk->dir != (flags & FX_FLOW_INIT_DIR1))
		flags |= FX_FLOW_REPLIED;
	return flags;
}

#endif /* _FX_FLOW_STATE_H_ */
