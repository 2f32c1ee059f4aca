/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker loop: receive, track, forward, expire.
 *
 * One iteration:
 *   1. load the route table pointer (route.h);
 *   2. with --affinity handoff (handoff.h): take what the other workers
 *      passed to this one, at most a burst from each, and track it (4);
 *      before each rx poll, if a ring to another worker has no room for
 *      a burst, skip the rest of the rx polls (the packets wait in the NIC);
 *   3. for each rx queue: receive a burst, read the TSC once (lc->now),
 *      parse every packet (parse.c) into its mbuf's private area and hash
 *      its key; under handoff, pass the packets another worker owns to it;
 *   4. track the rest: prefetch their buckets together and read each for
 *      its candidate flow (ft_candidate, which prefetches the flow's line),
 *      then per packet compare the key in the candidate flow (ft_confirm):
 *      a hit refreshes the flow (stores the new deadline; the expiry
 *      back-end is not called), a miss creates the flow and hands it to the
 *      back-end; the packet leaves by the flow's cached route, resolved
 *      once per direction;
 *   5. send what is buffered per port;
 *   6. one expiry poll (expiry_*.c), timed: the longest is "sweep_max",
 *      the most flows one poll removed "poll_removed_max", all of them
 *      add up to "expiry_cycles" (a benchmark may hold the polls for a
 *      while with /l3fwd_flowexp/hold);
 *   7. report a quiescent state for route replacement, and time the whole
 *      iteration: the longest is "loop_max", longer than 100 us a "stall";
 *      the iterations that had packets add up to "busy_cycles" (TSC);
 *      the expiry polls of those that had none to "idle_expiry_cycles",
 *      so busy_cycles + idle_expiry_cycles is the worker's work.
 * With --bench each stage of a burst is timed too (rx, parse, handoff,
 * nat, lookup, flow, forward, tx: stats.h), so a benchmark can say where
 * a packet's cycles go; without it the stage marks read no clock.
 * No lock, no system call, no allocation: the mbufs come from the pools
 * and everything else was allocated before launch.
 *
 * Timeout classes (flow_state.h): one-way until answered, conntrack's
 * TCP states, UDP, ICMP, other. When a class change shortens the deadline
 * (established -> closing or RST), the back-end is told (twheel_move,
 * rte_timer re-arm); lengthening is lazy. The flows active in each class
 * are counted (active_<class>).
 *
 * A full table (no free slot, or the back-end refuses) is counted in
 * table_full and the packet is dropped, or with --table-full forward sent
 * on by a route lookup without state; with --table-full evict the oldest
 * unanswered flow makes room first (evict.h).
 */

#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include <twheel.h>

#include "clock.h"
#include "expiry.h"
#include "flow_state.h"
#include "flowexp.h"
#include "handoff.h"
#include "nat.h"
#include "ports.h"
#include "route.h"
#include "worker.h"

/* ---- flow removal, shared by the back-ends ---- */

void
fx_flows_flush(struct fx_lcore *lc)
{
	if (lc->n_gone == 0)
		return;
	ft_delete_bulk(&lc->ft, lc->gone, lc->n_gone);
	FX_STAT_SET(&lc->st, active, lc->st.active - lc->n_gone);
	lc->n_gone = 0;
}

/* unpublish now, remove from the flow index with the next batch */
static inline void
flow_remove(struct fx_lcore *lc, struct fx_flow *f)
{
	ft_unpublish(f);
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	lc->poll_removed++;
	lc->gone[lc->n_gone++] = f;
	if (lc->n_gone == FX_GONE_BATCH)
		fx_flows_flush(lc);
}

void
fx_flow_expired(struct fx_lcore *lc, struct fx_flow *f, uint64_t deadline)
{
	struct fx_lcore_stats *st = &lc->st;
	uint64_t lag = lc->now > deadline ? lc->now - deadline : 0;

	FX_STAT_ADD(st, expired, 1);
	FX_STAT_ADD(st, expired_tmo[f->tmo], 1);
	FX_STAT_ADD(st, lag_sum, lag);
	FX_STAT_ADD(st, lag_n, 1);
	FX_STAT_MAX(st, lag_max, lag);
	flow_remove(lc, f);
}

void
fx_flow_invalidated(struct fx_lcore *lc, struct fx_flow *f)
{
	FX_STAT_ADD(&lc->st, invalidated, 1);
	flow_remove(lc, f);
}

void
fx_flow_drained(struct fx_lcore *lc, struct fx_flow *f)
{
	FX_STAT_ADD(&lc->st, drained, 1);
	flow_remove(lc, f);
}

/* ---- transmit ---- */

static inline void
tx_flush(struct fx_lcore *lc, uint16_t port)
{
	struct fx_txbuf *b = &lc->tx[port];
	uint16_t sent;

	sent = rte_eth_tx_burst(port, lc->tx_queue[port], b->m, b->n);
	FX_STAT_ADD(&lc->st, tx[port], sent);
	if (unlikely(sent < b->n)) {
		FX_STAT_ADD(&lc->st, dropped[port], b->n - sent);
		rte_pktmbuf_free_bulk(&b->m[sent], b->n - sent);
	}
	b->n = 0;
}

static inline void
tx_flush_all(struct fx_lcore *lc)
{
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (lc->tx[p].n != 0)
			tx_flush(lc, p);
}

/*
 * Rewrite the Ethernet addresses, decrement TTL / hop limit, queue on the
 * output port. VLAN tags stay as they came; the IP header is after them.
 */
static inline void
forward(struct fx_lcore *lc, struct rte_mbuf *m, const struct fx_pkt *pk,
	uint16_t out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	void *l3 = rte_pktmbuf_mtod_offset(m, void *, pk->l2_len);
	struct fx_txbuf *b = &lc->tx[out];
	struct rte_ipv4_hdr *ip4;
	struct rte_ipv6_hdr *ip6;
	uint32_t sum;

	rte_ether_addr_copy(&fx_conf.eth_dest[out], &eth->dst_addr);
	rte_ether_addr_copy(&fx_port_mac[out], &eth->src_addr);
	if (pk->key.family == FX_FAMILY_V4) {
		ip4 = l3;
		ip4->time_to_live--;
		/* RFC 1624: the TTL is the high byte of its 16-bit word */
		sum = rte_be_to_cpu_16(ip4->hdr_checksum) + 0x0100;
		sum = (sum & 0xffff) + (sum >> 16);
		ip4->hdr_checksum = rte_cpu_to_be_16((uint16_t)sum);
	} else {
		ip6 = l3;
		ip6->hop_limits--;
	}
	b->m[b->n++] = m;
	if (b->n == MAX_PKT_BURST)
		tx_flush(lc, out);
}

static inline void
drop(struct fx_lcore *lc, uint16_t in_port, struct rte_mbuf *m)
{
	FX_STAT_ADD(&lc->st, dropped[in_port], 1);
	rte_pktmbuf_free(m);
}

/* ---- flow state (flow_state.h) ---- */

/* The flow's timeout class is now tmo: move it between the per-class counts. */
static inline void
flow_class_set(struct fx_lcore *lc, struct fx_flow *f, uint8_t tmo)
{
	if (tmo == f->tmo)
		return;
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&lc->st, active_tmo[tmo], lc->st.active_tmo[tmo] + 1);
	f->tmo = tmo;
}

