/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Start-up checks with numbers, after EAL and the lcores, before the first
 * table is allocated (boot/main.c).
 *
 * Memory: per socket, an estimate of what the run will allocate there -
 * each worker's flows (slab, index, free stack, TCP connections, the
 * per-host quota, the eviction list), its expiry back-end (the wheel's
 * entries, or one rte_timer per slot), its NAT mappings (under eim with
 * the binding table: nat_bib_bytes()), the socket's mbuf
 * pool, and on the main lcore's socket the route table and the rest - set
 * against what EAL can still give there: the heap's free memory, plus,
 * where the heap may grow (hugepages, no --legacy-mem), the node's free
 * hugepages, up to --socket-limit. A run that does not fit is refused
 * with both figures, instead of failing at whichever allocation comes
 * first. The per-entry figures of the wheel and of a NAT mapping are the
 * measured ones of doc/operations.md and doc/nat.md; the rest is computed
 * from the sizes the allocators ask for.
 *
 * Warnings (stderr, the run goes on): a worker polling a port of another
 * NUMA socket; a timeout of more than FX_REVISIT_WARN wheel rotations,
 * with the revisits it costs; a port with no known next hop; a port that
 * takes masquerade's inbound traffic without an address to answer ARP
 * for the pool from.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include <twheel.h>

#include "base/config.h"
#include "base/quota.h"
#include "base/timeouts.h"
#include "boot/args.h"
#include "boot/ports.h"
#include "boot/preflight.h"
#include "flow/evict.h"
#include "flow/table.h"
#include "flow/tcp_track.h"
#include "l3/neigh_conf.h"
#include "l3/route.h"
#include "nat/bib.h"
#include "nat/conf.h"
#include "nat/log/export.h"
#include "nat/log/ipfix.h"
#include "nat/nat.h"
#include "worker/lcore.h"

/* measured: a wheel entry with its mempool header (README); a NAT mapping
 * adds one to what its table, quotas and ports take (fx_nat_bytes(): at
 * --max-flows 1048576 with the default quotas, a /28 pool and a /8 inside,
 * 197 B per mapping in all, doc/nat.md "Cost and sizing") */
#define WHEEL_ENTRY_BYTES 54
/* rings, handoff buffers, telemetry, EAL's own: measured with
 * --expiry none beside the route table and the pool */
#define OTHER_BYTES (16u << 20)

#define MIB (1024.0 * 1024.0)

enum { M_FLOWS, M_WHEELS, M_NAT, M_MBUFS, M_ROUTES, M_OTHER, M_MAX };
static const char *const m_name[M_MAX] = {
	"flows", "wheels", "NAT", "mbufs", "route tables", "other"
};

/* a wheel's remote channels, at the standard size: a lane per EAL lcore
 * and the shared ring, 24-byte messages (doc/guide.md, "Sizing the
 * channels"); 1.7 MB a wheel on 16 lcores */
static double
wheel_remote_bytes(void)
{
	struct twheel_config cfg;
	uint32_t n;

	twheel_config_standard(&cfg, "preflight", 64, SOCKET_ID_ANY);
	n = cfg.remote_ring_size;
	return rte_lcore_count() * (rte_align32pow2(n) * 24.0 +
				    2 * RTE_CACHE_LINE_SIZE) +
		rte_align32pow2(n + 1) * 24.0;
}

