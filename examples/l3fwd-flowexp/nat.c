/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Masquerade NAT in the worker (nat.h has the design): classification,
 * the per-packet step, the reaper on the worker's wheel, statistics.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include <twheel.h>

#include "flow_state.h"
#include "flowexp.h"
#include "nat.h"
#include "nat_conf.h"
#include "nat_translate.h"
#include "route.h"
#include "stats.h"

/* owner of each public port (worker index; 0xff outside the range) */
static uint8_t port_owner[65536];

int
fx_nat_setup(unsigned int nb_workers)
{
	return nat_ports_owner_table(fx_nat_conf.port_lo, fx_nat_conf.port_hi,
				     nb_workers, port_owner);
}

static uint64_t
mapping_deadline(void *payload, void *arg)
{
	const struct nat_mapping *m = payload;
	const struct fx_nat *nt = arg;

	if (m->state == NAT_HELD)
		return m->held_until;
	return m->last + nt->tmo_cycles[m->tmo];
}

int
fx_nat_init(struct fx_nat *nt, unsigned int lcore_id, unsigned int w,
	    uint32_t capacity, uint32_t budget, const uint64_t *tmo_cycles,
	    uint64_t tick_cycles, int socket)
{
	char name[TWHEEL_NAME_MAX_LEN + 1];
	struct twheel_config cfg;
	int rc;

	memset(nt, 0, sizeof(*nt));
	snprintf(name, sizeof(name), "nat%u", lcore_id);
	rc = nat_table_create(&nt->tbl, name, capacity, socket);
	if (rc != 0)
		return rc;
	rc = nat_ports_init(&nt->ports, fx_nat_conf.port_lo, fx_nat_conf.port_hi,
			    fx_nb_workers, w, fx_nat_conf.nb_pool, socket);
	if (rc != 0)
		goto fail;
	twheel_config_standard(&cfg, name, capacity, socket);
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
	nt->budget = budget;
	memcpy(nt->tmo_cycles, tmo_cycles, sizeof(nt->tmo_cycles));
	nt->holddown_cycles = (uint64_t)(fx_nat_conf.holddown_s *
					 (double)rte_get_tsc_hz());
	return 0;
fail:
	fx_nat_fini(nt);
	return rc;
}

void
fx_nat_fini(struct fx_nat *nt)
{
	rte_free(nt->fired);
	twheel_free(nt->wheel);
	nat_ports_fini(&nt->ports);
	nat_table_free(&nt->tbl);
	nt->fired = NULL;
	nt->wheel = NULL;
}

/* ---- classification (receiving worker) ---- */

static inline enum nat_proto
proto_class(uint8_t proto)
{
	return proto == IPPROTO_TCP ? NAT_PROTO_TCP :
		proto == IPPROTO_UDP ? NAT_PROTO_UDP : NAT_PROTO_ICMP;
}

static inline struct rte_ipv4_hdr *
ipv4_of(const struct rte_mbuf *m, const struct fx_pkt *pk)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pk->l2_len);
}

/* the ICMP header of an IPv4 packet, and how many bytes of it there are */
static inline struct rte_icmp_hdr *
icmp_of(const struct rte_mbuf *m, const struct fx_pkt *pk, uint32_t *len)
{
	struct rte_ipv4_hdr *ip = ipv4_of(m, pk);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t seg = rte_pktmbuf_data_len(m) - pk->l2_len;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);

	*len = RTE_MIN(tot, seg) - ihl;
	return (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
}

/*
 * The packet an ICMP error quotes: its IPv4 header and how many bytes of
 * it are there, or NULL if too little is quoted to name a mapping (the
 * IPv4 header and the first 8 bytes of L4, RFC 792) or it is a fragment.
 */
