/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * l3fwd-flowexp: the definitions every part shares.
 *
 * The application is l3fwd with a flow table on every worker lcore. The
 * main lcore does not forward: it prints statistics, runs the control path
 * (flush by prefix, route changes) and decides when to stop. Each worker
 * owns its rx queues, one tx queue per port, its flow table and its expiry
 * state; nothing a worker writes is written by another thread, except the
 * rings that carry requests and handed-off packets to it.
 *
 * Files: args.c (command line), ports.c (ports, queues, RSS and its
 * verification), handoff.c (flow affinity: the owner of a flow, the rings
 * between workers), parse.c (header and VLAN validation, keys), route.c
 * (route tables and their lock-free replacement), flow_table.c (hash +
 * slab), flow_state.h (timeout classes, TCP states), evict.c (--table-full
 * evict), expiry_*.c (twheel, rte_timer and scan back-ends), worker.c (the
 * loop), stats.c and telemetry.c (counters, table, /l3fwd_flowexp/...),
 * control.c (the main lcore's control path), main.c (start-up and
 * shutdown), clock.c (--clock), and masquerade: nat.c (the worker's NAT
 * step and mapping reaper), nat_conf.c (--nat-* options), nat_table.c
 * (mappings), nat_ports.c (port shares), nat_translate.h (rewriting).
 */

#ifndef _FLOWEXP_H_
#define _FLOWEXP_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "evict.h"
#include "flow_table.h"
#include "clock.h"
#include "handoff.h"
#include "nat.h"
#include "stats.h"

struct twheel;
struct rte_timer;
struct fx_expiry_ops;

extern int fx_logtype;
#define FX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, fx_logtype, "L3FWD_FLOWEXP: " fmt "\n", ## __VA_ARGS__)

#define MAX_PKT_BURST 32
#define MAX_RX_QUEUE_PER_LCORE 16
#define MAX_LCORE_PARAMS 1024
#define FX_MAX_ROUTES 1024

#define FX_MAX_FLOWS_DEFAULT (1u << 20)
#define FX_MAX_FLOWS_MIN 64u
#define FX_MAX_FLOWS_MAX (1u << 24)
#define FX_EXPIRE_BUDGET_DEFAULT 256u
#define FX_EXPIRE_BUDGET_MAX 65536u
#define FX_TICK_US_DEFAULT 10000u
#define FX_GONE_BATCH 64u           /* flows removed from the index together */

/** How flows expire (--expiry). */
enum fx_expiry {
	FX_EXPIRY_TWHEEL,   /**< one twheel per lcore, lazy deadlines */
	FX_EXPIRY_TIMER,    /**< one rte_timer per flow */
	FX_EXPIRY_SCAN,     /**< budgeted scan of the slab */
	FX_EXPIRY_NONE,     /**< no flow tracking: plain l3fwd */
};

enum fx_lookup { FX_LOOKUP_LPM, FX_LOOKUP_EM };
enum fx_full_policy { FX_FULL_DROP, FX_FULL_FORWARD, FX_FULL_EVICT };

/** A route: prefix and output port. */
struct fx_route_rule {
	uint8_t addr[16];   /**< Network order; IPv4 in the first 4 bytes. */
	uint8_t family;     /**< FX_FAMILY_V4 or FX_FAMILY_V6. */
	uint8_t depth;      /**< Prefix length. */
	uint16_t port;
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
	struct fx_lcore_params lcore_params[MAX_LCORE_PARAMS];
	uint16_t nb_lcore_params;
	unsigned int stats_period;          /**< -T seconds; 0: no table */
	enum fx_expiry expiry;
	uint32_t max_flows;                 /**< per lcore */
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
	enum fx_clock_src clock;            /**< --clock */
};

extern struct fx_config fx_conf;

struct fx_rxq {
	uint16_t port_id;
	uint16_t queue_id;
};

/** Packets waiting to go out on one port. */
struct fx_txbuf {
	uint16_t n;
	struct rte_mbuf *m[MAX_PKT_BURST];
};

/** One worker lcore: everything it owns. */
struct fx_lcore {
	/* set up by the main lcore before launch, then read-only */
	uint32_t lcore_id;
	uint16_t worker_idx;            /**< 0..nb_workers-1 (RCU thread id) */
	uint16_t n_rxq;
	struct fx_rxq rxq[MAX_RX_QUEUE_PER_LCORE];
	uint16_t tx_queue[RTE_MAX_ETHPORTS];
	const struct fx_expiry_ops *ops;   /**< NULL with --expiry none */
	uint64_t tmo_cycles[FX_TMO_MAX];
	uint64_t stall_cycles;          /**< a loop longer than this is a stall */

	/* owner-only state */
	struct fx_flow_table ft;
	struct twheel *wheel;           /**< twheel back-end */
	struct rte_timer *timers;       /**< rte_timer back-end, by slot */
	uint32_t scan_cursor;           /**< scan back-end */
	uint64_t scan_slot_fp;          /**< scan: TSC cycles per slot, 16.16 fixed point */
	uint64_t scan_last;             /**< scan: TSC time the cursor is due at */
	uint32_t drain_cursor;          /**< shutdown walk of the slab */
	uint64_t next_fid;              /**< fids for rte_timer and scan */
	void *scratch;                  /**< back-end work area (twheel: records) */
	uint64_t now;                   /**< time of the current burst */
	uint32_t n_gone;                /**< flows unpublished, to delete (gone[]) */
	struct fx_flow *gone[FX_GONE_BATCH];
	uint32_t reset_seen;
	struct fx_txbuf tx[RTE_MAX_ETHPORTS];
	struct fx_handoff ho;           /**< rings to and from the other workers */
	struct fx_evict ev;             /**< --table-full evict: flows by age */
	struct fx_nat nat;              /**< masquerade (--nat-pool) */
	uint64_t vnow;                  /**< --clock pcap: the latest packet time */
	uint64_t jumped_rx;             /**< --clock pcap: last_rx when time last jumped */

	uint32_t poll_removed;          /**< flows removed by the current poll */

	/* written by the main lcore / telemetry thread, read by the owner */
	uint32_t reset_req __rte_cache_aligned;   /**< reset maxima when != reset_seen */
	uint64_t hold_until;            /**< TSC: no expiry poll before (--bench only) */

	/* written by the owner only, read by the other workers */
	uint64_t idle_since __rte_cache_aligned;  /**< --clock pcap: TSC since its polls found nothing (0: busy) */

	/* written by the owner only, read by anyone */
	struct fx_lcore_stats st __rte_cache_aligned;
};

extern struct fx_lcore *fx_lcores[RTE_MAX_LCORE];   /**< by lcore id; NULL if not a worker */
extern struct fx_lcore *fx_workers[RTE_MAX_LCORE];  /**< by worker index */
extern unsigned int fx_nb_workers;
extern volatile bool fx_force_quit;

/** Name of an expiry mode, for tables and telemetry. */
const char *fx_expiry_name(enum fx_expiry e);

#endif /* _FLOWEXP_H_ */