static inline void
flow_hit(struct fx_lcore *lc, struct fx_flow *f, const struct fx_pkt *pk)
{
	bool reopen = false;
	uint8_t flags;
	uint64_t exp;

	flags = fx_state_next(f->flags, pk, &reopen);
	if (unlikely(flags != f->flags)) {
		f->flags = flags;
		flow_class_set(lc, f, fx_state_class(flags, f->key.proto));
	}
	exp = lc->now + lc->tmo_cycles[f->tmo];
	if (unlikely(exp < f->expire)) {
		f->expire = exp;
		lc->ops->shorten(lc, f);
		FX_STAT_ADD(&lc->st, shortened, 1);
	} else {
		f->expire = exp;   /* the lazy refresh: one store */
	}
	if (unlikely(reopen)) {
		/* a fresh connection on the tuple: the old one ends here */
		fx_evict_note(&lc->ev, &lc->ft, f, f->fid);
		FX_STAT_ADD(&lc->st, reopened, 1);
		FX_STAT_ADD(&lc->st, created, 1);
	} else {
		FX_STAT_ADD(&lc->st, refreshed, 1);
	}
}

/*
 * --table-full evict (evict.h): remove the oldest unanswered flow now, so
 * that its slot takes the new one. false if there is none within the bound.
 */
