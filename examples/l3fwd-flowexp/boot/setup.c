/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Start-up and shutdown of the workers' state, on the main lcore, in the
 * order boot/main.c calls them: the tables' hash secret (base/hash.c); one context
 * per worker lcore with its rx queues (worker/lcore.h); NAT's port shares (the
 * options were checked by fx_check_args()) and the clock; per worker the flow
 * table, the per-host quota, the TCP connections, the eviction list, the
 * expiry back-end and NAT - all memory the workers will use; the handoff
 * rings; once the neighbour tables are made, each worker's ring to the
 * main lcore (fwd/slowpath.c owns the rings, a worker's context gets its
 * pointer). Each step exits with a message on failure, as l3fwd does. The
 * packet-path fuzzer (test/fuzz/fuzz_flowexp.c) sets its worker up with the
 * same calls.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_random.h>
#include <rte_malloc.h>
#include <rte_timer.h>

#include "base/config.h"
#include "base/hash.h"
#include "base/quota.h"
#include "base/time.h"
#include "base/timeouts.h"
#include "boot/setup.h"
#include "expiry/expiry.h"
#include "flow/evict.h"
#include "flow/flow.h"
#include "flow/table.h"
#include "fwd/slowpath.h"
#include "l3/neigh.h"
#include "nat/conf.h"
#include "nat/log/export.h"
#include "nat/nat.h"
#include "worker/clock.h"
#include "worker/handoff.h"
#include "worker/lcore.h"

#define STALL_US 100

void
fx_setup_secret(void)
{
	int ret;

	if (fx_conf.hash_secret_given) {
		fx_hash_set_secret(fx_conf.hash_secret[0], fx_conf.hash_secret[1]);
		/* and rte_rand's seed: a test's run repeats its draws (NAT
		 * ports), each lcore's from its own state */
		rte_srand(fx_conf.hash_secret[0] ^ fx_conf.hash_secret[1]);
		FX_LOG(WARNING, "--hash-secret: the tables' hash secret and the random "
		       "draws are known; whoever knows them can flood the tables and "
		       "guess the NAT's ports");
		return;
	}
	ret = fx_hash_init();
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "getrandom: no secret for the hash tables: %s\n",
			 strerror(-ret));
}

void
fx_setup_lcores(void)
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
			lc->flows.expiry = fx_expiry_ops_get(fx_conf.expiry);
			lc->flows.lcore_id = lp->lcore_id;
			for (t = 0; t < FX_TMO_MAX; t++)
				lc->flows.tmo_cycles[t] =
					(uint64_t)(fx_conf.timeout_s[t] * (double)hz);
			lc->loop.stall_cycles = hz / 1000000 * STALL_US;
			lc->handoff.self = lc->worker_idx;
			fx_clock_register(&lc->clock);
			fx_lcores[lp->lcore_id] = lc;
			fx_workers[fx_nb_workers++] = lc;
		}
		lc->rxq[lc->n_rxq].port_id = lp->port_id;
		lc->rxq[lc->n_rxq].queue_id = lp->queue_id;
		lc->n_rxq++;
	}
}

