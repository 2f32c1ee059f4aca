/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The command line's second pass, after rte_eal_init() (fx_check_args()):
 * the default --config and routes, then one named check per concern, in
 * order - the ports of -p against the probed ones, each --config tuple
 * against EAL's lcores and -p, the rx queues per lcore and per port, the
 * options that depend on --expiry, the NAT and neighbour combinations,
 * the routes - and NAT's worker count. The first check that fails says
 * why, as the first pass does (boot/args.c), and stops the rest.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "base/config.h"
#include "boot/args.h"
#include "boot/args_opt.h"
#include "expiry/expiry.h"
#include "l3/neigh_conf.h"
#include "l3/route.h"
#include "nat/conf.h"
#include "nat/log/export.h"

static bool
in_portmask(unsigned int port)
{
	return port < FX_MAX_PORTS && (fx_conf.portmask >> port & 1) != 0;
}

/* queue 0 of every port on the first worker lcore */
static int
default_config(void)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0), port;

	if (lcore >= RTE_MAX_LCORE) {
		fx_args_err("no worker lcore: give EAL at least two lcores (e.g. -l 0-1 or "
			    "--lcores 0@0,1@0)");
		return -1;
	}
	for (port = 0; port < FX_MAX_PORTS; port++) {
		if (!in_portmask(port))
			continue;
		fx_conf.lcore_params[fx_conf.nb_lcore_params++] =
			(struct fx_lcore_params){ .port_id = (uint16_t)port,
				.queue_id = 0, .lcore_id = lcore };
	}
	return 0;
}

/* the worker lcores --config names */
static unsigned int
nb_workers(void)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < fx_conf.nb_lcore_params; i++) {
		for (k = 0; k < i; k++)
			if (fx_conf.lcore_params[k].lcore_id == fx_conf.lcore_params[i].lcore_id)
				break;
		n += k == i;
	}
	return n;
}

/* every port of -p was probed */
static int
check_ports_exist(void)
{
	unsigned int port;

	for (port = 0; port < FX_MAX_PORTS; port++) {
		if (in_portmask(port) && !rte_eth_dev_is_valid_port((uint16_t)port)) {
			fx_args_err("-p: port %u does not exist (%u ports found)",
				    port, rte_eth_dev_count_avail());
			return -1;
		}
	}
	return 0;
}

/* each --config tuple: an enabled worker lcore, a port of -p that exists */
static int
check_config_tuples(void)
{
	const struct fx_lcore_params *lp;
	unsigned int i, lcore, port;
	char t[64];

	for (i = 0; i < fx_conf.nb_lcore_params; i++) {
		lp = &fx_conf.lcore_params[i];
		lcore = lp->lcore_id;
		port = lp->port_id;
		snprintf(t, sizeof(t), "(%u,%u,%u)", port, lp->queue_id, lcore);
		if (!rte_lcore_is_enabled(lcore)) {
			fx_args_err("--config: %s: lcore %u is not enabled in the EAL lcore list",
				    t, lcore);
			return -1;
		}
		if (lcore == rte_get_main_lcore()) {
			fx_args_err("--config: %s: lcore %u is the main lcore, which runs "
				    "statistics and the control path; use another (--lcores can "
				    "put two lcores on one CPU)", t, lcore);
			return -1;
		}
		if (!in_portmask(port)) {
			fx_args_err("--config: %s: port %u is not in the portmask", t, port);
			return -1;
		}
		if (!rte_eth_dev_is_valid_port((uint16_t)port)) {
			fx_args_err("--config: %s: port %u does not exist", t, port);
			return -1;
		}
	}
	return 0;
}

/* no lcore polls more rx queues than a worker holds */
static int
check_queues_per_lcore(void)
{
	unsigned int i, lcore, nrxq;

	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		nrxq = 0;
		for (i = 0; i < fx_conf.nb_lcore_params; i++)
			if (fx_conf.lcore_params[i].lcore_id == lcore)
				nrxq++;
		if (nrxq > MAX_RX_QUEUE_PER_LCORE) {
			fx_args_err("--config: lcore %u polls %u rx queues, at most %u",
				    lcore, nrxq, MAX_RX_QUEUE_PER_LCORE);
			return -1;
		}
	}
	return 0;
}

/* whether --config has a tuple for port's rx queue q */
static bool
config_has_queue(unsigned int port, unsigned int q)
{
	unsigned int i;

	for (i = 0; i < fx_conf.nb_lcore_params; i++)
		if (fx_conf.lcore_params[i].port_id == port &&
		    fx_conf.lcore_params[i].queue_id == q)
			return true;
	return false;
}

