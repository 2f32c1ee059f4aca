/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The worker loop: receive, hand off, translate, track, forward, expire.
 *
 * One iteration, each step one call (fx_worker_main()):
 *   1. load the route table pointer (fwd/route.h);
 *   2. with handoff: take what the other workers passed to this one, up
 *      to two bursts in all and one from each (worker/handoff.h), and ask
 *      for those packets' lines; they go through the stages that follow
 *      the handoff after step 3, when the lines have arrived, and only if
 *      the take stopped at its limit are the rings then drained again;
 *   3. for each rx queue: receive a burst and read the TSC once; then the
 *      burst's stages, top to bottom, each leaving a verdict per packet:
 *        parse    every packet into its mbuf's private area, its key
 *                 hashed, its owner and NAT class decided (fwd/parse.h,
 *                 fwd/owner.h, nat/classify.h); frames over
 *                 --max-pkt-len, malformed frames and what NAT's
 *                 receive-port and address rules refuse dropped; on a
 *                 port with addresses, ARP, ND, echo requests to the
 *                 gateway and TTL expiry handed to the main lcore
 *                 (fwd/slowpath.h);
 *        hand off the packets another worker owns leave for it
 *                 (worker/handoff.h);
 *        nat      this worker's NAT packets translated (nat/nat.h); a
 *                 hairpinned packet whose public destination another
 *                 worker owns leaves for it, as in "hand off";
 *        flow     the rest looked up, then refreshed or created
 *                 (flow/flow.h): the verdict is the flow's next hop, or a
 *                 drop; with --expiry none, a route lookup, as l3fwd;
 *        forward  the verdicts carried out: rewritten and buffered per
 *                 port, or dropped (fwd/forward.h), the only stage that
 *                 transmits; NAT's packets go through it before the
 *                 flows';
 *      under --clock pcap the stages after the handoff run in runs of
 *      one capture time, each after what is due by then has expired
 *      (worker/clock.h). Before each rx poll, if a ring to another worker
 *      has no room for a burst, the rest of the polls wait (the packets
 *      stay in the NIC);
 *   4. send what is buffered per port (fwd/forward.h);
 *   5. under --clock pcap: an iteration that polled everything and got
 *      nothing is idle, and once every worker is, the capture has ended
 *      and time jumps (worker/clock.h);
 *   6. one expiry poll, timed: the flows' back-end (flow/flow.h) and NAT's
 *      reaper (nat/nat.h);
 *   7. the loop's own accounting and a reset request (worker/loop.h);
 *   8. a quiescent state for route replacement (fwd/route.h).
 * With --bench each stage of a burst is timed (worker/loop.h). No lock, no
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
#include "flow/flow.h"
#include "flow/table.h"
#include "fwd/forward.h"
#include "fwd/owner.h"
#include "fwd/parse.h"
#include "fwd/route.h"
#include "fwd/slowpath.h"
#include "nat/classify.h"
#include "nat/log/events.h"
#include "nat/nat.h"
#include "worker/clock.h"
#include "worker/handoff.h"
#include "worker/lcore.h"
#include "worker/loop.h"
#include "worker/steps.h"
#include "worker/worker.h"

/* ---- parse ---- */

/* Where a parsed packet goes: its key's hash, its owner, its NAT class
 * (fx_nat_classify() may move the owner). false: NAT refused it. */
static inline bool
parse_owner(struct fx_lcore *lc, const struct fx_route_table *rt,
	    struct rte_mbuf *m, struct fx_pkt *pk, uint16_t in_port)
{
	const struct fx_handoff *h = &lc->handoff;

