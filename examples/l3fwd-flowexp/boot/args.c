/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Command-line parsing and validation.
 *
 * l3fwd's options keep their meaning (-p, -P, --config, --lookup,
 * --eth-dest, --rx-queue-size, --tx-queue-size, --parse-ptype,
 * --relax-rx-offload), -T is l2fwd's statistics period, and the rest set up
 * flow tracking. Every value is checked completely (no trailing junk, in
 * range).
 *
 * Two passes. Before EAL starts (fx_parse_args()), so that neither needs
 * hugepages: --help anywhere among the application's options prints the
 * usage on stdout (exit status 0), and every option is parsed and
 * checked as far as that needs nothing of EAL's.
 * After EAL (fx_check_args()): the lcores and ports against --config,
 * the combinations of options, NAT's worker count.
 *
 * Errors: the first one found, and only it (a parser's own message wins
 * over its caller's "invalid value"), goes to stderr as one line, followed
 * by a line pointing to --help; main() exits with status 1. The usage text
 * is printed for --help only.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>

#include "base/config.h"
#include "base/timeouts.h"
#include "boot/args.h"
#include "l3/neigh_conf.h"
#include "l3/route.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/log/events.h"
#include "nat/log/export.h"

const char *const fx_tmo_names[FX_TMO_MAX] = {
#define FX_TMO_NAME(e, n, o, d) n,
	FX_TMOS(FX_TMO_NAME)
#undef FX_TMO_NAME
};

#define RXQ_MAX_PER_PORT 1024
#define RING_SIZE_MAX 32768
#define TIMEOUT_MAX_S 1000000.0
#define TICK_US_MIN 10u
#define TICK_US_MAX 1000000u
#define SCAN_INTERVAL_MAX_S 3600.0
#define MAX_PKT_LEN_MIN 64u
#define MAX_PKT_LEN_MAX 16384u

void
fx_usage(const char *prgname)
{
	printf("usage: %s [EAL options] --"
	       " -p PORTMASK [-P] [--config (port,queue,lcore)[,(port,queue,lcore)]]\n"
	       "  [--lookup lpm|em] [--eth-dest=X,MM:MM:MM:MM:MM:MM]\n"
	       "  [--rx-queue-size NPKTS] [--tx-queue-size NPKTS] [--parse-ptype] [--relax-rx-offload]\n"
	       "  [-T SECONDS] [--expiry twheel|rte_timer|scan|none] [--max-flows N]\n"
	       "  [--expire-budget N] [--tick-us US] [--scan-interval SECONDS]\n"
	       "  [--timeout-CLASS SECONDS]...\n"
	       "  [--table-full drop|forward|evict] [--affinity rss|handoff|auto] [--route PREFIX/LEN,PORT[,NEXTHOP]]...\n"
	       "  [--stats-file PATH] [--exit-when-drained] [--duration SECONDS] [--bench]\n"
	       "  [--clock tsc|pcap] [--nat-pool A.B.C.D/LEN]... [--nat-inside A.B.C.D/LEN]...\n"
	       "  [--nat-ports LO-HI] [--nat-holddown SECONDS] [--hash-secret HEX]\n"
	       "  [--nat-outside PORT]... [--nat-max-per-host N] [--nat-max-per-dest N]\n"
	       "  [--max-flows-per-host N] [--nat-log ipfix:ADDR:PORT[,domain=N]]\n"
	       "  [--nat-log-ring N] [--nat-mapping edm|eim] [--nat-filtering apdf|adf|eif]\n"
	       "  [--nat-port-block N] [--nat-max-blocks-per-host M]\n"
	       "  [--port-addr PORT,ADDR/LEN]... [--neigh PORT,ADDR,MAC]... [--neigh-reachable-ms MS]\n"
	       "  [--neigh-retrans-ms MS] [--neigh-delay-ms MS] [--neigh-stale-ms MS] [--neigh-probes N]\n"
	       "  [--icmp-rate RATE[,BURST]] [--max-pkt-len LEN]\n\n"
	       "  -p PORTMASK: hexadecimal bitmask of the ports to use\n"
	       "  -P: promiscuous mode on every port\n"
	       "  --config (port,queue,lcore): rx queues and the worker lcore polling each;\n"
	       "      default: queue 0 of every port on the first worker lcore. The main lcore\n"
	       "      runs statistics and the control path and may not be given here.\n"
	       "  --lookup: lpm (longest prefix, default) or em (exact match, host routes)\n"
	       "  --eth-dest=X,MM:MM:MM:MM:MM:MM: destination MAC of packets leaving port X\n"
	       "  --rx-queue-size, --tx-queue-size: descriptors per queue (default 1024)\n"
	       "  --parse-ptype: accepted for l3fwd command lines, no effect: the example reads\n"
	       "      the EtherType and VLAN tags from every frame, whatever the NIC reports\n"
	       "  --relax-rx-offload: mask rx offloads the port cannot do (virtual devices)\n"
	       "  -T SECONDS: statistics table period (default 10, 0: off)\n"
	       "  --expiry: twheel (default), rte_timer or scan: how flows expire;\n"
	       "      none: no flow tracking (plain l3fwd)\n"
	       "  --max-flows N: flows per lcore, %u..%u (default %u)\n"
	       "  --max-flows-per-host N: flows one host (IPv4 address, IPv6 /64) may open\n"
	       "      on one lcore; a new flow over it is handled as on a full table, never\n"
	       "      evicting (default 0: no limit)\n"
	       "  --expire-budget N: expiry work per loop iteration, 1..%u (default %u)\n"
	       "  --tick-us US: wheel tick, %u..%u microseconds (default %u)\n"
	       "  --scan-interval S: --expiry scan makes one full pass of the table every S\n"
	       "      seconds, at most --expire-budget slots per loop iteration (default 0:\n"
	       "      --expire-budget slots every iteration, however often that is)\n"
	       "  --timeout-oneway S: flows seen one way only, TCP without a SYN too (default 5)\n"
	       "  --timeout-tcp-syn S: TCP opened by a SYN, no answer yet (default 120, conntrack)\n"
	       "  --timeout-tcp S: TCP established (default 7440, RFC 5382)\n"
	       "  --timeout-tcp-close S: TCP after a FIN (default 240, RFC 5382)\n"
	       "  --timeout-tcp-rst S: TCP after an RST (default 10, conntrack)\n"
	       "  --timeout-udp S, --timeout-icmp S, --timeout-other S: answered flows\n"
	       "      (defaults 300, 60, 600); seconds, fractions allowed, up to 1000000\n"
	       "      (a SYN on a closing or closed TCP flow starts a fresh one)\n"
	       "  --table-full: a new flow that finds the table full: drop (default) or forward\n"
	       "      its packet without state, or evict the lcore's oldest unanswered flow\n"
	       "      (bounded work per insert) to make room\n"
	       "  --affinity: how both directions of a flow reach one lcore: rss (symmetric\n"
	       "      RSS and redirection tables, verified at start-up, or stop), handoff\n"
	       "      (workers pass packets to the flow's owner over rings), auto (default:\n"
	       "      rss where verified, else handoff)\n"
	       "  --route PREFIX/LEN,PORT: a route (repeat; replaces the defaults\n"
	       "      198.18.P.0/24 and 2001:200:0:P::/64 -> P for every port P)\n"
	       "  --stats-file PATH: write the final statistics as JSON at exit\n"
	       "  --exit-when-drained: stop once traffic was seen, none arrived for 100 ms\n"
	       "      and no flow is left\n"
	       "  --duration SECONDS: stop after this long\n"
	       "  --bench: benchmark-only controls: telemetry /l3fwd_flowexp/hold,MS stops\n"
	       "      expiry for up to 10 minutes. Off by default; never in production\n"
	       "  --clock: tsc (default) or pcap: time is each packet's capture time (net_pcap),\n"
	       "      everything due by then expires first, and 100 ms without a packet ends\n"
	       "      every timeout (needs --expiry twheel or none)\n"
	       "  --nat-pool A.B.C.D/LEN: public addresses (repeat); turns masquerade on\n"
	       "  --nat-inside A.B.C.D/LEN: inside hosts (repeat): their packets to a\n"
	       "      destination outside the pool are translated, packets to the pool back\n"
	       "  --nat-ports LO-HI: public ports, shared out among the workers (default %u-%u)\n"
	       "  --nat-holddown S: an expired mapping's public tuple is not handed out again\n"
	       "      for S seconds (default %g); mappings time out as flows (--timeout-*)\n"
	       "  --nat-outside PORT: a port that faces the internet (repeat); the other ports\n"
	       "      of -p are inside. Needed when NAT runs on more than one port: packets\n"
	       "      are then checked against their receive port (doc/nat.md)\n"
	       "  --nat-max-per-host N: mappings (live and held) one inside host may hold on\n"
	       "      one worker (default %u, 0: no limit)\n"
	       "  --nat-max-per-dest N: mappings one inside host may hold towards one remote\n"
	       "      address, port and protocol on one worker (default: a quarter of the\n"
	       "      worker's port share, 0: no limit)\n"
	       "  --nat-mapping edm|eim: endpoint-dependent mappings with overlapped ports\n"
	       "      (default) or one public endpoint per inside endpoint towards every remote\n"
	       "  --nat-filtering apdf|adf|eif: inbound packets reach a mapping from the exact\n"
	       "      remote endpoint (default), a remote address it sent to, or anyone (eim)\n"
	       "  --nat-port-block N: each inside host takes its ports from blocks of N\n"
	       "      ports of the worker's share it owns (every protocol; under eim its\n"
	       "      bindings' ports), allocated and released as its mappings need them\n"
	       "      and logged once each\n"
	       "      (default 0: no blocks, per-mapping ports and events)\n"
	       "  --nat-max-blocks-per-host M: blocks one inside host may hold on one\n"
	       "      worker (default %u, 0: no limit)\n"
	       "  --nat-log ipfix:ADDR:PORT[,domain=N]: export NAT events (mapping made,\n"
	       "      public tuple free again, mapping refused) as IPFIX over UDP to the\n"
	       "      collector at ADDR:PORT, observation domain N (default 1)\n"
	       "  --nat-log-ring N: events each worker may queue for the exporter, %u..%u\n"
	       "      (default %u); an event that finds its ring full is dropped, counted\n"
	       "  --hash-secret HEX: 32 hex digits: the tables' hash secret, for tests and\n"
	       "      benchmarks that must know where keys land (default: drawn at start-up\n"
	       "      from getrandom; whoever knows the secret can flood the tables: never in\n"
	       "      production)\n",
	       prgname, FX_MAX_FLOWS_MIN, FX_MAX_FLOWS_MAX, FX_MAX_FLOWS_DEFAULT,
	       FX_EXPIRE_BUDGET_MAX, FX_EXPIRE_BUDGET_DEFAULT,
	       TICK_US_MIN, TICK_US_MAX, FX_TICK_US_DEFAULT,
	       NAT_PORT_LO_DEFAULT, NAT_PORT_HI_DEFAULT, NAT_HOLDDOWN_DEFAULT,
	       NAT_MAX_PER_HOST_DEFAULT, NAT_BLOCKS_PER_HOST_DEFAULT,
	       NAT_LOG_RING_MIN, NAT_LOG_RING_MAX,
	       NAT_LOG_RING_DEFAULT);
	neigh_conf_usage(stdout);
}

/* ---- errors: the first one is reported, in one line ---- */

static char cli_msg[512];
static bool cli_failed;

static void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* the first error found, the most precise: a parser's own message
 * comes before its caller's "invalid value" */
static void
cli_err(const char *fmt, ...)
{
	char buf[sizeof(cli_msg)];
	va_list ap;

	if (cli_failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(cli_msg, buf, sizeof(cli_msg));
	cli_failed = true;
}

/* the error on stderr, and where the options are; -1 */
static int
cli_report(void)
{
	fprintf(stderr, FX_MSG_PREFIX "%s\nsee --help (dpdk-l3fwd-flowexp -- --help)\n", cli_msg);
	return -1;
}

/* ---- value parsers: 0 on success ---- */

static int
parse_uint(const char *s, int base, unsigned long min, unsigned long max,
	   unsigned long *out)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, base);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static const char *
skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A number in decimal, or hexadecimal with 0x, at most max; NULL if none. */
static const char *
config_number(const char *p, unsigned long max, unsigned long *out)
{
	int base = 10, digits = 0, d;
	unsigned long v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (;; p++, digits++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		v = v * (unsigned long)base + (unsigned long)d;
		if (v > max)
			return NULL;
	}
	if (digits == 0)
		return NULL;
	*out = v;
	return p;
}

/*
 * "(port,queue,lcore)[,(port,queue,lcore)]...": spaces allowed around
 * every item, numbers in decimal or 0x hexadecimal (as l3fwd's strtoul).
 * Each (port, queue) at most once. Errors name the tuple.
 */
static int
parse_config(const char *s)
{
	static const char *const what[3] = { "port", "queue", "lcore" };
	static const unsigned long max[3] = {
		RTE_MAX_ETHPORTS - 1, RXQ_MAX_PER_PORT - 1, RTE_MAX_LCORE - 1 };
	struct fx_lcore_params *lp;
	const char *p = skip_space(s), *t, *q;
	unsigned long v[3];
	unsigned int i, k;

	fx_conf.nb_lcore_params = 0;
	if (*p == '\0') {
		cli_err("--config: empty");
		return -1;
	}
	while (*p != '\0') {
		t = p;
		if (*p != '(') {
			cli_err("--config: expected '(' at '%s'", p);
			return -1;
		}
		p++;
		for (i = 0; i < 3; i++) {
			p = skip_space(p);
			q = config_number(p, max[i], &v[i]);
			if (q == NULL) {
				cli_err("--config: tuple starting '%.24s': %s must be a number "
				        "0..%lu (decimal or 0x hexadecimal)", t, what[i], max[i]);
				return -1;
			}
			p = skip_space(q);
			if (*p != (i < 2 ? ',' : ')')) {
				cli_err("--config: tuple starting '%.24s': expected '%c' after the %s, "
				        "a tuple is (port,queue,lcore)", t, i < 2 ? ',' : ')', what[i]);
				return -1;
			}
			p++;
		}
		for (k = 0; k < fx_conf.nb_lcore_params; k++) {
			lp = &fx_conf.lcore_params[k];
			if (lp->port_id == v[0] && lp->queue_id == v[1]) {
				cli_err("--config: (%lu,%lu,%lu): port %lu queue %lu is already given, "
				        "polled by lcore %u; a queue has one lcore", v[0], v[1], v[2],
				        v[0], v[1], lp->lcore_id);
				return -1;
			}
		}
		if (fx_conf.nb_lcore_params == MAX_LCORE_PARAMS) {
			cli_err("--config: more than %u tuples", MAX_LCORE_PARAMS);
			return -1;
		}
		lp = &fx_conf.lcore_params[fx_conf.nb_lcore_params++];
		lp->port_id = (uint16_t)v[0];
		lp->queue_id = (uint16_t)v[1];
		lp->lcore_id = (uint32_t)v[2];
		p = skip_space(p);
		if (*p == ',') {
			p = skip_space(p + 1);
			if (*p == '\0') {
				cli_err("--config: a tuple must follow the last ','");
				return -1;
			}
		} else if (*p != '\0') {
			cli_err("--config: after (%lu,%lu,%lu): expected ',' or the end at '%s'",
			        v[0], v[1], v[2], p);
			return -1;
		}
	}
	return 0;
}

static int
parse_eth_dest(const char *s)
{
	struct rte_ether_addr mac;
	unsigned long port;
	char buf[32], *comma;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (comma == NULL)
		return -1;
	*comma = '\0';
	if (parse_uint(buf, 10, 0, RTE_MAX_ETHPORTS - 1, &port) != 0)
		return -1;
	if (rte_ether_unformat_addr(comma + 1, &mac) != 0)
		return -1;
	fx_conf.eth_dest[port] = mac;
	if (port < 32)
		fx_conf.eth_dest_given |= UINT32_C(1) << port;
	return 0;
}

/* ---- checks that need EAL ---- */

static int
check_config(void)
{
	const struct fx_lcore_params *lp;
	unsigned int i, lcore, port, nrxq;
	char msg[256];
	int max_q, q;

	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if ((fx_conf.portmask & (1u << port)) &&
		    !rte_eth_dev_is_valid_port((uint16_t)port)) {
			cli_err("-p: port %u does not exist (%u ports found)",
			        port, rte_eth_dev_count_avail());
			return -1;
		}
	}
	for (i = 0; i < fx_conf.nb_lcore_params; i++) {
		lp = &fx_conf.lcore_params[i];
		lcore = lp->lcore_id;
		port = lp->port_id;
		snprintf(msg, sizeof(msg), "(%u,%u,%u)", port, lp->queue_id, lcore);
		if (!rte_lcore_is_enabled(lcore)) {
			cli_err("--config: %s: lcore %u is not enabled in the EAL lcore list",
			        msg, lcore);
			return -1;
		}
		if (lcore == rte_get_main_lcore()) {
			cli_err("--config: %s: lcore %u is the main lcore, which runs statistics and the "
			        "control path; use another (--lcores can put two lcores on one CPU)",
			        msg, lcore);
			return -1;
		}
		if (!(fx_conf.portmask & (1u << port))) {
			cli_err("--config: %s: port %u is not in the portmask", msg, port);
			return -1;
		}
		if (!rte_eth_dev_is_valid_port((uint16_t)port)) {
			cli_err("--config: %s: port %u does not exist", msg, port);
			return -1;
		}
	}
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		nrxq = 0;
		for (i = 0; i < fx_conf.nb_lcore_params; i++)
			if (fx_conf.lcore_params[i].lcore_id == lcore)
				nrxq++;
		if (nrxq > MAX_RX_QUEUE_PER_LCORE) {
			cli_err("--config: lcore %u polls %u rx queues, at most %u",
			        lcore, nrxq, MAX_RX_QUEUE_PER_LCORE);
			return -1;
		}
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		nrxq = 0;
		max_q = -1;
		for (i = 0; i < fx_conf.nb_lcore_params; i++) {
			if (fx_conf.lcore_params[i].port_id != port)
				continue;
			nrxq++;
			max_q = RTE_MAX(max_q, (int)fx_conf.lcore_params[i].queue_id);
		}
		if (nrxq == 0) {
			cli_err("--config: port %u is in the portmask but has no rx queue", port);
			return -1;
		}
		if (max_q + 1 != (int)nrxq) {
			/* no duplicates (parse_config), so a queue below max_q is missing */
			for (q = 0; q < max_q; q++) {
				for (i = 0; i < fx_conf.nb_lcore_params; i++)
					if (fx_conf.lcore_params[i].port_id == port &&
					    fx_conf.lcore_params[i].queue_id == q)
						break;
				if (i == fx_conf.nb_lcore_params)
					break;
			}
			cli_err("--config: port %u has rx queue %d but no tuple (%u,%d,LCORE); "
			        "a port's rx queues are 0..n-1", port, max_q, port, q);
			return -1;
		}
	}
	if (fx_conf.clock == FX_CLOCK_PCAP && fx_conf.expiry != FX_EXPIRY_TWHEEL &&
	    fx_conf.expiry != FX_EXPIRY_NONE) {
		cli_err("--clock pcap: --expiry %s runs on the TSC; use twheel or none",
		        fx_expiry_name(fx_conf.expiry));
		return -1;
	}
	if (fx_conf.scan_interval_s > 0 && fx_conf.expiry != FX_EXPIRY_SCAN) {
		cli_err("--scan-interval: paces --expiry scan only, not --expiry %s",
		        fx_expiry_name(fx_conf.expiry));
		return -1;
	}
	if (nat_conf_check_roles(&fx_nat_conf, fx_conf.portmask, msg, sizeof(msg)) != 0) {
		cli_err("%s", msg);
		return -1;
	}
	if (neigh_conf_check(&fx_neigh_conf, fx_conf.portmask, msg, sizeof(msg)) != 0) {
		cli_err("%s", msg);
		return -1;
	}
	if (fx_conf.max_flows_per_host != 0 && fx_conf.expiry == FX_EXPIRY_NONE) {
		cli_err("--max-flows-per-host: --expiry none tracks no flows");
		return -1;
	}
	if (fx_nat_log_enabled() && !fx_nat_conf.enabled) {
		cli_err("--nat-log: logs masquerade's events, which needs --nat-pool");
		return -1;
	}
	if (fx_nat_conf.enabled && fx_conf.expiry == FX_EXPIRY_NONE) {
		cli_err("--nat-pool: masquerade needs flow affinity, which --expiry none turns off");
		return -1;
	}
	for (i = 0; i < fx_conf.nb_routes; i++) {
		const struct fx_route_rule *r = &fx_conf.routes[i];

		fx_route_format(r, true, msg, sizeof(msg));
		if (!(fx_conf.portmask & (1u << r->port))) {
			cli_err("--route %s: port %u is not in the portmask", msg, r->port);
			return -1;
		}
		if (fx_conf.lookup == FX_LOOKUP_EM &&
		    r->depth != (r->family == FX_FAMILY_V4 ? 32 : 128)) {
			cli_err("--route %s: --lookup em takes host routes (/32, /128) only", msg);
			return -1;
		}
		if (neigh_conf_check_route(&fx_neigh_conf, r, fx_conf.eth_dest_given, msg,
					   sizeof(msg)) != 0) {
			cli_err("%s", msg);
			return -1;
		}
	}
	return 0;
}

