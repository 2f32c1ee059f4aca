/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * fuzz-flowexp: a libFuzzer harness for l3fwd-flowexp's packet path. Its
 * input is a sequence of loop iterations of one worker: each names a
 * receive port, how far the clock moves and a burst of frames, which go
 * through the worker loop's own steps (worker/steps.h): parse and classify,
 * NAT classification, translation both ways and ICMP errors, flow lookup,
 * creation, quotas, eviction and TCP tracking, forwarding, the sends, and
 * the expiry poll of the flows' and the mappings' wheels at the input's
 * clock. Every frame sent goes to a net_null port, which frees it.
 *
 * Set-up, once (LLVMFuzzerInitialize): the EAL without hugepages, PCI or
 * telemetry, with a file prefix of its own per process and three net_null
 * ports; then the example's command line (boot/args.c) and start-up (boot/setup.c,
 * l3/route.c, boot/ports.c, boot/affinity.c) with one worker lcore polling all three
 * ports: port 1 outside (--nat-outside 1), ports 0 and 2 inside, a pool of
 * two public addresses and a 16-port share, 64 flows, per-host quotas on
 * both sides, --table-full evict, a small expiry budget and a known
 * --hash-secret. The calling thread acts as the worker.
 *
 * Input layout (a read past the end gives zeros; a frame is cut at the end):
 *
 *   iteration   flags (1): bits 0-1 the receive port (mod 3), bit 2 frames
 *                 in two segments, bits 3-4 the NIC's L4 checksum verdict
 *                 (unknown, good, bad, none), bit 5 IPv4 checksum bad,
 *                 bit 6 a VLAN tag the NIC stripped, bit 7 with bit 6: two
 *                 tags stripped (QinQ)
 *               step (1): the clock moves (step & 63) units of 10 us, 1 ms,
 *                 100 ms or 1 s (step >> 6) before the burst
 *               count (1): frames in the burst, count % 33 (0: an idle
 *                 iteration, only the clock moves)
 *               with bit 6, the stripped tag's TCI (2, little-endian)
 *   frame       length (2, little-endian, mod 4097), with bit 2 a split
 *                 byte (where the first segment ends), then the bytes; a
 *                 frame over 2048 bytes (an mbuf's data room) is always
 *                 in two segments
 *
 * After each burst: the sends, the loop's end (one expiry poll) and the
 * counters' invariants (flows within --max-flows and the slab, the NAT
 * table's mappings live or held, port units within the share). After the
 * last burst, a recount: every NAT port unit once free, held or in use, its
 * live and held counts those of the mappings, and every port block's counts
 * those of its units (nat_blocks_check()). Then the jump --clock pcap
 * makes when a capture ends (every timeout and the hold-down), expiry
 * until nothing is left, and then nothing may be: no flow, no mapping, no
 * quota entry, every port unit free and every mbuf back in the pool. A
 * broken invariant prints what broke and aborts, so libFuzzer keeps the
 * input.
 *
 * The frames' bytes lie in DPDK memory, outside AddressSanitizer's view;
 * each segment's headroom and tailroom are poisoned while the packet is
 * in flight, so a read past a frame's end is reported. Internal
 * RTE_ASSERT()s are on (meson.build).
 *
 *   FLOWEXP_FUZZ_TRACE=1   print each iteration (for replaying a crash)
 *   FLOWEXP_FUZZ_NAT=eim-eif (or eim-adf, eim-apdf)  the second
 *                          configuration: endpoint-independent mappings
 *                          with that filtering, and the bindings' counts
 *                          against the sessions checked with the ports'
 *                          (fuzz_flowexp_eim runs eim-eif)
 *
 * fuzz-flowexp-pba is the same harness built with FUZZ_PORT_BLOCKS: port
 * blocks of 4 ports (four on each address of the share), at most 2 a host
 * (nat/block.h), so that hosts fill, share out and exhaust the blocks.
 * fuzz_flowexp_pba_eim runs it with FLOWEXP_FUZZ_NAT=eim-eif: bindings in
 * their hosts' blocks, each binding's port checked to lie in a block its
 * inside host owns.
 */

#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef FUZZ_POISON
#define FUZZ_POISON(p, n) do { (void)(p); (void)(n); } while (0)
#define FUZZ_UNPOISON(p, n) do { (void)(p); (void)(n); } while (0)
#endif

#include "fuzz_common.h"

#include "base/config.h"
#include "base/timeouts.h"
#include "boot/affinity.h"
#include "boot/args.h"
#include "boot/ports.h"
#include "boot/setup.h"
#include "expiry/expiry.h"
#include "l3/neigh.h"
#include "l3/route.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "worker/lcore.h"
#include "worker/steps.h"

/* what boot/main.c defines */
struct fx_config fx_conf;
struct fx_lcore *fx_lcores[RTE_MAX_LCORE];
struct fx_lcore *fx_workers[RTE_MAX_LCORE];
unsigned int fx_nb_workers;
volatile bool fx_force_quit;
RTE_LOG_REGISTER(fx_logtype, app.l3fwd_flowexp_fuzz, WARNING);

#define FUZZ_PORTS 3
#define FUZZ_SEG_MAX 2048               /* the data room of the pool's mbufs */
#define FUZZ_FRAME_MAX (2 * FUZZ_SEG_MAX)
#define FUZZ_ITERATIONS_MAX 4096
/* a clock this far past its start: the worker's state is made anew */
#define FUZZ_CLOCK_SPAN (UINT64_C(1) << 60)

/* the example's command line (its options after "--", as main() passes
 * them): one worker, lcore 1 */
static char *app_argv[] = {
	"fuzz-flowexp", "--", "-p", "7", "--config", "(0,0,1),(1,0,1),(2,0,1)",
	"--relax-rx-offload", "-T", "0",
	"--rx-queue-size", "64", "--tx-queue-size", "64",
	"--max-flows", "64", "--max-flows-per-host", "8",
	"--table-full", "evict", "--expire-budget", "8", "--tick-us", "10000",
	"--timeout-oneway", "2", "--timeout-tcp-syn", "3", "--timeout-tcp", "30",
	"--timeout-tcp-close", "5", "--timeout-tcp-rst", "1", "--timeout-udp", "10",
	"--timeout-icmp", "5", "--timeout-other", "10",
	"--route", "10.1.0.0/16,0", "--route", "192.0.2.0/24,0",
	"--route", "10.0.0.0/8,2", "--route", "198.18.0.0/15,1",
	"--route", "0.0.0.0/1,1", "--route", "128.0.0.0/1,1",
	"--route", "2001:db8:1::/48,0", "--route", "2001:db8::/32,2",
	"--route", "::/1,1", "--route", "8000::/1,1",
	"--nat-pool", "203.0.113.1/32", "--nat-pool", "203.0.113.8/32",
	"--nat-inside", "10.0.0.0/8", "--nat-ports", "5000-5015",
	"--nat-holddown", "2", "--nat-outside", "1",
	"--nat-max-per-host", "16", "--nat-max-per-dest", "8",
	"--hash-secret", "000102030405060708090a0b0c0d0e0f",
#ifdef FUZZ_PORT_BLOCKS
	/* fuzz-flowexp-pba: blocks of 4, 4 on each address, 2 a host */
	"--nat-port-block", "4", "--nat-max-blocks-per-host", "2",
#endif
	NULL,   /* FLOWEXP_FUZZ_NAT: --nat-mapping eim --nat-filtering F */
	NULL, NULL, NULL, NULL,
};

/* FLOWEXP_FUZZ_NAT=eim-apdf|eim-adf|eim-eif: the second configuration,
 * endpoint-independent mappings with that filtering; 0 or -1 */
static int
nat_behaviour(void)
{
	static char *const modes[] = { "apdf", "adf", "eif" };
	const char *v = getenv("FLOWEXP_FUZZ_NAT");
	unsigned int i, n = 0;

	while (app_argv[n] != NULL)
		n++;
	if (v == NULL || strcmp(v, "edm") == 0)
		return 0;
	for (i = 0; i < RTE_DIM(modes); i++) {
		if (strncmp(v, "eim-", 4) != 0 || strcmp(v + 4, modes[i]) != 0)
			continue;
		app_argv[n] = "--nat-mapping";
		app_argv[n + 1] = "eim";
		app_argv[n + 2] = "--nat-filtering";
		app_argv[n + 3] = modes[i];
		return 0;
	}
	fprintf(stderr, "fuzz-flowexp: FLOWEXP_FUZZ_NAT '%s': expected edm, "
		"eim-apdf, eim-adf or eim-eif\n", v);
	return -1;
}

static bool trace;
static struct fx_lcore *lc;
static struct rte_mempool *pool;
static uint64_t clock_start, vnow, jump;

#define TRACE(...) do { if (trace) printf(__VA_ARGS__); } while (0)

static void
fail(const char *what, uint64_t got, uint64_t want)
{
	fprintf(stderr, "fuzz-flowexp: INVARIANT BROKEN: %s (%" PRIu64 ", expected %"
		PRIu64 ")\n", what, got, want);
	abort();
}

/* the CPUs this process may run on, as an EAL cpuset "(0,1,...)" */
static void
cpuset_of_process(char *buf, size_t len)
{
	cpu_set_t set;
	size_t at;
	int c;

	at = (size_t)snprintf(buf, len, "(");
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (c = 0; c < CPU_SETSIZE && at + 8 < len; c++)
			if (CPU_ISSET(c, &set))
				at += (size_t)snprintf(buf + at, len - at, "%d,", c);
	if (at == 1)
		at += (size_t)snprintf(buf + at, len - at, "0,");
	snprintf(buf + at - 1, len - at + 1, ")");
}

/* The worker's clock starts (again) at the TSC. */
static void
clock_begin(void)
{
	clock_start = vnow = rte_rdtsc();
	lc->now = vnow;
	lc->loop.prev = vnow;
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	char prefix[64], cpus[256], lcores[600];
	char *eal_argv[] = {
		"fuzz-flowexp", "--no-huge", "-m", "384", "--no-pci",
		"--no-telemetry", "--no-shconf", "--lcores", lcores,
		"--vdev", "net_null0", "--vdev", "net_null1", "--vdev", "net_null2",
		"--log-level=lib.eal:error", "--log-level=lib.twheel:error",
		"--log-level=pmd.net.null:error", "--log-level=app.l3fwd_flowexp*:error",
		prefix, NULL,
	};
	unsigned int t;
	int argc_app;

	trace = getenv("FLOWEXP_FUZZ_TRACE") != NULL;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_flowexp_%d",
		 (int)getpid());
	/* the main lcore and the worker's lcore, unpinned */
	cpuset_of_process(cpus, sizeof(cpus));
	snprintf(lcores, sizeof(lcores), "0@%s,1@%s", cpus, cpus);
	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "fuzz-flowexp: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		abort();
	}
	atexit(fuzz_eal_done);
	if (nat_behaviour() != 0)
		abort();
	for (argc_app = 0; app_argv[argc_app] != NULL; argc_app++)
		;
	if (fx_parse_args(argc_app, app_argv) != 0 ||
	    fx_check_args() != 0) {
		fprintf(stderr, "fuzz-flowexp: the example's arguments\n");
		abort();
	}
	/* main()'s start-up, without control, telemetry and the launch */
	fx_setup_secret();
	fx_setup_lcores();
	fx_setup_nat_and_clock();
	fx_setup_flow_state();
	fx_setup_handoff();
	/* the L3 state the worker reads (its largest frame, which ports have
	 * addresses); without it every frame is "oversized" */
	if (fx_neigh_init(fx_nb_workers) != 0) {
		fprintf(stderr, "fuzz-flowexp: the neighbour tables\n");
		abort();
	}
	fx_setup_slow_path();
	if (fx_route_init(fx_nb_workers) != 0) {
		fprintf(stderr, "fuzz-flowexp: the route table\n");
		abort();
	}
	rte_rcu_qsbr_thread_register(fx_route_rcu, 0);
	fx_ports_init();
	fx_affinity_decide();
	if (fx_nb_workers != 1 || !fx_nat_enabled())
		abort();
	lc = fx_workers[0];
	rte_rcu_qsbr_thread_online(fx_route_rcu, lc->worker_idx);
	pool = rte_mempool_lookup("fx_mbuf_0");
	if (pool == NULL || rte_pktmbuf_data_room_size(pool) <
	    RTE_PKTMBUF_HEADROOM + FUZZ_SEG_MAX)
		abort();
	/* --clock pcap's jump at the end of a capture (worker/worker.c) */
	for (t = 0; t < FX_TMO_MAX; t++)
		jump = RTE_MAX(jump, lc->flows.tmo_cycles[t]);
	jump += lc->nat.holddown_cycles + rte_get_tsc_hz();
	clock_begin();
	fflush(stdout);
	return 0;
}