static inline struct rte_ipv4_hdr *
quoted_of(struct rte_icmp_hdr *icmp, uint32_t icmp_len, uint32_t *qlen)
{
	struct rte_ipv4_hdr *q = (struct rte_ipv4_hdr *)(icmp + 1);
	uint32_t ihl;

	if (icmp_len < sizeof(*icmp) + sizeof(*q))
		return NULL;
	*qlen = icmp_len - sizeof(*icmp);
	ihl = rte_ipv4_hdr_len(q);
	if ((q->version_ihl >> 4) != 4 || ihl < sizeof(*q) || *qlen < ihl + 8 ||
	    (rte_be_to_cpu_16(q->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK))
		return NULL;
	return q;
}

/* source or destination port (ICMP: echo identifier) of a quoted packet */
static inline uint16_t
quoted_port(const struct rte_ipv4_hdr *q, bool src)
{
	const uint8_t *l4 = (const uint8_t *)q + rte_ipv4_hdr_len(q);

	if (q->next_proto_id == IPPROTO_ICMP)
		return nat_rd16(l4 + 4);
	return nat_rd16(l4 + (src ? 0 : 2));
}

/*
 * The flow-table hash of the connection a quoted packet belongs to (the
 * key the parser built for that connection's packets): the quote is a
 * reply the NAT delivered to an inside host, so its destination is the
 * inside end.
 */
static uint32_t
quoted_sig(const struct rte_ipv4_hdr *q, uint16_t vlan)
{
	struct fx_pkt p;

	memset(&p, 0, sizeof(p));
	p.key.family = FX_FAMILY_V4;
	p.key.proto = q->next_proto_id;
	p.key.vlan = vlan;
	memcpy(p.key.addr[0], &q->dst_addr, 4);
	memcpy(p.key.addr[1], &q->src_addr, 4);
	if (q->next_proto_id == IPPROTO_ICMP) {
		p.key.port[0] = p.key.port[1] = quoted_port(q, true);
	} else {
		p.key.port[0] = quoted_port(q, false);
		p.key.port[1] = quoted_port(q, true);
	}
	fx_key_order(&p, 4);
	return rte_hash_crc(&p.key, sizeof(p.key), 0);
}

uint8_t
fx_nat_classify(struct fx_nat *nt, const struct rte_mbuf *m,
		const struct fx_pkt *pk, uint16_t self, uint16_t *owner)
{
	const struct nat_conf *c = &fx_nat_conf;
	uint32_t src, dst, len, qlen;
	struct rte_icmp_hdr *icmp;
	struct rte_ipv4_hdr *q;
	uint16_t port;
	uint8_t o;

	if (pk->key.family != FX_FAMILY_V4)
		return FX_NAT_NONE;
	memcpy(&src, pk->key.addr[pk->dir], 4);
	memcpy(&dst, pk->key.addr[pk->dir ^ 1], 4);
	if (nat_is_pool(c, dst)) {
		port = pk->key.port[pk->dir ^ 1];
		if (pk->key.proto == IPPROTO_ICMP && !pk->fragment) {
			icmp = icmp_of(m, pk, &len);
			if (nat_icmp_is_error(icmp->icmp_type)) {
				q = quoted_of(icmp, len, &qlen);
				/* the quoted packet left from the public port */
				port = q != NULL ? quoted_port(q, true) : 0;
			}
		}
		/* the port's owner; a port outside the range has none and
		 * the packet is dropped where it arrived */
		o = port_owner[rte_be_to_cpu_16(port)];
		*owner = o != 0xff ? o : self;
		if (*owner != self)
			FX_STAT_ADD(&nt->st, nat_handoff, 1);
		return FX_NAT_IN;
	}
	if (!nat_is_inside(c, src))
		return FX_NAT_NONE;
	/* an inside host's ICMP error belongs to the connection it quotes:
	 * under handoff, to the owner of that connection's key */
	if (pk->key.proto == IPPROTO_ICMP && !pk->fragment &&
	    fx_affinity_mode == FX_AFF_HANDOFF) {
		icmp = icmp_of(m, pk, &len);
		if (nat_icmp_is_error(icmp->icmp_type)) {
			q = quoted_of(icmp, len, &qlen);
			if (q != NULL)
				*owner = fx_handoff_owner(quoted_sig(q, pk->key.vlan),
							  (uint16_t)fx_nb_workers);
		}
	}
	return FX_NAT_OUT;
}

/* ---- the per-packet step (owner) ---- */

struct taken_ctx {
	const struct nat_table *tbl;
	uint32_t pub_addr;
	uint32_t rem_addr;
	uint16_t rem_port;
	uint8_t proto;
};

static bool
tuple_taken(uint16_t port, void *arg)
{
	const struct taken_ctx *t = arg;

	return nat_table_tuple_taken(t->tbl, t->pub_addr, rte_cpu_to_be_16(port),
				     t->rem_addr, t->rem_port, t->proto);
}

/* A packet's own 5-tuple as the mapping table keys it. */
static inline void
packet_key(const struct fx_pkt *pk, struct nat_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(&k->src, pk->key.addr[pk->dir], 4);
	memcpy(&k->dst, pk->key.addr[pk->dir ^ 1], 4);
	k->sport = pk->key.port[pk->dir];
	k->dport = pk->key.port[pk->dir ^ 1];
	k->proto = pk->key.proto;
}

/* the out key (ICMP error from inside) or in key (from outside) of the
 * mapping a quoted packet belongs to */
static inline void
quoted_key(const struct rte_ipv4_hdr *q, struct nat_key *k)
{
	memset(k, 0, sizeof(*k));
	k->src = q->dst_addr;
	k->dst = q->src_addr;
	k->proto = q->next_proto_id;
	if (k->proto == IPPROTO_ICMP) {
		k->sport = k->dport = quoted_port(q, true);
	} else {
		k->sport = quoted_port(q, false);
		k->dport = quoted_port(q, true);
	}
}

/* the mapping's state after this packet (out: dir 0, in: dir 1): replied,
 * and for TCP the connection's state; a shorter timeout is filed again */
static inline void
mapping_state(struct fx_nat *nt, struct nat_mapping *m, const struct fx_pkt *pk,
	      bool out)
{
	struct fx_pkt p = *pk;
	bool reopen = false;
	uint64_t old_deadline, new_deadline;
	uint8_t flags, tmo;

	p.dir = out ? 0 : 1;
	flags = fx_state_next(m->flags, &p, &reopen);
	if (likely(flags == m->flags))
		return;
	old_deadline = mapping_deadline(m, nt);
	m->flags = flags;
	tmo = fx_state_class(flags, m->proto);
	if (tmo == m->tmo)
		return;
	m->tmo = tmo;
	new_deadline = mapping_deadline(m, nt);
	if (new_deadline < old_deadline) {
		/* FIN, RST: an earlier deadline must be filed again */
		twheel_move(nt->wheel, m->id, new_deadline);
		FX_STAT_ADD(&nt->st, nat_shortened, 1);
	}
}

/* A new mapping for outbound packet pk with key k; NULL with the counter
 * of the reason bumped. */
static struct nat_mapping *
mapping_new(struct fx_nat *nt, uint64_t now, const struct fx_pkt *pk,
	    const struct nat_key *k, bool key_seen)
{
	const struct nat_conf *c = &fx_nat_conf;
	struct nat_mapping tmpl, *m;
	struct taken_ctx tc;
	enum nat_proto pc = proto_class(k->proto);
	uint16_t port;
	uint64_t id;
	int err;

	if (k->proto == IPPROTO_TCP && !fx_state_is_syn(pk)) {
		FX_STAT_ADD(&nt->st, nat_non_syn, 1);
		return NULL;
	}
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.in_addr = k->src;
	tmpl.in_port = k->sport;
	tmpl.rem_addr = k->dst;
	tmpl.rem_port = k->dport;
	tmpl.proto = k->proto;
	tmpl.pool_idx = (uint16_t)nat_pool_index(c, k->src);
	tmpl.pub_addr = c->pool[tmpl.pool_idx];
	tc.tbl = &nt->tbl;
	tc.pub_addr = tmpl.pub_addr;
	tc.rem_addr = k->dst;
	tc.rem_port = k->dport;
	tc.proto = k->proto;
	if (nat_ports_alloc(&nt->ports, tmpl.pool_idx, pc,
			    rte_be_to_cpu_16(k->sport), tuple_taken, &tc,
			    &port) != 0) {
		FX_STAT_ADD(&nt->st, nat_no_port, 1);
		return NULL;
	}
	tmpl.pub_port = rte_cpu_to_be_16(port);
	tmpl.last = now;
	tmpl.flags = 0;   /* made by an outbound packet: direction 0 */
	if (pk->tcp_flags != 0) {
		struct fx_pkt p = *pk;

		p.dir = 0;
		tmpl.flags = fx_state_first(&p);
	}
	tmpl.tmo = fx_state_class(tmpl.flags, k->proto);
	/* the bulk lookup missed the out key, the allocator the in key; a
	 * key found there that was not this mapping's (which classification
	 * rules out) takes the checked path */
	m = key_seen ? nat_table_add(&nt->tbl, &tmpl, &err) :
		nat_table_insert(&nt->tbl, &tmpl, &err);
	if (m == NULL)
		goto full;
	id = twheel_schedule(nt->wheel, mapping_deadline(m, nt), m);
	if (id == TWHEEL_ID_INVALID) {
		nat_table_remove(&nt->tbl, m);
		goto full;
	}
	nat_table_publish(m, id);
	FX_STAT_ADD(&nt->st, nat_created, 1);
	FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active + 1);
	return m;
full:
	nat_ports_put(&nt->ports, tmpl.pool_idx, pc, port);
	FX_STAT_ADD(&nt->st, nat_table_full, 1);
	return NULL;
}

