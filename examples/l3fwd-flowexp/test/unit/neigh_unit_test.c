/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit test of the pure parts of neighbours and the gateway's own traffic
 * (fast-tests): the state machine (l3/neigh_fsm.h) against hand-made
 * timelines, each step checked for its state, deadline, until and the
 * actions asked for; and the wire formats (l3/wire.h) against known frames,
 * written out below from the RFC layouts, and against hostile variants of
 * them (truncated, wrong types, group senders, bad options, bad
 * checksums, errors about errors). No EAL: the code under test needs none.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "l3/neigh_fsm.h"
#include "l3/wire.h"
#include "test/lib/test_check.h"

/* times in ms; the machine takes any unit */
static const struct fx_nfsm_conf C = {
	.base_reachable = 30000, .retrans = 1000, .delay = 5000, .gc_stale = 60000,
	.probes = 3,
};
static const uint8_t MAC1[6] = { 2, 0, 0, 0, 0x0a, 0x09 };
static const uint8_t MAC2[6] = { 2, 0, 0, 0, 0x0a, 0x0a };

#define RND_LOW 0u             /* reachable time 0.5 x base */
#define RND_HIGH UINT32_MAX    /* just under 1.5 x base */

static void
expect(const struct fx_nfsm *n, uint8_t state, uint64_t deadline, uint64_t until,
       const char *what)
{
	CHECK(n->state == state, "%s: state %s, want %s", what, fx_nstate_names[n->state],
	      fx_nstate_names[state]);
	CHECK(n->deadline == deadline, "%s: deadline %lu, want %lu", what,
	      (unsigned long)n->deadline, (unsigned long)deadline);
	CHECK(n->until == until, "%s: until %lu, want %lu", what, (unsigned long)n->until,
	      (unsigned long)until);
}

/* no answer: three broadcasts a retrans apart, FAILED, deleted after gc */
static void
timeline_unanswered(void)
{
	struct fx_nfsm n;
	unsigned int a;

	fx_nfsm_init(&n);
	expect(&n, FX_NS_NONE, FX_NFSM_NEVER, 0, "new");
	a = fx_nfsm_resolve(&n, &C, 100);
	CHECK(a == (FX_NFSM_SEND_BCAST | FX_NFSM_PUBLISH), "first packet: one request (%#x)", a);
	expect(&n, FX_NS_INCOMPLETE, 1100, 0, "incomplete");
	CHECK(fx_nfsm_resolve(&n, &C, 500) == 0, "more packets while incomplete: hold them");
	a = fx_nfsm_timer(&n, &C, 1100);
	CHECK(a == FX_NFSM_SEND_BCAST && n.probes == 2, "retrans: second request");
	a = fx_nfsm_timer(&n, &C, 2105);   /* a late sweep: from its time */
	CHECK(a == FX_NFSM_SEND_BCAST && n.probes == 3, "third request");
	expect(&n, FX_NS_INCOMPLETE, 3105, 0, "third");
	a = fx_nfsm_timer(&n, &C, 3105);
	CHECK(a == (FX_NFSM_DROP | FX_NFSM_FAILED | FX_NFSM_PUBLISH),
	      "no answer after 3: failed, held packets dropped (%#x)", a);
	expect(&n, FX_NS_FAILED, 63105, 0, "failed");
	CHECK(!n.has_mac && !fx_nfsm_usable(&n, 3105), "failed: unusable");
	a = fx_nfsm_timer(&n, &C, 63105);
	CHECK(a == FX_NFSM_DELETE && n.deadline == FX_NFSM_NEVER, "unused for gc: delete");
	/* a packet for a failed entry starts again */
	fx_nfsm_init(&n);
	fx_nfsm_resolve(&n, &C, 0);
	fx_nfsm_timer(&n, &C, 1000);
	fx_nfsm_timer(&n, &C, 2000);
	fx_nfsm_timer(&n, &C, 3000);
	a = fx_nfsm_resolve(&n, &C, 4000);
	CHECK(a == (FX_NFSM_SEND_BCAST | FX_NFSM_PUBLISH) && n.state == FX_NS_INCOMPLETE &&
	      n.probes == 1, "failed + packet: incomplete again (%#x)", a);
}