/* Frames ------------------------------------------------------------------ */

/* Poison what lies around a segment's data: a read outside it is caught. */
static void
poison(struct rte_mbuf *m)
{
	uint8_t *b = m->buf_addr;

	FUZZ_POISON(b, m->data_off);
	FUZZ_POISON(b + m->data_off + m->data_len,
		    m->buf_len - m->data_off - m->data_len);
}

static struct rte_mbuf *
segment(const uint8_t *p, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		fail("an mbuf for a frame (the pool is empty)", 0, 1);
	FUZZ_UNPOISON(m->buf_addr, m->buf_len);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), p, len);
	m->data_len = len;
	m->pkt_len = len;
	return m;
}

static const uint64_t l4_verdicts[4] = {
	RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
	RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_NONE,
};

/* One frame of the input as the NIC would deliver it, or NULL at the end. */
static struct rte_mbuf *
frame(struct reader *r, uint8_t flags, uint16_t tci)
{
	struct rte_mbuf *m, *m2;
	uint16_t len, split = 0;

	if (r->left == 0)
		return NULL;
	len = (uint16_t)(take(r, 2) % (FUZZ_FRAME_MAX + 1));
	if (flags & 4)
		split = (uint16_t)take(r, 1);
	len = (uint16_t)RTE_MIN((size_t)len, r->left);
	/* two segments: the first ends within the frame, neither is empty
	 * and each fits its mbuf; a longer frame always has two */
	split = (flags & 4) && len >= 2 ? (uint16_t)(1 + split * (len - 2) / 255) : len;
	split = RTE_MAX(split, (uint16_t)(len > FUZZ_SEG_MAX ? len - FUZZ_SEG_MAX : 0));
	split = RTE_MIN(split, (uint16_t)FUZZ_SEG_MAX);
	if (split == len)
		split = 0;
	m = segment(r->p, split != 0 ? split : len);
	if (split != 0) {
		m2 = segment(r->p + split, len - split);
		if (rte_pktmbuf_chain(m, m2) != 0)
			fail("chaining two segments", 0, 0);
		poison(m2);
	}
	poison(m);
	r->p += len;
	r->left -= len;
	m->ol_flags = l4_verdicts[(flags >> 3) & 3];
	if (flags & 0x20)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	if (flags & 0x40) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = tci;
		if (flags & 0x80) {
			m->ol_flags |= RTE_MBUF_F_RX_QINQ | RTE_MBUF_F_RX_QINQ_STRIPPED;
			m->vlan_tci_outer = (uint16_t)(tci ^ 0x0fff);
		}
	}
	return m;
}