/* rewrite the fx_pkt key as the translated packet's, for the route lookup */
static inline void
key_translated(struct fx_pkt *pk, bool out, uint32_t addr, uint16_t port)
{
	unsigned int ep = out ? pk->dir : pk->dir ^ 1;

	memcpy(pk->key.addr[ep], &addr, 4);
	pk->key.port[ep] = port;
}

/* ICMP error about a mapping's packet: translate with it, or drop */
static void
icmp_error(struct fx_nat *nt, struct rte_mbuf *mb, struct fx_pkt *pk, bool out)
{
	struct rte_ipv4_hdr *ip = ipv4_of(mb, pk), *q;
	struct rte_icmp_hdr *icmp;
	struct nat_mapping *m;
	struct nat_key k;
	const struct nat_key *kp = &k;
	uint32_t len, qlen;

	icmp = icmp_of(mb, pk, &len);
	q = quoted_of(icmp, len, &qlen);
	if (q == NULL || (q->next_proto_id != IPPROTO_TCP &&
			  q->next_proto_id != IPPROTO_UDP &&
			  q->next_proto_id != IPPROTO_ICMP)) {
		pk->nat = FX_NAT_DROP;
		FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
		return;
	}
	quoted_key(q, &k);
	nat_table_lookup_bulk(&nt->tbl, &kp, 1, &m);
	/* out: the quote is a reply the NAT delivered (its out key from the
	 * host's side); in: a packet the NAT sent (its in key) */
	if (m == NULL || m->state != NAT_LIVE || nat_mapping_is_out(m, &k) != out ||
	    (out ? ip->src_addr != m->in_addr : ip->dst_addr != m->pub_addr)) {
		pk->nat = FX_NAT_DROP;
		FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
		return;
	}
	if (out) {
		nat_icmp_error_translate(ip, icmp, q, qlen, false, m->pub_addr,
					 m->pub_port);
		key_translated(pk, true, m->pub_addr, pk->key.port[pk->dir]);
	} else {
		nat_icmp_error_translate(ip, icmp, q, qlen, true, m->in_addr,
					 m->in_port);
		key_translated(pk, false, m->in_addr, pk->key.port[pk->dir ^ 1]);
	}
	pk->nat = FX_NAT_FORWARD;
	FX_STAT_ADD(&nt->st, nat_icmp_errors, 1);
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
		icmp = icmp_of(mb, pk, &len);
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
	struct nat_mapping *map[MAX_PKT_BURST], *m;
	const struct nat_key *k;
	struct rte_ipv4_hdr *ip;
	struct fx_pkt *pk;
	bool out, seen, is_error[MAX_PKT_BURST];
	uint32_t ihl, l4_len;
	uint16_t i, j, nk = 0, made = 0;

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
		nk++;
	}
	nat_table_lookup_bulk(&nt->tbl, kp, nk, map);
	for (j = 0; j < nk; j++)
		if (map[j] != NULL)
			rte_prefetch0(map[j]);

	for (i = 0, j = 0; i < n; i++) {
		pk = fx_pkt_of(pkts[i]);
		if (pk->nat == FX_NAT_DROP)
			continue;
		out = pk->nat == FX_NAT_OUT;
		if (is_error[i]) {
			icmp_error(nt, pkts[i], pk, out);
			continue;
		}
		/* the lookups are in packet order */
		k = &keys[j];
		m = map[j++];
		seen = m != NULL;
		if (m == NULL && out && made != 0) {
			/* an earlier packet of this burst may have made it */
			nat_table_lookup_bulk(&nt->tbl, &k, 1, &m);
		}
		if (m != NULL && (m->state != NAT_LIVE || nat_mapping_is_out(m, k) != out))
			m = NULL;   /* held, or a tuple of the other direction */
		if (m == NULL && out) {
			m = mapping_new(nt, now, pk, k, seen);
			made += m != NULL;
		}
		if (m == NULL) {
			if (!out)
				FX_STAT_ADD(&nt->st, nat_in_nomatch, 1);
			pk->nat = FX_NAT_DROP;
			continue;
		}
		m->last = now;   /* the lazy refresh, either direction */
		mapping_state(nt, m, pk, out);   /* replied, TCP state */
		ip = ipv4_of(pkts[i], pk);
		ihl = rte_ipv4_hdr_len(ip);
		l4_len = rte_be_to_cpu_16(ip->total_length) - ihl;
		if (out) {
			nat_rewrite_v4(ip, (uint8_t *)ip + ihl, l4_len, true,
				       m->pub_addr, m->pub_port, NULL);
			key_translated(pk, true, m->pub_addr, m->pub_port);
			FX_STAT_ADD(&nt->st, nat_out, 1);
		} else {
			nat_rewrite_v4(ip, (uint8_t *)ip + ihl, l4_len, false,
				       m->in_addr, m->in_port, NULL);
			key_translated(pk, false, m->in_addr, m->in_port);
			FX_STAT_ADD(&nt->st, nat_in, 1);
		}
		pk->nat = FX_NAT_FORWARD;
	}
}

