/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * l3fwd-flowexp: the configuration every part reads, and its limits.
 *
 * The application is l3fwd with a flow table on every worker lcore. The
 * main lcore does not forward: it prints statistics, runs the control path
 * (flush by prefix, route changes), answers ARP, ND and ICMP and resolves
 * neighbours for the ports with addresses, and decides when to stop. Each worker
 * owns its rx queues, one tx queue per port, its flow table and its expiry
 * state (worker/lcore.h); nothing a worker writes is written by another thread,
 * except the rings that carry requests and handed-off packets to it.
 *
 * Where each concern lives: one folder a subsystem, each on a floor above
 * the ones it uses, nothing calling up (meson.build lists them; the
 * example's README.md, "Where the code is", and doc/example.md, "The
 * folder map", say what each holds). This file is on the ground floor:
 * read by every part, written by boot/ before the workers start.
 */

#ifndef _FX_CONFIG_H_
#define _FX_CONFIG_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>

#include "base/timeouts.h"

/** Every message of the example's own to stderr starts with this. */
#define FX_MSG_PREFIX "l3fwd-flowexp: "

extern int fx_logtype;
#define FX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, fx_logtype, "L3FWD_FLOWEXP: " fmt "\n", ## __VA_ARGS__)

#define MAX_PKT_BURST 32

/*
 * The ports the example can use: those of the portmask (-p), a 32-bit
 * mask, so port ids 0..FX_MAX_PORTS-1. Arrays of what a port has (its
 * addresses, its neighbour index, its main lcore counters) have this
 * many entries; arrays indexed by any DPDK port id keep
 * RTE_MAX_ETHPORTS. Next-hop numbers start after the ports
 * (fwd/neigh.h).
 */
#define FX_MAX_PORTS 32u
_Static_assert(FX_MAX_PORTS <= 32, "the portmask and the port masks are 32 bits");
_Static_assert(FX_MAX_PORTS <= RTE_MAX_ETHPORTS,
	       "a port of the portmask must be a DPDK port id (arrays of RTE_MAX_ETHPORTS)");

#define MAX_RX_QUEUE_PER_LCORE 16
#define MAX_LCORE_PARAMS 1024
#define FX_MAX_ROUTES 1024

#define FX_MAX_FLOWS_DEFAULT (1u << 20)
#define FX_MAX_FLOWS_MIN 64u
#define FX_MAX_FLOWS_MAX (1u << 24)
#define FX_EXPIRE_BUDGET_DEFAULT 256u
#define FX_EXPIRE_BUDGET_MAX 65536u
#define FX_TICK_US_DEFAULT 10000u

/** How flows expire (--expiry). */
enum fx_expiry {
	FX_EXPIRY_TWHEEL,   /**< one twheel per lcore, lazy deadlines */
	FX_EXPIRY_TIMER,    /**< one rte_timer per flow */
	FX_EXPIRY_SCAN,     /**< budgeted scan of the slab */
	FX_EXPIRY_NONE,     /**< no flow tracking: plain l3fwd */
};

enum fx_lookup { FX_LOOKUP_LPM, FX_LOOKUP_EM };
enum fx_full_policy { FX_FULL_DROP, FX_FULL_FORWARD, FX_FULL_EVICT };

/** --affinity (boot/affinity.h) */
enum fx_affinity {
	FX_AFFINITY_AUTO,     /**< rss where verified, else handoff */
	FX_AFFINITY_RSS,      /**< the NIC; start-up fails if it cannot be verified */
	FX_AFFINITY_HANDOFF,  /**< software handoff between workers */
};

/** --clock (worker/clock.h) */
enum fx_clock_src {
	FX_CLOCK_TSC,
	FX_CLOCK_PCAP,
};

/** A route: prefix, output port and, if has_gw, its next hop. */
struct fx_route_rule {
	uint8_t addr[16];   /**< Network order; IPv4 in the first 4 bytes. */
	uint8_t family;     /**< FX_FAMILY_V4 or FX_FAMILY_V6. */
	uint8_t depth;      /**< Prefix length. */
	uint16_t port;
	uint8_t gw[16];     /**< Next hop, as addr; without one the prefix is on-link. */
	bool has_gw;
};

struct fx_lcore_params {
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t lcore_id;
};

/** The configuration, from the command line; read-only once workers run. */
struct fx_config {
	uint32_t portmask;
	bool promiscuous;
	enum fx_lookup lookup;
	bool relax_rx_offload;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	struct rte_ether_addr eth_dest[RTE_MAX_ETHPORTS];
	uint32_t eth_dest_given;            /**< ports named by --eth-dest (a mask) */
	uint32_t max_pkt_len;               /**< --max-pkt-len; 0: the ports' default */
	struct fx_lcore_params lcore_params[MAX_LCORE_PARAMS];
	uint16_t nb_lcore_params;
	unsigned int stats_period;          /**< -T seconds; 0: no table */
	enum fx_expiry expiry;
	uint32_t max_flows;                 /**< per lcore */
	uint32_t max_flows_per_host;        /**< per lcore and host (base/quota.h); 0: off */
	uint32_t expire_budget;             /**< work per loop iteration */
	uint32_t tick_us;                   /**< wheel tick */
	double scan_interval_s;             /**< scan: a full pass per this; 0: unpaced */
	double timeout_s[FX_TMO_MAX];
	enum fx_full_policy full_policy;
	enum fx_affinity affinity;          /**< --affinity */
	struct fx_route_rule routes[FX_MAX_ROUTES];
	uint32_t nb_routes;
	const char *stats_file;
	bool exit_when_drained;
	double duration_s;                  /**< 0: run until a signal */
	bool bench;                         /**< --bench: benchmark-only controls */
	bool rss_model;                     /**< --rss-model: tests and benchmarks */
	bool hash_secret_given;             /**< --hash-secret: tests and benchmarks */
	uint64_t hash_secret[2];
	enum fx_clock_src clock;            /**< --clock */
};

extern struct fx_config fx_conf;

/** Set by a signal or the main loop: the workers leave their loops. */
extern volatile bool fx_force_quit;

#endif /* _FX_CONFIG_H_ */
