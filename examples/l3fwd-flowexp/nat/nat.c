/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Masquerade NAT's set-up (nat/nat.h has the design): the port owner
 * table, and each worker's NAT (table, port share and its blocks, wheel,
 * per-host quotas), counted among the workers' NATs for the statistics
 * (nat/format.c). The burst step is nat/burst.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <twheel.h>

#include "base/config.h"
#include "base/quota.h"
#include "flow/tcp_track.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/priv.h"
#include "nat/steer.h"

uint8_t fx_nat_port_owner[65536];
const struct fx_nat *fx_nats[RTE_MAX_LCORE];
unsigned int fx_nb_nats;

void
fx_nat_register(struct fx_nat *nt, unsigned int lcore_id, unsigned int w)
{
	nt->lcore_id = lcore_id;
	fx_nats[w] = nt;
	if (w >= fx_nb_nats)
		fx_nb_nats = w + 1;
}

int
fx_nat_setup(unsigned int nb_workers)
{
	return nat_ports_owner_table(fx_nat_conf.port_lo, fx_nat_conf.port_hi,
				     nb_workers, fx_nat_port_owner);
}

/* the wheel's lazy deadline of a mapping, or of a port block (nat/block.h) */
static uint64_t
mapping_deadline(void *payload, void *arg)
{
	const struct nat_block *b = nat_block_of(payload);

	if (unlikely(b != NULL))
		return b->until;
	return nat_mapping_deadline(payload, arg);
}

/* inside addresses, at most cap (the host table holds no more keys) */
static uint32_t
inside_hosts(uint32_t cap)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < fx_nat_conf.nb_inside && n < cap; i++)
		n += (uint64_t)(~fx_nat_conf.inside[i].mask) + 1;
	return (uint32_t)RTE_MIN(n, (uint64_t)cap);
}

/*
 * The per-host quotas (--nat-max-per-host, --nat-max-per-dest): their
 * limits and tables, each with room for every key that can be present at
 * once (a host, or a host and remote endpoint, per mapping at most).
 */
