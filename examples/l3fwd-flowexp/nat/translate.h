/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * NAT translation of IPv4 packets: rewrite an address and a port (or ICMP
 * echo identifier) and patch every checksum that covers them, without
 * summing the packet again.
 *
 * Checksums are updated incrementally with RFC 1624 equation 3,
 * HC' = ~(~HC + ~m + m'), word by word on the values as they are in the
 * packet (the one's complement sum does not depend on byte order):
 *   - IPv4 header checksum: the address;
 *   - TCP and UDP: the address (pseudo-header) and the port; a UDP
 *     checksum of 0 means "none" and stays 0 (RFC 768), and a computed 0
 *     is sent as 0xffff;
 *   - ICMP echo: the identifier only (no pseudo-header in ICMPv4).
 * ICMP errors (destination unreachable, time exceeded, ...) quote the
 * packet that caused them. An inbound error about a translated outbound
 * packet is translated back whole (RFC 5508 REQ-3, as Linux and VPP do):
 * the outer destination, the quoted packet's source address and port,
 * the quoted IPv4 and L4 checksums where they were quoted, and the ICMP
 * checksum over all of it.
 *
 * The caller has validated the headers (fx_parse()); these functions only
 * write. Addresses and ports are given in network order.
 */

#ifndef _FX_NAT_TRANSLATE_H_
#define _FX_NAT_TRANSLATE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

/** Fold a 32-bit sum of 16-bit words to 16 bits, end-around carry. */
static inline uint16_t
nat_cksum_fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/** Checksum after one 16-bit word covered by it changed from old to new. */
static inline uint16_t
nat_cksum_update16(uint16_t cksum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~cksum + (uint32_t)(uint16_t)~old + new;

	return (uint16_t)~nat_cksum_fold(s);
}

/** Checksum after one 32-bit field covered by it changed from old to new. */
static inline uint16_t
nat_cksum_update32(uint16_t cksum, uint32_t old, uint32_t new)
{
	uint32_t s = (uint16_t)~cksum;

	s += (uint16_t)~(old >> 16);
	s += (uint16_t)~(old & 0xffff);
	s += new >> 16;
	s += new & 0xffff;
	return (uint16_t)~nat_cksum_fold(s);
}

/* 16- and 32-bit fields at any alignment (headers are packed) */
static inline uint16_t
nat_rd16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
nat_wr16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline uint32_t
nat_rd32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
nat_wr32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/** Where the port (or echo identifier) and checksum of an L4 header are. */
struct nat_l4_fields {
	uint8_t *port;      /**< The 16-bit port to rewrite; NULL: none. */
	uint8_t *cksum;     /**< Its 16-bit checksum; NULL: not present. */
	bool pseudo;        /**< The checksum covers the IP addresses. */
	bool zero_is_none;  /**< UDP: 0 means no checksum, stays 0. */
};

/**
 * The fields of the L4 header at l4 (protocol proto) that translation
 * changes, `src` selecting the source port (else the destination port);
 * for ICMP echo the identifier, whichever `src` says. `len` is how many
 * bytes of the L4 header are present (quoted ICMP errors carry as few as
 * 8): fields beyond it are NULL.
 */
static inline struct nat_l4_fields
nat_l4_fields(void *l4, uint8_t proto, bool src, uint32_t len)
{
	struct nat_l4_fields f = { NULL, NULL, false, false };
	uint8_t *h = l4;
	uint32_t port_ofs, cksum_ofs;

	switch (proto) {
	case IPPROTO_TCP:
		port_ofs = src ? offsetof(struct rte_tcp_hdr, src_port) :
			offsetof(struct rte_tcp_hdr, dst_port);
		cksum_ofs = offsetof(struct rte_tcp_hdr, cksum);
		f.pseudo = true;
		break;
	case IPPROTO_UDP:
		port_ofs = src ? offsetof(struct rte_udp_hdr, src_port) :
			offsetof(struct rte_udp_hdr, dst_port);
		cksum_ofs = offsetof(struct rte_udp_hdr, dgram_cksum);
		f.pseudo = true;
		f.zero_is_none = true;
		break;
	case IPPROTO_ICMP:
		port_ofs = offsetof(struct rte_icmp_hdr, icmp_ident);
		cksum_ofs = offsetof(struct rte_icmp_hdr, icmp_cksum);
		break;
	default:
		return f;
	}
	if (len >= port_ofs + 2)
		f.port = h + port_ofs;
	if (len >= cksum_ofs + 2)
		f.cksum = h + cksum_ofs;
	return f;
}

/**
 * Rewrite the source (src) or destination address and port of an IPv4
 * packet to addr/port (network order) and patch its checksums. If
 * `outer_cksum` is not NULL, this packet is quoted in an ICMP error and
 * that message's checksum (over the quoted bytes) is patched for every
 * word written here as well. `l4_len` as for nat_l4_fields().
 */
static inline void
nat_rewrite_v4(struct rte_ipv4_hdr *ip, void *l4, uint32_t l4_len, bool src,
	       uint32_t addr, uint16_t port, uint8_t *outer_cksum)
{
	struct nat_l4_fields f = nat_l4_fields(l4, ip->next_proto_id, src, l4_len);
	uint8_t *a = (uint8_t *)ip + (src ? offsetof(struct rte_ipv4_hdr, src_addr) :
				      offsetof(struct rte_ipv4_hdr, dst_addr));
	uint8_t *ip_cksum = (uint8_t *)ip + offsetof(struct rte_ipv4_hdr, hdr_checksum);
	uint32_t old_addr = nat_rd32(a);
	uint16_t old_port, old_ip_cksum = nat_rd16(ip_cksum);
	uint16_t old_l4_cksum, c;

	nat_wr32(a, addr);
	c = nat_cksum_update32(old_ip_cksum, old_addr, addr);
	nat_wr16(ip_cksum, c);
	if (outer_cksum != NULL) {
		c = nat_cksum_update32(nat_rd16(outer_cksum), old_addr, addr);
		nat_wr16(outer_cksum, nat_cksum_update16(c, old_ip_cksum,
							 nat_rd16(ip_cksum)));
	}
	if (f.cksum != NULL && !(f.zero_is_none && nat_rd16(f.cksum) == 0)) {
		old_l4_cksum = nat_rd16(f.cksum);
		c = old_l4_cksum;
		if (f.pseudo)
			c = nat_cksum_update32(c, old_addr, addr);
		if (f.port != NULL)
			c = nat_cksum_update16(c, nat_rd16(f.port), port);
		if (f.zero_is_none && c == 0)
			c = 0xffff;
		nat_wr16(f.cksum, c);
		if (outer_cksum != NULL)
			nat_wr16(outer_cksum, nat_cksum_update16(nat_rd16(outer_cksum),
								 old_l4_cksum, c));
	}
	if (f.port != NULL) {
		old_port = nat_rd16(f.port);
		nat_wr16(f.port, port);
		if (outer_cksum != NULL)
			nat_wr16(outer_cksum, nat_cksum_update16(nat_rd16(outer_cksum),
								 old_port, port));
	}
}

/** ICMPv4 types NAT handles (RFC 792); DPDK's names changed in 24.11. */
enum nat_icmp_type {
	NAT_ICMP_ECHO_REPLY = 0,
	NAT_ICMP_ECHO_REQUEST = 8,
	/* errors, which quote the offending packet */
	NAT_ICMP_DEST_UNREACH = 3,
	NAT_ICMP_SOURCE_QUENCH = 4,
	NAT_ICMP_REDIRECT = 5,
	NAT_ICMP_TIME_EXCEEDED = 11,
	NAT_ICMP_PARAM_PROBLEM = 12,
};

/** Whether an ICMPv4 type is an error that quotes a packet. */
static inline bool
nat_icmp_is_error(uint8_t type)
{
	switch (type) {
	case NAT_ICMP_DEST_UNREACH:
	case NAT_ICMP_SOURCE_QUENCH:
	case NAT_ICMP_REDIRECT:
	case NAT_ICMP_TIME_EXCEEDED:
	case NAT_ICMP_PARAM_PROBLEM:
		return true;
	default:
		return false;
	}
}

/**
 * Translate an ICMP error that quotes a packet of a mapping.
 *   inbound   (from outside, to the public address, quoting a packet the
 *             inside host sent and this NAT translated): the outer
 *             destination and the quoted source become (addr, port), the
 *             inside host's;
 *   outbound  (from the inside host, quoting a reply this NAT translated
 *             for it): the outer source and the quoted destination become
 *             (addr, port), the public ones.
 * `quoted` points at the quoted IPv4 header inside the ICMP message and
 * `quoted_len` is how many bytes of it the message holds (at least its
 * IHL, checked by the caller). Every checksum is patched.
 */
static inline void
nat_icmp_error_translate(struct rte_ipv4_hdr *outer, struct rte_icmp_hdr *icmp,
			 struct rte_ipv4_hdr *quoted, uint32_t quoted_len,
			 bool inbound, uint32_t addr, uint16_t port)
{
	uint32_t ihl = rte_ipv4_hdr_len(quoted);
	uint8_t *icmp_cksum = (uint8_t *)icmp + offsetof(struct rte_icmp_hdr, icmp_cksum);
	uint8_t *outer_addr = (uint8_t *)outer + (inbound ?
		offsetof(struct rte_ipv4_hdr, dst_addr) :
		offsetof(struct rte_ipv4_hdr, src_addr));
	uint8_t *outer_cksum = (uint8_t *)outer +
		offsetof(struct rte_ipv4_hdr, hdr_checksum);
	uint32_t old = nat_rd32(outer_addr);

	nat_wr32(outer_addr, addr);
	nat_wr16(outer_cksum, nat_cksum_update32(nat_rd16(outer_cksum), old, addr));
	nat_rewrite_v4(quoted, (uint8_t *)quoted + ihl, quoted_len - ihl, inbound,
		       addr, port, icmp_cksum);
}

#endif /* _FX_NAT_TRANSLATE_H_ */
