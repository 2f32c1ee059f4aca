/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Unit tests of the NAT building blocks of l3fwd-flowexp (meson test
 * flowexp_nat_unit, suite fast-tests):
 *   - port shares: every range and worker count splits into disjoint,
 *     contiguous shares that cover the range, sizes within one port, and
 *     the owner table agrees; bad ranges are refused;
 *   - the allocator against a reference model over random operations:
 *     preservation, random ports inside the share only, exhaustion with
 *     nothing changed, free/held/in-use counts exact at every step; a
 *     share no larger than the tries tried whole (its one free port
 *     always found); a unit's index decoded back to its address,
 *     protocol and port (nat_ports_unit_of()) for every unit of shares
 *     of several sizes;
 *   - the steered allocator (nat_ports_alloc_steered()) on worker 0 of 2
 *     under the symmetric key and a 128-entry table: over 20000 random
 *     reply contexts every port chosen reaches worker 0 by rte_softrss(),
 *     the inside port kept exactly when it is in the share and the class,
 *     and with the class all taken a port outside it, said missed;
 *   - the mapping table: both keys find the record, the public tuple is
 *     taken while live or held, hold-down drops the out key only,
 *     conflicts and a full table change nothing, and a random run against
 *     a reference model keeps every lookup right;
 *   - its index with colliding keys (the secret known): keys with equal
 *     tags (equal keyed hashes, built from the secret) told apart in the
 *     records; mappings whose out keys share one home bucket, against a
 *     model of where each key's pair must land: past the probe bound a
 *     mapping is refused with -EOVERFLOW, counted, and nothing changes;
 *     every key is found, every bucket's spill count is what the keys'
 *     places say, no key lies past the bound;
 *   - a mapping's TCP connection split between its record and the ends
 *     beside it (nat/tcp.h): random connection states (every scale and
 *     flag value the tracker can set) stored and loaded back are the same
 *     struct fx_tcp, and the part in the record is the record's last 20
 *     bytes;
 *   - translation: for random IPv4 TCP, UDP (with and without checksum)
 *     and ICMP echo packets, every incrementally patched checksum equals
 *     a full recomputation; ICMP errors quoting a translated packet, with
 *     8 bytes or the whole L4 header quoted, come back byte for byte as
 *     the inside host sent them, every checksum right;
 *   - the binding table's start-up estimate (nat_bib_bytes(), with the
 *     port units beside whose counts its entries lie) against what
 *     creating both took from the heap, with and without adf's address
 *     counts: at most 1 % under it; no table over units without room;
 *   - the binding table's remembered answer (nat_bib_inside()) against a
 *     model over random adds, removes and lookups of a few endpoints:
 *     every lookup right, as it must be when the answer it remembers was
 *     "none" before an add or an entry before its remove, and each
 *     unit's entry (nat_bib_public()) bound while it lives and not
 *     after;
 *   - keys built in words (nat_key_make()) byte for byte as keys set
 *     field by field, and the parser's address order (fx_addr_cmp()) as
 *     memcmp()'s, on random values.
 * Exit 0 when every check passed; prints each failure.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "base/hash.h"
#include "base/index.h"
#include "base/toeplitz.h"
#include "fwd/parse.h"
#include "nat/bib.h"
#include "nat/conf.h"
#include "nat/ports.h"
#include "nat/table.h"
#include "nat/tcp.h"
#include "nat/translate.h"
#include "test/lib/test_eal.h"

/* ---- shares ---- */

static void
test_shares(void)
{
	static uint8_t owner[65536];
	static const uint16_t ranges[][2] = {
		{ 1024, 65535 }, { 0, 65535 }, { 5000, 5000 }, { 1, 10 },
		{ 60000, 65535 }, { 100, 107 },
	};
	unsigned int r, nw, w, p;
	uint16_t first, last, prev_last;
	uint32_t n, size, min, max;

	for (r = 0; r < RTE_DIM(ranges); r++) {
		uint16_t lo = ranges[r][0], hi = ranges[r][1];

		n = (uint32_t)hi - lo + 1;
		for (nw = 1; nw <= 16; nw++) {
			if (n < nw) {
				CHECK(nat_ports_share(lo, hi, nw, 0, &first, &last) == -EINVAL,
				      "%u workers on %u ports accepted", nw, n);
				continue;
			}
			CHECK(nat_ports_owner_table(lo, hi, nw, owner) == 0,
			      "owner table %u-%u/%u", lo, hi, nw);
			min = UINT32_MAX;
			max = 0;
			prev_last = 0;
			for (w = 0; w < nw; w++) {
				CHECK(nat_ports_share(lo, hi, nw, w, &first, &last) == 0,
				      "share %u of %u", w, nw);
				CHECK(w != 0 || first == lo, "first share starts at %u", first);
				CHECK(w == 0 || first == prev_last + 1,
				      "share %u starts at %u after %u", w, first, prev_last);
				CHECK(w != nw - 1 || last == hi, "last share ends at %u", last);
				size = (uint32_t)last - first + 1;
				min = RTE_MIN(min, size);
				max = RTE_MAX(max, size);
				for (p = first; p <= last; p++)
					if (owner[p] != w)
						break;
				CHECK(p == (uint32_t)last + 1, "owner[%u] = %u, not %u",
				      p, owner[p], w);
				prev_last = last;
			}
			CHECK(max - min <= 1, "shares of %u-%u/%u differ by %u", lo, hi,
			      nw, max - min);
			CHECK(lo == 0 || owner[lo - 1] == 0xff, "port below the range owned");
			CHECK(hi == 65535 || owner[hi + 1] == 0xff, "port above the range owned");
		}
	}
	CHECK(nat_ports_share(10, 9, 1, 0, &first, &last) == -EINVAL, "lo > hi accepted");
	CHECK(nat_ports_share(10, 20, 2, 2, &first, &last) == -EINVAL, "worker 2 of 2 accepted");
	CHECK(nat_ports_share(10, 20, 0, 0, &first, &last) == -EINVAL, "0 workers accepted");
}

/* ---- allocator against a model ---- */

#define M_ADDRS 3
#define M_SHARE_MAX 64
#define M_REMOTES 4

/* the model: for each (addr, proto, port offset, remote) whether the public
 * tuple is live or held */
struct model {
	uint8_t live[M_ADDRS][NAT_PROTO_MAX][M_SHARE_MAX][M_REMOTES];
	uint8_t held[M_ADDRS][NAT_PROTO_MAX][M_SHARE_MAX][M_REMOTES];
};

struct taken_arg {
	struct model *m;
	const struct nat_ports *np;
	uint32_t addr;
	enum nat_proto proto;
	unsigned int remote;
	unsigned int calls;
	bool outside_share;
};

static bool
model_taken(uint16_t port, void *arg)
{
	struct taken_arg *t = arg;
	unsigned int off = (uint16_t)(port - t->np->first);

	t->calls++;
	if (off >= t->np->share) {
		t->outside_share = true;
		return true;
	}
	return t->m->live[t->addr][t->proto][off][t->remote] ||
	       t->m->held[t->addr][t->proto][off][t->remote];
}

static void
model_counts(const struct model *m, const struct nat_ports *np,
	     uint64_t *nb_free, uint64_t *nb_held)
{
	unsigned int a, p, o, r;
	bool live, held;

	*nb_free = *nb_held = 0;
	for (a = 0; a < np->nb_addrs; a++)
		for (p = 0; p < NAT_PROTO_MAX; p++)
			for (o = 0; o < np->share; o++) {
				live = held = false;
				for (r = 0; r < M_REMOTES; r++) {
					live |= m->live[a][p][o][r] != 0;
					held |= m->held[a][p][o][r] != 0;
				}
				if (!live && !held)
					(*nb_free)++;
				else if (!live)
					(*nb_held)++;
			}
}

