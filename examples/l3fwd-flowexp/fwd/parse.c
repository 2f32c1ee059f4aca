/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Packet parsing and validation (see fwd/parse.h for the key).
 *
 * Rules, in the order they are checked (the first failing one is the cause):
 *  - The frame must hold the Ethernet header and each VLAN tag -> runt.
 *    Up to two tags (0x8100, 0x88a8, 0x9100) are walked; the outer VLAN id
 *    goes into the key. The EtherType after them neither IPv4 nor IPv6
 *    (ARP, a third tag, ...) -> non_ip. The NIC's packet type is not used:
 *    NICs differ in what they report for tagged frames.
 *  - The frame must hold the fixed IP header -> runt; the IP version
 *    nibble must match the EtherType -> ip_version.
 *  - IPv4: IHL >= 5 and the header inside the frame -> ipv4_ihl;
 *    IHL*4 <= total length <= frame -> ipv4_len (Ethernet padding after
 *    the IP packet is allowed and forwarded as is); a checksum the NIC
 *    marked bad -> ipv4_cksum.
 *  - IPv6: 40 + payload length <= frame -> ipv6_len. Hop-by-hop, routing,
 *    destination options and AH headers are walked (at most
 *    FX_IPV6_EXT_MAX, each inside the payload, else ipv6_ext); a fragment
 *    header ends the walk.
 *  - Fragments (IPv4 MF or offset, IPv6 fragment header) are tracked as
 *    3-tuple flows (ports 0), since later fragments carry no L4 header.
 *  - TCP needs 20 bytes, UDP, ICMP and ICMPv6 8, inside the IP payload
 *    -> l4_trunc. Other protocols are tracked with ports 0. ICMP echo-like
 *    messages use their identifier as both ports, so the reply matches.
 *    A TCP header's data offset must be at least 20 and its header,
 *    options included, inside the segment -> l4_trunc. A SYN's MSS and
 *    window scale options are read (an option cut short ends the walk);
 *    the sequence, acknowledgment, window and payload length of every
 *    segment go into fx_pkt.tcp for the connection tracker.
 *  - TTL or hop limit <= 1 -> ttl_exceeded (counted and dropped; on a port
 *    with addresses the worker hands it to the main lcore, which answers
 *    with time exceeded: fwd/slowpath.h).
 *  - The TCP, UDP, ICMP and ICMPv6 checksums (with the IPv4 or IPv6
 *    pseudo-header, ICMP without) -> l4_cksum. A NIC's verdict is taken
 *    where the mbuf has one (RTE_MBUF_F_RX_L4_CKSUM_GOOD, or _NONE: the
 *    data was verified, the field not filled in; _BAD); without it the
 *    sum is computed over the L4 bytes, across segments. A UDP checksum of
 *    0 is "none" over IPv4 (RFC 768) and invalid over IPv6 (RFC 8200
 *    section 8.1). Fragments are not checked: their checksum covers the
 *    whole datagram. Checked last, so every cheaper rule drops first.
 */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "fwd/parse.h"

const char *const fx_cause_names[FX_CAUSE_MAX] = {
#define FX_CAUSE_NAME(e, s) s,
	FX_CAUSES(FX_CAUSE_NAME)
#undef FX_CAUSE_NAME
};

#define IPV6_EXT_HOPOPTS 0
#define IPV6_EXT_ROUTING 43
#define IPV6_EXT_FRAGMENT 44
#define IPV6_EXT_AH 51
#define IPV6_EXT_DSTOPTS 60
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ECHO_REPLY 129
#define FX_VLAN_ID_MASK 0x0fff

/* ICMPv4 messages with an identifier that the answer repeats */
static inline int
icmp4_has_id(uint8_t type)
{
	switch (type) {
	case 0: case 8:     /* echo reply, request */
	case 13: case 14:   /* timestamp */
	case 15: case 16:   /* information */
	case 17: case 18:   /* address mask */
		return 1;
	default:
		return 0;
	}
}

