/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Port and queue set-up, in l3fwd's order: one mbuf pool per socket, then
 * per port: device info, offloads, RSS, configure, descriptor counts, one
 * tx queue per worker, one rx queue per --config entry, packet types,
 * start, promiscuous mode.
 *
 * Symmetric RSS. A flow's two directions must reach the same worker, or
 * each direction would create its own flow on a different lcore and never
 * see the reply. With more than one rx queue on a port, RSS hashes IP
 * addresses and TCP/UDP ports (masked by what the device supports) and is
 * asked to be symmetric (compat.h): RTE_ETH_HASH_FUNCTION_SYMMETRIC_
 * TOEPLITZ where the DPDK release and the device offer it, otherwise
 * Toeplitz with a key of the 16-bit pattern 0x6d5a repeated, which does not
 * see source and destination swapped (addresses 32 or 128 bits apart,
 * ports 16 bits apart); a device with hash_key_size 0 gets no key.
 *
 * Affinity (--affinity, handoff.h). Once the ports are started, rss is
 * checked unless handoff was asked for: every worker must poll a queue of
 * every port; each port's redirection table is programmed so that entry i
 * goes to a queue of worker i % workers (the smallest table of all ports
 * sets the period, so a hash meets the same worker on every port); the
 * table and the hash configuration are read back. If all of it holds the
 * run uses rss; otherwise --affinity rss stops with the reason and auto
 * uses the software handoff, and the log says which and why.
 *
 * Offloads. IPv4 header checksum verification is requested on rx (frames
 * the NIC marks bad are dropped as ipv4_cksum). A port that cannot do it
 * stops start-up with a message, unless --relax-rx-offload masks the
 * request by dev_info.rx_offload_capa (virtual devices need this).
 *
 * Packet types are not used: the parser reads the EtherType and VLAN tags
 * from the frame (parse.c), so no port needs --parse-ptype.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "compat.h"
#include "flowexp.h"
#include "handoff.h"
#include "nat.h"
#include "parse.h"
#include "ports.h"

#define MEMPOOL_CACHE_SIZE 256
#define FX_RSS_KEY_LEN_MAX 128

struct rte_ether_addr fx_port_mac[RTE_MAX_ETHPORTS];
static struct rte_mempool *pktmbuf_pool[RTE_MAX_NUMA_NODES];
static uint8_t rss_key[FX_RSS_KEY_LEN_MAX];

/* What each port was asked for, for the check after start. */
static struct port_rss {
	bool on;                        /* RSS configured */
	enum fx_rss_sym how;            /* symmetric by algorithm, key, or not */
	struct rte_eth_rss_conf want;
	uint16_t reta_size;
} prss[RTE_MAX_ETHPORTS];

/* rx queues of a port: its --config entries (args.c checked them) */
static uint16_t
port_n_rx_queues(uint16_t port)
{
	uint16_t i, n = 0;

	for (i = 0; i < fx_conf.nb_lcore_params; i++)
		if (fx_conf.lcore_params[i].port_id == port)
			n++;
	return n;
}

static struct rte_mempool *
pool_for_socket(int socket, unsigned int nb_mbuf)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int s = socket < 0 ? 0 : (unsigned int)socket;

	if (s >= RTE_MAX_NUMA_NODES)
		rte_exit(EXIT_FAILURE, "socket %d out of range\n", socket);
	if (pktmbuf_pool[s] != NULL)
		return pktmbuf_pool[s];
	snprintf(name, sizeof(name), "fx_mbuf_%u", s);
	pktmbuf_pool[s] = rte_pktmbuf_pool_create(name, nb_mbuf,
			MEMPOOL_CACHE_SIZE, FX_MBUF_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE,
			socket);
	if (pktmbuf_pool[s] == NULL)
		rte_exit(EXIT_FAILURE, "cannot create mbuf pool on socket %u: %s\n",
			 s, rte_strerror(rte_errno));
	return pktmbuf_pool[s];
}

/*
 * Mbufs the run can hold at once, as l3fwd counts them: every rx
 * descriptor of every queue of every port, every tx descriptor of every
 * worker's tx queue on every port plus its tx buffer, each worker's
 * mempool cache and its burst in hand, and under handoff every ring
 * between two workers full plus the packets collected for it. One pool per
 * socket gets this many (l3fwd's simplification), at least 8192.
 */