static void
test_alloc_model(uint16_t lo, uint16_t hi, unsigned int nw, unsigned int w,
		 unsigned int ops)
{
	static struct model m;
	struct nat_ports np;
	struct taken_arg t;
	uint64_t nb_free, nb_held;
	unsigned int i, off, exhausted = 0, preserved = 0, allocs = 0;
	uint16_t port, inside;
	int rc;

	memset(&m, 0, sizeof(m));
	rc = nat_ports_init(&np, lo, hi, nw, w, M_ADDRS, 0, SOCKET_ID_ANY);
	CHECK(rc == 0, "init %u-%u worker %u/%u: %d", lo, hi, w, nw, rc);
	if (rc != 0)
		return;
	CHECK(np.share <= M_SHARE_MAX, "share %u too big for the model", np.share);
	CHECK(np.nb_free == np.units && np.nb_held == 0, "fresh allocator not all free");

	for (i = 0; i < ops; i++) {
		uint32_t op = (uint32_t)rte_rand_max(10);

		t.m = &m;
		t.np = &np;
		t.addr = (uint32_t)rte_rand_max(M_ADDRS);
		t.proto = (enum nat_proto)rte_rand_max(NAT_PROTO_MAX);
		t.remote = (unsigned int)rte_rand_max(M_REMOTES);
		t.calls = 0;
		t.outside_share = false;
		off = (unsigned int)rte_rand_max(np.share);
		port = (uint16_t)(np.first + off);
		if (op < 5) {
			/* a new mapping; half the time an inside port in the share */
			inside = (op & 1) ? port : (uint16_t)rte_rand();
			rc = nat_ports_alloc(&np, t.addr, t.proto, inside, model_taken,
					     &t, &port);
			CHECK(!t.outside_share, "a candidate outside the share");
			CHECK(t.calls <= NAT_PORT_TRIES + 1, "%u candidates", t.calls);
			if (rc == -EADDRINUSE) {
				exhausted++;
				continue;
			}
			CHECK(rc == 0, "alloc: %d", rc);
			if (rc != 0)
				continue;
			allocs++;
			off = (uint16_t)(port - np.first);
			CHECK(off < np.share, "port %u outside the share", port);
			CHECK(!m.live[t.addr][t.proto][off][t.remote] &&
			      !m.held[t.addr][t.proto][off][t.remote],
			      "port %u handed out while its tuple is taken", port);
			if (nat_ports_mine(&np, inside) &&
			    !m.live[t.addr][t.proto][(uint16_t)(inside - np.first)][t.remote] &&
			    !m.held[t.addr][t.proto][(uint16_t)(inside - np.first)][t.remote]) {
				CHECK(port == inside, "inside port %u free but %u chosen",
				      inside, port);
				preserved++;
			}
			m.live[t.addr][t.proto][off][t.remote] = 1;
		} else if (op < 8) {
			/* a live mapping expires into hold-down */
			if (!m.live[t.addr][t.proto][off][t.remote])
				continue;
			nat_ports_hold(&np, t.addr, t.proto, port);
			m.live[t.addr][t.proto][off][t.remote] = 0;
			m.held[t.addr][t.proto][off][t.remote] = 1;
		} else {
			/* a hold-down ends */
			if (!m.held[t.addr][t.proto][off][t.remote])
				continue;
			nat_ports_release(&np, t.addr, t.proto, port);
			m.held[t.addr][t.proto][off][t.remote] = 0;
		}
		model_counts(&m, &np, &nb_free, &nb_held);
		CHECK(np.nb_free == nb_free && np.nb_held == nb_held,
		      "op %u: free %" PRIu64 " held %" PRIu64 ", model %" PRIu64 " %" PRIu64,
		      i, np.nb_free, np.nb_held, nb_free, nb_held);
		CHECK(nat_ports_check(&np) == 0, "op %u: counters drifted", i);
		if (failures > 20)
			break;
	}
	CHECK(allocs > 0 && preserved > 0, "no allocation (%u) or preservation (%u)",
	      allocs, preserved);
	printf("alloc model %u-%u worker %u/%u: %u ops, %u allocated (%u preserved), %u exhausted\n",
	       lo, hi, w, nw, ops, allocs, preserved, exhausted);
	nat_ports_fini(&np);
}

static void
test_alloc_errors(void)
{
	struct nat_ports np;

	CHECK(nat_ports_init(&np, 1024, 2047, 2, 0, 0, 0, SOCKET_ID_ANY) == -EINVAL,
	      "an empty pool accepted");
	CHECK(nat_ports_init(&np, 1024, 2047, 2, 0, NAT_POOL_ADDRS_MAX + 1,
			     0, SOCKET_ID_ANY) == -EINVAL, "too large a pool accepted");
	CHECK(nat_ports_init(&np, 1024, 2047, 2, 0, 1, 4, SOCKET_ID_ANY) == -EINVAL,
	      "4 bytes beside a unit accepted");
	CHECK(nat_ports_init(&np, 2000, 1000, 1, 0, 1, 0, SOCKET_ID_ANY) == -EINVAL,
	      "an empty range accepted");
}

/* nat_pool_index() (a multiply for the remainder) against the remainder
 * of a divide, for pool sizes 1 to 64, then about doubling, and the
 * largest, NAT_POOL_ADDRS_MAX */
static void
test_pool_index(unsigned int per_size)
{
	static struct nat_conf c;
	unsigned int n, i, wrong = 0, checked = 0;
	uint32_t a;

	for (n = 1; n <= NAT_POOL_ADDRS_MAX;
	     n = n == NAT_POOL_ADDRS_MAX ? n + 1 : n < 64 ? n + 1 :
	     RTE_MIN(n * 2 + 1, (unsigned int)NAT_POOL_ADDRS_MAX)) {
		c.nb_pool = n;
		c.pool_rcp = rte_reciprocal_value(n);
		for (i = 0; i < per_size; i++) {
			/* the extremes of the hash's range, then random */
			a = i < 2 ? 0 : (uint32_t)rte_rand();
			if (nat_pool_index(&c, a) != fx_hash_u32(a) % n)
				wrong++;
			checked++;
		}
	}
	CHECK(wrong == 0, "pool indices against a divide: %u of %u wrong", wrong, checked);
	printf("pool indices: %u checked, %u wrong\n", checked, wrong);
}

/* a unit's index and back (nat_ports_unit_of()), and its place in the
 * array, for every unit of shares of several sizes (the one-port share,
 * small and odd ones, a worker's of the whole range, the whole range),
 * with and without room beside the units */
static void
test_unit_of(void)
{
	static const struct { uint16_t lo, hi; unsigned int workers, w; } sh[] = {
		{ 100, 100, 1, 0 }, { 40000, 40002, 1, 0 }, { 1024, 65535, 3, 2 },
		{ 1024, 65535, 7, 0 }, { 0, 65535, 1, 0 },
	};
	struct nat_ports np;
	unsigned int i, wrong = 0;
	enum nat_proto pc;
	uint64_t idx, n = 0;
	uint32_t a;
	uint16_t port;

	for (i = 0; i < RTE_DIM(sh); i++) {
		/* with and without the binding table's room beside each unit */
		if (nat_ports_init(&np, sh[i].lo, sh[i].hi, sh[i].workers, sh[i].w, 5,
				   i % 2 ? sizeof(struct nat_port_unit) : 0,
				   SOCKET_ID_ANY) != 0) {
			CHECK(false, "init of share %u", i);
			continue;
		}
		for (idx = 0; idx < np.units; idx++, n++) {
			nat_ports_unit_of(&np, (uint32_t)idx, &a, &pc, &port);
			if (a >= np.nb_addrs || pc >= NAT_PROTO_MAX || !nat_ports_mine(&np, port) ||
			    nat_ports_unit_index(&np, a, pc, port) != idx ||
			    (uintptr_t)nat_ports_unit(&np, a, pc, port) - (uintptr_t)np.unit !=
			    (idx << np.unit_shift))
				wrong++;
		}
		nat_ports_fini(&np);
	}
	CHECK(wrong == 0, "units back from their index: %u of %" PRIu64 " wrong", wrong, n);
	printf("units back from their index: %" PRIu64 " units, %u wrong\n", n, wrong);
}

/* exhaustion: every tuple of a one-port share taken, nothing changes */
static bool
all_taken(uint16_t port, void *arg)
{
	(void)port;
	(*(unsigned int *)arg)++;
	return true;
}

static void
test_alloc_exhausted(void)
{
	struct nat_ports np;
	unsigned int calls = 0;
	uint16_t port = 0;

	if (nat_ports_init(&np, 7000, 7000, 1, 0, 1, 0, SOCKET_ID_ANY) != 0) {
		CHECK(false, "init of a one-port share");
		return;
	}
	CHECK(nat_ports_alloc(&np, 0, NAT_PROTO_UDP, 7000, all_taken, &calls,
			      &port) == -EADDRINUSE, "allocated from a full share");
	CHECK(calls == 2, "%u candidates tried (the inside port, the share's one)", calls);
	CHECK(np.nb_free == np.units && nat_ports_check(&np) == 0,
	      "a failed allocation changed the counts");
	nat_ports_fini(&np);
	calls = 0;
	if (nat_ports_init(&np, 7000, 7999, 1, 0, 1, 0, SOCKET_ID_ANY) != 0) {
		CHECK(false, "init of a 1000-port share");
		return;
	}
	CHECK(nat_ports_alloc(&np, 0, NAT_PROTO_UDP, 7000, all_taken, &calls,
			      &port) == -EADDRINUSE && calls == NAT_PORT_TRIES + 1,
	      "a large full share: %u candidates tried", calls);
	nat_ports_fini(&np);
}

/* steered: the ports of a class taken but those in `free_ports` */
struct steer_arg {
	const struct fx_rss_class *cls;
	uint32_t h0;
	bool class_full;   /* every port of the class taken */
	unsigned int calls;
};

static bool
steer_taken(uint16_t port, void *arg)
{
	struct steer_arg *a = arg;

	a->calls++;
	return a->class_full && fx_rss_class_has(a->cls, a->h0, port);
}

