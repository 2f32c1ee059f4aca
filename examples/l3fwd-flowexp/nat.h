/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Masquerade NAT in the worker: which packets are translated and by whom,
 * the per-packet step, and the mapping reaper on the worker's own wheel.
 * Files, one concern each: nat_classify.c (on the receiving worker: the
 * class and the owner), nat.c (set-up; the burst step on the owner),
 * nat_in2out.c (outbound: mapping creation), nat_out2in.c (inbound),
 * nat_icmp.c (ICMP errors both ways), nat_reap.c (the reaper),
 * nat_format.c (statistics); the control path's flush by inside prefix is
 * beside the flow flush (control.c).
 *
 * Who. A mapping lives on one worker, the one that made it, and takes its
 * public port from that worker's share (nat_ports.h). Outbound packets go
 * to the owner of their flow (the symmetric key's hash, as every tracked
 * flow), so all of a connection's outbound packets meet on the worker that
 * made its mapping; inbound packets go to the owner of their public port
 * (an ICMP error: of the port its quoted packet was sent from). On the
 * receiving worker fx_nat_classify() decides the class and the owner;
 * packets for another worker travel over the handoff rings (handoff.h),
 * inbound ones counted as nat_handoff.
 *
 * The step (fx_nat_translate(), owner only): the packets' own 5-tuples are
 * looked up together in the mapping table; then per packet
 *   outbound, live mapping  refresh (one store), TCP state, translate;
 *   outbound, none          TCP needs a SYN (else nat_non_syn), a public
 *                           port (else nat_no_port), a record and a wheel
 *                           entry (else nat_table_full; a key with no pair
 *                           in the index within its probe bound is counted
 *                           in nat_index_full too); translate;
 *   inbound, live mapping   refresh, TCP state, translate back;
 *   inbound, otherwise      drop, nat_in_nomatch (also a held mapping);
 *   ICMP errors             translated with the mapping of the packet they
 *                           quote, which they neither make, refresh nor
 *                           end; without one, dropped (nat_in_nomatch).
 * Fragments and protocols other than TCP, UDP and ICMP echo are dropped
 * (nat_unsupported). The verdict and the translated addresses are left in
 * the packet's fx_pkt for the worker to route and send.
 *
 * The reaper. Each worker has a twheel of its mappings, with a lazy
 * deadline: LIVE, the latest packet of either direction plus the timeout
 * of the mapping's class (the flow classes: one-way until a reply, the TCP
 * states, UDP, ICMP); HELD, the end of the hold-down. A refresh is the
 * store of the packet time; FIN and RST shorten the deadline with
 * twheel_move(). Due: a LIVE mapping becomes HELD (its out key leaves the
 * table, its public tuple stays taken for --nat-holddown), a HELD one
 * leaves and its port unit is released. Flushes from the control path
 * cancel through twheel_remote_cancel() and end the same way. Each poll
 * says whether more may be due at its time, for --clock pcap.
 */

#ifndef _FX_NAT_H_
#define _FX_NAT_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "nat_conf.h"
#include "nat_ports.h"
#include "nat_table.h"
#include "parse.h"
#include "timeouts.h"

struct twheel;
struct twheel_fired;
struct fx_emitter;

/** fx_pkt.nat: the NAT class of a packet, then its verdict. */
enum fx_nat_class {
	FX_NAT_NONE,      /**< not translated: tracked as a flow */
	FX_NAT_OUT,       /**< from inside to outside */
	FX_NAT_IN,        /**< to the public pool */
	FX_NAT_DROP,      /**< verdict: drop (counted) */
	FX_NAT_FORWARD,   /**< verdict: translated, route on key */
};

/** Counters, per worker; written by the owner only. */
#define FX_NAT_COUNTERS(X) \
	X(nat_created) X(nat_expired) X(nat_active) X(nat_held) \
	X(nat_released) X(nat_flushed) X(nat_in_nomatch) X(nat_non_syn) \
	X(nat_no_port) X(nat_table_full) X(nat_unsupported) X(nat_handoff) \
	X(nat_out) X(nat_in) X(nat_icmp_errors) X(nat_shortened)

struct fx_nat_stats {
#define FX_NAT_FIELD(n) uint64_t n;
	FX_NAT_COUNTERS(FX_NAT_FIELD)
#undef FX_NAT_FIELD
	uint64_t nat_expired_tmo[FX_TMO_MAX];   /**< expiries by timeout class */
};

/** One worker's NAT. */
struct fx_nat {
	struct nat_table tbl;
	struct nat_ports ports;
	struct twheel *wheel;
	struct twheel_fired *fired;       /**< budget records for sweeps */
	uint32_t budget;
	uint64_t tmo_cycles[FX_TMO_MAX];
	uint64_t holddown_cycles;
	struct fx_nat_stats st;
};

/** Whether masquerade is on (--nat-pool given). */
static inline bool
fx_nat_enabled(void)
{
	return fx_nat_conf.enabled;
}

/**
 * Start-up, main lcore: the port owner table for nb_workers workers.
 * 0 or -EINVAL.
 */
int fx_nat_setup(unsigned int nb_workers);

/**
 * Set up the NAT of worker `w` of `nb_workers` (table of `capacity`
 * mappings, port share, wheel), on `socket`. 0 or a negative errno.
 */
int fx_nat_init(struct fx_nat *nt, unsigned int lcore_id, unsigned int w,
		unsigned int nb_workers, uint32_t capacity, uint32_t budget,
		const uint64_t *tmo_cycles, uint64_t tick_cycles, int socket);

/** Free what fx_nat_init() made. */
void fx_nat_fini(struct fx_nat *nt);

/**
 * Receiving worker `self` of `nb_workers`: the NAT class of a parsed
 * packet, and its owner if it is inbound: the owner of its public port,
 * or `self` for a port outside the range (an inside host's ICMP error
 * under handoff: the owner of the connection it quotes; *owner unchanged
 * otherwise). Counts nat_handoff.
 */
uint8_t fx_nat_classify(struct fx_nat *nt, const struct rte_mbuf *m,
			const struct fx_pkt *pk, uint16_t self, uint16_t nb_workers,
			uint16_t *owner);

/**
 * Owner: translate n packets of class FX_NAT_OUT / FX_NAT_IN at time now;
 * each one's fx_pkt gets the verdict in `nat` and, if forwarded, the
 * translated addresses in its key.
 */
void fx_nat_translate(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts,
		      uint16_t n);

/**
 * Owner: one bounded sweep of the mapping wheel at time now.
 * @return whether more may be due at now: the budget ran out, or records
 *   were handled and may have scheduled hold-downs already over.
 */
bool fx_nat_poll(struct fx_nat *nt, uint64_t now);

/** Owner, at exit: end every mapping and release its port. */
void fx_nat_drain(struct fx_nat *nt);

/** Statistics of one worker (per lcore objects) and of all (totals). */
void fx_nat_emit_lcore(const struct fx_nat *nt, const struct fx_emitter *e,
		       void *ctx);
void fx_nat_emit_totals(const struct fx_emitter *e, void *ctx);

/** /l3fwd_flowexp/nat: "totals" and one object per worker lcore. */
void fx_nat_emit(const struct fx_emitter *e, void *ctx);

/** The masquerade lines of the summary printed at exit. */
void fx_nat_summary(FILE *f);

/** Mappings live or held on every worker (for --exit-when-drained). */
uint64_t fx_nat_total_active(void);

#endif /* _FX_NAT_H_ */
