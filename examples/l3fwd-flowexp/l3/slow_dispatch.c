/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The main lcore's step for neighbours and the gateway's own traffic:
 * what the workers hand over (fwd/slowpath.h) is handled here, by its
 * reason.
 *
 * One poll, from the main loop:
 *   1. the clock: the TSC, or under --clock pcap the latest capture time
 *      of the packets handed over (a packet's deadlines before its time
 *      are run before it is handled);
 *   2. up to FX_MAIN_BURST packets from each worker's ring, each handled
 *      by its reason: an ARP packet or an NS answered and its sender
 *      learnt, an NA or ARP reply applied to the entry it answers, an
 *      echo request answered, a TTL expiry answered with time exceeded
 *      (both in l3/local_reply.c), a packet for a neighbour resolved,
 *      held or dropped;
 *   3. the wheel: each entry whose deadline passed gets its timer event
 *      (l3/neigh.c), a bounded amount of work per poll;
 *   4. what the main lcore queued is sent on its own tx queue of each
 *      port (l3/main_tx.c);
 *   5. the slots of deleted entries whose grace period ended are free
 *      again.
 * The network and broadcast addresses of a connected IPv4 subnet are
 * never resolved: a packet to them is dropped (hold_dropped).
 *
 * This file stands above the other neighbour files (l3/neigh_priv.h):
 * it calls them, none calls it. Main lcore only; the rings are
 * single-consumer (its own dequeues), and what travels with a packet
 * (its parse result, reason and next hop) was written by the worker
 * before its enqueue, which orders it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "base/config.h"
#include "base/time.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"
#include "fwd/slowpath.h"
#include "l3/local_addr.h"
#include "l3/local_reply.h"
#include "l3/main_tx.h"
#include "l3/neigh.h"
#include "l3/neigh_conf.h"
#include "l3/neigh_priv.h"
#include "l3/neigh_stats.h"
#include "l3/wire.h"
#include "nat/conf.h"

#define FX_MAIN_BURST 32u        /* packets per worker ring per poll */

/* whether an ARP request for tpa (IPv4) on port is the gateway's to answer */
static bool
arp_target_ours(uint16_t port, const uint8_t *tpa)
{
	uint32_t t;

	if (fx_local_addr_has4(port, tpa))
		return true;
	if (!fx_local_addr_answers_pool(port))
		return false;
	memcpy(&t, tpa, 4);
	return nat_is_pool(&fx_nat_conf, t);
}

/* an ARP packet: a conflict, a reply to a request of ours, or a request
 * (its sender learnt, answered when for us) */
static void
arp_input(struct rte_mbuf *m, uint16_t port)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), k[16];
	const uint8_t *mac = fx_main_tx_mac(port);
	struct fx_neigh_entry *e = NULL;
	enum fx_wire_err err;
	bool ours, sender_ok;
	struct fx_arp a;

	FX_NEIGH_COUNT(port, arp_rx, 1);
	err = fx_wire_arp_parse(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN, &a);
	if (err == FX_WIRE_OK && memcmp(a.sha, mac, 6) == 0)
		err = FX_WIRE_SENDER;   /* our own, looped back */
	if (err != FX_WIRE_OK) {
		if (err == FX_WIRE_SENDER)
			FX_NEIGH_COUNT(port, arp_bad_sender, 1);
		else
			FX_NEIGH_COUNT(port, arp_bad, 1);
		goto free;
	}
	if (fx_local_addr_has4(port, a.spa)) {
		/* another host says it has our address */
		FX_NEIGH_COUNT(port, arp_conflict, 1);
		goto free;
	}
	ours = arp_target_ours(port, a.tpa);
	sender_ok = fx_wire_ip4_unicast(a.spa) &&
		neigh_conf_connected(&fx_neigh_conf, port, FX_FAMILY_V4, a.spa);
	if (sender_ok) {
		fx_neigh_key(k, a.spa, FX_FAMILY_V4);
		e = fx_neigh_entry_find(port, k);
		/* a request for us from a new neighbour: learn it (RFC 826) */
		if (e == NULL && ours && a.op == FX_ARP_REQUEST)
			e = fx_neigh_entry_new(port, k, FX_FAMILY_V4, FX_NK_ONLINK);
	}
	if (a.op == FX_ARP_REPLY) {
		if (e == NULL || !fx_neigh_entry_asked(e)) {
			FX_NEIGH_COUNT(port, arp_unsolicited, 1);   /* nothing asked it */
			goto free;
		}
		FX_NEIGH_COUNT(port, arp_replies_rx, 1);
		fx_neigh_entry_confirm(e, a.sha);
		goto free;
	}
	if (e != NULL)
		fx_neigh_entry_learn(e, a.sha);
	if (!ours) {
		FX_NEIGH_COUNT(port, arp_not_ours, 1);
		goto free;
	}
	if (!fx_main_frame_resize(m, FX_ETH_MIN)) {
		FX_NEIGH_COUNT(port, arp_bad, 1);
		goto free;
	}
	fx_wire_arp_build(f, a.sha, FX_ARP_REPLY, mac, a.tpa, a.sha, a.spa);
	FX_NEIGH_COUNT(port, arp_requests_answered, 1);
	fx_main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}