/*
 * nat_ports_alloc_steered() on worker 0 of 2 with the symmetric key and a
 * 128-entry table (entry i to worker i % 2): every port in the class (the
 * reply's hash, recomputed with rte_softrss(), on an entry of worker 0);
 * the inside port kept exactly when it is in the share, in the class and
 * free; with the class all taken a port outside it, said missed; a small
 * share tried port by port
 */
static void
test_alloc_steered(unsigned int rounds)
{
	uint8_t key[40];
	uint16_t owner[128], port, inside;
	struct fx_rss_space sp;
	struct fx_rss_class cl;
	struct nat_ports_steer ps = { .cls = NULL };
	struct steer_arg a;
	struct nat_ports np;
	unsigned int i, in_class = 0, kept = 0;
	bool missed;

	fx_toeplitz_symmetric_key(key, sizeof(key));
	for (i = 0; i < RTE_DIM(owner); i++)
		owner[i] = (i % 2) == 0;   /* "queue" 1: worker 0's entries */
	if (nat_ports_init(&np, 1024, 65535, 2, 0, 1, 0, SOCKET_ID_ANY) != 0 ||
	    fx_rss_space_init(&sp, key, sizeof(key), false, 128, np.first, np.last) != 0 ||
	    fx_rss_class_init(&cl, &sp, owner, UINT64_C(1) << 1) != 0) {
		CHECK(false, "set-up of a steered share");
		return;
	}
	ps.cls = &cl;
	for (i = 0; i < rounds; i++) {
		uint32_t raddr = (uint32_t)rte_rand(), paddr = 0xc0000201;
		uint16_t rport = (uint16_t)rte_rand();
		union rte_thash_tuple t;

		ps.h0 = fx_rss_space_h0_v4(&sp, raddr, rport, paddr);
		/* every other round with its first draw made ahead, as the
		 * burst's prefetch makes it */
		ps.has_first = (i & 1) && fx_rss_class_draw(&cl, ps.h0, &ps.first) == 0;
		a = (struct steer_arg){ .cls = &cl, .h0 = ps.h0 };
		inside = (uint16_t)rte_rand();
		if (nat_ports_alloc_steered(&np, 0, NAT_PROTO_UDP, inside, &ps, steer_taken, &a,
					    &port, &missed) != 0) {
			CHECK(false, "a steered allocation failed with the class free");
			continue;
		}
		memset(&t, 0, sizeof(t));
		t.v4.src_addr = raddr;
		t.v4.dst_addr = paddr;
		t.v4.sport = rport;
		t.v4.dport = port;
		in_class += !missed && nat_ports_mine(&np, port) &&
			rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key) % 128 % 2 == 0;
		kept += port == inside;
		CHECK((port == inside) == (nat_ports_mine(&np, inside) &&
					   fx_rss_class_has(&cl, ps.h0, inside)),
		      "inside port %u: kept %d", inside, port == inside);
		nat_ports_put(&np, 0, NAT_PROTO_UDP, port);
		/* the class all taken: another port of the share, missed */
		a.class_full = true;
		CHECK(nat_ports_alloc_steered(&np, 0, NAT_PROTO_UDP, inside, &ps, steer_taken, &a,
					      &port, &missed) == 0 && missed &&
		      nat_ports_mine(&np, port) && !fx_rss_class_has(&cl, ps.h0, port),
		      "class full: port %u, missed %d", port, missed);
		nat_ports_put(&np, 0, NAT_PROTO_UDP, port);
	}
	CHECK(in_class == rounds, "%u of %u steered ports reach worker 0 by rte_softrss()",
	      in_class, rounds);
	CHECK(kept > 0 && np.nb_free == np.units && nat_ports_check(&np) == 0,
	      "inside ports kept %u, counts back", kept);
	nat_ports_fini(&np);
}

/* a small share with one port free: only that one is not taken */
static bool
all_but_last(uint16_t port, void *arg)
{
	return port != *(const uint16_t *)arg;
}

static void
test_alloc_small_share(void)
{
	const uint16_t lo = 7000, hi = lo + NAT_PORT_TRIES - 1;
	struct nat_ports np;
	uint16_t port, free_port = hi;
	unsigned int i, found = 0;

	if (nat_ports_init(&np, lo, hi, 1, 0, 1, 0, SOCKET_ID_ANY) != 0) {
		CHECK(false, "init of a %u-port share", NAT_PORT_TRIES);
		return;
	}
	/* drawn at random, 16 tries would miss the one free port 36% of the
	 * time; a share this small is tried whole */
	for (i = 0; i < 1000; i++) {
		if (nat_ports_alloc(&np, 0, NAT_PROTO_UDP, lo, all_but_last, &free_port,
				    &port) == 0 && port == free_port) {
			found++;
			nat_ports_put(&np, 0, NAT_PROTO_UDP, port);
		}
	}
	CHECK(found == 1000, "the one free port of a small share found %u times of 1000",
	      found);
	CHECK(nat_ports_check(&np) == 0 && np.nb_free == np.units, "counts after");
	nat_ports_fini(&np);
}

/* ---- translation ---- */

struct pkt {
	uint8_t b[256];
	uint32_t len;
};

static uint16_t
icmp_cksum(const void *icmp, uint32_t len)
{
	return (uint16_t)~rte_raw_cksum(icmp, len);
}

/* a random IPv4 packet of protocol proto with correct checksums */
static void
make_packet(struct pkt *p, uint8_t proto, bool udp_no_cksum)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p->b;
	uint8_t *l4 = p->b + sizeof(*ip);
	uint32_t l4_len, i;

	l4_len = 20 + (uint32_t)rte_rand_max(60);
	for (i = 0; i < sizeof(p->b); i++)
		p->b[i] = (uint8_t)rte_rand();
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + l4_len));
	ip->next_proto_id = proto;
	ip->fragment_offset = 0;
	ip->hdr_checksum = 0;
	p->len = sizeof(*ip) + l4_len;
	switch (proto) {
	case IPPROTO_TCP:
		((struct rte_tcp_hdr *)l4)->data_off = 0x50;
		((struct rte_tcp_hdr *)l4)->cksum = 0;
		((struct rte_tcp_hdr *)l4)->cksum = rte_ipv4_udptcp_cksum(ip, l4);
		break;
	case IPPROTO_UDP:
		((struct rte_udp_hdr *)l4)->dgram_len = rte_cpu_to_be_16((uint16_t)l4_len);
		((struct rte_udp_hdr *)l4)->dgram_cksum = 0;
		if (!udp_no_cksum)
			((struct rte_udp_hdr *)l4)->dgram_cksum =
				rte_ipv4_udptcp_cksum(ip, l4);
		break;
	case IPPROTO_ICMP:
		((struct rte_icmp_hdr *)l4)->icmp_type = NAT_ICMP_ECHO_REQUEST;
		((struct rte_icmp_hdr *)l4)->icmp_code = 0;
		((struct rte_icmp_hdr *)l4)->icmp_cksum = 0;
		((struct rte_icmp_hdr *)l4)->icmp_cksum = icmp_cksum(l4, l4_len);
		break;
	}
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* whether a one's complement sum over a header with its checksum is right */
static bool
sum_ok(uint32_t sum)
{
	return nat_cksum_fold(sum) == 0xffff;
}

/* whether every checksum of p is right */
static bool
packet_ok(const struct pkt *p, const char **why)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p->b;
	const uint8_t *l4 = p->b + sizeof(*ip);
	uint32_t l4_len = p->len - sizeof(*ip);

	if (!sum_ok(rte_raw_cksum(ip, sizeof(*ip)))) {
		*why = "ipv4 header";
		return false;
	}
	switch (ip->next_proto_id) {
	case IPPROTO_UDP:
		if (((const struct rte_udp_hdr *)l4)->dgram_cksum == 0)
			break;
		/* fall through */
	case IPPROTO_TCP:
		if (!sum_ok((uint32_t)rte_raw_cksum(l4, l4_len) +
			    rte_ipv4_phdr_cksum(ip, 0))) {
			*why = "tcp/udp";
			return false;
		}
		break;
	case IPPROTO_ICMP:
		if (!sum_ok(rte_raw_cksum(l4, l4_len))) {
			*why = "icmp";
			return false;
		}
		break;
	}
	return true;
}

