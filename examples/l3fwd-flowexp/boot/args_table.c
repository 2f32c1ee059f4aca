/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The option table (boot/args_table.h, its rows boot/args_opt.h) and the parsers of the structured
 * values, the ones no kind of row describes: --config, --eth-dest,
 * --route, --stats-file, --hash-secret, and the address, neighbour and
 * NAT options whose parsers live with what they configure (l3/neigh_conf.h,
 * nat/conf.h, nat/log/export.h).
 *
 * l3fwd's options keep their meaning (-p, -P, --config, --lookup,
 * --eth-dest, --rx-queue-size, --tx-queue-size, --parse-ptype,
 * --relax-rx-offload, --max-pkt-len), -T is l2fwd's statistics period,
 * and the rest set up flow tracking, the gateway's addresses and
 * masquerade. The defaults are set by fx_args_defaults() before anything
 * is parsed; --help shows each from the value it left.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ether.h>

#include "base/config.h"
#include "base/timeouts.h"
#include "boot/args_opt.h"
#include "boot/args_table.h"
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
#define STATS_PERIOD_MAX 86400u
#define HASH_SECRET_DIGITS 32

/* ---- --config ---- */

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

/* one "(port,queue,lcore)" at p, spaces allowed inside; what follows it,
 * or NULL with the error said */
static const char *
config_tuple(const char *p, unsigned long v[3])
{
	static const char *const what[3] = { "port", "queue", "lcore" };
	static const unsigned long max[3] = {
		RTE_MAX_ETHPORTS - 1, RXQ_MAX_PER_PORT - 1, RTE_MAX_LCORE - 1 };
	const char *t = p, *q;
	unsigned int i;

	if (*p != '(') {
		fx_args_err("--config: expected '(' at '%s'", p);
		return NULL;
	}
	p++;
	for (i = 0; i < 3; i++) {
		p = skip_space(p);
		q = config_number(p, max[i], &v[i]);
		if (q == NULL) {
			fx_args_err("--config: tuple starting '%.24s': %s must be a number "
				    "0..%lu (decimal or 0x hexadecimal)", t, what[i], max[i]);
			return NULL;
		}
		p = skip_space(q);
		if (*p != (i < 2 ? ',' : ')')) {
			fx_args_err("--config: tuple starting '%.24s': expected '%c' after the %s, "
				    "a tuple is (port,queue,lcore)", t, i < 2 ? ',' : ')', what[i]);
			return NULL;
		}
		p++;
	}
	return p;
}

/* the tuple v added, unless its (port, queue) is there already; 0 or -1 */
static int
config_add(const unsigned long v[3])
{
	struct fx_lcore_params *lp;
	unsigned int k;

	for (k = 0; k < fx_conf.nb_lcore_params; k++) {
		lp = &fx_conf.lcore_params[k];
		if (lp->port_id == v[0] && lp->queue_id == v[1]) {
			fx_args_err("--config: (%lu,%lu,%lu): port %lu queue %lu is already given, "
				    "polled by lcore %u; a queue has one lcore", v[0], v[1], v[2],
				    v[0], v[1], lp->lcore_id);
			return -1;
		}
	}
	if (fx_conf.nb_lcore_params == MAX_LCORE_PARAMS) {
		fx_args_err("--config: more than %u tuples", MAX_LCORE_PARAMS);
		return -1;
	}
	lp = &fx_conf.lcore_params[fx_conf.nb_lcore_params++];
	lp->port_id = (uint16_t)v[0];
	lp->queue_id = (uint16_t)v[1];
	lp->lcore_id = (uint32_t)v[2];
	return 0;
}

/*
 * "(port,queue,lcore)[,(port,queue,lcore)]...": spaces allowed around
 * every item, numbers in decimal or 0x hexadecimal (as l3fwd's strtoul).
 * Each (port, queue) at most once. Errors name the tuple.
 */
static int
parse_config(const struct fx_opt *o __rte_unused, const char *s)
{
	const char *p = skip_space(s);
	unsigned long v[3];

	fx_conf.nb_lcore_params = 0;
	if (*p == '\0') {
		fx_args_err("--config: empty");
		return -1;
	}
	while (*p != '\0') {
		p = config_tuple(p, v);
		if (p == NULL || config_add(v) != 0)
			return -1;
		p = skip_space(p);
		if (*p == ',') {
			p = skip_space(p + 1);
			if (*p == '\0') {
				fx_args_err("--config: a tuple must follow the last ','");
				return -1;
			}
		} else if (*p != '\0') {
			fx_args_err("--config: after (%lu,%lu,%lu): expected ',' or the end "
				    "at '%s'", v[0], v[1], v[2], p);
			return -1;
		}
	}
	return 0;
}