	/* the flow key's hash: for the tracker, and under handoff for
	 * every packet's owner (a NAT packet's table hashes its own key) */
	if (fx_affinity_mode == FX_AFF_HANDOFF) {
		pk->hash = ft_hash(&pk->key);
		pk->owner = fx_affinity_owner(pk->hash, h->nb_workers);
	} else {
		pk->owner = h->self;
	}
	pk->nat = fx_nat_enabled() ?
		fx_nat_classify(&lc->nat, rt, m, pk, in_port, h->self,
				h->nb_workers, &pk->owner) :
		FX_NAT_NONE;
	if (unlikely(pk->nat == FX_NAT_DROP))
		return false;   /* refused by its receive port and addresses, counted */
	if (fx_affinity_mode != FX_AFF_HANDOFF && pk->nat == FX_NAT_NONE)
		pk->hash = ft_hash(&pk->key);
	return true;
}

/*
 * The parse stage: malformed frames are counted and dropped, the gateway's
 * own traffic handed to the main lcore, the others compacted to the front
 * of pkts with their parse result, key hash, owner and NAT class in their
 * private area and m->port set to the receive port. Returns how many are
 * left.
 */
static uint16_t
stage_parse(struct fx_lcore *lc, const struct fx_route_table *rt, uint16_t in_port,
	    struct rte_mbuf **pkts, uint16_t n)
{
	struct fx_fwd_stats *st = &lc->fwd.st;
	bool local = fx_l3.local[in_port];
	uint16_t i, nv = 0;
	struct rte_mbuf *m;
	struct fx_pkt *pk;
	uint8_t slow;
	int rc;

	FX_STAT_ADD(st, rx[in_port], n);
	FX_STAT_SET(&lc->loop_st, last_rx, lc->now);
	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		m = pkts[i];
		pk = fx_pkt_of(m);
		if (unlikely(rte_pktmbuf_pkt_len(m) > fx_l3.max_frame)) {
			FX_STAT_ADD(st, oversized, 1);
			fx_drop(&lc->fwd, in_port, m);
			continue;
		}
		rc = fx_parse(m, pk);
		if (unlikely(local)) {
			slow = fx_slow_classify(m, pk, rc);
			if (slow == FX_SLOW_DROP) {
				FX_STAT_ADD(st, slow.local_dropped, 1);
				fx_drop(&lc->fwd, in_port, m);
				continue;
			}
			if (slow != FX_SLOW_NONE) {
				if (rc == FX_CAUSE_TTL)
					FX_STAT_ADD(st, malformed[rc], 1);
				m->port = in_port;
				fx_slow_send(lc->fwd.slow, &st->slow, m, slow, 0);
				continue;
			}
		}
		if (unlikely(rc != FX_PARSE_OK)) {
			FX_STAT_ADD(st, malformed[rc], 1);
			fx_drop(&lc->fwd, in_port, m);
			continue;
		}
		if (unlikely(pk->fragment))
			FX_STAT_ADD(st, fragments, 1);
		if (unlikely(!parse_owner(lc, rt, m, pk, in_port))) {
			fx_drop(&lc->fwd, in_port, m);
			continue;
		}
		m->port = in_port;
		pkts[nv++] = m;
	}
	return nv;
}

/* ---- the stages after the handoff ---- */

/*
 * NAT: this worker's NAT packets of a burst translated, the hairpinned
 * ones another worker owns handed to it, the others forwarded; the rest
 * compacted to the front of pkts. Returns how many are left.
 */
static uint16_t
stage_nat(struct fx_lcore *lc, const struct fx_route_table *rt,
	  struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *nat[MAX_PKT_BURST];
	uint16_t next[MAX_PKT_BURST];
	uint64_t t = fx_stage_start();
	uint16_t i, nn = 0, left = 0;

	for (i = 0; i < n; i++) {
		if (fx_pkt_of(pkts[i])->nat == FX_NAT_NONE)
			pkts[left++] = pkts[i];
		else
			nat[nn++] = pkts[i];
	}
	if (nn == 0) {
		fx_stage_end(&lc->loop_st, FX_STAGE_NAT, t);
		return left;
	}
	if (fx_nat_burst(&lc->nat, lc->now, nat, nn, next) != 0)
		nn = fx_handoff_verdicts(&lc->handoff, nat, next, nn);
	t = fx_stage_end(&lc->loop_st, FX_STAGE_NAT, t);
	fx_forward_burst(&lc->fwd, rt, lc->now, nat, next, nn);
	fx_stage_end(&lc->loop_st, FX_STAGE_FORWARD, t);
	return left;
}

