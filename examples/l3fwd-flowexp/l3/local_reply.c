/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The gateway's answers about itself: an echo reply to an ICMP or ICMPv6
 * echo request for one of its addresses, and time exceeded (RFC 792,
 * RFC 4443) for a packet whose TTL or hop limit ran out on a port with
 * addresses. Each is built in the mbuf of its question (l3/wire.h has
 * the formats and what may not be answered: an error about an error, a
 * group destination, a fragment past the first), from the receiving
 * port's address on the sender's subnet (l3/local_addr.c), and leaves by
 * the main lcore's queue (l3/main_tx.c).
 *
 * A packet with an expired TTL to the gateway's own address is delivered
 * all the same: an echo request among them is answered. Echo replies and
 * errors each go through a token bucket of --icmp-rate a second, bursts
 * of --icmp-burst, on the main lcore's clock (given by the caller: the
 * TSC, or capture time under --clock pcap); past it they are dropped
 * and counted (echo_ratelimited, ttl_ratelimited).
 *
 * Main lcore only: no atomics but the counters' (l3/neigh_priv.h).
 */

#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "fwd/neigh.h"
#include "fwd/parse.h"
#include "l3/local_addr.h"
#include "l3/local_reply.h"
#include "l3/main_tx.h"
#include "l3/neigh_stats.h"
#include "l3/wire.h"

#define ICMP4_QUOTE_MAX (576 - 28)    /* RFC 1812 4.3.2.3 */
#define ICMP6_QUOTE_MAX (1280 - 48)   /* RFC 4443 2.4 (c) */

/* a token bucket on the main lcore's clock: per cycles a token, cap at most */
struct token_bucket {
	uint64_t credit, per, cap, last;
};

static struct token_bucket echo_bucket, error_bucket;

/* a token from b at time now, if it has one */
static bool
token_take(struct token_bucket *b, uint64_t now)
{
	if (now > b->last) {
		b->credit = RTE_MIN(b->cap, b->credit + (now - b->last));
		b->last = now;
	}
	if (b->credit < b->per)
		return false;
	b->credit -= b->per;
	return true;
}

static void
token_bucket_init(struct token_bucket *b, uint32_t rate, uint32_t burst)
{
	b->per = RTE_MAX(rte_get_tsc_hz() / rate, UINT64_C(1));
	b->cap = b->per * burst;
	b->credit = b->cap;
	b->last = 0;
}

void
fx_local_reply_init(uint32_t rate, uint32_t burst)
{
	token_bucket_init(&echo_bucket, rate, burst);
	token_bucket_init(&error_bucket, rate, burst);
}

/* the frame's IP family from its EtherType (an untagged frame) */
static uint8_t
frame_family(const uint8_t *f)
{
	return f[12] == 0x86 && f[13] == 0xdd ? FX_FAMILY_V6 : FX_FAMILY_V4;
}

/* back to its sender: the destination MAC is the source's, the source port's */
static void
turn_around_l2(uint8_t *f, uint16_t port)
{
	memmove(f, f + 6, 6);
	memcpy(f + 6, fx_main_tx_mac(port), 6);
}

void
fx_local_reply_echo(struct rte_mbuf *m, uint16_t port, uint64_t now)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	enum fx_wire_err err;

	if (frame_family(f) == FX_FAMILY_V4)
		err = fx_wire_echo4_reply(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN);
	else
		err = fx_wire_echo6_reply(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN);
	if (err != FX_WIRE_OK || m->nb_segs != 1) {
		FX_NEIGH_COUNT(port, echo_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (!token_take(&echo_bucket, now)) {
		FX_NEIGH_COUNT(port, echo_ratelimited, 1);
		rte_pktmbuf_free(m);
		return;
	}
	turn_around_l2(f, port);
	FX_NEIGH_COUNT(port, echo_replies, 1);
	fx_main_tx_send(port, m);
}

void
fx_local_reply_ttl(struct rte_mbuf *m, uint16_t port, uint64_t now)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *ip = f + FX_ETH_HLEN, mac[6];
	uint8_t family = frame_family(f);
	size_t hdr, quote, iplen, avail = m->data_len - FX_ETH_HLEN;
	const uint8_t *src;
	enum fx_wire_err err;
	uint32_t d4;

	/* the gateway's own address: delivered, whatever the TTL */
	if (family == FX_FAMILY_V4) {
		memcpy(&d4, ip + 16, 4);
		if (avail >= 21 && fx_l3_local4(d4)) {
			fx_local_reply_echo(m, port, now);
			return;
		}
		err = fx_wire_may_error4(ip, avail);
		iplen = (size_t)(ip[2] << 8 | ip[3]);
		hdr = 28;
		quote = ICMP4_QUOTE_MAX;
	} else {
		if (avail >= 40 && fx_l3_local6(ip + 24)) {
			fx_local_reply_echo(m, port, now);
			return;
		}
		err = fx_wire_may_error6(ip, avail);
		iplen = 40 + (size_t)(ip[4] << 8 | ip[5]);
		hdr = 48;
		quote = ICMP6_QUOTE_MAX;
	}
	if (err != FX_WIRE_OK || m->nb_segs != 1 || rte_pktmbuf_headroom(m) < hdr) {
		FX_NEIGH_COUNT(port, ttl_not_answered, 1);
		goto free;
	}
	src = family == FX_FAMILY_V4 ? fx_local_addr_source4(port, ip + 12) :
		fx_local_addr_source6(port, ip + 8);
	if (src == NULL) {
		FX_NEIGH_COUNT(port, icmp_no_source, 1);
		goto free;
	}
	if (!token_take(&error_bucket, now)) {
		FX_NEIGH_COUNT(port, ttl_ratelimited, 1);
		goto free;
	}
	quote = RTE_MIN(quote, RTE_MIN(iplen, avail));
	memcpy(mac, f + 6, 6);
	f = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)hdr);
	memcpy(f, mac, 6);
	memcpy(f + 6, fx_main_tx_mac(port), 6);
	f[12] = family == FX_FAMILY_V4 ? 0x08 : 0x86;
	f[13] = family == FX_FAMILY_V4 ? 0x00 : 0xdd;
	if (family == FX_FAMILY_V4)
		iplen = fx_wire_time_exceeded4(f + FX_ETH_HLEN, src, quote);
	else
		iplen = fx_wire_time_exceeded6(f + FX_ETH_HLEN, src, quote);
	fx_main_frame_resize(m, (uint16_t)RTE_MAX(FX_ETH_HLEN + iplen, (size_t)FX_ETH_MIN));
	FX_NEIGH_COUNT(port, ttl_time_exceeded, 1);
	fx_main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}
