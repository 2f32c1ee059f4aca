/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The main lcore's half of neighbours and of the gateway's own traffic
 * (l3/neigh.h has the design and what the workers read; fwd/slowpath.h what
 * they hand over).
 *
 * One poll, from the main loop:
 *   1. the clock: the TSC, or under --clock pcap the latest capture time
 *      of the packets handed over (a packet's deadlines before its time
 *      are run before it is handled);
 *   2. up to FX_MAIN_BURST packets from each worker's ring, each handled
 *      by its reason: an ARP packet or an NS answered and its sender
 *      learnt, an NA or ARP reply applied to the entry it answers, an
 *      echo request answered, a TTL expiry answered with time exceeded
 *      (both through token buckets), a packet for a neighbour resolved,
 *      held or dropped;
 *   3. the wheel: each entry whose deadline passed gets its timer event
 *      (l3/neigh_fsm.h), at most FX_MAIN_SWEEP work per poll;
 *   4. what the main lcore queued is sent on its own tx queue of each
 *      port (boot/ports.c gives every port with addresses one);
 *   5. the slots of deleted entries whose grace period ended are free
 *      again.
 * Every answer is built in the mbuf of its question (l3/wire.h), so the only
 * mbufs the main lcore allocates are its probes and announcements, from
 * a pool of its own made at start-up.
 *
 * Entries: a slab of FX_NEIGH_SLOTS, each with its state machine, its
 * wheel entry, its held packets. Kinds: on-link (made for a destination
 * or a sender on a connected subnet, deleted when it fails or is unused
 * for --neigh-stale-ms), next hop (made for a route, kept), permanent
 * (--neigh). The network and broadcast addresses of a connected IPv4
 * subnet are never resolved: a packet to them is dropped (hold_dropped). Every entry is in its port's on-link index, so a next hop
 * that is also a destination is one entry. A port that does not resolve
 * (--eth-dest) has no index and learns nothing, but still answers.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include <twheel.h>

#include "base/atomic.h"
#include "base/config.h"
#include "base/time.h"
#include "fwd/parse.h"
#include "fwd/slowpath.h"
#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "l3/neigh_fsm.h"
#include "l3/wire.h"
#include "nat/conf.h"

#define FX_MAIN_BURST 32u        /* packets per worker ring per poll */
#define FX_MAIN_SWEEP 256u       /* wheel work per poll */
#define FX_MAIN_POOL 1023u       /* the main lcore's own mbufs */
#define FX_GARP_POOL_MAX 64u     /* pool addresses announced per port */
#define ICMP4_QUOTE_MAX (576 - 28)    /* RFC 1812 4.3.2.3 */
#define ICMP6_QUOTE_MAX (1280 - 48)   /* RFC 4443 2.4 (c) */
#define NEIGH_TICK_US 1000u

/* one entry (main lcore only) */
struct neigh_entry {
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

/* the addresses of a port with addresses */
struct port_addrs {
	uint8_t n4, n6;
	uint8_t a4[FX_PORT_ADDRS_MAX][4];
	uint8_t len4[FX_PORT_ADDRS_MAX];
	uint8_t a6[FX_PORT_ADDRS_MAX + 1][16];   /* and the link-local one */
	uint8_t len6[FX_PORT_ADDRS_MAX + 1];
	bool arp_pool;           /* answers ARP for the NAT pool */
};

struct main_txbuf {
	uint16_t queue;          /* the main lcore's tx queue; UINT16_MAX: none */
	uint16_t n;
	struct rte_mbuf *m[MAX_PKT_BURST];
};

/* a token bucket on the main lcore's clock */
struct token_bucket {
	uint64_t credit, per, cap, last;
};

/* deleted slots waiting for the end of their grace period, in order */
struct grace_wait {
	uint32_t slot;
	uint64_t token;
};

static struct neigh_entry *entries;      /* [FX_NEIGH_SLOTS] */
static uint32_t *free_slots;             /* a stack */
static uint32_t nb_free;
static struct grace_wait *grace_fifo;    /* a FIFO of FX_NEIGH_SLOTS */
static uint32_t grace_head, grace_n;
static struct twheel *wheel;
static struct fx_nfsm_conf fsm_conf;
static struct port_addrs addrs[FX_MAX_PORTS];
static struct fx_neigh_port_stats counters[FX_MAX_PORTS];
static struct main_txbuf main_tx_bufs[FX_MAX_PORTS];
static struct rte_ether_addr port_mac[FX_MAX_PORTS];
static struct rte_rcu_qsbr *grace_rcu;   /* the workers' quiescent states */
static struct rte_mempool *main_pool;
static struct token_bucket echo_bucket, error_bucket;
static uint32_t held_total;
static uint64_t main_now;                /* the main lcore's time */
static bool enabled;
static unsigned int nb_rings_to_drain;   /* the workers' rings (fwd/slowpath.h) */

/* counters and gauges: the main lcore writes, anyone reads (relaxed) */
#define NEIGH_COUNT(p, f, n) fx_store_relaxed(&counters[p].f, counters[p].f + (n))

static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

bool
fx_neigh_enabled(void)
{
	return enabled;
}

/* ---- addresses ---- */

static bool
prefix_contains(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int full = len / 8, rest = len % 8;

	if (memcmp(a, b, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static bool
port_has_addr4(uint16_t port, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n4; i++)
		if (memcmp(addrs[port].a4[i], a, 4) == 0)
			return true;
	return false;
}

static bool
port_has_addr6(uint16_t port, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n6; i++)
		if (memcmp(addrs[port].a6[i], a, 16) == 0)
			return true;
	return false;
}

/* the port's address to speak to peer from: on its subnet, else the first */
static const uint8_t *
source_addr4(uint16_t port, const uint8_t *peer)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n4; i++)
		if (prefix_contains(addrs[port].a4[i], peer, addrs[port].len4[i]))
			return addrs[port].a4[i];
	return addrs[port].n4 ? addrs[port].a4[0] : NULL;
}