/* every port of -p has rx queues 0..n-1, each once (parse_config()) */
static int
check_queues_per_port(void)
{
	unsigned int i, port, nrxq, max_q, q;

	for (port = 0; port < FX_MAX_PORTS; port++) {
		if (!in_portmask(port))
			continue;
		nrxq = 0;
		max_q = 0;
		for (i = 0; i < fx_conf.nb_lcore_params; i++) {
			if (fx_conf.lcore_params[i].port_id != port)
				continue;
			nrxq++;
			max_q = RTE_MAX(max_q, (unsigned int)fx_conf.lcore_params[i].queue_id);
		}
		if (nrxq == 0) {
			fx_args_err("--config: port %u is in the portmask but has no rx queue",
				    port);
			return -1;
		}
		if (max_q + 1 == nrxq)
			continue;
		/* no duplicates, so a queue below max_q is missing */
		for (q = 0; q < max_q && config_has_queue(port, q); q++)
			;
		fx_args_err("--config: port %u has rx queue %u but no tuple (%u,%u,LCORE); "
			    "a port's rx queues are 0..n-1", port, max_q, port, q);
		return -1;
	}
	return 0;
}

/* --clock pcap and --scan-interval, which pace one --expiry */
static int
check_pacing(void)
{
	if (fx_conf.clock == FX_CLOCK_PCAP && fx_conf.expiry != FX_EXPIRY_TWHEEL &&
	    fx_conf.expiry != FX_EXPIRY_NONE) {
		fx_args_err("--clock pcap: --expiry %s runs on the TSC; use twheel or none",
			    fx_expiry_name(fx_conf.expiry));
		return -1;
	}
	if (fx_conf.scan_interval_s > 0 && fx_conf.expiry != FX_EXPIRY_SCAN) {
		fx_args_err("--scan-interval: paces --expiry scan only, not --expiry %s",
			    fx_expiry_name(fx_conf.expiry));
		return -1;
	}
	return 0;
}

/* the interface roles (nat/conf.h), the addresses and permanent
 * neighbours (l3/neigh_conf.h), against -p */
static int
check_roles_and_addresses(void)
{
	char msg[256];

	if (nat_conf_check_roles(&fx_nat_conf, fx_conf.portmask, msg, sizeof(msg)) != 0 ||
	    neigh_conf_check(&fx_neigh_conf, fx_conf.portmask, msg, sizeof(msg)) != 0) {
		fx_args_err("%s", msg);
		return -1;
	}
	return 0;
}

/* options that need another: flows to limit, masquerade to log, flow
 * affinity for masquerade, rss affinity for its model */
static int
check_option_needs(void)
{
	if (fx_conf.max_flows_per_host != 0 && fx_conf.expiry == FX_EXPIRY_NONE) {
		fx_args_err("--max-flows-per-host: --expiry none tracks no flows");
		return -1;
	}
	if (fx_nat_log_enabled() && !fx_nat_enabled()) {
		fx_args_err("--nat-log: logs masquerade's events, which needs --nat-pool");
		return -1;
	}
	if (fx_nat_enabled() && fx_conf.expiry == FX_EXPIRY_NONE) {
		fx_args_err("--nat-pool: masquerade needs flow affinity, which --expiry none "
			    "turns off");
		return -1;
	}
	if (fx_conf.rss_model && fx_conf.affinity != FX_AFFINITY_RSS) {
		fx_args_err("--rss-model: stands in for the NIC's RSS under --affinity rss, "
			    "which is not given");
		return -1;
	}
	return 0;
}

/* each route: its port in -p, a host route under --lookup em, a next hop
 * its port can reach */
static int
check_routes(void)
{
	const struct fx_route_rule *r;
	char text[FX_ROUTE_TEXT], msg[256];
	unsigned int i;

	for (i = 0; i < fx_conf.nb_routes; i++) {
		r = &fx_conf.routes[i];
		fx_route_format(r, true, text, sizeof(text));
		if (!in_portmask(r->port)) {
			fx_args_err("--route %s: port %u is not in the portmask", text, r->port);
			return -1;
		}
		if (fx_conf.lookup == FX_LOOKUP_EM &&
		    r->depth != (r->family == FX_FAMILY_V4 ? 32 : 128)) {
			fx_args_err("--route %s: --lookup em takes host routes (/32, /128) only",
				    text);
			return -1;
		}
		if (neigh_conf_check_route(&fx_neigh_conf, r, fx_conf.eth_dest_given, msg,
					   sizeof(msg)) != 0) {
			fx_args_err("%s", msg);
			return -1;
		}
	}
	return 0;
}

/* NAT against the number of workers: ports to share out, block sizes */
static int
check_nat_workers(void)
{
	char msg[160];

	if (nat_conf_check(&fx_nat_conf, nb_workers(), msg, sizeof(msg)) != 0) {
		fx_args_err("%s", msg);
		return -1;
	}
	return 0;
}

/* in the order their errors are to be found */
static int (*const checks[])(void) = {
	check_ports_exist,
	check_config_tuples,
	check_queues_per_lcore,
	check_queues_per_port,
	check_pacing,
	check_roles_and_addresses,
	check_option_needs,
	check_routes,
	check_nat_workers,
};

int
fx_check_args(void)
{
	unsigned int i;

	if (fx_conf.nb_lcore_params == 0 && default_config() != 0)
		return fx_args_report();
	if (fx_conf.nb_routes == 0)
		fx_route_defaults(&fx_conf);
	for (i = 0; i < RTE_DIM(checks); i++)
		if (checks[i]() != 0)
			return fx_args_report();
	return 0;
}