static bool
flow_evict(struct fx_lcore *lc)
{
	struct fx_flow *f = fx_evict_pick(&lc->ev, &lc->ft);

	if (f == NULL) {
		FX_STAT_ADD(&lc->st, evict_miss, 1);
		return false;
	}
	lc->ops->cancel(lc, f);
	ft_unpublish(f);
	ft_remove(&lc->ft, ft_slot(&lc->ft, f));
	FX_STAT_SET(&lc->st, active_tmo[f->tmo], lc->st.active_tmo[f->tmo] - 1);
	FX_STAT_SET(&lc->st, active, lc->st.active - 1);
	FX_STAT_ADD(&lc->st, evicted, 1);
	return true;
}

static inline struct fx_flow *
flow_new(struct fx_lcore *lc, const struct fx_pkt *pk, hash_sig_t sig)
{
	struct fx_flow *f;
	bool added;
	int32_t pos;
	uint64_t fid;

	if (unlikely(lc->st.active >= fx_conf.max_flows)) {
		/* full, unless an earlier packet of this burst created it */
		pos = ft_lookup(&lc->ft, &pk->key, sig);
		if (pos >= 0 && lc->ft.flows[pos].fid != 0) {
			f = &lc->ft.flows[pos];
			flow_hit(lc, f, pk);
			return f;
		}
		if (fx_conf.full_policy != FX_FULL_EVICT || !flow_evict(lc))
			goto full;
	}
	pos = ft_add(&lc->ft, &pk->key, sig, &added);
	if (unlikely(pos < 0))
		goto full;
	f = &lc->ft.flows[pos];
	if (!added) {
		/* created by an earlier packet of this burst */
		flow_hit(lc, f, pk);
		return f;
	}
	f->port[0] = f->port[1] = FX_PORT_UNKNOWN;
	f->flags = fx_state_first(pk);
	f->tmo = fx_state_class(f->flags, pk->key.proto);
	f->expire = lc->now + lc->tmo_cycles[f->tmo];
	fid = lc->ops->add(lc, f);
	if (unlikely(fid == 0)) {
		ft_remove(&lc->ft, (uint32_t)pos);
		goto full;
	}
	ft_publish(f, fid);
	fx_evict_note(&lc->ev, &lc->ft, f, fid);
	FX_STAT_ADD(&lc->st, created, 1);
	FX_STAT_SET(&lc->st, active, lc->st.active + 1);
	FX_STAT_ADD(&lc->st, active_tmo[f->tmo], 1);
	return f;
full:
	FX_STAT_ADD(&lc->st, table_full, 1);
	return NULL;
}

/* ---- one burst ---- */

/* ---- --bench: cycles per stage (stats.h, FX_STAGES) ---- */

static inline uint64_t
stage_start(void)
{
	return unlikely(fx_conf.bench) ? rte_rdtsc() : 0;
}

/* Add the cycles since t0 to stage s; returns the TSC now (0 without --bench). */
static inline uint64_t
stage_end(struct fx_lcore *lc, enum fx_stage s, uint64_t t0)
{
	uint64_t t;

	if (likely(!fx_conf.bench))
		return 0;
	t = rte_rdtsc();
	FX_STAT_ADD(&lc->st, stage_cycles[s], t - t0);
	return t;
}

/*
 * Parse a received burst: malformed frames are counted and dropped, the
 * others compacted to the front of pkts with their parse result and key
 * hash in their private area and m->port set to the receive port.
 * Returns how many are left.
 */