/* a neighbour advertisement (parsed, nd) on port: applied to the entry
 * that asked for it; m is freed */
static void
na_input(struct rte_mbuf *m, uint16_t port, const struct fx_nd *nd, const uint8_t *key)
{
	struct fx_neigh_entry *e;

	if (fx_local_addr_has6(port, nd->target)) {
		/* another node has our address */
		FX_NEIGH_COUNT(port, nd_bad_sender, 1);
		goto free;
	}
	e = fx_neigh_entry_find(port, key);
	if (e == NULL || !fx_neigh_entry_asked(e)) {
		FX_NEIGH_COUNT(port, na_unsolicited, 1);
		goto free;
	}
	FX_NEIGH_COUNT(port, na_rx, 1);
	fx_neigh_entry_advert(e, nd->has_lla ? nd->lla : NULL,
			      (nd->flags & FX_NA_SOLICITED) != 0,
			      (nd->flags & FX_NA_OVERRIDE) != 0);
free:
	rte_pktmbuf_free(m);
}

/* a neighbour solicitation (parsed, nd) on port: its sender learnt, and
 * answered when it asks for one of the port's addresses */
static void
ns_input(struct rte_mbuf *m, uint16_t port, const struct fx_nd *nd, const uint8_t *key)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), dmac[6], flags;
	struct fx_neigh_entry *e;
	bool unspec;

	if (!fx_local_addr_has6(port, nd->target)) {
		FX_NEIGH_COUNT(port, nd_not_ours, 1);
		goto free;
	}
	unspec = fx_wire_ip6_unspec(nd->src);
	if (!unspec && nd->has_lla &&
	    neigh_conf_connected(&fx_neigh_conf, port, FX_FAMILY_V6, nd->src)) {
		e = fx_neigh_entry_find(port, key);
		if (e == NULL)
			e = fx_neigh_entry_new(port, key, FX_FAMILY_V6, FX_NK_ONLINK);
		if (e != NULL)
			fx_neigh_entry_learn(e, nd->lla);
	}
	/* the answer: to the asker, or to all nodes for duplicate detection */
	if (unspec)
		fx_wire_ip6_mcast_mac(fx_all_nodes, dmac);
	else
		memcpy(dmac, nd->has_lla ? nd->lla : f + 6, 6);
	flags = FX_NA_ROUTER | FX_NA_OVERRIDE | (unspec ? 0 : FX_NA_SOLICITED);
	if (!fx_main_frame_resize(m, FX_ND_FRAME)) {
		FX_NEIGH_COUNT(port, nd_bad, 1);
		goto free;
	}
	fx_wire_nd_build(f, FX_ICMP6_NA, dmac, fx_main_tx_mac(port), nd->target,
			 unspec ? fx_all_nodes : nd->src, nd->target, flags, true);
	FX_NEIGH_COUNT(port, ns_answered, 1);
	fx_main_tx_send(port, m);
	return;
free:
	rte_pktmbuf_free(m);
}