/* likewise for IPv6: on its subnet, else the link-local one (the last) */
static const uint8_t *
source_addr6(uint16_t port, const uint8_t *peer)
{
	unsigned int i;

	for (i = 0; i < addrs[port].n6; i++)
		if (prefix_contains(addrs[port].a6[i], peer, addrs[port].len6[i]))
			return addrs[port].a6[i];
	return addrs[port].n6 ? addrs[port].a6[addrs[port].n6 - 1] : NULL;
}

static void
add_local_addr(uint8_t family, const uint8_t *a)
{
	uint32_t a4;

	if (family == FX_FAMILY_V4 && fx_l3.nb_local4 < FX_LOCAL_MAX) {
		memcpy(&a4, a, 4);
		/* what fx_slow_classify() leaves to NAT */
		fx_l3.local4_nat_pool[fx_l3.nb_local4] =
			fx_nat_enabled() && nat_is_pool(&fx_nat_conf, a4);
		fx_l3.local4[fx_l3.nb_local4++] = a4;
		fx_l3.hint4[a[3]] = 1;
	} else if (family == FX_FAMILY_V6 && fx_l3.nb_local6 < FX_LOCAL_MAX) {
		memcpy(fx_l3.local6[fx_l3.nb_local6++], a, 16);
		fx_l3.hint6[a[15]] = 1;
	}
}

/* ---- sending from the main lcore ---- */

static void
main_tx_flush(uint16_t port)
{
	struct main_txbuf *b = &main_tx_bufs[port];
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(port, b->queue, b->m, b->n);
	NEIGH_COUNT(port, main_tx, sent);
	if (sent < b->n) {
		NEIGH_COUNT(port, main_tx_dropped, b->n - sent);
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

static void
main_tx_send(uint16_t port, struct rte_mbuf *m)
{
	struct main_txbuf *b = &main_tx_bufs[port];

	if (b->queue == UINT16_MAX) {
		NEIGH_COUNT(port, main_tx_dropped, 1);
		rte_pktmbuf_free(m);
		return;
	}
	b->m[b->n++] = m;
	if (b->n == MAX_PKT_BURST)
		main_tx_flush(port);
}

/* a frame of len bytes of the main lcore's own, or NULL */
static uint8_t *
main_frame_alloc(struct rte_mbuf **mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(main_pool);

	*mp = m;
	if (m == NULL)
		return NULL;
	return (uint8_t *)rte_pktmbuf_append(m, len);
}

/* make m hold exactly len bytes from its start (one segment) */
static bool
frame_resize(struct rte_mbuf *m, uint16_t len)
{
	if (m->nb_segs != 1 || rte_pktmbuf_tailroom(m) + m->data_len < len)
		return false;
	m->data_len = len;
	m->pkt_len = len;
	return true;
}

/* ---- publication and the index ---- */

static inline uint32_t
entry_slot(const struct neigh_entry *e)
{
	return (uint32_t)(e - entries);
}

static void
publish_entry(struct neigh_entry *e)
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
count_state_change(struct neigh_entry *e, uint8_t old)
{
	if (old == e->f.state)
		return;
	NEIGH_COUNT(e->port, state[old], -1);
	NEIGH_COUNT(e->port, state[e->f.state], 1);
}

static uint64_t
entry_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct neigh_entry *)payload)->f.deadline;
}

/* the wheel looks at e no later than its deadline (old: the one before) */
static void
schedule_deadline(struct neigh_entry *e, uint64_t old)
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