/* the bytes one worker's flow state takes on its socket */
static void
worker_bytes(double *m)
{
	uint64_t f = fx_conf.max_flows;
	uint64_t cap = f + RTE_MAX(f / FX_FT_HEADROOM, 64u);
	uint64_t nb = rte_align64pow2(RTE_MAX((cap + 3) / 4, 2u));
	/* NAT: the ports of the largest worker share */
	uint64_t share = ((uint64_t)fx_nat_conf.port_hi - fx_nat_conf.port_lo) /
		RTE_MAX(fx_nb_workers, 1u) + 1;

	if (fx_conf.expiry != FX_EXPIRY_NONE) {
		m[M_FLOWS] += (double)(nb * 64 + cap * (sizeof(struct fx_flow) + sizeof(uint32_t) +
							sizeof(struct fx_tcp)));
		if (fx_conf.max_flows_per_host != 0)
			m[M_FLOWS] += (double)(rte_align64pow2(2 * f) * sizeof(fx_quota_slot_t));
		if (fx_conf.full_policy == FX_FULL_EVICT)
			m[M_FLOWS] += (double)(f * 16);
		if (fx_conf.expiry == FX_EXPIRY_TWHEEL)
			m[M_WHEELS] += (double)(f * WHEEL_ENTRY_BYTES) +
				       wheel_remote_bytes();
		else if (fx_conf.expiry == FX_EXPIRY_TIMER)
			m[M_WHEELS] += (double)(cap * sizeof(struct rte_timer));
	}
	if (fx_nat_enabled())
		m[M_NAT] += (double)(fx_nat_bytes(fx_conf.max_flows, fx_nb_workers) +
				     f * WHEEL_ENTRY_BYTES) + wheel_remote_bytes();
	/* eim: the binding table, one binding a session at most, and an entry
	 * beside each port unit of the largest share (nat/nat.c) */
	if (fx_nat_enabled() && fx_nat_conf.mapping == NAT_MAP_EIM)
		m[M_NAT] += (double)nat_bib_bytes((uint32_t)f,
				(uint64_t)fx_nat_conf.nb_pool * NAT_PROTO_MAX * share,
				fx_nat_conf.filtering == NAT_FILTER_ADF);
	/* port blocks of the largest share: each block, its two free-list
	 * places, two host slots and its wheel entry (nat/block.h) */
	if (fx_nat_enabled() && fx_nat_conf.port_block != 0)
		m[M_NAT] += (double)(share / fx_nat_conf.port_block *
				     fx_nat_conf.nb_pool *
				     (sizeof(struct nat_block) + 2 * sizeof(uint32_t) +
				      2 * sizeof(struct nat_block_host) + WHEEL_ENTRY_BYTES));
	/* the event ring (RING_F_EXACT_SZ: the next power of two above) */
	if (fx_nat_log_enabled())
		m[M_NAT] += (double)rte_align32pow2(fx_nat_log_conf.ring + 1) *
			    sizeof(struct ipfix_nat_event);
}

/* --legacy-mem, and --socket-limit's MiB for socket s (0: none) */
static void
eal_mem_options(int argc, char **argv, unsigned int s, bool *legacy, double *limit)
{
	const char *p;
	unsigned int i;
	int a;

	*legacy = false;
	*limit = 0;
	for (a = 1; a < argc && strcmp(argv[a], "--") != 0; a++) {
		if (strcmp(argv[a], "--legacy-mem") == 0)
			*legacy = true;
		p = NULL;
		if (strncmp(argv[a], "--socket-limit=", 15) == 0)
			p = argv[a] + 15;
		else if (strcmp(argv[a], "--socket-limit") == 0 && a + 1 < argc)
			p = argv[a + 1];
		for (i = 0; p != NULL && i < s; i++) {
			p = strchr(p, ',');
			p = p != NULL ? p + 1 : NULL;
		}
		if (p != NULL)
			*limit = strtod(p, NULL);
	}
}

/* free hugepages of node s, bytes */
static double
node_free_hugepages(unsigned int s)
{
	static const unsigned long kb[] = { 2048, 1048576, 524288, 16384, 65536 };
	char path[128];
	double sum = 0;
	unsigned int i;
	unsigned long n;
	FILE *f;

	for (i = 0; i < RTE_DIM(kb); i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%u/hugepages/hugepages-%lukB/free_hugepages",
			 s, kb[i]);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &n) == 1)
			sum += (double)n * kb[i] * 1024;
		fclose(f);
	}
	return sum;
}

