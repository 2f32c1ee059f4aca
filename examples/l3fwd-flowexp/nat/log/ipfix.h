/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * IPFIX (RFC 7011) messages of NAT events with the information elements
 * of RFC 8158: the event record as the NAT log carries it, the four
 * templates, and an encoder that fills one message at a time. Pure code:
 * no DPDK, no system call, no allocation (test/unit/ipfix_test.c checks it
 * against hand-decoded bytes).
 *
 * Templates (set ID 2, one template record each; every field in network
 * byte order, fixed length, so every data record of a template has one
 * size):
 *
 *   256 session (natEvent 4 NAT44 session create, 5 NAT44 session delete),
 *       28 bytes:
 *         323 observationTimeMilliseconds   8
 *         230 natEvent                      1
 *           8 sourceIPv4Address             4   inside host
 *           7 sourceTransportPort           2   inside port (ICMP: echo id)
 *         225 postNATSourceIPv4Address      4   public address
 *         227 postNAPTSourceTransportPort   2   public port (ICMP: echo id)
 *          12 destinationIPv4Address        4   remote host
 *          11 destinationTransportPort      2   remote port (ICMP: 0)
 *           4 protocolIdentifier            1
 *   257 port block (16 port block allocation, 17 de-allocation), 26 bytes:
 *         323, 230, 8 (the block's host), 225 (its public address),
 *           4 protocolIdentifier            1   0: every protocol
 *         361 portRangeStart                2
 *         362 portRangeEnd                  2
 *         363 portRangeStepSize             2   1
 *         364 portRangeNumPorts             2   end - start + 1
 *   258 limit (3 addresses exhausted, 12 ports exhausted, 13 quota
 *       exceeded), 42 bytes:
 *         323, 230,
 *         466 natQuotaExceededEvent         4   13 only: 1 maximum session
 *                                               entries, 3 maximum entries
 *                                               per user; else 0
 *           8 sourceIPv4Address             4   the host refused
 *           7 sourceTransportPort           2
 *         225 postNATSourceIPv4Address      4   its public address
 *          12 destinationIPv4Address        4   the remote it asked for
 *          11 destinationTransportPort      2
 *           4 protocolIdentifier            1
 *         471 maxSessionEntries             4   quota 1: the table's size
 *         473 maxEntriesPerUser             4   quota 3: the limit
 *         283 natPoolId                     4   0: the one pool
 *   259 binding (8 NAT44 BIB create, 9 NAT44 BIB delete: an
 *       endpoint-independent mapping, --nat-mapping eim), 22 bytes:
 *         323, 230, 8 (inside host), 7 (inside port; ICMP: echo id),
 *         225 (public address), 227 (public port; ICMP: echo id),
 *           4 protocolIdentifier            1
 *
 * A message: the 16-byte header (version 10, length, export time in
 * seconds, sequence number: the data records sent before it in this
 * observation domain, modulo 2^32, the observation domain), then sets;
 * consecutive records of one template share a set, a record of another
 * template opens a new one. A message never exceeds the capacity it was
 * started with (IPFIX_MSG_MAX by default, under a 1500-byte path MTU
 * with IPv4 and UDP headers).
 *
 * Time (IE 323, milliseconds since the epoch) from the example's clock
 * (TSC cycles, worker/clock.h): under --clock pcap a time is a capture time
 * converted as floor(us * hz / 1e6) (fx_clock_pkt()), or such a time plus
 * timeouts and hold-downs in cycles; ipfix_ms_from_capture() inverts it
 * with the same hz, rounding the microseconds up, which gives the capture
 * microsecond back exactly (the rounding down lost less than one cycle,
 * and a cycle is less than a microsecond), then truncates to the
 * millisecond. Under the TSC clock: the wall clock read at start-up plus
 * the cycles elapsed since (ipfix_ms_from_tsc()).
 */

#ifndef _FX_IPFIX_H_
#define _FX_IPFIX_H_

#include <stdbool.h>
#include <stdint.h>

/** natEvent values (RFC 8158 section 4, IANA "natEvent"). */
enum ipfix_nat_event_type {
	IPFIX_NAT_ADDRESSES_EXHAUSTED = 3,
	IPFIX_NAT44_SESSION_CREATE = 4,
	IPFIX_NAT44_SESSION_DELETE = 5,
	IPFIX_NAT44_BIB_CREATE = 8,
	IPFIX_NAT44_BIB_DELETE = 9,
	IPFIX_NAT_PORTS_EXHAUSTED = 12,
	IPFIX_NAT_QUOTA_EXCEEDED = 13,
	IPFIX_NAT_PORT_BLOCK_ALLOC = 16,
	IPFIX_NAT_PORT_BLOCK_DEALLOC = 17,
};

/** natQuotaExceededEvent values (RFC 8158 section 4.1.6). */
enum ipfix_nat_quota {
	IPFIX_QUOTA_NONE = 0,
	IPFIX_QUOTA_MAX_SESSIONS = 1,
	IPFIX_QUOTA_MAX_PER_USER = 3,
};

/** Template IDs. */
enum ipfix_template_id {
	IPFIX_TMPL_SESSION = 256,
	IPFIX_TMPL_BLOCK = 257,
	IPFIX_TMPL_LIMIT = 258,
	IPFIX_TMPL_BIB = 259,
};

#define IPFIX_VERSION 10
#define IPFIX_HDR_LEN 16
#define IPFIX_SET_HDR_LEN 4
/** Default message capacity: a 1500-byte MTU less IPv4, UDP and slack. */
#define IPFIX_MSG_MAX 1400
/** Data record sizes of the templates. */
#define IPFIX_SESSION_LEN 28
#define IPFIX_BLOCK_LEN 26
#define IPFIX_LIMIT_LEN 42
#define IPFIX_BIB_LEN 22

/**
 * One NAT event as the log carries it: 40 bytes, fixed. Addresses and
 * ports in network byte order, as the mapping table has them; time in
 * the example's clock (TSC cycles). Fields an event has no use for are 0.
 */
struct ipfix_nat_event {
	uint64_t time;          /**< the example's clock, TSC cycles */
	uint32_t in_addr;       /**< inside host (blocks: the block's host) */
	uint32_t pub_addr;      /**< public address */
	uint32_t rem_addr;      /**< remote host */
	uint32_t limit;         /**< quota exceeded: the limit */
	uint16_t in_port;       /**< inside port, ICMP echo id */
	uint16_t pub_port;      /**< public port, ICMP echo id */
	uint16_t rem_port;      /**< remote port; 0 for ICMP */
	uint16_t port_lo;       /**< port block: first port (host order) */
	uint16_t port_hi;       /**< port block: last port (host order) */
	uint8_t proto;          /**< IP protocol; blocks: 0 for every one */
	uint8_t event;          /**< enum ipfix_nat_event_type */
	uint8_t quota;          /**< enum ipfix_nat_quota */
	uint8_t pad[3];
};

/** A message being filled. */
struct ipfix_msg {
	uint8_t *buf;
	uint16_t cap;           /**< bytes at most */
	uint16_t len;           /**< bytes so far, header included */
	uint16_t set_off;       /**< offset of the open set's header; 0: none */
	uint16_t set_id;        /**< the open set's ID */
	uint32_t records;       /**< data records so far */
};

/** The template a natEvent's records use, or 0 for one the log never sends. */
uint16_t ipfix_template_of(uint8_t event);

/** Start a message in buf of cap bytes (at least IPFIX_HDR_LEN + 256). */
void ipfix_msg_start(struct ipfix_msg *m, uint8_t *buf, uint16_t cap);

/** Add the template set (all four templates). 0, or -ENOSPC (nothing added). */
int ipfix_msg_add_templates(struct ipfix_msg *m);

/**
 * Add the data record of ev with observation time ms. 0, -ENOSPC (no
 * room: nothing added) or -EINVAL (an event without a template).
 */
int ipfix_msg_add_event(struct ipfix_msg *m, const struct ipfix_nat_event *ev,
			uint64_t ms);

/** Whether the message holds nothing after its header. */
static inline bool
ipfix_msg_empty(const struct ipfix_msg *m)
{
	return m->len <= IPFIX_HDR_LEN;
}

/**
 * Close the open set and write the header: export time (seconds since the
 * epoch), sequence number, observation domain. Returns the length.
 */
uint16_t ipfix_msg_finish(struct ipfix_msg *m, uint32_t export_time,
			  uint32_t seq, uint32_t domain);

/** IE 323 of a --clock pcap time t (TSC cycles at hz), exactly (see above). */
static inline uint64_t
ipfix_ms_from_capture(uint64_t t, uint64_t hz)
{
	unsigned __int128 us = ((unsigned __int128)t * 1000000u + hz - 1) / hz;

	return (uint64_t)(us / 1000u);
}

/**
 * IE 323 of a TSC-clock time t: the wall clock wall_ns0 (nanoseconds since
 * the epoch) read at TSC tsc0, plus the cycles since at hz.
 */
static inline uint64_t
ipfix_ms_from_tsc(uint64_t t, uint64_t tsc0, uint64_t wall_ns0, uint64_t hz)
{
	__int128 d = (__int128)t - (__int128)tsc0;
	__int128 ns = (__int128)wall_ns0 + d * 1000000000 / (__int128)hz;

	return ns <= 0 ? 0 : (uint64_t)(ns / 1000000);
}

#endif /* _FX_IPFIX_H_ */
