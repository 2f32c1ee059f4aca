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
 * asked to be symmetric (base/compat.h): RTE_ETH_HASH_FUNCTION_SYMMETRIC_
 * TOEPLITZ where the DPDK release and the device offer it, otherwise
 * Toeplitz with a key of the 16-bit pattern 0x6d5a repeated, which does not
 * see source and destination swapped (addresses 32 or 128 bits apart,
 * ports 16 bits apart); a device with hash_key_size 0 gets no key.
 *
 * What each port was asked for (fx_ports_rss()) is kept for the affinity
 * decision (boot/affinity.c), which programs the redirection tables once the
 * ports have started and reads them and the hash back.
 *
 * Offloads. IPv4 header checksum verification is requested on rx (frames
 * the NIC marks bad are dropped as ipv4_cksum). A port that cannot do it
 * stops start-up with a message, unless --relax-rx-offload masks the
 * request by dev_info.rx_offload_capa (virtual devices need this). TCP
 * and UDP checksum verification is requested where the port offers it;
 * where it does not, or for what it does not mark, the parser computes
 * the checksum itself (fwd/parse.c), so no port needs it.
 *
 * Packet types are not used: the parser reads the EtherType and VLAN tags
 * from the frame (fwd/parse.c), so no port needs --parse-ptype.
 *
 * A port with addresses (--port-addr) has one more tx queue, the main
 * lcore's, for its ARP and ND answers and probes, echo replies, time
 * exceeded and the packets it held for a neighbour (l3/main_tx.c); that queue
 * sends mbufs of two pools (the workers' and the main lcore's own), so
 * such a port does without MBUF_FAST_FREE. A device that has no queue to
 * spare stops start-up with a message.
 *
 * --max-pkt-len LEN, as in l3fwd: the port's MTU is LEN less the device's
 * overhead (max_rx_pktlen - max_mtu, or 18 bytes when it does not say),
 * and the mbufs' data room holds LEN after the headroom, so a frame is
 * one segment.
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

#include "base/compat.h"
#include "base/config.h"
#include "boot/ports.h"
#include "fwd/forward.h"
#include "fwd/parse.h"
#include "fwd/slowpath.h"
#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "worker/handoff.h"
#include "worker/lcore.h"

#define MEMPOOL_CACHE_SIZE 256

uint16_t fx_ports_main_txq[RTE_MAX_ETHPORTS];
static struct rte_mempool *pktmbuf_pool[RTE_MAX_NUMA_NODES];
static uint8_t rss_key[FX_RSS_KEY_LEN_MAX];

/* What each port was asked for, for the check after start. */
static struct fx_port_rss prss[RTE_MAX_ETHPORTS];

const struct fx_port_rss *
fx_ports_rss(uint16_t port)
{
	return &prss[port];
}

uint16_t
fx_ports_rx_queues(uint16_t port)
{
	uint16_t i, n = 0;

	for (i = 0; i < fx_conf.nb_lcore_params; i++)
		if (fx_conf.lcore_params[i].port_id == port)
			n++;
	return n;
}

/* an mbuf's data room: the default, or --max-pkt-len after the headroom */
static uint16_t
data_room(void)
{
	uint32_t want = RTE_PKTMBUF_HEADROOM + fx_conf.max_pkt_len;

	return (uint16_t)RTE_MAX(want, (uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE);
}

/* whether port has the main lcore's tx queue (an address) */
static bool
main_queue(uint16_t port)
{
	return (fx_neigh_conf.ports >> port & 1) != 0;
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
			MEMPOOL_CACHE_SIZE, FX_MBUF_PRIV_SIZE, data_room(), socket);
	if (pktmbuf_pool[s] == NULL)
		rte_exit(EXIT_FAILURE, "cannot create mbuf pool on socket %u: %s\n",
			 s, rte_strerror(rte_errno));
	return pktmbuf_pool[s];
}

size_t
fx_ports_mbuf_bytes(void)
{
	struct rte_mempool_objsz sz;

	rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + FX_MBUF_PRIV_SIZE +
				  RTE_MBUF_DEFAULT_BUF_SIZE, 0, &sz);
	return sz.total_size;
}

/*
 * Mbufs the run can hold at once, as l3fwd counts them: every rx
 * descriptor of every queue of every port, every tx descriptor of every
 * worker's tx queue on every port plus its tx buffer, each worker's
 * mempool cache and its burst in hand, and under handoff every ring
 * between two workers full plus a burst each worker collects for them
 * (the rings into one worker hold FX_HANDOFF_OWNER_SLOTS in all up to 65
 * workers, worker/handoff.h: this grows with the workers, not with their
 * square). One pool per socket gets this many (l3fwd's simplification),
 * at least 8192.
 */