/* answered, used through stale, delay and probe, answered again */
static void
timeline_lifecycle(void)
{
	struct fx_nfsm n;
	unsigned int a;

	fx_nfsm_init(&n);
	fx_nfsm_resolve(&n, &C, 0);
	a = fx_nfsm_confirm(&n, &C, 40, MAC1, RND_LOW);
	CHECK(a == (FX_NFSM_PUBLISH | FX_NFSM_FLUSH | FX_NFSM_RESOLVED),
	      "reply: reachable, held packets sent (%#x)", a);
	expect(&n, FX_NS_REACHABLE, 15040, 15040, "reachable, 0.5 x base");
	CHECK(memcmp(n.mac, MAC1, 6) == 0 && fx_nfsm_usable(&n, 15039) &&
	      !fx_nfsm_usable(&n, 15040), "usable until its reachable time");
	CHECK(fx_nfsm_resolve(&n, &C, 100) == FX_NFSM_USABLE, "a packet while reachable");
	a = fx_nfsm_timer(&n, &C, 15040);
	CHECK(a == 0, "reachable time over: stale, nothing to publish (%#x)", a);
	expect(&n, FX_NS_STALE, 75040, 15040, "stale");
	a = fx_nfsm_resolve(&n, &C, 20000);
	CHECK(a == (FX_NFSM_PUBLISH | FX_NFSM_USABLE | FX_NFSM_STALE_USE),
	      "a packet while stale: sent, delay (%#x)", a);
	expect(&n, FX_NS_DELAY, 25000, 25000, "delay");
	a = fx_nfsm_timer(&n, &C, 25000);
	CHECK(a == (FX_NFSM_SEND_UCAST | FX_NFSM_PUBLISH), "delay over: a unicast probe (%#x)", a);
	expect(&n, FX_NS_PROBE, 26000, 26000, "probe");
	CHECK(fx_nfsm_resolve(&n, &C, 25500) == FX_NFSM_USABLE, "probe: still usable");
	a = fx_nfsm_confirm(&n, &C, 25600, MAC1, RND_HIGH);
	CHECK(a == FX_NFSM_PUBLISH, "the probe answered: reachable, nothing held (%#x)", a);
	CHECK(n.state == FX_NS_REACHABLE && n.deadline == 25600 + 44999 && n.probes == 0,
	      "reachable for just under 1.5 x base (%lu)", (unsigned long)n.deadline);
	/* a packet after until before the timer ran: stale, then delay */
	a = fx_nfsm_resolve(&n, &C, 80000);
	CHECK(a == (FX_NFSM_PUBLISH | FX_NFSM_USABLE | FX_NFSM_STALE_USE) &&
	      n.state == FX_NS_DELAY, "late packet: delay at its time (%#x)", a);
}

/* the neighbour stops answering: probed, failed */
static void
timeline_gone(void)
{
	struct fx_nfsm n;
	unsigned int a, i;

	fx_nfsm_init(&n);
	fx_nfsm_resolve(&n, &C, 0);
	fx_nfsm_confirm(&n, &C, 10, MAC1, RND_LOW);
	fx_nfsm_timer(&n, &C, 15010);
	fx_nfsm_resolve(&n, &C, 16000);
	a = fx_nfsm_timer(&n, &C, 21000);
	CHECK(a & FX_NFSM_SEND_UCAST, "probe 1");
	for (i = 2; i <= 3; i++) {
		a = fx_nfsm_timer(&n, &C, 21000 + (i - 1) * 1000);
		CHECK(a == (FX_NFSM_SEND_UCAST | FX_NFSM_PUBLISH) && n.probes == i,
		      "probe %u (%#x)", i, a);
		CHECK(n.until == n.deadline, "probe %u: usable until the next", i);
	}
	a = fx_nfsm_timer(&n, &C, 24000);
	CHECK(a == (FX_NFSM_DROP | FX_NFSM_FAILED | FX_NFSM_PUBLISH) && n.state == FX_NS_FAILED,
	      "3 probes unanswered: failed (%#x)", a);
	CHECK(!fx_nfsm_usable(&n, 24000), "failed: the workers stop using it");
}

