#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Keys that collide in the example's tables, computed offline (standard
library only): what a hash-flooding attacker sends, for the tests
(e2e_hashflood.py) and the benchmark (scripts/flowexp-bench.py, flood).

Two kinds:

  crc    keys with one CRC32-C (rte_hash_crc, seed 0), the unkeyed hash
         the tables used before the keyed one: equal 32-bit hashes, so
         equal tags and one home bucket in any table sized by a power of
         two. CRC32-C with a fixed length and start is affine over GF(2)
         in the message bits: crc(M ^ D) = crc(M) ^ L(D) with L linear.
         So, from a base key M and F free bits (ports, address bits), the
         columns L(e_p) of the free bits form a 32 x F matrix, its kernel
         (found by Gaussian elimination) has dimension at least F - 32,
         and M ^ D for every D in the kernel has the hash of M: 2^16 keys
         from 48 free bits, at once, without trying any. Flow keys
         (fxpkt.flow_key(): one source, destinations in a /16, both ports)
         and NAT out keys (inside host to remote: the 16-byte nat_key).

  keyed  keys with one home bucket under the keyed hash (fxhash.h) with a
         KNOWN secret (--hash-secret), in the flow index of a table of
         max_flows or in the NAT index of capacity mappings: tried one
         after the other (each is a hit with probability 1 / buckets). An
         attacker without the secret cannot do this; the tests do it to
         reach the probe bound.

IndexModel is the bucket index (fx_index.h) as far as placement goes: how
many pairs each bucket holds, where an insert lands, when the probe bound
refuses it.

  collide.py crc-flow N          N flow keys with one CRC32-C, as
                                 "src dst sport dport crc" lines
  collide.py crc-nat N           the same for NAT out keys
  collide.py keyed-flow N MAX_FLOWS [SECRET_HEX]
  collide.py keyed-nat N CAPACITY [SECRET_HEX]
