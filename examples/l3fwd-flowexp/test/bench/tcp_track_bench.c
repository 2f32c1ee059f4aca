/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Benchmark: what the L4 checksum and the TCP connection tracker add per
 * packet, in one process, away from the PMDs and the machine's other
 * traffic.
 *
 *   flowexp-tcp-track-bench EAL-ARGS -- [CONNS] [ROUNDS]
 *
 * Checksums: fx_parse() of 1024 prepared 64-byte frames in mbufs (warm,
 * as right after a PMD wrote them), of four kinds: UDP with a checksum of
 * 0 (what testpmd's flowgen sends), UDP and TCP with a right checksum
 * (computed in software: no NIC flag), and TCP with the NIC's
 * RTE_MBUF_F_RX_L4_CKSUM_GOOD. Cycles per frame of each.
 *
 * Tracker: CONNS (default 1M) established connections, 32-byte records in
 * one array (cold at 1M, as in the worker), visited in a random order in
 * bursts of 32: the burst's records prefetched first, as the worker does
 * after ft_candidate(), then each given its connection's next data segment
 * (it fits: the window checks and the update, fx_tcp_track()). The same
 * loop without the call, reading one word of each record, is the floor:
 * what the prefetched line costs by itself. Cycles per segment of both.
 *
 * Rounds alternate; the medians and the least of the rounds are printed. Nothing but this loop runs
 * in the process; the machine's other load shows as spread between rounds.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "flow/tcp_track.h"
#include "fwd/parse.h"

#define BURST 32
#define FRAMES 1024
#define PARSE_REPS 64

enum kind { K_UDP0, K_UDP, K_TCP, K_TCP_NIC, K_MAX };
static const char *const kind_name[K_MAX] = {
	"UDP, checksum 0", "UDP, checksum computed", "TCP, checksum computed",
	"TCP, NIC says good",
};

static volatile uint64_t sink;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sorts v: then v[0] is the least, v[n / 2] the median */
static uint64_t
median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* a 64-byte IPv4 frame of kind k, flow i, in m */
static void
frame_fill(struct rte_mbuf *m, enum kind k, uint32_t i)
{
	bool tcp = k == K_TCP || k == K_TCP_NIC;
	uint32_t l4len = (tcp ? sizeof(struct rte_tcp_hdr) : sizeof(struct rte_udp_hdr)) + 6;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, 60);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint8_t *l4 = (uint8_t *)(ip + 1);

	memset(p, 0, 60);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + l4len));
	ip->time_to_live = 64;
	ip->next_proto_id = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000000u | i);
	ip->dst_addr = rte_cpu_to_be_32(0xac100001u);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (tcp) {
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)l4;

		th->src_port = rte_cpu_to_be_16((uint16_t)(1024 + i));
		th->dst_port = rte_cpu_to_be_16(443);
		th->sent_seq = rte_cpu_to_be_32(i * 2654435761u);
		th->recv_ack = rte_cpu_to_be_32(i * 40503u);
		th->data_off = 5 << 4;
		th->tcp_flags = RTE_TCP_ACK_FLAG;
		th->rx_win = rte_cpu_to_be_16(65535);
		memcpy(th + 1, "abcdef", 6);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	} else {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;

		uh->src_port = rte_cpu_to_be_16((uint16_t)(1024 + i));
		uh->dst_port = rte_cpu_to_be_16(53);
		uh->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
		memcpy(uh + 1, "abcdef", 6);
		if (k == K_UDP)
			uh->dgram_cksum = rte_ipv4_udptcp_cksum(ip, uh);
	}
	if (k == K_TCP_NIC)
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
}

/* cycles per fx_parse() of the frames of one kind, one round */
static uint64_t
parse_round(struct rte_mbuf **m, struct fx_pkt *pk)
{
	uint64_t t0, acc = 0;
	unsigned int r, i;

	t0 = rte_rdtsc_precise();
	for (r = 0; r < PARSE_REPS; r++)
		for (i = 0; i < FRAMES; i++)
			acc += (uint64_t)fx_parse(m[i], &pk[i]);
	t0 = rte_rdtsc_precise() - t0;
	sink += acc;
	return t0 / (PARSE_REPS * FRAMES);
}

/* per connection: the next sequence number of each side */
struct next_seq {
	uint32_t c, s;
};

static void
establish(struct fx_tcp *t, struct next_seq *nx, uint32_t i)
{
	uint32_t ci = i * 2654435761u, si = i * 40503u;
	struct fx_tcp_seg s = { .seq = ci, .win = 65535, .wscale = 7, .flags = FX_TCP_SYN };

	fx_tcp_open(t, 0, &s);
	s = (struct fx_tcp_seg){ .seq = si, .ack = ci + 1, .win = 65535, .wscale = 7,
				 .flags = FX_TCP_SYN | FX_TCP_ACK };
	fx_tcp_track(t, 1, &s);
	s = (struct fx_tcp_seg){ .seq = ci + 1, .ack = si + 1, .win = 512,
				 .wscale = FX_TCP_WSCALE_NONE, .flags = FX_TCP_ACK };
	fx_tcp_track(t, 0, &s);
	nx->c = ci + 1;
	nx->s = si + 1;
}

