/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The main lcore's neighbour entries (l3/neigh.h has who owns what,
 * fwd/neigh.h what the workers read of them; l3/neigh_priv.h how
 * this file stands among the other neighbour files).
 *
 * Entries: a slab of FX_NEIGH_SLOTS, each with its state machine
 * (l3/neigh_fsm.h), its wheel entry, its held packets. Kinds: on-link
 * (made for a destination or a sender on a connected subnet, deleted
 * when it fails or is unused for --neigh-stale-ms), next hop (made for a
 * route, kept), permanent (--neigh). Every entry is in its port's
 * on-link index, so a next hop that is also a destination is one entry.
 * A port that does not resolve (--eth-dest) has no index and learns
 * nothing, but still answers.
 *
 * An event on an entry (a packet that wants it, an ARP or ND message
 * about it, its deadline) goes to its state machine, whose actions are
 * carried out here: probes sent, the entry published to the workers, its
 * held packets sent or dropped, counted, its deadline put on the main
 * lcore's wheel (a later deadline is found lazily when the earlier one
 * comes). An on-link entry that fails or goes unused is deleted at once;
 * its slot is free again after an RCU grace period (the workers may
 * still read it until then).
 *
 * Memory ordering, with the workers' loads in fwd/neigh.h:
 *   - a new entry's address is written to its published slot before the
 *     index bucket that leads there, which is a release store;
 *   - an entry's until is a relaxed store before the release store of
 *     its MAC word;
 *   - a deleted entry's bucket becomes a tombstone and its MAC word 0,
 *     relaxed stores: a worker that still finds the slot reads this
 *     entry, until the grace period ends.
 * Everything else here is the main lcore's alone.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include <twheel.h>

#include "base/atomic.h"
#include "base/config.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"
#include "l3/local_addr.h"
#include "l3/local_reply.h"
#include "l3/main_tx.h"
#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "l3/neigh_fsm.h"
#include "l3/neigh_priv.h"
#include "l3/neigh_stats.h"
#include "l3/wire.h"

#define FX_MAIN_SWEEP 256u       /* wheel work per poll */
#define NEIGH_TICK_US 1000u

/* one entry (main lcore only) */
struct fx_neigh_entry {
	struct fx_nfsm f;
	twheel_id_t wid;         /* 0: not on the wheel */
	uint32_t bucket;         /* in its port's index */
	uint16_t port;
	uint8_t family;
	uint8_t kind;            /* enum fx_neigh_kind */
	uint8_t nhold;
	bool used;
	struct rte_mbuf *hold[FX_NEIGH_HOLD];
	uint8_t key[16];
};

/* deleted slots waiting for the end of their grace period, in order */
struct grace_wait {
	uint32_t slot;
	uint64_t token;
};

static struct fx_neigh_entry *entries;   /* [FX_NEIGH_SLOTS] */
static uint32_t *free_slots;             /* a stack */
static uint32_t nb_free;
static struct grace_wait *grace_fifo;    /* a FIFO of FX_NEIGH_SLOTS */
static uint32_t grace_head, grace_n;
static struct rte_rcu_qsbr *grace_rcu;   /* the workers' quiescent states */
static struct twheel *wheel;
static struct fx_nfsm_conf fsm_conf;
static uint32_t held_total;
static uint64_t main_now;                /* the main lcore's time */
static bool enabled;
static unsigned int nb_rings_to_drain;   /* the workers' rings (fwd/slowpath.h) */

bool
fx_neigh_enabled(void)
{
	return enabled;
}

uint64_t
fx_neigh_now(void)
{
	return main_now;
}

unsigned int
fx_neigh_nb_rings(void)
{
	return nb_rings_to_drain;
}

/* ---- publication and the index ---- */

static inline uint32_t
entry_slot(const struct fx_neigh_entry *e)
{
	return (uint32_t)(e - entries);
}

