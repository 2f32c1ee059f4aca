/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * ARP, neighbour discovery and ICMP on byte buffers (l3/wire.h). Fields are
 * read and written byte by byte at their RFC offsets, so there is no
 * alignment or byte-order assumption; checksums are the plain Internet
 * sum over the buffer (these messages are few: the main lcore's).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "l3/wire.h"

#define IP4_HLEN 20
#define IP6_HLEN 40
#define ICMP_HLEN 8
#define PROTO_ICMP 1
#define PROTO_ICMPV6 58
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define REPLY_TTL 64

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t
fx_wire_sum(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += rd16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

uint16_t
fx_wire_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* the IPv6 pseudo-header of an ICMPv6 message of len bytes */
static uint32_t
ip6_pseudo(const uint8_t *ip6, uint32_t len)
{
	uint8_t tail[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16),
			    (uint8_t)(len >> 8), (uint8_t)len, 0, 0, 0, PROTO_ICMPV6 };

	return fx_wire_sum(tail, sizeof(tail), fx_wire_sum(ip6 + 8, 32, 0));
}

/* the ICMPv6 checksum of the message after ip6 (len bytes), its own field 0 */
static uint16_t
icmp6_csum(const uint8_t *ip6, uint32_t len)
{
	return fx_wire_fold(fx_wire_sum(ip6 + IP6_HLEN, len, ip6_pseudo(ip6, len)));
}

static void
ip6_header(uint8_t *ip6, uint16_t plen, uint8_t hlim, const uint8_t *src,
	   const uint8_t *dst)
{
	ip6[0] = 0x60;
	ip6[1] = ip6[2] = ip6[3] = 0;
	wr16(ip6 + 4, plen);
	ip6[6] = PROTO_ICMPV6;
	ip6[7] = hlim;
	memmove(ip6 + 8, src, 16);
	memmove(ip6 + 24, dst, 16);
}

bool
fx_wire_mac_zero(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return memcmp(mac, zero, 6) == 0;
}

bool
fx_wire_ip4_unicast(const uint8_t *a)
{
	return a[0] != 0 && a[0] != 127 && a[0] < 224;
}

bool
fx_wire_ip6_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

void
fx_wire_ip6_snm(const uint8_t *target, uint8_t *snm)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

	memcpy(snm, pfx, sizeof(pfx));
	memcpy(snm + 13, target + 13, 3);
}

void
fx_wire_ip6_mcast_mac(const uint8_t *ip, uint8_t *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, ip + 12, 4);
}

void
fx_wire_ip6_linklocal(const uint8_t *mac, uint8_t *ll)
{
	memset(ll, 0, 16);
	ll[0] = 0xfe;
	ll[1] = 0x80;
	ll[8] = mac[0] ^ 0x02;
	ll[9] = mac[1];
	ll[10] = mac[2];
	ll[11] = 0xff;
	ll[12] = 0xfe;
	ll[13] = mac[3];
	ll[14] = mac[4];
	ll[15] = mac[5];
}

/* ---- ARP ---- */

enum fx_wire_err
fx_wire_arp_parse(const uint8_t *p, size_t len, struct fx_arp *a)
{
	if (len < FX_ARP_LEN)
		return FX_WIRE_TRUNC;
	if (rd16(p) != 1 || rd16(p + 2) != FX_ETHERTYPE_IPV4 || p[4] != 6 || p[5] != 4)
		return FX_WIRE_FORMAT;
	a->op = rd16(p + 6);
	if (a->op != FX_ARP_REQUEST && a->op != FX_ARP_REPLY)
		return FX_WIRE_FORMAT;
	memcpy(a->sha, p + 8, 6);
	memcpy(a->spa, p + 14, 4);
	memcpy(a->tha, p + 18, 6);
	memcpy(a->tpa, p + 24, 4);
	if (fx_wire_mac_group(a->sha) || fx_wire_mac_zero(a->sha))
		return FX_WIRE_SENDER;
	return FX_WIRE_OK;
}