static struct neigh_entry *
entry_new(uint16_t port, const uint8_t *key, uint8_t family, uint8_t kind)
{
	uint32_t *b = fx_l3.bucket[port], h, i, pos, s;
	struct fx_neigh_pub *p;
	struct neigh_entry *e;

	if (b == NULL)
		return NULL;
	if (nb_free == 0) {
		NEIGH_COUNT(port, neigh_table_full, 1);
		return NULL;
	}
	h = fx_neigh_home(key);
	for (i = 0; i < FX_NEIGH_PROBE; i++) {
		pos = (h + i) & (FX_NEIGH_BUCKETS - 1);
		if (b[pos] == 0 || b[pos] == FX_NEIGH_TOMB)
			break;
	}
	if (i == FX_NEIGH_PROBE) {
		NEIGH_COUNT(port, neigh_table_full, 1);
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
	NEIGH_COUNT(port, neigh_created, 1);
	NEIGH_COUNT(port, state[FX_NS_NONE], 1);
	return e;
}

/* unlink e; its slot is free after a grace period */
static void
entry_delete(struct neigh_entry *e)
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
	NEIGH_COUNT(e->port, state[e->f.state], -1);
	NEIGH_COUNT(e->port, neigh_deleted, 1);
	e->used = false;
	grace_fifo[(grace_head + grace_n) % FX_NEIGH_SLOTS] =
		(struct grace_wait){ .slot = s, .token = rte_rcu_qsbr_start(grace_rcu) };
	grace_n++;
}

static void
reclaim_deleted_slots(void)
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

/* ---- the entry's machine and its actions ---- */

static void
send_probe(struct neigh_entry *e, bool bcast)
{
	uint16_t port = e->port;
	struct rte_mbuf *m = NULL;
	const uint8_t *src;
	uint8_t *f, snm[16], dmac[6];
	const uint8_t *dst = e->key + (e->family == FX_FAMILY_V4 ? 12 : 0);

	if (e->family == FX_FAMILY_V4) {
		src = source_addr4(port, dst);
		if (src == NULL || (f = main_frame_alloc(&m, FX_ETH_MIN)) == NULL)
			goto fail;
		fx_wire_arp_build(f, bcast ? bcast_mac : e->f.mac, FX_ARP_REQUEST,
				  port_mac[port].addr_bytes, src,
				  (const uint8_t [6]){ 0 }, dst);
		NEIGH_COUNT(port, arp_requests_sent, bcast);
		NEIGH_COUNT(port, arp_probes_sent, !bcast);
	} else {
		src = source_addr6(port, dst);
		if (src == NULL || (f = main_frame_alloc(&m, FX_ND_FRAME)) == NULL)
			goto fail;
		fx_wire_ip6_snm(dst, snm);
		if (bcast)
			fx_wire_ip6_mcast_mac(snm, dmac);
		else
			memcpy(dmac, e->f.mac, 6);
		fx_wire_nd_build(f, FX_ICMP6_NS, dmac, port_mac[port].addr_bytes, src,
				 bcast ? snm : dst, dst, 0, true);
		NEIGH_COUNT(port, ns_sent, bcast);
		NEIGH_COUNT(port, ns_probes_sent, !bcast);
	}
	main_tx_send(port, m);
	return;
fail:
	if (m != NULL)
		rte_pktmbuf_free(m);
	NEIGH_COUNT(port, main_tx_dropped, 1);
}

static void
send_to_neighbour(struct neigh_entry *e, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	memcpy(eth->dst_addr.addr_bytes, e->f.mac, 6);
	main_tx_send(e->port, m);
}

static void
release_held(struct neigh_entry *e, bool send)
{
	unsigned int i;

	for (i = 0; i < e->nhold; i++) {
		if (send) {
			send_to_neighbour(e, e->hold[i]);
			NEIGH_COUNT(e->port, hold_sent, 1);
		} else {
			rte_pktmbuf_free(e->hold[i]);
			NEIGH_COUNT(e->port, hold_failed, 1);
		}
	}
	held_total -= e->nhold;
	NEIGH_COUNT(e->port, held, -(int64_t)e->nhold);
	e->nhold = 0;
}

/* carry out acts, the result of an event on e (old: its state and
 * deadline before) */
static void
apply_actions(struct neigh_entry *e, unsigned int acts, uint8_t old_state, uint64_t old_deadline)
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
		NEIGH_COUNT(e->port, neigh_resolved, 1);
	if (acts & FX_NFSM_FAILED)
		NEIGH_COUNT(e->port, neigh_failed, 1);
	if (acts & FX_NFSM_STALE_USE)
		NEIGH_COUNT(e->port, neigh_stale_used, 1);
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

#define ENTRY_EVENT(e, call) do { \
	uint8_t s0_ = (e)->f.state; \
	uint64_t d0_ = (e)->f.deadline; \
	apply_actions((e), (call), s0_, d0_); \
} while (0)

