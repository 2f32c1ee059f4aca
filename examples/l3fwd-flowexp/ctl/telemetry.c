/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Telemetry commands (read with usertools' dpdk-telemetry.py, any client
 * of /var/run/dpdk/<file-prefix>/dpdk_telemetry.v2, or DPDK's exporter
 * with share/dpdk/telemetry-endpoints/twheel.py):
 *
 *   /l3fwd_flowexp/stats                    every statistic (ctl/stats.c), as
 *                                           the --stats-file; the lcore_N
 *                                           objects left out, and said so,
 *                                           when they do not fit in a reply
 *   /l3fwd_flowexp/lcores                   the worker lcore ids
 *   /l3fwd_flowexp/lcore,N                  worker N's counters and gauges
 *   /l3fwd_flowexp/ports                    the port ids
 *   /l3fwd_flowexp/port,N                   port N's counters
 *   /l3fwd_flowexp/nat                      masquerade: totals and per
 *                                           lcore, as /stats (with --nat-pool)
 *   /l3fwd_flowexp/nat,N                    worker N's masquerade counters
 *   /l3fwd_flowexp/nat_log                  the NAT event log: collector,
 *                                           totals, per lcore (--nat-log)
 *   /l3fwd_flowexp/maxima                   the maxima over all workers
 *   /l3fwd_flowexp/maxima,N                 worker N's maxima
 *   /l3fwd_flowexp/reset                    zero the maxima and lag figures
 *   /l3fwd_flowexp/hold,MS                  no expiry for MS ms (only with --bench)
 *   /l3fwd_flowexp/flush,PREFIX             invalidate the flows in PREFIX
 *   /l3fwd_flowexp/route_add,PREFIX,PORT[,NEXTHOP]
 *                                           add or replace a route, flush PREFIX
 *   /l3fwd_flowexp/route_del,PREFIX         delete a route, flush PREFIX
 *   /l3fwd_flowexp/routes                   the route list
 *   /l3fwd_flowexp/neigh                    neighbours, ARP, ND and ICMP:
 *                                           the counters over the ports
 *                                           and each port's entries by
 *                                           state (with --port-addr)
 *   /l3fwd_flowexp/neigh,PORT[,FROM]        port PORT's counters and up to
 *                                           64 of its entries from the
 *                                           FROM-th (default 0), each
 *                                           entry_N: "ADDRESS state MAC
 *                                           kind ...", with how many
 *                                           there are
 *
 * What the figures are. Counters only grow and nothing resets them;
 * gauges (active, active_<class>, nat_active, nat_held, nat_ports_*) are
 * values of now; the maxima (lag, sweep, loop, poll_removed, the NAT
 * poll's) are the largest since the last /l3fwd_flowexp/reset, which
 * zeroes them and nothing else. Times are in microseconds with _us in
 * the name, or in TSC cycles with _cycles in the name and tsc_hz in the
 * same reply. The per-instance replies (lcore,N, port,N, nat,N,
 * maxima,N) are one worker's or one port's and fit in a reply at any
 * number of workers; each reply is built by ctl/telemetry_reply.c, which
 * counts its size, so none loses an entry without saying so. A bad
 * parameter (not a number, not a worker lcore or port, a parameter to a
 * command that takes none) gets {"error": ...}.
 *
 * The commands run in the telemetry thread. Reading statistics is safe
 * there while the workers run; at shutdown fx_telemetry_stop() waits for a
 * statistics command in progress and makes later ones fail, before the
 * main lcore frees what they read (the wheels). This lock is between the
 * telemetry thread and the main lcore only; workers never take it.
 * Everything that changes state is handed to the main lcore (ctl/control.c)
 * and the reply waits for its result.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_telemetry.h>

#include "base/compat.h"
#include "base/config.h"
#include "ctl/control.h"
#include "ctl/stats.h"
#include "ctl/telemetry.h"
#include "ctl/telemetry_reply.h"
#include "l3/neigh.h"
#include "l3/route.h"
#include "nat/log/export.h"
#include "nat/nat.h"
#include "worker/lcore.h"

#define CMD(name) "/l3fwd_flowexp/" name

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tel_stopped;

/* what a statistics command emits: one worker's, one port's, or the whole */
struct tel_args {
	const struct fx_lcore *lc;
	unsigned int port;
	const struct fx_ctl_req *neigh;   /* /neigh,PORT: the entries copied */
};

typedef void (*tel_emit_fn)(const struct fx_emitter *e, void *ctx,
			    const struct tel_args *a);

/*
 * A statistics reply: emit it under the lock, unless the example is
 * stopping, with the objects named omit left out if the whole does not fit
 * (see: the command that gives them one by one).
 */
static int
stats_reply(const char *cmd, struct rte_tel_data *d, tel_emit_fn emit,
	    const struct tel_args *a, const char *omit, const char *see)
{
	struct fx_tel_reply *r;

	pthread_mutex_lock(&tel_lock);
	if (tel_stopped) {
		pthread_mutex_unlock(&tel_lock);
		return -ESHUTDOWN;
	}
	r = fx_tel_reply_start(d, cmd);
	if (r == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -ENOMEM;
	}
	emit(&fx_tel_reply_emitter, r, a);
	fx_tel_reply_finish(r, omit, see);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* a command that takes no parameter got one: true, and d says so */
static bool
extra_params(const char *params, struct rte_tel_data *d)
{
	if (params == NULL || params[0] == '\0')
		return false;
	fx_tel_reply_error(d, "takes no parameter (got '%.32s')", params);
	return true;
}

/* params as a decimal number below limit and nothing else; false if not */
static bool
parse_id(const char *params, unsigned long limit, unsigned long *v)
{
	const char *p;
	char *end;

	if (params == NULL || params[0] == '\0' || strlen(params) > 10)
		return false;
	for (p = params; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	*v = strtoul(params, &end, 10);
	return errno == 0 && *end == '\0' && *v < limit;
}

/* the worker of the lcore id in params, or NULL and an error in d */
static const struct fx_lcore *
worker_param(const char *params, struct rte_tel_data *d)
{
	unsigned long id;

	if (params == NULL || params[0] == '\0') {
		fx_tel_reply_error(d, "a worker lcore id is required (see %s)", CMD("lcores"));
		return NULL;
	}
	if (!parse_id(params, RTE_MAX_LCORE, &id) || fx_lcores[id] == NULL) {
		fx_tel_reply_error(d, "'%.32s' is not a worker lcore id (see %s)",
				   params, CMD("lcores"));
		return NULL;
	}
	return fx_lcores[id];
}

/* ---- the emitters of the statistics replies ---- */

static void
emit_all(const struct fx_emitter *e, void *ctx, const struct tel_args *a __rte_unused)
{
	fx_stats_emit(e, ctx);
}

static void
emit_nat_all(const struct fx_emitter *e, void *ctx, const struct tel_args *a __rte_unused)
{
	fx_nat_emit(e, ctx);
}

/* what every per-worker reply starts with */
static void
emit_worker_head(const struct fx_emitter *e, void *ctx, const struct fx_lcore *lc)
{
	e->u64(ctx, "lcore", lc->lcore_id);
	e->u64(ctx, "worker", lc->worker_idx);
	e->u64(ctx, "uptime_ms", fx_cycles_us(rte_rdtsc() - fx_stats_start_tsc) / 1000);
}

static void
emit_lcore(const struct fx_emitter *e, void *ctx, const struct tel_args *a)
{
	emit_worker_head(e, ctx, a->lc);
	e->u64(ctx, "tsc_hz", rte_get_tsc_hz());
	fx_stats_emit_lcore(a->lc, e, ctx, FX_EMIT_COUNTERS);
}

static void
emit_nat_lcore(const struct fx_emitter *e, void *ctx, const struct tel_args *a)
{
	emit_worker_head(e, ctx, a->lc);
	fx_nat_emit_lcore(&a->lc->nat, e, ctx);
}

/* since the last reset request (or the start), and how many there were */
static void
emit_reset_head(const struct fx_emitter *e, void *ctx)
{
	uint64_t n, tsc;

	fx_control_reset_info(&n, &tsc);
	e->u64(ctx, "resets", n);
	e->u64(ctx, "since_reset_us", fx_cycles_us(rte_rdtsc() -
		(n != 0 ? tsc : fx_stats_start_tsc)));
}

static void
emit_maxima(const struct fx_emitter *e, void *ctx, const struct tel_args *a)
{
	if (a->lc != NULL) {
		emit_worker_head(e, ctx, a->lc);
		emit_reset_head(e, ctx);
		fx_stats_emit_lcore(a->lc, e, ctx, FX_EMIT_MAXIMA);
		return;
	}
	e->u64(ctx, "workers", fx_nb_workers);
	emit_reset_head(e, ctx);
	fx_stats_emit_totals(e, ctx, FX_EMIT_MAXIMA);
}

static void
emit_port(const struct fx_emitter *e, void *ctx, const struct tel_args *a)
{
	e->u64(ctx, "port", a->port);
	fx_stats_emit_port(a->port, e, ctx);
}

static void
emit_neigh_all(const struct fx_emitter *e, void *ctx, const struct tel_args *a __rte_unused)
{
	struct fx_neigh_port_stats st;
	char name[48];
	unsigned int p, i;

	/* the totals, then per port its entries by state */
	fx_neigh_emit(e, ctx);
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!fx_l3.local[p])
			continue;
		fx_neigh_port_stats((uint16_t)p, &st);
		snprintf(name, sizeof(name), "port_%u", p);
		e->open(ctx, name);
		for (i = 1; i < FX_NS_MAX; i++) {
			snprintf(name, sizeof(name), "entries_%s", fx_nstate_names[i]);
			e->u64(ctx, name, st.state[i]);
		}
		e->u64(ctx, "held", st.held);
		e->close(ctx);
	}
}

static const char *const kind_names[] = { "on-link", "next-hop", "permanent" };

static void
emit_neigh_port(const struct fx_emitter *e, void *ctx, const struct tel_args *a)
{
	const struct fx_ctl_req *r = a->neigh;
	char addr[INET6_ADDRSTRLEN], text[192], ms[32], mac[RTE_ETHER_ADDR_FMT_SIZE];
	char name[32];
	const struct fx_neigh_snap *n;
	uint32_t i;

	e->u64(ctx, "port", a->port);
	fx_neigh_emit_port((uint16_t)a->port, e, ctx);
	e->u64(ctx, "entries", r->neigh_total);
	e->u64(ctx, "from", r->from);
	e->u64(ctx, "shown", r->nb_neigh);
	e->open(ctx, "neighbours");
	for (i = 0; i < r->nb_neigh; i++) {
		n = &r->neigh[i];
		inet_ntop(n->family == FX_FAMILY_V4 ? AF_INET : AF_INET6, n->addr, addr,
			  sizeof(addr));
		if (n->in_us == UINT64_MAX)
			snprintf(ms, sizeof(ms), "none");
		else
			snprintf(ms, sizeof(ms), "%" PRIu64 "ms", n->in_us / 1000);
		if (n->has_mac)
			snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0],
				 n->mac[1], n->mac[2], n->mac[3], n->mac[4], n->mac[5]);
		else
			snprintf(mac, sizeof(mac), "-");
		snprintf(text, sizeof(text), "%s %s %s %s probes %u held %u next %s since %"
			 PRIu64 "ms", addr, fx_nstate_names[n->state < FX_NS_MAX ? n->state : 0],
			 mac, kind_names[n->kind <= FX_NK_STATIC ? n->kind : 0], n->probes, n->held,
			 ms, n->since_us / 1000);
		/* names are [A-Za-z0-9_]: the address goes in the value */
		snprintf(name, sizeof(name), "entry_%u", r->from + i);
		e->str(ctx, name, text);
	}
	e->close(ctx);
}