unsigned int
fx_ports_mbuf_count(void)
{
	unsigned int nb_ports = 0, nb_rxq = fx_conf.nb_lcore_params;
	unsigned int nw = fx_nb_workers, ho = 0, n, nb_l3 = 0, slow = 0;
	static unsigned int counted;
	uint16_t port;

	if (counted != 0)
		return counted;
	RTE_ETH_FOREACH_DEV(port)
		nb_ports += (fx_conf.portmask >> port) & 1;
	if (nw > 1 && fx_conf.expiry != FX_EXPIRY_NONE &&
	    fx_conf.affinity != FX_AFFINITY_RSS)
		ho = nw * (nw - 1) * fx_handoff_ring_size(nw) + nw * FX_HANDOFF_BURST;
	/* to the main lcore: the rings, what it holds, its tx queues */
	RTE_ETH_FOREACH_DEV(port)
		nb_l3 += (fx_conf.portmask >> port & 1) && main_queue(port);
	if (nb_l3 != 0)
		slow = nw * FX_SLOW_RING + FX_NEIGH_HOLD_TOTAL +
			nb_l3 * (fx_conf.nb_txd + MAX_PKT_BURST);
	n = nb_rxq * fx_conf.nb_rxd +
		nb_ports * nw * (fx_conf.nb_txd + MAX_PKT_BURST) +
		nw * (MEMPOOL_CACHE_SIZE + 2 * MAX_PKT_BURST) + ho + slow;
	n = RTE_MAX(n, 8192u);
	printf("mbufs per pool: %u (%u rx queues x %u + %u ports x %u workers x (%u + %u) + "
	       "%u workers x (%u + %u) + handoff %u + main lcore %u), %u bytes each\n", n, nb_rxq,
	       fx_conf.nb_rxd, nb_ports, nw, fx_conf.nb_txd, MAX_PKT_BURST, nw, MEMPOOL_CACHE_SIZE,
	       2 * MAX_PKT_BURST, ho, slow, data_room());
	counted = n;
	return n;
}

/* --max-pkt-len: the MTU, as l3fwd's eth_dev_get_overhead_len() */
static uint16_t
port_mtu(uint16_t port, const struct rte_eth_dev_info *info)
{
	uint32_t overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN, mtu;

	if (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu)
		overhead = info->max_rx_pktlen - info->max_mtu;
	if (fx_conf.max_pkt_len <= overhead)
		rte_exit(EXIT_FAILURE, "--max-pkt-len %u: port %u has %u bytes of overhead\n",
			 fx_conf.max_pkt_len, port, overhead);
	mtu = fx_conf.max_pkt_len - overhead;
	if (fx_conf.max_pkt_len > info->max_rx_pktlen || mtu > info->max_mtu ||
	    mtu < info->min_mtu)
		rte_exit(EXIT_FAILURE, "--max-pkt-len %u: port %u takes frames up to %u bytes "
			 "(MTU %u..%u)\n", fx_conf.max_pkt_len, port, info->max_rx_pktlen,
			 info->min_mtu, info->max_mtu);
	return (uint16_t)mtu;
}

static void
port_conf_build(uint16_t port, const struct rte_eth_dev_info *info,
		uint16_t nb_rxq, struct rte_eth_conf *conf)
{
	uint64_t want_rx = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	uint64_t want_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	struct fx_port_rss *pr = &prss[port];

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
	conf->rxmode.offloads = want_rx |
		(info->rx_offload_capa & (RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM));
	if ((info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE) && !main_queue(port))
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	if (fx_conf.max_pkt_len != 0)
		conf->rxmode.mtu = port_mtu(port, info);

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

/* the port's device info, its queue counts checked against it, the
 * configuration asked of it (port_conf_build()) applied */
static void
port_configure(uint16_t port, struct rte_eth_dev_info *info, struct rte_eth_conf *conf)
{
	uint16_t nb_rxq = fx_ports_rx_queues(port);
	uint16_t nb_txq = (uint16_t)(fx_nb_workers + main_queue(port));
	int rc;

	fx_ports_main_txq[port] = main_queue(port) ? (uint16_t)fx_nb_workers : UINT16_MAX;
	printf("initializing port %u: %u rx queue(s), %u tx queue(s)%s\n",
	       port, nb_rxq, nb_txq, main_queue(port) ? " (the last the main lcore's)" : "");
	rc = rte_eth_dev_info_get(port, info);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "port %u: dev info: %s\n", port, strerror(-rc));
	if (main_queue(port) && nb_txq > info->max_tx_queues)
		rte_exit(EXIT_FAILURE, "port %u has %u tx queues at most: %u for the workers "
			 "and one for the main lcore (ARP, ND, ICMP: --port-addr) wanted "
			 "(net_pcap: one tx_pcap per queue)\n", port, info->max_tx_queues,
			 fx_nb_workers);
	if (nb_rxq > info->max_rx_queues || nb_txq > info->max_tx_queues)
		rte_exit(EXIT_FAILURE, "port %u has %u rx / %u tx queues at most, %u / %u wanted\n",
			 port, info->max_rx_queues, info->max_tx_queues, nb_rxq, nb_txq);
	port_conf_build(port, info, nb_rxq, conf);
	rc = rte_eth_dev_configure(port, nb_rxq, nb_txq, conf);
	if (rc < 0)
		rte_exit(EXIT_FAILURE, "port %u: configure: %s\n", port, strerror(-rc));
	if (prss[port].on) {
		/* some devices take the hash only this way (net_null) */
		rc = rte_eth_dev_rss_hash_update(port, &prss[port].want);
		if (rc != 0 && rc != -ENOTSUP)
			printf("port %u: RSS hash update: %s\n", port, strerror(-rc));
	}
}

