/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The telemetry replies at 64 workers (fast-tests): the example's
 * statistics and telemetry code, linked with this file instead of boot/main.c,
 * on 64 made-up workers whose every counter holds a 20-digit value (the
 * longest a u64 writes), with masquerade and --bench on, so every reply is
 * as large as it can be. Each command is asked over the process's own
 * telemetry socket, as a client would, and each reply must be under the
 * library's 16 KiB and whole: every name the statistics walk emits for it
 * is there. The aggregate replies (/stats, /nat) must leave the lcore_N
 * objects out and say so; at 2 workers /stats is whole. Bad parameters get
 * {"error": ...}.
 *
 * With "serve" after the EAL options it then keeps answering until its
 * standard input closes, for test/e2e/e2e_telemetry.py to run the exporter's
 * endpoint against 64 workers.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "base/config.h"
#include "ctl/stats.h"
#include "ctl/telemetry.h"
#include "ctl/telemetry_reply.h"
#include "expiry/expiry.h"
#include "nat/conf.h"
#include "nat/nat.h"
#include "test/lib/test_check.h"
#include "worker/lcore.h"

/* what boot/main.c defines */
struct fx_config fx_conf;
struct fx_lcore *fx_lcores[RTE_MAX_LCORE];
struct fx_lcore *fx_workers[RTE_MAX_LCORE];
unsigned int fx_nb_workers;
volatile bool fx_force_quit;
RTE_LOG_REGISTER(fx_logtype, app.l3fwd_flowexp_test, INFO);

#define NB_WORKERS 64
#define REPLY_MAX (4 * FX_TEL_OUTPUT_MAX)

static int tel_fd = -1;
static char reply[REPLY_MAX];
static size_t largest;          /* the largest per-instance reply */
static char largest_cmd[64];