static uint16_t
rx_parse(struct fx_lcore *lc, uint16_t in_port, struct rte_mbuf **pkts,
	 uint16_t n)
{
	struct fx_lcore_stats *st = &lc->st;
	uint16_t i, nv = 0;
	struct rte_mbuf *m;
	struct fx_pkt *pk;
	int rc;

	FX_STAT_ADD(st, rx[in_port], n);
	FX_STAT_SET(st, last_rx, lc->now);
	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		m = pkts[i];
		pk = fx_pkt_of(m);
		rc = fx_parse(m, pk);
		if (unlikely(rc != FX_PARSE_OK)) {
			FX_STAT_ADD(st, malformed[rc], 1);
			drop(lc, in_port, m);
			continue;
		}
		if (unlikely(pk->fragment))
			FX_STAT_ADD(st, fragments, 1);
		pk->sig = ft_hash(&pk->key);
		pk->owner = fx_affinity_mode == FX_AFF_HANDOFF ?
			fx_handoff_owner(pk->sig, lc->ho.nb_workers) : lc->ho.self;
		pk->nat = fx_nat_enabled() ?
			fx_nat_classify(&lc->nat, m, pk, lc->ho.self, &pk->owner) :
			FX_NAT_NONE;
		m->port = in_port;
		pkts[nv++] = m;
	}
	return nv;
}

/* --expiry none: l3fwd, a route lookup per packet */
static void
route_only(struct fx_lcore *lc, const struct fx_route_table *rt,
	   struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t = stage_start();
	const struct fx_pkt *p;
	uint16_t i, out;

	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		out = fx_route_lookup(rt, &p->key, p->dir ^ 1, pkts[i]->port);
		forward(lc, pkts[i], p, out);
	}
	stage_end(lc, FX_STAGE_FORWARD, t);
}

/*
 * Track and forward parsed packets this worker owns (its own, or handed
 * to it): prefetch the keys' buckets together, read them for each key's
 * candidate flow (which prefetches its line), then per packet compare the
 * key in the candidate flow, refresh or create the flow and take the
 * output port from its cached route; then forward the burst.
 */
static void
track(struct fx_lcore *lc, const struct fx_route_table *rt,
      struct rte_mbuf **pkts, uint16_t n)
{
	int32_t cand[MAX_PKT_BURST];
	uint16_t outs[MAX_PKT_BURST];
	struct fx_flow *flows = lc->ft.flows, *f;
	struct fx_pkt *p;
	uint16_t i, nf, out, in_port;
	uint64_t t;
	int32_t pos;

	if (n == 0)
		return;
	t = stage_start();
	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		if (unlikely(fx_affinity_foreign(&lc->ho, pkts[i], p->sig)))
			FX_STAT_ADD(&lc->ho.st, foreign, 1);
		ft_prefetch(&lc->ft, p->sig);
	}
	for (i = 0; i < n; i++)
		cand[i] = ft_candidate(&lc->ft, fx_pkt_of(pkts[i])->sig);
	t = stage_end(lc, FX_STAGE_LOOKUP, t);

	for (i = 0, nf = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		in_port = pkts[i]->port;
		/*
		 * The candidate was found before this burst's earlier packets
		 * created or evicted flows: a slot freed and taken again since
		 * holds another key (ft_confirm then looks the key up again);
		 * one freed and not taken again would have fid 0 (no path
		 * leaves one within a burst today: checked anyway).
		 */
		pos = ft_confirm(&lc->ft, &p->key, p->sig, cand[i]);
		if (pos >= 0 && likely(flows[pos].fid != 0)) {
			f = &flows[pos];
			flow_hit(lc, f, p);
		} else {
			f = flow_new(lc, p, p->sig);
		}
		if (likely(f != NULL)) {
			out = f->port[p->dir];
			if (unlikely(out == FX_PORT_UNKNOWN)) {
				out = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
				f->port[p->dir] = (uint8_t)out;
			}
		} else if (fx_conf.full_policy == FX_FULL_FORWARD) {
			out = fx_route_lookup(rt, &p->key, p->dir ^ 1, in_port);
		} else {
			drop(lc, in_port, pkts[i]);
			continue;
		}
		pkts[nf] = pkts[i];
		outs[nf++] = out;
	}
	t = stage_end(lc, FX_STAGE_FLOW, t);

	for (i = 0; i < nf; i++)
		forward(lc, pkts[i], fx_pkt_of(pkts[i]), outs[i]);
	stage_end(lc, FX_STAGE_FORWARD, t);
}

