/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Masquerade NAT in the worker (nat/nat.h has the design): the port owner
 * table, each worker's NAT set-up (table, port share and its blocks, wheel,
 * per-host quotas), and the burst step that looks a burst's
 * tuples up together and hands each packet to its direction's step
 * (nat/in2out.c, nat/out2in.c, nat/icmp.c).
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
#include "fwd/forward.h"
#include "nat/conf.h"
#include "nat/eim.h"
#include "nat/nat.h"
#include "nat/priv.h"

uint8_t fx_nat_port_owner[65536];

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
	if (c->max_per_host != 0)
		b += rte_align64pow2(2 * (uint64_t)inside_hosts(capacity)) * sizeof(fx_quota_slot_t);
	if (c->max_per_dest != 0)
		b += rte_align64pow2(2 * (uint64_t)capacity) * sizeof(fx_quota_slot_t);
	return b;
}

void
fx_nat_fini(struct fx_nat *nt)
{
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

/* ---- the burst step (owner) ---- */

/* A packet's own 5-tuple as the mapping table keys it. */
static inline void
packet_key(const struct fx_pkt *pk, struct nat_key *k)
{
	uint32_t src, dst;

	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	*k = nat_key_make(src, dst, pk->key.port[pk->dir],
			  pk->key.port[pk->dir ^ 1], pk->key.proto);
}

/* whether NAT translates this packet's protocol and message */
static inline bool
supported(const struct rte_mbuf *mb, const struct fx_pkt *pk, bool *is_error)
{
	struct rte_icmp_hdr *icmp;
	uint32_t len;

	*is_error = false;
	if (pk->fragment)
		return false;
	switch (pk->key.proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		return true;
	case IPPROTO_ICMP:
		icmp = nat_icmp_of(mb, pk, &len);
		if (nat_icmp_is_error(icmp->icmp_type)) {
			*is_error = true;
			return true;
		}
		return icmp->icmp_type == NAT_ICMP_ECHO_REQUEST ||
			icmp->icmp_type == NAT_ICMP_ECHO_REPLY;
	default:
		return false;
	}
}

void
fx_nat_translate(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts,
		 uint16_t n)
{
	struct nat_key keys[MAX_PKT_BURST];
	const struct nat_key *kp[MAX_PKT_BURST];
	struct nat_mapping *map[MAX_PKT_BURST];
	struct fx_pkt *kpk[MAX_PKT_BURST];
	struct nat_miss miss[MAX_PKT_BURST];   /* of the outbound keys missed */
	bool is_error[MAX_PKT_BURST];
	struct fx_pkt *pk;
	uint16_t i, j, nk = 0, made = 0;
	unsigned int r;
	bool hairpin, out;

	nt->hairpins = 0;
	/* the packets' own tuples, looked up together */
	for (i = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (unlikely(!supported(pkts[i], pk, &is_error[i]))) {
			pk->nat = FX_NAT_DROP;
			FX_STAT_ADD(&nt->st, nat_unsupported, 1);
			continue;
		}
		if (is_error[i])
			continue;
		packet_key(pk, &keys[nk]);
		kp[nk] = &keys[nk];
		kpk[nk++] = pk;
	}
	/* the records found are read by the lookup; for the outbound
	 * packets it missed, what making their mappings reads first */
	nat_table_lookup_bulk(&nt->tbl, kp, nk, map);
	for (j = 0, r = 0; j < nk; j++) {
		if (map[j] == NULL) {
			if (kpk[j]->nat != FX_NAT_IN)
				r += nat_in2out_prefetch(nt, kpk[j], &keys[j], r,
							 &miss[j]);
			continue;
		}
		/* a TCP segment reads its connection's ends beside the record */
		if (keys[j].proto == IPPROTO_TCP)
			rte_prefetch0(&nt->tcp_ends[nat_table_index(&nt->tbl, map[j])]);
	}
	/* eim: a new session under an existing binding, once the binding's
	 * bucket has come */
	if (nat_bib_on(&nt->bib))
		for (j = 0; j < nk; j++)
			if (map[j] == NULL && kpk[j]->nat == FX_NAT_OUT)
				nat_eim_prefetch_session(nt, &keys[j], &miss[j]);

	/* then each packet, the lookups in packet order */
	for (i = 0, j = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (pk->nat == FX_NAT_DROP)
			continue;
		if (is_error[i]) {
			nat_icmp_error(nt, pkts[i], pk, pk->nat == FX_NAT_OUT);
			continue;
		}
		/* outbound, or a hairpinned packet's outbound half */
		out = pk->nat != FX_NAT_IN;
		hairpin = pk->nat == FX_NAT_HAIRPIN;
		/* the common case inline: a live mapping of its direction */
		if (nat_mapping_serves(map[j], &keys[j], out))
			nat_mapping_hit(nt, now, pkts[i], pk, map[j], out);
		else if (!out)
			nat_out2in(nt, now, pkts[i], pk, &keys[j], map[j]);
		else
			made += nat_in2out(nt, now, pkts[i], pk, &keys[j], map[j],
					   made != 0, &miss[j]);
		j++;
		if (hairpin && pk->nat == FX_NAT_FORWARD) {
			/* from the sender's public endpoint now: inbound */
			pk->nat = FX_NAT_IN;
			FX_STAT_ADD(&nt->st, nat_hairpin, 1);
			nt->hairpins++;
		}
	}
}

uint16_t
fx_nat_burst(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts, uint16_t n,
	     uint16_t *next)
{
	uint16_t i, away = 0;
	uint8_t v;

	fx_nat_translate(nt, now, pkts, n);
	if (unlikely(nt->hairpins != 0))
		fx_nat_hairpin(nt, now, pkts, n);
	for (i = 0; i < n; i++) {
		v = fx_pkt_of(pkts[i])->nat;
		if (likely(v == FX_NAT_FORWARD)) {
			next[i] = FX_VERDICT_ROUTE;
		} else if (v == FX_NAT_IN) {
			/* a hairpin's inbound half, for its port's owner */
			next[i] = FX_VERDICT_HANDOFF;
			away++;
		} else {
			next[i] = FX_VERDICT_DROP;
		}
	}
	return away;
}
