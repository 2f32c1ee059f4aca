/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The affinity decision (boot/affinity.h; fwd/owner.h holds its result):
 * --affinity, the workers' queues and what the ports did with the RSS
 * configuration they were given (boot/ports.c) decide between rss and
 * handoff. For rss, each
 * port's redirection table is programmed so that entry i goes to a queue
 * of worker i % workers, the smallest table of all ports setting the
 * period (so a hash meets the same worker on every port), and the table
 * and the hash configuration are read back: every check that fails is a
 * reason, which --affinity rss stops on and auto falls back to handoff
 * with.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>

#include "base/compat.h"
#include "base/config.h"
#include "boot/affinity.h"
#include "boot/ports.h"
#include "nat/conf.h"
#include "worker/lcore.h"

#define FX_RSS_KEY_LEN_MAX 128

/*
 * rss can keep a flow on one lcore only if every worker polls a queue of
 * every port: the redirection tables then send hash entry i, on every port,
 * to a queue of worker i % workers.
 */
static int
rss_layout_check(char *why, size_t len)
{
	unsigned int w, q, n;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		for (w = 0; w < fx_nb_workers; w++) {
			for (n = 0, q = 0; q < fx_workers[w]->n_rxq; q++)
				n += fx_workers[w]->rxq[q].port_id == port;
			if (n == 0) {
				snprintf(why, len, "lcore %u polls no rx queue of port %u, so no "
					 "redirection table can keep both directions of a flow "
					 "that crosses ports on one lcore",
					 fx_workers[w]->lcore_id, port);
				return -1;
			}
		}
	}
	return 0;
}

/* The queue of port that hash entry i goes to: one of worker i % n's. */
static uint16_t
reta_queue(uint16_t port, unsigned int i, unsigned int size)
{
	const struct fx_lcore *lc = fx_workers[(i % size) % fx_nb_workers];
	unsigned int q, n = 0, k;

	for (q = 0; q < lc->n_rxq; q++)
		n += lc->rxq[q].port_id == port;
	k = (i / fx_nb_workers) % n;
	for (q = 0; q < lc->n_rxq; q++)
		if (lc->rxq[q].port_id == port && k-- == 0)
			return lc->rxq[q].queue_id;
	return 0;   /* not reached: rss_layout_check() */
}