/* ---- the commands ---- */

static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };

	if (extra_params(params, d))
		return 0;
	return stats_reply(cmd, d, emit_all, &a, "lcore_", CMD("lcore,N"));
}

static int
cmd_nat(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };

	if (params == NULL || params[0] == '\0')
		return stats_reply(cmd, d, emit_nat_all, &a, "lcore_", CMD("nat,N"));
	a.lc = worker_param(params, d);
	if (a.lc == NULL)
		return 0;
	return stats_reply(cmd, d, emit_nat_lcore, &a, NULL, NULL);
}

static void
emit_nat_log(const struct fx_emitter *e, void *ctx, const struct tel_args *a __rte_unused)
{
	fx_nat_log_emit(e, ctx);
}

static int
cmd_nat_log(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };

	if (extra_params(params, d))
		return 0;
	return stats_reply(cmd, d, emit_nat_log, &a, "lcore_", CMD("nat,N"));
}

static int
cmd_lcore(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = worker_param(params, d) };

	if (a.lc == NULL)
		return 0;
	return stats_reply(cmd, d, emit_lcore, &a, NULL, NULL);
}

static int
cmd_maxima(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };

	if (params != NULL && params[0] != '\0') {
		a.lc = worker_param(params, d);
		if (a.lc == NULL)
			return 0;
	}
	return stats_reply(cmd, d, emit_maxima, &a, NULL, NULL);
}