static void
test_rewrite(unsigned int rounds)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct pkt p, orig;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p.b;
	uint8_t *l4 = p.b + sizeof(*ip);
	struct nat_l4_fields f;
	unsigned int i;
	const char *why = "";
	uint32_t addr, old_addr;
	uint16_t port, old_port, udp0;
	bool src;

	for (i = 0; i < rounds; i++) {
		uint8_t proto = protos[i % RTE_DIM(protos)];
		bool no_cksum = proto == IPPROTO_UDP && (i & 4);

		make_packet(&p, proto, no_cksum);
		orig = p;
		src = (i & 1) != 0;
		f = nat_l4_fields(l4, proto, src, p.len - sizeof(*ip));
		old_addr = src ? ip->src_addr : ip->dst_addr;
		old_port = nat_rd16(f.port);
		addr = (uint32_t)rte_rand();
		port = (uint16_t)rte_rand();
		if (i % 97 == 0)
			addr = 0;       /* corner values */
		if (i % 89 == 0)
			port = 0xffff;
		nat_rewrite_v4(ip, l4, p.len - sizeof(*ip), src, addr, port, NULL);
		CHECK(packet_ok(&p, &why), "round %u proto %u: %s checksum wrong",
		      i, proto, why);
		CHECK((src ? ip->src_addr : ip->dst_addr) == addr, "address not written");
		CHECK(nat_rd16(f.port) == port, "port not written");
		if (proto == IPPROTO_UDP) {
			udp0 = ((struct rte_udp_hdr *)l4)->dgram_cksum;
			CHECK(no_cksum == (udp0 == 0),
			      "round %u: UDP checksum %#x (none before: %d)", i, udp0, no_cksum);
		}
		/* and back: the packet as it was, byte for byte */
		nat_rewrite_v4(ip, l4, p.len - sizeof(*ip), src, old_addr, old_port, NULL);
		CHECK(memcmp(p.b, orig.b, p.len) == 0, "round %u proto %u: no round trip",
		      i, proto);
		if (failures > 20)
			break;
	}
}

/*
 * UDP: an update whose one's complement result is 0 is sent as 0xffff,
 * since 0 would mean "no checksum" (RFC 768). The new port is chosen so
 * that the patched checksum comes out as exactly 0.
 */
static void
test_udp_zero_result(unsigned int rounds)
{
	struct pkt p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p.b;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(p.b + sizeof(*ip));
	const char *why = "";
	uint32_t addr, i, s;
	uint16_t c, port;

	for (i = 0; i < rounds; i++) {
		make_packet(&p, IPPROTO_UDP, false);
		addr = (uint32_t)rte_rand();
		c = nat_cksum_update32(udp->dgram_cksum, ip->src_addr, addr);
		s = nat_cksum_fold((uint32_t)(uint16_t)~c + (uint16_t)~udp->src_port);
		port = (uint16_t)~s;
		if (nat_cksum_update16(c, udp->src_port, port) != 0)
			continue;       /* s was 0xffff: no port gives 0 */
		nat_rewrite_v4(ip, udp, p.len - sizeof(*ip), true, addr, port, NULL);
		CHECK(udp->dgram_cksum == 0xffff, "round %u: UDP checksum %#x, not 0xffff",
		      i, udp->dgram_cksum);
		CHECK(packet_ok(&p, &why), "round %u: %s checksum wrong", i, why);
	}
}

/*
 * ICMP errors about translated packets, both ways. Inbound: an inside host
 * sends a packet, the NAT translates its source, a router answers the
 * public address with an error quoting the translated packet. Outbound: a
 * remote host sends to the public address, the NAT translates the
 * destination, the inside host answers with an error quoting that. The
 * quote holds 8 bytes of L4, all of it, or any length between;
 * nat_icmp_error_translate() must turn it back into exactly the packet
 * first sent, with every checksum right.
 */
static void
test_icmp_error(unsigned int rounds, bool inbound)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct pkt orig, trans, err;
	struct rte_ipv4_hdr *ip_orig = (struct rte_ipv4_hdr *)orig.b;
	struct rte_ipv4_hdr *ip_trans = (struct rte_ipv4_hdr *)trans.b;
	struct rte_ipv4_hdr *outer = (struct rte_ipv4_hdr *)err.b;
	struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)(err.b + sizeof(*outer));
	struct rte_ipv4_hdr *quoted = (struct rte_ipv4_hdr *)(icmp + 1);
	const uint32_t hl = sizeof(struct rte_ipv4_hdr);
	struct nat_l4_fields f;
	uint32_t new_addr, orig_addr, quoted_len, icmp_len, i;
	uint16_t new_port, orig_port;
	const char *why = "";

	for (i = 0; i < rounds; i++) {
		uint8_t proto = protos[i % RTE_DIM(protos)];
		bool full = ((i / 3) % 3) == 1;

		make_packet(&orig, proto, proto == IPPROTO_UDP && (i & 2));
		/* the field the NAT translates: the source of an outbound
		 * packet, the destination of an inbound one */
		orig_addr = inbound ? ip_orig->src_addr : ip_orig->dst_addr;
		f = nat_l4_fields(orig.b + hl, proto, inbound, orig.len - hl);
		orig_port = nat_rd16(f.port);
		new_addr = (uint32_t)rte_rand();
		new_port = (uint16_t)rte_rand();
		trans = orig;
		nat_rewrite_v4(ip_trans, trans.b + hl, trans.len - hl, inbound,
			       new_addr, new_port, NULL);

		/* RFC 792 quotes 8 bytes of L4, RFC 1812 routers as much as fits */
		quoted_len = full ? trans.len : hl + 8;
		if ((i / 3) % 3 == 2)
			quoted_len = hl + 8 + (uint32_t)rte_rand_max(trans.len - hl - 8);
		icmp_len = sizeof(*icmp) + quoted_len;
		memset(err.b, 0, sizeof(err.b));
		outer->version_ihl = RTE_IPV4_VHL_DEF;
		outer->time_to_live = 64;
		outer->next_proto_id = IPPROTO_ICMP;
		outer->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*outer) + icmp_len));
		/* inbound: from a router to the public address; outbound: from
		 * the inside host (the translated destination) to the remote */
		outer->src_addr = inbound ? (uint32_t)rte_rand() : new_addr;
		outer->dst_addr = inbound ? new_addr : (uint32_t)rte_rand();
		outer->hdr_checksum = rte_ipv4_cksum(outer);
		icmp->icmp_type = (i & 2) ? NAT_ICMP_TIME_EXCEEDED : NAT_ICMP_DEST_UNREACH;
		icmp->icmp_code = (uint8_t)(i & 3);
		memcpy(quoted, trans.b, quoted_len);
		icmp->icmp_cksum = icmp_cksum(icmp, icmp_len);
		err.len = sizeof(*outer) + icmp_len;
		CHECK(nat_icmp_is_error(icmp->icmp_type), "type %u not an error",
		      icmp->icmp_type);

		nat_icmp_error_translate(outer, icmp, quoted, quoted_len, inbound,
					 orig_addr, orig_port);

		CHECK((inbound ? outer->dst_addr : outer->src_addr) == orig_addr,
		      "outer address not translated");
		CHECK(sum_ok(rte_raw_cksum(outer, sizeof(*outer))),
		      "round %u: outer IPv4 checksum wrong", i);
		CHECK(sum_ok(rte_raw_cksum(icmp, icmp_len)),
		      "round %u proto %u full %d: ICMP checksum wrong", i, proto, full);
		/*
		 * A quote that ends inside the TCP checksum (17 bytes of L4)
		 * cannot have that byte restored: the other one is missing
		 * (Linux leaves it too); every other byte is what was sent.
		 */
		if (proto == IPPROTO_TCP && quoted_len == hl + 17)
			((uint8_t *)quoted)[hl + 16] = orig.b[hl + 16];
		CHECK(memcmp(quoted, orig.b, quoted_len) == 0,
		      "round %u proto %u quoted %u inbound %d: quoted packet is not what was sent",
		      i, proto, quoted_len, inbound);
		if (quoted_len == trans.len) {
			struct pkt q;

			memcpy(q.b, quoted, quoted_len);
			q.len = quoted_len;
			CHECK(packet_ok(&q, &why), "round %u: quoted %s checksum wrong",
			      i, why);
		}
		if (failures > 20)
			break;
	}
}

/* ---- mapping table ---- */

static struct nat_mapping
mapping(uint32_t in_addr, uint16_t in_port, uint32_t pub_addr, uint16_t pub_port,
	uint32_t rem_addr, uint16_t rem_port, uint8_t proto)
{
	struct nat_mapping m;

	memset(&m, 0, sizeof(m));
	m.in_addr = in_addr;
	m.in_port = in_port;
	m.pub_addr = pub_addr;
	m.pub_port = pub_port;
	m.rem_addr = rem_addr;
	m.rem_port = rem_port;
	m.proto = proto;
	return m;
}

static struct nat_mapping *
lookup1(const struct nat_table *t, struct nat_key k)
{
	const struct nat_key *kp = &k;
	struct nat_mapping *m;

	nat_table_lookup_bulk(t, &kp, 1, &m);
	return m;
}

/* test_table_basic()'s hold-down of the live mapping m, the table full
 * with m2 (where its add worked): the out key goes, the public tuple stays
 * taken, the inside tuple maps anew; then the table emptied */
