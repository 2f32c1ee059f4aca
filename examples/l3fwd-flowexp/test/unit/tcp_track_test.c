/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the TCP connection tracker (flow/tcp_track.h) on hand-made
 * segment sequences: the handshake (also with ISNs about to wrap, and
 * simultaneous open), window scaling when both or one side offer it,
 * retransmissions inside the window and segments far outside it, RST
 * exact / in the window / outside it (RFC 5961 section 3), RST answering
 * a SYN, SYN retransmits and a new ISN, FIN inside and outside the
 * window, connections picked up mid-stream, reopening by the initiator
 * only, and a blind sweep of RST sequence numbers. Pure: no EAL.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/tcp_track.h"
#include "fwd/parse.h"
#include "test/lib/test_check.h"

#define C 0   /* the client's side */
#define S 1   /* the server's */

#define F_S FX_TCP_SYN
#define F_A FX_TCP_ACK
#define F_SA (FX_TCP_SYN | FX_TCP_ACK)
#define F_F (FX_TCP_FIN | FX_TCP_ACK)
#define F_R FX_TCP_RST
#define F_RA (FX_TCP_RST | FX_TCP_ACK)

static struct fx_tcp_seg
seg(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, uint16_t len)
{
	struct fx_tcp_seg s = {
		.seq = seq, .ack = ack, .win = win, .len = len,
		.wscale = FX_TCP_WSCALE_NONE, .flags = flags,
	};
	return s;
}

static struct fx_tcp_seg
syn(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t win, uint8_t wscale)
{
	struct fx_tcp_seg s = seg(flags, seq, ack, win, 0);

	s.wscale = wscale;
	return s;
}

static enum fx_tcp_verdict
tr(struct fx_tcp *t, unsigned int side, struct fx_tcp_seg s)
{
	return fx_tcp_track(t, side, &s);
}

static const char *
vname(enum fx_tcp_verdict v)
{
	static const char *const n[] = { "pass", "rst_ignored", "syn_ignored", "reopen",
					 "out_of_window", "invalid" };

	return (unsigned int)v < RTE_DIM(n) ? n[v] : "?";
}

#define VERDICT(t, side, s, want) do { \
	enum fx_tcp_verdict v_ = tr(t, side, s); \
	CHECK(v_ == (want), "verdict %s, want %s", vname(v_), vname(want)); \
} while (0)

/*
 * A handshake: client ISN ci, server ISN si, windows cw / sw and window
 * scale options cs / ss (FX_TCP_WSCALE_NONE: none). Established after.
 */
static void
handshake(struct fx_tcp *t, uint32_t ci, uint32_t si, uint16_t cw, uint16_t sw,
	  uint8_t cs, uint8_t ss)
{
	struct fx_tcp_seg s = syn(F_S, ci, 0, cw, cs);

	fx_tcp_open(t, C, &s);
	CHECK(t->conn == FX_TCPC_SYN, "SYN: tracked, not established (conn %#x)", t->conn);
	VERDICT(t, S, syn(F_SA, si, ci + 1, sw, ss), FX_TCP_PASS);
	CHECK(!(t->conn & FX_TCPC_EST), "SYN-ACK: not established yet");
	VERDICT(t, C, seg(F_A, ci + 1, si + 1, cw, 0), FX_TCP_PASS);
	CHECK(t->conn == (FX_TCPC_SYN | FX_TCPC_EST), "the ACK of the SYN-ACK establishes (conn %#x)",
	      t->conn);
}