/* Invariants ----------------------------------------------------------------- */

/*
 * The port units' counts against the mappings (nat/ports.h). The harness's
 * own checks give libFuzzer no coverage to follow (no_sanitize).
 */
#define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))

/* eim: the bindings against their port units and the sessions (nat/bib.h):
 * a unit is bound exactly while it counts a session record, each binding
 * is found by both its endpoints, every home counts the bindings away
 * from it (up to its saturation), and every session is on its inside
 * endpoint's binding, so the unit's counts are the binding's */
FUZZ_NO_COVERAGE static void
check_bib(void)
{
	struct nat_bib *b = &lc->nat.bib;   /* a lookup remembers its answer */
	const struct nat_ports *np = &lc->nat.ports;
	const struct nat_port_unit *u;
	const struct nat_bib_entry *e;
	const struct nat_mapping *m;
	struct nat_eim_pub p;
	static uint32_t away[1024];   /* by home unit */
	uint64_t used = 0, sessions = 0;
	uint32_t i, home;

	if (!nat_bib_on(b))
		return;
	if (b->units > RTE_DIM(away))
		fail("the fuzzer's units fit its counts", b->units, RTE_DIM(away));
	memset(away, 0, sizeof(away));
	for (i = 0; i < b->units; i++) {
		e = nat_bib_at(b, i);
		u = nat_ports_unit_at(np, i);
		if ((e->used != 0) != (u->live + u->held != 0))
			fail("a unit bound exactly while it counts a session record", i,
			     u->live + u->held);
		if (!e->used)
			continue;
		used++;
		p = nat_eim_pub_of(&lc->nat, e);
		home = nat_eim_home(&lc->nat, e->in_addr, e->in_port, e->proto);
		if (home != i && home != NAT_BIB_NO_HOME)
			away[home]++;
		if (nat_bib_inside(b, e->in_addr, e->in_port, e->proto, home) != e ||
		    nat_eim_public(&lc->nat, p.addr, p.port, e->proto) != e ||
		    nat_eim_unit(&lc->nat, p.pool_idx, e->proto, p.port) != i)
			fail("a binding found by both endpoints, at its unit", i, i);
		/* with port blocks its port lies in a block its host owns */
		if (nat_blocks_on(&lc->nat.blocks) &&
		    !nat_block_owns(&lc->nat.blocks, np, e->in_addr, p.pool_idx,
				    rte_be_to_cpu_16(p.port)))
			fail("a binding's port in a block of its host", p.pool_idx,
			     rte_be_to_cpu_16(p.port));
	}
	for (i = 0; i < b->units; i++) {
		e = nat_bib_at(b, i);
		if (e->away != NAT_BIB_AWAY_MAX && e->away != away[i])
			fail("a home's count of the bindings away from it", i, e->away);
	}
	if (used != nat_bib_count(b) || used != lc->nat.st.nat_bib_active)
		fail("bindings in the table against nat_bib_active", used,
		     lc->nat.st.nat_bib_active);
	for (i = 0; i < lc->nat.tbl.capacity; i++) {
		m = &lc->nat.tbl.rec[i];
		if (m->state == NAT_FREE)
			continue;
		sessions++;
		e = nat_bib_public(b, nat_eim_unit(&lc->nat, m->pool_idx, m->proto,
						   m->pub_port));
		p = e != NULL ? nat_eim_pub_of(&lc->nat, e) : (struct nat_eim_pub){ 0 };
		if (e == NULL || e->in_addr != m->in_addr || e->in_port != m->in_port ||
		    e->proto != m->proto || p.addr != m->pub_addr)
			fail("a session on its inside endpoint's binding", i, e != NULL);
	}
	if (sessions != nat_table_count(&lc->nat.tbl))
		fail("sessions in the table against its count", sessions,
		     nat_table_count(&lc->nat.tbl));
	if (sessions == 0 && b->rem.keys != 0)
		fail("adf address counts with no session", b->rem.keys, 0);
}