static int
cmd_lcores(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	unsigned int w;

	if (extra_params(params, d))
		return 0;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (w = 0; w < fx_nb_workers; w++)
		rte_tel_data_add_array_int(d, (int)fx_workers[w]->lcore_id);
	return 0;
}

static int
cmd_ports(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	unsigned int p;

	if (extra_params(params, d))
		return 0;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (p = 0; p < FX_MAX_PORTS; p++)
		if (fx_conf.portmask & (1u << p))
			rte_tel_data_add_array_int(d, (int)p);
	return 0;
}

static int
cmd_port(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };
	unsigned long p;

	if (params == NULL || params[0] == '\0') {
		fx_tel_reply_error(d, "a port id is required (see %s)", CMD("ports"));
		return 0;
	}
	if (!parse_id(params, RTE_MAX_ETHPORTS, &p) || !(fx_conf.portmask & (1u << p))) {
		fx_tel_reply_error(d, "'%.32s' is not a port of the portmask (see %s)",
				   params, CMD("ports"));
		return 0;
	}
	a.port = (unsigned int)p;
	return stats_reply(cmd, d, emit_port, &a, NULL, NULL);
}

static int
cmd_reset(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	uint64_t n, tsc;

	if (extra_params(params, d))
		return 0;
	pthread_mutex_lock(&tel_lock);
	if (!tel_stopped)
		fx_control_reset_maxima();
	pthread_mutex_unlock(&tel_lock);
	fx_control_reset_info(&n, &tsc);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "status", "ok");
	fx_tel_dict_u64(d, "resets", n);
	return 0;
}