/*
 * Masquerade (nat.h): translate this worker's NAT packets of a burst and
 * route them by their new addresses; the others are compacted to the
 * front of pkts for tracking. Returns how many are left.
 */
static uint16_t
nat_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
	  struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *nat[MAX_PKT_BURST];
	struct fx_pkt *p;
	uint16_t i, nn = 0, left = 0, out;

	for (i = 0; i < n; i++) {
		if (fx_pkt_of(pkts[i])->nat == FX_NAT_NONE)
			pkts[left++] = pkts[i];
		else
			nat[nn++] = pkts[i];
	}
	if (nn == 0)
		return left;
	fx_nat_translate(&lc->nat, lc->now, nat, nn);
	for (i = 0; i < nn; i++) {
		p = fx_pkt_of(nat[i]);
		if (p->nat != FX_NAT_FORWARD) {
			drop(lc, nat[i]->port, nat[i]);
			continue;
		}
		out = fx_route_lookup(rt, &p->key, p->dir ^ 1, nat[i]->port);
		forward(lc, nat[i], p, out);
	}
	return left;
}

/* Packets this worker owns, at lc->now: translated, tracked or routed. */
static void
handle(struct fx_lcore *lc, const struct fx_route_table *rt,
       struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t;

	if (fx_nat_enabled()) {
		t = stage_start();
		n = nat_burst(lc, rt, pkts, n);
		stage_end(lc, FX_STAGE_NAT, t);
	}
	if (lc->ops == NULL)
		route_only(lc, rt, pkts, n);
	else
		track(lc, rt, pkts, n);
}

/*
 * One expiry poll of the flows and of the NAT mappings at lc->now. With
 * `ask`, returns whether more may be due at lc->now (--clock pcap expires
 * everything before a packet); the loop's own polls do not ask, so they
 * read no wheel statistics.
 */
static bool
expire(struct fx_lcore *lc, bool ask)
{
	struct twheel_stats ws;
	uint64_t exhausted = 0;
	bool more = false;

	if (lc->ops != NULL) {
		ask = ask && lc->wheel != NULL;
		if (ask) {
			twheel_stats_get(lc->wheel, &ws);
			exhausted = ws.budget_exhausted;
		}
		lc->ops->poll(lc);
		fx_flows_flush(lc);
		if (ask) {
			twheel_stats_get(lc->wheel, &ws);
			more = ws.budget_exhausted != exhausted;
		}
	}
	if (fx_nat_enabled())
		more |= fx_nat_poll(&lc->nat, lc->now, ask);
	return more;
}

/* --clock pcap: time moves to t (never back) and everything due by then
 * expires, whatever the budget */
static void
clock_advance(struct fx_lcore *lc, uint64_t t)
{
	uint64_t t0 = rte_rdtsc();

	if (t > lc->vnow)
		lc->vnow = t;
	lc->now = lc->vnow;
	while (expire(lc, true))
		;
	FX_STAT_ADD(&lc->st, expiry_cycles, rte_rdtsc() - t0);
}

/*
 * Packets this worker owns. With --clock pcap each run of packets with one
 * capture time is handled at that time, after everything due by then
 * expired.
 */
static void
owned(struct fx_lcore *lc, const struct fx_route_table *rt,
      struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, j;
	uint64_t t;

	if (likely(fx_conf.clock == FX_CLOCK_TSC)) {
		handle(lc, rt, pkts, n);
		return;
	}
	for (i = 0; i < n; i = j) {
		t = fx_clock_pkt(pkts[i], lc->vnow);
		for (j = i + 1; j < n && fx_clock_pkt(pkts[j], lc->vnow) == t; j++)
			;
		clock_advance(lc, t);
		handle(lc, rt, pkts + i, j - i);
	}
}

/* --clock pcap: is a packet waiting in a ring from another worker? */
static bool
handoff_waiting(const struct fx_lcore *lc)
{
	uint16_t s;

	if (!fx_handoff_active || lc->ho.in == NULL)
		return false;
	for (s = 0; s < lc->ho.nb_workers; s++)
		if (lc->ho.in[s] != NULL && rte_ring_count(lc->ho.in[s]) != 0)
			return true;
	return false;
}