FUZZ_NO_COVERAGE static void
check_ports(void)
{
	const struct nat_ports *np = &lc->nat.ports;
	const struct nat_port_unit *u;
	uint64_t i, live = 0, held = 0, used = 0;

	if (nat_ports_check(np) != 0)
		fail("NAT port units free and held as recounted", np->nb_free, 0);
	if (nat_blocks_check(&lc->nat.blocks, np) != 0)
		fail("NAT port blocks against their units, hosts and free lists",
		     lc->nat.blocks.nb_owned, 0);
	if (lc->nat.blocks.nb_owned != lc->nat.st.nat_blocks_active)
		fail("NAT port blocks owned against nat_blocks_active",
		     lc->nat.blocks.nb_owned, lc->nat.st.nat_blocks_active);
	for (i = 0; i < np->units; i++) {
		u = nat_ports_unit_at(np, (uint32_t)i);
		live += u->live;
		held += u->held;
		used += u->live != 0;
	}
	if (np->nb_free + np->nb_held + used != np->units)
		fail("NAT port units free + held + in use", np->nb_free + np->nb_held + used,
		     np->units);
	if (live != lc->nat.st.nat_active)
		fail("live counts of the port units against nat_active", live,
		     lc->nat.st.nat_active);
	if (held != lc->nat.st.nat_held)
		fail("held counts of the port units against nat_held", held,
		     lc->nat.st.nat_held);
	if (nat_table_count(&lc->nat.tbl) != lc->nat.st.nat_active + lc->nat.st.nat_held)
		fail("mappings in the table against live + held",
		     nat_table_count(&lc->nat.tbl), lc->nat.st.nat_active + lc->nat.st.nat_held);
	check_bib();
}

