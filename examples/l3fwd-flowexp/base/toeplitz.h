/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The Toeplitz hash of RSS in software, and the public ports whose reply
 * a NIC's RSS sends to a chosen set of rx queues (base/toeplitz.c has the
 * geometry, the uniformity argument and the costs).
 *
 * The hash. The input is the tuple as it is on the wire: source address,
 * destination address, source port, destination port, each in network
 * byte order, one bit stream read from the first byte's most significant
 * bit; rte_softrss() takes the same stream as 32-bit words in CPU order
 * (struct rte_ipv4_tuple with host-order fields, IPv6 addresses through
 * rte_thash_load_v6_addrs()), and both give the same 32-bit value, the one
 * a NIC puts in mbuf->hash.rss. The tuple helpers take IPv4 addresses and
 * ports in host order, IPv6 addresses as their 16 wire bytes.
 *
 * The port classes. A NAT reply comes from (remote address, remote port)
 * to (public address, public port); only the public port is the NAT's to
 * choose. struct fx_rss_space holds what depends on the outside port's
 * key, the family, the redirection table's size and the port range [lo,
 * hi], struct fx_rss_class adds the table itself and the wanted queues;
 * both are filled once, with no allocation, and then serve every reply
 * context. A context is one 32-bit value, h0: the reply's hash with public
 * port 0 (fx_rss_space_h0_v4(), _v6()). Given h0, a class answers whether
 * a port lands on a wanted queue, how many ports in [lo, hi] do, and draws
 * one of them uniformly.
 */

#ifndef _FX_TOEPLITZ_H_
#define _FX_TOEPLITZ_H_

#include <stdbool.h>
#include <stdint.h>

/** Key bytes the hash of an IPv4 tuple with ports reads (12 + 4). */
#define FX_TOEPLITZ_KEY_V4 16
/** Key bytes the hash of an IPv6 tuple with ports reads (36 + 4). */
#define FX_TOEPLITZ_KEY_V6 40
/** Largest redirection table a space takes. */
#define FX_TOEPLITZ_RETA_LOG2_MAX 11
#define FX_TOEPLITZ_RETA_MAX (1u << FX_TOEPLITZ_RETA_LOG2_MAX)
/** Input bytes of an IPv4 h0 that can be set: addresses and the remote port. */
#define FX_TOEPLITZ_H0_BYTES_V4 10
/** Rejection rounds of a draw before the exact walk (fx_rss_class_draw()). */
#define FX_RSS_TRIES 8

/**
 * Fill len bytes of key with the symmetric key, the 16-bit pattern 6d5a
 * repeated: a tuple and its reverse hash alike (boot/ports.c).
 */
static inline void
fx_toeplitz_symmetric_key(uint8_t *key, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		key[i] = (i & 1) ? 0x5a : 0x6d;
}

/**
 * Toeplitz hash of len input bytes (wire order) under key, which has at
 * least len + 4 bytes.
 */
uint32_t fx_toeplitz(const uint8_t *key, const uint8_t *in, unsigned int len);

/** IPv4 tuple: addresses and ports in host order; key of FX_TOEPLITZ_KEY_V4 bytes. */
uint32_t fx_toeplitz_v4(const uint8_t *key, uint32_t src, uint32_t dst,
			uint16_t sport, uint16_t dport);

/** IPv6 tuple: addresses as on the wire, ports in host order; key of
 * FX_TOEPLITZ_KEY_V6 bytes. */
uint32_t fx_toeplitz_v6(const uint8_t *key, const uint8_t src[16],
			const uint8_t dst[16], uint16_t sport, uint16_t dport);

/**
 * The public port's part of the reply hash, for one key, family, table
 * size and port range. Read-only once filled.
 */