static void
table_hold_down(struct nat_table *t, struct nat_mapping *m, struct nat_mapping *m2)
{
	struct nat_mapping tm;
	uint64_t id;
	uint32_t addr;
	int err = 0;

	nat_table_hold(t, m, 1234, 78);
	CHECK(m->state == NAT_HELD && m->held_until == 1234 && m->id == 78, "held state");
	CHECK(lookup1(t, nat_key_out(m)) == NULL, "out key of a held mapping");
	CHECK(lookup1(t, nat_key_in(m)) == m, "in key of a held mapping gone");
	CHECK(nat_table_tuple_taken(t, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_UDP),
	      "held tuple not taken");
	CHECK(nat_table_snapshot(m, &id, &addr) == 0, "snapshot of a held mapping");
	/* a new mapping of the same inside tuple gets another public port */
	if (m2 != NULL)
		nat_table_remove(t, m2);
	tm = mapping(0x0a000001, 1000, 0xc0000201, 2001, 0x08080808, 53, IPPROTO_UDP);
	m2 = nat_table_add(t, &tm, &err);
	CHECK(m2 != NULL && m2 != m, "new mapping of an inside tuple in hold-down: %d", err);
	nat_table_remove(t, m);
	CHECK(!nat_table_tuple_taken(t, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_UDP),
	      "removed tuple still taken");
	CHECK(nat_table_count(t) == 1, "count %u", nat_table_count(t));
	if (m2 != NULL)
		nat_table_remove(t, m2);
	CHECK(nat_table_count(t) == 0, "count after removing all");
}

/* ICMP echo in an empty table: the identifier in both port places of each
 * key */
static void
table_icmp_echo(struct nat_table *t)
{
	struct nat_mapping tm, *m;
	int err = 0;

	tm = mapping(0x0a000001, 0x1234, 0xc0000201, 0x4321, 0x08080808, 0, IPPROTO_ICMP);
	m = nat_table_add(t, &tm, &err);
	CHECK(m != NULL, "ICMP mapping: %d", err);
	if (m != NULL) {
		struct nat_key req = { .src = 0x0a000001, .dst = 0x08080808,
			.sport = 0x1234, .dport = 0x1234, .proto = IPPROTO_ICMP };
		struct nat_key rep = { .src = 0x08080808, .dst = 0xc0000201,
			.sport = 0x4321, .dport = 0x4321, .proto = IPPROTO_ICMP };

		CHECK(lookup1(t, req) == m && nat_mapping_is_out(m, &req),
		      "echo request not found");
		CHECK(lookup1(t, rep) == m && !nat_mapping_is_out(m, &rep),
		      "echo reply not found");
		CHECK(nat_table_tuple_taken(t, 0xc0000201, 0x4321, 0x08080808, 0x9999,
					    IPPROTO_ICMP), "ICMP public id not taken");
		nat_table_remove(t, m);
	}
}

static void
test_table_basic(void)
{
	struct nat_table t;
	struct nat_mapping tm, *m, *m2;
	struct nat_key k;
	uint64_t id;
	uint32_t addr;
	int err = 0;

	CHECK(nat_table_create(&t, "x", 0, SOCKET_ID_ANY) == -EINVAL, "capacity 0");
	CHECK(nat_table_create(&t, "a_name_of_21_chars___", 4, SOCKET_ID_ANY) == -EINVAL,
	      "a 21-character name");
	if (nat_table_create(&t, "basic", 2, SOCKET_ID_ANY) != 0) {
		CHECK(false, "create");
		return;
	}
	tm = mapping(0x0a000001, 1000, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_UDP);
	m = nat_table_add(&t, &tm, &err);
	CHECK(m != NULL && m->state == NAT_LIVE, "add: %d", err);
	if (m == NULL)
		goto out;
	nat_table_publish(m, 77);
	k = nat_key_out(m);
	CHECK(lookup1(&t, k) == m && nat_mapping_is_out(m, &k), "out key");
	k = nat_key_in(m);
	CHECK(lookup1(&t, k) == m && !nat_mapping_is_out(m, &k), "in key");
	CHECK(nat_table_tuple_taken(&t, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_UDP),
	      "public tuple not taken");
	CHECK(!nat_table_tuple_taken(&t, 0xc0000201, 2000, 0x08080808, 54, IPPROTO_UDP) &&
	      !nat_table_tuple_taken(&t, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_TCP),
	      "another remote port or protocol taken");
	CHECK(nat_table_snapshot(m, &id, &addr) == 1 && id == 77 && addr == 0x0a000001,
	      "snapshot of a live mapping");

	/* a second inside host on the same public tuple: refused, nothing changed */
	tm = mapping(0x0a000002, 1000, 0xc0000201, 2000, 0x08080808, 53, IPPROTO_UDP);
	CHECK(nat_table_add(&t, &tm, &err) == NULL && err == -EEXIST,
	      "a taken public tuple handed out (%d)", err);
	CHECK(nat_table_count(&t) == 1 && lookup1(&t, nat_key_out(&tm)) == NULL,
	      "a refused add left something behind");
	/* the same inside tuple again: refused */
	tm = mapping(0x0a000001, 1000, 0xc0000201, 2001, 0x08080808, 53, IPPROTO_UDP);
	CHECK(nat_table_add(&t, &tm, &err) == NULL && err != 0, "a duplicate out key");
	CHECK(nat_table_count(&t) == 1, "a refused add counted");

	/* full */
	tm = mapping(0x0a000003, 1, 0xc0000201, 3, 0x08080808, 53, IPPROTO_UDP);
	m2 = nat_table_add(&t, &tm, &err);
	CHECK(m2 != NULL, "second mapping");
	tm = mapping(0x0a000004, 1, 0xc0000201, 4, 0x08080808, 53, IPPROTO_UDP);
	CHECK(nat_table_add(&t, &tm, &err) == NULL && err == -ENOSPC, "a full table took more");

	table_hold_down(&t, m, m2);
	table_icmp_echo(&t);
out:
	nat_table_free(&t);
}

/* random adds, holds and removes against a list of what should be there */
static void
test_table_model(unsigned int ops)
{
	enum { CAP = 256, SPACE = 64 };
	static struct nat_mapping want[CAP];   /* by record index */
	struct nat_table t;
	struct nat_mapping tm, *m;
	unsigned int i, j, live = 0, held = 0, adds = 0, conflicts = 0;
	int err;

	if (nat_table_create(&t, "model", CAP, SOCKET_ID_ANY) != 0) {
		CHECK(false, "create");
		return;
	}
	memset(want, 0, sizeof(want));
	for (i = 0; i < ops; i++) {
		uint32_t op = (uint32_t)rte_rand_max(4);

		if (op < 2) {
			/* small spaces, so conflicts happen */
			tm = mapping(0x0a000000 + (uint32_t)rte_rand_max(SPACE),
				     (uint16_t)rte_rand_max(4),
				     0xc0000200 + (uint32_t)rte_rand_max(2),
				     (uint16_t)rte_rand_max(SPACE),
				     0x08080800 + (uint32_t)rte_rand_max(4),
				     (uint16_t)rte_rand_max(2), IPPROTO_UDP);
			bool clash = false;

			for (j = 0; j < CAP; j++) {
				struct nat_mapping *w = &want[j];
				struct nat_key a = nat_key_out(&tm), b = nat_key_in(&tm);
				struct nat_key wo = nat_key_out(w), wi = nat_key_in(w);

				if (w->state == NAT_FREE)
					continue;
				if ((w->state == NAT_LIVE && memcmp(&a, &wo, sizeof(a)) == 0) ||
				    memcmp(&b, &wi, sizeof(b)) == 0 ||
				    memcmp(&a, &wi, sizeof(a)) == 0 ||
				    (w->state == NAT_LIVE && memcmp(&b, &wo, sizeof(b)) == 0))
					clash = true;
			}
			m = nat_table_add(&t, &tm, &err);
			if (clash || live + held == CAP) {
				CHECK(m == NULL, "op %u: add accepted a clash or a full table", i);
				conflicts++;
				continue;
			}
			CHECK(m != NULL, "op %u: add refused: %d", i, err);
			if (m == NULL)
				continue;
			want[nat_table_index(&t, m)] = *m;
			live++;
			adds++;
		} else {
			j = (unsigned int)rte_rand_max(CAP);
			m = &t.rec[j];
			if (want[j].state == NAT_FREE)
				continue;
			if (op == 2 && want[j].state == NAT_LIVE) {
				nat_table_hold(&t, m, i, i);
				want[j].state = NAT_HELD;
				live--;
				held++;
			} else {
				nat_table_remove(&t, m);
				if (want[j].state == NAT_LIVE)
					live--;
				else
					held--;
				want[j].state = NAT_FREE;
			}
		}
		CHECK(nat_table_count(&t) == live + held, "op %u: count", i);
		/* every key of every record that should be there, and not more */
		for (j = 0; j < CAP; j++) {
			struct nat_mapping *w = &want[j];

			if (w->state == NAT_FREE)
				continue;
			CHECK(lookup1(&t, nat_key_in(w)) == &t.rec[j], "op %u: in key", i);
			CHECK((lookup1(&t, nat_key_out(w)) == &t.rec[j]) ==
			      (w->state == NAT_LIVE), "op %u: out key", i);
		}
		if (failures > 20)
			break;
	}
	CHECK(adds > 0 && conflicts > 0, "model run without adds (%u) or conflicts (%u)",
	      adds, conflicts);
	printf("table model: %u ops, %u added, %u refused\n", ops, adds, conflicts);
	nat_table_free(&t);
}

