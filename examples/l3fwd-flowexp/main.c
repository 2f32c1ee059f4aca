/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * dpdk-l3fwd-flowexp: start-up, the main lcore's loop, and shutdown.
 *
 * Start-up, in order: EAL; the command line (args.c); the hash tables'
 * secret (fxhash.c); one context per
 * worker lcore with its rx queues; per worker the flow table (flow_table.c)
 * and the expiry back-end (expiry_*.c) - all memory the workers will use;
 * the neighbour tables and the rings to the main lcore (neigh.c,
 * slowpath.c); the route table and its RCU variable (route.c); the
 * control ring and the telemetry commands; the ports (ports.c) and, once
 * they have started, the flow affinity (affinity.c), the link-local
 * addresses and the announcements of the ports' addresses. Then the
 * workers are launched (worker.c) and the main lcore loops: it carries
 * out control requests (control.c), answers ARP, ND and ICMP and resolves
 * neighbours (neigh.c, every millisecond when a port has addresses),
 * prints the statistics table every -T seconds, and stops the run on
 * SIGINT/SIGTERM, after --duration, or with --exit-when-drained once
 * traffic has come and gone and every flow has expired.
 *
 * Shutdown: the workers leave their loops and hand back every flow still
 * tracked (counted as "removed at exit"), the final table and the summary
 * are printed, --stats-file is written, and everything is freed.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include "affinity.h"
#include "args.h"
#include "clock.h"
#include "control.h"
#include "evict.h"
#include "expiry.h"
#include "flow.h"
#include "flow_table.h"
#include "flowexp.h"
#include "fxhash.h"
#include "handoff.h"
#include "lcore.h"
#include "nat.h"
#include "nat_conf.h"
#include "neigh.h"
#include "neigh_conf.h"
#include "quota.h"
#include "ports.h"
#include "route.h"
#include "stats.h"
#include "telemetry.h"
#include "timeouts.h"
#include "worker.h"

RTE_LOG_REGISTER(fx_logtype, app.l3fwd_flowexp, INFO);

struct fx_config fx_conf;
struct fx_lcore *fx_lcores[RTE_MAX_LCORE];
struct fx_lcore *fx_workers[RTE_MAX_LCORE];
unsigned int fx_nb_workers;
volatile bool fx_force_quit;

#define STALL_US 100
#define IDLE_MS 100

static void
signal_handler(int signum)
{
	if (signum == SIGINT || signum == SIGTERM) {
		printf("\n\nSignal %d received, preparing to exit...\n", signum);
		fx_force_quit = true;
	}
}

static void
setup_lcores(void)
{
	const struct fx_lcore_params *lp;
	uint64_t hz = rte_get_tsc_hz();
	struct fx_lcore *lc;
	unsigned int i, t;

	for (i = 0; i < fx_conf.nb_lcore_params; i++) {
		lp = &fx_conf.lcore_params[i];
		lc = fx_lcores[lp->lcore_id];
		if (lc == NULL) {
			lc = rte_zmalloc_socket("fx_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
					(int)rte_lcore_to_socket_id(lp->lcore_id));
			if (lc == NULL)
				rte_exit(EXIT_FAILURE, "no memory for lcore %u\n", lp->lcore_id);
			lc->lcore_id = lp->lcore_id;
			lc->worker_idx = (uint16_t)fx_nb_workers;
			lc->ops = fx_expiry_ops_get(fx_conf.expiry);
			for (t = 0; t < FX_TMO_MAX; t++)
				lc->tmo_cycles[t] = (uint64_t)(fx_conf.timeout_s[t] * (double)hz);
			lc->loop.stall_cycles = hz / 1000000 * STALL_US;
			lc->ho.self = lc->worker_idx;
			fx_lcores[lp->lcore_id] = lc;
			fx_workers[fx_nb_workers++] = lc;
		}
		lc->rxq[lc->n_rxq].port_id = lp->port_id;
		lc->rxq[lc->n_rxq].queue_id = lp->queue_id;
		lc->n_rxq++;
	}
}