/* After a burst: the counters only (a recount per input is cheaper). */
FUZZ_NO_COVERAGE static void
check_burst(void)
{
	const struct fx_nat *nt = &lc->nat;

	if (lc->flows.st.active > fx_conf.max_flows)
		fail("flows active within --max-flows", lc->flows.st.active, fx_conf.max_flows);
	if (lc->flows.st.active + lc->flows.table.n_free > lc->flows.table.capacity)
		fail("flows active + slots free within the slab",
		     lc->flows.st.active + lc->flows.table.n_free, lc->flows.table.capacity);
	if (nt->st.nat_active == 0 &&
	    nt->ports.nb_free + nt->ports.nb_held != nt->ports.units)
		fail("NAT port units free + held with no mapping live",
		     nt->ports.nb_free + nt->ports.nb_held, nt->ports.units);
	if (nt->ports.nb_free + nt->ports.nb_held > nt->ports.units)
		fail("NAT port units free + held within the share",
		     nt->ports.nb_free + nt->ports.nb_held, nt->ports.units);
	if (nat_table_count(&nt->tbl) != nt->st.nat_active + nt->st.nat_held)
		fail("mappings in the table against live + held",
		     nat_table_count(&nt->tbl), nt->st.nat_active + nt->st.nat_held);
}

