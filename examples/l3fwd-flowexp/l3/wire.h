/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The wire formats the main lcore reads and writes for the gateway's own
 * traffic (l3/wire.c): ARP (RFC 826), IPv6 neighbour discovery (RFC 4861:
 * solicitations and advertisements), ICMP and ICMPv6 echo replies and
 * time-exceeded messages (RFC 792, 1812, 4443). Plain functions of byte
 * buffers, no mbuf and no state, so the unit test checks them against
 * known frames.
 *
 * Every parser treats its input as hostile: each field is checked against
 * the length it was given before it is read, and what fails says why (an
 * enum fx_wire_err the caller counts). Addresses are in network order
 * throughout; an IPv4 address is 4 bytes, an IPv6 one 16.
 */

#ifndef _FX_WIRE_H_
#define _FX_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FX_ETH_HLEN 14
#define FX_ETH_MIN 60          /**< frame without FCS, padded to this */
#define FX_ETHERTYPE_IPV4 0x0800
#define FX_ETHERTYPE_ARP 0x0806
#define FX_ETHERTYPE_IPV6 0x86dd
#define FX_ARP_LEN 28          /**< Ethernet / IPv4 ARP body */
#define FX_ND_LEN 32           /**< NS or NA with one link-layer option */
#define FX_ND_FRAME (FX_ETH_HLEN + 40 + FX_ND_LEN)
#define FX_ARP_REQUEST 1
#define FX_ARP_REPLY 2

#define FX_ICMP6_RS 133
#define FX_ICMP6_RA 134
#define FX_ICMP6_NS 135
#define FX_ICMP6_NA 136
#define FX_ICMP6_REDIRECT 137
#define FX_ICMP6_ECHO_REQUEST 128
#define FX_ICMP6_ECHO_REPLY 129
#define FX_ICMP_ECHO_REQUEST 8
#define FX_ICMP_ECHO_REPLY 0
#define FX_ICMP_TIME_EXCEEDED 11
#define FX_ICMP6_TIME_EXCEEDED 3

/** NA flags (the first byte of the reserved word). */
#define FX_NA_ROUTER 0x80
#define FX_NA_SOLICITED 0x40
#define FX_NA_OVERRIDE 0x20

/** Why a frame was refused. */
enum fx_wire_err {
	FX_WIRE_OK = 0,
	FX_WIRE_TRUNC,        /**< shorter than its headers say */
	FX_WIRE_FORMAT,       /**< wrong hardware / protocol type or length, opcode, code */
	FX_WIRE_SENDER,       /**< a multicast, broadcast or zero sender MAC, a bad source */
	FX_WIRE_CKSUM,        /**< ICMP or ICMPv6 checksum */
	FX_WIRE_HOPLIMIT,     /**< ND not at hop limit 255 (RFC 4861 7.1) */
	FX_WIRE_OPTION,       /**< an ND option of length 0, past the end, or not allowed */
	FX_WIRE_TARGET,       /**< an ND target that is multicast */
	FX_WIRE_NOT_ALLOWED,  /**< an error about an error, to or from a group address */
};

/** An ARP packet's fields (IPv4 over Ethernet). */
struct fx_arp {
	uint16_t op;
	uint8_t sha[6];
	uint8_t spa[4];
	uint8_t tha[6];
	uint8_t tpa[4];
};

/** A neighbour solicitation or advertisement. */
struct fx_nd {
	uint8_t type;            /**< FX_ICMP6_NS or FX_ICMP6_NA (others: only type) */
	uint8_t flags;           /**< NA: FX_NA_* */
	uint8_t src[16];         /**< IPv6 source */
	uint8_t dst[16];         /**< IPv6 destination */
	uint8_t target[16];
	uint8_t lla[6];          /**< NS: source, NA: target link-layer address */
	bool has_lla;
};

/** Internet checksum of len bytes, added to sum (a 32-bit running sum). */
uint32_t fx_wire_sum(const void *p, size_t len, uint32_t sum);
/** Fold a running sum into the one's complement checksum. */
uint16_t fx_wire_fold(uint32_t sum);

/** Whether mac is a group (multicast or broadcast) address. */
static inline bool
fx_wire_mac_group(const uint8_t *mac)
{
	return (mac[0] & 1) != 0;
}

/** Whether mac is 00:00:00:00:00:00. */
bool fx_wire_mac_zero(const uint8_t *mac);

/** Whether a (4 bytes) is a unicast host address someone may have: not
 * 0/8, 127/8, 224/3 (multicast, reserved, broadcast). */
bool fx_wire_ip4_unicast(const uint8_t *a);