/*
 * --clock pcap, every worker idle for FX_CLOCK_IDLE_MS of wall time: the
 * capture ended, so time jumps past every timeout and hold-down and
 * everything still tracked expires (once per idle period). A worker is
 * idle from the first iteration that polled all its rx queues and rings
 * and got nothing (`idle`) until one that gets a packet: one that is still
 * reading its queue may yet hand a packet to this one, however long it
 * was kept off the CPU (a wall-time gap since the last packet received is
 * not enough).
 */
static void
clock_idle(struct fx_lcore *lc, uint64_t tsc, bool idle)
{
	uint64_t jump = 0, since, last = fx_stats_last_rx();
	uint64_t wait = rte_get_tsc_hz() / 1000 * FX_CLOCK_IDLE_MS;
	unsigned int t, w;

	if (!idle) {
		if (lc->idle_since != 0)
			__atomic_store_n(&lc->idle_since, 0, __ATOMIC_RELEASE);
		return;
	}
	if (lc->idle_since == 0)
		__atomic_store_n(&lc->idle_since, tsc, __ATOMIC_RELEASE);
	if (last == 0 || last == lc->jumped_rx)
		return;
	for (w = 0; w < fx_nb_workers; w++) {
		since = __atomic_load_n(&fx_workers[w]->idle_since, __ATOMIC_ACQUIRE);
		if (since == 0 || since > tsc || tsc - since < wait)
			return;
	}
	/* handed over before its sender went idle, after this one polled */
	if (handoff_waiting(lc))
		return;
	for (t = 0; t < FX_TMO_MAX; t++)
		jump = RTE_MAX(jump, lc->tmo_cycles[t]);
	lc->jumped_rx = last;
	clock_advance(lc, lc->vnow + jump + lc->nat.holddown_cycles + rte_get_tsc_hz());
}

/*
 * Packets other workers received for this one: at most a burst per sender.
 * Returns how many.
 */
static unsigned int
handoff_drain(struct fx_lcore *lc, const struct fx_route_table *rt)
{
	struct rte_mbuf *pkts[FX_HANDOFF_BURST];
	unsigned int got = 0;
	uint64_t t;
	uint16_t s, n, i;

	for (s = 0; s < lc->ho.nb_workers; s++) {
		t = stage_start();
		n = fx_handoff_take(&lc->ho, s, pkts);
		if (n == 0)
			continue;
		for (i = 0; i < n; i++)
			rte_prefetch0(fx_pkt_of(pkts[i]));
		stage_end(lc, FX_STAGE_HANDOFF, t);
		lc->now = rte_rdtsc();
		owned(lc, rt, pkts, n);
		got += n;
	}
	return got;
}

/* One received burst: parse, keep what this worker owns, track it. */
static void
rx_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
	 uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t = stage_start();

	n = rx_parse(lc, in_port, pkts, n);
	t = stage_end(lc, FX_STAGE_PARSE, t);
	if (fx_handoff_active) {
		n = fx_handoff_dispatch(&lc->ho, pkts, n);
		stage_end(lc, FX_STAGE_HANDOFF, t);
	}
	owned(lc, rt, pkts, n);
}

/* --bench only: a benchmark holds the expiry polls (/l3fwd_flowexp/hold) */
static inline bool
expiry_held(const struct fx_lcore *lc, uint64_t now)
{
	return unlikely(fx_conf.bench) &&
		now < __atomic_load_n(&lc->hold_until, __ATOMIC_RELAXED);
}

static inline void
reset_maxima(struct fx_lcore *lc)
{
	struct fx_lcore_stats *st = &lc->st;

	FX_STAT_SET(st, lag_max, 0);
	FX_STAT_SET(st, lag_sum, 0);
	FX_STAT_SET(st, lag_n, 0);
	FX_STAT_SET(st, sweep_max, 0);
	FX_STAT_SET(st, loop_max, 0);
	FX_STAT_SET(st, poll_removed_max, 0);
	FX_STAT_SET(st, stalls, 0);
}