/* what the neighbour says without being asked */
static void
timeline_unsolicited(void)
{
	struct fx_nfsm n;
	unsigned int a;

	fx_nfsm_init(&n);
	a = fx_nfsm_learn(&n, &C, 100, MAC1);
	CHECK(a == FX_NFSM_PUBLISH, "an ARP request from a new neighbour: stale (%#x)", a);
	expect(&n, FX_NS_STALE, 60100, 100, "learnt");
	CHECK(fx_nfsm_learn(&n, &C, 200, MAC1) == 0, "the same MAC again: nothing");
	a = fx_nfsm_learn(&n, &C, 300, MAC2);
	CHECK(a == FX_NFSM_PUBLISH && memcmp(n.mac, MAC2, 6) == 0 && n.state == FX_NS_STALE,
	      "a new MAC: stale with it (%#x)", a);
	/* while resolving: the held packets go, delay */
	fx_nfsm_init(&n);
	fx_nfsm_resolve(&n, &C, 0);
	a = fx_nfsm_learn(&n, &C, 50, MAC1);
	CHECK(a == (FX_NFSM_PUBLISH | FX_NFSM_FLUSH | FX_NFSM_RESOLVED), "learnt while "
	      "incomplete: held packets sent (%#x)", a);
	expect(&n, FX_NS_DELAY, 5050, 5050, "learnt while incomplete");

	/* advertisements (RFC 4861 7.2.5) */
	fx_nfsm_init(&n);
	CHECK(fx_nfsm_advert(&n, &C, 0, MAC1, true, true, 0) == 0 && n.state == FX_NS_NONE,
	      "an NA for nothing asked: discarded");
	fx_nfsm_resolve(&n, &C, 0);
	CHECK(fx_nfsm_advert(&n, &C, 10, NULL, true, true, 0) == 0,
	      "an NA without a target address while incomplete: nothing");
	a = fx_nfsm_advert(&n, &C, 20, MAC1, true, false, RND_LOW);
	CHECK((a & FX_NFSM_FLUSH) && n.state == FX_NS_REACHABLE, "solicited NA: reachable");
	a = fx_nfsm_advert(&n, &C, 30, MAC2, false, false, 0);
	CHECK(a == FX_NFSM_PUBLISH && n.state == FX_NS_STALE && memcmp(n.mac, MAC1, 6) == 0,
	      "another MAC without override: stale, the old MAC kept");
	CHECK(fx_nfsm_advert(&n, &C, 40, MAC2, false, false, 0) == 0,
	      "again while stale: nothing");
	a = fx_nfsm_advert(&n, &C, 50, MAC2, false, true, 0);
	CHECK(a == FX_NFSM_PUBLISH && memcmp(n.mac, MAC2, 6) == 0, "with override: the new MAC");
	a = fx_nfsm_advert(&n, &C, 60, NULL, true, false, RND_LOW);
	CHECK(n.state == FX_NS_REACHABLE && memcmp(n.mac, MAC2, 6) == 0,
	      "solicited without an address: reachable with the one it has");
}

static void
timeline_permanent(void)
{
	struct fx_nfsm n;

	fx_nfsm_permanent(&n, MAC1);
	CHECK(fx_nfsm_usable(&n, UINT64_MAX - 1), "permanent: usable");
	CHECK(fx_nfsm_resolve(&n, &C, 10) == FX_NFSM_USABLE, "permanent: resolve");
	CHECK(fx_nfsm_confirm(&n, &C, 10, MAC2, 0) == 0 && fx_nfsm_learn(&n, &C, 10, MAC2) == 0 &&
	      fx_nfsm_advert(&n, &C, 10, MAC2, true, true, 0) == 0 &&
	      fx_nfsm_timer(&n, &C, 10) == 0, "permanent: nothing changes it");
	CHECK(memcmp(n.mac, MAC1, 6) == 0 && n.state == FX_NS_PERMANENT, "permanent: its MAC");
}

/*
 * Known frames, written out from the RFC layouts: the gateway
 * 02:00:00:00:00:01 (10.0.0.1, 2001:db8::1), the host 02:00:00:00:0a:02
 * (10.0.0.2, 2001:db8::2); checksums computed independently (test/lib/fxpkt.py).
 */