static void
test_handshake_wrap(void)
{
	struct fx_tcp t;
	uint32_t ci = 0xfffffff0u, si = 0xffffffffu, c, s;
	int i;

	/* both ISNs about to wrap; the server's SYN-ACK ends at 0 */
	handshake(&t, ci, si, 65535, 65535, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	c = ci + 1;
	s = si + 1;
	CHECK(s == 0, "the server's next sequence number wrapped to 0");
	for (i = 0; i < 20; i++) {
		/* 1000 bytes each way: the client's numbers wrap past 0 too */
		VERDICT(&t, C, seg(F_A, c, s, 65535, 1000), FX_TCP_PASS);
		c += 1000;
		VERDICT(&t, S, seg(F_A, s, c, 65535, 1000), FX_TCP_PASS);
		s += 1000;
	}
	CHECK(t.d[C].end == c && t.d[S].end == s, "ends follow the data across the wrap "
	      "(%#" PRIx32 " %#" PRIx32 ")", t.d[C].end, t.d[S].end);
	/* a retransmission of old data inside the window */
	VERDICT(&t, C, seg(F_A, c - 3000, s, 65535, 1000), FX_TCP_PASS);
	CHECK(t.d[C].end == c, "a retransmission does not move the end back");
	/* far behind and far ahead: outside, and no update */
	VERDICT(&t, C, seg(F_A, c - 200000, s, 65535, 1000), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, C, seg(F_A, c + 200000, s, 65535, 1000), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, C, seg(F_A, c, s + 200000, 65535, 0), FX_TCP_OUT_OF_WINDOW);   /* III */
	VERDICT(&t, C, seg(F_A, c, s - 200000, 65535, 0), FX_TCP_OUT_OF_WINDOW);   /* IV */
	CHECK(t.d[C].end == c, "segments outside the window change nothing");
	/* a keepalive (seq one below the end, no data) fits */
	VERDICT(&t, C, seg(F_A, c - 1, s, 65535, 0), FX_TCP_PASS);
}

static void
test_window_scale(void)
{
	struct fx_tcp t;
	uint32_t ci = 1000, si = 5000000;

	/* both offer: the server's window 512 << 7 = 64 KiB lets the client
	 * send 60000 bytes beyond the first acknowledgment */
	handshake(&t, ci, si, 512, 512, 7, 7);
	CHECK(t.scale[C] == 7 && t.scale[S] == 7, "scale 7 both ways (%u %u)", t.scale[C], t.scale[S]);
	VERDICT(&t, S, seg(F_A, si + 1, ci + 1, 512, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, ci + 1 + 60000, si + 1, 512, 100), FX_TCP_PASS);
	CHECK(t.d[S].maxwin == 512u << 7, "the server's window scaled (%" PRIu32 ")", t.d[S].maxwin);

	/* only the client offers: no scaling either way, the same segment is
	 * far beyond the server's 512-byte window */
	handshake(&t, ci, si, 512, 512, 7, FX_TCP_WSCALE_NONE);
	CHECK(t.scale[C] == 0 && t.scale[S] == 0, "one side only: no scaling (%u %u)",
	      t.scale[C], t.scale[S]);
	VERDICT(&t, S, seg(F_A, si + 1, ci + 1, 512, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, ci + 1 + 60000, si + 1, 512, 100), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, C, seg(F_A, ci + 1 + 400, si + 1, 512, 100), FX_TCP_PASS);

	/* a window update of the server lets the client send more */
	VERDICT(&t, C, seg(F_A, ci + 1 + 2000, si + 1, 512, 100), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, S, seg(F_A, si + 1, ci + 501, 4096, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, ci + 1 + 2000, si + 1, 512, 100), FX_TCP_PASS);
	/* a zero window, then a one-byte probe at the edge */
	VERDICT(&t, S, seg(F_A, si + 1, ci + 2101, 0, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, ci + 2101, si + 1, 512, 1), FX_TCP_PASS);
}

static void
test_rst(void)
{
	struct fx_tcp t;
	uint32_t ci = 77777, si = 123456789, c = ci + 1 + 300, s = si + 1 + 200;

	handshake(&t, ci, si, 8192, 8192, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	VERDICT(&t, C, seg(F_A, ci + 1, si + 1, 8192, 300), FX_TCP_PASS);
	VERDICT(&t, S, seg(F_A, si + 1, c, 8192, 200), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, c, s, 8192, 0), FX_TCP_PASS);

	/* outside the window: dropped, nothing changes */
	VERDICT(&t, S, seg(F_R, s + 100000, 0, 0, 0), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, S, seg(F_R, s - 100000, 0, 0, 0), FX_TCP_OUT_OF_WINDOW);
	/* in the window, not exact: passed, no effect */
	VERDICT(&t, S, seg(F_R, s + 10, 0, 0, 0), FX_TCP_RST_IGNORED);
	VERDICT(&t, S, seg(F_RA, s - 10, c, 0, 0), FX_TCP_RST_IGNORED);
	/* an ACK of 0 in a RST counts as none (stacks that set ACK with 0) */
	VERDICT(&t, S, seg(F_RA, s + 10, 0, 0, 0), FX_TCP_RST_IGNORED);
	CHECK(t.conn == (FX_TCPC_SYN | FX_TCPC_EST), "not closed by any of them (conn %#x)", t.conn);
	/* with an ACK outside the window: dropped */
	VERDICT(&t, S, seg(F_RA, s, c + 100000, 0, 0), FX_TCP_OUT_OF_WINDOW);
	CHECK(!(t.conn & FX_TCPC_RST), "a RST with a wrong ACK does not close");
	/* exact: the receiver's next expected (the client acknowledged s) */
	VERDICT(&t, S, seg(F_R, s, 0, 0, 0), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_RST, "an exact RST closes");

	/* exact as what the sender sends next, beyond the receiver's last ACK */
	handshake(&t, ci, si, 8192, 8192, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	VERDICT(&t, C, seg(F_A, ci + 1, si + 1, 8192, 300), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_R, ci + 1 + 300, 0, 0, 0), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_RST, "a RST at the sender's next sequence number closes");
	/* packets after it still fit and pass */
	VERDICT(&t, S, seg(F_A, si + 1, ci + 301, 8192, 0), FX_TCP_PASS);
}

static void
test_rst_sweep(void)
{
	struct fx_tcp t, before;
	uint32_t ci = 0x40000000u, si = 0x9000ffffu, seq, passed = 0, ignored = 0;
	uint64_t x = 88172645463325252ull;
	unsigned int i;

	handshake(&t, ci, si, 65535, 65535, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	before = t;
	/* 2^20 blind RSTs from "the server" at random sequence numbers */
	for (i = 0; i < (1u << 20); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		seq = (uint32_t)x;
		if (seq == si + 1)
			continue;
		switch (tr(&t, S, seg(F_R, seq, 0, 0, 0))) {
		case FX_TCP_PASS:
			passed++;
			break;
		case FX_TCP_RST_IGNORED:
			ignored++;
			break;
		default:
			break;
		}
	}
	CHECK(passed == 0, "no blind RST closed the connection (%" PRIu32 ")", passed);
	CHECK(memcmp(&t, &before, sizeof(t)) == 0, "the record is unchanged by them");
	/* the window is 2 x 65535 of 2^32 numbers: about 32 of 2^20 fall in */
	CHECK(ignored < 200, "few fell in the window (%" PRIu32 ")", ignored);
}

static void
test_syn_sent(void)
{
	struct fx_tcp t;
	struct fx_tcp_seg s = syn(F_S, 1000, 0, 8192, FX_TCP_WSCALE_NONE);

	fx_tcp_open(&t, C, &s);
	/* the SYN again, then with a new ISN: the new one counts */
	VERDICT(&t, C, syn(F_S, 1000, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	VERDICT(&t, C, syn(F_S, 90000, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	CHECK(t.d[C].end == 90001, "a new ISN starts the side over (%" PRIu32 ")", t.d[C].end);
	/* not a SYN-ACK of it, an ACK of nothing, data before the answer */
	VERDICT(&t, S, syn(F_SA, 5000, 1001, 8192, FX_TCP_WSCALE_NONE), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, S, seg(F_A, 5000, 90001, 8192, 0), FX_TCP_INVALID);
	VERDICT(&t, C, seg(F_A, 90001, 5001, 8192, 0), FX_TCP_INVALID);
	/* a RST that does not acknowledge the SYN, one without ACK, then one that does */
	VERDICT(&t, S, seg(F_RA, 0, 90002, 0, 0), FX_TCP_OUT_OF_WINDOW);
	VERDICT(&t, S, seg(F_R, 0, 0, 0, 0), FX_TCP_OUT_OF_WINDOW);
	CHECK(t.conn == FX_TCPC_SYN, "still SYN-SENT (conn %#x)", t.conn);
	VERDICT(&t, S, seg(F_RA, 0, 90001, 0, 0), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_RST, "the RST answering the SYN closes");
	/* the client tries again: a new connection */
	VERDICT(&t, C, syn(F_S, 200000, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_REOPEN);
}

static void
test_syn_recv(void)
{
	struct fx_tcp t;
	struct fx_tcp_seg s = syn(F_S, 1000, 0, 8192, FX_TCP_WSCALE_NONE);

	fx_tcp_open(&t, C, &s);
	VERDICT(&t, S, syn(F_SA, 5000, 1001, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	/* retransmitted SYN and SYN-ACK: they fit, nothing changes */
	VERDICT(&t, C, syn(F_S, 1000, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	VERDICT(&t, S, syn(F_SA, 5000, 1001, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	/* an ACK that fits the window but does not acknowledge the SYN-ACK */
	VERDICT(&t, C, seg(F_A, 1001, 5000, 8192, 0), FX_TCP_INVALID);
	CHECK(!(t.conn & FX_TCPC_EST), "not established by it");
	VERDICT(&t, C, seg(F_A, 1001, 5001, 8192, 10), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_EST, "established by the ACK of the SYN-ACK");
	/* a SYN-ACK retransmitted after that still fits */
	VERDICT(&t, S, syn(F_SA, 5000, 1001, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	/* a SYN on the established connection outside its window */
	VERDICT(&t, C, syn(F_S, 777777, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_SYN_IGNORED);
	VERDICT(&t, S, syn(F_S, 777777, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_SYN_IGNORED);
	CHECK(t.conn == (FX_TCPC_SYN | FX_TCPC_EST), "still established (conn %#x)", t.conn);
}

static void
test_simultaneous_open(void)
{
	struct fx_tcp t;
	struct fx_tcp_seg s = syn(F_S, 100, 0, 4096, 2);

	fx_tcp_open(&t, C, &s);
	VERDICT(&t, S, syn(F_S, 900, 0, 4096, 3), FX_TCP_PASS);
	CHECK(!(t.conn & FX_TCPC_EST), "two SYNs: not established");
	VERDICT(&t, C, syn(F_SA, 100, 901, 4096, 2), FX_TCP_PASS);
	CHECK(!(t.conn & FX_TCPC_EST), "one SYN-ACK: not established");
	VERDICT(&t, S, syn(F_SA, 900, 101, 4096, 3), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_EST, "both SYNs acknowledged: established");
	CHECK(t.scale[C] == 2 && t.scale[S] == 3, "both offered scaling (%u %u)", t.scale[C], t.scale[S]);
	VERDICT(&t, C, seg(F_A, 101, 901, 4096, 100), FX_TCP_PASS);
	VERDICT(&t, S, seg(F_A, 901, 201, 4096, 100), FX_TCP_PASS);
}

static void
test_fin(void)
{
	struct fx_tcp t;
	uint32_t ci = 10, si = 20;

	handshake(&t, ci, si, 8192, 8192, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	VERDICT(&t, S, seg(F_F, si + 1 + 1000000, ci + 1, 8192, 0), FX_TCP_OUT_OF_WINDOW);
	CHECK(!(t.conn & FX_TCPC_FIN), "a FIN outside the window does not close");
	VERDICT(&t, C, seg(F_F, ci + 1, si + 1, 8192, 0), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_FIN, "a FIN in the window does");
	VERDICT(&t, S, seg(F_F, si + 1, ci + 2, 8192, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, ci + 2, si + 2, 8192, 0), FX_TCP_PASS);
	/* a new SYN: from the initiator a new connection, from the other side not */
	VERDICT(&t, S, syn(F_S, 999, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_INVALID);
	VERDICT(&t, C, syn(F_S, 999, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_REOPEN);
	/* nor after a RST */
	handshake(&t, ci, si, 8192, 8192, FX_TCP_WSCALE_NONE, FX_TCP_WSCALE_NONE);
	VERDICT(&t, S, seg(F_R, si + 1, 0, 0, 0), FX_TCP_PASS);
	VERDICT(&t, S, syn(F_S, 999, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_INVALID);
	CHECK(t.conn & FX_TCPC_RST, "still closed");
}

static void
test_midstream(void)
{
	struct fx_tcp t;
	struct fx_tcp_seg s = seg(F_A, 5000, 7000, 8192, 100);

	fx_tcp_open(&t, C, &s);
	CHECK(t.conn == 0, "no SYN: picked up mid-stream (conn %#x)", t.conn);
	VERDICT(&t, S, seg(F_A, 7000, 5100, 8192, 0), FX_TCP_PASS);
	VERDICT(&t, C, seg(F_A, 5100, 7000, 8192, 0), FX_TCP_PASS);
	VERDICT(&t, S, seg(F_R, 1, 0, 0, 0), FX_TCP_PASS);
	VERDICT(&t, S, seg(F_F, 7000, 5100, 8192, 0), FX_TCP_PASS);
	CHECK(t.conn == 0, "never established, closed or closing (conn %#x)", t.conn);
	/* a SYN starts tracking over, from its sender */
	VERDICT(&t, S, syn(F_S, 300, 0, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	CHECK(t.conn == FX_TCPC_SYN && t.init == S, "a SYN opens a tracked connection");
	VERDICT(&t, C, syn(F_SA, 900, 301, 8192, FX_TCP_WSCALE_NONE), FX_TCP_PASS);
	VERDICT(&t, S, seg(F_A, 301, 901, 8192, 0), FX_TCP_PASS);
	CHECK(t.conn & FX_TCPC_EST, "then established by its handshake");
}

int
main(void)
{
	test_handshake_wrap();
	test_window_scale();
	test_rst();
	test_rst_sweep();
	test_syn_sent();
	test_syn_recv();
	test_simultaneous_open();
	test_fin();
	test_midstream();
	if (failures != 0) {
		printf("%u check(s) failed\n", failures);
		return EXIT_FAILURE;
	}
	printf("all checks passed\n");
	return EXIT_SUCCESS;
}
