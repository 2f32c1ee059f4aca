/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Packet parsing: validate the Ethernet, IPv4/IPv6 and L4 headers of a
 * received frame and build its symmetric flow key.
 *
 * The key names the two endpoints (address, port) of a connection in a
 * fixed order, the lower one first, so both directions of a connection
 * produce the same key; `dir` tells which endpoint sent this packet. Every
 * frame that cannot be forwarded safely gets a cause (enum fx_cause) that
 * is counted and the frame dropped; the rules are in doc/operations.md
 * ("Malformed packets"). A TCP segment's sequence space (struct
 * fx_tcp_seg) is kept for the connection tracker (flow/tcp_track.h).
 */

#ifndef _FX_PARSE_H_
#define _FX_PARSE_H_

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

/** Address families in fx_key.family. */
#define FX_FAMILY_V4 4
#define FX_FAMILY_V6 6

/**
 * A connection 5-tuple and its outer VLAN in symmetric order; 40 bytes, no
 * holes. The same addresses on two VLANs are two connections.
 */
struct fx_key {
	uint8_t addr[2][16];  /**< IPv4: first 4 bytes, rest zero. */
	uint16_t port[2];     /**< Network order; ICMP echo id; 0 without ports. */
	uint8_t proto;        /**< IP protocol (after IPv6 extension headers). */
	uint8_t family;       /**< FX_FAMILY_V4 or FX_FAMILY_V6. */
	uint16_t vlan;        /**< Outer VLAN id (12 bits, host order); 0 untagged. */
};

/** VLAN tags read before the IP header (802.1Q, 802.1ad QinQ). */
#define FX_VLAN_MAX 2

/** Malformed-packet causes: enum name and counter name. */
#define FX_CAUSES(X) \
	X(NON_IP, "non_ip") \
	X(RUNT, "runt") \
	X(IP_VERSION, "ip_version") \
	X(IPV4_IHL, "ipv4_ihl") \
	X(IPV4_LEN, "ipv4_len") \
	X(IPV4_CKSUM, "ipv4_cksum") \
	X(IPV6_LEN, "ipv6_len") \
	X(IPV6_EXT, "ipv6_ext") \
	X(L4_TRUNC, "l4_trunc") \
	X(TTL, "ttl_exceeded") \
	X(L4_CKSUM, "l4_cksum")

enum fx_cause {
#define FX_CAUSE_ENUM(e, s) FX_CAUSE_ ## e,
	FX_CAUSES(FX_CAUSE_ENUM)
#undef FX_CAUSE_ENUM
	FX_CAUSE_MAX
};

/** fx_parse() result for a packet that can be forwarded. */
#define FX_PARSE_OK FX_CAUSE_MAX

/** Counter names of the causes, indexed by enum fx_cause. */
extern const char *const fx_cause_names[FX_CAUSE_MAX];

/** TCP flags the flow state follows. */
#define FX_TCP_FIN 0x01
#define FX_TCP_SYN 0x02
#define FX_TCP_RST 0x04
#define FX_TCP_ACK 0x10

/** At most this many IPv6 extension headers before the L4 header. */
#define FX_IPV6_EXT_MAX 8

/** fx_tcp_seg.wscale of a SYN without the window scale option. */
#define FX_TCP_WSCALE_NONE 0xff

/**
 * What the connection tracker reads of a TCP segment (flow/tcp_track.h). Host
 * byte order. Written for TCP segments that are not fragments only, and
 * left as it was for every other packet (the parser does not clear it, so
 * that other packets do not write the cache line it ends in).
 */
struct fx_tcp_seg {
	uint32_t seq;       /**< Sequence number. */
	uint32_t ack;       /**< Acknowledgment number (meaningful with ACK). */
	uint16_t win;       /**< Window as sent, before scaling. */
	uint16_t len;       /**< Payload bytes after the TCP header. */
	uint8_t flags;      /**< FX_TCP_* of the segment (as fx_pkt.tcp_flags). */
	uint8_t wscale;     /**< SYN: the window scale option, or FX_TCP_WSCALE_NONE. */
	uint16_t mss;       /**< SYN: the MSS option; 0 without one. */
};