static int
tel_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char hello[1024];

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	tel_fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (tel_fd < 0 || connect(tel_fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		return -errno;
	return recv(tel_fd, hello, sizeof(hello), 0) > 0 ? 0 : -EIO;
}

/* the reply to cmd, NUL-terminated in reply[]; its length */
static size_t
query(const char *cmd)
{
	ssize_t n;

	reply[0] = '\0';
	if (send(tel_fd, cmd, strlen(cmd), 0) < 0)
		return 0;
	n = recv(tel_fd, reply, sizeof(reply) - 1, 0);
	if (n <= 0)
		return 0;
	reply[n] = '\0';
	return (size_t)n;
}

/* ---- the names a walk emits, to find each in a reply ---- */

#define NAMES_MAX 512

struct names {
	char v[NAMES_MAX][64];
	unsigned int n;
};

static void
names_add(void *ctx, const char *name)
{
	struct names *nm = ctx;

	if (nm->n < NAMES_MAX)
		snprintf(nm->v[nm->n++], sizeof(nm->v[0]), "%s", name);
}

static void
names_open(void *ctx, const char *name)
{
	names_add(ctx, name);
}

static void
names_close(void *ctx __rte_unused)
{
}

static void
names_u64(void *ctx, const char *name, uint64_t v __rte_unused)
{
	names_add(ctx, name);
}

static void
names_str(void *ctx, const char *name, const char *v __rte_unused)
{
	names_add(ctx, name);
}

static const struct fx_emitter names_emitter = {
	.open = names_open, .close = names_close, .u64 = names_u64, .str = names_str,
};

/* every name in nm is a key of the reply; the first missing one, or NULL */
static const char *
missing(const struct names *nm)
{
	char key[72];
	unsigned int i;

	for (i = 0; i < nm->n; i++) {
		snprintf(key, sizeof(key), "\"%s\":", nm->v[i]);
		if (strstr(reply, key) == NULL)
			return nm->v[i];
	}
	return NULL;
}

/* a per-instance command: under the limit, no error, every name there */
static void
check_instance(const char *cmd, const struct names *nm)
{
	size_t n = query(cmd);
	const char *miss = missing(nm);

	if (n > largest) {
		largest = n;
		snprintf(largest_cmd, sizeof(largest_cmd), "%s", cmd);
	}
	if (!check(n > 0 && n < FX_TEL_OUTPUT_MAX && strstr(reply, "\"error\"") == NULL &&
		   miss == NULL, "%s: %zu bytes, %u entries, all there%s%s", cmd, n, nm->n,
		   miss ? "; missing: " : "", miss ? miss : ""))
		printf("     %.600s\n", reply);
}

/* ---- 64 made-up workers ---- */

static int
make_workers(void)
{
	struct twheel_config cfg;
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct fx_lcore *lc;
	unsigned int w;
	int rc;

	fx_conf.portmask = 1;
	fx_conf.expiry = FX_EXPIRY_TWHEEL;
	fx_conf.max_flows = FX_MAX_FLOWS_MIN;
	fx_conf.expire_budget = 16;
	fx_conf.tick_us = FX_TICK_US_DEFAULT;
	fx_conf.bench = true;          /* the stage cycles too */
	fx_nat_conf.enabled = true;
	for (w = 0; w < NB_WORKERS; w++) {
		lc = rte_zmalloc("fx_test_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE);
		if (lc == NULL)
			return -ENOMEM;
		lc->lcore_id = w + 1;
		lc->worker_idx = (uint16_t)w;
		lc->flows.lcore_id = lc->lcore_id;
		lc->flows.expiry = &fx_expiry_twheel;
		rc = lc->flows.expiry->init(&lc->flows, SOCKET_ID_ANY);
		if (rc != 0)
			return rc;
		snprintf(name, sizeof(name), "nat%u", lc->lcore_id);
		twheel_config_standard(&cfg, name, 64, SOCKET_ID_ANY);
		lc->nat.wheel = twheel_create(&cfg);
		if (lc->nat.wheel == NULL)
			return -ENOMEM;
		/* the longest values a u64 writes, in every counter */
		memset(&lc->flows.st, 0xff, sizeof(lc->flows.st));
		memset(&lc->fwd.st, 0xff, sizeof(lc->fwd.st));
		memset(&lc->loop_st, 0xff, sizeof(lc->loop_st));
		memset(&lc->handoff.st, 0xff, sizeof(lc->handoff.st));
		memset(&lc->nat.st, 0xff, sizeof(lc->nat.st));
		lc->nat.ports.units = UINT64_MAX;
		lc->nat.ports.nb_free = UINT64_MAX;
		lc->nat.ports.nb_held = UINT64_MAX;
		fx_nat_register(&lc->nat, lc->lcore_id, w);
		fx_lcores[lc->lcore_id] = lc;
		fx_workers[w] = lc;
	}
	fx_nb_workers = NB_WORKERS;
	return 0;
}

/* the names of one per-instance reply: its head, then the walk's */
static void
names_of(struct names *nm, const char *const *head, unsigned int nb_head,
	 void (*walk)(const struct fx_lcore *lc, struct names *nm),
	 const struct fx_lcore *lc)
{
	unsigned int i;

	nm->n = 0;
	for (i = 0; i < nb_head; i++)
		names_add(nm, head[i]);
	walk(lc, nm);
}

static void
walk_counters(const struct fx_lcore *lc, struct names *nm)
{
	fx_stats_emit_lcore(lc, &names_emitter, nm, FX_EMIT_COUNTERS);
}

static void
walk_maxima(const struct fx_lcore *lc, struct names *nm)
{
	if (lc != NULL)
		fx_stats_emit_lcore(lc, &names_emitter, nm, FX_EMIT_MAXIMA);
	else
		fx_stats_emit_totals(&names_emitter, nm, FX_EMIT_MAXIMA);
}

static void
walk_nat(const struct fx_lcore *lc, struct names *nm)
{
	fx_nat_emit_lcore(&lc->nat, &names_emitter, nm);
}

static void
walk_port(const struct fx_lcore *lc __rte_unused, struct names *nm)
{
	fx_stats_emit_port(0, &names_emitter, nm);
}

static void
check_commands(void)
{
	static const char *const lcore_head[] = { "lcore", "worker", "uptime_ms", "tsc_hz" };
	static const char *const nat_head[] = { "lcore", "worker", "uptime_ms" };
	static const char *const maxima_head[] = { "lcore", "worker", "uptime_ms", "resets",
						   "since_reset_us" };
	static const char *const all_head[] = { "workers", "resets", "since_reset_us" };
	static const char *const port_head[] = { "port" };
	static struct names nm;
	char cmd[64];
	unsigned int w;
	size_t n;

	for (w = 0; w < fx_nb_workers; w++) {
		const struct fx_lcore *lc = fx_workers[w];

		names_of(&nm, lcore_head, RTE_DIM(lcore_head), walk_counters, lc);
		snprintf(cmd, sizeof(cmd), "/l3fwd_flowexp/lcore,%u", lc->lcore_id);
		check_instance(cmd, &nm);
		names_of(&nm, nat_head, RTE_DIM(nat_head), walk_nat, lc);
		snprintf(cmd, sizeof(cmd), "/l3fwd_flowexp/nat,%u", lc->lcore_id);
		check_instance(cmd, &nm);
		names_of(&nm, maxima_head, RTE_DIM(maxima_head), walk_maxima, lc);
		snprintf(cmd, sizeof(cmd), "/l3fwd_flowexp/maxima,%u", lc->lcore_id);
		check_instance(cmd, &nm);
	}
	names_of(&nm, all_head, RTE_DIM(all_head), walk_maxima, NULL);
	check_instance("/l3fwd_flowexp/maxima", &nm);
	names_of(&nm, port_head, RTE_DIM(port_head), walk_port, NULL);
	check_instance("/l3fwd_flowexp/port,0", &nm);
	printf("     largest per-instance reply: %s, %zu bytes\n", largest_cmd, largest);

	n = query("/l3fwd_flowexp/lcores");
	check(n > 0 && strstr(reply, ",64]") != NULL && strstr(reply, "[1,2,") != NULL,
	      "/l3fwd_flowexp/lcores: the 64 worker lcore ids (%.60s...)", reply);
	n = query("/l3fwd_flowexp/ports");
	check(strcmp(reply, "{\"/l3fwd_flowexp/ports\":[0]}") == 0,
	      "/l3fwd_flowexp/ports: [0] (got %s)", reply);

	/* the aggregates leave the workers out, and say so */
	n = query("/l3fwd_flowexp/stats");
	check(n < FX_TEL_OUTPUT_MAX && strstr(reply, "\"omitted\":64,") != NULL &&
	      strstr(reply, "\"incomplete\":\"lcore_N objects left out") != NULL &&
	      !strstr(reply, "\"lcore_1\":") && !strstr(reply, "\"lcore_64\":") &&
	      strstr(reply, "\"totals\":{\"active\":") &&
	      strstr(reply, "\"port_0\":{") && strstr(reply, "\"malformed\":{") &&
	      strstr(reply, "\"control\":{"),
	      "/l3fwd_flowexp/stats at 64 workers: %zu bytes, totals, ports, malformed and "
	      "control, the 64 lcore_N left out and said so", n);
	printf("     ...%s\n", reply + (strlen(reply) > 160 ? strlen(reply) - 160 : 0));
	n = query("/l3fwd_flowexp/nat");
	check(n < FX_TEL_OUTPUT_MAX && strstr(reply, "\"omitted\":64,") != NULL &&
	      !strstr(reply, "\"lcore_1\":") && !strstr(reply, "\"lcore_64\":") &&
	      strstr(reply, "\"totals\":{\"nat_created\":"),
	      "/l3fwd_flowexp/nat at 64 workers: %zu bytes, totals, the lcore_N left out", n);
}

static void
check_bad_params(void)
{
	static const char *const bad[] = {
		"/l3fwd_flowexp/lcore", "/l3fwd_flowexp/lcore,", "/l3fwd_flowexp/lcore,abc",
		"/l3fwd_flowexp/lcore,999", "/l3fwd_flowexp/lcore,0", "/l3fwd_flowexp/lcore,65",
		"/l3fwd_flowexp/lcore,-1", "/l3fwd_flowexp/lcore,1,2", "/l3fwd_flowexp/lcore, 1",
		"/l3fwd_flowexp/lcore,1x", "/l3fwd_flowexp/lcore,99999999999999999999",
		"/l3fwd_flowexp/port", "/l3fwd_flowexp/port,-1", "/l3fwd_flowexp/port,1",
		"/l3fwd_flowexp/port,0,0", "/l3fwd_flowexp/port,x", "/l3fwd_flowexp/nat,abc",
		"/l3fwd_flowexp/nat,999", "/l3fwd_flowexp/maxima,abc", "/l3fwd_flowexp/maxima,0",
		"/l3fwd_flowexp/lcores,1", "/l3fwd_flowexp/ports,0", "/l3fwd_flowexp/stats,1",
		"/l3fwd_flowexp/reset,1",
	};
	unsigned int i;
	size_t n;

	for (i = 0; i < RTE_DIM(bad); i++) {
		n = query(bad[i]);
		check(n > 0 && strstr(reply, "{\"error\":\"") != NULL, "%s: error (%s)",
		      bad[i], reply);
	}
}

int
main(int argc, char **argv)
{
	static struct names nm;
	const char *miss;
	bool serve;
	size_t n;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	serve = rc + 1 < argc && strcmp(argv[rc + 1], "serve") == 0;
	fx_stats_start();
	rc = make_workers();
	if (rc != 0) {
		fprintf(stderr, "workers: %s\n", strerror(-rc));
		return 1;
	}
	fx_telemetry_register();
	rc = tel_connect();
	if (!check(rc == 0, "connected to %s/dpdk_telemetry.v2", rte_eal_get_runtime_dir()))
		return 1;
	check_commands();
	check_bad_params();

	/* two workers: /stats is whole */
	fx_nb_workers = 2;
	nm.n = 0;
	fx_stats_emit(&names_emitter, &nm);
	n = query("/l3fwd_flowexp/stats");
	miss = missing(&nm);
	check(n < FX_TEL_OUTPUT_MAX && strstr(reply, "\"lcore_1\":{\"active\":") &&
	      strstr(reply, "\"lcore_2\":{\"active\":") && !strstr(reply, "\"incomplete\"") &&
	      miss == NULL, "/l3fwd_flowexp/stats at 2 workers: whole, %zu bytes, %u names%s%s",
	      n, nm.n, miss ? "; missing: " : "", miss ? miss : "");
	fx_nb_workers = NB_WORKERS;

	if (serve && failures == 0) {
		char buf[64];

		printf("serving\n");
		fflush(stdout);
		while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
			;
	}
	fx_telemetry_stop();
	close(tel_fd);
	printf("%s\n", failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