static unsigned int
mbuf_count(void)
{
	unsigned int nb_ports = 0, nb_rxq = fx_conf.nb_lcore_params;
	unsigned int nw = fx_nb_workers, ho = 0, n;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		nb_ports += (fx_conf.portmask >> port) & 1;
	if (nw > 1 && fx_conf.expiry != FX_EXPIRY_NONE &&
	    fx_conf.affinity != FX_AFFINITY_RSS)
		ho = nw * (nw - 1) * (FX_HANDOFF_RING_SIZE + FX_HANDOFF_BURST);
	n = nb_rxq * fx_conf.nb_rxd +
		nb_ports * nw * (fx_conf.nb_txd + MAX_PKT_BURST) +
		nw * (MEMPOOL_CACHE_SIZE + 2 * MAX_PKT_BURST) + ho;
	n = RTE_MAX(n, 8192u);
	printf("mbufs per pool: %u (%u rx queues x %u + %u ports x %u workers x (%u + %u) + "
	       "%u workers x (%u + %u) + handoff %u)\n", n, nb_rxq, fx_conf.nb_rxd,
	       nb_ports, nw, fx_conf.nb_txd, MAX_PKT_BURST, nw, MEMPOOL_CACHE_SIZE,
	       2 * MAX_PKT_BURST, ho);
	return n;
}

static void
port_conf_build(uint16_t port, const struct rte_eth_dev_info *info,
		uint16_t nb_rxq, struct rte_eth_conf *conf)
{
	uint64_t want_rx = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	uint64_t want_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	struct port_rss *pr = &prss[port];

	memset(conf, 0, sizeof(*conf));
	memset(pr, 0, sizeof(*pr));
	if ((info->rx_offload_capa & want_rx) != want_rx) {
		if (!fx_conf.relax_rx_offload)
			rte_exit(EXIT_FAILURE,
				 "port %u cannot verify IPv4 checksums on rx (capa %#" PRIx64
				 "); add --relax-rx-offload to run without\n",
				 port, info->rx_offload_capa);
		printf("port %u: rx offloads %#" PRIx64 " masked to %#" PRIx64 " (--relax-rx-offload)\n",
		       port, want_rx, want_rx & info->rx_offload_capa);
		want_rx &= info->rx_offload_capa;
	}
	conf->rxmode.offloads = want_rx;
	if (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;

	if (nb_rxq <= 1)
		return;
	if (info->hash_key_size > FX_RSS_KEY_LEN_MAX)
		rte_exit(EXIT_FAILURE, "port %u: RSS key of %u bytes not supported\n",
			 port, info->hash_key_size);
	conf->rx_adv_conf.rss_conf.rss_hf = want_hf & info->flow_type_rss_offloads;
	if (conf->rx_adv_conf.rss_conf.rss_hf == 0) {
		printf("port %u: no RSS on this device; its %u rx queues are filled by its own rule\n",
		       port, nb_rxq);
		return;
	}
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	if (conf->rx_adv_conf.rss_conf.rss_hf != want_hf)
		printf("port %u: RSS hash types %#" PRIx64 " masked to %#" PRIx64 "\n",
		       port, want_hf, conf->rx_adv_conf.rss_conf.rss_hf);
	pr->on = true;
	/* the hash in the mbuf lets the workers check the affinity (foreign) */
	if (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH)
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	pr->how = fx_rss_set_symmetric(&conf->rx_adv_conf.rss_conf, info, rss_key);
	if (pr->how == FX_RSS_SYM_NONE)
		printf("port %u: the device takes no RSS key and offers no symmetric hash; "
		       "its own hash spreads the %u rx queues\n", port, nb_rxq);
	pr->want = conf->rx_adv_conf.rss_conf;
	pr->reta_size = info->reta_size;
}

/* ---- flow affinity (handoff.h): rss verified, or handoff ---- */

/*
 * rss can keep a flow on one lcore only if every worker polls a queue of
 * every port: the redirection tables then send hash entry i, on every port,
 * to a queue of worker i % workers.
 */
static int
rss_layout_check(char *why, size_t len)
{
	unsigned int w, q, n;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		for (w = 0; w < fx_nb_workers; w++) {
			for (n = 0, q = 0; q < fx_workers[w]->n_rxq; q++)
				n += fx_workers[w]->rxq[q].port_id == port;
			if (n == 0) {
				snprintf(why, len, "lcore %u polls no rx queue of port %u, so no "
					 "redirection table can keep both directions of a flow "
					 "that crosses ports on one lcore",
					 fx_workers[w]->lcore_id, port);
				return -1;
			}
		}
	}
	return 0;
}