/* what EAL can still give on socket s, bytes; why, in how */
static double
socket_free(int argc, char **argv, unsigned int s, char *how, size_t len)
{
	struct rte_malloc_socket_stats st;
	double heap_free = 0, heap_used = 0, avail, limit;
	bool legacy;

	if (rte_malloc_get_socket_stats((int)s, &st) == 0) {
		heap_free = (double)st.heap_freesz_bytes;
		heap_used = (double)st.heap_allocsz_bytes;
	}
	avail = heap_free;
	eal_mem_options(argc, argv, s, &legacy, &limit);
	if (!rte_eal_has_hugepages()) {
		snprintf(how, len, "the heap's free memory: --no-huge takes -m once");
	} else if (legacy) {
		snprintf(how, len, "the heap's free memory: --legacy-mem takes it once");
	} else {
		avail += node_free_hugepages(s);
		if (limit > 0 && avail > limit * MIB - heap_used)
			avail = limit * MIB - heap_used;
		snprintf(how, len, "the heap's free memory and node %u's free hugepages%s", s,
			 limit > 0 ? ", up to --socket-limit" : "");
	}
	return avail > 0 ? avail : 0;
}

static int
check_memory(int argc, char **argv)
{
	double need[RTE_MAX_NUMA_NODES][M_MAX];
	bool used[RTE_MAX_NUMA_NODES] = { false };
	unsigned int w, s, k, main_s = rte_lcore_to_socket_id(rte_get_main_lcore());
	char parts[256], how[128];
	double total, avail;
	int n;

	memset(need, 0, sizeof(need));
	for (w = 0; w < fx_nb_workers; w++) {
		s = rte_lcore_to_socket_id(fx_workers[w]->lcore_id);
		worker_bytes(need[s]);
		if (!used[s])
			need[s][M_MBUFS] = (double)fx_ports_mbuf_count() * (double)fx_ports_mbuf_bytes();
		used[s] = true;
	}
	/* the route table: SOCKET_ID_ANY, which is the main lcore's first */
	need[main_s][M_ROUTES] = (double)fx_route_table_bytes(fx_conf.lookup);
	need[main_s][M_OTHER] = OTHER_BYTES;
	used[main_s] = true;
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		if (!used[s])
			continue;
		total = 0;
		n = 0;
		for (k = 0; k < M_MAX; k++) {
			total += need[s][k];
			if (need[s][k] > 0)
				n += snprintf(parts + n, sizeof(parts) - (size_t)n, "%s%s %.0f",
					      n ? ", " : "", m_name[k], need[s][k] / MIB);
		}
		avail = socket_free(argc, argv, s, how, sizeof(how));
		printf("memory on socket %u: about %.0f MiB needed (%s), %.0f MiB free (%s)\n",
		       s, total / MIB, parts, avail / MIB, how);
		if (total > avail) {
			fprintf(stderr, FX_MSG_PREFIX "socket %u: not enough memory: the run needs "
				"about %.0f MiB there (MiB: %s) and %.0f MiB are free (%s); give more "
				"(-m, --socket-mem, hugepages on node %u) or lower --max-flows "
				"(doc/operations.md, \"Sizing\")\n",
				s, total / MIB, parts, avail / MIB, how, s);
			return -1;
		}
	}
	return 0;
}

/* every rx queue on the socket of the lcore that polls it */
static void
check_numa(void)
{
	unsigned int w, q, ls;
	struct fx_lcore *lc;
	int ps;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		ls = rte_lcore_to_socket_id(lc->lcore_id);
		for (q = 0; q < lc->n_rxq; q++) {
			ps = rte_eth_dev_socket_id(lc->rxq[q].port_id);
			if (ps < 0 || (unsigned int)ps == ls)
				continue;
			fprintf(stderr, FX_MSG_PREFIX "warning: lcore %u (socket %u) polls port %u "
				"on socket %d: every packet, descriptor and mbuf crosses between the "
				"sockets; give the lcore a CPU of socket %d (doc/operations.md, "
				"\"Bare metal\")\n", lc->lcore_id, ls, lc->rxq[q].port_id, ps, ps);
		}
	}
}