static int
cmd_hold(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	unsigned long ms;
	char *end;

	rte_tel_data_start_dict(d);
	errno = 0;
	ms = params ? strtoul(params, &end, 10) : 0;
	if (params == NULL || *params == '\0' || *end != '\0' || errno != 0 ||
	    ms > 600000) {
		rte_tel_data_add_dict_string(d, "status",
			"expected milliseconds, 0..600000");
		return 0;
	}
	pthread_mutex_lock(&tel_lock);
	if (!tel_stopped)
		fx_control_hold_expiry((unsigned int)ms);
	pthread_mutex_unlock(&tel_lock);
	rte_tel_data_add_dict_string(d, "status", "ok");
	fx_tel_dict_u64(d, "hold_ms", ms);
	return 0;
}

/* Run a control request and describe its result in d. */
static int
run(struct fx_ctl_req *req, struct rte_tel_data *d)
{
	char text[FX_ROUTE_TEXT];
	unsigned int w;
	int rc;

	rc = fx_control_call(req);
	rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = req->rc;
	rte_tel_data_add_dict_string(d, "status", rc == 0 ? "ok" : strerror(-rc));
	fx_route_format(&req->rule, req->type == FX_CTL_ROUTE_ADD, text, sizeof(text));
	rte_tel_data_add_dict_string(d, "prefix", text);
	if (rc != 0)
		return 0;
	fx_tel_dict_u64(d, "flushed", req->sent);
	fx_tel_dict_u64(d, "enobufs_retries", req->enobufs);
	for (w = 0; w < fx_nb_workers; w++) {
		snprintf(text, sizeof(text), "flushed_lcore_%u", fx_workers[w]->lcore_id);
		fx_tel_dict_u64(d, text, req->matched[w]);
	}
	return 0;
}

static int
prefix_cmd(const char *params, enum fx_ctl_type type, struct rte_tel_data *d)
{
	struct fx_ctl_req *r;
	char err[160];
	int rc;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->type = type;
	if (params == NULL ||
	    fx_route_parse(params, &r->rule, type == FX_CTL_ROUTE_ADD, err, sizeof(err)) != 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "status", params == NULL ?
			"a prefix is required" : err);
		free(r);
		return 0;
	}
	rc = run(r, d);
	free(r);
	return rc;
}

static int
cmd_flush(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return prefix_cmd(params, FX_CTL_FLUSH, d);
}

static int
cmd_route_add(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return prefix_cmd(params, FX_CTL_ROUTE_ADD, d);
}

static int
cmd_route_del(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return prefix_cmd(params, FX_CTL_ROUTE_DEL, d);
}

static int
cmd_routes(const char *cmd __rte_unused, const char *params __rte_unused,
	   struct rte_tel_data *d)
{
	struct fx_ctl_req *r = calloc(1, sizeof(*r));
	char text[FX_ROUTE_TEXT];
	uint32_t i;
	int rc;