/* The queue of port that hash entry i goes to: one of worker i % n's. */
static uint16_t
reta_queue(uint16_t port, unsigned int i, unsigned int size)
{
	const struct fx_lcore *lc = fx_workers[(i % size) % fx_nb_workers];
	unsigned int q, n = 0, k;

	for (q = 0; q < lc->n_rxq; q++)
		n += lc->rxq[q].port_id == port;
	k = (i / fx_nb_workers) % n;
	for (q = 0; q < lc->n_rxq; q++)
		if (lc->rxq[q].port_id == port && k-- == 0)
			return lc->rxq[q].queue_id;
	return 0;   /* not reached: rss_layout_check() */
}

/* Program port's redirection table and read it and the hash back. */
static int
rss_program(uint16_t port, unsigned int owner_size, char *why, size_t len)
{
	struct rte_eth_rss_reta_entry64 reta[FX_RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_reta_entry64 got[RTE_DIM(reta)];
	const struct port_rss *pr = &prss[port];
	uint8_t key[FX_RSS_KEY_LEN_MAX];
	struct rte_eth_rss_conf conf;
	unsigned int i, size = pr->reta_size;
	int rc;

	memset(reta, 0, sizeof(reta));
	memset(got, 0, sizeof(got));
	for (i = 0; i < size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			reta_queue(port, i, owner_size);
		got[i / RTE_ETH_RETA_GROUP_SIZE].mask = reta[i / RTE_ETH_RETA_GROUP_SIZE].mask;
	}
	rc = rte_eth_dev_rss_reta_update(port, reta, (uint16_t)size);
	if (rc != 0) {
		snprintf(why, len, "port %u: redirection table update: %s", port, strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_rss_reta_query(port, got, (uint16_t)size);
	if (rc != 0) {
		snprintf(why, len, "port %u: redirection table query: %s", port, strerror(-rc));
		return -1;
	}
	for (i = 0; i < size; i++) {
		if (got[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] !=
		    reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE]) {
			snprintf(why, len, "port %u did not keep its redirection table "
				 "(entry %u: queue %u, asked %u)", port, i,
				 got[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE],
				 reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE]);
			return -1;
		}
	}

	memset(&conf, 0, sizeof(conf));
	memset(key, 0, sizeof(key));
	conf.rss_key = key;
	conf.rss_key_len = FX_RSS_KEY_LEN_MAX;
	rc = rte_eth_dev_rss_hash_conf_get(port, &conf);
	if (rc != 0) {
		snprintf(why, len, "port %u: RSS configuration cannot be read back: %s",
			 port, strerror(-rc));
		return -1;
	}
	if (conf.rss_hf == 0) {
		snprintf(why, len, "port %u: RSS is off after configure", port);
		return -1;
	}
	if (!fx_rss_algo_kept(&pr->want, &conf)) {
		snprintf(why, len, "port %u did not keep the symmetric hash function (asked %s, has %s)",
			 port, fx_rss_algo_name(&pr->want), fx_rss_algo_name(&conf));
		return -1;
	}
	if (pr->how == FX_RSS_SYM_KEY &&
	    memcmp(key, pr->want.rss_key, pr->want.rss_key_len) != 0) {
		snprintf(why, len, "port %u did not keep the symmetric RSS key", port);
		return -1;
	}
	printf("port %u: symmetric RSS verified (%s, hash types %#" PRIx64
	       ", redirection table of %u entries over %u lcores)\n", port,
	       pr->how == FX_RSS_SYM_ALGO ? "symmetric Toeplitz" : "Toeplitz key 0x6d5a...",
	       conf.rss_hf, size, fx_nb_workers);
	return 0;
}

/* Set up and check rss on every port; the reason in why if it cannot be. */
static int
rss_verify(char *why, size_t len)
{
	unsigned int size_min = FX_RSS_RETA_MAX, i;
	uint16_t port;

	if (rss_layout_check(why, len) != 0)
		return -1;
	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		if (!prss[port].on) {
			snprintf(why, len, "port %u has no RSS (%s)", port,
				 port_n_rx_queues(port) <= 1 ? "one rx queue" :
				 "the device offers no hash on IP addresses and ports");
			return -1;
		}
		if (prss[port].how == FX_RSS_SYM_NONE) {
			snprintf(why, len, "port %u takes no RSS key and offers no symmetric hash function",
				 port);
			return -1;
		}
		if (prss[port].reta_size == 0 || prss[port].reta_size > FX_RSS_RETA_MAX ||
		    !rte_is_power_of_2(prss[port].reta_size)) {
			snprintf(why, len, "port %u: redirection table of %u entries not supported",
				 port, prss[port].reta_size);
			return -1;
		}
		size_min = RTE_MIN(size_min, prss[port].reta_size);
	}
	/* the smallest table decides: hash % larger % smaller == hash % smaller */
	RTE_ETH_FOREACH_DEV(port) {
		if ((fx_conf.portmask & (1u << port)) && rss_program(port, size_min, why, len) != 0)
			return -1;
	}
	for (i = 0; i < size_min; i++)
		fx_rss_owner[i] = (uint16_t)(i % fx_nb_workers);
	fx_rss_reta_size = (uint16_t)size_min;
	return 0;
}