struct fx_rss_space {
	uint8_t key[FX_TOEPLITZ_KEY_V6];  /**< the bytes the hash reads */
	bool ipv6;
	uint16_t lo, hi;                  /**< the port range */
	uint32_t mask;                    /**< table size - 1 */
	uint32_t col[16];                 /**< hash of port bit j alone */
	unsigned int rank;                /**< of the map onto the table index */
	unsigned int kdim;                /**< 16 - rank: the kernel's */
	uint16_t kern[16];                /**< kernel basis, reduced, pivots descending */
	uint32_t n_max;                   /**< largest n[] */
	uint16_t base[FX_TOEPLITZ_RETA_MAX];   /**< smallest port with map value v */
	uint16_t first[FX_TOEPLITZ_RETA_MAX];  /**< rank in its coset of the first one >= lo */
	uint32_t n[FX_TOEPLITZ_RETA_MAX];      /**< ports in [lo, hi] with map value v */
	/** IPv4: the hash of byte value b at input byte i (the addresses and
	 * the remote port, the bytes an h0 has), for fx_rss_space_h0_v4() */
	uint32_t byte4[FX_TOEPLITZ_H0_BYTES_V4][256];
};

/** The ports whose reply reaches a wanted queue. Read-only once filled. */
struct fx_rss_class {
	const struct fx_rss_space *sp;
	uint32_t nt;                      /**< table entries with a wanted queue */
	uint32_t span;                    /**< nt * sp->n_max: a draw's range */
	uint64_t want[FX_TOEPLITZ_RETA_MAX / 64];  /**< those entries, a bit each */
	uint16_t t[FX_TOEPLITZ_RETA_MAX];      /**< the same, as a list */
	uint32_t cnt[FX_TOEPLITZ_RETA_MAX];    /**< class size in [lo, hi] for h0 & mask */
};

/**
 * Fill sp for key (key_len bytes, at least FX_TOEPLITZ_KEY_V4 or _V6),
 * a redirection table of reta_size entries (a power of two, 1 to
 * FX_TOEPLITZ_RETA_MAX) and public ports lo..hi. 0, or -EINVAL.
 */
int fx_rss_space_init(struct fx_rss_space *sp, const uint8_t *key,
		      unsigned int key_len, bool ipv6, unsigned int reta_size,
		      uint16_t lo, uint16_t hi);

/** A context's h0: the reply's hash with public port 0 (host order). */
uint32_t fx_rss_space_h0_v4(const struct fx_rss_space *sp, uint32_t raddr,
			    uint16_t rport, uint32_t paddr);
uint32_t fx_rss_space_h0_v6(const struct fx_rss_space *sp, const uint8_t raddr[16],
			    uint16_t rport, const uint8_t paddr[16]);

/** The reply's whole hash (mbuf->hash.rss) with public port port. */
static inline uint32_t
fx_rss_space_hash(const struct fx_rss_space *sp, uint32_t h0, uint16_t port)
{
	unsigned int x = port;

	for (; x != 0; x &= x - 1)
		h0 ^= sp->col[__builtin_ctz(x)];
	return h0;
}

/**
 * Fill cl over sp: the wanted queues are the bits of queues (queue ids
 * 0..63), reta the table (sp's size, a queue id an entry). 0, -EINVAL,
 * or -ENOENT when no entry names a wanted queue.
 */
int fx_rss_class_init(struct fx_rss_class *cl, const struct fx_rss_space *sp,
		      const uint16_t *reta, uint64_t queues);

/** Does the reply to port (any port, in the range or not) reach a wanted queue? */
static inline bool
fx_rss_class_has(const struct fx_rss_class *cl, uint32_t h0, uint16_t port)
{
	uint32_t i = fx_rss_space_hash(cl->sp, h0, port) & cl->sp->mask;

	return (cl->want[i / 64] >> (i % 64)) & 1;
}

/** How many ports in [lo, hi] have their reply reach a wanted queue. */
static inline uint32_t
fx_rss_class_size(const struct fx_rss_class *cl, uint32_t h0)
{
	return cl->cnt[h0 & cl->sp->mask];
}

/** The entropy a draw has: log2 of the class size; -1 when it is empty. */
double fx_rss_class_bits(const struct fx_rss_class *cl, uint32_t h0);

/**
 * Draw a port uniformly among those in [lo, hi] whose reply reaches a
 * wanted queue (rte_rand()), into *port. 0, or -ENOENT when there is
 * none. At most FX_RSS_TRIES rejection rounds, then one walk of the
 * class's table entries.
 */
int fx_rss_class_draw(const struct fx_rss_class *cl, uint32_t h0, uint16_t *port);

#endif /* _FX_TOEPLITZ_H_ */
