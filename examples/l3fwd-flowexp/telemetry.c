/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Telemetry commands (read with usertools' dpdk-telemetry.py, or any
 * client of /var/run/dpdk/<file-prefix>/dpdk_telemetry.v2):
 *
 *   /l3fwd_flowexp/stats                    every counter (stats.c)
 *   /l3fwd_flowexp/reset                    zero the maxima and lag figures
 *   /l3fwd_flowexp/hold,MS                  no expiry for MS ms (only with --bench)
 *   /l3fwd_flowexp/flush,PREFIX             invalidate the flows in PREFIX
 *   /l3fwd_flowexp/route_add,PREFIX,PORT    add or replace a route, flush PREFIX
 *   /l3fwd_flowexp/route_del,PREFIX         delete a route, flush PREFIX
 *   /l3fwd_flowexp/routes                   the route list
 *
 * The commands run in the telemetry thread. Reading statistics is safe
 * there while the workers run; at shutdown fx_telemetry_stop() waits for a
 * statistics command in progress and makes later ones fail, before the
 * main lcore frees what they read (the wheels). This lock is between the
 * telemetry thread and the main lcore only; workers never take it.
 * Everything that changes state is handed to the main lcore (control.c)
 * and the reply waits for its result.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "compat.h"
#include "control.h"
#include "flowexp.h"
#include "lcore.h"
#include "nat.h"
#include "route.h"
#include "stats.h"
#include "telemetry.h"

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tel_stopped;

/* ---- emitter into rte_tel_data: one level of nested dictionaries ---- */

struct tel_ctx {
	struct rte_tel_data *top;
	struct rte_tel_data *sub;     /* open nested dict, or NULL */
	char sub_name[64];
};

static struct rte_tel_data *
tel_cur(struct tel_ctx *t)
{
	return t->sub != NULL ? t->sub : t->top;
}

static void
tel_open(void *ctx, const char *name)
{
	struct tel_ctx *t = ctx;

	t->sub = rte_tel_data_alloc();
	if (t->sub != NULL)
		rte_tel_data_start_dict(t->sub);
	snprintf(t->sub_name, sizeof(t->sub_name), "%s", name);
}

static void
tel_close(void *ctx)
{
	struct tel_ctx *t = ctx;

	if (t->sub != NULL &&
	    rte_tel_data_add_dict_container(t->top, t->sub_name, t->sub, 0) != 0)
		rte_tel_data_free(t->sub);
	t->sub = NULL;
}

static void
tel_u64(void *ctx, const char *name, uint64_t v)
{
	fx_tel_dict_u64(tel_cur(ctx), name, v);
}

static void
tel_str(void *ctx, const char *name, const char *v)
{
	rte_tel_data_add_dict_string(tel_cur(ctx), name, v);
}

static const struct fx_emitter tel_emitter = {
	.open = tel_open, .close = tel_close, .u64 = tel_u64, .str = tel_str,
};

/* a dictionary from an emitter function, unless the example is stopping */
static int
emit_dict(struct rte_tel_data *d,
	  void (*emit)(const struct fx_emitter *e, void *ctx))
{
	struct tel_ctx t = { .top = d };

	pthread_mutex_lock(&tel_lock);
	if (tel_stopped) {
		pthread_mutex_unlock(&tel_lock);
		return -ESHUTDOWN;
	}
	rte_tel_data_start_dict(d);
	emit(&tel_emitter, &t);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int
cmd_stats(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	return emit_dict(d, fx_stats_emit);
}

static int
cmd_nat(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	return emit_dict(d, fx_nat_emit);
}

static int
cmd_reset(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	pthread_mutex_lock(&tel_lock);
	if (!tel_stopped)
		fx_control_reset_maxima();
	pthread_mutex_unlock(&tel_lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "status", "ok");
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
	char text[96];
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
	char text[96];
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

void
fx_telemetry_register(void)
{
	rte_telemetry_register_cmd("/l3fwd_flowexp/stats", cmd_stats,
		"Flow tracking and forwarding statistics. Takes no parameters");
	if (fx_nat_enabled())
		rte_telemetry_register_cmd("/l3fwd_flowexp/nat", cmd_nat,
			"Masquerade statistics, totals and per lcore. Takes no parameters");
	rte_telemetry_register_cmd("/l3fwd_flowexp/reset", cmd_reset,
		"Reset the maxima (sweep, loop, lag, stalls). Takes no parameters");
	if (fx_conf.bench)
		rte_telemetry_register_cmd("/l3fwd_flowexp/hold", cmd_hold,
			"Skip expiry polls for a while, to make what comes due meanwhile due at "
			"once (--bench only). Parameters: MS");
	rte_telemetry_register_cmd("/l3fwd_flowexp/flush", cmd_flush,
		"Invalidate the flows with an endpoint in a prefix. Parameters: PREFIX/LEN");
	rte_telemetry_register_cmd("/l3fwd_flowexp/route_add", cmd_route_add,
		"Add or replace a route and flush its flows. Parameters: PREFIX/LEN,PORT");
	rte_telemetry_register_cmd("/l3fwd_flowexp/route_del", cmd_route_del,
		"Delete a route and flush its flows. Parameters: PREFIX/LEN");
	rte_telemetry_register_cmd("/l3fwd_flowexp/routes", cmd_routes,
		"The route list. Takes no parameters");
}

void
fx_telemetry_stop(void)
{
	pthread_mutex_lock(&tel_lock);
	tel_stopped = true;
	pthread_mutex_unlock(&tel_lock);
}