/* RSS: count the packets to track that another worker owns (foreign):
 * the NIC spread them against the check fx_affinity_decide() made. */
static void
count_foreign(struct fx_lcore *lc, struct rte_mbuf **pkts, uint16_t n)
{
	struct fx_handoff *h = &lc->handoff;
	uint16_t i;

	for (i = 0; i < n; i++)
		if (unlikely(fx_affinity_foreign(h->self, h->nb_workers, pkts[i],
						 fx_pkt_of(pkts[i])->hash)))
			FX_STAT_ADD(&h->st, foreign, 1);
}

/* Flow: the packets NAT left tracked (or with --expiry none routed), then
 * forwarded. */
static void
stage_flow(struct fx_lcore *lc, const struct fx_route_table *rt,
	   struct rte_mbuf **pkts, uint16_t n)
{
	int32_t cand[MAX_PKT_BURST];
	uint16_t next[MAX_PKT_BURST];
	uint64_t t;
	uint16_t i;

	if (n == 0)
		return;
	t = fx_stage_start();
	if (lc->flows.expiry == NULL) {
		for (i = 0; i < n; i++)
			next[i] = FX_VERDICT_ROUTE;   /* --expiry none: l3fwd */
	} else {
		if (unlikely(fx_affinity_mode == FX_AFF_RSS))
			count_foreign(lc, pkts, n);
		fx_flow_lookup(&lc->flows, pkts, n, cand);
		t = fx_stage_end(&lc->loop_st, FX_STAGE_LOOKUP, t);
		fx_flow_update(&lc->flows, rt, lc->now, pkts, n, cand, next);
		t = fx_stage_end(&lc->loop_st, FX_STAGE_FLOW, t);
	}
	fx_forward_burst(&lc->fwd, rt, lc->now, pkts, next, n);
	fx_stage_end(&lc->loop_st, FX_STAGE_FORWARD, t);
}

/* Packets this worker owns, at lc->now: the NAT, flow and forward stages. */
static void
stages_owned(struct fx_lcore *lc, const struct fx_route_table *rt,
	     struct rte_mbuf **pkts, uint16_t n)
{
	if (fx_nat_enabled())
		n = stage_nat(lc, rt, pkts, n);
	stage_flow(lc, rt, pkts, n);
}

/* ---- expiry ---- */

/* One expiry poll of the flows and of NAT's mappings at lc->now. Returns
 * whether more may be due at lc->now. */
static bool
expire_due(struct fx_lcore *lc)
{
	bool more = false;

	if (lc->flows.expiry != NULL)
		more = fx_flow_poll(&lc->flows, lc->now);
	if (fx_nat_enabled())
		more |= fx_nat_poll(&lc->nat, lc->now);
	return more;
}

/* --clock pcap: time moves to t (never back) and everything due by then
 * expires, whatever the budget. */
static void
time_advance(struct fx_lcore *lc, uint64_t t)
{
	uint64_t t0 = rte_rdtsc();

	lc->now = fx_clock_advance(&lc->clock, t);
	while (expire_due(lc))
		;
	FX_STAT_ADD(&lc->loop_st, expiry_cycles, rte_rdtsc() - t0);
}

/* The owned stages, under --clock pcap in runs of one capture time. */
static void
burst_owned(struct fx_lcore *lc, const struct fx_route_table *rt,
	    struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, run;
	uint64_t t;

	if (likely(fx_conf.clock == FX_CLOCK_TSC)) {
		stages_owned(lc, rt, pkts, n);
		return;
	}
	for (i = 0; i < n; i += run) {
		run = fx_clock_run(&lc->clock, pkts + i, n - i, &t);
		time_advance(lc, t);
		stages_owned(lc, rt, pkts + i, run);
	}
}