/* ---- the reaper ---- */

/* a mapping leaves: its record and keys, its port unit */
static void
mapping_release(struct fx_nat *nt, struct nat_mapping *m)
{
	nat_ports_release(&nt->ports, m->pool_idx, proto_class(m->proto),
			  rte_be_to_cpu_16(m->pub_port));
	nat_table_remove(&nt->tbl, m);
	FX_STAT_ADD(&nt->st, nat_released, 1);
	FX_STAT_SET(&nt->st, nat_held, nt->st.nat_held - 1);
}

/* a live mapping ends (expired at, or flushed at) `at`: into hold-down */
static void
mapping_end(struct fx_nat *nt, struct nat_mapping *m, uint64_t at)
{
	uint64_t id;

	nat_ports_hold(&nt->ports, m->pool_idx, proto_class(m->proto),
		       rte_be_to_cpu_16(m->pub_port));
	FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active - 1);
	FX_STAT_SET(&nt->st, nat_held, nt->st.nat_held + 1);
	m->held_until = at + nt->holddown_cycles;
	id = twheel_schedule(nt->wheel, m->held_until, m);
	nat_table_hold(&nt->tbl, m, m->held_until, id);   /* now HELD */
	if (id == TWHEEL_ID_INVALID)   /* cannot happen: this entry just left */
		mapping_release(nt, m);
}