/* Decide the affinity of the run (--affinity) once the ports are started. */
static void
affinity_decide(void)
{
	char why[160];

	if (fx_nb_workers == 1) {
		fx_affinity_mode = FX_AFF_SINGLE;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "one worker lcore tracks every flow");
	} else if (fx_conf.expiry == FX_EXPIRY_NONE) {
		fx_affinity_mode = FX_AFF_SINGLE;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "--expiry none keeps no flow state");
	} else if (fx_conf.affinity == FX_AFFINITY_HANDOFF) {
		fx_affinity_mode = FX_AFF_HANDOFF;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "--affinity handoff");
	} else if (rss_verify(why, sizeof(why)) == 0) {
		fx_affinity_mode = FX_AFF_RSS;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "symmetric RSS and redirection tables verified on every port");
	} else if (fx_conf.affinity == FX_AFFINITY_RSS) {
		rte_exit(EXIT_FAILURE, "--affinity rss: %s\n", why);
	} else {
		fx_affinity_mode = FX_AFF_HANDOFF;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "auto: %s", why);
	}
	FX_LOG(INFO, "affinity %s: %s", fx_affinity_name(fx_affinity_mode),
	       fx_affinity_reason);
	/* NAT's inbound packets go to their public port's owner in any mode */
	fx_handoff_active = fx_affinity_mode == FX_AFF_HANDOFF ||
		(fx_nat_enabled() && fx_nb_workers > 1);
}