#define TCP_OPT_END 0
#define TCP_OPT_NOP 1
#define TCP_OPT_MSS 2
#define TCP_OPT_WSCALE 3
#define TCP_WSCALE_MAX 14   /* RFC 7323 section 2.3 */

/* the MSS and window scale options of a SYN (opt: len bytes of options) */
static void
parse_tcp_options(struct fx_tcp_seg *t, const uint8_t *opt, uint32_t len)
{
	uint32_t i = 0, olen;

	while (i < len) {
		if (opt[i] == TCP_OPT_END)
			return;
		if (opt[i] == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > len)
			return;
		if (opt[i] == TCP_OPT_MSS && olen == 4)
			t->mss = (uint16_t)(opt[i + 2] << 8 | opt[i + 3]);
		else if (opt[i] == TCP_OPT_WSCALE && olen == 3)
			t->wscale = RTE_MIN(opt[i + 2], TCP_WSCALE_MAX);
		i += olen;
	}
}

/* the TCP header at l4: len bytes of L4 in the datagram, avail in the segment */
static inline int
parse_tcp(struct fx_pkt *p, const uint8_t *l4, uint32_t len, uint32_t avail)
{
	const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)l4;
	struct fx_tcp_seg *t = &p->tcp;
	uint32_t doff = (uint32_t)(th->data_off >> 4) * 4;

	if (doff < sizeof(*th) || doff > avail)
		return FX_CAUSE_L4_TRUNC;
	p->tcp_flags = th->tcp_flags & (FX_TCP_FIN | FX_TCP_SYN | FX_TCP_RST | FX_TCP_ACK);
	t->flags = p->tcp_flags;
	t->seq = rte_be_to_cpu_32(th->sent_seq);
	t->ack = rte_be_to_cpu_32(th->recv_ack);
	t->win = rte_be_to_cpu_16(th->rx_win);
	t->len = (uint16_t)(len - doff);
	t->wscale = FX_TCP_WSCALE_NONE;
	t->mss = 0;
	if (unlikely(th->tcp_flags & FX_TCP_SYN) && doff > sizeof(*th))
		parse_tcp_options(t, l4 + sizeof(*th), doff - sizeof(*th));
	return FX_PARSE_OK;
}

/*
 * Ports from the L4 header at l4 with `len` bytes of IP payload left, of
 * which `avail` are in the segment. Returns FX_PARSE_OK or l4_trunc.
 */
static inline int
parse_l4(struct fx_pkt *p, const uint8_t *l4, uint32_t len, uint32_t avail)
{
	struct fx_key *k = &p->key;
	uint32_t need;
	uint16_t id;

	if (avail > len)
		avail = len;
	switch (k->proto) {
	case IPPROTO_TCP:
		need = sizeof(struct rte_tcp_hdr);
		break;
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		need = 8;
		break;
	default:
		return FX_PARSE_OK;
	}
	if (avail < need)
		return FX_CAUSE_L4_TRUNC;
	switch (k->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		/* source and destination port at the same offsets */
		memcpy(&k->port[0], l4, 2);
		memcpy(&k->port[1], l4 + 2, 2);
		if (k->proto == IPPROTO_TCP)
			return parse_tcp(p, l4, len, avail);
		break;
	case IPPROTO_ICMP:
		if (icmp4_has_id(l4[0])) {
			memcpy(&id, l4 + 4, 2);
			k->port[0] = k->port[1] = id;
		}
		break;
	case IPPROTO_ICMPV6:
		if (l4[0] == ICMPV6_ECHO_REQUEST || l4[0] == ICMPV6_ECHO_REPLY) {
			memcpy(&id, l4 + 4, 2);
			k->port[0] = k->port[1] = id;
		}
		break;
	}
	return FX_PARSE_OK;
}