static void
records(struct fx_nat *nt, const struct twheel_fired *f, unsigned int n,
	uint64_t now)
{
	struct nat_mapping *batch[RTE_HASH_LOOKUP_BULK_MAX], *m;
	unsigned int i, j;

	for (i = 0; i < n; i++)
		rte_prefetch0(f[i].payload);
	for (i = 0; i < n; i++) {
		if (i % RTE_HASH_LOOKUP_BULK_MAX == 0) {
			/* the keys the next records delete, looked up together */
			for (j = 0; j < RTE_HASH_LOOKUP_BULK_MAX && i + j < n; j++)
				batch[j] = f[i + j].payload;
			nat_table_warm(&nt->tbl, batch, j);
		}
		m = f[i].payload;
		if (m->state == NAT_HELD) {
			mapping_release(nt, m);
			continue;
		}
		if (f[i].reason == TWHEEL_DUE) {
			FX_STAT_ADD(&nt->st, nat_expired, 1);
			FX_STAT_ADD(&nt->st, nat_expired_tmo[m->tmo], 1);
			/* the hold-down counts from the deadline, not from
			 * when the sweep got to it */
			mapping_end(nt, m, RTE_MIN(f[i].deadline, now));
		} else {
			FX_STAT_ADD(&nt->st, nat_flushed, 1);
			mapping_end(nt, m, now);
		}
	}
}