/* ---- the other structured values ---- */

/* --eth-dest PORT,MAC */
static int
parse_eth_dest(const struct fx_opt *o __rte_unused, const char *s)
{
	struct rte_ether_addr mac;
	unsigned long port;
	char buf[32], *comma = NULL, *end;

	if (strlen(s) < sizeof(buf)) {
		strcpy(buf, s);
		comma = strchr(buf, ',');
	}
	if (comma == NULL) {
		fx_args_err("--eth-dest: '%.40s': expected PORT,MAC (e.g. 0,02:00:00:00:00:01)", s);
		return -1;
	}
	*comma = '\0';
	errno = 0;
	port = strtoul(buf, &end, 10);
	if (buf[0] < '0' || buf[0] > '9' || *end != '\0' || errno != 0 ||
	    port >= RTE_MAX_ETHPORTS) {
		fx_args_err("--eth-dest: '%s': the port is a number 0..%u", s,
			    RTE_MAX_ETHPORTS - 1);
		return -1;
	}
	if (rte_ether_unformat_addr(comma + 1, &mac) != 0) {
		fx_args_err("--eth-dest: '%s': '%s' is not a MAC address", s, comma + 1);
		return -1;
	}
	fx_conf.eth_dest[port] = mac;
	if (port < FX_MAX_PORTS)
		fx_conf.eth_dest_given |= UINT32_C(1) << port;
	return 0;
}

static int
parse_route(const struct fx_opt *o __rte_unused, const char *s)
{
	char err[256];

	if (fx_conf.nb_routes == FX_MAX_ROUTES) {
		fx_args_err("--route: more than %u routes", FX_MAX_ROUTES);
		return -1;
	}
	if (fx_route_parse(s, &fx_conf.routes[fx_conf.nb_routes], true,
			   err, sizeof(err)) != 0) {
		fx_args_err("--route: %s", err);
		return -1;
	}
	fx_conf.nb_routes++;
	return 0;
}

/* --stats-file: written at exit as PATH.tmp, then renamed; both are tried
 * now, so that a run does not lose its statistics at the end */