static void
publish_entry(struct fx_neigh_entry *e)
{
	struct fx_neigh_pub *p = &fx_neigh_pub[entry_slot(e)];
	uint8_t b[8] = { 0 };
	uint64_t w;

	if (e->f.has_mac && e->f.state != FX_NS_INCOMPLETE && e->f.state != FX_NS_FAILED &&
	    e->f.state != FX_NS_NONE) {
		memcpy(b, e->f.mac, 6);
		b[7] = FX_NEIGH_VALID;
	}
	memcpy(&w, b, sizeof(w));
	/* a value, ordered by the release below */
	fx_store_relaxed(&p->until, e->f.until);
	/* pairs with fx_neigh_dst()'s acquire: the until above comes with it */
	fx_store_release(&p->macw, w);
}

static void
count_state_change(struct fx_neigh_entry *e, uint8_t old)
{
	if (old == e->f.state)
		return;
	FX_NEIGH_COUNT(e->port, state[old], -1);
	FX_NEIGH_COUNT(e->port, state[e->f.state], 1);
}

static uint64_t
entry_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct fx_neigh_entry *)payload)->f.deadline;
}

/* the wheel looks at e no later than its deadline (old: the one before) */
static void
schedule_deadline(struct fx_neigh_entry *e, uint64_t old)
{
	uint64_t d = e->f.deadline;

	if (e->wid == 0) {
		if (d != FX_NFSM_NEVER) {
			e->wid = twheel_schedule(wheel, d, e);
			if (e->wid == 0)
				FX_LOG(ERR, "neighbour wheel: %s", rte_strerror(rte_errno));
		}
		return;
	}
	/* a later deadline is found when its old one comes (lazy) */
	if (d < old && twheel_move(wheel, e->wid, d) != 0)
		e->wid = 0;
}

struct fx_neigh_entry *
fx_neigh_entry_new(uint16_t port, const uint8_t *key, uint8_t family, uint8_t kind)
{
	uint32_t *b = fx_l3.bucket[port], h, i, pos, s;
	struct fx_neigh_pub *p;
	struct fx_neigh_entry *e;

	if (b == NULL)
		return NULL;
	if (nb_free == 0) {
		FX_NEIGH_COUNT(port, neigh_table_full, 1);
		return NULL;
	}
	h = fx_neigh_home(key);
	for (i = 0; i < FX_NEIGH_PROBE; i++) {
		pos = (h + i) & (FX_NEIGH_BUCKETS - 1);
		if (b[pos] == 0 || b[pos] == FX_NEIGH_TOMB)
			break;
	}
	if (i == FX_NEIGH_PROBE) {
		FX_NEIGH_COUNT(port, neigh_table_full, 1);
		return NULL;
	}
	s = free_slots[--nb_free];
	e = &entries[s];
	memset(e, 0, sizeof(*e));
	fx_nfsm_init(&e->f);
	e->port = port;
	e->family = family;
	e->kind = kind;
	e->bucket = pos;
	memcpy(e->key, key, 16);
	p = &fx_neigh_pub[s];
	/* no bucket leads here and a grace period passed since one did: no
	 * worker reads this slot */
	memcpy(p->addr, key, 16);
	p->until = 0;
	p->macw = 0;
	/* pairs with fx_neigh_find()'s acquire: the addr above is there */
	fx_store_release(&b[pos], s);
	FX_NEIGH_COUNT(port, neigh_created, 1);
	FX_NEIGH_COUNT(port, state[FX_NS_NONE], 1);
	return e;
}

/* unlink e; its slot is free after a grace period */
static void
entry_delete(struct fx_neigh_entry *e)
{
	uint32_t *b = fx_l3.bucket[e->port], pos = e->bucket, s = entry_slot(e);

	/* a value: a worker that still finds the slot reads this entry */
	fx_store_relaxed(&b[pos], FX_NEIGH_TOMB);
	/* tombstones before an empty bucket end no probe chain: empty them */
	while (b[(pos + 1) & (FX_NEIGH_BUCKETS - 1)] == 0 && b[pos] == FX_NEIGH_TOMB) {
		fx_store_relaxed(&b[pos], 0);
		pos = (pos - 1) & (FX_NEIGH_BUCKETS - 1);
	}
	fx_store_relaxed(&fx_neigh_pub[s].macw, 0);
	if (e->wid != 0)
		twheel_cancel(wheel, e->wid);
	e->wid = 0;
	FX_NEIGH_COUNT(e->port, state[e->f.state], -1);
	FX_NEIGH_COUNT(e->port, neigh_deleted, 1);
	e->used = false;
	grace_fifo[(grace_head + grace_n) % FX_NEIGH_SLOTS] =
		(struct grace_wait){ .slot = s, .token = rte_rcu_qsbr_start(grace_rcu) };
	grace_n++;
}