bool
fx_nat_poll(struct fx_nat *nt, uint64_t now, bool ask)
{
	struct twheel_stats ws;
	uint64_t exhausted = 0;
	unsigned int n;

	if (ask) {
		twheel_stats_get(nt->wheel, &ws);
		exhausted = ws.budget_exhausted;
	}
	n = twheel_sweep(nt->wheel, now, nt->budget, nt->fired);
	records(nt, nt->fired, n, now);
	if (!ask)
		return false;
	/* more may be due: the budget ran out, or hold-downs were just
	 * scheduled that may have ended by now already */
	twheel_stats_get(nt->wheel, &ws);
	return ws.budget_exhausted != exhausted || n != 0;
}

void
fx_nat_drain(struct fx_nat *nt)
{
	struct nat_mapping *m;
	unsigned int n, i;
	struct twheel_stats ws;
	uint64_t exhausted;

	for (;;) {
		twheel_stats_get(nt->wheel, &ws);
		exhausted = ws.budget_exhausted;
		n = twheel_drain(nt->wheel, nt->budget, nt->fired);
		for (i = 0; i < n; i++) {
			m = nt->fired[i].payload;
			if (m->state == NAT_LIVE) {
				nat_ports_put(&nt->ports, m->pool_idx,
					      proto_class(m->proto),
					      rte_be_to_cpu_16(m->pub_port));
				nat_table_remove(&nt->tbl, m);
				FX_STAT_SET(&nt->st, nat_active, nt->st.nat_active - 1);
			} else {
				mapping_release(nt, m);
			}
		}
		if (n != 0)
			continue;
		twheel_stats_get(nt->wheel, &ws);
		if (ws.budget_exhausted == exhausted)
			break;
	}
}

/* ---- control path ---- */

bool
fx_nat_flush_step(struct fx_nat *nt, uint32_t *cursor, uint32_t chunk,
		  const struct fx_route_rule *rule, uint64_t *matched,
		  uint64_t *enobufs)
{
	uint32_t s, end = RTE_MIN(nt->tbl.capacity, *cursor + chunk);
	uint8_t addr[16] = { 0 };
	uint32_t in_addr;
	uint64_t id;
	int rc;

	for (s = *cursor; s < end; s++) {
		if (!nat_table_snapshot(&nt->tbl.rec[s], &id, &in_addr))
			continue;
		memcpy(addr, &in_addr, 4);
		if (!fx_prefix_match(rule, addr, FX_FAMILY_V4))
			continue;
		rc = twheel_remote_cancel(nt->wheel, id);
		if (rc == -ENOBUFS) {
			(*enobufs)++;
			break;   /* this record again at the next step */
		}
		if (rc == 0)
			(*matched)++;
	}
	*cursor = s;
	return s >= nt->tbl.capacity;
}

/* ---- statistics ---- */