static const uint8_t arp_request[60] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x02,
	0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x02, 0x00,
	0x00, 0x00, 0x0a, 0x02, 0x0a, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t arp_reply[60] = {
	0x02, 0x00, 0x00, 0x00, 0x0a, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02, 0x02, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00,
	0x0a, 0x02, 0x0a, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t nd_ns[86] = {
	0x33, 0x33, 0xff, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x02,
	0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0xff, 0x00, 0x00, 0x01, 0x87, 0x00, 0x12, 0x27, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x00, 0x00,
	0x0a, 0x02,
};
static const uint8_t nd_na[86] = {
	0x02, 0x00, 0x00, 0x00, 0x0a, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x88, 0x00, 0x0a, 0x73, 0xe0, 0x00,
	0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x01, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x01,
};
static const uint8_t nd_ns_probe[86] = {
	0x33, 0x33, 0xff, 0x00, 0x00, 0x09, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0xff, 0x00, 0x00, 0x09, 0x87, 0x00, 0x1c, 0x19, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x01, 0x01, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x01,
};
static const uint8_t echo4_request[36] = {
	0x45, 0x00, 0x00, 0x24, 0x12, 0x34, 0x00, 0x00, 0x39, 0x01, 0x5b, 0xa3,
	0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x01, 0x08, 0x00, 0x54, 0x2f,
	0x12, 0x34, 0x00, 0x07, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
};
static const uint8_t echo4_reply[36] = {
	0x45, 0x00, 0x00, 0x24, 0x12, 0x34, 0x00, 0x00, 0x40, 0x01, 0x54, 0xa3,
	0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x00, 0x00, 0x5c, 0x2f,
	0x12, 0x34, 0x00, 0x07, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
};
static const uint8_t echo6_request[54] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x3a, 0x3d, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x0f, 0x0b, 0x00, 0x42, 0x00, 0x03,
	0x70, 0x69, 0x6e, 0x67, 0x36, 0x21,
};
static const uint8_t echo6_reply[54] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x81, 0x00, 0x0e, 0x0b, 0x00, 0x42, 0x00, 0x03,
	0x70, 0x69, 0x6e, 0x67, 0x36, 0x21,
};
static const uint8_t ttl4_orig[38] = {
	0x45, 0x00, 0x00, 0x26, 0x12, 0x34, 0x00, 0x00, 0x01, 0x11, 0x73, 0x57,
	0x0a, 0x00, 0x00, 0x02, 0xc6, 0x33, 0x64, 0x07, 0x04, 0xd2, 0x82, 0x9a,
	0x00, 0x12, 0x00, 0x00, 0x74, 0x72, 0x61, 0x63, 0x65, 0x72, 0x6f, 0x75,
	0x74, 0x65,
};
static const uint8_t ttl4_reply[66] = {
	0x45, 0x00, 0x00, 0x42, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x66, 0xb9,
	0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x0b, 0x00, 0x4e, 0x5e,
	0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x26, 0x12, 0x34, 0x00, 0x00,
	0x01, 0x11, 0x73, 0x57, 0x0a, 0x00, 0x00, 0x02, 0xc6, 0x33, 0x64, 0x07,
	0x04, 0xd2, 0x82, 0x9a, 0x00, 0x12, 0x00, 0x00, 0x74, 0x72, 0x61, 0x63,
	0x65, 0x72, 0x6f, 0x75, 0x74, 0x65,
};
static const uint8_t ttl6_orig[52] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x11, 0x01, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x00,
	0x74, 0x72, 0x63, 0x36,
};
static const uint8_t ttl6_reply[100] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x3c, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x03, 0x00, 0xfc, 0xca, 0x00, 0x00, 0x00, 0x00,
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x11, 0x01, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x00,
	0x74, 0x72, 0x63, 0x36,
};

static const uint8_t G[6] = { 0x02, 0, 0, 0, 0, 0x01 };    /* the gateway's port */
static const uint8_t H[6] = { 0x02, 0, 0, 0, 0x0a, 0x02 }; /* the host */
static const uint8_t A4_G[4] = { 10, 0, 0, 1 };
static const uint8_t A6_G[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t A6_9[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };

static void
dump_diff(const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			printf("  %s: first difference at byte %zu: %02x, want %02x\n", what, i,
			       got[i], want[i]);
			return;
		}
}

