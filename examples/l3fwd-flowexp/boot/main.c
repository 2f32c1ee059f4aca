/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * dpdk-l3fwd-flowexp: start-up, the main lcore's loop, and shutdown.
 *
 * Start-up, in order: the application's command line (boot/args.c), before
 * EAL so that --help and its errors need no hugepages; EAL; the
 * checks against EAL's lcores and ports (boot/args_check.c); the workers' state
 * (boot/setup.c: the hash tables' secret, one context per worker lcore with its
 * rx queues; then, once the start-up checks (boot/preflight.c) found that it
 * fits, per worker the flow table and the expiry back-end - all memory the
 * workers will use); with --nat-log the workers' event rings and the
 * exporter's socket (nat/log/export.h); the neighbour tables and the rings
 * to the main lcore (l3/neigh.c, boot/setup.c); the route table and its RCU
 * variable (l3/route.c); the control ring and the telemetry commands; the
 * ports (boot/ports.c) and, once they have started, the flow affinity
 * (boot/affinity.c), the link-local addresses and the announcements of the
 * ports' addresses. Then the workers are launched (worker/worker.c) and the main
 * lcore loops: it carries out control requests (ctl/control.c), answers ARP,
 * ND and ICMP and resolves neighbours (l3/slow_dispatch.c, every
 * millisecond when a port has addresses), exports the workers' NAT events
 * (every millisecond with --nat-log), prints the statistics table every
 * -T seconds, and stops the run on SIGINT/SIGTERM, after --duration, or with
 * --exit-when-drained once traffic has come and gone and every flow has
 * expired.
 *
 * Shutdown: the workers leave their loops and hand back every flow still
 * tracked (counted as "removed at exit"; with --nat-log the main lcore
 * exports the events of the mappings ended meanwhile, until every worker
 * has returned), the final table and the summary are printed,
 * --stats-file is written, and everything is freed. SIGINT and SIGTERM
 * take this way too.
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

#include "base/config.h"
#include "base/timeouts.h"
#include "boot/affinity.h"
#include "boot/args.h"
#include "boot/ports.h"
#include "boot/preflight.h"
#include "boot/setup.h"
#include "boot/steer.h"
#include "ctl/control.h"
#include "ctl/stats.h"
#include "ctl/telemetry.h"
#include "expiry/expiry.h"
#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "l3/route.h"
#include "nat/conf.h"
#include "nat/log/export.h"
#include "nat/nat.h"
#include "worker/clock.h"
#include "worker/lcore.h"
#include "worker/worker.h"

RTE_LOG_REGISTER(fx_logtype, app.l3fwd_flowexp, INFO);

struct fx_config fx_conf;
struct fx_lcore *fx_lcores[RTE_MAX_LCORE];
struct fx_lcore *fx_workers[RTE_MAX_LCORE];
unsigned int fx_nb_workers;
volatile bool fx_force_quit;

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
		if (fx_nat_log_enabled())
			printf("masquerade: events logged as IPFIX to %s, domain %u, %u per worker ring\n",
			       fx_nat_log_conf.text, fx_nat_log_conf.domain, fx_nat_log_conf.ring);
		printf("masquerade: outside ports");
		for (t = 0; t < FX_MAX_PORTS; t++)
			if (nat_is_outside_port(&fx_nat_conf, (uint16_t)t))
				printf(" %u", t);
		printf("%s; per inside host and worker at most %u mappings (0: no limit), "
		       "%u towards one remote endpoint\n",
		       nat_roles(&fx_nat_conf) ? "" : " none (one port: address rules)",
		       fx_workers[0]->nat.max_per_host, fx_workers[0]->nat.max_per_dest);
		if (fx_nat_conf.port_block != 0)
			printf("masquerade: port blocks of %u ports, %u per address on each "
			       "worker, at most %u per inside host and worker (0: no limit)\n",
			       fx_nat_conf.port_block, fx_workers[0]->nat.blocks.per_addr,
			       fx_nat_conf.max_blocks_per_host);
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

/* Traffic came and went, and no flow is left: the counts read first,
 * then whether every worker was idle throughout, its last burst handled
 * whole (a worker kept off the CPU in the middle of a burst has not
 * counted its flows yet) */
