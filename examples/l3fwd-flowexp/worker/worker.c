/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker loop: receive, track, forward, expire.
 *
 * One iteration, each step one call:
 *   1. load the route table pointer (l3/route.h);
 *   2. with handoff: take what the other workers passed to this one, at
 *      most a burst from each (worker/handoff.h), and handle it as in 3;
 *   3. for each rx queue: receive a burst and read the TSC once; then the
 *      burst's stages:
 *        parse    every packet into its mbuf's private area, its key
 *                 hashed, its owner and NAT class decided (fwd/parse.c,
 *                 boot/affinity.h, nat/classify.c); frames over --max-pkt-len,
 *                 malformed frames and what NAT's receive-port and
 *                 address rules refuse dropped; on a port with addresses,
 *                 ARP, ND, echo requests to the gateway and TTL expiry
 *                 handed to the main lcore (fwd/slowpath.h);
 *        handoff  the packets another worker owns go to it (worker/handoff.h);
 *        nat      this worker's NAT packets translated and routed (nat/nat.h);
 *        track    the rest refreshed or created and forwarded (flow/flow.h),
 *                 or with --expiry none routed as l3fwd does;
 *      under --clock pcap in runs of one capture time, each after what is
 *      due by then expired (worker/clock.h). Before each rx poll, if a ring to
 *      another worker has no room for a burst, the rest of the polls wait
 *      (the packets stay in the NIC);
 *   4. send what is buffered per port (fwd/forward.h);
 *   5. under --clock pcap: an iteration that polled everything and got
 *      nothing is idle, and once every worker is, the capture has ended
 *      and time jumps (worker/clock.h);
 *   6. one expiry poll, timed (expiry/expiry.h);
 *   7. the loop's own accounting and a reset request (ctl/stats.h);
 *   8. a quiescent state for route replacement (l3/route.h).
 * With --bench each stage of a burst is timed (worker/bench.h). No lock, no
 * system call, no allocation: the mbufs come from the pools and everything
 * else was allocated before launch. At exit the worker ends every mapping
 * and hands back every flow still tracked.
 */

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "base/config.h"
#include "boot/affinity.h"
#include "ctl/stats.h"
#include "expiry/expiry.h"
#include "flow/flow.h"
#include "flow/table.h"
#include "fwd/forward.h"
#include "fwd/parse.h"
#include "fwd/slowpath.h"
#include "fwd/route.h"
#include "nat/classify.h"
#include "nat/nat.h"
#include "worker/bench.h"
#include "worker/clock.h"
#include "worker/handoff.h"
#include "worker/lcore.h"
#include "worker/steps.h"
#include "worker/worker.h"

/*
 * Parse a received burst: malformed frames are counted and dropped, the
 * others compacted to the front of pkts with their parse result, key
 * hash, owner and NAT class in their private area and m->port set to the
 * receive port. Returns how many are left.
 */
static uint16_t
rx_parse(struct fx_lcore *lc, const struct fx_route_table *rt, uint16_t in_port,
	 struct rte_mbuf **pkts, uint16_t n)
{
	struct fx_lcore_stats *st = &lc->st;
	bool local = fx_l3.local[in_port];
	uint16_t i, nv = 0;
	struct rte_mbuf *m;
	struct fx_pkt *pk;
	uint8_t slow;
	int rc;

	FX_STAT_ADD(st, rx[in_port], n);
	FX_STAT_SET(st, last_rx, lc->now);
	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		m = pkts[i];
		pk = fx_pkt_of(m);
		if (unlikely(rte_pktmbuf_pkt_len(m) > fx_l3.max_frame)) {
			FX_STAT_ADD(st, oversized, 1);
			fx_drop(lc, in_port, m);
			continue;
		}
		rc = fx_parse(m, pk);
		if (unlikely(local)) {
			slow = fx_slow_classify(m, pk, rc);
			if (slow == FX_SLOW_DROP) {
				FX_STAT_ADD(st, local_dropped, 1);
				fx_drop(lc, in_port, m);
				continue;
			}
			if (slow != FX_SLOW_NONE) {
				if (rc == FX_CAUSE_TTL)
					FX_STAT_ADD(st, malformed[rc], 1);
				m->port = in_port;
				fx_slow_send(lc->slow, st, m, slow, 0);
				continue;
			}
		}
		if (unlikely(rc != FX_PARSE_OK)) {
			FX_STAT_ADD(st, malformed[rc], 1);
			fx_drop(lc, in_port, m);
			continue;
		}
		if (unlikely(pk->fragment))
			FX_STAT_ADD(st, fragments, 1);
		/* the flow key's hash: for the tracker, and under handoff
		 * for every packet's owner (a NAT packet's table hashes
		 * its own key) */
		if (fx_affinity_mode == FX_AFF_HANDOFF) {
			pk->hash = ft_hash(&pk->key);
			pk->owner = fx_affinity_owner(pk->hash, lc->ho.nb_workers);
		} else {
			pk->owner = lc->ho.self;
		}
		pk->nat = fx_nat_enabled() ?
			fx_nat_classify(&lc->nat, rt, m, pk, in_port, lc->ho.self,
					lc->ho.nb_workers, &pk->owner) :
			FX_NAT_NONE;
		if (unlikely(pk->nat == FX_NAT_DROP)) {
			/* refused by its receive port and addresses, counted */
			fx_drop(lc, in_port, m);
			continue;
		}
		if (fx_affinity_mode != FX_AFF_HANDOFF && pk->nat == FX_NAT_NONE)
			pk->hash = ft_hash(&pk->key);
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
	uint64_t t = fx_stage_start();
	const struct fx_pkt *p;
	uint16_t i, out;