#define SAME(got, want, n, what) do { \
	CHECK(memcmp(got, want, n) == 0, "%s: byte for byte", what); \
	if (memcmp(got, want, n) != 0) \
		dump_diff(what, got, want, n); \
} while (0)

static void
wire_arp(void)
{
	uint8_t f[128], bad[64];
	struct fx_arp a;
	size_t n;

	CHECK(fx_wire_arp_parse(arp_request + 14, 46, &a) == FX_WIRE_OK, "ARP request parses");
	CHECK(a.op == FX_ARP_REQUEST && memcmp(a.sha, H, 6) == 0 &&
	      memcmp(a.tpa, A4_G, 4) == 0 && a.spa[3] == 2, "ARP request fields");
	memcpy(f, arp_request, sizeof(arp_request));
	/* answered in place, its inputs pointing into the request */
	n = fx_wire_arp_build(f, f + 22, FX_ARP_REPLY, G, f + 38, f + 22, f + 28);
	CHECK(n == sizeof(arp_reply), "ARP reply: 60 bytes (%zu)", n);
	SAME(f, arp_reply, sizeof(arp_reply), "ARP reply");

	CHECK(fx_wire_arp_parse(arp_request + 14, 27, &a) == FX_WIRE_TRUNC, "27 bytes: truncated");
	CHECK(fx_wire_arp_parse(arp_request + 14, 0, &a) == FX_WIRE_TRUNC, "empty: truncated");
	memcpy(bad, arp_request + 14, 28);
	bad[1] = 6;   /* IEEE 802 hardware type */
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_FORMAT, "hardware type 6: refused");
	memcpy(bad, arp_request + 14, 28);
	bad[2] = 0x86;
	bad[3] = 0xdd;
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_FORMAT, "protocol IPv6: refused");
	memcpy(bad, arp_request + 14, 28);
	bad[4] = 8;
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_FORMAT, "hardware length 8: refused");
	memcpy(bad, arp_request + 14, 28);
	bad[7] = 3;   /* RARP request */
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_FORMAT, "opcode 3: refused");
	memcpy(bad, arp_request + 14, 28);
	bad[8] = 0x01;   /* a multicast sender */
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_SENDER, "multicast sender: refused");
	memset(bad + 8, 0xff, 6);
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_SENDER, "broadcast sender: refused");
	memset(bad + 8, 0, 6);
	CHECK(fx_wire_arp_parse(bad, 28, &a) == FX_WIRE_SENDER, "zero sender: refused");
}

static void
wire_nd(void)
{
	uint8_t f[256], bad[256], snm[16], mac[6], ll[16];
	struct fx_nd nd;
	size_t n, len = sizeof(nd_ns) - 14;

	CHECK(fx_wire_nd_parse(nd_ns + 14, len, &nd) == FX_WIRE_OK, "NS parses");
	CHECK(nd.type == FX_ICMP6_NS && nd.has_lla && memcmp(nd.lla, H, 6) == 0 &&
	      memcmp(nd.target, A6_G, 16) == 0, "NS fields");
	memcpy(f, nd_ns, sizeof(nd_ns));
	n = fx_wire_nd_build(f, FX_ICMP6_NA, nd.lla, G, nd.target, nd.src, nd.target,
			     FX_NA_ROUTER | FX_NA_SOLICITED | FX_NA_OVERRIDE, true);
	CHECK(n == sizeof(nd_na), "NA: %zu bytes", n);
	SAME(f, nd_na, sizeof(nd_na), "NA answering the NS");
	CHECK(fx_wire_nd_parse(nd_na + 14, sizeof(nd_na) - 14, &nd) == FX_WIRE_OK &&
	      nd.type == FX_ICMP6_NA && nd.flags == 0xe0 && nd.has_lla &&
	      memcmp(nd.lla, G, 6) == 0, "the NA parses back");
	fx_wire_ip6_snm(A6_9, snm);
	fx_wire_ip6_mcast_mac(snm, mac);
	n = fx_wire_nd_build(f, FX_ICMP6_NS, mac, G, A6_G, snm, A6_9, 0, true);
	CHECK(n == sizeof(nd_ns_probe), "NS probe: %zu bytes", n);
	SAME(f, nd_ns_probe, sizeof(nd_ns_probe), "NS to the solicited-node address");
	fx_wire_ip6_linklocal(G, ll);
	CHECK(ll[0] == 0xfe && ll[1] == 0x80 && ll[8] == 0x00 && ll[11] == 0xff &&
	      ll[12] == 0xfe && ll[15] == 0x01, "EUI-64 link-local address of 02:00:00:00:00:01");

	CHECK(fx_wire_nd_parse(nd_ns + 14, len - 1, &nd) == FX_WIRE_TRUNC, "NS one byte short");
	CHECK(fx_wire_nd_parse(nd_ns + 14, 39, &nd) == FX_WIRE_TRUNC, "no IPv6 header");
	memcpy(bad, nd_ns + 14, len);
	bad[7] = 64;
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_HOPLIMIT, "NS at hop limit 64: refused");
	memcpy(bad, nd_ns + 14, len);
	bad[40 + 3] ^= 1;
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_CKSUM, "NS with a bad checksum");
	memcpy(bad, nd_ns + 14, len);
	bad[6] = 0;   /* a hop-by-hop header */
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_FORMAT, "NS behind an extension header");
	/* options, the checksum fixed up after each change */