uint64_t
fx_workers_last_rx(void)
{
	uint64_t last = 0, v;
	unsigned int w;

	for (w = 0; w < fx_nb_workers; w++) {
		v = FX_STAT_GET(&fx_workers[w]->loop_st, last_rx);
		if (v > last)
			last = v;
	}
	return last;
}

/* --clock pcap, once per iteration: when the capture has ended, time jumps
 * past every timeout and hold-down. */
static void
clock_idle(struct fx_lcore *lc, uint64_t tsc, bool idle)
{
	uint64_t last = idle ? fx_workers_last_rx() : 0, jump = 0;
	unsigned int t;

	if (!fx_clock_idle(&lc->clock, tsc, idle, last))
		return;
	/* handed over before its sender went idle, after this one polled */
	if (fx_handoff_active && fx_handoff_waiting(&lc->handoff))
		return;
	for (t = 0; t < FX_TMO_MAX; t++)
		jump = RTE_MAX(jump, lc->flows.tmo_cycles[t]);
	time_advance(lc, fx_clock_jump(&lc->clock, last,
				       jump + lc->nat.holddown_cycles + rte_get_tsc_hz()));
}

/*
 * Once per loop iteration that received `got` packets, the TSC reading
 * tsc: the timed poll, unless a benchmark holds it. Returns the TSC after.
 */
static uint64_t
expiry_poll_timed(struct fx_lcore *lc, uint64_t tsc, unsigned int got)
{
	struct fx_loop_stats *st = &lc->loop_st;
	uint64_t t1;

	if ((lc->flows.expiry == NULL && !fx_nat_enabled()) ||
	    fx_bench_expiry_held(&lc->requests, tsc))
		return tsc;
	lc->now = fx_clock_now(&lc->clock, tsc);
	expire_due(lc);
	t1 = rte_rdtsc();
	FX_STAT_MAX(st, sweep_max, t1 - tsc);
	FX_STAT_ADD(st, expiry_cycles, t1 - tsc);
	if (got == 0)
		FX_STAT_ADD(st, idle_expiry_cycles, t1 - tsc);
	return t1;
}

/* At exit: end every mapping, hand back every flow still tracked. */
static void
drain_all(struct fx_lcore *lc)
{
	if (fx_nat_enabled()) {
		nat_log_exit(lc->nat.log);
		fx_nat_drain(&lc->nat, fx_clock_now(&lc->clock, rte_rdtsc()));
	}
	if (lc->flows.expiry != NULL)
		fx_flow_drain(&lc->flows, rte_rdtsc());
}

/* ---- the loop ---- */

/*
 * A packet another worker received and parsed: its lines are in that
 * worker's cache. Ask for the mbuf's two lines and the parse result (the
 * private area) now, the first two data lines once the mbuf's first line
 * says where they are (taken_run()); with intent to write, because this
 * worker writes them (the forward stage the data, the free the mbuf's
 * lines, and its own next receive into the same mbuf, which its mempool
 * cache hands back to it, all of them): asked for shared, each would
 * cost a second crossing when written, to take it from the sender's
 * cache.
 */
static inline void
prefetch_taken(struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		rte_prefetch0_write(pkts[i]);
		rte_prefetch0_write(RTE_PTR_ADD(pkts[i], RTE_CACHE_LINE_MIN_SIZE));
		rte_prefetch0_write(fx_pkt_of(pkts[i]));
	}
}

/* The owned stages on a batch taken from the rings, its data lines asked
 * for first (their mbufs' first lines were asked for as they came). */
static void
taken_run(struct fx_lcore *lc, const struct fx_route_table *rt,
	  struct rte_mbuf **pkts, uint16_t n, uint64_t t)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		rte_prefetch0_write(rte_pktmbuf_mtod(pkts[i], void *));
		rte_prefetch0_write(rte_pktmbuf_mtod_offset(pkts[i], void *,
							    RTE_CACHE_LINE_MIN_SIZE));
	}
	fx_stage_end(&lc->loop_st, FX_STAGE_HANDOFF, t);
	lc->now = rte_rdtsc();
	burst_owned(lc, rt, pkts, n);
}