	for (i = 0; i < n; i++) {
		p = fx_pkt_of(pkts[i]);
		out = fx_route_lookup(rt, &p->key, p->dir ^ 1, pkts[i]->port);
		fx_forward(lc, pkts[i], p, out);
	}
	fx_stage_end(lc, FX_STAGE_FORWARD, t);
}

/*
 * Masquerade: translate this worker's NAT packets of a burst and route
 * them by their new addresses; the others are compacted to the front of
 * pkts for tracking. Returns how many are left.
 */
static uint16_t
nat_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
	  struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *nat[MAX_PKT_BURST];
	uint64_t t = fx_stage_start();
	struct fx_pkt *p;
	uint16_t i, nn = 0, left = 0, out;

	for (i = 0; i < n; i++) {
		if (fx_pkt_of(pkts[i])->nat == FX_NAT_NONE)
			pkts[left++] = pkts[i];
		else
			nat[nn++] = pkts[i];
	}
	if (nn != 0) {
		fx_nat_translate(&lc->nat, lc->now, nat, nn);
		nn = fx_nat_hairpin(&lc->nat, &lc->ho, lc->now, nat, nn);
	}
	for (i = 0; i < nn; i++) {
		p = fx_pkt_of(nat[i]);
		if (p->nat != FX_NAT_FORWARD) {
			fx_drop(lc, nat[i]->port, nat[i]);
			continue;
		}
		out = fx_route_lookup(rt, &p->key, p->dir ^ 1, nat[i]->port);
		fx_forward(lc, nat[i], p, out);
	}
	fx_stage_end(lc, FX_STAGE_NAT, t);
	return left;
}

/* Packets this worker owns, at lc->now: translated, tracked or routed. */
static void
handle(struct fx_lcore *lc, const struct fx_route_table *rt,
       struct rte_mbuf **pkts, uint16_t n)
{
	if (fx_nat_enabled())
		n = nat_burst(lc, rt, pkts, n);
	if (lc->ops == NULL)
		route_only(lc, rt, pkts, n);
	else
		fx_flow_track(lc, rt, pkts, n);
}

/* Packets this worker owns; under --clock pcap in runs of one capture time. */
static void
owned(struct fx_lcore *lc, const struct fx_route_table *rt,
      struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, run;

	if (likely(fx_conf.clock == FX_CLOCK_TSC)) {
		handle(lc, rt, pkts, n);
		return;
	}
	for (i = 0; i < n; i += run) {
		run = fx_clock_run(lc, pkts + i, n - i);
		handle(lc, rt, pkts + i, run);
	}
}

/* Packets other workers received for this one: at most a burst per sender.
 * Returns how many. */
static unsigned int
handoff_drain(struct fx_lcore *lc, const struct fx_route_table *rt)
{
	struct rte_mbuf *pkts[FX_HANDOFF_BURST];
	unsigned int got = 0;
	uint64_t t;
	uint16_t s, n, i;

	for (s = 0; s < lc->ho.nb_workers; s++) {
		t = fx_stage_start();
		n = fx_handoff_take(&lc->ho, s, pkts);
		if (n == 0)
			continue;
		for (i = 0; i < n; i++)
			rte_prefetch0(fx_pkt_of(pkts[i]));
		fx_stage_end(lc, FX_STAGE_HANDOFF, t);
		lc->now = rte_rdtsc();
		owned(lc, rt, pkts, n);
		got += n;
	}
	return got;
}

