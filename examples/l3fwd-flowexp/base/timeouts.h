/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Timeout classes: the timeouts a flow or a NAT mapping can have, one per
 * state it can be in (flow/state.h says which packets lead to which). One
 * table names each class's enum value, its counter name, its option and
 * its default in seconds; the command line (boot/args_table.c), the statistics and
 * the state machine all expand it, so they cannot disagree.
 */

#ifndef _FX_TIMEOUTS_H_
#define _FX_TIMEOUTS_H_

/** enum, counter name, option, default seconds; the TCP ones are conntrack's states. */
#define FX_TMOS(X) \
	X(ONEWAY, "oneway", "timeout-oneway", 5.0) \
	X(TCP_SYN, "tcp_syn", "timeout-tcp-syn", 120.0) \
	X(TCP, "tcp", "timeout-tcp", 7440.0) \
	X(TCP_CLOSE, "tcp_close", "timeout-tcp-close", 240.0) \
	X(TCP_RST, "tcp_rst", "timeout-tcp-rst", 10.0) \
	X(UDP, "udp", "timeout-udp", 300.0) \
	X(ICMP, "icmp", "timeout-icmp", 60.0) \
	X(OTHER, "other", "timeout-other", 600.0)

enum fx_tmo {
#define FX_TMO_ENUM(e, n, o, d) FX_TMO_ ## e,
	FX_TMOS(FX_TMO_ENUM)
#undef FX_TMO_ENUM
	FX_TMO_MAX
};

/** Counter names of the timeout classes, by enum fx_tmo (boot/args_table.c). */
extern const char *const fx_tmo_names[FX_TMO_MAX];

#endif /* _FX_TIMEOUTS_H_ */