/* queue 0 of every port on the first worker lcore */
static int
default_config(void)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0), port;

	if (lcore >= RTE_MAX_LCORE) {
		cli_err("no worker lcore: give EAL at least two lcores (e.g. -l 0-1 or --lcores 0@0,1@0)");
		return -1;
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		fx_conf.lcore_params[fx_conf.nb_lcore_params++] =
			(struct fx_lcore_params){ .port_id = (uint16_t)port,
				.queue_id = 0, .lcore_id = lcore };
	}
	return 0;
}

static void
defaults(void)
{
	unsigned int p;

	memset(&fx_conf, 0, sizeof(fx_conf));
	fx_conf.lookup = FX_LOOKUP_LPM;
	fx_conf.nb_rxd = 1024;
	fx_conf.nb_txd = 1024;
	fx_conf.stats_period = 10;
	fx_conf.expiry = FX_EXPIRY_TWHEEL;
	fx_conf.max_flows = FX_MAX_FLOWS_DEFAULT;
	fx_conf.expire_budget = FX_EXPIRE_BUDGET_DEFAULT;
	fx_conf.tick_us = FX_TICK_US_DEFAULT;
	fx_conf.full_policy = FX_FULL_DROP;
	fx_conf.affinity = FX_AFFINITY_AUTO;
	fx_conf.clock = FX_CLOCK_TSC;
	nat_conf_defaults(&fx_nat_conf);
	fx_nat_log_defaults();
	neigh_conf_defaults(&fx_neigh_conf);

#define FX_TMO_DEFAULT(e, n, o, d) fx_conf.timeout_s[FX_TMO_ ## e] = d;
	FX_TMOS(FX_TMO_DEFAULT)
#undef FX_TMO_DEFAULT
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		/* locally administered 02:00:00:00:00:p, as l3fwd */
		memset(&fx_conf.eth_dest[p], 0, sizeof(fx_conf.eth_dest[p]));
		fx_conf.eth_dest[p].addr_bytes[0] = 0x02;
		fx_conf.eth_dest[p].addr_bytes[5] = (uint8_t)p;
	}
}

