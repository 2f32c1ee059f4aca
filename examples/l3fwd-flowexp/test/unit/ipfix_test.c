/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The IPFIX encoder (nat/log/ipfix.h) against bytes decoded by hand (fast-tests;
 * pure, no EAL): the template set, a session record, a message whose
 * records change template (one set per run of one template), a port block
 * and a quota record, the header's fields, a message filled to its
 * capacity and never past it; and IE 323 from the example's clock: every
 * capture microsecond converted to TSC cycles as fx_clock_pkt() does, with
 * timeouts and hold-downs in cycles added, comes back as its own
 * millisecond at TSC rates that do not divide 1e6 evenly.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nat/log/ipfix.h"
#include "test/lib/test_check.h"

static bool
same(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			check(false, "%s: byte %zu is 0x%02x, want 0x%02x", what, i,
			      got[i], want[i]);
			return false;
		}
	}
	return check(true, "%s: %zu bytes as decoded by hand", what, n);
}

/*
 * Finish m with the header's export time, sequence number and observation
 * domain, then check it against want: its length and its count of data
 * records ("NAME message: ..."), and where those hold, every byte
 * ("WHAT: ...").
 */
static void
finish_as(struct ipfix_msg *m, uint32_t export_time, uint32_t seq, uint32_t domain,
	  const uint8_t *want, size_t want_len, uint32_t records, const char *name,
	  const char *what)
{
	uint16_t len = ipfix_msg_finish(m, export_time, seq, domain);

	if (check(len == want_len && m->records == records,
		  "%s message: %u bytes (want %zu), %u record%s", name, len, want_len,
		  m->records, m->records == 1 ? "" : "s"))
		same(m->buf, want, len, what);
}