size_t
fx_wire_arp_build(uint8_t *f, const uint8_t *eth_dst, uint16_t op,
		  const uint8_t *sha, const uint8_t *spa, const uint8_t *tha,
		  const uint8_t *tpa)
{
	uint8_t *p = f + FX_ETH_HLEN;
	uint8_t a[FX_ARP_LEN], ed[6];

	/* copies first: the inputs may point into f (a request answered in
	 * place) */
	memcpy(ed, eth_dst, 6);
	wr16(a, 1);
	wr16(a + 2, FX_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	memcpy(f, ed, 6);
	memcpy(f + 6, a + 8, 6);
	wr16(f + 12, FX_ETHERTYPE_ARP);
	memcpy(p, a, sizeof(a));
	memset(p + FX_ARP_LEN, 0, FX_ETH_MIN - FX_ETH_HLEN - FX_ARP_LEN);
	return FX_ETH_MIN;
}

/* ---- neighbour discovery ---- */

static bool
is_snm(const uint8_t *dst)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

	return memcmp(dst, pfx, sizeof(pfx)) == 0;
}

enum fx_wire_err
fx_wire_nd_parse(const uint8_t *ip6, size_t len, struct fx_nd *nd)
{
	const uint8_t *m = ip6 + IP6_HLEN;
	uint32_t plen, off, olen;
	uint8_t want_opt;

	memset(nd, 0, sizeof(*nd));
	if (len < IP6_HLEN)
		return FX_WIRE_TRUNC;
	if ((ip6[0] >> 4) != 6)
		return FX_WIRE_FORMAT;
	plen = rd16(ip6 + 4);
	if (IP6_HLEN + plen > len || plen < 4)
		return FX_WIRE_TRUNC;
	if (ip6[6] != PROTO_ICMPV6)
		return FX_WIRE_FORMAT;
	nd->type = m[0];
	memcpy(nd->src, ip6 + 8, 16);
	memcpy(nd->dst, ip6 + 24, 16);
	if (ip6[7] != 255)
		return FX_WIRE_HOPLIMIT;
	if (icmp6_csum(ip6, plen) != 0)
		return FX_WIRE_CKSUM;
	if (m[1] != 0)
		return FX_WIRE_FORMAT;
	if (nd->type != FX_ICMP6_NS && nd->type != FX_ICMP6_NA)
		return FX_WIRE_OK;   /* RS, RA, redirect: the caller drops them */
	if (plen < 24)
		return FX_WIRE_TRUNC;
	nd->flags = m[4];
	memcpy(nd->target, m + 8, 16);
	if (nd->target[0] == 0xff)
		return FX_WIRE_TARGET;
	want_opt = nd->type == FX_ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	for (off = 24; off < plen; off += olen) {
		if (off + 2 > plen || m[off + 1] == 0)
			return FX_WIRE_OPTION;
		olen = (uint32_t)m[off + 1] * 8;
		if (off + olen > plen)
			return FX_WIRE_OPTION;
		if (m[off] != want_opt)
			continue;   /* nonce, MTU, ...: not ours to read */
		if (olen != 8)
			return FX_WIRE_OPTION;   /* Ethernet: 6 bytes in 8 */
		memcpy(nd->lla, m + off + 2, 6);
		nd->has_lla = true;
	}
	if (nd->has_lla && (fx_wire_mac_group(nd->lla) || fx_wire_mac_zero(nd->lla)))
		return FX_WIRE_SENDER;
	if (nd->type == FX_ICMP6_NS) {
		if (fx_wire_ip6_unspec(nd->src)) {
			/* duplicate address detection (RFC 4861 7.1.1) */
			if (!is_snm(nd->dst))
				return FX_WIRE_FORMAT;
			if (nd->has_lla)
				return FX_WIRE_OPTION;
		} else if (nd->src[0] == 0xff) {
			return FX_WIRE_SENDER;
		}
	} else if (nd->dst[0] == 0xff && (nd->flags & FX_NA_SOLICITED)) {
		return FX_WIRE_FORMAT;
	}
	return FX_WIRE_OK;
}