enum {
	OPT_CONFIG = 256,
	OPT_LOOKUP,
	OPT_ETH_DEST,
	OPT_RXQ_SIZE,
	OPT_TXQ_SIZE,
	OPT_PARSE_PTYPE,
	OPT_RELAX,
	OPT_EXPIRY,
	OPT_MAX_FLOWS,
	OPT_BUDGET,
	OPT_TICK,
	OPT_SCAN_INTERVAL,
	OPT_TABLE_FULL,
	OPT_AFFINITY,
	OPT_ROUTE,
	OPT_STATS_FILE,
	OPT_EXIT_DRAINED,
	OPT_DURATION,
	OPT_BENCH,
	OPT_CLOCK,
	OPT_NAT_POOL,
	OPT_NAT_INSIDE,
	OPT_NAT_PORTS,
	OPT_NAT_HOLDDOWN,
	OPT_NAT_MAPPING,
	OPT_NAT_FILTERING,
	OPT_HASH_SECRET,
	OPT_NAT_OUTSIDE,
	OPT_NAT_MAX_HOST,
	OPT_NAT_MAX_DEST,
	OPT_MAX_FLOWS_HOST,
	OPT_NAT_LOG,
	OPT_NAT_LOG_RING,
	OPT_NAT_PORT_BLOCK,
	OPT_NAT_MAX_BLOCKS,
	OPT_PORT_ADDR,
	OPT_NEIGH,
	OPT_NEIGH_NUMBER,   /* --neigh-*-ms, --neigh-probes: by name */
	OPT_ICMP_RATE,
	OPT_MAX_PKT_LEN,
	OPT_HELP,
	OPT_TIMEOUT,   /* + enum fx_tmo */
};