"""

import ipaddress
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fxpkt as P  # noqa: E402

PROBE_MAX = 8          # fx_index.h: FX_IX_PROBE_MAX
PAIRS = 7              # FX_IX_PAIRS on 64-byte cache lines
GOLDEN = 0x9E3779B1    # fx_ix_home()


def pow2_at_least(n):
    b = 1
    while b < n:
        b <<= 1
    return b


def flow_buckets(max_flows):
    """The flow index's buckets for --max-flows (flow_table.c)."""
    capacity = max_flows + max(max_flows // 8, 64)
    return pow2_at_least(max((capacity + 3) // 4, 2))


def nat_buckets(capacity):
    """The NAT index's buckets for a table of capacity mappings (nat_table.c)."""
    return pow2_at_least(max((capacity + 1) // 2, 2))


def home(sig, buckets):
    """fx_ix_home()."""
    shift = 32 - (buckets.bit_length() - 1)
    return ((sig * GOLDEN) & 0xFFFFFFFF) >> shift


class IndexModel:
    """Where the bucket index puts each key, and which inserts it refuses."""

    def __init__(self, buckets):
        self.n = buckets
        self.used = [0] * buckets
        self.refused = 0

    def insert(self, sig):
        """The bucket the pair lands in, or None (refused at the bound)."""
        b = home(sig, self.n)
        for _ in range(PROBE_MAX):
            if self.used[b] < PAIRS:
                self.used[b] += 1
                return b
            b = (b + 1) % self.n
        self.refused += 1
        return None

    def remove(self, b):
        self.used[b] -= 1


# ---- keys ----

def flow_key_of(src, dst, sport, dport, proto=P.PROTO_UDP):
    return P.flow_key(4, proto, src, dst, sport, dport)[0]


def nat_key_of(src, dst, sport, dport, proto=P.PROTO_UDP):
    """nat_table.h: struct nat_key, network-order fields, 16 bytes."""
    return ipaddress.IPv4Address(src).packed + ipaddress.IPv4Address(dst).packed + \
        struct.pack("!HHB3x", sport, dport, proto)


# ---- CRC32-C: the kernel of its linear part ----

def _kernel(columns):
    """Independent masks over range(len(columns)) whose columns XOR to 0."""
    pivots = {}          # top bit -> (value, combination)
    out = []
    for p, c in enumerate(columns):
        v, comb = c, 1 << p
        while v:
            top = v.bit_length() - 1
            if top not in pivots:
                pivots[top] = (v, comb)
                break
            pv, pc = pivots[top]
            v, comb = v ^ pv, comb ^ pc
        if v == 0:
            out.append(comb)
    return out


def _crc_collisions(base, free_bits, n):
    """n distinct byte strings with base's CRC32-C: base with the free bits
    (byte offset, bit) flipped along the kernel of CRC's linear part."""
    b0 = P.crc32c_raw(base)
    cols = []
    for off, bit in free_bits:
        m = bytearray(base)
        m[off] ^= 1 << bit
        cols.append(P.crc32c_raw(bytes(m)) ^ b0)
    ker = _kernel(cols)
    if n > 1 << len(ker):
        raise ValueError("%d keys asked, the kernel gives %d" % (n, 1 << len(ker)))
    out = []
    for i in range(n):
        flip = 0
        for j, k in enumerate(ker):
            if i >> j & 1:
                flip ^= k
        m = bytearray(base)
        for p, (off, bit) in enumerate(free_bits):
            if flip >> p & 1:
                m[off] ^= 1 << bit
        out.append(bytes(m))
    return out


def _bits(offsets):
    return [(o, b) for o in offsets for b in range(8)]


def crc_flows(n, src="10.254.0.1", dst="198.18.0.0"):
    """n UDP flows from src to hosts of dst's /16 whose flow keys share one
    CRC32-C: [(src, dst, sport, dport)]. Free: the destination's last two
    bytes (key bytes 18, 19), both ports (32..35); src sorts first."""
    base = flow_key_of(src, dst, 1024, 1024)
    out = []
    for k in _crc_collisions(base, _bits((18, 19, 32, 33, 34, 35)), n):
        d = str(ipaddress.IPv4Address(k[16:20]))
        sport, dport = struct.unpack("!HH", k[32:36])
        assert flow_key_of(src, d, sport, dport) == k
        out.append((src, d, sport, dport))
    return out


def crc_nat(n, src_net="10.254.0.0", dst="198.18.0.0"):
    """n outbound UDP packets' tuples from inside hosts of src_net's /24 to
    hosts of dst's /24 whose NAT out keys share one CRC32-C: free the
    inside host's last byte (key byte 3), the remote's (7), the source
    port's low 15 bits (its top bit stays set: ports 32768.., which a NAT
    allocator can keep) and the destination port (8..11). No two have the
    same remote and ports, so each can keep its source port as its public
    one."""
    base = nat_key_of(src_net, dst, 0x8000, 1024)
    free = [(3, b) for b in range(8)] + [(7, b) for b in range(8)] + \
        [(8, b) for b in range(7)] + _bits((9, 10, 11))
    out, seen = [], set()
    for k in _crc_collisions(base, free, 1 << 15):
        s = str(ipaddress.IPv4Address(k[0:4]))
        d = str(ipaddress.IPv4Address(k[4:8]))
        sport, dport = struct.unpack("!HH", k[8:12])
        if (d, sport, dport) in seen:
            continue
        seen.add((d, sport, dport))
        out.append((s, d, sport, dport))
        if len(out) == n:
            return out
    raise ValueError("%d distinct NAT tuples asked, %d found" % (n, len(out)))


# ---- the keyed hash with a known secret: tried ----

def _keyed(n, key_of, buckets, secret, ports, target=None):
    """n tuples (src, dst, sport, dport) from ports(i) whose key_of() has
    one home bucket (target, or the first one's)."""
    out, i = [], 0
    while len(out) < n:
        t = ports(i)
        i += 1
        h = home(P.fx_hash(key_of(*t), secret), buckets)
        if target is None:
            target = h
        if h == target:
            out.append(t)
    return out, target


def _ports(src, dst):
    """The i-th tuple tried: source ports 1024..65535, then the next
    destination port."""
    return lambda i: (src, dst, 1024 + i % 64512, 7000 + i // 64512)


def keyed_flows(n, max_flows, secret=P.HASH_SECRET, src="10.254.0.1", dst="198.18.0.7"):
    """n UDP flows from src to dst whose flow keys share one home bucket of
    a flow table of max_flows."""
    return _keyed(n, flow_key_of, flow_buckets(max_flows), secret, _ports(src, dst))[0]


def keyed_nat(n, capacity, secret=P.HASH_SECRET, src="10.254.0.1", dst="198.18.0.7"):
    """n outbound UDP tuples from src to dst, source ports 1024.. (kept by
    the allocator where they are free), whose NAT out keys share one home
    bucket of a NAT table of capacity mappings."""
    return _keyed(n, nat_key_of, nat_buckets(capacity), secret, _ports(src, dst))[0]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    what, n = argv[1], int(argv[2])
    secret = P.HASH_SECRET
    if len(argv) > 4:
        h = argv[4]
        secret = (int(h[:16], 16), int(h[16:32], 16))
    if what == "crc-flow":
        for s, d, sp, dp in crc_flows(n):
            print(s, d, sp, dp, "%08x" % P.crc32c_raw(flow_key_of(s, d, sp, dp)))
    elif what == "crc-nat":
        for s, d, sp, dp in crc_nat(n):
            print(s, d, sp, dp, "%08x" % P.crc32c_raw(nat_key_of(s, d, sp, dp)))
    elif what in ("keyed-flow", "keyed-nat") and len(argv) > 3:
        size = int(argv[3])
        if what == "keyed-flow":
            ts, key_of, nb = keyed_flows(n, size, secret), flow_key_of, flow_buckets(size)
        else:
            ts, key_of, nb = keyed_nat(n, size, secret), nat_key_of, nat_buckets(size)
        for t in ts:
            print(*t, "bucket", home(P.fx_hash(key_of(*t), secret), nb))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
