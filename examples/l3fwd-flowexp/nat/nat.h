/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Masquerade NAT in the worker: which packets are translated and by whom,
 * the per-packet step, and the mapping reaper on the worker's own wheel.
 * Files, one concern each: nat/classify.c (on the receiving worker: the
 * class and the owner), nat/nat.c (set-up), nat/burst.c (the burst step on
 * the owner, hairpins),
 * nat/in2out.c (outbound: mapping creation), nat/out2in.c (inbound),
 * nat/icmp.c (ICMP errors both ways), nat/reap.c (the reaper),
 * nat/block.c (port blocks),
 * nat/format.c (statistics); the control path's flush by inside prefix is
 * beside the flow flush (ctl/control.c).
 *
 * Who. A mapping lives on one worker, the one that made it, and takes its
 * public port from that worker's share (nat/ports.h). Outbound packets go
 * to the owner of their flow (the symmetric key's hash, as every tracked
 * flow), so all of a connection's outbound packets meet on the worker that
 * made its mapping; under --nat-mapping eim they go instead to the owner
 * of their inside endpoint (nat/eim.h), so that all sessions of an
 * endpoint share the binding made there. Inbound packets go to the owner
 * of their public port (an ICMP error: of the port its quoted packet was
 * sent from). On the receiving worker fx_nat_classify() decides the class
 * and the owner from the receive port and the addresses (and drops what
 * they refuse); packets for another worker travel over the handoff rings
 * (worker/handoff.h), inbound ones and eim's outbound ones counted as
 * nat_handoff.
 *
 * The step (fx_nat_translate(), owner only): the packets' own 5-tuples are
 * looked up together in the mapping table; then per packet
 *   outbound, live mapping  refresh (one store), TCP state, translate;
 *   outbound, none          TCP needs a SYN (else nat_non_syn), the host
 *                           under its quotas (else nat_host_limit,
 *                           nat_dest_limit; no mapping is ever deleted to
 *                           make room), a public port (else nat_no_port),
 *                           a record and a wheel entry (else
 *                           nat_table_full; a key with no pair in the
 *                           index within its probe bound is counted in
 *                           nat_index_full too); translate;
 *   inbound, live mapping   refresh, TCP state, translate back;
 *   inbound, otherwise      drop, nat_in_nomatch (also a held mapping);
 *   TCP, either way         the segment is first checked by the connection
 *                           tracker (flow/tcp_track.h) against the mapping's
 *                           connection, kept in the mapping's record and
 *                           its two ends by record index beside the
 *                           table (fx_nat.tcp_ends, nat/tcp.h): one
 *                           that does not fit the window or the state is
 *                           dropped (nat_tcp_out_of_window,
 *                           nat_tcp_invalid), an inexact RST or a SYN on
 *                           an established connection translated with no
 *                           effect (nat_tcp_rst_ignored,
 *                           nat_tcp_syn_ignored); an outbound SYN on a
 *                           connection closed by FIN or RST starts a new
 *                           one on the mapping, an inbound one is dropped;
 *   ICMP errors             destination unreachable, time exceeded and
 *                           parameter problem only, translated with the
 *                           live mapping that sent the packet they quote
 *                           (the same remote endpoint), which they neither
 *                           make, refresh nor end; without one, dropped
 *                           (nat_in_nomatch); the other types and bad
 *                           quotes are refused by classification.
 * Fragments and protocols other than TCP, UDP and ICMP echo are dropped
 * (nat_unsupported). The verdict and the translated addresses are left in
 * the packet's fx_pkt for the worker to route and send.
 *
 * The reaper. Each worker has a twheel of its mappings, with a lazy
 * deadline: LIVE, the latest packet of either direction plus the timeout
 * of the mapping's class (the flow classes: one-way until a reply, the TCP
 * states, UDP, ICMP; a TCP mapping counts as answered once its handshake
 * completed); HELD, the end of the hold-down. A full table drops the new
 * mapping (nat_table_full); no mapping is ever evicted for another (RFC
 * 6888 REQ-11). A refresh is the
 * store of the packet time; FIN and RST shorten the deadline with
 * twheel_move(). Due: a LIVE mapping becomes HELD (its out key leaves the
 * table, its public tuple stays taken for --nat-holddown), a HELD one
 * leaves and its port unit is released. Flushes from the control path
 * cancel through twheel_remote_cancel() and end the same way. Each poll
 * says whether more may be due at its time, for --clock pcap.
 *
 * Port blocks (--nat-port-block, nat/block.h): a host's mappings take
 * their ports from blocks of the share it owns (under eim, its bindings
 * do, and their sessions keep the block); a block's life is an entry on
 * the same wheel, told from a mapping's by its payload's tag.
 *
 * The log (--nat-log, nat/log/events.h): a mapping made, a public tuple free for
 * reuse again (a held mapping's release, or a mapping ended at exit) and
 * a mapping refused are pushed to the worker's event ring, which the main
 * lcore exports (nat/log/export.h); with port blocks, a block allocated
 * and released instead of the first two (and of eim's binding events).
 */

#ifndef _FX_NAT_H_
#define _FX_NAT_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_config.h>
#include <rte_mbuf.h>

#include "base/atomic.h"
#include "base/quota.h"
#include "base/timeouts.h"
#include "fwd/parse.h"
#include "nat/bib.h"
#include "nat/block.h"
#include "nat/conf.h"
#include "nat/log/events.h"
#include "nat/ports.h"
#include "nat/table.h"

struct nat_steer;
struct nat_tcp_ends;
struct twheel;
struct fx_route_table;
struct twheel_fired;
struct fx_emitter;

/** fx_pkt.nat: the NAT class of a packet, then its verdict. */
enum fx_nat_class {
	FX_NAT_NONE,      /**< not translated: tracked as a flow */
	FX_NAT_OUT,       /**< from inside to outside */
	FX_NAT_IN,        /**< to the public pool */
	FX_NAT_DROP,      /**< verdict: drop (counted) */
	FX_NAT_FORWARD,   /**< verdict: translated, route on key */
	FX_NAT_HAIRPIN,   /**< from inside to the pool: outbound, then inbound */
};

/** Counters, per worker; written by the owner only. */
#define FX_NAT_COUNTERS(X) \
	X(nat_created) X(nat_expired) X(nat_active) X(nat_held) \
	X(nat_released) X(nat_flushed) X(nat_in_nomatch) X(nat_non_syn) \
	X(nat_no_port) X(nat_table_full) X(nat_unsupported) X(nat_handoff) \
	X(nat_out) X(nat_in) X(nat_icmp_errors) X(nat_shortened) \
	X(nat_host_limit) X(nat_dest_limit) X(nat_tcp_out_of_window) \
	X(nat_tcp_invalid) X(nat_tcp_rst_ignored) X(nat_tcp_syn_ignored) \
	X(nat_bib_created) X(nat_bib_active) X(nat_in_filtered) \
	X(nat_in_sessions) X(nat_revived) X(nat_hairpin) \
	X(nat_block_allocated) X(nat_block_released) X(nat_blocks_active) \
	X(nat_block_limit) X(nat_block_exhausted) X(nat_steered) \
	X(nat_steer_missed) \
	FX_NAT_DROP_CAUSES(X)

/*
 * Drops by classification (nat/classify.c), on the receiving worker,
 * before any table is touched; doc/nat.md has the rules.
 */
#define FX_NAT_DROP_CAUSES(X) \
	X(nat_drop_spoof_inside) X(nat_drop_spoof_pool) X(nat_drop_unsolicited) \
	X(nat_drop_transit) X(nat_drop_bcp38) X(nat_drop_hairpin) \
	X(nat_drop_vlan) X(nat_drop_icmp_type) X(nat_drop_icmp_quote) \
	X(nat_drop_icmp_nested)

struct fx_nat_stats {
#define FX_NAT_FIELD(n) uint64_t n;
	FX_NAT_COUNTERS(FX_NAT_FIELD)
#undef FX_NAT_FIELD
	uint64_t nat_expired_tmo[FX_TMO_MAX];   /**< expiries by timeout class */
	struct nat_log_stats log;              /**< nat_log_queued, _dropped, _suppressed */
	/* the reaper's maxima, zeroed by a reset request (worker/loop.h) */
	uint64_t nat_poll_max;     /**< most records (expiries, releases, flushes) one poll handled */
	uint64_t nat_lag_max;      /**< cycles, a Due live mapping: now - deadline */
	uint64_t nat_lag_sum;      /**< cycles */
	uint64_t nat_lag_n;
};

/** Zero the reaper's maxima (owner, on a reset request). */
static inline void
fx_nat_reset_maxima(struct fx_nat_stats *st)
{
	fx_store_relaxed(&st->nat_poll_max, 0);
	fx_store_relaxed(&st->nat_lag_max, 0);
	fx_store_relaxed(&st->nat_lag_sum, 0);
	fx_store_relaxed(&st->nat_lag_n, 0);
}

/** One worker's NAT. */
struct fx_nat {
	uint16_t self;                    /**< worker index */
	uint16_t nb_workers;
	unsigned int lcore_id;            /**< the owner */
	struct nat_table tbl;
	struct nat_ports ports;
	struct nat_blocks blocks;         /**< --nat-port-block (nat/block.h) */
	struct twheel *wheel;
	struct nat_tcp_ends *tcp_ends;    /**< TCP connections' ends by record index */
	struct twheel_fired *fired;       /**< budget records for sweeps */
	uint32_t budget;
	uint64_t tmo_cycles[FX_TMO_MAX];
	uint64_t holddown_cycles;
	struct fx_quota per_host;         /**< mappings per inside host */
	struct fx_quota per_dest;         /**< ... and remote endpoint */
	uint32_t max_per_host;            /**< 0: no limit */
	uint32_t max_per_dest;            /**< 0: no limit */
	struct nat_log *log;              /**< --nat-log: the event ring; NULL: off */
	struct nat_bib bib;               /**< --nat-mapping eim: the bindings */
	struct nat_steer *steer;          /**< replies steered (nat/steer.h); NULL: not */
	/** the mapping being made: its steering as the prefetch worked it out
	 * (nat_steer_ahead()), set around its making; NULL: none */
	const struct nat_ports_steer *steer_ahead;
	uint16_t hairpins;                /**< of the last fx_nat_translate(): FX_NAT_IN again */
	struct fx_nat_stats st;
};

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

/** The workers' NATs by worker index, as fx_nat_init() counted them; for
 * the statistics (nat/format.c), any thread. */
extern const struct fx_nat *fx_nats[RTE_MAX_LCORE];
extern unsigned int fx_nb_nats;

/**
 * Count nt as worker w's NAT, owned by lcore_id (fx_nat_init() does it;
 * main lcore, before launch).
 */
void fx_nat_register(struct fx_nat *nt, unsigned int lcore_id, unsigned int w);

/** Free what fx_nat_init() made. */
void fx_nat_fini(struct fx_nat *nt);

/**
 * The heap bytes fx_nat_init() asks for on one of nb_workers workers with
 * `capacity` mappings, all but its wheel's (twheel.h's entries; the start-
 * up estimate, boot/preflight.c, adds them): records, index, TCP ends, quota
 * tables, port units, at most (the largest share), and the steering class.
 */
uint64_t fx_nat_bytes(uint32_t capacity, unsigned int nb_workers);

/* fx_nat_classify(), on the receiving worker: nat/classify.h. */

/**
 * Owner: translate n packets of class FX_NAT_OUT / FX_NAT_IN at time now;
 * each one's fx_pkt gets the verdict in `nat` and, if forwarded, the
 * translated addresses in its key.
 */
void fx_nat_translate(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts,
		      uint16_t n);

/**
 * Owner: the NAT stage of n packets of class FX_NAT_OUT, FX_NAT_IN or
 * FX_NAT_HAIRPIN at time now: translated, hairpins resolved, and each
 * one's verdict in next[] (fwd/forward.h): FX_VERDICT_ROUTE (by its
 * translated key), FX_VERDICT_DROP (counted) or FX_VERDICT_HANDOFF (a
 * hairpin for another worker, fx_pkt.owner). Returns how many are to be
 * handed off.
 */
uint16_t fx_nat_burst(struct fx_nat *nt, uint64_t now, struct rte_mbuf **pkts,
		      uint16_t n, uint16_t *next);

/**
 * Owner: one bounded sweep of the mapping wheel at time now.
 * @return whether more may be due at now: the budget ran out, or records
 *   were handled and may have scheduled hold-downs already over.
 */
bool fx_nat_poll(struct fx_nat *nt, uint64_t now);

/**
 * Owner, at exit, at time now: end every mapping and release its port
 * (logged as deleted at now, a held one at its hold-down's end if that
 * came first).
 */
void fx_nat_drain(struct fx_nat *nt, uint64_t now);

/**
 * Statistics of one worker (per lcore objects) and of all (totals): the
 * counters and gauges, and the reaper's maxima (nat_poll_max,
 * nat_lag_max_us, nat_lag_mean_us).
 */
void fx_nat_emit_lcore(const struct fx_nat *nt, const struct fx_emitter *e,
		       void *ctx);
void fx_nat_emit_totals(const struct fx_emitter *e, void *ctx);
void fx_nat_emit_maxima(const struct fx_nat *nt, const struct fx_emitter *e,
			void *ctx);
void fx_nat_emit_maxima_totals(const struct fx_emitter *e, void *ctx);

/** /l3fwd_flowexp/nat: "totals" and one object per worker lcore. */
void fx_nat_emit(const struct fx_emitter *e, void *ctx);

/** The masquerade lines of the summary printed at exit. */
void fx_nat_summary(FILE *f);

/**
 * The masquerade lines of the -T table: per worker, mappings and their
 * rates over dt seconds since the previous table. Main lcore.
 */
void fx_nat_print(FILE *f, double dt);

/** Mappings live or held on every worker (for --exit-when-drained). */
uint64_t fx_nat_total_active(void);

#endif /* _FX_NAT_H_ */