static const struct option lgopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "lookup", required_argument, NULL, OPT_LOOKUP },
	{ "eth-dest", required_argument, NULL, OPT_ETH_DEST },
	{ "rx-queue-size", required_argument, NULL, OPT_RXQ_SIZE },
	{ "tx-queue-size", required_argument, NULL, OPT_TXQ_SIZE },
	{ "parse-ptype", no_argument, NULL, OPT_PARSE_PTYPE },
	{ "relax-rx-offload", no_argument, NULL, OPT_RELAX },
	{ "expiry", required_argument, NULL, OPT_EXPIRY },
	{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
	{ "expire-budget", required_argument, NULL, OPT_BUDGET },
	{ "tick-us", required_argument, NULL, OPT_TICK },
	{ "scan-interval", required_argument, NULL, OPT_SCAN_INTERVAL },
	{ "table-full", required_argument, NULL, OPT_TABLE_FULL },
	{ "affinity", required_argument, NULL, OPT_AFFINITY },
	{ "route", required_argument, NULL, OPT_ROUTE },
	{ "stats-file", required_argument, NULL, OPT_STATS_FILE },
	{ "exit-when-drained", no_argument, NULL, OPT_EXIT_DRAINED },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "bench", no_argument, NULL, OPT_BENCH },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "nat-pool", required_argument, NULL, OPT_NAT_POOL },
	{ "nat-inside", required_argument, NULL, OPT_NAT_INSIDE },
	{ "nat-ports", required_argument, NULL, OPT_NAT_PORTS },
	{ "nat-holddown", required_argument, NULL, OPT_NAT_HOLDDOWN },
	{ "nat-mapping", required_argument, NULL, OPT_NAT_MAPPING },
	{ "nat-filtering", required_argument, NULL, OPT_NAT_FILTERING },
	{ "hash-secret", required_argument, NULL, OPT_HASH_SECRET },
	{ "nat-outside", required_argument, NULL, OPT_NAT_OUTSIDE },
	{ "nat-max-per-host", required_argument, NULL, OPT_NAT_MAX_HOST },
	{ "nat-max-per-dest", required_argument, NULL, OPT_NAT_MAX_DEST },
	{ "max-flows-per-host", required_argument, NULL, OPT_MAX_FLOWS_HOST },
	{ "nat-log", required_argument, NULL, OPT_NAT_LOG },
	{ "nat-log-ring", required_argument, NULL, OPT_NAT_LOG_RING },
	{ "nat-port-block", required_argument, NULL, OPT_NAT_PORT_BLOCK },
	{ "nat-max-blocks-per-host", required_argument, NULL, OPT_NAT_MAX_BLOCKS },
	{ "port-addr", required_argument, NULL, OPT_PORT_ADDR },
	{ "neigh", required_argument, NULL, OPT_NEIGH },
	{ "neigh-reachable-ms", required_argument, NULL, OPT_NEIGH_NUMBER },
	{ "neigh-retrans-ms", required_argument, NULL, OPT_NEIGH_NUMBER },
	{ "neigh-delay-ms", required_argument, NULL, OPT_NEIGH_NUMBER },
	{ "neigh-stale-ms", required_argument, NULL, OPT_NEIGH_NUMBER },
	{ "neigh-probes", required_argument, NULL, OPT_NEIGH_NUMBER },
	{ "icmp-rate", required_argument, NULL, OPT_ICMP_RATE },
	{ "max-pkt-len", required_argument, NULL, OPT_MAX_PKT_LEN },
	{ "help", no_argument, NULL, OPT_HELP },