/* Program port's redirection table and read it and the hash back. */
static int
rss_program(uint16_t port, unsigned int owner_size, char *why, size_t len)
{
	struct rte_eth_rss_reta_entry64 reta[FX_RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_reta_entry64 got[RTE_DIM(reta)];
	const struct fx_port_rss *pr = fx_ports_rss(port);
	uint8_t key[FX_RSS_KEY_LEN_MAX];
	struct rte_eth_rss_conf conf;
	unsigned int i, size = pr->reta_size;
	int rc;

	memset(reta, 0, sizeof(reta));
	memset(got, 0, sizeof(got));
	for (i = 0; i < size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			reta_queue(port, i, owner_size);
		got[i / RTE_ETH_RETA_GROUP_SIZE].mask = reta[i / RTE_ETH_RETA_GROUP_SIZE].mask;
	}
	rc = rte_eth_dev_rss_reta_update(port, reta, (uint16_t)size);
	if (rc != 0) {
		snprintf(why, len, "port %u: redirection table update: %s", port, strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_rss_reta_query(port, got, (uint16_t)size);
	if (rc != 0) {
		snprintf(why, len, "port %u: redirection table query: %s", port, strerror(-rc));
		return -1;
	}
	for (i = 0; i < size; i++) {
		if (got[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] !=
		    reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE]) {
			snprintf(why, len, "port %u did not keep its redirection table "
				 "(entry %u: queue %u, asked %u)", port, i,
				 got[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE],
				 reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE]);
			return -1;
		}
	}

	memset(&conf, 0, sizeof(conf));
	memset(key, 0, sizeof(key));
	conf.rss_key = key;
	conf.rss_key_len = FX_RSS_KEY_LEN_MAX;
	rc = rte_eth_dev_rss_hash_conf_get(port, &conf);
	if (rc != 0) {
		snprintf(why, len, "port %u: RSS configuration cannot be read back: %s",
			 port, strerror(-rc));
		return -1;
	}
	if (conf.rss_hf == 0) {
		snprintf(why, len, "port %u: RSS is off after configure", port);
		return -1;
	}
	if (!fx_rss_algo_kept(&pr->want, &conf)) {
		snprintf(why, len, "port %u did not keep the symmetric hash function (asked %s, has %s)",
			 port, fx_rss_algo_name(&pr->want), fx_rss_algo_name(&conf));
		return -1;
	}
	if (pr->how == FX_RSS_SYM_KEY &&
	    memcmp(key, pr->want.rss_key, pr->want.rss_key_len) != 0) {
		snprintf(why, len, "port %u did not keep the symmetric RSS key", port);
		return -1;
	}
	printf("port %u: symmetric RSS verified (%s, hash types %#" PRIx64
	       ", redirection table of %u entries over %u lcores)\n", port,
	       pr->how == FX_RSS_SYM_ALGO ? "symmetric Toeplitz" : "Toeplitz key 0x6d5a...",
	       conf.rss_hf, size, fx_nb_workers);
	return 0;
}

/* Set up and check rss on every port; the reason in why if it cannot be. */
static int
rss_verify(char *why, size_t len)
{
	unsigned int size_min = FX_RSS_RETA_MAX, i;
	const struct fx_port_rss *pr;
	uint16_t port;

	if (rss_layout_check(why, len) != 0)
		return -1;
	RTE_ETH_FOREACH_DEV(port) {
		if (!(fx_conf.portmask & (1u << port)))
			continue;
		pr = fx_ports_rss(port);
		if (!pr->on) {
			snprintf(why, len, "port %u has no RSS (%s)", port,
				 fx_ports_rx_queues(port) <= 1 ? "one rx queue" :
				 "the device offers no hash on IP addresses and ports");
			return -1;
		}
		if (pr->how == FX_RSS_SYM_NONE) {
			snprintf(why, len, "port %u takes no RSS key and offers no symmetric hash function",
				 port);
			return -1;
		}
		if (pr->reta_size == 0 || pr->reta_size > FX_RSS_RETA_MAX ||
		    !rte_is_power_of_2(pr->reta_size)) {
			snprintf(why, len, "port %u: redirection table of %u entries not supported",
				 port, pr->reta_size);
			return -1;
		}
		size_min = RTE_MIN(size_min, pr->reta_size);
	}
	/* the smallest table decides: hash % larger % smaller == hash % smaller */
	RTE_ETH_FOREACH_DEV(port) {
		if ((fx_conf.portmask & (1u << port)) && rss_program(port, size_min, why, len) != 0)
			return -1;
	}
	for (i = 0; i < size_min; i++)
		fx_rss_owner[i] = (uint16_t)(i % fx_nb_workers);
	fx_rss_reta_size = (uint16_t)size_min;
	return 0;
}

/*
 * --rss-model: a test's capture was split over the rx queues by a model
 * of symmetric RSS with a table of FX_RSS_MODEL_RETA entries, entry i to
 * worker i % workers, as rss_program() would have programmed it; the
 * layout must still let one worker see both directions of a flow.
 */
static void
rss_model(void)
{
	char why[160];
	unsigned int i;

	if (rss_layout_check(why, sizeof(why)) != 0)
		rte_exit(EXIT_FAILURE, "--rss-model: %s\n", why);
	for (i = 0; i < FX_RSS_MODEL_RETA; i++)
		fx_rss_owner[i] = (uint16_t)(i % fx_nb_workers);
	fx_rss_reta_size = FX_RSS_MODEL_RETA;
	fx_affinity_mode = FX_AFF_RSS;
	snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
		 "--rss-model: a software model of symmetric RSS spread the packets "
		 "(tests only)");
}

void
fx_affinity_decide(void)
{
	char why[160];

	if (fx_nb_workers == 1) {
		fx_affinity_mode = FX_AFF_SINGLE;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "one worker lcore tracks every flow");
	} else if (fx_conf.expiry == FX_EXPIRY_NONE) {
		fx_affinity_mode = FX_AFF_SINGLE;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "--expiry none keeps no flow state");
	} else if (fx_conf.affinity == FX_AFFINITY_HANDOFF) {
		fx_affinity_mode = FX_AFF_HANDOFF;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "--affinity handoff");
	} else if (fx_conf.rss_model) {
		rss_model();
	} else if (rss_verify(why, sizeof(why)) == 0) {
		fx_affinity_mode = FX_AFF_RSS;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "symmetric RSS and redirection tables verified on every port");
	} else if (fx_conf.affinity == FX_AFFINITY_RSS) {
		rte_exit(EXIT_FAILURE, "--affinity rss: %s\n", why);
	} else {
		fx_affinity_mode = FX_AFF_HANDOFF;
		snprintf(fx_affinity_reason, sizeof(fx_affinity_reason),
			 "auto: %s", why);
	}
	FX_LOG(INFO, "affinity %s: %s", fx_affinity_name(fx_affinity_mode),
	       fx_affinity_reason);
	/* NAT's inbound packets go to their public port's owner in any mode */
	fx_handoff_active = fx_affinity_mode == FX_AFF_HANDOFF ||
		(fx_nat_enabled() && fx_nb_workers > 1);
}