/* ---- the index with colliding keys ---- */

/* every bucket's spill count against the keys' places; no key past the bound */
static void
check_index(const struct nat_table *t)
{
	uint32_t nb = fx_ix_buckets(&t->ix), b, j, h, d, ref, hash;
	uint32_t *want = calloc(nb, sizeof(*want));
	const struct fx_ix_bucket *bk;
	struct nat_key k;

	if (want == NULL) {
		CHECK(false, "memory");
		return;
	}
	for (b = 0; b < nb; b++) {
		bk = &t->ix.b[b];
		for (j = 0; j < FX_IX_PAIRS; j++) {
			if (bk->tag[j] == 0)
				continue;
			ref = bk->ref[j];
			CHECK((ref >> 1) < t->capacity && t->rec[ref >> 1].state != NAT_FREE,
			      "bucket %u pair %u: a record in use", b, j);
			CHECK((ref & 1) || t->rec[ref >> 1].state == NAT_LIVE,
			      "bucket %u pair %u: an out key of a live mapping only", b, j);
			k = (ref & 1) ? nat_key_in(&t->rec[ref >> 1]) : nat_key_out(&t->rec[ref >> 1]);
			hash = nat_key_hash(&k);
			CHECK(bk->tag[j] == fx_ix_tag(hash), "bucket %u pair %u: the key's tag", b, j);
			for (h = fx_ix_home(&t->ix, hash), d = 0; h != b; h = fx_ix_next(&t->ix, h), d++)
				want[h]++;
			CHECK(d < FX_IX_PROBE_MAX, "bucket %u pair %u: %u buckets past home", b, j, d);
		}
	}
	for (b = 0; b < nb; b++)
		CHECK(t->ix.b[b].spilled == want[b], "bucket %u spilled %u, want %u", b,
		      t->ix.b[b].spilled, want[b]);
	free(want);
}

/*
 * Two different out keys with equal keyed hashes, from the known secret:
 * the first word's product (src + a0) * (dst + b0) is the same with the
 * two factors swapped.
 */
static void
test_table_equal_tags(void)
{
	const struct fx_hash_key *hk = &fx_hash_key;
	struct nat_mapping tm, *m[8];
	struct nat_key o[8];
	struct nat_table t;
	uint32_t src, dst;
	unsigned int i;
	int err;

	if (nat_table_create(&t, "tags", 64, SOCKET_ID_ANY) != 0) {
		CHECK(false, "create");
		return;
	}
	for (i = 0; i < 8; i += 2) {
		src = 0x0a000001 + i;
		dst = 0x08080800 + i;
		tm = mapping(src, 1000, 0xc0000201, (uint16_t)(2000 + i), dst, 53, IPPROTO_UDP);
		m[i] = nat_table_add(&t, &tm, &err);
		tm.in_addr = dst + hk->w[1] - hk->w[0];
		tm.rem_addr = src + hk->w[0] - hk->w[1];
		tm.pub_port = (uint16_t)(3000 + i);
		m[i + 1] = nat_table_add(&t, &tm, &err);
		CHECK(m[i] != NULL && m[i + 1] != NULL, "two mappings with equal out tags: %d", err);
		if (m[i] == NULL || m[i + 1] == NULL)
			goto out;
		o[i] = nat_key_out(m[i]);
		o[i + 1] = nat_key_out(m[i + 1]);
		CHECK(!nat_key_eq(&o[i], &o[i + 1]) &&
		      nat_key_hash(&o[i]) == nat_key_hash(&o[i + 1]),
		      "out keys %u, %u differ with equal hashes", i, i + 1);
	}
	for (i = 0; i < 8; i++)
		CHECK(lookup1(&t, o[i]) == m[i] && lookup1(&t, nat_key_in(m[i])) == m[i],
		      "equal tags: each key finds its own record (%u)", i);
	nat_table_hold(&t, m[0], 1, 1);
	CHECK(lookup1(&t, o[0]) == NULL && lookup1(&t, o[1]) == m[1],
	      "the twin's out key stays when one is held");
	nat_table_remove(&t, m[1]);
	CHECK(lookup1(&t, o[1]) == NULL && lookup1(&t, nat_key_in(m[0])) == m[0],
	      "removing one twin leaves the other's keys");
	check_index(&t);
out:
	nat_table_free(&t);
}

enum { COLLIDE_CAP = 256, COLLIDE_MAPPINGS = 200 };

/* test_table_collide()'s model: the mappings tried and where their keys'
 * pairs are, and how many pairs each bucket holds */
struct collide_model {
	struct nat_mapping cand[COLLIDE_MAPPINGS];  /* out keys of one home */
	int8_t placed[COLLIDE_MAPPINGS];            /* 0 absent, 1 live, 2 held */
	uint32_t pos[COLLIDE_MAPPINGS][2];          /* bucket of the out, in key */
	struct nat_mapping *rec[COLLIDE_MAPPINGS];
	uint8_t used[COLLIDE_CAP];                  /* pairs in each bucket */
	uint64_t refused, adds;
};

/* the candidates: mappings whose out keys have the home bucket of the
 * first one's (inside and public port 0), trying ports from 1 on;
 * returns how many were found */
static uint32_t
collide_find(struct collide_model *cm, const struct nat_table *t)
{
	struct nat_mapping tm;
	struct nat_key k;
	uint32_t home, n = 0, port = 1;

	tm = mapping(0x0a000001, 0, 0xc0000201, 0, 0x08080808, 53, IPPROTO_UDP);
	k = nat_key_out(&tm);
	home = fx_ix_home(&t->ix, nat_key_hash(&k));
	while (n < COLLIDE_MAPPINGS && port < 65536) {
		tm = mapping(0x0a000001, (uint16_t)port, 0xc0000201, (uint16_t)port,
			     0x08080808, 53, IPPROTO_UDP);
		k = nat_key_out(&tm);
		if (fx_ix_home(&t->ix, nat_key_hash(&k)) == home)
			cm->cand[n++] = tm;
		port++;
	}
	return n;
}

/* where both keys of candidate j must go, the out key first, each
 * counted in its bucket: want[key] its bucket, or UINT32_MAX where the
 * probe bound is reached (and nothing counted for it) */
static void
collide_place(struct collide_model *cm, const struct nat_table *t, unsigned int j,
	      uint32_t want[2])
{
	struct nat_key k;
	unsigned int d, key;
	uint32_t b;

	for (key = 0; key < 2; key++) {
		k = key ? nat_key_in(&cm->cand[j]) : nat_key_out(&cm->cand[j]);
		b = fx_ix_home(&t->ix, nat_key_hash(&k));
		for (d = 0; d < FX_IX_PROBE_MAX && cm->used[b] == FX_IX_PAIRS; d++)
			b = fx_ix_next(&t->ix, b);
		want[key] = d < FX_IX_PROBE_MAX ? b : UINT32_MAX;
		if (want[key] != UINT32_MAX)
			cm->used[b]++;
	}
}

/* op: an add of the absent candidate j, refused past the probe bound and
 * counted; returns false where an add the model takes was refused */
static bool
collide_add(struct collide_model *cm, struct nat_table *t, unsigned int j, unsigned int op)
{
	struct nat_mapping *m;
	uint32_t want[2];
	unsigned int key;
	uint64_t full0;
	int err;

	collide_place(cm, t, j, want);
	full0 = t->ix.full;
	m = nat_table_add(t, &cm->cand[j], &err);
	if (want[0] == UINT32_MAX || want[1] == UINT32_MAX) {
		for (key = 0; key < 2; key++)
			if (want[key] != UINT32_MAX)
				cm->used[want[key]]--;
		CHECK(m == NULL && err == -EOVERFLOW && t->ix.full == full0 + 1,
		      "op %u: an add past the probe bound refused and counted (%d)",
		      op, err);
		cm->refused++;
		return true;
	}
	CHECK(m != NULL, "op %u: add refused: %d", op, err);
	if (m == NULL)
		return false;
	cm->rec[j] = m;
	cm->placed[j] = 1;
	cm->pos[j][0] = want[0];
	cm->pos[j][1] = want[1];
	cm->adds++;
	return true;
}

/* op: a random candidate added if absent, else held (if live, on odd
 * ops) or removed; returns false where an add the model takes was
 * refused */
static bool
collide_step(struct collide_model *cm, struct nat_table *t, unsigned int op)
{
	unsigned int j = (unsigned int)rte_rand_max(COLLIDE_MAPPINGS);

	if (cm->placed[j] == 0)
		return collide_add(cm, t, j, op);
	if (cm->placed[j] == 1 && (op & 1)) {
		nat_table_hold(t, cm->rec[j], op, op);
		cm->used[cm->pos[j][0]]--;
		cm->placed[j] = 2;
		return true;
	}
	nat_table_remove(t, cm->rec[j]);
	cm->used[cm->pos[j][1]]--;
	if (cm->placed[j] == 1)
		cm->used[cm->pos[j][0]]--;
	cm->placed[j] = 0;
	return true;
}