void
fx_nat_emit_lcore(const struct fx_nat *nt, const struct fx_emitter *e,
		  void *ctx)
{
	char name[48];
	unsigned int t;

#define FX_NAT_EMIT(n) e->u64(ctx, #n, FX_STAT_GET(&nt->st, n));
	FX_NAT_COUNTERS(FX_NAT_EMIT)
#undef FX_NAT_EMIT
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "nat_expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, FX_STAT_GET(&nt->st, nat_expired_tmo[t]));
	}
	e->u64(ctx, "nat_ports_share", nt->ports.units);
	e->u64(ctx, "nat_ports_free", __atomic_load_n(&nt->ports.nb_free, __ATOMIC_RELAXED));
	e->u64(ctx, "nat_ports_held", __atomic_load_n(&nt->ports.nb_held, __ATOMIC_RELAXED));
}

void
fx_nat_emit_totals(const struct fx_emitter *e, void *ctx)
{
	struct fx_nat_stats sum;
	const struct fx_nat_stats *st;
	char name[48];
	unsigned int w, t;

	memset(&sum, 0, sizeof(sum));
	for (w = 0; w < fx_nb_workers; w++) {
		st = &fx_workers[w]->nat.st;
#define FX_NAT_SUM(n) sum.n += FX_STAT_GET(st, n);
		FX_NAT_COUNTERS(FX_NAT_SUM)
#undef FX_NAT_SUM
		for (t = 0; t < FX_TMO_MAX; t++)
			sum.nat_expired_tmo[t] += FX_STAT_GET(st, nat_expired_tmo[t]);
	}
#define FX_NAT_EMIT(n) e->u64(ctx, #n, sum.n);
	FX_NAT_COUNTERS(FX_NAT_EMIT)
#undef FX_NAT_EMIT
	for (t = 0; t < FX_TMO_MAX; t++) {
		snprintf(name, sizeof(name), "nat_expired_%s", fx_tmo_names[t]);
		e->u64(ctx, name, sum.nat_expired_tmo[t]);
	}
}

uint64_t
fx_nat_total_active(void)
{
	uint64_t n = 0;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++)
		n += FX_STAT_GET(&fx_workers[w]->nat.st, nat_active) +
			FX_STAT_GET(&fx_workers[w]->nat.st, nat_held);
	return n;
}

void
fx_nat_emit(const struct fx_emitter *e, void *ctx)
{
	char name[32];
	unsigned int w;

	e->open(ctx, "totals");
	fx_nat_emit_totals(e, ctx);
	e->close(ctx);
	for (w = 0; w < fx_nb_workers; w++) {
		snprintf(name, sizeof(name), "lcore_%u", fx_workers[w]->lcore_id);
		e->open(ctx, name);
		fx_nat_emit_lcore(&fx_workers[w]->nat, e, ctx);
		e->close(ctx);
	}
}

void
fx_nat_summary(FILE *f)
{
	uint64_t v[7] = { 0 }, free = 0, held = 0, units = 0;
	const struct fx_nat *nt;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		nt = &fx_workers[w]->nat;
		v[0] += FX_STAT_GET(&nt->st, nat_created);
		v[1] += FX_STAT_GET(&nt->st, nat_expired);
		v[2] += FX_STAT_GET(&nt->st, nat_active);
		v[3] += FX_STAT_GET(&nt->st, nat_out);
		v[4] += FX_STAT_GET(&nt->st, nat_in);
		v[5] += FX_STAT_GET(&nt->st, nat_in_nomatch);
		v[6] += FX_STAT_GET(&nt->st, nat_no_port);
		free += nt->ports.nb_free;
		held += nt->ports.nb_held;
		units += nt->ports.units;
	}
	fprintf(f, "masquerade: mappings created %" PRIu64 ", expired %" PRIu64
		", live %" PRIu64 "; translated out %" PRIu64 ", in %" PRIu64
		"; inbound without mapping %" PRIu64 ", no port %" PRIu64
		"; port units free %" PRIu64 ", held %" PRIu64 " of %" PRIu64 "\n",
		v[0], v[1], v[2], v[3], v[4], v[5], v[6], free, held, units);
}
