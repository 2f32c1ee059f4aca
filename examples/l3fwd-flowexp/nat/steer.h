/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Replies steered to their mapping's worker, with no handoff: under
 * --affinity rss the public port of a new TCP or UDP mapping is chosen so
 * that the RSS hash of its reply selects a queue of the worker that made
 * it.
 *
 * Why it is needed. Symmetric RSS keeps both directions of a tracked flow
 * on one worker, but masquerade changes the tuple: the reply comes from
 * the remote endpoint to the public address and port, which the NIC hashes
 * as it likes, and on n workers (n - 1) / n of the replies land on another
 * worker and are handed to the owner of their port (nat_handoff).
 *
 * How. The NIC's Toeplitz hash is linear in its input bits, so for one
 * reply context (remote address and port, public address) the ports whose
 * reply reaches the redirection table entries of one worker are a class
 * that can be computed (base/toeplitz.h: a union of cosets, drawn from
 * uniformly). Each worker keeps the class of its own share of the port
 * range (nat/ports.h), built at start-up from what boot/affinity.c read
 * back from the outside ports: the key and the table's owners (entry i to
 * worker i % workers on every port, fwd/owner.h); a new mapping costs the
 * hash of its reply's context with port 0 and a draw from the class
 * (nat_ports_alloc_steered()). When no port of the class is free the
 * mapping takes another port of the share as without steering
 * (nat_steer_missed), and its replies are handed off.
 *
 * What is steered: TCP and UDP mappings made by a new session, when the
 * outside ports hash that protocol with its ports, in the share or within
 * the host's port blocks (nat/block.h takes the class's ports first in
 * each of its steps); under eim the binding's first session (the
 * bindings' other sessions reach their public port from other remote
 * endpoints, whose replies land where they hash). Not steered: ICMP echo
 * (the NICs hash ICMP on addresses only), and everything when the
 * decision says no (the start-up log says why: no rss affinity, the
 * symmetric Toeplitz function rather than a key, a key the example did
 * not set).
 *
 * Unpredictability (RFC 6056): the draw is uniform over the class, so a
 * session's port keeps log2 of the class's size in bits of entropy:
 * about log2(share) - log2(workers) with the symmetric key (doc/nat.md).
 */

#ifndef _FX_NAT_STEER_H_
#define _FX_NAT_STEER_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/toeplitz.h"
#include "nat/ports.h"

struct fx_nat;
struct nat_mapping;
enum nat_log_refusal;

/** The decision, made at start-up by boot/affinity.c. */
struct nat_steer_conf {
	const uint8_t *key;               /**< the outside ports' Toeplitz key */
	unsigned int key_len;             /**< bytes, FX_TOEPLITZ_KEY_V4 at least */
	unsigned int reta_size;           /**< entries of the owner table (a power of two) */
	const uint16_t *owner;            /**< worker index of each entry */
	bool proto[NAT_PROTO_MAX];        /**< the outside ports hash its ports */
};

/** One worker's steering: its share's port space and its class. */
struct nat_steer {
	struct fx_rss_space space;
	struct fx_rss_class cls;
	bool proto[NAT_PROTO_MAX];
	double bits_min, bits_max;        /**< entropy of a draw, over every context */
};

/**
 * Steer the new mappings of worker nt (main lcore, before the workers
 * start): its class over its share, on socket. 0, -EINVAL (a conf the
 * class cannot take), -ENOENT (no table entry is the worker's) or
 * -ENOMEM.
 */
int fx_nat_steer_init(struct fx_nat *nt, const struct nat_steer_conf *c, int socket);

/** Release what fx_nat_steer_init() made. */
void fx_nat_steer_fini(struct fx_nat *nt);

struct nat_key;
struct nat_miss;

/**
 * Before a burst's new mappings are made (nat_in2out_prefetch()): where
 * the outbound key k's mapping on public address pub_addr (network order)
 * will be steered, its class, its reply's h0 and a port of the class drawn
 * ahead into miss->steer (cls NULL where it is not steered), and in *port
 * the candidate it will try first (its inside port where that is in the
 * class), whose unit and public tuple the caller prefetches. false where
 * no candidate was found (nothing steered, or an empty class).
 */
bool nat_steer_ahead(const struct fx_nat *nt, const struct nat_key *k, uint32_t pub_addr,
		     struct nat_miss *miss, uint16_t *port);

/**
 * A public port for the new mapping tmpl of protocol class pc, from the
 * share as nat_ports_alloc() does, steered where nt is (counted in
 * nat_steered or nat_steer_missed), with the h0 and first draw of
 * nt->steer_ahead where the prefetch worked them out. 0 with *port, or
 * -EADDRINUSE.
 */
int nat_steer_alloc(struct fx_nat *nt, const struct nat_mapping *tmpl, enum nat_proto pc,
		    nat_tuple_taken_fn taken, void *arg, uint16_t *port);

/**
 * nat_block_port() for the new mapping tmpl of protocol class pc, steered
 * where nt is: the ports of its class first in the host's blocks (counted
 * as nat_steer_alloc() counts). Its returns and *why.
 */
int nat_steer_block_port(struct fx_nat *nt, uint64_t now, const struct nat_mapping *tmpl,
			 enum nat_proto pc, nat_tuple_taken_fn taken, void *arg, uint16_t *port,
			 enum nat_log_refusal *why);

#endif /* _FX_NAT_STEER_H_ */