void
fx_neigh_reclaim_deleted_slots(void)
{
	struct grace_wait *d;

	while (grace_n != 0) {
		d = &grace_fifo[grace_head];
		if (rte_rcu_qsbr_check(grace_rcu, d->token, false) != 1)
			return;
		free_slots[nb_free++] = d->slot;
		grace_head = (grace_head + 1) % FX_NEIGH_SLOTS;
		grace_n--;
	}
}

struct fx_neigh_entry *
fx_neigh_entry_find(uint16_t port, const uint8_t *key)
{
	uint32_t s;

	if (fx_l3.bucket[port] == NULL)
		return NULL;
	s = fx_neigh_find(port, key);
	return s == 0 ? NULL : &entries[s];
}

struct fx_neigh_entry *
fx_neigh_entry_at(uint32_t slot)
{
	return &entries[slot];
}

/* ---- the entry's machine and its actions ---- */

/* an ARP request or an NS for e, to all (bcast) or to its MAC (a probe) */
static void
send_probe(struct fx_neigh_entry *e, bool bcast)
{
	uint16_t port = e->port;
	struct rte_mbuf *m = NULL;
	const uint8_t *src;
	uint8_t *f, snm[16], dmac[6];
	const uint8_t *dst = e->key + (e->family == FX_FAMILY_V4 ? 12 : 0);

	if (e->family == FX_FAMILY_V4) {
		src = fx_local_addr_source4(port, dst);
		if (src == NULL || (f = fx_main_frame_alloc(&m, FX_ETH_MIN)) == NULL)
			goto fail;
		fx_wire_arp_build(f, bcast ? fx_bcast_mac : e->f.mac, FX_ARP_REQUEST,
				  fx_main_tx_mac(port), src, (const uint8_t [6]){ 0 }, dst);
		FX_NEIGH_COUNT(port, arp_requests_sent, bcast);
		FX_NEIGH_COUNT(port, arp_probes_sent, !bcast);
	} else {
		src = fx_local_addr_source6(port, dst);
		if (src == NULL || (f = fx_main_frame_alloc(&m, FX_ND_FRAME)) == NULL)
			goto fail;
		fx_wire_ip6_snm(dst, snm);
		if (bcast)
			fx_wire_ip6_mcast_mac(snm, dmac);
		else
			memcpy(dmac, e->f.mac, 6);
		fx_wire_nd_build(f, FX_ICMP6_NS, dmac, fx_main_tx_mac(port), src,
				 bcast ? snm : dst, dst, 0, true);
		FX_NEIGH_COUNT(port, ns_sent, bcast);
		FX_NEIGH_COUNT(port, ns_probes_sent, !bcast);
	}
	fx_main_tx_send(port, m);
	return;
fail:
	if (m != NULL)
		rte_pktmbuf_free(m);
	FX_NEIGH_COUNT(port, main_tx_dropped, 1);
}

void
fx_neigh_entry_send(struct fx_neigh_entry *e, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	memcpy(eth->dst_addr.addr_bytes, e->f.mac, 6);
	fx_main_tx_send(e->port, m);
}

/* e's held packets sent (send) or dropped */
static void
release_held(struct fx_neigh_entry *e, bool send)
{
	unsigned int i;

	for (i = 0; i < e->nhold; i++) {
		if (send) {
			fx_neigh_entry_send(e, e->hold[i]);
			FX_NEIGH_COUNT(e->port, hold_sent, 1);
		} else {
			rte_pktmbuf_free(e->hold[i]);
			FX_NEIGH_COUNT(e->port, hold_failed, 1);
		}
	}
	held_total -= e->nhold;
	FX_NEIGH_COUNT(e->port, held, -(int64_t)e->nhold);
	e->nhold = 0;
}