static int
parse_stats_file(const struct fx_opt *o __rte_unused, const char *path)
{
	char tmp[4096];
	struct stat st;
	FILE *f;

	if (*path == '\0') {
		fx_args_err("--stats-file: the path is empty");
		return -1;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fx_args_err("--stats-file: the path is too long");
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fx_args_err("--stats-file %s: is a directory", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (f == NULL) {
		fx_args_err("--stats-file %s: cannot write %s: %s", path, tmp, strerror(errno));
		return -1;
	}
	fclose(f);
	unlink(tmp);
	fx_conf.stats_file = path;
	return 0;
}

/* --hash-secret: 32 hex digits, two 64-bit words, the first one first */
static int
parse_hash_secret(const struct fx_opt *o __rte_unused, const char *s)
{
	uint64_t k[2] = { 0, 0 };
	unsigned int i, d;
	char c;

	for (i = 0; i < HASH_SECRET_DIGITS && s[i] != '\0'; i++) {
		c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			break;
		k[i / 16] = (k[i / 16] << 4) | d;
	}
	if (i != HASH_SECRET_DIGITS || s[i] != '\0') {
		fx_args_err("--hash-secret: '%.40s' is not %u hexadecimal digits", s,
			    HASH_SECRET_DIGITS);
		return -1;
	}
	fx_conf.hash_secret[0] = k[0];
	fx_conf.hash_secret[1] = k[1];
	fx_conf.hash_secret_given = true;
	return 0;
}

/* ---- the parsers of l3/ and nat/: their message, named ---- */

/* rc, err: what a parser of l3/ or nat/ returned; its message is said
 * with the option's name in front where it lacks one */
static int
conf_parsed(const struct fx_opt *o, int rc, const char *err)
{
	char label[FX_OPT_LABEL_MAX];

	if (rc == 0)
		return 0;
	if (strncmp(err, "--", 2) == 0)
		fx_args_err("%s", err);
	else
		fx_args_err("%s: %s", fx_opt_label(o, label, sizeof(label)), err);
	return -1;
}

#define CONF_PARSER(fn, call) \
static int \
fn(const struct fx_opt *o, const char *arg) \
{ \
	char err[256] = ""; \
	return conf_parsed(o, call, err); \
}

CONF_PARSER(parse_port_addr, neigh_conf_port_addr(&fx_neigh_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_neigh, neigh_conf_static(&fx_neigh_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_icmp_rate, neigh_conf_icmp_rate(&fx_neigh_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_nat_pool, nat_conf_add_pool(&fx_nat_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_nat_inside, nat_conf_add_inside(&fx_nat_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_nat_ports, nat_conf_ports(&fx_nat_conf, arg, err, sizeof(err)))
CONF_PARSER(parse_nat_log, fx_nat_log_parse(arg, err, sizeof(err)))
#undef CONF_PARSER

/* the defaults of the structured values that have one in numbers */
static void
show_icmp_rate(char *buf, size_t len)
{
	snprintf(buf, len, "%u,%u", fx_neigh_conf.icmp_rate, fx_neigh_conf.icmp_burst);
}

static void
show_nat_ports(char *buf, size_t len)
{
	snprintf(buf, len, "%u-%u", fx_nat_conf.port_lo, fx_nat_conf.port_hi);
}

/* ---- the table ---- */

static const struct fx_choice lookups[] = {
	{ "lpm", FX_LOOKUP_LPM }, { "em", FX_LOOKUP_EM }, { NULL, 0 } };
static const struct fx_choice expiries[] = {
	{ "twheel", FX_EXPIRY_TWHEEL }, { "rte_timer", FX_EXPIRY_TIMER },
	{ "scan", FX_EXPIRY_SCAN }, { "none", FX_EXPIRY_NONE }, { NULL, 0 } };
static const struct fx_choice full_policies[] = {
	{ "drop", FX_FULL_DROP }, { "forward", FX_FULL_FORWARD },
	{ "evict", FX_FULL_EVICT }, { NULL, 0 } };
static const struct fx_choice affinities[] = {
	{ "rss", FX_AFFINITY_RSS }, { "handoff", FX_AFFINITY_HANDOFF },
	{ "auto", FX_AFFINITY_AUTO }, { NULL, 0 } };
static const struct fx_choice clocks[] = {
	{ "tsc", FX_CLOCK_TSC }, { "pcap", FX_CLOCK_PCAP }, { NULL, 0 } };
static const struct fx_choice nat_steers[] = {
	{ "on", NAT_STEER_ON }, { "off", NAT_STEER_OFF }, { NULL, 0 } };
static const struct fx_choice nat_mappings[] = {
	{ "edm", NAT_MAP_EDM }, { "eim", NAT_MAP_EIM }, { NULL, 0 } };
static const struct fx_choice nat_filters[] = {
	{ "apdf", NAT_FILTER_APDF }, { "adf", NAT_FILTER_ADF },
	{ "eif", NAT_FILTER_EIF }, { NULL, 0 } };

/* what each timeout class's option is for, by enum fx_tmo */
#define TMO_HELP_ONEWAY "flows seen one way only, TCP without a SYN too"
#define TMO_HELP_TCP_SYN "TCP opened by a SYN, no answer yet (SYN_SENT; conntrack's default)"
#define TMO_HELP_TCP "TCP established (RFC 5382's default)"
#define TMO_HELP_TCP_CLOSE "TCP after a FIN (RFC 5382's default); a SYN on a closing " \
	"or closed TCP flow starts a fresh one"
#define TMO_HELP_TCP_RST "TCP after an RST (conntrack's default)"
#define TMO_HELP_UDP "UDP flows, both directions seen"
#define TMO_HELP_ICMP "ICMP flows, both directions seen"
#define TMO_HELP_OTHER "flows of other protocols, both directions seen"

#define NEIGH_MS(n, field, h) { .kind = FX_OPT_UINT, .name = n, .metavar = "MS", \
	.min = 1, .max = FX_NEIGH_MS_MAX, FX_DST(fx_neigh_conf.field), .help = h }

const struct fx_opt fx_opts[] = {
	{ .kind = FX_OPT_TOPIC, .help = "Ports and queues, as l3fwd's:" },
	{ .kind = FX_OPT_UINT, .letter = 'p', .metavar = "PORTMASK", .base = 16,
	  .min = 1, .max = (1ul << FX_MAX_PORTS) - 1, .required = true,
	  FX_DST(fx_conf.portmask),
	  .help = "hexadecimal bitmask of the ports to use" },
	{ .kind = FX_OPT_FLAG, .letter = 'P', FX_DST(fx_conf.promiscuous),
	  .help = "promiscuous mode on every port" },
	{ .kind = FX_OPT_CUSTOM, .name = "config",
	  .metavar = "(port,queue,lcore)[,(port,queue,lcore)]", .parse = parse_config,
	  .dflt = "queue 0 of every port on the first worker lcore",
	  .help = "rx queues and the worker lcore polling each: spaces allowed, numbers in "
		  "decimal or 0x hexadecimal, each (port,queue) once, a port's queues 0..n-1. "
		  "The main lcore runs statistics and the control path and may not be given "
		  "here" },
	{ .kind = FX_OPT_CHOICE, .name = "lookup", .choices = lookups,
	  FX_DST(fx_conf.lookup),
	  .help = "route lookup: lpm, longest prefix, or em, exact match (host routes)" },
	{ .kind = FX_OPT_CUSTOM, .name = "eth-dest", .metavar = "X,MM:MM:MM:MM:MM:MM",
	  .parse = parse_eth_dest, .repeat = true, .dflt = "02:00:00:00:00:X",
	  .help = "destination MAC of packets leaving port X; on a port with --port-addr "
		  "nothing is resolved then. Start-up warns about a port of -p with "
		  "neither" },
	{ .kind = FX_OPT_UINT, .name = "rx-queue-size", .metavar = "NPKTS",
	  .min = 1, .max = RING_SIZE_MAX, FX_DST(fx_conf.nb_rxd),
	  .help = "descriptors per rx queue" },
	{ .kind = FX_OPT_UINT, .name = "tx-queue-size", .metavar = "NPKTS",
	  .min = 1, .max = RING_SIZE_MAX, FX_DST(fx_conf.nb_txd),
	  .help = "descriptors per tx queue" },
	{ .kind = FX_OPT_FLAG, .name = "parse-ptype",
	  .help = "accepted for l3fwd command lines, no effect: the example reads the "
		  "EtherType and VLAN tags from every frame, whatever the NIC reports" },
	{ .kind = FX_OPT_FLAG, .name = "relax-rx-offload", FX_DST(fx_conf.relax_rx_offload),
	  .help = "mask rx offloads the port cannot do (virtual devices)" },
	{ .kind = FX_OPT_UINT, .name = "max-pkt-len", .metavar = "LEN",
	  .min = MAX_PKT_LEN_MIN, .max = MAX_PKT_LEN_MAX, FX_DST(fx_conf.max_pkt_len),
	  .dflt = "the ports' own MTU",
	  .help = "the largest frame, Ethernet header and CRC included, as l3fwd's: mbufs "
		  "and port MTU sized for it, longer frames dropped (counted oversized)" },

	{ .kind = FX_OPT_TOPIC, .help = "Routes, addresses and neighbours (doc/neighbours.md):" },
	{ .kind = FX_OPT_CUSTOM, .name = "route", .metavar = "PREFIX/LEN,PORT[,NEXTHOP]",
	  .parse = parse_route, .repeat = true,
	  .dflt = "198.18.P.0/24 and 2001:200:0:P::/64 -> P for every port P",
	  .help = "a route; the routes given replace the defaults. NEXTHOP, on a connected "
		  "subnet of PORT, is resolved by ARP / ND; without it the prefix is "
		  "on-link. /0 is the default route" },
	{ .kind = FX_OPT_CUSTOM, .name = "port-addr", .metavar = "PORT,ADDR/LEN",
	  .parse = parse_port_addr, .repeat = true,
	  .help = "an address of PORT and its connected subnet (IPv4 and IPv6). The port "
		  "answers ARP, neighbour solicitations and ping for it, resolves its next "
		  "hops and on-link destinations by ARP / ND (unless --eth-dest names it), "
		  "drops what no route covers, and answers TTL expiry with ICMP time "
		  "exceeded; with NAT an outside port answers ARP for the pool" },
	{ .kind = FX_OPT_CUSTOM, .name = "neigh", .metavar = "PORT,ADDR,MAC",
	  .parse = parse_neigh, .repeat = true,
	  .help = "a permanent neighbour (never aged or probed)" },
	NEIGH_MS("neigh-reachable-ms", reachable_ms,
		 "base reachable time, randomised x0.5..1.5"),
	NEIGH_MS("neigh-retrans-ms", retrans_ms, "between two probes"),
	NEIGH_MS("neigh-delay-ms", delay_ms, "a stale neighbour in use is probed after"),
	NEIGH_MS("neigh-stale-ms", stale_ms,
		 "an unused stale or failed neighbour is removed after"),
	{ .kind = FX_OPT_UINT, .name = "neigh-probes", .metavar = "N",
	  .min = 1, .max = FX_NEIGH_PROBES_MAX, FX_DST(fx_neigh_conf.probes),
	  .help = "requests before a neighbour fails" },
	{ .kind = FX_OPT_CUSTOM, .name = "icmp-rate", .metavar = "RATE[,BURST]",
	  .parse = parse_icmp_rate, .show = show_icmp_rate,
	  .help = "echo replies and, separately, time-exceeded messages per second at most, "
		  "with bursts of BURST" },

	{ .kind = FX_OPT_TOPIC, .help = "Flow tracking:" },
	{ .kind = FX_OPT_CHOICE, .name = "expiry", .choices = expiries,
	  FX_DST(fx_conf.expiry),
	  .help = "how flows expire: a timer wheel, one rte_timer per flow or a scan of "
		  "the table; none: no flow tracking (plain l3fwd)" },
	{ .kind = FX_OPT_UINT, .name = "max-flows", .metavar = "N",
	  .min = FX_MAX_FLOWS_MIN, .max = FX_MAX_FLOWS_MAX, FX_DST(fx_conf.max_flows),
	  .help = "flows per lcore" },
	{ .kind = FX_OPT_UINT, .name = "max-flows-per-host", .metavar = "N",
	  .min = 0, .max = FX_MAX_FLOWS_MAX, FX_DST(fx_conf.max_flows_per_host),
	  .zero = "no limit",
	  .help = "flows one host (IPv4 address, IPv6 /64) may open on one lcore; a new "
		  "flow over it is handled as on a full table, never evicting" },
	{ .kind = FX_OPT_UINT, .name = "expire-budget", .metavar = "N",
	  .min = 1, .max = FX_EXPIRE_BUDGET_MAX, FX_DST(fx_conf.expire_budget),
	  .help = "expiry work per loop iteration" },
	{ .kind = FX_OPT_UINT, .name = "tick-us", .metavar = "US",
	  .min = TICK_US_MIN, .max = TICK_US_MAX, FX_DST(fx_conf.tick_us),
	  .help = "wheel tick, microseconds" },
	{ .kind = FX_OPT_SECONDS, .name = "scan-interval", .metavar = "S",
	  .min_s = 0, .max_s = SCAN_INTERVAL_MAX_S, FX_DST(fx_conf.scan_interval_s),
	  .zero = "--expire-budget slots every iteration, however often that is",
	  .help = "--expiry scan makes one full pass of the table every S seconds, at most "
		  "--expire-budget slots per loop iteration" },
#define FX_TMO_ROW(e, n, o, d) \
	{ .kind = FX_OPT_SECONDS, .name = o, .metavar = "S", \
	  .min_s = 0.001, .max_s = TIMEOUT_MAX_S, FX_DST(fx_conf.timeout_s[FX_TMO_ ## e]), \
	  .help = TMO_HELP_ ## e },
	FX_TMOS(FX_TMO_ROW)
#undef FX_TMO_ROW
	{ .kind = FX_OPT_CHOICE, .name = "table-full", .choices = full_policies,
	  FX_DST(fx_conf.full_policy),
	  .help = "a new flow that finds the table full: drop its packet, forward it "
		  "without state, or evict the lcore's oldest unanswered flow (bounded "
		  "work per insert) to make room" },
	{ .kind = FX_OPT_CHOICE, .name = "affinity", .choices = affinities,
	  FX_DST(fx_conf.affinity),
	  .help = "how both directions of a flow reach one lcore: rss (symmetric RSS and "
		  "redirection tables, verified at start-up, or stop), handoff (workers "
		  "pass packets to the flow's owner over rings), auto (rss where verified, "
		  "else handoff)" },
	{ .kind = FX_OPT_CHOICE, .name = "clock", .choices = clocks, FX_DST(fx_conf.clock),
	  .help = "where time comes from: tsc, the CPU's counter, or pcap: each packet's "
		  "capture time (net_pcap), everything due by then expires first, and "
		  "100 ms without a packet ends every timeout (needs --expiry twheel or "
		  "none)" },
	{ .kind = FX_OPT_CUSTOM, .name = "hash-secret", .metavar = "HEX",
	  .parse = parse_hash_secret, .dflt = "drawn at start-up from getrandom",
	  .help = "32 hex digits: the tables' hash secret and the seed of the random "
		  "draws (NAT ports), for tests and benchmarks that must know where keys "
		  "land or repeat a run; whoever knows the secret can flood the tables "
		  "and guess the ports: never in production" },
	{ .kind = FX_OPT_FLAG, .name = "rss-model", FX_DST(fx_conf.rss_model),
	  .help = "tests and benchmarks on ports without RSS (net_pcap, net_ring): the "
		  "packets were spread over the rx queues by a software model of symmetric "
		  "RSS, Toeplitz with the key 6d5a... (40 bytes) and a redirection table of "
		  "128 entries, entry i to the queues of the (i % workers)-th worker; "
		  "--affinity rss (needed) takes it as a NIC's and programs nothing, and NAT "
		  "steers replies by it (doc/nat.md). Never in production" },

	{ .kind = FX_OPT_TOPIC, .help = "Masquerade NAT (doc/nat.md):" },
	{ .kind = FX_OPT_CUSTOM, .name = "nat-pool", .metavar = "A.B.C.D/LEN",
	  .parse = parse_nat_pool, .repeat = true,
	  .help = "public addresses; turns masquerade on" },
	{ .kind = FX_OPT_CUSTOM, .name = "nat-inside", .metavar = "A.B.C.D/LEN",
	  .parse = parse_nat_inside, .repeat = true,
	  .help = "inside hosts: their packets to a destination outside the pool are "
		  "translated, packets to the pool back" },
	{ .kind = FX_OPT_CUSTOM, .name = "nat-ports", .metavar = "LO-HI",
	  .parse = parse_nat_ports, .show = show_nat_ports,
	  .help = "public ports, shared out among the workers" },
	{ .kind = FX_OPT_SECONDS, .name = "nat-holddown", .metavar = "S",
	  .min_s = 0, .max_s = TIMEOUT_MAX_S, FX_DST(fx_nat_conf.holddown_s),
	  .given = &fx_nat_conf.holddown_given,
	  .help = "an expired mapping's public tuple is not handed out again for S "
		  "seconds; mappings time out as flows (--timeout-*)" },
	{ .kind = FX_OPT_BIT, .name = "nat-outside", .metavar = "PORT", .repeat = true,
	  .min = 0, .max = FX_MAX_PORTS - 1, FX_DST(fx_nat_conf.outside_mask),
	  .help = "a port that faces the internet; the other ports of -p are inside. "
		  "Needed when NAT runs on more than one port: packets are then checked "
		  "against their receive port (doc/nat.md)" },
	{ .kind = FX_OPT_UINT, .name = "nat-max-per-host", .metavar = "N",
	  .min = 0, .max = NAT_MAX_PER_HOST_MAX, FX_DST(fx_nat_conf.max_per_host),
	  .given = &fx_nat_conf.quota_given, .zero = "no limit",
	  .help = "mappings (live and held) one inside host may hold on one worker" },
	{ .kind = FX_OPT_UINT, .name = "nat-max-per-dest", .metavar = "N",
	  .min = 0, .max = NAT_MAX_PER_HOST_MAX, FX_DST(fx_nat_conf.max_per_dest),
	  .given = &fx_nat_conf.quota_given, .zero = "no limit",
	  .dflt = "a quarter of the worker's port share",
	  .help = "mappings one inside host may hold towards one remote address, port "
		  "and protocol on one worker" },
	{ .kind = FX_OPT_CHOICE, .name = "nat-steer", .choices = nat_steers,
	  FX_DST(fx_nat_conf.steer),
	  .help = "under --affinity rss, choose each new TCP and UDP mapping's public port "
		  "among those whose reply the NIC's RSS sends to the mapping's worker, so "
		  "that no reply is handed off; the choice keeps log2(ports / workers^2) "
		  "bits of entropy with a queue per worker (doc/nat.md)" },
	{ .kind = FX_OPT_CHOICE, .name = "nat-mapping", .choices = nat_mappings,
	  FX_DST(fx_nat_conf.mapping),
	  .help = "endpoint-dependent mappings with overlapped ports (edm) or one public "
		  "endpoint per inside endpoint towards every remote (eim)" },
	{ .kind = FX_OPT_CHOICE, .name = "nat-filtering", .choices = nat_filters,
	  FX_DST(fx_nat_conf.filtering),
	  .help = "inbound packets reach a mapping from the exact remote endpoint (apdf), "
		  "a remote address it sent to (adf), or anyone (eif); adf and eif need "
		  "--nat-mapping eim" },
	{ .kind = FX_OPT_UINT, .name = "nat-port-block", .metavar = "N",
	  .min = 0, .max = NAT_BLOCK_SIZE_MAX, FX_DST(fx_nat_conf.port_block),
	  .zero = "no blocks, per-mapping ports and events",
	  .help = "each inside host takes its ports from blocks of N ports of the worker's "
		  "share it owns (every protocol; under eim its bindings' ports), allocated "
		  "and released as its mappings need them and logged once each" },
	{ .kind = FX_OPT_UINT, .name = "nat-max-blocks-per-host", .metavar = "M",
	  .min = 0, .max = NAT_BLOCKS_PER_HOST_MAX, FX_DST(fx_nat_conf.max_blocks_per_host),
	  .given = &fx_nat_conf.max_blocks_given, .zero = "no limit",
	  .help = "blocks one inside host may hold on one worker" },
	{ .kind = FX_OPT_CUSTOM, .name = "nat-log", .metavar = "ipfix:ADDR:PORT[,domain=N]",
	  .parse = parse_nat_log,
	  .help = "export NAT events (mapping made, public tuple free again, mapping "
		  "refused) as IPFIX over UDP to the collector at ADDR:PORT, observation "
		  "domain N (default 1)" },
	{ .kind = FX_OPT_UINT, .name = "nat-log-ring", .metavar = "N",
	  .min = NAT_LOG_RING_MIN, .max = NAT_LOG_RING_MAX, FX_DST(fx_nat_log_conf.ring),
	  .help = "events each worker may queue for the exporter; an event that finds its "
		  "ring full is dropped, counted" },

	{ .kind = FX_OPT_TOPIC, .help = "Running and statistics:" },
	{ .kind = FX_OPT_UINT, .letter = 'T', .metavar = "SECONDS",
	  .min = 0, .max = STATS_PERIOD_MAX, FX_DST(fx_conf.stats_period), .zero = "off",
	  .help = "statistics table period" },
	{ .kind = FX_OPT_CUSTOM, .name = "stats-file", .metavar = "PATH",
	  .parse = parse_stats_file,
	  .help = "write the final statistics as JSON at exit" },
	{ .kind = FX_OPT_FLAG, .name = "exit-when-drained", FX_DST(fx_conf.exit_when_drained),
	  .help = "stop once traffic was seen, none arrived for 100 ms and no flow is left" },
	{ .kind = FX_OPT_SECONDS, .name = "duration", .metavar = "SECONDS",
	  .min_s = 0.001, .max_s = TIMEOUT_MAX_S, FX_DST(fx_conf.duration_s),
	  .dflt = "until SIGINT or SIGTERM",
	  .help = "stop after this long" },
	{ .kind = FX_OPT_FLAG, .name = "bench", FX_DST(fx_conf.bench),
	  .help = "benchmark-only controls: telemetry /l3fwd_flowexp/hold,MS stops expiry "
		  "for up to 10 minutes. Off by default; never in production" },
	{ .kind = FX_OPT_HELP, .name = "version",
	  .help = "twheel's version, and DPDK's as built against and as running; "
		  "then exit. Anywhere on the command line, with no other option needed" },
	{ .kind = FX_OPT_HELP, .name = "help", .help = "this text" },
};

const unsigned int fx_nb_opts = RTE_DIM(fx_opts);
_Static_assert(RTE_DIM(fx_opts) <= FX_OPTS_MAX,
	       "FX_OPTS_MAX: more rows than the getopt array holds");

/* ---- defaults ---- */

void
fx_args_defaults(void)
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