/* after op: every candidate's out key found while live, its in key while
 * live or held, and neither otherwise */
static void
collide_check_lookups(const struct collide_model *cm, const struct nat_table *t,
		      unsigned int op)
{
	struct nat_key k;
	unsigned int j;

	for (j = 0; j < COLLIDE_MAPPINGS; j++) {
		k = nat_key_out(&cm->cand[j]);
		CHECK(lookup1(t, k) == (cm->placed[j] == 1 ? cm->rec[j] : NULL),
		      "op %u: out key of %u", op, j);
		k = nat_key_in(&cm->cand[j]);
		CHECK(lookup1(t, k) == (cm->placed[j] != 0 ? cm->rec[j] : NULL),
		      "op %u: in key of %u", op, j);
	}
}

/*
 * Mappings whose out keys all have one home bucket (found by trying inside
 * ports under the known secret), added, held and removed at random
 * against a model of how many pairs each bucket holds: it says where each
 * key lands and when an add must be refused at the probe bound.
 */
static void
test_table_collide(unsigned int ops)
{
	static struct collide_model cm;
	struct nat_table t;
	unsigned int i;
	uint32_t n;

	if (nat_table_create(&t, "collide", COLLIDE_CAP, SOCKET_ID_ANY) != 0) {
		CHECK(false, "create");
		return;
	}
	CHECK(fx_ix_buckets(&t.ix) <= COLLIDE_CAP, "%u buckets", fx_ix_buckets(&t.ix));
	memset(&cm, 0, sizeof(cm));
	n = collide_find(&cm, &t);
	CHECK(n == COLLIDE_MAPPINGS, "%u mappings with one home bucket found", n);
	for (i = 0; i < ops && n == COLLIDE_MAPPINGS; i++) {
		if (!collide_step(&cm, &t, i))
			break;
		collide_check_lookups(&cm, &t, i);
		if (i % 64 == 0)
			check_index(&t);
		if (failures > 20)
			break;
	}
	check_index(&t);
	CHECK(cm.adds > 0 && cm.refused > 0, "collisions: %" PRIu64 " added, %" PRIu64
	      " refused", cm.adds, cm.refused);
	CHECK(t.ix.lines_max == FX_IX_PROBE_MAX, "the bound reached: %" PRIu64 " buckets",
	      t.ix.lines_max);
	printf("one home bucket: %u ops, %" PRIu64 " mappings added, %" PRIu64
	       " refused at the probe bound\n", ops, cm.adds, cm.refused);
	nat_table_free(&t);
}

/* the binding table's start-up estimate (boot/preflight.c) against the heap:
 * the table and the allocator that makes room for its entries, against
 * the allocator's units and nat_bib_bytes() */
static void
test_bib_bytes(void)
{
	struct rte_malloc_socket_stats before, after;
	struct nat_ports np;
	struct nat_bib b;
	uint64_t got, est;
	unsigned int adf;

	for (adf = 0; adf < 2; adf++) {
		rte_malloc_get_socket_stats(0, &before);
		if (nat_ports_init(&np, 0, 65535, 1, 0, 1, sizeof(struct nat_bib_entry), 0) != 0 ||
		    nat_bib_create(&b, "bibsz", 131072, &np, adf, 0) != 0) {
			CHECK(false, "binding table of 131072 (adf %u)", adf);
			return;
		}
		rte_malloc_get_socket_stats(0, &after);
		got = after.heap_allocsz_bytes - before.heap_allocsz_bytes;
		est = np.units * sizeof(struct nat_port_unit) +
			nat_bib_bytes(131072, np.units, adf);
		CHECK(est <= got && got - est <= got / 100,
		      "binding table (adf %u): estimate %" PRIu64 " B, heap %" PRIu64 " B",
		      adf, est, got);
		printf("binding table of 131072 and %" PRIu64 " units, adf %u: estimate %"
		       PRIu64 " B, heap %" PRIu64 " B\n", np.units, adf, est, got);
		nat_bib_free(&b);
		nat_ports_fini(&np);
	}
	CHECK(nat_ports_init(&np, 0, 65535, 1, 0, 1, 0, 0) == 0 &&
	      nat_bib_create(&b, "bibnoroom", 64, &np, false, 0) == -EINVAL,
	      "a binding table over units with no room for it");
	nat_ports_fini(&np);
}

/* the binding table's remembered answer against a model: NB endpoints,
 * random adds, removes and lookups */
static void
test_bib_last(unsigned int ops)
{
	enum { NB = 4 };
	struct nat_bib_entry *model[NB] = { NULL }, *e;
	unsigned int i, k, wrong = 0;
	struct nat_ports np;
	struct nat_bib b;

	/* NB ports: 3 NB units, the first NB of them bound */
	if (nat_ports_init(&np, 2000, 2000 + NB - 1, 1, 0, 1, sizeof(struct nat_bib_entry),
			   0) != 0 ||
	    nat_bib_create(&b, "biblast", NB, &np, false, 0) != 0) {
		CHECK(false, "binding table of %u", NB);
		return;
	}
	for (i = 0; i < ops; i++) {
		/* % NB changes nothing, but gcc 12 sees the bound: without
		 * it, nat_bib_add() inlined, it may warn of a path where k
		 * is NAT_BIB_NO_HOME, past the end of model[] */
		k = (unsigned int)rte_rand_max(NB) % NB;
		switch (rte_rand_max(3)) {
		case 0:   /* add, if absent */
			if (model[k] != NULL)
				break;
			model[k] = nat_bib_add(&b, rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1)),
					       rte_cpu_to_be_16((uint16_t)(1000 + k)),
					       IPPROTO_UDP, k, NAT_BIB_NO_HOME);
			if (model[k] == NULL || nat_bib_public(&b, k) != model[k])
				wrong++;
			break;
		case 1:   /* remove, if present */
			if (model[k] == NULL)
				break;
			nat_bib_remove(&b, model[k], NAT_BIB_NO_HOME);
			model[k] = NULL;
			if (nat_bib_public(&b, k) != NULL)
				wrong++;
			break;
		default:
			break;
		}
		/* a lookup of a random endpoint after every step, so that the
		 * next step finds either answer remembered */
		k = (unsigned int)rte_rand_max(NB);
		e = nat_bib_inside(&b, rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1)),
				   rte_cpu_to_be_16((uint16_t)(1000 + k)), IPPROTO_UDP,
				   NAT_BIB_NO_HOME);
		if (e != model[k])
			wrong++;
	}
	CHECK(wrong == 0, "binding lookups against the model: %u of %u wrong", wrong, ops);
	printf("binding table's remembered answer: %u operations, %u wrong\n", ops, wrong);
	nat_bib_free(&b);
	nat_ports_fini(&np);
}

enum { HOME_PORTS = 512, HOME_ENDPOINTS = 400, HOME_UNITS = 64, HOME_BUSY = 7 };

/* test_bib_home()'s model: each endpoint's binding and home, each unit
 * taken or not and its count of bindings away, and the tallies */
struct home_model {
	struct nat_bib_entry *entry[HOME_ENDPOINTS];
	uint32_t home[HOME_ENDPOINTS], away[HOME_PORTS];
	uint8_t taken[HOME_PORTS];
	uint32_t base;               /* the first unit's index */
	unsigned int wrong, wrong_away, at_home, tried;
	bool saturated;
};

/* an add of endpoint k: at its home if free, else (and now and then
 * anyway) at a random free unit */
static void
home_add(struct home_model *hm, struct nat_bib *b, unsigned int k)
{
	unsigned int u = hm->home[k] - hm->base;

	while (hm->taken[u] || rte_rand_max(8) == 0)
		u = (unsigned int)rte_rand_max(HOME_PORTS);
	hm->entry[k] = nat_bib_add(b, rte_cpu_to_be_32(RTE_IPV4(10, 1, k >> 8, k & 255)),
				   rte_cpu_to_be_16(3000), IPPROTO_UDP, hm->base + u,
				   hm->home[k]);
	if (hm->entry[k] == NULL || nat_bib_public(b, hm->base + u) != hm->entry[k]) {
		hm->wrong++;
		hm->entry[k] = NULL;
	} else {
		hm->taken[u] = 1;
		if (hm->base + u != hm->home[k])
			hm->away[hm->home[k] - hm->base]++;
		else
			hm->at_home++;
	}
}

/* a removal of endpoint k's binding */
static void
home_remove(struct home_model *hm, struct nat_bib *b, unsigned int k)
{
	unsigned int u = nat_bib_unit(b, hm->entry[k]) - hm->base;

	nat_bib_remove(b, hm->entry[k], hm->home[k]);
	hm->entry[k] = NULL;
	hm->taken[u] = 0;
	if (hm->base + u != hm->home[k])
		hm->away[hm->home[k] - hm->base]--;
	if (nat_bib_public(b, hm->base + u) != NULL)
		hm->wrong++;
}