	if (r == NULL)
		return -ENOMEM;
	r->type = FX_CTL_ROUTES;
	rc = fx_control_call(r);
	if (rc == 0)
		rc = r->rc;
	if (rc != 0) {
		free(r);
		return rc;
	}
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (i = 0; i < r->nb_routes; i++) {
		fx_route_format(&r->routes[i], true, text, sizeof(text));
		rte_tel_data_add_array_string(d, text);
	}
	free(r);
	return 0;
}

static int
cmd_neigh(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_args a = { .lc = NULL };
	unsigned long p, from = 0;
	struct fx_ctl_req *r;
	char buf[32], *comma;
	int rc;

	if (params == NULL || params[0] == '\0')
		return stats_reply(cmd, d, emit_neigh_all, &a, "port_", CMD("neigh,PORT"));
	snprintf(buf, sizeof(buf), "%s", params);
	comma = strchr(buf, ',');
	if (comma != NULL)
		*comma++ = '\0';
	if (!parse_id(buf, FX_MAX_PORTS, &p) || !fx_l3.local[p] ||
	    (comma != NULL && !parse_id(comma, FX_NEIGH_SLOTS, &from))) {
		fx_tel_reply_error(d, "'%.32s': expected PORT[,FROM], PORT a port with an "
				   "address (--port-addr)", params);
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	r->type = FX_CTL_NEIGH;
	r->port = (uint16_t)p;
	r->from = (uint32_t)from;
	rc = fx_control_call(r);
	if (rc == 0)
		rc = r->rc;
	if (rc != 0) {
		free(r);
		fx_tel_reply_error(d, "%s", strerror(-rc));
		return 0;
	}
	a.port = (unsigned int)p;
	a.neigh = r;
	rc = stats_reply(cmd, d, emit_neigh_port, &a, "neighbours", CMD("neigh,PORT,FROM"));
	free(r);
	return rc;
}

/* help texts are at most RTE_TEL_MAX_STRING_LEN - 1 characters */
static void
reg(const char *cmd, telemetry_cb fn, const char *help)
{
	if (rte_telemetry_register_cmd(cmd, fn, help) != 0)
		FX_LOG(WARNING, "telemetry command %s not registered", cmd);
}

void
fx_telemetry_register(void)
{
	reg(CMD("stats"), cmd_stats,
		"Every statistic, as --stats-file; without the lcore_N objects, said so, "
		"if they do not fit. Takes no parameters");
	reg(CMD("lcores"), cmd_lcores, "The worker lcore ids. Takes no parameters");
	reg(CMD("lcore"), cmd_lcore, "A worker's counters and gauges. Parameters: lcore id");
	reg(CMD("ports"), cmd_ports, "The port ids. Takes no parameters");
	reg(CMD("port"), cmd_port, "A port's counters. Parameters: port id");
	if (fx_nat_enabled())
		reg(CMD("nat"), cmd_nat,
			"Masquerade counters: totals and per lcore, or one worker's. "
			"Parameters: none, or lcore id");
	if (fx_nat_log_enabled())
		reg(CMD("nat_log"), cmd_nat_log,
			"The NAT event log's counters: totals and per lcore. Takes no parameters");
	reg(CMD("maxima"), cmd_maxima,
		"The maxima since the last reset, over all workers or one worker's. "
		"Parameters: none, or lcore id");
	reg(CMD("reset"), cmd_reset,
		"Reset the maxima (lag, sweep, loop, poll_removed, NAT poll), not the counters. "
		"Takes no parameters");
	if (fx_conf.bench)
		reg(CMD("hold"), cmd_hold,
			"Skip expiry polls for a while, to make what comes due meanwhile due at "
			"once (--bench only). Parameters: MS");
	reg(CMD("flush"), cmd_flush,
		"Invalidate the flows with an endpoint in a prefix. Parameters: PREFIX/LEN");
	reg(CMD("route_add"), cmd_route_add,
		"Add or replace a route and flush its flows. Parameters: PREFIX/LEN,PORT[,NEXTHOP]");
	reg(CMD("route_del"), cmd_route_del,
		"Delete a route and flush its flows. Parameters: PREFIX/LEN");
	reg(CMD("routes"), cmd_routes, "The route list. Takes no parameters");
	if (fx_neigh_enabled())
		reg(CMD("neigh"), cmd_neigh,
			"Neighbours, ARP, ND, ICMP: totals, or a port's counters and entries. "
			"Parameters: none, or PORT[,FROM]");
}

void
fx_telemetry_stop(void)
{
	pthread_mutex_lock(&tel_lock);
	tel_stopped = true;
	pthread_mutex_unlock(&tel_lock);
}