static void
setup_flow_state(void)
{
	struct fx_lcore *lc;
	char name[32];
	unsigned int w;
	int rc;

	if (fx_conf.expiry == FX_EXPIRY_NONE)
		return;
	if (fx_conf.expiry == FX_EXPIRY_TIMER && rte_timer_subsystem_init() != 0)
		rte_exit(EXIT_FAILURE, "rte_timer_subsystem_init failed\n");
	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		snprintf(name, sizeof(name), "fx%u", lc->lcore_id);
		rc = ft_create(&lc->ft, name, fx_conf.max_flows,
			       (int)rte_lcore_to_socket_id(lc->lcore_id),
			       fx_conf.expiry != FX_EXPIRY_TWHEEL);
		if (rc != 0)
			rte_exit(EXIT_FAILURE,
				 "lcore %u: flow table of %u flows: %s (more memory: -m / --socket-mem)\n",
				 lc->lcore_id, fx_conf.max_flows, rte_strerror(-rc));
		snprintf(name, sizeof(name), "fxq%u", lc->lcore_id);
		if (fx_conf.max_flows_per_host != 0 &&
		    fx_quota_init(&lc->host_quota, name, fx_conf.max_flows,
				  (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: per-host flow counts: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		if (fx_flow_init(lc, (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: TCP connections: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		if (fx_conf.full_policy == FX_FULL_EVICT &&
		    fx_evict_init(&lc->ev, fx_conf.max_flows,
				  (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: eviction list: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		rc = lc->ops->init(lc);
		if (rc != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: %s back-end: %s\n", lc->lcore_id,
				 lc->ops->name, rte_strerror(-rc));
		if (!fx_nat_enabled())
			continue;
		rc = fx_nat_init(&lc->nat, lc->lcore_id, w, fx_nb_workers,
				 fx_conf.max_flows, fx_conf.expire_budget, lc->tmo_cycles,
				 (uint64_t)((double)rte_get_tsc_hz() * fx_conf.tick_us / 1e6),
				 (int)rte_lcore_to_socket_id(lc->lcore_id));
		if (rc != 0)
			rte_exit(EXIT_FAILURE,
				 "lcore %u: NAT table of %u mappings: %s (more memory: -m / --socket-mem)\n",
				 lc->lcore_id, fx_conf.max_flows, rte_strerror(-rc));
	}
}

/* NAT's start-up checks that need the worker count; --clock. */
static void
setup_nat_and_clock(void)
{
	char err[160];
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		fx_workers[w]->ho.nb_workers = (uint16_t)fx_nb_workers;
	if (nat_conf_check(&fx_nat_conf, fx_nb_workers, err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);
	if (fx_nat_enabled() && fx_nat_setup(fx_nb_workers) != 0)
		rte_exit(EXIT_FAILURE, "--nat-ports: cannot share %u-%u among %u workers\n",
			 fx_nat_conf.port_lo, fx_nat_conf.port_hi, fx_nb_workers);
	if (fx_clock_init(fx_conf.clock) != 0)
		rte_exit(EXIT_FAILURE, "--clock pcap: no rx timestamp field: %s\n",
			 rte_strerror(rte_errno));
}

/* Rings between the workers, for --affinity handoff or auto. */
static void
setup_handoff(void)
{
	struct fx_handoff *h[RTE_MAX_LCORE];
	int socket[RTE_MAX_LCORE];
	unsigned int w;
	int rc;

	/* NAT hands inbound packets to their public port's owner in any mode */
	if (fx_nb_workers < 2 || fx_conf.expiry == FX_EXPIRY_NONE ||
	    (fx_conf.affinity == FX_AFFINITY_RSS && !fx_nat_enabled()))
		return;
	for (w = 0; w < fx_nb_workers; w++) {
		h[w] = &fx_workers[w]->ho;
		socket[w] = (int)rte_lcore_to_socket_id(fx_workers[w]->lcore_id);
	}
	rc = fx_handoff_init(h, socket, fx_nb_workers);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "handoff rings: %s (more memory: -m / --socket-mem)\n",
			 rte_strerror(-rc));
}

static void
free_handoff(void)
{
	struct fx_handoff *h[RTE_MAX_LCORE];
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		h[w] = &fx_workers[w]->ho;
	fx_handoff_fini(h, fx_nb_workers);
}

static void
free_flow_state(void)
{
	struct fx_lcore *lc;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		if (lc->ops != NULL)
			lc->ops->fini(lc);
		if (fx_nat_enabled())
			fx_nat_fini(&lc->nat);
		fx_evict_fini(&lc->ev);
		fx_quota_fini(&lc->host_quota);
		fx_flow_fini(lc);
		ft_free(&lc->ft);
	}
	if (fx_conf.expiry == FX_EXPIRY_TIMER)
		rte_timer_subsystem_finalize();
}

static void
print_config(void)
{
	unsigned int w, q, t;
	struct fx_lcore *lc;

	printf("expiry %s, affinity %s, lookup %s, %u flows per lcore, budget %u, tick %u us, table full: %s\n",
	       fx_expiry_name(fx_conf.expiry), fx_affinity_name(fx_affinity_mode),
	       fx_conf.lookup == FX_LOOKUP_LPM ? "lpm" : "em", fx_conf.max_flows,
	       fx_conf.expire_budget, fx_conf.tick_us,
	       fx_conf.full_policy == FX_FULL_DROP ? "drop" :
	       fx_conf.full_policy == FX_FULL_FORWARD ? "forward" : "evict");
	if (fx_nat_enabled())
		printf("masquerade: %u public addresses, ports %u-%u shared by %u workers, hold-down %g s\n",
		       fx_nat_conf.nb_pool, fx_nat_conf.port_lo, fx_nat_conf.port_hi,
		       fx_nb_workers, fx_nat_conf.holddown_s);
	if (fx_nat_enabled()) {
		printf("masquerade: outside ports");
		for (t = 0; t < 32; t++)
			if (nat_is_outside_port(&fx_nat_conf, (uint16_t)t))
				printf(" %u", t);
		printf("%s; per inside host and worker at most %u mappings (0: no limit), "
		       "%u towards one remote endpoint\n",
		       nat_roles(&fx_nat_conf) ? "" : " none (one port: address rules)",
		       fx_workers[0]->nat.max_per_host, fx_workers[0]->nat.max_per_dest);
	}
	if (fx_conf.clock == FX_CLOCK_PCAP)
		printf("clock: packet capture times (--clock pcap)\n");
	if (fx_neigh_enabled())
		printf("neighbours: reachable %u ms (x0.5..1.5), retrans %u ms, delay %u ms, "
		       "stale %u ms, %u probes; at most %u entries, %u packets held per entry; "
		       "ICMP %u/s in bursts of %u\n",
		       fx_neigh_conf.reachable_ms, fx_neigh_conf.retrans_ms, fx_neigh_conf.delay_ms,
		       fx_neigh_conf.stale_ms, fx_neigh_conf.probes, FX_NEIGH_SLOTS - 1,
		       FX_NEIGH_HOLD, fx_neigh_conf.icmp_rate, fx_neigh_conf.icmp_burst);
	if (fx_conf.max_pkt_len != 0)
		printf("--max-pkt-len %u: longer frames are dropped (oversized)\n",
		       fx_conf.max_pkt_len);
	printf("timeouts (s):");
	for (t = 0; t < FX_TMO_MAX; t++)
		printf(" %s %g", fx_tmo_names[t], fx_conf.timeout_s[t]);
	printf("\n");
	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		printf("lcore %u:", lc->lcore_id);
		for (q = 0; q < lc->n_rxq; q++)
			printf(" rx (port %u, queue %u)", lc->rxq[q].port_id,
			       lc->rxq[q].queue_id);
		printf("\n");
	}
	fflush(stdout);
}

/* Traffic came and went, and no flow is left. */
static bool
drained(uint64_t now, uint64_t idle)
{
	uint64_t last = fx_stats_last_rx();

	return !fx_control_busy() && fx_stats_total_rx() > 0 &&
		last < now && now - last > idle && fx_stats_total_active() == 0 &&
		(!fx_nat_enabled() || fx_nat_total_active() == 0);
}

static void
main_loop(void)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), now;
	uint64_t period = (uint64_t)fx_conf.stats_period * hz;
	uint64_t next_stats = start + period;
	uint64_t idle = hz / 1000 * IDLE_MS;
	bool more;

	while (!fx_force_quit) {
		fx_control_poll();
		more = fx_neigh_poll();
		now = rte_rdtsc();
		if (period != 0 && now >= next_stats) {
			fx_stats_print(stdout);
			next_stats += period;
			if (next_stats <= now)
				next_stats = now + period;
		}
		if (fx_conf.duration_s > 0 &&
		    (double)(now - start) >= fx_conf.duration_s * (double)hz) {
			printf("\n--duration %g s reached\n", fx_conf.duration_s);
			break;
		}
		if (fx_conf.exit_when_drained && drained(now, idle)) {
			printf("\ntraffic stopped and every flow expired\n");
			break;
		}
		if (!more)
			rte_delay_us_sleep(fx_control_busy() || fx_neigh_enabled() ? 1000 : 10000);
	}
}

int
main(int argc, char **argv)
{
	unsigned int w;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "Invalid EAL parameters\n");
	argc -= ret;
	argv += ret;

	fx_force_quit = false;
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);

	ret = fx_parse_args(argc, argv);
	if (ret == 1) {
		rte_eal_cleanup();
		return 0;
	}
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "Invalid L3FWD-FLOWEXP parameters\n");

	/* the tables' secret, before any table exists */
	if (fx_conf.hash_secret_given) {
		fx_hash_set_secret(fx_conf.hash_secret[0], fx_conf.hash_secret[1]);
		FX_LOG(WARNING, "--hash-secret: the tables' hash secret is known; "
		       "whoever knows it can flood them");
	} else {
		ret = fx_hash_init();
		if (ret != 0)
			rte_exit(EXIT_FAILURE, "getrandom: no secret for the hash tables: %s\n",
				 strerror(-ret));
	}
	setup_lcores();
	setup_nat_and_clock();
	setup_flow_state();
	setup_handoff();
	ret = fx_neigh_init();
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "neighbour tables: %s (more memory: -m / --socket-mem)\n",
			 rte_strerror(-ret));
	ret = fx_route_init(fx_nb_workers);
	if (ret == -ENOSPC)
		rte_exit(EXIT_FAILURE, "cannot build the route table: more than %u next hops or "
			 "%u neighbours\n", FX_NH_MAX, FX_NEIGH_SLOTS - 1);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "cannot build the route table (more memory: -m / --socket-mem)\n");
	for (w = 0; w < fx_nb_workers; w++)
		rte_rcu_qsbr_thread_register(fx_route_rcu, w);
	if (fx_control_init() != 0)
		rte_exit(EXIT_FAILURE, "cannot create the control ring\n");
	fx_telemetry_register();
	fx_ports_init();
	fx_neigh_start();
	fx_affinity_decide();
	fx_ports_check_link();
	fx_neigh_announce();
	print_config();

	fx_stats_start();
	rte_eal_mp_remote_launch(fx_worker_main, NULL, SKIP_MAIN);
	main_loop();

	fx_force_quit = true;
	ret = 0;
	RTE_LCORE_FOREACH_WORKER(w) {
		if (rte_eal_wait_lcore(w) < 0)
			ret = -1;
	}
	free_handoff();   /* packets left in the rings count as dropped */
	fx_telemetry_stop();
	fx_control_fini();
	if (fx_conf.stats_period != 0)
		fx_stats_print(stdout);
	fx_stats_summary(stdout);
	if (fx_conf.stats_file != NULL) {
		int rc = fx_stats_write_json(fx_conf.stats_file);

		if (rc != 0) {
			fprintf(stderr, "cannot write %s: %s\n", fx_conf.stats_file,
				strerror(-rc));
			ret = -1;
		}
	}

	fx_neigh_fini();   /* what it holds, what the rings hold */
	printf("closing ports...\n");
	fx_ports_fini();
	free_flow_state();
	fx_route_fini();
	rte_eal_cleanup();
	printf("Bye...\n");
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