void
fx_setup_flow_state(void)
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
		rc = ft_create(&lc->flows.table, name, fx_conf.max_flows,
			       (int)rte_lcore_to_socket_id(lc->lcore_id),
			       fx_conf.expiry != FX_EXPIRY_TWHEEL);
		if (rc != 0)
			rte_exit(EXIT_FAILURE,
				 "lcore %u: flow table of %u flows: %s (more memory: -m / --socket-mem)\n",
				 lc->lcore_id, fx_conf.max_flows, rte_strerror(-rc));
		snprintf(name, sizeof(name), "fxq%u", lc->lcore_id);
		if (fx_conf.max_flows_per_host != 0 &&
		    fx_quota_init(&lc->flows.host_quota, name, fx_conf.max_flows,
				  (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: per-host flow counts: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		if (fx_flow_init(&lc->flows, (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: TCP connections: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		if (fx_conf.full_policy == FX_FULL_EVICT &&
		    fx_evict_init(&lc->flows.evict, fx_conf.max_flows,
				  (int)rte_lcore_to_socket_id(lc->lcore_id)) != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: eviction list: no memory (-m / --socket-mem)\n",
				 lc->lcore_id);
		rc = lc->flows.expiry->init(&lc->flows,
					    (int)rte_lcore_to_socket_id(lc->lcore_id));
		if (rc != 0)
			rte_exit(EXIT_FAILURE, "lcore %u: %s back-end: %s\n", lc->lcore_id,
				 lc->flows.expiry->name, rte_strerror(-rc));
		if (!fx_nat_enabled())
			continue;
		rc = fx_nat_init(&lc->nat, lc->lcore_id, w, fx_nb_workers,
				 fx_conf.max_flows, fx_conf.expire_budget, lc->flows.tmo_cycles,
				 (uint64_t)((double)rte_get_tsc_hz() * fx_conf.tick_us / 1e6),
				 (int)rte_lcore_to_socket_id(lc->lcore_id));
		if (rc != 0)
			rte_exit(EXIT_FAILURE,
				 "lcore %u: NAT table of %u mappings: %s (more memory: -m / --socket-mem)\n",
				 lc->lcore_id, fx_conf.max_flows, rte_strerror(-rc));
	}
}

void
fx_setup_nat_and_clock(void)
{
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		fx_workers[w]->handoff.nb_workers = (uint16_t)fx_nb_workers;
	if (fx_nat_enabled() && fx_nat_setup(fx_nb_workers) != 0)
		rte_exit(EXIT_FAILURE, "--nat-ports: cannot share %u-%u among %u workers\n",
			 fx_nat_conf.port_lo, fx_nat_conf.port_hi, fx_nb_workers);
	if (fx_clock_init(fx_conf.clock) != 0)
		rte_exit(EXIT_FAILURE, "--clock pcap: no rx timestamp field: %s\n",
			 rte_strerror(rte_errno));
}

void
fx_setup_nat_log(void)
{
	struct fx_lcore *lc;
	char err[160];
	unsigned int w;

	if (!fx_nat_log_enabled())
		return;
	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		if (fx_nat_log_attach(&lc->nat.log, &lc->nat.st.log, lc->lcore_id,
				      err, sizeof(err)) != 0)
			rte_exit(EXIT_FAILURE, "%s\n", err);
	}
	if (fx_nat_log_setup(err, sizeof(err)) != 0)
		rte_exit(EXIT_FAILURE, "%s\n", err);
}

void
fx_setup_handoff(void)
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
		h[w] = &fx_workers[w]->handoff;
		socket[w] = (int)rte_lcore_to_socket_id(fx_workers[w]->lcore_id);
	}
	rc = fx_handoff_init(h, socket, fx_nb_workers);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "handoff rings: %s (more memory: -m / --socket-mem)\n",
			 rte_strerror(-rc));
}

void
fx_free_handoff(void)
{
	struct fx_handoff *h[RTE_MAX_LCORE];
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		h[w] = &fx_workers[w]->handoff;
	fx_handoff_fini(h, fx_nb_workers);
}

void
fx_setup_slow_path(void)
{
	unsigned int lcore[RTE_MAX_LCORE], w;
	int rc;

	/* only a port with addresses hands packets to the main lcore */
	if (!fx_neigh_enabled())
		return;
	for (w = 0; w < fx_nb_workers; w++)
		lcore[w] = fx_workers[w]->lcore_id;
	rc = fx_slow_init(lcore, fx_nb_workers);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "the rings to the main lcore: %s (more memory: "
			 "-m / --socket-mem)\n", rte_strerror(-rc));
	for (w = 0; w < fx_nb_workers; w++)
		fx_workers[w]->fwd.slow = fx_slow_ring(w);
}

void
fx_free_slow_path(void)
{
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		fx_workers[w]->fwd.slow = NULL;
	fx_slow_fini();
}

void
fx_free_flow_state(void)
{
	struct fx_lcore *lc;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		if (lc->flows.expiry != NULL)
			lc->flows.expiry->fini(&lc->flows);
		if (fx_nat_enabled())
			fx_nat_fini(&lc->nat);
		fx_evict_fini(&lc->flows.evict);
		fx_quota_fini(&lc->flows.host_quota);
		fx_flow_fini(&lc->flows);
		ft_free(&lc->flows.table);
	}
	if (fx_conf.expiry == FX_EXPIRY_TIMER)
		rte_timer_subsystem_finalize();
}