static bool
drained(uint64_t now, uint64_t idle)
{
	uint64_t last = fx_workers_last_rx();

	return !fx_control_busy() && fx_stats_total_rx() > 0 &&
		last < now && now - last > idle && fx_stats_total_active() == 0 &&
		(!fx_nat_enabled() || fx_nat_total_active() == 0) &&
		fx_clocks_idle(now, idle);
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
		fx_nat_log_poll();
		if (!more)
			rte_delay_us_sleep(fx_control_busy() || fx_neigh_enabled() ||
					   fx_nat_log_enabled() ? 1000 : 10000);
	}
}

/*
 * The command line and EAL: --help, the options before EAL, EAL, the
 * checks after it. Returns -1 to go on, else main()'s exit status.
 */
static int
start_eal(int argc, char **argv)
{
	int help, ret;

	/* the application's options before EAL: --help and their errors
	 * need no hugepages */
	help = fx_parse_args(argc, argv);
	if (help == 1)
		return EXIT_SUCCESS;
	if (help < 0)
		return EXIT_FAILURE;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, FX_MSG_PREFIX "EAL did not start: %s (EAL's log says why)\n",
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	if (help == 2 || fx_check_args() != 0) {
		rte_eal_cleanup();
		return help == 2 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	return -1;
}

/* The route table and its RCU variable, each worker a reader of it. */
static void
setup_routes(void)
{
	unsigned int w;
	int ret;

	ret = fx_route_init(fx_nb_workers);
	if (ret == -ENOSPC)
		rte_exit(EXIT_FAILURE, "cannot build the route table: more than %u next hops or "
			 "%u neighbours\n", FX_NH_MAX, FX_NEIGH_SLOTS - 1);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "cannot build the route table (more memory: -m / --socket-mem)\n");
	for (w = 0; w < fx_nb_workers; w++)
		rte_rcu_qsbr_thread_register(fx_route_rcu, w);
}

/*
 * Everything the workers and the main lcore need, in order, after the
 * memory check; exits with a message on a failure. -1: the memory check
 * refused the run (it said why).
 */
static int
setup(int argc, char **argv)
{
	int ret;

	fx_setup_secret();
	fx_setup_lcores();
	if (fx_preflight(argc, argv) != 0)
		return -1;
	fx_setup_nat_and_clock();
	fx_setup_flow_state();
	fx_setup_handoff();
	fx_setup_nat_log();
	ret = fx_neigh_init(fx_nb_workers);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "neighbour tables: %s (more memory: -m / --socket-mem)\n",
			 rte_strerror(-ret));
	fx_setup_slow_path();
	setup_routes();
	if (fx_control_init() != 0)
		rte_exit(EXIT_FAILURE, "cannot create the control ring\n");
	fx_telemetry_register();
	fx_ports_init();
	fx_neigh_start(fx_port_mac, fx_ports_main_txq, fx_route_rcu);
	fx_affinity_decide();
	fx_nat_steer_decide();
	fx_ports_check_link();
	fx_neigh_announce();
	print_config();
	return 0;
}

/*
 * After the main loop: the workers joined, the statistics reported and
 * written, everything freed. Returns main()'s exit status.
 */
static int
shutdown_all(void)
{
	unsigned int w;
	int ret = 0, rc;

	fx_force_quit = true;
	fx_nat_log_stop();   /* the exit's events, until every worker returned */
	RTE_LCORE_FOREACH_WORKER(w) {
		if (rte_eal_wait_lcore(w) < 0)
			ret = -1;
	}
	fx_free_handoff();   /* packets left in the rings count as dropped */
	fx_telemetry_stop();
	fx_control_fini();
	if (fx_conf.stats_period != 0)
		fx_stats_print(stdout);
	fx_stats_summary(stdout);
	if (fx_conf.stats_file != NULL) {
		rc = fx_stats_write_json(fx_conf.stats_file);
		if (rc != 0) {
			fprintf(stderr, "cannot write %s: %s\n", fx_conf.stats_file,
				strerror(-rc));
			ret = -1;
		}
	}
	fx_neigh_fini();   /* what it holds */
	fx_free_slow_path();   /* what the rings hold */
	printf("closing ports...\n");
	fx_ports_fini();
	fx_nat_log_fini();
	fx_free_flow_state();
	fx_route_fini();
	rte_eal_cleanup();
	printf("Bye...\n");
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	int status;

	/* a signal during start-up ends the run as one during the run does */
	fx_force_quit = false;
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);

	status = start_eal(argc, argv);
	if (status >= 0)
		return status;
	if (setup(argc, argv) != 0) {
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	fx_stats_start();
	rte_eal_mp_remote_launch(fx_worker_main, NULL, SKIP_MAIN);
	main_loop();
	return shutdown_all();
}