/*
 * Packets other workers received for this one: at most a burst per sender,
 * gathered from all the senders into batches of up to a burst, so that the
 * stages after the handoff run on full bursts even when each sender passed
 * only a few (at n workers about 32 / (n - 1) per iteration). Returns how
 * many.
 */
static unsigned int
handoff_drain(struct fx_lcore *lc, const struct fx_route_table *rt)
{
	struct rte_mbuf *pkts[FX_HANDOFF_BURST];
	uint16_t s, n, k = 0, left;
	unsigned int got = 0;
	uint64_t t = fx_stage_start();

	/* a batch is one burst for the stages after the handoff */
	RTE_BUILD_BUG_ON(FX_HANDOFF_BURST > MAX_PKT_BURST);
	for (s = 0; s < lc->handoff.nb_workers; s++) {
		for (left = FX_HANDOFF_BURST; left != 0; left -= n) {
			n = fx_handoff_take(&lc->handoff, s, pkts + k,
					    RTE_MIN(left, FX_HANDOFF_BURST - k));
			if (n == 0)
				break;
			prefetch_taken(pkts + k, n);
			k += n;
			if (k == FX_HANDOFF_BURST) {
				taken_run(lc, rt, pkts, k, t);
				got += k;
				k = 0;
				t = fx_stage_start();
			}
		}
	}
	if (k != 0) {
		taken_run(lc, rt, pkts, k, t);
		got += k;
	}
	return got;
}

/* One received burst: parse, hand off what other workers own, the rest. */
static void
rx_burst(struct fx_lcore *lc, const struct fx_route_table *rt,
	 uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t = fx_stage_start();

	n = stage_parse(lc, rt, in_port, pkts, n);
	t = fx_stage_end(&lc->loop_st, FX_STAGE_PARSE, t);
	if (fx_handoff_active) {
		n = fx_handoff_dispatch(&lc->handoff, pkts, n);
		fx_stage_end(&lc->loop_st, FX_STAGE_HANDOFF, t);
	}
	burst_owned(lc, rt, pkts, n);
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
		if (fx_handoff_active && !fx_handoff_room(&lc->handoff))
			return got;   /* an owner fell behind: leave the rest in the NIC */
		t0 = fx_stage_start();
		n = rte_eth_rx_burst(lc->rxq[i].port_id, lc->rxq[i].queue_id,
				     pkts, MAX_PKT_BURST);
		if (n == 0)
			continue;
		if (unlikely(fx_conf.clock == FX_CLOCK_PCAP || fx_conf.exit_when_drained))
			fx_clock_busy(&lc->clock);
		got += n;
		lc->now = rte_rdtsc();
		if (unlikely(fx_conf.bench))
			FX_STAT_ADD(&lc->loop_st, stage_cycles[FX_STAGE_RX], lc->now - t0);
		rx_burst(lc, rt, lc->rxq[i].port_id, pkts, n);
	}
	*all = true;
	return got;
}

/* Packets taken ahead per iteration, at most: two bursts. */
#define FX_AHEAD_MAX (2u * FX_HANDOFF_BURST)

/*
 * What the rings hold, taken before the rx polls: up to FX_AHEAD_MAX
 * packets, at most a burst from each sender, from the senders in turn
 * starting after the one that gave last time; their lines asked for. The
 * rx polls that follow give the lines time to arrive: asked for just
 * before they are used, they came too late, and that was most of a
 * handed-off packet's cost. Returns how many; *more: whether a ring may
 * hold more (the take stopped at FX_AHEAD_MAX).
 */