void
fx_ports_init(void)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_eth_txconf txconf;
	struct rte_eth_rxconf rxconf;
	unsigned int nb_mbuf, w, q;
	uint16_t port, nb_rxq, nb_txq, nb_rxd, nb_txd;
	struct fx_lcore *lc;
	int socket, rc;

	nb_txq = (uint16_t)fx_nb_workers;
	nb_mbuf = mbuf_count();

	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port))) {
			printf("skipping disabled port %u\n", port);
			continue;
		}
		nb_rxq = port_n_rx_queues(port);
		printf("initializing port %u: %u rx queue(s), %u tx queue(s)\n",
		       port, nb_rxq, nb_txq);
		rc = rte_eth_dev_info_get(port, &info);
		if (rc != 0)
			rte_exit(EXIT_FAILURE, "port %u: dev info: %s\n", port, strerror(-rc));
		if (nb_rxq > info.max_rx_queues || nb_txq > info.max_tx_queues)
			rte_exit(EXIT_FAILURE, "port %u has %u rx / %u tx queues at most, %u / %u wanted\n",
				 port, info.max_rx_queues, info.max_tx_queues, nb_rxq, nb_txq);
		port_conf_build(port, &info, nb_rxq, &conf);
		rc = rte_eth_dev_configure(port, nb_rxq, nb_txq, &conf);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: configure: %s\n", port, strerror(-rc));
		if (prss[port].on) {
			/* some devices take the hash only this way (net_null) */
			rc = rte_eth_dev_rss_hash_update(port, &prss[port].want);
			if (rc != 0 && rc != -ENOTSUP)
				printf("port %u: RSS hash update: %s\n", port, strerror(-rc));
		}
		nb_rxd = fx_conf.nb_rxd;
		nb_txd = fx_conf.nb_txd;
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: descriptors: %s\n", port, strerror(-rc));
		rc = rte_eth_macaddr_get(port, &fx_port_mac[port]);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: MAC address: %s\n", port, strerror(-rc));
		socket = rte_eth_dev_socket_id(port);

		txconf = info.default_txconf;
		txconf.offloads = conf.txmode.offloads;
		for (w = 0; w < fx_nb_workers; w++) {
			lc = fx_workers[w];
			lc->tx_queue[port] = (uint16_t)w;
			rc = rte_eth_tx_queue_setup(port, (uint16_t)w, nb_txd,
					(unsigned int)rte_lcore_to_socket_id(lc->lcore_id), &txconf);
			if (rc < 0)
				rte_exit(EXIT_FAILURE, "port %u: tx queue %u: %s\n", port, w,
					 strerror(-rc));
		}
		rxconf = info.default_rxconf;
		rxconf.offloads = conf.rxmode.offloads;
		for (w = 0; w < fx_nb_workers; w++) {
			lc = fx_workers[w];
			for (q = 0; q < lc->n_rxq; q++) {
				if (lc->rxq[q].port_id != port)
					continue;
				socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
				rc = rte_eth_rx_queue_setup(port, lc->rxq[q].queue_id, nb_rxd,
						(unsigned int)socket, &rxconf,
						pool_for_socket(socket, nb_mbuf));
				if (rc < 0)
					rte_exit(EXIT_FAILURE, "port %u: rx queue %u: %s\n", port,
						 lc->rxq[q].queue_id, strerror(-rc));
			}
		}

		rc = rte_eth_dev_start(port);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: start: %s\n", port, strerror(-rc));
		if (fx_conf.promiscuous) {
			rc = rte_eth_promiscuous_enable(port);
			if (rc != 0 && rc != -ENOTSUP)
				rte_exit(EXIT_FAILURE, "port %u: promiscuous: %s\n", port,
					 strerror(-rc));
			if (rc == -ENOTSUP)
				printf("port %u: promiscuous mode not supported, ignored\n", port);
		}
		printf("port %u: MAC " RTE_ETHER_ADDR_PRT_FMT ", next hop MAC "
		       RTE_ETHER_ADDR_PRT_FMT "\n", port,
		       RTE_ETHER_ADDR_BYTES(&fx_port_mac[port]),
		       RTE_ETHER_ADDR_BYTES(&fx_conf.eth_dest[port]));
	}
	affinity_decide();
}

void
fx_ports_check_link(void)
{
	struct rte_eth_link link;
	uint16_t port;
	int i, all_up = 0;

	printf("checking link status");
	fflush(stdout);
	for (i = 0; i < 90 && !all_up && !fx_force_quit; i++) {
		all_up = 1;
		RTE_ETH_FOREACH_DEV(port) {
			if (!(fx_conf.portmask & (1u << port)))
				continue;
			memset(&link, 0, sizeof(link));
			if (rte_eth_link_get_nowait(port, &link) < 0 ||
			    link.link_status == RTE_ETH_LINK_DOWN) {
				all_up = 0;
				break;
			}
		}
		if (!all_up) {
			printf(".");
			fflush(stdout);
			rte_delay_ms(100);
		}
	}
	printf(" %s\n", all_up ? "done" : "(not all up; continuing)");
	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) < 0)
			continue;
		if (link.link_status == RTE_ETH_LINK_DOWN)
			printf("port %u: link down\n", port);
		else
			printf("port %u: link up, %u Mbps, %s\n", port, link.link_speed,
			       link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ?
			       "full duplex" : "half duplex");
	}
}

void
fx_ports_fini(void)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
}