size_t
fx_wire_nd_build(uint8_t *f, uint8_t type, const uint8_t *eth_dst,
		 const uint8_t *eth_src, const uint8_t *src, const uint8_t *dst,
		 const uint8_t *target, uint8_t flags, bool lla)
{
	uint8_t *ip6 = f + FX_ETH_HLEN, *m = ip6 + IP6_HLEN;
	uint16_t mlen = lla ? FX_ND_LEN : FX_ND_LEN - 8;
	uint8_t t[16], s[16], d[16], ed[6], es[6];

	/* copies first: the inputs may point into f */
	memcpy(t, target, 16);
	memcpy(s, src, 16);
	memcpy(d, dst, 16);
	memcpy(ed, eth_dst, 6);
	memcpy(es, eth_src, 6);
	memcpy(f, ed, 6);
	memcpy(f + 6, es, 6);
	wr16(f + 12, FX_ETHERTYPE_IPV6);
	ip6_header(ip6, mlen, 255, s, d);
	memset(m, 0, mlen);
	m[0] = type;
	if (type == FX_ICMP6_NA)
		m[4] = flags;
	memcpy(m + 8, t, 16);
	if (lla) {
		m[24] = type == FX_ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
		m[25] = 1;
		memcpy(m + 26, es, 6);
	}
	wr16(m + 2, icmp6_csum(ip6, mlen));
	return FX_ETH_HLEN + IP6_HLEN + mlen;
}

/* ---- ICMP ---- */

enum fx_wire_err
fx_wire_echo4_reply(uint8_t *ip, size_t len)
{
	uint8_t *icmp = ip + IP4_HLEN, tmp[4];
	uint16_t tot;

	if (len < IP4_HLEN)
		return FX_WIRE_TRUNC;
	if (ip[0] != 0x45)
		return FX_WIRE_FORMAT;   /* options: not reflected */
	tot = rd16(ip + 2);
	if (tot > len || tot < IP4_HLEN + ICMP_HLEN)
		return FX_WIRE_TRUNC;
	if ((rd16(ip + 6) & 0x3fff) != 0 || ip[9] != PROTO_ICMP)
		return FX_WIRE_FORMAT;
	if (icmp[0] != FX_ICMP_ECHO_REQUEST || icmp[1] != 0)
		return FX_WIRE_FORMAT;
	if (fx_wire_fold(fx_wire_sum(icmp, tot - IP4_HLEN, 0)) != 0)
		return FX_WIRE_CKSUM;
	memcpy(tmp, ip + 12, 4);
	memcpy(ip + 12, ip + 16, 4);
	memcpy(ip + 16, tmp, 4);
	ip[8] = REPLY_TTL;
	wr16(ip + 10, 0);
	wr16(ip + 10, fx_wire_fold(fx_wire_sum(ip, IP4_HLEN, 0)));
	icmp[0] = FX_ICMP_ECHO_REPLY;
	wr16(icmp + 2, 0);
	wr16(icmp + 2, fx_wire_fold(fx_wire_sum(icmp, tot - IP4_HLEN, 0)));
	return FX_WIRE_OK;
}

enum fx_wire_err
fx_wire_echo6_reply(uint8_t *ip6, size_t len)
{
	uint8_t *m = ip6 + IP6_HLEN, tmp[16];
	uint32_t plen;

	if (len < IP6_HLEN)
		return FX_WIRE_TRUNC;
	if ((ip6[0] >> 4) != 6 || ip6[6] != PROTO_ICMPV6)
		return FX_WIRE_FORMAT;
	plen = rd16(ip6 + 4);
	if (IP6_HLEN + plen > len || plen < ICMP_HLEN)
		return FX_WIRE_TRUNC;
	if (m[0] != FX_ICMP6_ECHO_REQUEST || m[1] != 0)
		return FX_WIRE_FORMAT;
	if (icmp6_csum(ip6, plen) != 0)
		return FX_WIRE_CKSUM;
	memcpy(tmp, ip6 + 8, 16);
	memcpy(ip6 + 8, ip6 + 24, 16);
	memcpy(ip6 + 24, tmp, 16);
	ip6[7] = REPLY_TTL;
	m[0] = FX_ICMP6_ECHO_REPLY;
	wr16(m + 2, 0);
	wr16(m + 2, icmp6_csum(ip6, plen));
	return FX_WIRE_OK;
}