/* an ND message: checked, then an NA or an NS (the others ignored) */
static void
nd_input(struct rte_mbuf *m, uint16_t port)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	enum fx_wire_err err;
	struct fx_nd nd;
	uint8_t k[16];

	FX_NEIGH_COUNT(port, nd_rx, 1);
	err = fx_wire_nd_parse(f + FX_ETH_HLEN, m->data_len - FX_ETH_HLEN, &nd);
	if (err == FX_WIRE_OK && nd.has_lla && memcmp(nd.lla, fx_main_tx_mac(port), 6) == 0)
		err = FX_WIRE_SENDER;
	if (err != FX_WIRE_OK) {
		if (err == FX_WIRE_OPTION)
			FX_NEIGH_COUNT(port, nd_bad_option, 1);
		else if (err == FX_WIRE_SENDER)
			FX_NEIGH_COUNT(port, nd_bad_sender, 1);
		else
			FX_NEIGH_COUNT(port, nd_bad, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (nd.type != FX_ICMP6_NS && nd.type != FX_ICMP6_NA) {
		FX_NEIGH_COUNT(port, nd_ignored, 1);   /* router discovery, redirects */
		rte_pktmbuf_free(m);
		return;
	}
	fx_neigh_key(k, nd.type == FX_ICMP6_NS ? nd.src : nd.target, FX_FAMILY_V6);
	if (nd.type == FX_ICMP6_NA)
		na_input(m, port, &nd, k);
	else
		ns_input(m, port, &nd, k);
}

/* the entry a packet to forward by nexthop on port needs, made if new;
 * NULL: the packet is dropped (counted hold_dropped) */
static struct fx_neigh_entry *
entry_for_packet(struct rte_mbuf *m, uint16_t nexthop, uint16_t port)
{
	const struct fx_pkt *pk = fx_pkt_of(m);
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, pk->l2_len);
	struct fx_neigh_entry *e;
	uint8_t k[16];

	if (nexthop >= FX_NEXTHOP_GW0)
		return fx_neigh_entry_at(fx_l3.nexthop_slot[nexthop]);
	if (pk->key.family == FX_FAMILY_V4 && fx_local_addr_subnet_edge4(port, ip + 16)) {
		FX_NEIGH_COUNT(port, hold_dropped, 1);
		return NULL;
	}
	fx_neigh_key(k, pk->key.family == FX_FAMILY_V4 ? ip + 16 : ip + 24, pk->key.family);
	e = fx_neigh_entry_find(port, k);
	if (e == NULL)
		e = fx_neigh_entry_new(port, k, pk->key.family, FX_NK_ONLINK);
	if (e == NULL)
		FX_NEIGH_COUNT(port, hold_dropped, 1);
	return e;
}

/* a packet whose neighbour a worker could not use: sent if the entry
 * lets it now, else held until it resolves (or dropped, counted) */
static void
send_when_resolved(struct rte_mbuf *m)
{
	uint16_t nexthop = fx_slow_nexthop_of(m), port = fx_nexthop_port(nexthop);
	struct fx_neigh_entry *e;

	if (port >= FX_MAX_PORTS || fx_l3.bucket[port] == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	e = entry_for_packet(m, nexthop, port);
	if (e == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (fx_neigh_entry_resolve(e)) {
		FX_NEIGH_COUNT(port, sent_direct, 1);
		fx_neigh_entry_send(e, m);
		return;
	}
	if (!fx_neigh_entry_hold(e, m)) {
		FX_NEIGH_COUNT(port, hold_dropped, 1);
		rte_pktmbuf_free(m);
	}
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
		fx_local_reply_echo(m, port, fx_neigh_now());
		break;
	case FX_SLOW_TTL:
		fx_local_reply_ttl(m, port, fx_neigh_now());
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
	unsigned int w, n, i, nb_rings = fx_neigh_nb_rings();
	bool more = false;
	uint16_t p;

	if (!fx_neigh_enabled())
		return false;
	if (fx_conf.clock == FX_CLOCK_TSC)
		fx_neigh_advance_clock_to(rte_rdtsc());
	for (w = 0; w < nb_rings; w++) {
		n = rte_ring_sc_dequeue_burst(fx_slow_ring(w), (void **)pkts, FX_MAIN_BURST, NULL);
		if (n == FX_MAIN_BURST)
			more = true;
		for (i = 0; i < n; i++) {
			if (fx_conf.clock == FX_CLOCK_PCAP)
				fx_neigh_advance_clock_to(fx_clock_pkt(pkts[i], fx_neigh_now()));
			dispatch_by_reason(pkts[i]);
		}
	}
	if (fx_neigh_run_due_timers())
		more = true;
	for (p = 0; p < FX_MAX_PORTS; p++)
		fx_main_tx_flush(p);
	fx_neigh_reclaim_deleted_slots();
	return more;
}