#define RESUM(b) do { \
	(b)[42] = (b)[43] = 0; \
	uint32_t s_ = fx_wire_sum((b) + 8, 32, 0); \
	uint8_t t_[8] = { 0, 0, 0, (uint8_t)(len - 40), 0, 0, 0, 58 }; \
	s_ = fx_wire_sum(t_, 8, s_); \
	uint16_t c_ = fx_wire_fold(fx_wire_sum((b) + 40, len - 40, s_)); \
	(b)[42] = (uint8_t)(c_ >> 8); \
	(b)[43] = (uint8_t)c_; \
} while (0)
	memcpy(bad, nd_ns + 14, len);
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_OK, "checksum recomputed: parses");
	bad[40 + 25] = 0;   /* option length 0 */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_OPTION, "option of length 0: refused");
	bad[40 + 25] = 2;   /* past the end */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_OPTION, "option past the end: refused");
	memcpy(bad, nd_ns + 14, len);
	bad[40 + 26] = 0x01;   /* a multicast source link-layer address */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_SENDER, "multicast SLLA: refused");
	memcpy(bad, nd_ns + 14, len);
	bad[40 + 8] = 0xff;   /* a multicast target */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_TARGET, "multicast target: refused");
	memcpy(bad, nd_ns + 14, len);
	memset(bad + 8, 0, 16);   /* from :: with a source option */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_OPTION, "DAD with an SLLA: refused");
	memcpy(bad, nd_ns + 14, len);
	bad[41] = 1;   /* code 1 */
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_FORMAT, "code 1: refused");
	memcpy(bad, nd_na + 14, sizeof(nd_na) - 14);
	memcpy(bad + 24, snm, 16);   /* a solicited NA to a group */
	len = sizeof(nd_na) - 14;
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_FORMAT, "solicited NA to a group");
	memcpy(bad, nd_ns + 14, sizeof(nd_ns) - 14);
	len = sizeof(nd_ns) - 14;
	bad[40] = FX_ICMP6_RS;
	RESUM(bad);
	CHECK(fx_wire_nd_parse(bad, len, &nd) == FX_WIRE_OK && nd.type == FX_ICMP6_RS,
	      "router solicitation: its type, for the caller to drop");
#undef RESUM
}