/* a random endpoint: its home's answer where it has one, then the lookup */
static void
home_lookup(struct home_model *hm, struct nat_bib *b)
{
	unsigned int k = (unsigned int)rte_rand_max(HOME_ENDPOINTS);
	struct nat_bib_entry *e;

	if (nat_bib_inside_try(b, rte_cpu_to_be_32(RTE_IPV4(10, 1, k >> 8, k & 255)),
			       rte_cpu_to_be_16(3000), IPPROTO_UDP, hm->home[k], &e)) {
		if (e != hm->entry[k])
			hm->wrong++;
		hm->tried++;
	} else if (hm->away[hm->home[k] - hm->base] == 0 &&
		   nat_bib_at(b, hm->home[k])->away != NAT_BIB_AWAY_MAX) {
		hm->wrong++;   /* the home could have answered */
	}
	e = nat_bib_inside(b, rte_cpu_to_be_32(RTE_IPV4(10, 1, k >> 8, k & 255)),
			   rte_cpu_to_be_16(3000), IPPROTO_UDP, hm->home[k]);
	if (e != hm->entry[k])
		hm->wrong++;
}

/* every unit's count of bindings away against the model's, where not
 * saturated */
static void
home_check_away(struct home_model *hm, const struct nat_bib *b)
{
	const struct nat_bib_entry *e;
	unsigned int u;

	for (u = 0; u < HOME_PORTS; u++) {
		e = nat_bib_at(b, hm->base + u);
		if (e->away == NAT_BIB_AWAY_MAX)
			hm->saturated = true;
		else if (e->away != hm->away[u])
			hm->wrong_away++;
	}
}

/*
 * Bindings at their homes and away from them against a model:
 * HOME_ENDPOINTS inside endpoints, each with a home among HOME_UNITS
 * units (half of them the same unit, so that its count of bindings away
 * saturates), bound at random to their home when it is free, else to
 * another free unit; random adds, removes and a lookup of a random
 * endpoint after every step, through the remembered answer or not, first
 * as far as its home answers (nat_bib_inside_try(), which must answer
 * when nobody is away). Every count of bindings away is checked against
 * the model's after every step: exact below NAT_BIB_AWAY_MAX.
 */
static void
test_bib_home(unsigned int ops)
{
	static struct home_model hm;
	struct nat_ports np;
	struct nat_bib b;
	unsigned int i, k;

	/* HOME_PORTS UDP units of one address (the ICMP and TCP ones unused) */
	if (nat_ports_init(&np, 2000, 2000 + HOME_PORTS - 1, 1, 0, 1,
			   sizeof(struct nat_bib_entry), 0) != 0 ||
	    nat_bib_create(&b, "bibhome", HOME_ENDPOINTS, &np, false, 0) != 0) {
		CHECK(false, "binding table over %u ports", HOME_PORTS);
		return;
	}
	memset(&hm, 0, sizeof(hm));
	hm.base = nat_ports_unit_index(&np, 0, NAT_PROTO_UDP, 2000);
	for (k = 0; k < HOME_ENDPOINTS; k++)
		hm.home[k] = hm.base + (k % 2 ? HOME_BUSY : (uint32_t)rte_rand_max(HOME_UNITS));
	for (i = 0; i < ops; i++) {
		k = (unsigned int)rte_rand_max(HOME_ENDPOINTS);
		if (hm.entry[k] == NULL && rte_rand_max(3) != 0) {
			home_add(&hm, &b, k);
		} else if (hm.entry[k] != NULL && rte_rand_max(8) == 0) {
			/* rarely: most endpoints bound, so that the busy
			 * home's count saturates */
			home_remove(&hm, &b, k);
		}
		home_lookup(&hm, &b);
		home_check_away(&hm, &b);
	}
	CHECK(hm.wrong == 0, "bindings at home and away against the model: %u of %u wrong",
	      hm.wrong, ops);
	CHECK(hm.wrong_away == 0, "counts of bindings away against the model: %u wrong",
	      hm.wrong_away);
	CHECK(hm.saturated && hm.at_home != 0 && hm.tried != 0 && hm.tried != ops,
	      "the busy home's count saturated (%d), bindings made at home (%u), "
	      "homes that answered (%u of %u)", hm.saturated, hm.at_home, hm.tried, ops);
	printf("bindings at home and away: %u operations, %u made at home, %u wrong, "
	       "%u counts wrong, the busy home %u away (%u counted), %u answered by "
	       "the home\n", ops, hm.at_home, hm.wrong, hm.wrong_away, hm.away[HOME_BUSY],
	       nat_bib_at(&b, hm.base + HOME_BUSY)->away, hm.tried);
	nat_bib_free(&b);
	nat_ports_fini(&np);
}

/* nat_key_make() against a key set field by field; fx_addr_cmp() against
 * memcmp() */
static void
test_key_words(unsigned int rounds)
{
	unsigned int i, j, alen, wrong_key = 0, wrong_cmp = 0;
	uint8_t a[16], c[16];
	struct nat_key x, y;
	int m, f;

	for (i = 0; i < rounds; i++) {
		memset(&y, 0, sizeof(y));
		y.src = (uint32_t)rte_rand();
		y.dst = (uint32_t)rte_rand();
		y.sport = (uint16_t)rte_rand();
		y.dport = (uint16_t)rte_rand();
		y.proto = (uint8_t)rte_rand();
		x = nat_key_make(y.src, y.dst, y.sport, y.dport, y.proto);
		if (memcmp(&x, &y, sizeof(x)) != 0)
			wrong_key++;
		/* few distinct byte values, so that equal prefixes are common */
		alen = i & 1 ? 16 : 4;
		for (j = 0; j < 16; j++) {
			a[j] = (uint8_t)rte_rand_max(3);
			c[j] = (uint8_t)rte_rand_max(3);
		}
		if (rte_rand_max(4) == 0)
			memcpy(c, a, sizeof(c));
		m = memcmp(a, c, alen);
		f = fx_addr_cmp(a, c, alen);
		if ((m < 0) != (f < 0) || (m > 0) != (f > 0))
			wrong_cmp++;
	}
	CHECK(wrong_key == 0, "nat_key_make() against fields: %u of %u differ",
	      wrong_key, rounds);
	CHECK(wrong_cmp == 0, "fx_addr_cmp() against memcmp(): %u of %u differ",
	      wrong_cmp, rounds);
}

/* a mapping's TCP connection stored in its record and the ends beside it
 * and loaded back is the same fx_tcp */
static void
test_tcp_split(unsigned int rounds)
{
	struct nat_tcp_ends e;
	struct nat_mapping m;
	struct fx_tcp a, b;
	unsigned int i, s, bad = 0;

	CHECK(sizeof(m.tcp) == 20 && offsetof(struct nat_mapping, tcp) + sizeof(m.tcp) == 64,
	      "the record's TCP part: %zu bytes at %zu", sizeof(m.tcp),
	      offsetof(struct nat_mapping, tcp));
	for (i = 0; i < rounds; i++) {
		memset(&a, 0, sizeof(a));
		for (s = 0; s < 2; s++) {
			a.d[s].end = (uint32_t)rte_rand();
			a.d[s].maxwin = (uint32_t)rte_rand();
			a.d[s].ack = (uint32_t)rte_rand();
			a.scale[s] = (uint8_t)rte_rand_max(FX_TCP_WSCALE_MAX + 1);
			a.dflags[s] = (uint8_t)rte_rand_max(16);
		}
		a.conn = (uint8_t)rte_rand_max(16);
		a.init = (uint8_t)rte_rand_max(2);
		memset(&m, 0x5a, sizeof(m));
		memset(&e, 0x5a, sizeof(e));
		nat_tcp_store(&m.tcp, &e, &a);
		memset(&b, 0xa5, sizeof(b));
		nat_tcp_load(&b, &m.tcp, &e);
		bad += memcmp(&a, &b, sizeof(a)) != 0;
	}
	CHECK(bad == 0, "%u of %u connections not the same after store and load", bad, rounds);
}

int
main(int argc, char **argv)
{
	if (!test_eal_start(argc, argv, 0x7a7))
		return 1;
	test_shares();
	test_alloc_errors();
	test_unit_of();
	test_pool_index(20000);
	test_alloc_exhausted();
	test_alloc_small_share();
	test_alloc_steered(20000);
	test_alloc_model(1024, 65535, 1024, 5, 20000);  /* 63 ports */
	test_alloc_model(40000, 40007, 2, 1, 5000);     /* 4 ports: exhaustion */
	test_alloc_model(100, 100, 1, 0, 2000);         /* 1 port */
	fx_hash_set_secret(UINT64_C(0x0001020304050607), UINT64_C(0x08090a0b0c0d0e0f));
	test_table_basic();
	test_table_model(20000);
	test_table_equal_tags();
	test_table_collide(4000);
	test_tcp_split(100000);
	test_rewrite(30000);
	test_udp_zero_result(1000);
	test_icmp_error(30000, true);
	test_icmp_error(30000, false);
	test_bib_bytes();
	test_bib_last(100000);
	test_bib_home(20000);
	test_key_words(1000000);
	return test_eal_end();
}
