# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""A software model of a NIC's RSS, for tests that split a capture over
rx queues as the NIC would: the Toeplitz hash of an IPv4 tuple (source
address, destination address, source port, destination port, as on the
wire: what rte_softrss() and base/toeplitz.h compute), the redirection
table of the example's --rss-model (128 entries, entry i to the queue of
the (i % workers)-th worker), and the symmetric key 6d5a... both use.

The hash is XOR over the input's set bits of the key's 32-bit window at
that bit; per byte position the XOR over each byte value's set bits is
tabled once, so a hash is one lookup per input byte.
"""

import ipaddress

SYM_KEY = bytes([0x6D, 0x5A] * 20)
MODEL_RETA = 128   # fwd/owner.h FX_RSS_MODEL_RETA


class Toeplitz:
    def __init__(self, key, nbytes=12):
        k, klen = int.from_bytes(key, "big"), len(key) * 8
        if klen < (nbytes + 4) * 8:
            raise ValueError("a key of %d bytes hashes at most %d input bytes"
                             % (len(key), len(key) - 4))
        window = [(k >> (klen - 32 - b)) & 0xFFFFFFFF for b in range(nbytes * 8)]
        self.tables = []
        for j in range(nbytes):
            t = [0] * 256
            for v in range(256):
                h = 0
                for z in range(8):
                    if v >> (7 - z) & 1:
                        h ^= window[8 * j + z]
                t[v] = h
            self.tables.append(t)

    def hash(self, data):
        h = 0
        for t, v in zip(self.tables, data):
            h ^= t[v]
        return h

    def v4(self, src, dst, sport, dport):
        """The hash of an IPv4 tuple with ports (addresses as strings)."""
        return self.hash(ipaddress.IPv4Address(src).packed +
                         ipaddress.IPv4Address(dst).packed +
                         sport.to_bytes(2, "big") + dport.to_bytes(2, "big"))


def model_worker(h, workers):
    """The worker --rss-model gives hash h to."""
    return (h % MODEL_RETA) % workers


def self_check():
    """Known answers: the symmetric key gives a tuple and its reverse one
    hash, and the published verification tuple of the Toeplitz key
    6d5a56da... (66.9.149.187:2794 to 161.142.100.80:1766) hashes to
    0x51ccc178."""
    ms_key = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcb"
                           "ae7b30b477cb2da38030f20c6a42b73bbeac01fa")
    t = Toeplitz(ms_key)
    if t.v4("66.9.149.187", "161.142.100.80", 2794, 1766) != 0x51CCC178:
        return False
    s = Toeplitz(SYM_KEY)
    return s.v4("10.1.0.1", "198.18.0.9", 4000, 53) == s.v4("198.18.0.9", "10.1.0.1", 53, 4000)