/* ICMP types that are errors (RFC 792, 1812): no error about them */
static bool
icmp4_is_error(uint8_t type)
{
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

enum fx_wire_err
fx_wire_may_error4(const uint8_t *ip, size_t len)
{
	uint32_t ihl;

	if (len < IP4_HLEN)
		return FX_WIRE_TRUNC;
	ihl = (uint32_t)(ip[0] & 15) * 4;
	if (ihl < IP4_HLEN || ihl > len)
		return FX_WIRE_TRUNC;
	if (!fx_wire_ip4_unicast(ip + 12) || ip[19] == 255)
		return FX_WIRE_NOT_ALLOWED;   /* also x.y.z.255: maybe a broadcast */
	if (ip[16] >= 224)
		return FX_WIRE_NOT_ALLOWED;
	if ((rd16(ip + 6) & 0x1fff) != 0)
		return FX_WIRE_NOT_ALLOWED;   /* only the first fragment */
	if (ip[9] == PROTO_ICMP) {
		if (len < ihl + 1)
			return FX_WIRE_TRUNC;
		if (icmp4_is_error(ip[ihl]))
			return FX_WIRE_NOT_ALLOWED;
	}
	return FX_WIRE_OK;
}

enum fx_wire_err
fx_wire_may_error6(const uint8_t *ip6, size_t len)
{
	if (len < IP6_HLEN)
		return FX_WIRE_TRUNC;
	if (fx_wire_ip6_unspec(ip6 + 8) || ip6[8] == 0xff || ip6[24] == 0xff)
		return FX_WIRE_NOT_ALLOWED;
	if (ip6[6] == PROTO_ICMPV6) {
		if (len < IP6_HLEN + 1)
			return FX_WIRE_TRUNC;
		if (ip6[IP6_HLEN] < 128)
			return FX_WIRE_NOT_ALLOWED;   /* an ICMPv6 error */
	}
	return FX_WIRE_OK;
}

size_t
fx_wire_time_exceeded4(uint8_t *ip, const uint8_t *src, size_t quote_len)
{
	uint8_t *icmp = ip + IP4_HLEN;
	const uint8_t *q = ip + IP4_HLEN + ICMP_HLEN;
	uint16_t tot = (uint16_t)(IP4_HLEN + ICMP_HLEN + quote_len);

	ip[0] = 0x45;
	ip[1] = 0;
	wr16(ip + 2, tot);
	wr16(ip + 4, 0);
	wr16(ip + 6, 0);
	ip[8] = REPLY_TTL;
	ip[9] = PROTO_ICMP;
	memcpy(ip + 16, q + 12, 4);   /* to the quoted packet's source */
	memcpy(ip + 12, src, 4);
	wr16(ip + 10, 0);
	wr16(ip + 10, fx_wire_fold(fx_wire_sum(ip, IP4_HLEN, 0)));
	icmp[0] = FX_ICMP_TIME_EXCEEDED;
	icmp[1] = 0;   /* TTL exceeded in transit */
	memset(icmp + 2, 0, 6);
	wr16(icmp + 2, fx_wire_fold(fx_wire_sum(icmp, ICMP_HLEN + quote_len, 0)));
	return tot;
}

size_t
fx_wire_time_exceeded6(uint8_t *ip6, const uint8_t *src, size_t quote_len)
{
	uint8_t *m = ip6 + IP6_HLEN, dst[16];
	uint16_t plen = (uint16_t)(ICMP_HLEN + quote_len);

	memcpy(dst, m + ICMP_HLEN + 8, 16);   /* the quoted packet's source */
	ip6_header(ip6, plen, REPLY_TTL, src, dst);
	m[0] = FX_ICMP6_TIME_EXCEEDED;
	m[1] = 0;   /* hop limit exceeded in transit */
	memset(m + 2, 0, 6);
	wr16(m + 2, icmp6_csum(ip6, plen));
	return IP6_HLEN + plen;
}