static uint16_t
handoff_take_ahead(struct fx_lcore *lc, struct rte_mbuf **pkts, bool *more)
{
	struct fx_handoff *h = &lc->handoff;
	uint16_t i, s = h->ahead_next, n, k = 0;

	for (i = 0; i < h->nb_workers && k < FX_AHEAD_MAX; i++) {
		s = s + 1 < h->nb_workers ? s + 1 : 0;
		n = fx_handoff_take(h, s, pkts + k,
				    (uint16_t)RTE_MIN(FX_HANDOFF_BURST, FX_AHEAD_MAX - k));
		prefetch_taken(pkts + k, n);
		k += n;
	}
	h->ahead_next = s;
	*more = k == FX_AHEAD_MAX;
	return k;
}

/*
 * Steps 2 and 3 under handoff: what the rings hold taken ahead, the rx
 * polls, the stages on what was taken (in bursts); only if the take
 * stopped at its limit, the rest of the rings at once, a burst from each
 * (packets that came during the polls wait for the next iteration's take,
 * a few microseconds, and are prefetched then). Returns how many packets
 * came; *all as for rx_poll().
 */
static unsigned int
handoff_iteration(struct fx_lcore *lc, const struct fx_route_table *rt, bool *all)
{
	struct rte_mbuf *ahead[FX_AHEAD_MAX];
	uint64_t t = fx_stage_start();
	uint16_t i, n, run;
	unsigned int got;
	bool more;

	n = handoff_take_ahead(lc, ahead, &more);
	fx_stage_end(&lc->loop_st, FX_STAGE_HANDOFF, t);
	got = rx_poll(lc, rt, all) + n;
	for (i = 0; i < n; i += run) {
		run = (uint16_t)RTE_MIN(n - i, (int)FX_HANDOFF_BURST);
		taken_run(lc, rt, ahead + i, run, fx_stage_start());
	}
	if (unlikely(more))
		got += handoff_drain(lc, rt);
	return got;
}

/* Send what is buffered; timed as a stage in iterations that had packets. */
static inline void
tx_all(struct fx_lcore *lc, unsigned int got)
{
	uint64_t t = fx_stage_start();

	fx_tx_flush_all(&lc->fwd);
	if (got != 0)
		fx_stage_end(&lc->loop_st, FX_STAGE_TX, t);
}

/*
 * The rest of an iteration that received got packets (all: every queue
 * polled), from tsc, the time after its sends: steps 5 to 8.
 */
static inline void
loop_end(struct fx_lcore *lc, uint64_t tsc, unsigned int got, bool all)
{
	if (unlikely(fx_conf.clock == FX_CLOCK_PCAP))
		clock_idle(lc, tsc, got == 0 && all);
	else if (unlikely(fx_conf.exit_when_drained))
		fx_clock_mark_idle(&lc->clock, tsc, got == 0 && all);
	tsc = expiry_poll_timed(lc, tsc, got);
	if (unlikely(fx_loop_end(&lc->loop_st, &lc->loop, &lc->requests, tsc, got))) {
		fx_flow_reset_maxima(&lc->flows.st);
		fx_nat_reset_maxima(&lc->nat.st);
	}
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

bool
fx_worker_expire(struct fx_lcore *lc)
{
	return expire_due(lc);
}

void
fx_worker_drain(struct fx_lcore *lc)
{
	drain_all(lc);
	fx_tx_flush_all(&lc->fwd);
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
	       lc->n_rxq, lc->flows.expiry ? lc->flows.expiry->name : "none");
	rte_rcu_qsbr_thread_online(fx_route_rcu, lc->worker_idx);
	lc->loop.prev = rte_rdtsc();
	while (!fx_force_quit) {
		rt = fx_route_get();
		got = fx_handoff_active ? handoff_iteration(lc, rt, &all) :
			rx_poll(lc, rt, &all);
		tx_all(lc, got);
		loop_end(lc, rte_rdtsc(), got, all);
	}
	rte_rcu_qsbr_thread_offline(fx_route_rcu, lc->worker_idx);

	fx_worker_drain(lc);
	return 0;
}
