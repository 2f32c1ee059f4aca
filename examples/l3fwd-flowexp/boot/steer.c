/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Whether NAT steers replies to their mapping's worker (nat/steer.h), and
 * each worker's class built, once the affinity is decided (boot/affinity.c):
 * it needs rss affinity (the owner table, fwd/owner.h) and, on every port
 * replies can come in by (the --nat-outside ports, or the one NAT port),
 * plain Toeplitz with the key the example set (boot/ports.c), which
 * boot/affinity.c has verified; what the ports hash with ports (TCP, UDP)
 * is read back from each. --rss-model stands in for the NIC with its own
 * key and table. The log says whether, and if not why.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "base/compat.h"
#include "base/config.h"
#include "base/toeplitz.h"
#include "boot/ports.h"
#include "boot/steer.h"
#include "fwd/owner.h"
#include "nat/conf.h"
#include "nat/nat.h"
#include "nat/steer.h"
#include "worker/lcore.h"

#define STEER_KEY_MAX 128

static uint8_t steer_key[STEER_KEY_MAX];

/* the ports replies come in by */
static uint32_t
reply_ports(void)
{
	return fx_nat_conf.outside_mask != 0 ? fx_nat_conf.outside_mask : fx_conf.portmask;
}

/* one reply port's key and hash types into c; the reason it cannot be
 * steered by in why */
static int
port_conf(uint16_t port, struct nat_steer_conf *c, bool first, char *why, size_t len)
{
	uint8_t key[STEER_KEY_MAX];
	struct rte_eth_rss_conf conf;
	int rc;

	if (fx_ports_rss(port)->how != FX_RSS_SYM_KEY) {
		snprintf(why, len, "port %u hashes with the symmetric Toeplitz function, "
			 "whose input is not the tuple's bits", port);
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	conf.rss_key = key;
	conf.rss_key_len = sizeof(key);
	rc = rte_eth_dev_rss_hash_conf_get(port, &conf);
	if (rc != 0 || conf.rss_key_len < FX_TOEPLITZ_KEY_V4) {
		snprintf(why, len, "port %u: RSS key cannot be read back (%s)", port,
			 rc != 0 ? strerror(-rc) : "too short");
		return -1;
	}
	if (first) {
		memcpy(steer_key, key, conf.rss_key_len);
		c->key_len = conf.rss_key_len;
	} else if (memcmp(steer_key, key, FX_TOEPLITZ_KEY_V4) != 0) {
		snprintf(why, len, "ports hash with different keys (port %u)", port);
		return -1;
	}
	c->proto[NAT_PROTO_TCP] &= (conf.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_TCP) != 0;
	c->proto[NAT_PROTO_UDP] &= (conf.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP) != 0;
	return 0;
}

/* the conf of the run, or -1 with the reason in why */
static int
steer_conf(struct nat_steer_conf *c, char *why, size_t len)
{
	uint16_t port;
	bool first = true;

	memset(c, 0, sizeof(*c));
	c->proto[NAT_PROTO_TCP] = c->proto[NAT_PROTO_UDP] = true;
	c->owner = fx_rss_owner;
	c->reta_size = fx_rss_reta_size;
	c->key = steer_key;
	if (fx_nat_conf.steer == NAT_STEER_OFF) {
		snprintf(why, len, "--nat-steer off");
		return -1;
	}
	if (fx_affinity_mode != FX_AFF_RSS) {
		snprintf(why, len, "affinity %s, not rss", fx_affinity_name(fx_affinity_mode));
		return -1;
	}
	if (fx_conf.rss_model) {
		fx_toeplitz_symmetric_key(steer_key, 40);
		c->key_len = 40;
		return 0;
	}
	RTE_ETH_FOREACH_DEV(port) {
		if (!(reply_ports() & (UINT32_C(1) << port)))
			continue;
		if (port_conf(port, c, first, why, len) != 0)
			return -1;
		first = false;
	}
	if (!c->proto[NAT_PROTO_TCP] && !c->proto[NAT_PROTO_UDP]) {
		snprintf(why, len, "the reply ports hash neither TCP's nor UDP's ports");
		return -1;
	}
	return 0;
}

/* every worker's class; -1 with the reason when one cannot be built */
static int
steer_workers(const struct nat_steer_conf *c, char *why, size_t len)
{
	struct fx_lcore *lc;
	unsigned int w;
	int rc;

	for (w = 0; w < fx_nb_workers; w++) {
		lc = fx_workers[w];
		rc = fx_nat_steer_init(&lc->nat, c, (int)rte_lcore_to_socket_id(lc->lcore_id));
		if (rc != 0) {
			snprintf(why, len, "lcore %u: no class of ports: %s", lc->lcore_id,
				 rc == -ENOENT ? "it owns no redirection table entry" :
				 rte_strerror(-rc));
			while (w-- > 0)
				fx_nat_steer_fini(&fx_workers[w]->nat);
			return -1;
		}
	}
	return 0;
}

void
fx_nat_steer_decide(void)
{
	const struct nat_steer *st;
	struct nat_steer_conf c;
	double lo = 64, hi = 0;
	char why[160];
	unsigned int w;

	if (!fx_nat_enabled())
		return;
	if (steer_conf(&c, why, sizeof(why)) != 0 || steer_workers(&c, why, sizeof(why)) != 0) {
		FX_LOG(INFO, "NAT replies not steered: %s", why);
		return;
	}
	for (w = 0; w < fx_nb_workers; w++) {
		st = fx_workers[w]->nat.steer;
		lo = RTE_MIN(lo, st->bits_min);
		hi = RTE_MAX(hi, st->bits_max);
	}
	FX_LOG(INFO, "NAT replies steered to their mapping's worker: %s%s%s ports chosen "
	       "among those whose reply RSS sends to it (%u-entry table, %.1f to %.1f "
	       "bits of entropy per session)",
	       c.proto[NAT_PROTO_TCP] ? "TCP" : "",
	       c.proto[NAT_PROTO_TCP] && c.proto[NAT_PROTO_UDP] ? " and " : "",
	       c.proto[NAT_PROTO_UDP] ? "UDP" : "", c.reta_size, lo, hi);
}