/* Everything ended: nothing may be left. */
FUZZ_NO_COVERAGE static void
check_empty(void)
{
	check_ports();
	if (lc->flows.st.active != 0)
		fail("flows active after every timeout", lc->flows.st.active, 0);
	if (lc->flows.table.n_free != lc->flows.table.capacity)
		fail("flow slots free after every timeout", lc->flows.table.n_free, lc->flows.table.capacity);
	if (lc->flows.host_quota.keys != 0)
		fail("per-host flow quota entries after every timeout", lc->flows.host_quota.keys, 0);
	if (nat_table_count(&lc->nat.tbl) != 0)
		fail("mappings after every timeout and the hold-down",
		     nat_table_count(&lc->nat.tbl), 0);
	if (lc->nat.per_host.keys != 0 || lc->nat.per_dest.keys != 0)
		fail("NAT quota entries after every mapping ended",
		     lc->nat.per_host.keys + lc->nat.per_dest.keys, 0);
	if (lc->nat.ports.nb_free != lc->nat.ports.units)
		fail("NAT port units free after every mapping ended",
		     lc->nat.ports.nb_free, lc->nat.ports.units);
	if (lc->nat.blocks.nb_owned != 0 ||
	    lc->nat.st.nat_block_allocated != lc->nat.st.nat_block_released)
		fail("NAT port blocks owned after every mapping ended",
		     lc->nat.blocks.nb_owned, 0);
	if (rte_mempool_avail_count(pool) != pool->size)
		fail("mbufs back in the pool", rte_mempool_avail_count(pool), pool->size);
}

/* One input ------------------------------------------------------------------ */

static const uint64_t step_units_us[4] = { 10, 1000, 100000, 1000000 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct rte_mbuf *pkts[MAX_PKT_BURST];
	const struct fx_route_table *rt;
	unsigned int it, i;
	uint8_t flags, step;
	uint16_t n, tci, port;
	uint64_t hz = rte_get_tsc_hz();

	/* the NAT's random port candidates repeat for a repeated input */
	rte_srand(1);
	for (it = 0; r.left != 0 && it < FUZZ_ITERATIONS_MAX; it++) {
		flags = (uint8_t)take(&r, 1);
		step = (uint8_t)take(&r, 1);
		n = (uint16_t)(take(&r, 1) % (MAX_PKT_BURST + 1));
		tci = flags & 0x40 ? (uint16_t)take(&r, 2) : 0;
		port = (uint16_t)((flags & 3) % FUZZ_PORTS);
		vnow += (step & 63) * step_units_us[step >> 6] * hz / 1000000;
		for (i = 0; i < n; i++) {
			pkts[i] = frame(&r, flags, tci);
			if (pkts[i] == NULL)
				break;
		}
		n = (uint16_t)i;
		TRACE("iteration %u: port %u, +%u x %" PRIu64 " us, %u frames, flags %#x\n",
		      it, port, step & 63, step_units_us[step >> 6], n, flags);
		/* the worker loop's iteration, its rx poll at vnow */
		rt = fx_route_get();
		lc->now = vnow;
		if (n != 0)
			fx_worker_rx_burst(lc, rt, port, pkts, n);
		fx_worker_tx(lc, n);
		fx_worker_loop_end(lc, vnow, n, true);
		check_burst();
	}
	check_ports();
	TRACE("totals: flows created %" PRIu64 ", NAT created %" PRIu64 " out %" PRIu64
	      " in %" PRIu64 " in_nomatch %" PRIu64 ", sent %" PRIu64 " %" PRIu64 " %" PRIu64
	      ", dropped %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", lc->flows.st.created,
	      lc->nat.st.nat_created, lc->nat.st.nat_out, lc->nat.st.nat_in,
	      lc->nat.st.nat_in_nomatch, lc->fwd.st.tx[0], lc->fwd.st.tx[1], lc->fwd.st.tx[2],
	      lc->fwd.st.dropped[0], lc->fwd.st.dropped[1], lc->fwd.st.dropped[2]);
	/* the capture ended: time jumps past every deadline and hold-down */
	vnow += jump;
	lc->now = vnow;
	while (fx_worker_expire(lc))
		;
	fx_worker_tx(lc, 0);
	check_empty();
	if (vnow - clock_start > FUZZ_CLOCK_SPAN) {
		/* far from wrapping: the worker's state made anew, as at start-up */
		fx_free_flow_state();
		fx_setup_flow_state();
		clock_begin();
	}
	return 0;
}
