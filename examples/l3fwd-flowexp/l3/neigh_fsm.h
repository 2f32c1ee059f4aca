/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The neighbour state machine: how one ARP or ND entry ages, as a pure
 * function of its state, an event and the time (l3/neigh_fsm.c). No packet,
 * table or clock here: the main lcore (l3/neigh.c) feeds it the events, files
 * the deadline it returns on its wheel and carries out the actions; the
 * unit test feeds it hand-made timelines.
 *
 * The states and their deadlines follow Linux's neighbour cache:
 *
 *   INCOMPLETE  a packet needs the address: a broadcast ARP request or a
 *               multicast NS is sent every retrans, probes times; no
 *               answer: FAILED, and the packets held for it are dropped
 *   REACHABLE   an answer to our request (ARP reply, NA with S set):
 *               usable for a random time in [0.5, 1.5) x base_reachable
 *   STALE       the reachable time ran out, or the address came in
 *               something we did not ask for (an ARP request, an NA
 *               without S, an NS's source option): still usable, but the
 *               first packet that uses it starts a check
 *   DELAY       used while stale: usable, and if no answer comes within
 *               delay, PROBE
 *   PROBE       a unicast request every retrans, probes times: usable;
 *               no answer: FAILED
 *   FAILED      unusable; the next packet starts INCOMPLETE again
 *   PERMANENT   --neigh: never changes
 *
 * A STALE or FAILED entry that nothing uses is deleted after gc_stale
 * (the caller decides whether its kind may be deleted: next hops named by
 * routes stay). Every state has one deadline (or none, FX_NFSM_NEVER), so
 * the whole machine is one entry on the main lcore's wheel.
 *
 * What the workers see is `until`: the entry is usable by a worker while
 * its time is before until (and the MAC is valid). REACHABLE publishes its
 * reachable end, DELAY and PROBE their next deadline, so the first packet
 * after any deadline goes through the main lcore, which then runs the
 * machine at that packet's time: a use while STALE is noticed, and under
 * --clock pcap the main lcore's time moves with the packets.
 */

#ifndef _FX_NEIGH_FSM_H_
#define _FX_NEIGH_FSM_H_

#include <stdbool.h>
#include <stdint.h>

/** No deadline. */
#define FX_NFSM_NEVER UINT64_MAX

#define FX_NSTATES(X) \
	X(NONE, "none") X(INCOMPLETE, "incomplete") X(REACHABLE, "reachable") \
	X(STALE, "stale") X(DELAY, "delay") X(PROBE, "probe") X(FAILED, "failed") \
	X(PERMANENT, "permanent")

enum fx_nstate {
#define FX_NSTATE_ENUM(e, s) FX_NS_ ## e,
	FX_NSTATES(FX_NSTATE_ENUM)
#undef FX_NSTATE_ENUM
	FX_NS_MAX
};

extern const char *const fx_nstate_names[FX_NS_MAX];

/** The times, in the caller's unit (TSC cycles), and the probe count. */
struct fx_nfsm_conf {
	uint64_t base_reachable;   /**< Linux base_reachable_time (30 s) */
	uint64_t retrans;          /**< retrans_time (1 s) */
	uint64_t delay;            /**< delay_first_probe_time (5 s) */
	uint64_t gc_stale;         /**< gc_stale_time (60 s) */
	uint8_t probes;            /**< mcast_solicit = ucast_solicit (3) */
};

/** One entry's machine. */
struct fx_nfsm {
	uint64_t deadline;   /**< of the state; FX_NFSM_NEVER: none */
	uint64_t until;      /**< the workers may use it before this */
	uint64_t since;      /**< when it entered its state */
	uint8_t mac[6];      /**< valid when has_mac */
	uint8_t state;       /**< enum fx_nstate */
	uint8_t probes;      /**< sent in this INCOMPLETE or PROBE */
	bool has_mac;
};

/** What the caller must do after an event (a bit mask). */
enum {
	FX_NFSM_SEND_BCAST = 1,   /**< a broadcast request / multicast NS */
	FX_NFSM_SEND_UCAST = 2,   /**< a unicast request to the known MAC */
	FX_NFSM_FLUSH = 4,        /**< send the held packets (the MAC is known) */
	FX_NFSM_DROP = 8,         /**< drop the held packets (FAILED) */
	FX_NFSM_PUBLISH = 16,     /**< the MAC or until changed: publish both */
	FX_NFSM_DELETE = 32,      /**< unused for gc_stale: delete if allowed */
	FX_NFSM_USABLE = 64,      /**< resolve: the packet may go now, with mac */
	FX_NFSM_RESOLVED = 128,   /**< INCOMPLETE ended with a MAC (a count) */
	FX_NFSM_FAILED = 256,     /**< FAILED entered (a count) */
	FX_NFSM_STALE_USE = 512,  /**< a use while STALE started DELAY (a count) */
};

/** A new entry: NONE, no deadline, unusable. */
void fx_nfsm_init(struct fx_nfsm *n);

/** A permanent entry with mac (--neigh). */
void fx_nfsm_permanent(struct fx_nfsm *n, const uint8_t mac[6]);

/**
 * A packet needs the entry at now. INCOMPLETE: hold it; usable states:
 * send it (FX_NFSM_USABLE), a stale entry moving to DELAY; NONE or
 * FAILED: start INCOMPLETE (hold it).
 */
unsigned int fx_nfsm_resolve(struct fx_nfsm *n, const struct fx_nfsm_conf *c,
			     uint64_t now);

/**
 * An answer to a request (ARP reply, NA with S): REACHABLE with mac
 * (reachable time base * (0.5 + rnd / 2^32)).
 */
unsigned int fx_nfsm_confirm(struct fx_nfsm *n, const struct fx_nfsm_conf *c,
			     uint64_t now, const uint8_t mac[6], uint32_t rnd);

/**
 * The neighbour's address seen in something we did not ask for (an ARP
 * request from it, a gratuitous ARP, an NS's source option, an NA without
 * S but with O). A new MAC makes it STALE; the same MAC changes nothing;
 * INCOMPLETE moves to DELAY with its held packets sent.
 */
unsigned int fx_nfsm_learn(struct fx_nfsm *n, const struct fx_nfsm_conf *c,
			   uint64_t now, const uint8_t mac[6]);

/**
 * A neighbour advertisement (RFC 4861 7.2.5): solicited (S), override (O),
 * with its target link-layer address or without (mac NULL).
 */
unsigned int fx_nfsm_advert(struct fx_nfsm *n, const struct fx_nfsm_conf *c,
			    uint64_t now, const uint8_t *mac, bool solicited,
			    bool override, uint32_t rnd);

/** The deadline passed (now >= n->deadline). */
unsigned int fx_nfsm_timer(struct fx_nfsm *n, const struct fx_nfsm_conf *c,
			   uint64_t now);

/** Whether a worker may use the entry at now. */
static inline bool
fx_nfsm_usable(const struct fx_nfsm *n, uint64_t now)
{
	return n->has_mac && n->state != FX_NS_INCOMPLETE &&
		n->state != FX_NS_FAILED && now < n->until;
}

#endif /* _FX_NEIGH_FSM_H_ */