bool
fx_neigh_entry_hold(struct fx_neigh_entry *e, struct rte_mbuf *m)
{
	if (e->nhold == FX_NEIGH_HOLD || held_total == FX_NEIGH_HOLD_TOTAL)
		return false;
	e->hold[e->nhold++] = m;
	held_total++;
	FX_NEIGH_COUNT(e->port, held, 1);
	FX_NEIGH_COUNT(e->port, hold_queued, 1);
	return true;
}

/* carry out acts, the result of an event on e (old: its state and
 * deadline before) */
static void
apply_actions(struct fx_neigh_entry *e, unsigned int acts, uint8_t old_state,
	      uint64_t old_deadline)
{
	if (acts & FX_NFSM_SEND_BCAST)
		send_probe(e, true);
	if (acts & FX_NFSM_SEND_UCAST)
		send_probe(e, false);
	if (acts & FX_NFSM_PUBLISH)
		publish_entry(e);
	if (acts & FX_NFSM_FLUSH)
		release_held(e, true);
	if (acts & FX_NFSM_DROP)
		release_held(e, false);
	if (acts & FX_NFSM_RESOLVED)
		FX_NEIGH_COUNT(e->port, neigh_resolved, 1);
	if (acts & FX_NFSM_FAILED)
		FX_NEIGH_COUNT(e->port, neigh_failed, 1);
	if (acts & FX_NFSM_STALE_USE)
		FX_NEIGH_COUNT(e->port, neigh_stale_used, 1);
	count_state_change(e, old_state);
	/* an on-link entry goes when unused, and at once when it failed: a
	 * packet would start it again anyway, and a scan of the subnet must
	 * not keep the table full */
	if ((acts & (FX_NFSM_DELETE | FX_NFSM_FAILED)) && e->kind == FX_NK_ONLINK &&
	    e->nhold == 0) {
		entry_delete(e);
		return;
	}
	schedule_deadline(e, old_deadline);
}

/* the state machine's call on e, its actions carried out */
#define ENTRY_EVENT(e, call) do { \
	uint8_t s0_ = (e)->f.state; \
	uint64_t d0_ = (e)->f.deadline; \
	apply_actions((e), (call), s0_, d0_); \
} while (0)

bool
fx_neigh_entry_asked(const struct fx_neigh_entry *e)
{
	return e->f.state != FX_NS_NONE && e->f.state != FX_NS_FAILED;
}

void
fx_neigh_entry_learn(struct fx_neigh_entry *e, const uint8_t *mac)
{
	ENTRY_EVENT(e, fx_nfsm_learn(&e->f, &fsm_conf, main_now, mac));
}

void
fx_neigh_entry_confirm(struct fx_neigh_entry *e, const uint8_t *mac)
{
	ENTRY_EVENT(e, fx_nfsm_confirm(&e->f, &fsm_conf, main_now, mac, (uint32_t)rte_rand()));
}

void
fx_neigh_entry_advert(struct fx_neigh_entry *e, const uint8_t *lla, bool solicited,
		      bool override)
{
	ENTRY_EVENT(e, fx_nfsm_advert(&e->f, &fsm_conf, main_now, lla, solicited, override,
				      (uint32_t)rte_rand()));
}

bool
fx_neigh_entry_resolve(struct fx_neigh_entry *e)
{
	uint8_t s0 = e->f.state;
	uint64_t d0 = e->f.deadline;
	unsigned int acts;

	acts = fx_nfsm_resolve(&e->f, &fsm_conf, main_now);
	apply_actions(e, acts, s0, d0);
	return (acts & FX_NFSM_USABLE) != 0;
}

bool
fx_neigh_run_due_timers(void)
{
	struct twheel_fired out[64];
	unsigned int n, i, work = 0;
	struct fx_neigh_entry *e;
	bool more = true;

	while (more && work < FX_MAIN_SWEEP) {
		n = twheel_sweep_more(wheel, main_now, RTE_DIM(out), out, &more);
		work += RTE_DIM(out);
		for (i = 0; i < n; i++) {
			if (out[i].reason != TWHEEL_DUE)
				continue;
			e = out[i].payload;
			e->wid = 0;
			ENTRY_EVENT(e, fx_nfsm_timer(&e->f, &fsm_conf, main_now));
		}
	}
	return more;
}