static void
wire_icmp(void)
{
	/* the IPv4 and IPv6 time exceeded, each from its own address */
	static const struct {
		const char *v;   /* "" or "6", in the lines */
		const uint8_t *orig, *reply, *src;
		size_t orig_len, reply_len, room;   /* room: the headers before the quote */
		enum fx_wire_err (*may_error)(const uint8_t *ip, size_t len);
		size_t (*build)(uint8_t *ip, const uint8_t *src, size_t quote_len);
	} te[] = {
		{ "", ttl4_orig, ttl4_reply, A4_G, sizeof(ttl4_orig), sizeof(ttl4_reply), 28,
		  fx_wire_may_error4, fx_wire_time_exceeded4 },
		{ "6", ttl6_orig, ttl6_reply, A6_G, sizeof(ttl6_orig), sizeof(ttl6_reply), 48,
		  fx_wire_may_error6, fx_wire_time_exceeded6 },
	};
	uint8_t b[1500];
	char what[32];
	unsigned int i;
	size_t n;

	memcpy(b, echo4_request, sizeof(echo4_request));
	CHECK(fx_wire_echo4_reply(b, sizeof(echo4_request)) == FX_WIRE_OK, "echo request");
	SAME(b, echo4_reply, sizeof(echo4_reply), "echo reply");
	memcpy(b, echo4_request, sizeof(echo4_request));
	b[24] ^= 1;
	CHECK(fx_wire_echo4_reply(b, sizeof(echo4_request)) == FX_WIRE_CKSUM, "bad ICMP checksum");
	memcpy(b, echo4_request, sizeof(echo4_request));
	CHECK(fx_wire_echo4_reply(b, 27) == FX_WIRE_TRUNC, "echo shorter than its header");
	memcpy(b, echo4_request, sizeof(echo4_request));
	b[6] = 0x20;   /* more fragments */
	CHECK(fx_wire_echo4_reply(b, sizeof(echo4_request)) == FX_WIRE_FORMAT, "fragment: refused");
	memcpy(b, echo4_reply, sizeof(echo4_reply));
	CHECK(fx_wire_echo4_reply(b, sizeof(echo4_reply)) == FX_WIRE_FORMAT, "a reply: not answered");

	memcpy(b, echo6_request, sizeof(echo6_request));
	CHECK(fx_wire_echo6_reply(b, sizeof(echo6_request)) == FX_WIRE_OK, "echo6 request");
	SAME(b, echo6_reply, sizeof(echo6_reply), "echo6 reply");
	memcpy(b, echo6_request, sizeof(echo6_request));
	b[44] ^= 0x10;
	CHECK(fx_wire_echo6_reply(b, sizeof(echo6_request)) == FX_WIRE_CKSUM, "bad ICMPv6 checksum");

	/* time exceeded: the quote in place after room for the headers */
	for (i = 0; i < sizeof(te) / sizeof(te[0]); i++) {
		snprintf(what, sizeof(what), "time exceeded%s", te[i].v);
		CHECK(te[i].may_error(te[i].orig, te[i].orig_len) == FX_WIRE_OK,
		      "UDP%s: may answer", te[i].v);
		memcpy(b + te[i].room, te[i].orig, te[i].orig_len);
		n = te[i].build(b, te[i].src, te[i].orig_len);
		CHECK(n == te[i].reply_len, "%s: %zu bytes", what, n);
		SAME(b, te[i].reply, te[i].reply_len, what);
		CHECK(te[i].may_error(te[i].reply, te[i].reply_len) == FX_WIRE_NOT_ALLOWED,
		      "%s: no error about an error", what);
	}
	memcpy(b, ttl4_orig, sizeof(ttl4_orig));
	b[16] = 224;
	CHECK(fx_wire_may_error4(b, sizeof(ttl4_orig)) == FX_WIRE_NOT_ALLOWED, "to a group: no");
	memcpy(b, ttl4_orig, sizeof(ttl4_orig));
	b[12] = 0;
	CHECK(fx_wire_may_error4(b, sizeof(ttl4_orig)) == FX_WIRE_NOT_ALLOWED, "from 0/8: no");
	memcpy(b, ttl4_orig, sizeof(ttl4_orig));
	b[7] = 8;   /* fragment offset 8 */
	CHECK(fx_wire_may_error4(b, sizeof(ttl4_orig)) == FX_WIRE_NOT_ALLOWED, "later fragment: no");

	memcpy(b, ttl6_orig, sizeof(ttl6_orig));
	b[24] = 0xff;
	CHECK(fx_wire_may_error6(b, sizeof(ttl6_orig)) == FX_WIRE_NOT_ALLOWED, "to a group: no");
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	timeline_unanswered();
	timeline_lifecycle();
	timeline_gone();
	timeline_unsolicited();
	timeline_permanent();
	wire_arp();
	wire_nd();
	wire_icmp();
	printf("%u checks, %u failed\n", checks, failures);
	return failures ? 1 : 0;
}