#define FX_TMO_OPT(e, n, o, d) { o, required_argument, NULL, OPT_TIMEOUT + FX_TMO_ ## e },
	FX_TMOS(FX_TMO_OPT)
#undef FX_TMO_OPT
	{ NULL, 0, NULL, 0 },
};

/* 32 hex digits: two 64-bit words, the first one first */
static int
parse_secret(const char *s, uint64_t k[2])
{
	unsigned int i, d;
	char c;

	if (strlen(s) != 32)
		return -1;
	k[0] = k[1] = 0;
	for (i = 0; i < 32; i++) {
		c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return -1;
		k[i / 16] = (k[i / 16] << 4) | d;
	}
	return 0;
}

static const char *
opt_name(int opt)
{
	const struct option *o;

	for (o = lgopts; o->name != NULL; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* the neighbour options (l3/neigh_conf.h); name: the long option's */
static int
parse_neigh(int opt, const char *name, const char *arg)
{
	char err[256];
	int rc;

	switch (opt) {
	case OPT_PORT_ADDR:
		rc = neigh_conf_port_addr(&fx_neigh_conf, arg, err, sizeof(err));
		break;
	case OPT_NEIGH:
		rc = neigh_conf_static(&fx_neigh_conf, arg, err, sizeof(err));
		break;
	case OPT_ICMP_RATE:
		rc = neigh_conf_icmp_rate(&fx_neigh_conf, arg, err, sizeof(err));
		break;
	default:
		rc = neigh_conf_number(&fx_neigh_conf, name, arg, err, sizeof(err));
		break;
	}
	if (rc != 0)
		cli_err("%s", err);
	return rc != 0 ? -1 : 0;
}

/* one option; 0, or -1 with the error recorded */
/* --stats-file: written at exit as PATH.tmp, then renamed; both are tried
 * now, so that a run does not lose its statistics at the end */
static int
check_stats_file(const char *path)
{
	char tmp[4096];
	struct stat st;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		cli_err("--stats-file: the path is too long");
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		cli_err("--stats-file %s: is a directory", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (f == NULL) {
		cli_err("--stats-file %s: cannot write %s: %s", path, tmp, strerror(errno));
		return -1;
	}
	fclose(f);
	unlink(tmp);
	return 0;
}

static int
parse_one(int opt, const char *arg)
{
	char err[256];
	unsigned long v;
	double d;

	switch (opt) {
	case 'p':
		if (parse_uint(arg, 16, 1, (1ul << RTE_MAX_ETHPORTS) - 1, &v) != 0)
			goto bad;
		fx_conf.portmask = (uint32_t)v;
		return 0;
	case 'P':
		fx_conf.promiscuous = true;
		return 0;
	case 'T':
		if (parse_uint(arg, 10, 0, 86400, &v) != 0)
			goto bad;
		fx_conf.stats_period = (unsigned int)v;
		return 0;
	case OPT_CONFIG:
		if (parse_config(arg) != 0)
			goto bad;
		return 0;
	case OPT_LOOKUP:
		if (strcmp(arg, "lpm") == 0)
			fx_conf.lookup = FX_LOOKUP_LPM;
		else if (strcmp(arg, "em") == 0)
			fx_conf.lookup = FX_LOOKUP_EM;
		else
			goto bad;
		return 0;
	case OPT_ETH_DEST:
		if (parse_eth_dest(arg) != 0)
			goto bad;
		return 0;
	case OPT_RXQ_SIZE:
	case OPT_TXQ_SIZE:
		if (parse_uint(arg, 10, 1, RING_SIZE_MAX, &v) != 0)
			goto bad;
		if (opt == OPT_RXQ_SIZE)
			fx_conf.nb_rxd = (uint16_t)v;
		else
			fx_conf.nb_txd = (uint16_t)v;
		return 0;
	case OPT_PARSE_PTYPE:
		return 0;   /* l3fwd's option; fwd/parse.c needs no packet types */
	case OPT_RELAX:
		fx_conf.relax_rx_offload = true;
		return 0;
	case OPT_EXPIRY:
		if (strcmp(arg, "twheel") == 0)
			fx_conf.expiry = FX_EXPIRY_TWHEEL;
		else if (strcmp(arg, "rte_timer") == 0)
			fx_conf.expiry = FX_EXPIRY_TIMER;
		else if (strcmp(arg, "scan") == 0)
			fx_conf.expiry = FX_EXPIRY_SCAN;
		else if (strcmp(arg, "none") == 0)
			fx_conf.expiry = FX_EXPIRY_NONE;
		else
			goto bad;
		return 0;
	case OPT_MAX_FLOWS:
		if (parse_uint(arg, 10, FX_MAX_FLOWS_MIN, FX_MAX_FLOWS_MAX, &v) != 0)
			goto bad;
		fx_conf.max_flows = (uint32_t)v;
		return 0;
	case OPT_BUDGET:
		if (parse_uint(arg, 10, 1, FX_EXPIRE_BUDGET_MAX, &v) != 0)
			goto bad;
		fx_conf.expire_budget = (uint32_t)v;
		return 0;
	case OPT_TICK:
		if (parse_uint(arg, 10, TICK_US_MIN, TICK_US_MAX, &v) != 0)
			goto bad;
		fx_conf.tick_us = (uint32_t)v;
		return 0;
	case OPT_SCAN_INTERVAL:
		if (parse_seconds(arg, 0, SCAN_INTERVAL_MAX_S, &d) != 0)
			goto bad;
		fx_conf.scan_interval_s = d;
		return 0;
	case OPT_TABLE_FULL:
		if (strcmp(arg, "drop") == 0)
			fx_conf.full_policy = FX_FULL_DROP;
		else if (strcmp(arg, "forward") == 0)
			fx_conf.full_policy = FX_FULL_FORWARD;
		else if (strcmp(arg, "evict") == 0)
			fx_conf.full_policy = FX_FULL_EVICT;
		else
			goto bad;
		return 0;
	case OPT_AFFINITY:
		if (strcmp(arg, "auto") == 0)
			fx_conf.affinity = FX_AFFINITY_AUTO;
		else if (strcmp(arg, "rss") == 0)
			fx_conf.affinity = FX_AFFINITY_RSS;
		else if (strcmp(arg, "handoff") == 0)
			fx_conf.affinity = FX_AFFINITY_HANDOFF;
		else
			goto bad;
		return 0;
	case OPT_ROUTE:
		if (fx_conf.nb_routes == FX_MAX_ROUTES) {
			cli_err("--route: more than %u routes", FX_MAX_ROUTES);
			return -1;
		}
		if (fx_route_parse(arg, &fx_conf.routes[fx_conf.nb_routes], true,
				   err, sizeof(err)) != 0) {
			cli_err("--route: %s", err);
			return -1;
		}
		fx_conf.nb_routes++;
		return 0;
	case OPT_STATS_FILE:
		if (*arg == '\0')
			goto bad;
		fx_conf.stats_file = arg;
		return check_stats_file(arg);
	case OPT_EXIT_DRAINED:
		fx_conf.exit_when_drained = true;
		return 0;
	case OPT_BENCH:
		fx_conf.bench = true;
		return 0;
	case OPT_HASH_SECRET:
		if (parse_secret(arg, fx_conf.hash_secret) != 0)
			goto bad;
		fx_conf.hash_secret_given = true;
		return 0;
	case OPT_CLOCK:
		if (strcmp(arg, "tsc") == 0)
			fx_conf.clock = FX_CLOCK_TSC;
		else if (strcmp(arg, "pcap") == 0)
			fx_conf.clock = FX_CLOCK_PCAP;
		else
			goto bad;
		return 0;
	case OPT_NAT_POOL:
	case OPT_NAT_INSIDE:
	case OPT_NAT_PORTS:
		if ((opt == OPT_NAT_POOL ? nat_conf_add_pool :
		     opt == OPT_NAT_INSIDE ? nat_conf_add_inside :
		     nat_conf_ports)(&fx_nat_conf, arg, err, sizeof(err)) != 0) {
			/* the option's name, where the parser's message lacks it */
			if (strncmp(err, "--", 2) == 0)
				cli_err("%s", err);
			else
				cli_err("--%s: %s", opt_name(opt), err);
			return -1;
		}
		return 0;
	case OPT_NAT_OUTSIDE:
		if (nat_conf_add_outside(&fx_nat_conf, arg, err, sizeof(err)) != 0) {
			cli_err("%s", err);
			return -1;
		}
		return 0;
	case OPT_NAT_MAX_HOST:
	case OPT_NAT_MAX_DEST:
		if (nat_conf_quota(&fx_nat_conf, arg, opt == OPT_NAT_MAX_DEST, err,
				   sizeof(err)) != 0) {
			cli_err("%s", err);
			return -1;
		}
		return 0;
	case OPT_NAT_MAPPING:
	case OPT_NAT_FILTERING:
		if (nat_conf_behaviour(&fx_nat_conf, arg, opt == OPT_NAT_FILTERING,
				       err, sizeof(err)) != 0) {
			cli_err("%s", err);
			return -1;
		}
		return 0;
	case OPT_NAT_PORT_BLOCK:
	case OPT_NAT_MAX_BLOCKS:
		if (nat_conf_blocks(&fx_nat_conf, arg, opt == OPT_NAT_MAX_BLOCKS, err,
				    sizeof(err)) != 0) {
			cli_err("%s", err);
			return -1;
		}
		return 0;
	case OPT_NAT_LOG:
	case OPT_NAT_LOG_RING:
		if ((opt == OPT_NAT_LOG ? fx_nat_log_parse : fx_nat_log_parse_ring)(arg,
		    err, sizeof(err)) != 0) {
			cli_err("%s", err);
			return -1;
		}
		return 0;
	case OPT_MAX_FLOWS_HOST:
		if (parse_uint(arg, 10, 0, FX_MAX_FLOWS_MAX, &v) != 0)
			goto bad;
		fx_conf.max_flows_per_host = (uint32_t)v;
		return 0;
	case OPT_MAX_PKT_LEN:
		if (parse_uint(arg, 10, MAX_PKT_LEN_MIN, MAX_PKT_LEN_MAX, &v) != 0) {
			cli_err("--max-pkt-len '%s': expected a frame length %u..%u", arg,
			        MAX_PKT_LEN_MIN, MAX_PKT_LEN_MAX);
			return -1;
		}
		fx_conf.max_pkt_len = (uint32_t)v;
		return 0;
	case OPT_NAT_HOLDDOWN:
		if (parse_seconds(arg, 0, TIMEOUT_MAX_S, &d) != 0)
			goto bad;
		fx_nat_conf.holddown_s = d;
		fx_nat_conf.holddown_given = true;
		return 0;
	case OPT_DURATION:
		if (parse_seconds(arg, 0.001, TIMEOUT_MAX_S, &d) != 0)
			goto bad;
		fx_conf.duration_s = d;
		return 0;
	default:
		if (opt >= OPT_TIMEOUT && opt < OPT_TIMEOUT + FX_TMO_MAX) {
			if (parse_seconds(arg, 0.001, TIMEOUT_MAX_S, &d) != 0)
				goto bad;
			fx_conf.timeout_s[opt - OPT_TIMEOUT] = d;
			return 0;
		}
		return -1;
	}
bad:
	if (opt < 256)
		cli_err("invalid value '%s' for -%c", arg, opt);
	else
		cli_err("invalid value '%s' for --%s", arg, opt_name(opt));
	return -1;
}

/* the application's arguments: what follows the first "--" */
static int
app_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
	return argc;
}

/* EAL's own --help or -h before "--": rte_eal_init() prints EAL's usage */
static bool
eal_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/* getopt over a copy: argv stays as EAL is to see it */
static int
copy_args(int argc, char **argv, int first, char **out, int max)
{
	int n = 0, i;

	out[n++] = argv[0];
	for (i = first; i < argc && n < max - 1; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

#define ARGS_MAX 4096

/* --help anywhere among the application's options, whatever else is wrong */
static bool
want_help(int argc, char **argv)
{
	int opt, idx;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:PT:", lgopts, &idx)) != EOF)
		if (opt == OPT_HELP)
			return true;
	return false;
}

/* what getopt found wrong with argv[optind - 1] */
static void
getopt_error(int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		cli_err("option '%s' needs a value", arg);
	else if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2) != 0)
		cli_err("unknown option '-%c'", optopt);
	else if (optopt >= 256)
		cli_err("option '%s' takes no value", arg);
	else
		cli_err("unknown option '%s'", arg);
}

int
fx_parse_args(int argc, char **argv)
{
	static char *args[ARGS_MAX];
	const char *prgname = argv[0];
	int opt, idx, n;

	defaults();
	if (eal_help(argc, argv))
		return 2;
	n = copy_args(argc, argv, app_args(argc, argv), args, ARGS_MAX);
	if (want_help(n, args)) {
		fx_usage(prgname);
		return 1;
	}
	n = copy_args(argc, argv, app_args(argc, argv), args, ARGS_MAX);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(n, args, ":p:PT:", lgopts, &idx)) != EOF) {
		if (opt == '?' || opt == ':') {
			getopt_error(opt, args);
			return cli_report();
		}
		if (opt >= OPT_PORT_ADDR && opt <= OPT_ICMP_RATE) {
			if (parse_neigh(opt, lgopts[idx].name, optarg) != 0)
				return cli_report();
			continue;
		}
		if (parse_one(opt, optarg) != 0)
			return cli_report();
	}
	if (optind < n) {
		cli_err("unexpected argument '%s'", args[optind]);
		return cli_report();
	}
	if (fx_conf.portmask == 0) {
		cli_err("-p PORTMASK is required");
		return cli_report();
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

int
fx_check_args(void)
{
	char err[160];

	if (fx_conf.nb_lcore_params == 0 && default_config() != 0)
		return cli_report();
	if (fx_conf.nb_routes == 0)
		fx_route_defaults(&fx_conf);
	if (check_config() != 0)
		return cli_report();
	if (nat_conf_check(&fx_nat_conf, nb_workers(), err, sizeof(err)) != 0) {
		cli_err("%s", err);
		return cli_report();
	}
	return 0;
}