/* the wheel up to main_now */
static bool
run_due_timers(void)
{
	struct twheel_fired out[64];
	unsigned int n, i, work = 0;
	struct neigh_entry *e;
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

/* the main lcore's time is t, if later (--clock pcap); what was due runs */
static void
advance_clock_to(uint64_t t)
{
	if (t <= main_now)
		return;
	main_now = t;
	while (run_due_timers())
		;
}

static struct neigh_entry *
entry_find(uint16_t port, const uint8_t *key)
{
	uint32_t s;

	if (fx_l3.bucket[port] == NULL)
		return NULL;
	s = fx_neigh_find(port, key);
	return s == 0 ? NULL : &entries[s];
}

uint32_t
fx_neigh_pin(uint16_t port, uint8_t family, const uint8_t *gw)
{
	struct neigh_entry *e;
	uint8_t k[16];

	fx_neigh_key(k, gw, family);
	e = entry_find(port, k);
	if (e == NULL)
		e = entry_new(port, k, family, FX_NK_NEXTHOP);
	if (e == NULL)
		return 0;
	if (e->kind == FX_NK_ONLINK)
		e->kind = FX_NK_NEXTHOP;   /* kept from now on */
	return entry_slot(e);
}

/* ---- what the workers hand over ---- */

static void
arp_input(struct rte_mbuf *m, uint16_t port)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), k[16];
	const uint8_t *mac = port_mac[port].addr_bytes;
	bool ours, sender_ok;
	struct neigh_entry *e = NULL;
	enum fx_wire_err err;
	struct fx_arp a;

	NEIGH_COUNT(port, arp_rx, 1);
	err = fx_wire_arp_parse(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN, &a);
	if (err == FX_WIRE_OK && memcmp(a.sha, mac, 6) == 0)
		err = FX_WIRE_SENDER;   /* our own, looped back */
	if (err != FX_WIRE_OK) {
		if (err == FX_WIRE_SENDER)
			NEIGH_COUNT(port, arp_bad_sender, 1);
		else
			NEIGH_COUNT(port, arp_bad, 1);
		goto free;
	}
	if (port_has_addr4(port, a.spa)) {
		NEIGH_COUNT(port, arp_conflict, 1);   /* another host says it has our address */
		goto free;
	}
	ours = port_has_addr4(port, a.tpa);
	if (!ours && addrs[port].arp_pool) {
		uint32_t t;

		memcpy(&t, a.tpa, 4);
		ours = nat_is_pool(&fx_nat_conf, t);
	}
	sender_ok = fx_wire_ip4_unicast(a.spa) &&
		neigh_conf_connected(&fx_neigh_conf, port, FX_FAMILY_V4, a.spa);
	if (sender_ok) {
		fx_neigh_key(k, a.spa, FX_FAMILY_V4);
		e = entry_find(port, k);
		/* a request for us from a new neighbour: learn it (RFC 826) */
		if (e == NULL && ours && a.op == FX_ARP_REQUEST)
			e = entry_new(port, k, FX_FAMILY_V4, FX_NK_ONLINK);
	}
	if (a.op == FX_ARP_REPLY) {
		if (e == NULL || e->f.state == FX_NS_NONE || e->f.state == FX_NS_FAILED) {
			NEIGH_COUNT(port, arp_unsolicited, 1);   /* nothing asked it */
			goto free;
		}
		NEIGH_COUNT(port, arp_replies_rx, 1);
		ENTRY_EVENT(e, fx_nfsm_confirm(&e->f, &fsm_conf, main_now, a.sha, (uint32_t)rte_rand()));
		goto free;
	}
	if (e != NULL)
		ENTRY_EVENT(e, fx_nfsm_learn(&e->f, &fsm_conf, main_now, a.sha));
	if (!ours) {
		NEIGH_COUNT(port, arp_not_ours, 1);
		goto free;
	}
	if (!frame_resize(m, FX_ETH_MIN)) {
		NEIGH_COUNT(port, arp_bad, 1);
		goto free;
	}
	fx_wire_arp_build(f, a.sha, FX_ARP_REPLY, mac, a.tpa, a.sha, a.spa);
	NEIGH_COUNT(port, arp_requests_answered, 1);
	main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}