static uint32_t
addr(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

/* a UDP mapping 10.1.0.1:5000 -> 203.0.113.1:5001 towards 198.18.0.10:53 */
static struct ipfix_nat_event
session(uint8_t event)
{
	struct ipfix_nat_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.event = event;
	ev.in_addr = addr("10.1.0.1");
	ev.in_port = htons(5000);
	ev.pub_addr = addr("203.0.113.1");
	ev.pub_port = htons(5001);
	ev.rem_addr = addr("198.18.0.10");
	ev.rem_port = htons(53);
	ev.proto = 17;
	return ev;
}

static void
test_templates(void)
{
	static const uint8_t want[] = {
		/* header: version 10, length 184, export time 0x01020304,
		 * sequence 0, observation domain 7 */
		0x00, 0x0a, 0x00, 0xb8, 0x01, 0x02, 0x03, 0x04,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
		/* template set (ID 2), length 168 */
		0x00, 0x02, 0x00, 0xa8,
		/* template 256, 9 fields */
		0x01, 0x00, 0x00, 0x09,
		0x01, 0x43, 0x00, 0x08,   /* 323 observationTimeMilliseconds 8 */
		0x00, 0xe6, 0x00, 0x01,   /* 230 natEvent 1 */
		0x00, 0x08, 0x00, 0x04,   /* 8 sourceIPv4Address 4 */
		0x00, 0x07, 0x00, 0x02,   /* 7 sourceTransportPort 2 */
		0x00, 0xe1, 0x00, 0x04,   /* 225 postNATSourceIPv4Address 4 */
		0x00, 0xe3, 0x00, 0x02,   /* 227 postNAPTSourceTransportPort 2 */
		0x00, 0x0c, 0x00, 0x04,   /* 12 destinationIPv4Address 4 */
		0x00, 0x0b, 0x00, 0x02,   /* 11 destinationTransportPort 2 */
		0x00, 0x04, 0x00, 0x01,   /* 4 protocolIdentifier 1 */
		/* template 257, 9 fields */
		0x01, 0x01, 0x00, 0x09,
		0x01, 0x43, 0x00, 0x08, 0x00, 0xe6, 0x00, 0x01,
		0x00, 0x08, 0x00, 0x04, 0x00, 0xe1, 0x00, 0x04,
		0x00, 0x04, 0x00, 0x01,
		0x01, 0x69, 0x00, 0x02,   /* 361 portRangeStart 2 */
		0x01, 0x6a, 0x00, 0x02,   /* 362 portRangeEnd 2 */
		0x01, 0x6b, 0x00, 0x02,   /* 363 portRangeStepSize 2 */
		0x01, 0x6c, 0x00, 0x02,   /* 364 portRangeNumPorts 2 */
		/* template 258, 12 fields */
		0x01, 0x02, 0x00, 0x0c,
		0x01, 0x43, 0x00, 0x08, 0x00, 0xe6, 0x00, 0x01,
		0x01, 0xd2, 0x00, 0x04,   /* 466 natQuotaExceededEvent 4 */
		0x00, 0x08, 0x00, 0x04, 0x00, 0x07, 0x00, 0x02,
		0x00, 0xe1, 0x00, 0x04, 0x00, 0x0c, 0x00, 0x04,
		0x00, 0x0b, 0x00, 0x02, 0x00, 0x04, 0x00, 0x01,
		0x01, 0xd7, 0x00, 0x04,   /* 471 maxSessionEntries 4 */
		0x01, 0xd9, 0x00, 0x04,   /* 473 maxEntriesPerUser 4 */
		0x01, 0x1b, 0x00, 0x04,   /* 283 natPoolId 4 */
		/* template 259, 7 fields */
		0x01, 0x03, 0x00, 0x07,
		0x01, 0x43, 0x00, 0x08, 0x00, 0xe6, 0x00, 0x01,
		0x00, 0x08, 0x00, 0x04, 0x00, 0x07, 0x00, 0x02,
		0x00, 0xe1, 0x00, 0x04, 0x00, 0xe3, 0x00, 0x02,
		0x00, 0x04, 0x00, 0x01,
	};
	uint8_t buf[IPFIX_MSG_MAX];
	struct ipfix_msg m;

	ipfix_msg_start(&m, buf, sizeof(buf));
	check(ipfix_msg_empty(&m), "a new message is empty");
	check(ipfix_msg_add_templates(&m) == 0, "the template set fits");
	check(!ipfix_msg_empty(&m) && m.records == 0,
	      "templates are not data records (records %u)", m.records);
	finish_as(&m, 0x01020304, 0, 7, want, sizeof(want), 0, "templates", "templates message");
	ipfix_msg_start(&m, buf, 100);
	check(ipfix_msg_add_templates(&m) == -ENOSPC && ipfix_msg_empty(&m),
	      "the template set does not fit in 100 bytes: nothing added");
}

static void
test_session(void)
{
	static const uint8_t want[] = {
		/* header: length 48, export time 1767225600, sequence 41,
		 * domain 1 */
		0x00, 0x0a, 0x00, 0x30, 0x69, 0x55, 0xb9, 0x00,
		0x00, 0x00, 0x00, 0x29, 0x00, 0x00, 0x00, 0x01,
		/* data set 256, length 32 */
		0x01, 0x00, 0x00, 0x20,
		/* 1767225600123 ms = 0x0000019b76daa87b */
		0x00, 0x00, 0x01, 0x9b, 0x76, 0xda, 0xa8, 0x7b,
		0x04,                     /* NAT44 session create */
		0x0a, 0x01, 0x00, 0x01,   /* 10.1.0.1 */
		0x13, 0x88,               /* 5000 */
		0xcb, 0x00, 0x71, 0x01,   /* 203.0.113.1 */
		0x13, 0x89,               /* 5001 */
		0xc6, 0x12, 0x00, 0x0a,   /* 198.18.0.10 */
		0x00, 0x35,               /* 53 */
		0x11,                     /* UDP */
	};
	struct ipfix_nat_event ev = session(IPFIX_NAT44_SESSION_CREATE);
	uint8_t buf[IPFIX_MSG_MAX];
	struct ipfix_msg m;

	ipfix_msg_start(&m, buf, sizeof(buf));
	check(ipfix_msg_add_event(&m, &ev, UINT64_C(1767225600123)) == 0, "a session record");
	finish_as(&m, 1767225600, 41, 1, want, sizeof(want), 1, "session", "session create");
}

/* a binding: natEvent 8 and 9 in set 259, no remote */
static void
test_bib(void)
{
	static const uint8_t want[] = {
		/* header: length 64, export time 0, sequence 3, domain 1 */
		0x00, 0x0a, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
		/* data set 259, length 4 + 2 * 22 */
		0x01, 0x03, 0x00, 0x30,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,   /* 1000 ms */
		0x08,                     /* NAT44 BIB create */
		0x0a, 0x01, 0x00, 0x01, 0x13, 0x88,   /* 10.1.0.1:5000 */
		0xcb, 0x00, 0x71, 0x01, 0x13, 0x89,   /* 203.0.113.1:5001 */
		0x11,                     /* UDP */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0xd0,   /* 2000 ms */
		0x09,                     /* NAT44 BIB delete */
		0x0a, 0x01, 0x00, 0x01, 0x13, 0x88,
		0xcb, 0x00, 0x71, 0x01, 0x13, 0x89,
		0x11,
	};
	struct ipfix_nat_event a = session(IPFIX_NAT44_BIB_CREATE);
	struct ipfix_nat_event b = session(IPFIX_NAT44_BIB_DELETE);
	uint8_t buf[IPFIX_MSG_MAX];
	struct ipfix_msg m;

	ipfix_msg_start(&m, buf, sizeof(buf));
	check(ipfix_msg_add_event(&m, &a, 1000) == 0 && ipfix_msg_add_event(&m, &b, 2000) == 0,
	      "two binding records");
	finish_as(&m, 0, 3, 1, want, sizeof(want), 2, "binding", "binding create and delete");
}

static void
test_mixed(void)
{
	static const uint8_t want[] = {
		0x00, 0x0a, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		/* set 256: two session records (4 + 2 * 28 = 60) */
		0x01, 0x00, 0x00, 0x3c,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, 0x04,
		0x0a, 0x01, 0x00, 0x01, 0x13, 0x88, 0xcb, 0x00, 0x71, 0x01, 0x13, 0x89,
		0xc6, 0x12, 0x00, 0x0a, 0x00, 0x35, 0x11,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0xd0, 0x05,
		0x0a, 0x01, 0x00, 0x01, 0x13, 0x88, 0xcb, 0x00, 0x71, 0x01, 0x13, 0x89,
		0xc6, 0x12, 0x00, 0x0a, 0x00, 0x35, 0x11,
		/* set 258: quota exceeded, maximum entries per user 8 (4 + 42) */
		0x01, 0x02, 0x00, 0x2e,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0xb8,   /* 3000 ms */
		0x0d,                     /* quota exceeded */
		0x00, 0x00, 0x00, 0x03,   /* maximum entries per user */
		0x0a, 0x01, 0x00, 0x02, 0x17, 0x70,               /* 10.1.0.2:6000 */
		0xcb, 0x00, 0x71, 0x01,                           /* its public address */
		0xc6, 0x12, 0x00, 0x0b, 0x00, 0x35, 0x11,         /* 198.18.0.11:53 UDP */
		0x00, 0x00, 0x00, 0x00,   /* maxSessionEntries */
		0x00, 0x00, 0x00, 0x08,   /* maxEntriesPerUser 8 */
		0x00, 0x00, 0x00, 0x00,   /* natPoolId */
		/* set 257: port block 2048-2175 of 10.1.0.3 (4 + 26) */
		0x01, 0x01, 0x00, 0x1e,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xa0, 0x10,
		0x0a, 0x01, 0x00, 0x03, 0xcb, 0x00, 0x71, 0x01, 0x00,
		0x08, 0x00, 0x08, 0x7f, 0x00, 0x01, 0x00, 0x80,
	};
	struct ipfix_nat_event a = session(IPFIX_NAT44_SESSION_CREATE);
	struct ipfix_nat_event b = session(IPFIX_NAT44_SESSION_DELETE);
	struct ipfix_nat_event q, blk;
	uint8_t buf[IPFIX_MSG_MAX];
	struct ipfix_msg m;

	memset(&q, 0, sizeof(q));
	q.event = IPFIX_NAT_QUOTA_EXCEEDED;
	q.quota = IPFIX_QUOTA_MAX_PER_USER;
	q.limit = 8;
	q.in_addr = addr("10.1.0.2");
	q.in_port = htons(6000);
	q.pub_addr = addr("203.0.113.1");
	q.rem_addr = addr("198.18.0.11");
	q.rem_port = htons(53);
	q.proto = 17;
	memset(&blk, 0, sizeof(blk));
	blk.event = IPFIX_NAT_PORT_BLOCK_ALLOC;
	blk.in_addr = addr("10.1.0.3");
	blk.pub_addr = addr("203.0.113.1");
	blk.port_lo = 2048;
	blk.port_hi = 2175;
	ipfix_msg_start(&m, buf, sizeof(buf));
	check(ipfix_msg_add_event(&m, &a, 1000) == 0 && ipfix_msg_add_event(&m, &b, 2000) == 0 &&
	      ipfix_msg_add_event(&m, &q, 3000) == 0 && ipfix_msg_add_event(&m, &blk, 4000) == 0,
	      "session, session, quota, block records");
	finish_as(&m, 0, 0, 1, want, sizeof(want), 4, "mixed",
		  "three sets, one per run of a template");
	q.event = 6;   /* NAT64 session create: not a NAT44 log's */
	check(ipfix_msg_add_event(&m, &q, 0) == -EINVAL, "an event without a template: -EINVAL");
}

static void
test_full(void)
{
	struct ipfix_nat_event ev = session(IPFIX_NAT44_SESSION_CREATE);
	uint8_t buf[IPFIX_MSG_MAX + 64];
	struct ipfix_msg m;
	unsigned int n = 0;
	uint16_t len;
	int rc;

	memset(buf, 0xee, sizeof(buf));
	ipfix_msg_start(&m, buf, IPFIX_MSG_MAX);
	check(ipfix_msg_add_templates(&m) == 0, "templates first");
	while ((rc = ipfix_msg_add_event(&m, &ev, n)) == 0)
		n++;
	/* 1400 - 16 - 168 (the template set) - 4 = 1212 bytes: 43 records */
	check(rc == -ENOSPC && n == 43, "43 session records after the templates, then -ENOSPC "
	      "(got %u, rc %d)", n, rc);
	len = ipfix_msg_finish(&m, 0, 0, 1);
	check(len <= IPFIX_MSG_MAX && buf[IPFIX_MSG_MAX] == 0xee,
	      "the message (%u bytes) stays within its capacity", len);
	check(((buf[2] << 8) | buf[3]) == len, "its header says its length");
	ipfix_msg_start(&m, buf, IPFIX_MSG_MAX);
	for (n = 0; ipfix_msg_add_event(&m, &ev, n) == 0; n++)
		;
	check(n == (IPFIX_MSG_MAX - IPFIX_HDR_LEN - IPFIX_SET_HDR_LEN) / IPFIX_SESSION_LEN,
	      "a message of session records only holds %u", n);
}

/* IE 323 under --clock pcap: exact to the millisecond, never one off */
static void
test_capture_time(void)
{
	static const uint64_t rates[] = {
		UINT64_C(2600000000), UINT64_C(2593907000), UINT64_C(2194843017),
		UINT64_C(1000000000), UINT64_C(3999999999), UINT64_C(1000003),
	};
	/* 2026-01-01 00:00:00 UTC, in microseconds */
	const uint64_t base = UINT64_C(1767225600) * 1000000;
	uint64_t us, t, hz, tmo, hold, bad = 0, n = 0;
	unsigned int r;

	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		hz = rates[r];
		/* as boot/args.c and nat/nat.c: seconds * hz, truncated */
		tmo = (uint64_t)(30.0 * (double)hz);
		hold = (uint64_t)(4.0 * (double)hz);
		for (us = base - 3000; us < base + 3000; us++) {
			t = (uint64_t)((unsigned __int128)us * hz / 1000000u);
			bad += ipfix_ms_from_capture(t, hz) != us / 1000;
			bad += ipfix_ms_from_capture(t + tmo + hold, hz) !=
				(us + 34000000) / 1000;
			n += 2;
		}
	}
	check(bad == 0, "capture times and deadlines back to their own millisecond: %" PRIu64
	      " of %" PRIu64 " wrong", bad, n);
	/* the TSC clock: the wall clock at start plus the cycles since */
	hz = UINT64_C(2600000000);
	check(ipfix_ms_from_tsc(5000, 5000, UINT64_C(1767225600123456789), hz) ==
	      UINT64_C(1767225600123), "at the start: the wall clock's millisecond");
	check(ipfix_ms_from_tsc(5000 + hz * 3 / 2, 5000, UINT64_C(1767225600123456789), hz) ==
	      UINT64_C(1767225601623), "1.5 s of cycles later: 1.5 s later");
	check(ipfix_ms_from_tsc(4000, 5000 + hz, UINT64_C(1767225600000000000), hz) ==
	      UINT64_C(1767225598999), "a time before the start: earlier");
}

int
main(void)
{
	check(sizeof(struct ipfix_nat_event) == 40, "the event record is 40 bytes (%zu)",
	      sizeof(struct ipfix_nat_event));
	test_templates();
	test_bib();
	test_session();
	test_mixed();
	test_full();
	test_capture_time();
	printf("%u passed, %u failed\n", checks - failures, failures);
	return failures ? 1 : 0;
}