/** Whether a (16 bytes) is :: */
bool fx_wire_ip6_unspec(const uint8_t *a);

/** The solicited-node multicast address of target (ff02::1:ffXX:XXXX). */
void fx_wire_ip6_snm(const uint8_t *target, uint8_t *snm);

/** The Ethernet address of IPv6 group ip (33:33 and its last 4 bytes). */
void fx_wire_ip6_mcast_mac(const uint8_t *ip, uint8_t *mac);

/** The EUI-64 link-local address of mac (fe80::/64, U/L bit flipped). */
void fx_wire_ip6_linklocal(const uint8_t *mac, uint8_t *ll);

/**
 * Parse the ARP packet at p (after the Ethernet header), len bytes.
 * Checks: 28 bytes, hardware type 1, protocol 0x0800, lengths 6 and 4,
 * opcode request or reply, a sender MAC that is not a group address or
 * zero. FX_WIRE_OK or the reason.
 */
enum fx_wire_err fx_wire_arp_parse(const uint8_t *p, size_t len, struct fx_arp *a);

/**
 * Write an ARP frame of FX_ETH_MIN bytes at f: Ethernet to eth_dst from
 * sha, opcode op, sender (sha, spa), target (tha, tpa). Returns its length.
 */
size_t fx_wire_arp_build(uint8_t *f, const uint8_t *eth_dst, uint16_t op,
			 const uint8_t *sha, const uint8_t *spa,
			 const uint8_t *tha, const uint8_t *tpa);

/**
 * Parse an NS or NA in the IPv6 packet at ip6, len bytes (no extension
 * header: the ICMPv6 header follows the fixed one). Checks (RFC 4861
 * 7.1.1, 7.1.2): the IPv6 lengths, hop limit 255, the checksum, code 0,
 * 24 bytes of message, a target that is not multicast, each option's
 * length non-zero and inside the message; an NS from :: goes to a
 * solicited-node address and carries no source option; an NA to a group
 * address has S clear. A link-layer option must be 8 bytes (Ethernet).
 * Router solicitations, advertisements and redirects come back as
 * FX_WIRE_OK with only type set (the caller counts and drops them).
 */
enum fx_wire_err fx_wire_nd_parse(const uint8_t *ip6, size_t len, struct fx_nd *nd);

/**
 * Write an NS or NA frame of FX_ND_FRAME bytes at f: Ethernet eth_dst from
 * eth_src, IPv6 src -> dst at hop limit 255, target, flags (NA), and a
 * link-layer option with eth_src (source for NS, target for NA) unless
 * lla is false (an NS from ::, then 8 bytes shorter). Returns its length.
 */
size_t fx_wire_nd_build(uint8_t *f, uint8_t type, const uint8_t *eth_dst,
			const uint8_t *eth_src, const uint8_t *src, const uint8_t *dst,
			const uint8_t *target, uint8_t flags, bool lla);

/**
 * Turn the IPv4 echo request at ip (len bytes, the IP packet alone) into
 * its reply, in place: addresses swapped, TTL 64, type 0, both checksums.
 * Refuses (nothing changed) options, fragments, a bad checksum, anything
 * but type 8 code 0.
 */
enum fx_wire_err fx_wire_echo4_reply(uint8_t *ip, size_t len);

/** The same for ICMPv6 (type 128 to 129; no extension header). */
enum fx_wire_err fx_wire_echo6_reply(uint8_t *ip6, size_t len);

/**
 * Whether the IPv4 packet at ip (len bytes) may be answered with an ICMP
 * error (RFC 1812 4.3.2.7): not an ICMP error itself, not a later
 * fragment, from a unicast host, to a unicast address.
 */
enum fx_wire_err fx_wire_may_error4(const uint8_t *ip, size_t len);

/** The same for IPv6 (RFC 4443 2.4 (e)). */
enum fx_wire_err fx_wire_may_error6(const uint8_t *ip6, size_t len);

/**
 * Write the IPv4 and ICMP headers (28 bytes) of a time-exceeded message
 * at ip, from src to the source of the quoted datagram, which is already
 * at ip + 28 (quote_len bytes). Returns the IP length.
 */
size_t fx_wire_time_exceeded4(uint8_t *ip, const uint8_t *src, size_t quote_len);

/** The same for ICMPv6 (48 bytes of headers before the quote). */
size_t fx_wire_time_exceeded6(uint8_t *ip6, const uint8_t *src, size_t quote_len);

/** The broadcast MAC, and ff02::1, the IPv6 all-nodes group. */
static const uint8_t fx_bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t fx_all_nodes[16] = { 0xff, 0x02, [15] = 1 };

#endif /* _FX_WIRE_H_ */