/* one tx queue per worker, on its socket, and the main lcore's where the
 * port has an address */
static void
port_tx_queues(uint16_t port, const struct rte_eth_dev_info *info,
	       const struct rte_eth_conf *conf, uint16_t nb_txd)
{
	struct rte_eth_txconf txconf = info->default_txconf;
	struct fx_lcore *lc;
	unsigned int w;
	int rc;

	txconf.offloads = conf->txmode.offloads;
	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		lc->fwd.tx_queue[port] = (uint16_t)w;
		rc = rte_eth_tx_queue_setup(port, (uint16_t)w, nb_txd,
				(unsigned int)rte_lcore_to_socket_id(lc->lcore_id), &txconf);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: tx queue %u: %s\n", port, w,
				 strerror(-rc));
	}
	if (main_queue(port)) {
		rc = rte_eth_tx_queue_setup(port, fx_ports_main_txq[port], nb_txd,
				rte_socket_id(), &txconf);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: the main lcore's tx queue %u: %s\n",
				 port, fx_ports_main_txq[port], strerror(-rc));
	}
}

/* each rx queue of the port that --config names, on the socket of the
 * lcore that polls it, with that socket's mbuf pool */
static void
port_rx_queues(uint16_t port, const struct rte_eth_dev_info *info,
	       const struct rte_eth_conf *conf, uint16_t nb_rxd, unsigned int nb_mbuf)
{
	struct rte_eth_rxconf rxconf = info->default_rxconf;
	struct fx_lcore *lc;
	unsigned int w, q;
	int socket, rc;

	rxconf.offloads = conf->rxmode.offloads;
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
}

/* start, promiscuous mode (-P), and where the port's packets go */
static void
port_start(uint16_t port)
{
	int rc;

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
	if (main_queue(port) && !(fx_conf.eth_dest_given >> port & 1))
		printf("port %u: MAC " RTE_ETHER_ADDR_PRT_FMT ", next hops resolved by "
		       "ARP / ND\n", port, RTE_ETHER_ADDR_BYTES(&fx_port_mac[port]));
	else
		printf("port %u: MAC " RTE_ETHER_ADDR_PRT_FMT ", next hop MAC "
		       RTE_ETHER_ADDR_PRT_FMT "\n", port,
		       RTE_ETHER_ADDR_BYTES(&fx_port_mac[port]),
		       RTE_ETHER_ADDR_BYTES(&fx_conf.eth_dest[port]));
}

void
fx_ports_init(void)
{
	unsigned int nb_mbuf = fx_ports_mbuf_count();
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t port, nb_rxd, nb_txd;
	int rc;

	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port))) {
			printf("skipping disabled port %u\n", port);
			continue;
		}
		port_configure(port, &info, &conf);
		nb_rxd = fx_conf.nb_rxd;
		nb_txd = fx_conf.nb_txd;
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: descriptors: %s\n", port, strerror(-rc));
		rc = rte_eth_macaddr_get(port, &fx_port_mac[port]);
		if (rc < 0)
			rte_exit(EXIT_FAILURE, "port %u: MAC address: %s\n", port, strerror(-rc));
		port_tx_queues(port, &info, &conf, nb_txd);
		port_rx_queues(port, &info, &conf, nb_rxd, nb_mbuf);
		port_start(port);
	}
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