static void
nd_input(struct rte_mbuf *m, uint16_t port)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), k[16], dmac[6], flags;
	const uint8_t *mac = port_mac[port].addr_bytes;
	struct neigh_entry *e = NULL;
	enum fx_wire_err err;
	struct fx_nd nd;
	bool unspec;

	NEIGH_COUNT(port, nd_rx, 1);
	err = fx_wire_nd_parse(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN, &nd);
	if (err == FX_WIRE_OK && nd.has_lla && memcmp(nd.lla, mac, 6) == 0)
		err = FX_WIRE_SENDER;
	if (err != FX_WIRE_OK) {
		if (err == FX_WIRE_OPTION)
			NEIGH_COUNT(port, nd_bad_option, 1);
		else if (err == FX_WIRE_SENDER)
			NEIGH_COUNT(port, nd_bad_sender, 1);
		else
			NEIGH_COUNT(port, nd_bad, 1);
		goto free;
	}
	if (nd.type != FX_ICMP6_NS && nd.type != FX_ICMP6_NA) {
		NEIGH_COUNT(port, nd_ignored, 1);   /* router discovery, redirects */
		goto free;
	}
	fx_neigh_key(k, nd.type == FX_ICMP6_NS ? nd.src : nd.target, FX_FAMILY_V6);
	if (nd.type == FX_ICMP6_NA) {
		if (port_has_addr6(port, nd.target)) {
			NEIGH_COUNT(port, nd_bad_sender, 1);   /* another node has our address */
			goto free;
		}
		e = entry_find(port, k);
		if (e == NULL || e->f.state == FX_NS_NONE || e->f.state == FX_NS_FAILED) {
			NEIGH_COUNT(port, na_unsolicited, 1);
			goto free;
		}
		NEIGH_COUNT(port, na_rx, 1);
		ENTRY_EVENT(e, fx_nfsm_advert(&e->f, &fsm_conf, main_now, nd.has_lla ? nd.lla : NULL,
					(nd.flags & FX_NA_SOLICITED) != 0,
					(nd.flags & FX_NA_OVERRIDE) != 0, (uint32_t)rte_rand()));
		goto free;
	}
	if (!port_has_addr6(port, nd.target)) {
		NEIGH_COUNT(port, nd_not_ours, 1);
		goto free;
	}
	unspec = fx_wire_ip6_unspec(nd.src);
	if (!unspec && nd.has_lla &&
	    neigh_conf_connected(&fx_neigh_conf, port, FX_FAMILY_V6, nd.src)) {
		e = entry_find(port, k);
		if (e == NULL)
			e = entry_new(port, k, FX_FAMILY_V6, FX_NK_ONLINK);
		if (e != NULL)
			ENTRY_EVENT(e, fx_nfsm_learn(&e->f, &fsm_conf, main_now, nd.lla));
	}
	/* the answer: to the asker, or to all nodes for duplicate detection */
	if (unspec)
		fx_wire_ip6_mcast_mac(all_nodes, dmac);
	else
		memcpy(dmac, nd.has_lla ? nd.lla : f + 6, 6);
	flags = FX_NA_ROUTER | FX_NA_OVERRIDE | (unspec ? 0 : FX_NA_SOLICITED);
	if (!frame_resize(m, FX_ND_FRAME)) {
		NEIGH_COUNT(port, nd_bad, 1);
		goto free;
	}
	fx_wire_nd_build(f, FX_ICMP6_NA, dmac, mac, nd.target, unspec ? all_nodes : nd.src,
			 nd.target, flags, true);
	NEIGH_COUNT(port, ns_answered, 1);
	main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}

static bool
token_take(struct token_bucket *b)
{
	uint64_t t = main_now;

	if (t > b->last) {
		b->credit = RTE_MIN(b->cap, b->credit + (t - b->last));
		b->last = t;
	}
	if (b->credit < b->per)
		return false;
	b->credit -= b->per;
	return true;
}

static void
token_bucket_init(struct token_bucket *b, uint32_t rate, uint32_t burst)
{
	b->per = RTE_MAX(rte_get_tsc_hz() / rate, UINT64_C(1));
	b->cap = b->per * burst;
	b->credit = b->cap;
	b->last = 0;
}

/* the frame's IP family from its EtherType (an untagged frame) */
static uint8_t
frame_family(const uint8_t *f)
{
	return f[12] == 0x86 && f[13] == 0xdd ? FX_FAMILY_V6 : FX_FAMILY_V4;
}

static void
turn_around_l2(uint8_t *f, uint16_t port)
{
	memmove(f, f + 6, 6);
	memcpy(f + 6, port_mac[port].addr_bytes, 6);
}

static void
answer_echo(struct rte_mbuf *m, uint16_t port)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	enum fx_wire_err err;

	if (frame_family(f) == FX_FAMILY_V4)
		err = fx_wire_echo4_reply(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN);
	else
		err = fx_wire_echo6_reply(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN);
	if (err != FX_WIRE_OK || m->nb_segs != 1) {
		NEIGH_COUNT(port, echo_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (!token_take(&echo_bucket)) {
		NEIGH_COUNT(port, echo_ratelimited, 1);
		rte_pktmbuf_free(m);
		return;
	}
	turn_around_l2(f, port);
	NEIGH_COUNT(port, echo_replies, 1);
	main_tx_send(port, m);
}

static void
answer_ttl_exceeded(struct rte_mbuf *m, uint16_t port)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *ip = f + FX_ETH_HLEN, mac[6];
	uint8_t family = frame_family(f);
	size_t hdr, quote, iplen, avail = m->data_len - FX_ETH_HLEN;
	const uint8_t *src;
	enum fx_wire_err err;
	uint32_t d4;

	/* the gateway's own address: delivered, whatever the TTL */
	if (family == FX_FAMILY_V4) {
		memcpy(&d4, ip + 16, 4);
		if (avail >= 21 && fx_l3_local4(d4)) {
			answer_echo(m, port);
			return;
		}
		err = fx_wire_may_error4(ip, avail);
		iplen = (size_t)(ip[2] << 8 | ip[3]);
		hdr = 28;
		quote = ICMP4_QUOTE_MAX;
	} else {
		if (avail >= 40 && fx_l3_local6(ip + 24)) {
			answer_echo(m, port);
			return;
		}
		err = fx_wire_may_error6(ip, avail);
		iplen = 40 + (size_t)(ip[4] << 8 | ip[5]);
		hdr = 48;
		quote = ICMP6_QUOTE_MAX;
	}
	if (err != FX_WIRE_OK || m->nb_segs != 1 || rte_pktmbuf_headroom(m) < hdr) {
		NEIGH_COUNT(port, ttl_not_answered, 1);
		goto free;
	}
	src = family == FX_FAMILY_V4 ? source_addr4(port, ip + 12) : source_addr6(port, ip + 8);
	if (src == NULL) {
		NEIGH_COUNT(port, icmp_no_source, 1);
		goto free;
	}
	if (!token_take(&error_bucket)) {
		NEIGH_COUNT(port, ttl_ratelimited, 1);
		goto free;
	}
	quote = RTE_MIN(quote, RTE_MIN(iplen, avail));
	memcpy(mac, f + 6, 6);
	f = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)hdr);
	memcpy(f, mac, 6);
	memcpy(f + 6, port_mac[port].addr_bytes, 6);
	f[12] = family == FX_FAMILY_V4 ? 0x08 : 0x86;
	f[13] = family == FX_FAMILY_V4 ? 0x00 : 0xdd;
	if (family == FX_FAMILY_V4)
		iplen = fx_wire_time_exceeded4(f + FX_ETH_HLEN, src, quote);
	else
		iplen = fx_wire_time_exceeded6(f + FX_ETH_HLEN, src, quote);
	frame_resize(m, (uint16_t)RTE_MAX(FX_ETH_HLEN + iplen, (size_t)FX_ETH_MIN));
	NEIGH_COUNT(port, ttl_time_exceeded, 1);
	main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}