/*
 * Whether the L4 checksum of a non-fragment is right: len bytes of L4 at
 * offset off in m, protocol proto, pseudo-header addresses src and dst of
 * alen bytes (4 or 16). The NIC's verdict first (see the rules above).
 */
static inline bool
l4_cksum_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t proto,
	    const void *src, const void *dst, unsigned int alen)
{
	const uint8_t *l4;
	uint64_t fl = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint16_t raw;
	uint32_t s;

	if (fl == RTE_MBUF_F_RX_L4_CKSUM_GOOD || fl == RTE_MBUF_F_RX_L4_CKSUM_NONE)
		return true;
	if (fl == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_ICMPV6:
		break;
	case IPPROTO_UDP:
		l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
		if (l4[6] == 0 && l4[7] == 0)
			return alen == 4;   /* none: allowed over IPv4 only */
		break;
	case IPPROTO_ICMP:
		if (alen != 4)
			return true;
		if (rte_raw_cksum_mbuf(m, off, len, &raw) != 0)
			return false;
		return raw == 0xffff;
	default:
		return true;
	}
	if (rte_raw_cksum_mbuf(m, off, len, &raw) != 0)
		return false;
	s = (uint32_t)raw + rte_raw_cksum(src, alen) + rte_raw_cksum(dst, alen) +
		rte_cpu_to_be_16((uint16_t)proto) +
		rte_cpu_to_be_16((uint16_t)(len >> 16)) + rte_cpu_to_be_16((uint16_t)len);
	s = (s & 0xffff) + (s >> 16);   /* fold, end-around carry */
	s += s >> 16;
	return (uint16_t)s == 0xffff;
}

static inline int
parse_ipv4(const struct rte_mbuf *m, const uint8_t *l3, uint32_t seg,
	   uint32_t frame, struct fx_pkt *p)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
	struct fx_key *k = &p->key;
	uint32_t ihl, tot;
	uint16_t frag;
	int rc;

	if (seg < sizeof(*ip))
		return FX_CAUSE_RUNT;
	if ((ip->version_ihl >> 4) != 4)
		return FX_CAUSE_IP_VERSION;
	ihl = (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	if (ihl < sizeof(*ip) || ihl > seg)
		return FX_CAUSE_IPV4_IHL;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl || tot > frame)
		return FX_CAUSE_IPV4_LEN;
	if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD)
		return FX_CAUSE_IPV4_CKSUM;

	k->family = FX_FAMILY_V4;
	k->proto = ip->next_proto_id;
	memcpy(k->addr[0], &ip->src_addr, 4);
	memcpy(k->addr[1], &ip->dst_addr, 4);
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	if (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		p->fragment = 1;
	} else {
		rc = parse_l4(p, l3 + ihl, tot - ihl, seg - ihl);
		if (rc != FX_PARSE_OK)
			return rc;
	}
	if (ip->time_to_live <= 1)
		return FX_CAUSE_TTL;
	if (!p->fragment &&
	    !l4_cksum_ok(m, p->l2_len + ihl, tot - ihl, k->proto, &ip->src_addr,
			 &ip->dst_addr, 4))
		return FX_CAUSE_L4_CKSUM;
	fx_key_order(p, 4);
	return FX_PARSE_OK;
}

