/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Benchmark: what the NAT event log costs each side, in one process.
 *
 *   flowexp-nat-log-bench EAL-ARGS -- [ROUNDS]
 *
 * The worker's side: nat_log_created() of a mapping record (the hook in
 * nat/in2out.c: the record filled and pushed to the worker's ring), in
 * rounds of 32768 pushes into an empty ring of 65536, the ring emptied
 * between rounds outside the timing. The exporter's side: the same
 * records taken from the ring in bursts of 256 and encoded into
 * 1400-byte IPFIX messages (ipfix_msg_add_event(), a message started
 * again when one is full), as the main lcore does before it sends them;
 * the send itself is the kernel's and is not measured. ROUNDS (default
 * 200) rounds of each alternate; the medians and minima of the cycles
 * per event are printed. The machine's other load shows as spread
 * between rounds; the minimum is the cost where nothing interfered.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "nat/log/events.h"
#include "nat/log/ipfix.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/table.h"

#define RING 65536u
#define PER_ROUND 32768u
#define TAKE 256u

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, uint64_t *c, unsigned int n)
{
	qsort(c, n, sizeof(*c), cmp_u64);
	printf("%-44s median %6.1f, min %6.1f cycles per event\n", what,
	       (double)c[n / 2] / PER_ROUND, (double)c[0] / PER_ROUND);
}

int
main(int argc, char **argv)
{
	static struct ipfix_nat_event evs[TAKE];
	static uint8_t buf[IPFIX_MSG_MAX];
	static struct fx_nat nt;
	struct nat_mapping m;
	struct ipfix_msg msg;
	uint64_t *push, *enc, t0, sink = 0;
	unsigned int rounds = 200, r, i, n, done;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc > 1)
		rounds = (unsigned int)strtoul(argv[1], NULL, 0);
	if (rounds == 0)
		rounds = 1;
	push = calloc(rounds, sizeof(*push));
	enc = calloc(rounds, sizeof(*enc));
	if (push == NULL || enc == NULL || nat_log_init(&nt.log, &nt.st.log, 0, RING, 0) != 0) {
		fprintf(stderr, "no memory\n");
		return 1;
	}
	memset(&m, 0, sizeof(m));
	m.in_addr = htonl(0x0a010001);
	m.pub_addr = htonl(0xcb007101);
	m.rem_addr = htonl(0xc612000a);
	m.rem_port = htons(53);
	m.proto = 17;
	for (r = 0; r < rounds; r++) {
		t0 = rte_rdtsc_precise();
		for (i = 0; i < PER_ROUND; i++) {
			m.in_port = (uint16_t)i;
			m.pub_port = (uint16_t)(i + 1);
			nat_log_created(&nt, &m, t0 + i);
		}
		push[r] = rte_rdtsc_precise() - t0;
		ipfix_msg_start(&msg, buf, sizeof(buf));
		t0 = rte_rdtsc_precise();
		for (done = 0; done < PER_ROUND; done += n) {
			n = rte_ring_sc_dequeue_burst_elem(nt.log->ring, evs, sizeof(evs[0]),
							   TAKE, NULL);
			for (i = 0; i < n; i++) {
				if (ipfix_msg_add_event(&msg, &evs[i], evs[i].time / 1000) != 0) {
					sink += ipfix_msg_finish(&msg, 0, 0, 1);
					ipfix_msg_start(&msg, buf, sizeof(buf));
					ipfix_msg_add_event(&msg, &evs[i], evs[i].time / 1000);
				}
			}
		}
		enc[r] = rte_rdtsc_precise() - t0;
	}
	printf("%u rounds of %u events; %" PRIu64 " queued, %" PRIu64 " dropped (%" PRIu64
	       " message bytes)\n", rounds, PER_ROUND, nt.st.log.queued,
	       nt.st.log.dropped, sink);
	report("worker: nat_log_created() (fill and push)", push, rounds);
	report("exporter: dequeue and encode", enc, rounds);
	nat_log_fini(&nt.log);
	rte_eal_cleanup();
	return 0;
}