/* a4 the network or broadcast address of a connected subnet of port */
static bool
is_subnet_edge4(uint16_t port, const uint8_t *a4)
{
	uint32_t a, n, mask;
	unsigned int i;

	memcpy(&a, a4, 4);
	a = rte_be_to_cpu_32(a);
	for (i = 0; i < addrs[port].n4; i++) {
		if (addrs[port].len4[i] >= 31)
			continue;
		memcpy(&n, addrs[port].a4[i], 4);
		n = rte_be_to_cpu_32(n);
		mask = ~UINT32_C(0) << (32 - addrs[port].len4[i]);
		if ((a & mask) == (n & mask) && ((a & ~mask) == 0 || (a & ~mask) == ~mask))
			return true;
	}
	return false;
}

/* a packet whose neighbour a worker could not use */
static void
send_when_resolved(struct rte_mbuf *m)
{
	uint16_t nexthop = fx_slow_nexthop_of(m), port = fx_nexthop_port(nexthop);
	const struct fx_pkt *pk = fx_pkt_of(m);
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, pk->l2_len);
	struct neigh_entry *e = NULL;
	unsigned int acts;
	uint8_t k[16];

	if (port >= FX_MAX_PORTS || fx_l3.bucket[port] == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (nexthop >= FX_NEXTHOP_GW0) {
		e = &entries[fx_l3.nexthop_slot[nexthop]];
	} else {
		if (pk->key.family == FX_FAMILY_V4 && is_subnet_edge4(port, ip + 16)) {
			NEIGH_COUNT(port, hold_dropped, 1);
			rte_pktmbuf_free(m);
			return;
		}
		fx_neigh_key(k, pk->key.family == FX_FAMILY_V4 ? ip + 16 : ip + 24,
			     pk->key.family);
		e = entry_find(port, k);
		if (e == NULL)
			e = entry_new(port, k, pk->key.family, FX_NK_ONLINK);
		if (e == NULL) {
			NEIGH_COUNT(port, hold_dropped, 1);
			rte_pktmbuf_free(m);
			return;
		}
	}
	{
		uint8_t s0 = e->f.state;
		uint64_t d0 = e->f.deadline;

		acts = fx_nfsm_resolve(&e->f, &fsm_conf, main_now);
		apply_actions(e, acts, s0, d0);
	}
	if (acts & FX_NFSM_USABLE) {
		NEIGH_COUNT(port, sent_direct, 1);
		send_to_neighbour(e, m);
		return;
	}
	if (e->nhold == FX_NEIGH_HOLD || held_total == FX_NEIGH_HOLD_TOTAL) {
		NEIGH_COUNT(port, hold_dropped, 1);
		rte_pktmbuf_free(m);
		return;
	}
	e->hold[e->nhold++] = m;
	held_total++;
	NEIGH_COUNT(port, held, 1);
	NEIGH_COUNT(port, hold_queued, 1);
}

static void
dispatch_by_reason(struct rte_mbuf *m)
{
	uint16_t port = m->port;

	if (port >= FX_MAX_PORTS || !fx_l3.local[port]) {
		rte_pktmbuf_free(m);
		return;
	}
	switch (fx_slow_reason_of(m)) {
	case FX_SLOW_ARP:
		arp_input(m, port);
		break;
	case FX_SLOW_ND:
		nd_input(m, port);
		break;
	case FX_SLOW_ECHO:
		answer_echo(m, port);
		break;
	case FX_SLOW_TTL:
		answer_ttl_exceeded(m, port);
		break;
	case FX_SLOW_HOLD:
		send_when_resolved(m);
		break;
	default:
		rte_pktmbuf_free(m);
		break;
	}
}