int
fx_worker_main(void *arg __rte_unused)
{
	struct fx_lcore *lc = fx_lcores[rte_lcore_id()];
	struct rte_mbuf *pkts[MAX_PKT_BURST];
	const struct fx_route_table *rt;
	struct fx_lcore_stats *st;
	uint64_t prev, t0, t1;
	unsigned int got;
	uint32_t req;
	uint16_t i, n;

	/* a received burst fits in the room fx_handoff_room() asks for */
	RTE_BUILD_BUG_ON(MAX_PKT_BURST > FX_HANDOFF_BURST);
	if (lc == NULL)
		return 0;
	st = &lc->st;
	FX_LOG(INFO, "lcore %u: %u rx queue(s), expiry %s", lc->lcore_id,
	       lc->n_rxq, lc->ops ? lc->ops->name : "none");
	rte_rcu_qsbr_thread_online(fx_route_rcu, lc->worker_idx);
	prev = rte_rdtsc();
	while (!fx_force_quit) {
		rt = fx_route_get();
		got = 0;
		if (fx_handoff_active)
			got = handoff_drain(lc, rt);
		for (i = 0; i < lc->n_rxq; i++) {
			if (fx_handoff_active && !fx_handoff_room(&lc->ho))
				break;   /* an owner fell behind: leave the rest in the NIC */
			t0 = stage_start();
			n = rte_eth_rx_burst(lc->rxq[i].port_id, lc->rxq[i].queue_id,
					     pkts, MAX_PKT_BURST);
			if (n == 0)
				continue;
			got += n;
			lc->now = rte_rdtsc();
			if (unlikely(fx_conf.bench))
				FX_STAT_ADD(st, stage_cycles[FX_STAGE_RX], lc->now - t0);
			rx_burst(lc, rt, lc->rxq[i].port_id, pkts, n);
		}
		t0 = stage_start();
		tx_flush_all(lc);
		if (got != 0)
			stage_end(lc, FX_STAGE_TX, t0);

		t0 = rte_rdtsc();
		/* idle: every rx queue polled (none left for want of ring room) */
		if (unlikely(fx_conf.clock == FX_CLOCK_PCAP))
			clock_idle(lc, t0, got == 0 && i == lc->n_rxq);
		if ((lc->ops != NULL || fx_nat_enabled()) &&
		    likely(!expiry_held(lc, t0))) {
			lc->now = fx_conf.clock == FX_CLOCK_TSC ? t0 : lc->vnow;
			lc->poll_removed = 0;
			expire(lc, false);
			t1 = rte_rdtsc();
			FX_STAT_MAX(st, sweep_max, t1 - t0);
			FX_STAT_ADD(st, expiry_cycles, t1 - t0);
			if (got == 0)
				FX_STAT_ADD(st, idle_expiry_cycles, t1 - t0);
			FX_STAT_MAX(st, poll_removed_max, lc->poll_removed);
		} else {
			t1 = t0;
		}
		FX_STAT_MAX(st, loop_max, t1 - prev);
		if (got != 0)
			FX_STAT_ADD(st, busy_cycles, t1 - prev);
		if (unlikely(t1 - prev > lc->stall_cycles))
			FX_STAT_ADD(st, stalls, 1);
		FX_STAT_ADD(st, loops, 1);
		prev = t1;

		fx_route_quiescent(lc->worker_idx);
		req = __atomic_load_n(&lc->reset_req, __ATOMIC_RELAXED);
		if (unlikely(req != lc->reset_seen)) {
			reset_maxima(lc);
			lc->reset_seen = req;
			prev = rte_rdtsc();
		}
	}
	rte_rcu_qsbr_thread_offline(fx_route_rcu, lc->worker_idx);

	/* end every mapping, hand back every flow still tracked */
	if (fx_nat_enabled())
		fx_nat_drain(&lc->nat);
	if (lc->ops != NULL) {
		lc->now = rte_rdtsc();
		lc->drain_cursor = 0;
		while (lc->ops->drain(lc, fx_conf.expire_budget) != 0)
			fx_flows_flush(lc);
	}
	tx_flush_all(lc);
	return 0;
}