/* one round over the connections in the order of perm; track: call the tracker */
static uint64_t
track_round(struct fx_tcp *t, struct next_seq *nx, const uint32_t *perm, uint32_t n,
	    bool track, uint32_t *bad)
{
	struct fx_tcp_seg s = { .win = 512, .len = 6, .wscale = FX_TCP_WSCALE_NONE,
				.flags = FX_TCP_ACK };
	uint64_t t0, acc = 0;
	uint32_t b, j, c;

	t0 = rte_rdtsc_precise();
	for (b = 0; b + BURST <= n; b += BURST) {
		for (j = 0; j < BURST; j++) {
			rte_prefetch0(&t[perm[b + j]]);
			rte_prefetch0(&nx[perm[b + j]]);
		}
		for (j = 0; j < BURST; j++) {
			c = perm[b + j];
			/* client and server in turn, each acknowledging the other */
			if (j & 1) {
				s.seq = nx[c].s;
				s.ack = nx[c].c;
				nx[c].s += 6;
			} else {
				s.seq = nx[c].c;
				s.ack = nx[c].s;
				nx[c].c += 6;
			}
			if (track)
				*bad += fx_tcp_track(&t[c], j & 1, &s) != FX_TCP_PASS;
			else
				acc += t[c].d[j & 1].end + s.seq;
		}
	}
	t0 = rte_rdtsc_precise() - t0;
	sink += acc;
	return t0 / (n - n % BURST);
}

int
main(int argc, char **argv)
{
	uint64_t pc[K_MAX][64], tc[64], fc[64], med;
	struct rte_mbuf *m[K_MAX][FRAMES];
	struct fx_pkt *pk;
	struct rte_mempool *mp;
	struct next_seq *nx;
	struct fx_tcp *t;
	uint32_t *perm, n = 1u << 20, rounds = 9, i, j, x, bad = 0;
	unsigned int k, r;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	/* after the EAL's arguments and "--": [CONNS] [ROUNDS] */
	if (ret + 1 < argc)
		n = (uint32_t)strtoul(argv[ret + 1], NULL, 0);
	if (ret + 2 < argc)
		rounds = (uint32_t)strtoul(argv[ret + 2], NULL, 0);
	if (rounds == 0 || rounds > 64 || n < BURST)
		return 2;

	mp = rte_pktmbuf_pool_create("tcpb", K_MAX * FRAMES + 64, 0, FX_MBUF_PRIV_SIZE,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	pk = rte_malloc(NULL, sizeof(*pk) * FRAMES, RTE_CACHE_LINE_SIZE);
	t = rte_zmalloc(NULL, sizeof(*t) * n, RTE_CACHE_LINE_SIZE);
	nx = rte_malloc(NULL, sizeof(*nx) * n, RTE_CACHE_LINE_SIZE);
	perm = malloc(sizeof(*perm) * n);
	if (mp == NULL || pk == NULL || t == NULL || nx == NULL || perm == NULL) {
		printf("no memory\n");
		return 1;
	}
	for (k = 0; k < K_MAX; k++)
		for (i = 0; i < FRAMES; i++) {
			m[k][i] = rte_pktmbuf_alloc(mp);
			if (m[k][i] == NULL)
				return 1;
			frame_fill(m[k][i], k, i);
			if (fx_parse(m[k][i], &pk[i]) != FX_PARSE_OK) {
				printf("frame of kind %u did not parse\n", k);
				return 1;
			}
		}
	for (i = 0; i < n; i++) {
		establish(&t[i], &nx[i], i);
		perm[i] = i;
	}
	/* a random order: Fisher-Yates with a xorshift */
	for (i = n - 1, x = 2463534242u; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		j = x % (i + 1);
		uint32_t tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < K_MAX; k++)
			pc[k][r] = parse_round(m[k], pk);
		tc[r] = track_round(t, nx, perm, n, true, &bad);
		fc[r] = track_round(t, nx, perm, n, false, &bad);
	}
	printf("fx_parse() of a 64-byte frame, cycles (median, least of %u rounds):\n", rounds);
	for (k = 0; k < K_MAX; k++) {
		med = median(pc[k], rounds);
		printf("  %-24s %4" PRIu64 " %4" PRIu64 "\n", kind_name[k], med, pc[k][0]);
	}
	printf("%u connections, random order, bursts of %u prefetched: cycles per segment\n",
	       n, BURST);
	med = median(tc, rounds);
	printf("  fx_tcp_track()           %4" PRIu64 " %4" PRIu64 "\n", med, tc[0]);
	med = median(fc, rounds);
	printf("  the record read alone    %4" PRIu64 " %4" PRIu64 "\n", med, fc[0]);
	printf("segments that did not fit: %u\n", bad);
	rte_eal_cleanup();
	return bad != 0;
}