bool
fx_neigh_poll(void)
{
	struct rte_mbuf *pkts[FX_MAIN_BURST];
	unsigned int w, n, i;
	bool more = false;
	uint16_t p;

	if (!enabled)
		return false;
	if (fx_conf.clock == FX_CLOCK_TSC)
		advance_clock_to(rte_rdtsc());
	for (w = 0; w < nb_rings_to_drain; w++) {
		n = rte_ring_sc_dequeue_burst(fx_slow_ring(w), (void **)pkts, FX_MAIN_BURST, NULL);
		if (n == FX_MAIN_BURST)
			more = true;
		for (i = 0; i < n; i++) {
			if (fx_conf.clock == FX_CLOCK_PCAP)
				advance_clock_to(fx_clock_pkt(pkts[i], main_now));
			dispatch_by_reason(pkts[i]);
		}
	}
	if (run_due_timers())
		more = true;
	for (p = 0; p < FX_MAX_PORTS; p++)
		main_tx_flush(p);
	reclaim_deleted_slots();
	return more;
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
	entries = rte_zmalloc_socket("fx_neigh", sizeof(*entries) * FX_NEIGH_SLOTS, RTE_CACHE_LINE_SIZE,
				socket);
	free_slots = rte_malloc_socket("fx_neigh_free", sizeof(*free_slots) * FX_NEIGH_SLOTS,
				       0, socket);
	grace_fifo = rte_malloc_socket("fx_neigh_defer", sizeof(*grace_fifo) * FX_NEIGH_SLOTS, 0, socket);
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

int
fx_neigh_init(unsigned int nb_workers)
{
	const struct fx_neigh_conf *c = &fx_neigh_conf;
	const struct fx_port_addr *a;
	const struct fx_static_neigh *sn;
	uint64_t ms = rte_get_tsc_hz() / 1000;
	struct neigh_entry *e;
	uint32_t i, p;
	uint8_t k[16];
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
		addrs[p].arp_pool = fx_l3.local[p] && fx_nat_enabled() &&
			(!nat_roles(&fx_nat_conf) || nat_is_outside_port(&fx_nat_conf, (uint16_t)p));
	}
	for (i = 0; i < c->nb_addr; i++) {
		a = &c->addr[i];
		if (a->family == FX_FAMILY_V4) {
			memcpy(addrs[a->port].a4[addrs[a->port].n4], a->addr, 4);
			addrs[a->port].len4[addrs[a->port].n4++] = a->len;
		} else {
			memcpy(addrs[a->port].a6[addrs[a->port].n6], a->addr, 16);
			addrs[a->port].len6[addrs[a->port].n6++] = a->len;
		}
		add_local_addr(a->family, a->addr);
	}
	fsm_conf.base_reachable = c->reachable_ms * ms;
	fsm_conf.retrans = c->retrans_ms * ms;
	fsm_conf.delay = c->delay_ms * ms;
	fsm_conf.gc_stale = c->stale_ms * ms;
	fsm_conf.probes = (uint8_t)c->probes;
	token_bucket_init(&echo_bucket, c->icmp_rate, c->icmp_burst);
	token_bucket_init(&error_bucket, c->icmp_rate, c->icmp_burst);
	rc = tables_init();
	if (rc != 0)
		return rc;
	for (i = 0; i < c->nb_static; i++) {
		sn = &c->st[i];
		if (!fx_l3.resolve[sn->port])
			continue;
		fx_neigh_key(k, sn->addr, sn->family);
		e = entry_new(sn->port, k, sn->family, FX_NK_STATIC);
		if (e == NULL)
			return -ENOSPC;
		fx_nfsm_permanent(&e->f, sn->mac);
		e->f.since = fx_conf.clock == FX_CLOCK_TSC ? rte_rdtsc() : 0;
		count_state_change(e, FX_NS_NONE);
		publish_entry(e);
	}
	return 0;
}

void
fx_neigh_start(const struct rte_ether_addr *mac, const uint16_t *main_txq,
	       struct rte_rcu_qsbr *grace)
{
	struct port_addrs *l;
	unsigned int p;