void
fx_neigh_advance_clock_to(uint64_t t)
{
	if (t <= main_now)
		return;
	main_now = t;
	while (fx_neigh_run_due_timers())
		;
}

uint32_t
fx_neigh_pin(uint16_t port, uint8_t family, const uint8_t *gw)
{
	struct fx_neigh_entry *e;
	uint8_t k[16];

	fx_neigh_key(k, gw, family);
	e = fx_neigh_entry_find(port, k);
	if (e == NULL)
		e = fx_neigh_entry_new(port, k, family, FX_NK_NEXTHOP);
	if (e == NULL)
		return 0;
	if (e->kind == FX_NK_ONLINK)
		e->kind = FX_NK_NEXTHOP;   /* kept from now on */
	return entry_slot(e);
}

/* ---- start-up and shutdown ---- */

static int
tables_init(void)
{
	struct twheel_config wc;
	int socket = (int)rte_socket_id();
	uint32_t s, p;

	fx_neigh_pub = rte_zmalloc_socket("fx_neigh_pub", sizeof(*fx_neigh_pub) * FX_NEIGH_SLOTS,
					  RTE_CACHE_LINE_SIZE, socket);
	entries = rte_zmalloc_socket("fx_neigh", sizeof(*entries) * FX_NEIGH_SLOTS,
				     RTE_CACHE_LINE_SIZE, socket);
	free_slots = rte_malloc_socket("fx_neigh_free", sizeof(*free_slots) * FX_NEIGH_SLOTS,
				       0, socket);
	grace_fifo = rte_malloc_socket("fx_neigh_defer", sizeof(*grace_fifo) * FX_NEIGH_SLOTS,
				       0, socket);
	if (fx_neigh_pub == NULL || entries == NULL || free_slots == NULL || grace_fifo == NULL)
		return -ENOMEM;
	/* slot 0 is never used; the lowest slots are taken first */
	for (s = FX_NEIGH_SLOTS - 1; s >= 1; s--)
		free_slots[nb_free++] = s;
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!fx_l3.resolve[p])
			continue;
		fx_l3.bucket[p] = rte_zmalloc_socket("fx_neigh_idx",
				sizeof(uint32_t) * FX_NEIGH_BUCKETS, RTE_CACHE_LINE_SIZE, socket);
		if (fx_l3.bucket[p] == NULL)
			return -ENOMEM;
	}
	twheel_config_standard(&wc, "fx_neigh", FX_NEIGH_SLOTS, socket);
	wc.tick_cycles = rte_get_tsc_hz() / 1000000 * NEIGH_TICK_US;
	wc.slots = 4096;
	wc.remote_ring_size = 0;
	wc.deadline_fn = entry_deadline;
	wheel = twheel_create(&wc);
	return wheel == NULL ? -rte_errno : 0;
}

/* the permanent entries of --neigh, on the ports that resolve */
static int
static_entries_add(const struct fx_neigh_conf *c)
{
	const struct fx_static_neigh *sn;
	struct fx_neigh_entry *e;
	uint8_t k[16];
	uint32_t i;

	for (i = 0; i < c->nb_static; i++) {
		sn = &c->st[i];
		if (!fx_l3.resolve[sn->port])
			continue;
		fx_neigh_key(k, sn->addr, sn->family);
		e = fx_neigh_entry_new(sn->port, k, sn->family, FX_NK_STATIC);
		if (e == NULL)
			return -ENOSPC;
		fx_nfsm_permanent(&e->f, sn->mac);
		e->f.since = fx_conf.clock == FX_CLOCK_TSC ? rte_rdtsc() : 0;
		count_state_change(e, FX_NS_NONE);
		publish_entry(e);
	}
	return 0;
}