/* timeouts against the wheel's rotation: each rotation past the first
 * costs an entry one revisit */
static void
check_rotation(void)
{
	static const char *const opt[FX_TMO_MAX] = {
#define FX_TMO_OPT(e, n, o, d) [FX_TMO_ ## e] = o,
		FX_TMOS(FX_TMO_OPT)
#undef FX_TMO_OPT
	};
	struct twheel_config cfg;
	double rotation, r;
	unsigned int t;

	if (fx_conf.expiry != FX_EXPIRY_TWHEEL && !fx_nat_enabled())
		return;
	twheel_config_standard(&cfg, "preflight", 64, SOCKET_ID_ANY);
	rotation = fx_conf.tick_us * 1e-6 * cfg.slots;
	for (t = 0; t < FX_TMO_MAX; t++) {
		r = fx_conf.timeout_s[t] / rotation;
		if (r <= FX_REVISIT_WARN)
			continue;
		fprintf(stderr, FX_MSG_PREFIX "warning: --%s %g s is %.0f rotations of the wheel "
			"(--tick-us %u x %u slots = %g s), over %u: an entry that lives that long "
			"is revisited %.0f times, one unit of --expire-budget each; a longer "
			"--tick-us makes fewer\n", opt[t], fx_conf.timeout_s[t], r,
			fx_conf.tick_us, cfg.slots, rotation, FX_REVISIT_WARN, r);
	}
}

/*
 * Whether the example can know the Ethernet address of port's next hops:
 * given with --eth-dest, or resolved by ARP / ND from an address of the
 * port's own (--port-addr, l3/neigh.h).
 */
static bool
next_hop_known(uint16_t port)
{
	return port < FX_MAX_PORTS && (((fx_conf.eth_dest_given | fx_neigh_conf.ports) >> port) & 1);
}

static void
check_next_hops(void)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t port;

	for (port = 0; port < FX_MAX_PORTS; port++) {
		if (!((fx_conf.portmask >> port) & 1) || next_hop_known(port))
			continue;
		rte_ether_format_addr(mac, sizeof(mac), &fx_conf.eth_dest[port]);
		fprintf(stderr, FX_MSG_PREFIX "warning: port %u: no --eth-dest=%u,MAC: its "
			"packets leave for %s, an address no router has\n", port, port, mac);
	}
}

/*
 * Masquerade's pool is answered for in ARP by the ports its inbound
 * traffic comes in by (the outside ones; without --nat-outside, the one
 * NAT port) when they have an address of their own (--port-addr,
 * l3/neigh.c, doc/nat.md "ARP for the pool"). Without one nothing
 * answers: a router that resolves the pool (on-link, or through the
 * port's address) sends nothing back, whatever --eth-dest says of the
 * way out. It can still work with a static neighbour on the router, so
 * this is a warning.
 */
static void
check_pool_arp(void)
{
	uint16_t port;

	if (!fx_nat_enabled())
		return;
	for (port = 0; port < FX_MAX_PORTS; port++) {
		if (!((fx_conf.portmask >> port) & 1) || ((fx_neigh_conf.ports >> port) & 1) ||
		    (nat_roles(&fx_nat_conf) && !nat_is_outside_port(&fx_nat_conf, port)))
			continue;
		fprintf(stderr, FX_MSG_PREFIX "warning: port %u takes masquerade's inbound "
			"traffic but has no --port-addr: nothing answers ARP for the --nat-pool "
			"addresses there, and a router that resolves them drops the replies to "
			"every mapping; add --port-addr %u,ADDR/LEN (doc/nat.md, \"ARP for the "
			"pool\")\n", port, port);
	}
}

int
fx_preflight(int argc, char **argv)
{
	check_numa();
	check_rotation();
	check_next_hops();
	check_pool_arp();
	return check_memory(argc, argv);
}