	if (!enabled)
		return;
	grace_rcu = grace;
	for (p = 0; p < FX_MAX_PORTS; p++) {
		port_mac[p] = mac[p];
		main_tx_bufs[p].queue = main_txq[p];
		l = &addrs[p];
		if (!fx_l3.local[p] || l->n6 == 0)
			continue;
		/* the link-local address goes last (source_addr6()) */
		fx_wire_ip6_linklocal(port_mac[p].addr_bytes, l->a6[l->n6]);
		l->len6[l->n6] = 64;
		add_local_addr(FX_FAMILY_V6, l->a6[l->n6]);
		l->n6++;
	}
	main_pool = rte_pktmbuf_pool_create("fx_main_pool", FX_MAIN_POOL, 0, FX_MBUF_PRIV_SIZE,
					    RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (main_pool == NULL)
		rte_exit(EXIT_FAILURE, "cannot create the main lcore's mbuf pool: %s\n",
			 rte_strerror(rte_errno));
}

void
fx_neigh_announce(void)
{
	static const uint8_t zero[6];
	struct rte_mbuf *m;
	const struct port_addrs *l;
	unsigned int p, i;
	uint8_t *f;

	if (!enabled)
		return;
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!fx_l3.local[p])
			continue;
		l = &addrs[p];
		for (i = 0; i < l->n4; i++) {
			if ((f = main_frame_alloc(&m, FX_ETH_MIN)) == NULL)
				continue;
			fx_wire_arp_build(f, bcast_mac, FX_ARP_REQUEST, port_mac[p].addr_bytes,
					  l->a4[i], zero, l->a4[i]);
			NEIGH_COUNT(p, garp_sent, 1);
			main_tx_send((uint16_t)p, m);
		}
		for (i = 0; l->arp_pool && i < fx_nat_conf.nb_pool && i < FX_GARP_POOL_MAX; i++) {
			const uint8_t *a = (const uint8_t *)&fx_nat_conf.pool[i];

			if (port_has_addr4((uint16_t)p, a) || (f = main_frame_alloc(&m, FX_ETH_MIN)) == NULL)
				continue;
			fx_wire_arp_build(f, bcast_mac, FX_ARP_REQUEST, port_mac[p].addr_bytes,
					  a, zero, a);
			NEIGH_COUNT(p, garp_sent, 1);
			main_tx_send((uint16_t)p, m);
		}
		for (i = 0; i < l->n6; i++) {
			uint8_t dmac[6];

			if ((f = main_frame_alloc(&m, FX_ND_FRAME)) == NULL)
				continue;
			fx_wire_ip6_mcast_mac(all_nodes, dmac);
			fx_wire_nd_build(f, FX_ICMP6_NA, dmac, port_mac[p].addr_bytes, l->a6[i],
					 all_nodes, l->a6[i], FX_NA_ROUTER | FX_NA_OVERRIDE, true);
			NEIGH_COUNT(p, una_sent, 1);
			main_tx_send((uint16_t)p, m);
		}
		main_tx_flush((uint16_t)p);
	}
}

void
fx_neigh_fini(void)
{
	uint32_t s;
	uint16_t p;

	if (!enabled)
		return;
	/* what is still held goes with the run, not counted as failed */
	for (s = 1; entries != NULL && s < FX_NEIGH_SLOTS; s++) {
		if (entries[s].nhold != 0)
			rte_pktmbuf_free_bulk(entries[s].hold, entries[s].nhold);
		entries[s].nhold = 0;
	}
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (main_tx_bufs[p].n != 0)
			rte_pktmbuf_free_bulk(main_tx_bufs[p].m, main_tx_bufs[p].n);
		main_tx_bufs[p].n = 0;
	}
}

/* ---- statistics ---- */

void
fx_neigh_port_stats(uint16_t port, struct fx_neigh_port_stats *st)
{
	const struct fx_neigh_port_stats *s = &counters[port];
	unsigned int i;

#define FX_NEIGH_COPY(n) st->n = fx_load_relaxed(&s->n);
	FX_NEIGH_COUNTERS(FX_NEIGH_COPY)
#undef FX_NEIGH_COPY
	for (i = 0; i < FX_NS_MAX; i++)
		st->state[i] = fx_load_relaxed(&s->state[i]);
	st->held = fx_load_relaxed(&s->held);
}

static void
emit_stats(const struct fx_neigh_port_stats *st, const struct fx_emitter *e, void *ctx)
{
	char name[48];
	unsigned int i;

#define FX_NEIGH_EMIT(n) e->u64(ctx, #n, st->n);
	FX_NEIGH_COUNTERS(FX_NEIGH_EMIT)
#undef FX_NEIGH_EMIT
	for (i = 1; i < FX_NS_MAX; i++) {
		snprintf(name, sizeof(name), "entries_%s", fx_nstate_names[i]);
		e->u64(ctx, name, st->state[i]);
	}
	e->u64(ctx, "held", st->held);
}

void
fx_neigh_emit_port(uint16_t port, const struct fx_emitter *e, void *ctx)
{
	struct fx_neigh_port_stats st;

	fx_neigh_port_stats(port, &st);
	emit_stats(&st, e, ctx);
}

void
fx_neigh_emit(const struct fx_emitter *e, void *ctx)
{
	struct fx_neigh_port_stats sum, st;
	unsigned int i;
	uint16_t p;

	if (!enabled)
		return;
	memset(&sum, 0, sizeof(sum));
	for (p = 0; p < FX_MAX_PORTS; p++) {
		if (!fx_l3.local[p])
			continue;
		fx_neigh_port_stats(p, &st);
#define FX_NEIGH_SUM(n) sum.n += st.n;
		FX_NEIGH_COUNTERS(FX_NEIGH_SUM)
#undef FX_NEIGH_SUM
		for (i = 0; i < FX_NS_MAX; i++)
			sum.state[i] += st.state[i];
		sum.held += st.held;
	}
	e->open(ctx, "neigh");
	emit_stats(&sum, e, ctx);
	e->close(ctx);
}

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
	const struct neigh_entry *e;
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