/* One received burst: parse, keep what this worker owns, handle it. */
static void
rx_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
	 uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t = fx_stage_start();

	n = rx_parse(lc, rt, in_port, pkts, n);
	t = fx_stage_end(lc, FX_STAGE_PARSE, t);
	if (fx_handoff_active) {
		n = fx_handoff_dispatch(&lc->ho, pkts, n);
		fx_stage_end(lc, FX_STAGE_HANDOFF, t);
	}
	owned(lc, rt, pkts, n);
}

/*
 * A burst from each rx queue. Returns how many packets came; *all tells
 * whether every queue was polled (none left for want of ring room).
 */
static unsigned int
rx_poll(struct fx_lcore *lc, const struct fx_route_table *rt, bool *all)
{
	struct rte_mbuf *pkts[MAX_PKT_BURST];
	unsigned int got = 0;
	uint64_t t0;
	uint16_t i, n;

	*all = false;
	for (i = 0; i < lc->n_rxq; i++) {
		if (fx_handoff_active && !fx_handoff_room(&lc->ho))
			return got;   /* an owner fell behind: leave the rest in the NIC */
		t0 = fx_stage_start();
		n = rte_eth_rx_burst(lc->rxq[i].port_id, lc->rxq[i].queue_id,
				     pkts, MAX_PKT_BURST);
		if (n == 0)
			continue;
		if (unlikely(fx_conf.clock == FX_CLOCK_PCAP || fx_conf.exit_when_drained))
			fx_clock_busy(lc);
		got += n;
		lc->now = rte_rdtsc();
		if (unlikely(fx_conf.bench))
			FX_STAT_ADD(&lc->st, stage_cycles[FX_STAGE_RX], lc->now - t0);
		rx_burst(lc, rt, lc->rxq[i].port_id, pkts, n);
	}
	*all = true;
	return got;
}

/* Send what is buffered; timed as a stage in iterations that had packets. */
static inline void
tx_all(struct fx_lcore *lc, unsigned int got)
{
	uint64_t t = fx_stage_start();

	fx_tx_flush_all(lc);
	if (got != 0)
		fx_stage_end(lc, FX_STAGE_TX, t);
}

/*
 * The rest of an iteration that received got packets (all: every queue
 * polled), from tsc, the time after its sends: steps 5 to 8.
 */
static inline void
loop_end(struct fx_lcore *lc, uint64_t tsc, unsigned int got, bool all)
{
	if (unlikely(fx_conf.clock == FX_CLOCK_PCAP))
		fx_clock_idle(lc, tsc, got == 0 && all);
	else if (unlikely(fx_conf.exit_when_drained))
		fx_clock_mark_idle(lc, tsc, got == 0 && all);
	tsc = fx_expiry_loop_poll(lc, tsc, got);
	if (unlikely(fx_stats_loop(&lc->st, &lc->loop, &lc->reset_req, tsc, got)))
		fx_nat_reset_maxima(&lc->nat.st);
	fx_route_quiescent(lc->worker_idx);
}

void
fx_worker_rx_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
		   uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	rx_burst(lc, rt, in_port, pkts, n);
}

void
fx_worker_tx(struct fx_lcore *lc, unsigned int got)
{
	tx_all(lc, got);
}

void
fx_worker_loop_end(struct fx_lcore *lc, uint64_t tsc, unsigned int got, bool all)
{
	loop_end(lc, tsc, got, all);
}

int
fx_worker_main(void *arg __rte_unused)
{
	struct fx_lcore *lc = fx_lcores[rte_lcore_id()];
	const struct fx_route_table *rt;
	unsigned int got;
	bool all;

	/* a received burst fits in the room fx_handoff_room() asks for */
	RTE_BUILD_BUG_ON(MAX_PKT_BURST > FX_HANDOFF_BURST);
	if (lc == NULL)
		return 0;
	FX_LOG(INFO, "lcore %u: %u rx queue(s), expiry %s", lc->lcore_id,
	       lc->n_rxq, lc->ops ? lc->ops->name : "none");
	rte_rcu_qsbr_thread_online(fx_route_rcu, lc->worker_idx);
	lc->loop.prev = rte_rdtsc();
	while (!fx_force_quit) {
		rt = fx_route_get();
		got = fx_handoff_active ? handoff_drain(lc, rt) : 0;
		got += rx_poll(lc, rt, &all);
		tx_all(lc, got);
		loop_end(lc, rte_rdtsc(), got, all);
	}
	rte_rcu_qsbr_thread_offline(fx_route_rcu, lc->worker_idx);

	fx_expiry_drain(lc);
	fx_tx_flush_all(lc);
	return 0;
}