static int
quotas_init(struct fx_nat *nt, unsigned int lcore_id, uint32_t capacity,
	    int socket)
{
	char name[32];
	int rc;

	nt->max_per_host = fx_nat_conf.max_per_host;
	nt->max_per_dest = fx_nat_conf.max_per_dest;
	if (nt->max_per_dest == NAT_MAX_PER_DEST_AUTO)
		nt->max_per_dest = RTE_MAX(nt->ports.share / NAT_MAX_PER_DEST_DIVISOR, 1u);
	if (nt->max_per_host != 0) {
		snprintf(name, sizeof(name), "natq_host%u", lcore_id);
		rc = fx_quota_init(&nt->per_host, name, inside_hosts(capacity), socket);
		if (rc != 0)
			return rc;
	}
	if (nt->max_per_dest != 0) {
		snprintf(name, sizeof(name), "natq_dest%u", lcore_id);
		rc = fx_quota_init(&nt->per_dest, name, capacity, socket);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
fx_nat_init(struct fx_nat *nt, unsigned int lcore_id, unsigned int w,
	    unsigned int nb_workers, uint32_t capacity, uint32_t budget,
	    const uint64_t *tmo_cycles, uint64_t tick_cycles, int socket)
{
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct twheel_config cfg;
	int rc;

	memset(nt, 0, sizeof(*nt));
	nt->self = (uint16_t)w;
	nt->nb_workers = (uint16_t)nb_workers;
	fx_nat_register(nt, lcore_id, w);
	snprintf(name, sizeof(name), "nat%u", lcore_id);
	rc = nat_table_create(&nt->tbl, name, capacity, socket);
	if (rc != 0)
		return rc;
	/* eim: each unit's binding entry beside its counts (nat/bib.h) */
	rc = nat_ports_init(&nt->ports, fx_nat_conf.port_lo, fx_nat_conf.port_hi,
			    nb_workers, w, fx_nat_conf.nb_pool,
			    fx_nat_conf.mapping == NAT_MAP_EIM ?
			    sizeof(struct nat_bib_entry) : 0, socket);
	if (rc != 0)
		goto fail;
	rc = nat_blocks_init(&nt->blocks, &nt->ports, fx_nat_conf.port_block,
			     fx_nat_conf.max_blocks_per_host, socket);
	if (rc != 0)
		goto fail;
	/* with port blocks, an entry for each block beside the mappings' */
	twheel_config_standard(&cfg, name, capacity + nt->blocks.nb, socket);
	cfg.tick_cycles = tick_cycles ? tick_cycles : 1;
	cfg.deadline_fn = mapping_deadline;
	cfg.deadline_arg = nt;
	nt->wheel = twheel_create(&cfg);
	if (nt->wheel == NULL) {
		rc = -rte_errno;
		goto fail;
	}
	nt->fired = rte_malloc_socket("nat_fired",
				      sizeof(struct twheel_fired) * budget,
				      RTE_CACHE_LINE_SIZE, socket);
	if (nt->fired == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	nt->tcp_ends = rte_zmalloc_socket("nat_tcp", sizeof(*nt->tcp_ends) * capacity,
					  RTE_CACHE_LINE_SIZE, socket);
	if (nt->tcp_ends == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = quotas_init(nt, lcore_id, capacity, socket);
	if (rc != 0)
		goto fail;
	if (fx_nat_conf.mapping == NAT_MAP_EIM) {
		/* at most one binding a session */
		snprintf(name, sizeof(name), "natbib%u", lcore_id);
		rc = nat_bib_create(&nt->bib, name, capacity, &nt->ports,
				    fx_nat_conf.filtering == NAT_FILTER_ADF, socket);
		if (rc != 0)
			goto fail;
	}
	nt->budget = budget;
	memcpy(nt->tmo_cycles, tmo_cycles, sizeof(nt->tmo_cycles));
	nt->holddown_cycles = (uint64_t)(fx_nat_conf.holddown_s *
					 (double)rte_get_tsc_hz());
	return 0;
fail:
	fx_nat_fini(nt);
	return rc;
}

uint64_t
fx_nat_bytes(uint32_t capacity, unsigned int nb_workers)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint32_t ports = (uint32_t)c->port_hi - c->port_lo + 1;
	uint64_t share = (ports + nb_workers - 1) / RTE_MAX(nb_workers, 1u);
	uint64_t b;

	b = (uint64_t)capacity * (sizeof(struct nat_mapping) + sizeof(struct nat_tcp_ends));
	b += rte_align64pow2(RTE_MAX((capacity + 1) / 2, 2u)) * sizeof(struct fx_ix_bucket);
	b += (uint64_t)c->nb_pool * NAT_PROTO_MAX * share * sizeof(struct nat_port_unit);
	b += sizeof(struct nat_steer);   /* under rss: the class (nat/steer.h) */
	if (c->max_per_host != 0)
		b += rte_align64pow2(2 * (uint64_t)inside_hosts(capacity)) * sizeof(fx_quota_slot_t);
	if (c->max_per_dest != 0)
		b += rte_align64pow2(2 * (uint64_t)capacity) * sizeof(fx_quota_slot_t);
	return b;
}

void
fx_nat_fini(struct fx_nat *nt)
{
	fx_nat_steer_fini(nt);
	rte_free(nt->fired);
	nat_bib_free(&nt->bib);
	fx_quota_fini(&nt->per_dest);
	fx_quota_fini(&nt->per_host);
	rte_free(nt->tcp_ends);
	twheel_free(nt->wheel);
	nat_blocks_fini(&nt->blocks);
	nat_ports_fini(&nt->ports);
	nat_table_free(&nt->tbl);
	nt->fired = NULL;
	nt->tcp_ends = NULL;
	nt->wheel = NULL;
}