/**
 * What parsing learned about one packet. Kept in the mbuf's private area
 * (fx_pkt_of()), so it travels with a packet handed to another worker.
 */
struct fx_pkt {
	struct fx_key key;
	uint32_t hash;       /**< Hash of key (the flow table's, direction-independent);
			     *   set for packets NAT does not translate, and for
			     *   every packet under handoff. */
	uint8_t dir;        /**< 0: sent by endpoint 0 to endpoint 1; 1: reverse. */
	uint8_t tcp_flags;  /**< FX_TCP_* seen in this packet. */
	uint8_t fragment;   /**< 1: an IP fragment, tracked without ports. */
	uint8_t l2_len;     /**< Ethernet header and VLAN tags: where IP starts. */
	uint16_t owner;     /**< Worker that handles it (boot/affinity.h, worker/handoff.h). */
	uint8_t nat;        /**< enum fx_nat_class (nat/nat.h). */
	struct fx_tcp_seg tcp;  /**< TCP: the segment's sequence space (last: see above). */
};

/** The mbuf private area the parse result is kept in. */
static inline struct fx_pkt *
fx_pkt_of(struct rte_mbuf *m)
{
	return (struct fx_pkt *)rte_mbuf_to_priv(m);
}

/** Private area size the mbuf pools must be created with. */
#define FX_MBUF_PRIV_SIZE RTE_ALIGN_CEIL(sizeof(struct fx_pkt), RTE_MBUF_PRIV_ALIGN)

/**
 * memcmp() of two addresses of alen bytes (4 or 16), as big-endian words:
 * the same order, without a library call per packet.
 */
static inline int
fx_addr_cmp(const uint8_t *a, const uint8_t *b, unsigned int alen)
{
	uint64_t x, y;
	uint32_t u, v;
	unsigned int i;

	if (alen == 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		u = rte_be_to_cpu_32(u);
		v = rte_be_to_cpu_32(v);
		return (u > v) - (u < v);
	}
	for (i = 0; i < alen; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
			x = rte_be_to_cpu_64(x);
			y = rte_be_to_cpu_64(y);
			return x > y ? 1 : -1;
		}
	}
	return 0;
}

/**
 * Put the endpoints of p's key in symmetric order, lower (address, port)
 * first, and set p->dir; alen is 4 (IPv4) or 16. The parser does it for
 * every packet; NAT does it for the connection an ICMP error quotes.
 */
static inline void
fx_key_order(struct fx_pkt *p, unsigned int alen)
{
	struct fx_key *k = &p->key;
	int c = fx_addr_cmp(k->addr[0], k->addr[1], alen);
	uint8_t tmp[16];
	uint16_t tp;

	if (c == 0)
		c = (int)k->port[0] - (int)k->port[1];
	if (c <= 0) {
		p->dir = 0;
		return;
	}
	memcpy(tmp, k->addr[0], alen);
	memcpy(k->addr[0], k->addr[1], alen);
	memcpy(k->addr[1], tmp, alen);
	tp = k->port[0];
	k->port[0] = k->port[1];
	k->port[1] = tp;
	p->dir = 1;
}

/**
 * Validate one frame and build its key.
 *
 * Reads the EtherType from the frame, through up to FX_VLAN_MAX VLAN tags
 * (0x8100, 0x88a8, 0x9100), whatever packet type the NIC reported; a tag
 * the NIC stripped (RTE_MBUF_F_RX_VLAN_STRIPPED / QINQ_STRIPPED) counts as
 * the outer one. Then checks the headers against the frame: lengths, IHL,
 * version, IPv6 extension chain, L4 header, TTL/hop limit, the NIC's
 * IPv4 checksum flag when the port verifies checksums, and the TCP, UDP,
 * ICMP or ICMPv6 checksum: the NIC's verdict where it gives one, else
 * computed here. Headers must be in the first segment.
 *
 * @return
 *   FX_PARSE_OK, or the enum fx_cause to count and drop.
 */
int fx_parse(const struct rte_mbuf *m, struct fx_pkt *p);

#endif /* _FX_PARSE_H_ */