static inline int
parse_ipv6(const struct rte_mbuf *m, const uint8_t *l3, uint32_t seg,
	   uint32_t frame, struct fx_pkt *p)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
	struct fx_key *k = &p->key;
	uint32_t end, ofs = sizeof(*ip), hlen, n;
	const uint8_t *ext;
	uint8_t nh;
	int rc;

	if (seg < sizeof(*ip))
		return FX_CAUSE_RUNT;
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return FX_CAUSE_IP_VERSION;
	end = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (end > frame)
		return FX_CAUSE_IPV6_LEN;
	if (seg > end)
		seg = end;

	nh = ip->proto;
	for (n = 0; ; n++) {
		if (nh != IPV6_EXT_HOPOPTS && nh != IPV6_EXT_ROUTING &&
		    nh != IPV6_EXT_DSTOPTS && nh != IPV6_EXT_AH &&
		    nh != IPV6_EXT_FRAGMENT)
			break;
		if (n == FX_IPV6_EXT_MAX || ofs + 8 > seg)
			return FX_CAUSE_IPV6_EXT;
		ext = l3 + ofs;
		if (nh == IPV6_EXT_FRAGMENT) {
			/* offset or M flag: a fragment; the walk ends here */
			if ((ext[2] << 8 | ext[3]) & 0xfff9)
				p->fragment = 1;
			hlen = 8;
		} else if (nh == IPV6_EXT_AH) {
			hlen = ((uint32_t)ext[1] + 2) * 4;
		} else {
			hlen = ((uint32_t)ext[1] + 1) * 8;
		}
		if (ofs + hlen > end)
			return FX_CAUSE_IPV6_EXT;
		nh = ext[0];
		ofs += hlen;
		if (p->fragment)
			break;
	}

	k->family = FX_FAMILY_V6;
	k->proto = nh;
	memcpy(k->addr[0], &ip->src_addr, 16);
	memcpy(k->addr[1], &ip->dst_addr, 16);
	if (!p->fragment) {
		rc = parse_l4(p, l3 + ofs, end - ofs, seg > ofs ? seg - ofs : 0);
		if (rc != FX_PARSE_OK)
			return rc;
	}
	if (ip->hop_limits <= 1)
		return FX_CAUSE_TTL;
	if (!p->fragment &&
	    !l4_cksum_ok(m, p->l2_len + ofs, end - ofs, nh, &ip->src_addr,
			 &ip->dst_addr, 16))
		return FX_CAUSE_L4_CKSUM;
	fx_key_order(p, 16);
	return FX_PARSE_OK;
}

static inline bool
is_vlan(uint16_t type)
{
	return type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
		type == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ) ||
		type == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ1);
}

int
fx_parse(const struct rte_mbuf *m, struct fx_pkt *p)
{
	const uint8_t *l2 = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t seg = rte_pktmbuf_data_len(m);
	uint32_t frame = rte_pktmbuf_pkt_len(m);
	uint32_t l2len = sizeof(struct rte_ether_hdr);
	const struct rte_vlan_hdr *vh;
	bool outer_known = false;
	uint16_t type;
	unsigned int n;

	memset(p, 0, offsetof(struct fx_pkt, tcp));   /* tcp: TCP only (fwd/parse.h) */
	if (seg < l2len)
		return FX_CAUSE_RUNT;
	if (unlikely(m->ol_flags & (RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_QINQ_STRIPPED))) {
		p->key.vlan = ((m->ol_flags & RTE_MBUF_F_RX_QINQ_STRIPPED) ?
			m->vlan_tci_outer : m->vlan_tci) & FX_VLAN_ID_MASK;
		outer_known = true;
	}
	type = ((const struct rte_ether_hdr *)l2)->ether_type;
	for (n = 0; n < FX_VLAN_MAX && is_vlan(type); n++) {
		if (seg < l2len + sizeof(*vh))
			return FX_CAUSE_RUNT;
		vh = (const struct rte_vlan_hdr *)(l2 + l2len);
		if (!outer_known) {
			p->key.vlan = rte_be_to_cpu_16(vh->vlan_tci) & FX_VLAN_ID_MASK;
			outer_known = true;
		}
		type = vh->eth_proto;
		l2len += sizeof(*vh);
	}
	p->l2_len = (uint8_t)l2len;
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return parse_ipv4(m, l2 + l2len, seg - l2len, frame - l2len, p);
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return parse_ipv6(m, l2 + l2len, seg - l2len, frame - l2len, p);
	return FX_CAUSE_NON_IP;
}