int
fx_neigh_init(unsigned int nb_workers)
{
	const struct fx_neigh_conf *c = &fx_neigh_conf;
	uint64_t ms = rte_get_tsc_hz() / 1000;
	uint32_t p;
	int rc;

	for (p = 0; p < 256; p++)
		fx_l3.nexthop_port[p] = p < FX_NEXTHOP_GW0 ? (uint8_t)p : FX_PORT_NONE;
	fx_l3.max_frame = fx_conf.max_pkt_len ? fx_conf.max_pkt_len - RTE_ETHER_CRC_LEN :
		UINT32_MAX;
	enabled = c->ports != 0;
	if (!enabled)
		return 0;
	nb_rings_to_drain = nb_workers;
	for (p = 0; p < FX_MAX_PORTS; p++) {
		fx_l3.local[p] = c->ports >> p & 1;
		fx_l3.resolve[p] = fx_l3.local[p] && !(fx_conf.eth_dest_given >> p & 1);
	}
	fx_local_addrs_init();
	fsm_conf.base_reachable = c->reachable_ms * ms;
	fsm_conf.retrans = c->retrans_ms * ms;
	fsm_conf.delay = c->delay_ms * ms;
	fsm_conf.gc_stale = c->stale_ms * ms;
	fsm_conf.probes = (uint8_t)c->probes;
	fx_local_reply_init(c->icmp_rate, c->icmp_burst);
	rc = tables_init();
	if (rc != 0)
		return rc;
	return static_entries_add(c);
}

void
fx_neigh_start(const struct rte_ether_addr *mac, const uint16_t *main_txq,
	       struct rte_rcu_qsbr *grace)
{
	if (!enabled)
		return;
	grace_rcu = grace;
	fx_main_tx_start(mac, main_txq);
	fx_local_addrs_add_linklocal();
}

void
fx_neigh_announce(void)
{
	uint16_t p;

	if (!enabled)
		return;
	for (p = 0; p < FX_MAX_PORTS; p++)
		if (fx_l3.local[p])
			fx_local_addrs_announce(p);
}

void
fx_neigh_fini(void)
{
	uint32_t s;

	if (!enabled)
		return;
	/* what is still held goes with the run, not counted as failed */
	for (s = 1; entries != NULL && s < FX_NEIGH_SLOTS; s++) {
		if (entries[s].nhold != 0)
			rte_pktmbuf_free_bulk(entries[s].hold, entries[s].nhold);
		entries[s].nhold = 0;
	}
	fx_main_tx_fini();
}

/* ---- a copy for the telemetry ---- */

/* microseconds from the main lcore's time until t (UINT64_MAX: never) */
static uint64_t
us_until(uint64_t t)
{
	if (t == FX_NFSM_NEVER)
		return UINT64_MAX;
	return t > main_now ? (t - main_now) * 1000000 / rte_get_tsc_hz() : 0;
}

uint32_t
fx_neigh_snapshot(uint16_t port, uint32_t from, struct fx_neigh_snap *out, uint32_t max,
		  uint32_t *total)
{
	const struct fx_neigh_entry *e;
	uint32_t s, n = 0, seen = 0;

	*total = 0;
	if (!enabled || port >= FX_MAX_PORTS || fx_l3.bucket[port] == NULL)
		return 0;
	for (s = 1; s < FX_NEIGH_SLOTS; s++) {
		e = &entries[s];
		if (e->port != port || fx_neigh_find(port, e->key) != s)
			continue;
		(*total)++;
		if (seen++ < from || n == max)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(out[n].addr, e->key + (e->family == FX_FAMILY_V4 ? 12 : 0),
		       e->family == FX_FAMILY_V4 ? 4 : 16);
		memcpy(out[n].mac, e->f.mac, 6);
		out[n].family = e->family;
		out[n].state = e->f.state;
		out[n].kind = e->kind;
		out[n].probes = e->f.probes;
		out[n].held = e->nhold;
		out[n].has_mac = e->f.has_mac;
		out[n].in_us = us_until(e->f.deadline);
		out[n].since_us = main_now > e->f.since ?
			(main_now - e->f.since) * 1000000 / rte_get_tsc_hz() : 0;
		n++;
	}
	return n;
}
