#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of NAT port blocks (--nat-port-block, meson suite e2e).

Every run replays a pcap with --clock pcap (e2e_nat.py's set-up: one
worker, hold-down 4 s, one-way timeout 5 s) over a small share cut into
blocks, so which block and port each mapping gets is known.

  e2e_pba.py BINARY alloc    a host's first mapping allocates the block of
                             its inside port and keeps the port; its next
                             mappings (any protocol, inside port in or out
                             of the share) take ports of that block; a host
                             whose inside port lies in another's block gets
                             a free block; every block back at exit
  e2e_pba.py BINARY quota    blocks of 4, at most 2 a host: 8 mappings to
                             one remote fill two aligned blocks, the 9th is
                             refused (nat_block_limit), one to another
                             remote overlaps in them; two other hosts get
                             the two blocks left, a fourth none
                             (nat_block_exhausted, nat_no_port)
  e2e_pba.py BINARY release  a block stays its host's through its last
                             mapping's hold-down (another host whose
                             inside port lies in it gets another block just
                             before the end) and is free just after (a host
                             then gets it, and its port)
  e2e_pba.py BINARY reuse    a new mapping of the host during the hold-down
                             takes a port of the same block, no new block;
                             the block then lasts until that mapping's
                             hold-down is over
  e2e_pba.py BINARY workers  two workers, every packet on one's queue: each
                             mapping in a block of its flow owner's share,
                             the inside ports kept, the replies handed to
                             the owner of their public port
  e2e_pba.py BINARY ipfix    the log to Debian's nfcapd: nfdump shows each
                             block's allocation and release with its host,
                             public address, port range and time to the
                             millisecond, the quota-exceeded and the
                             ports-exhausted events, and no session event
  e2e_pba.py BINARY eim      --nat-mapping eim --nat-filtering eif, blocks
                             of 4, one a host: a binding keeps its inside
                             port, the first of its host's block, towards
                             two remotes; a third remote's packet makes a
                             session under it; the host's other bindings
                             fill its block, the next is refused
                             (nat_block_limit) while a new session under a
                             binding is not; a held session revived and a
                             later inbound session keep the block, which
                             is the host's until that last session's
                             hold-down is over (a host whose inside port
                             lies in it gets another block just before,
                             the block and its port just after)
  e2e_pba.py BINARY eim_ipfix  the log of eim with blocks to nfcapd: the
                             block's allocation and release (at the end of
                             its last session's hold-down, the inbound one
                             included) and the quota-exceeded event; no
                             session and no binding event
  e2e_pba.py BINARY eim_workers  two workers, eim+eif: each inside
                             endpoint's binding in a block of its owner's
                             share, inbound sessions from a new remote
                             under it, handed to the owner of the port
  e2e_pba.py BINARY cli      bad --nat-port-block, --nat-max-blocks-per-host;
                             blocks with eim start
  e2e_pba.py BINARY logsize [N]  not a test (meson does not run it): the
                             log's size per mapping with blocks of 64 and
                             without, N (default 1M) datagrams each a new
                             mapping 1 us of capture time apart, 50 ms
                             timeout and hold-down, exported to a socket
                             never read; two traffic shapes: "steady",
                             4096 hosts taking turns (each has a mapping
                             every 4 ms, so its block never empties), and
                             "bursty", 16 mappings per host at once, then
                             nothing (one block per 16 mappings)

Each frame out is checked (addresses, ports, TTL, checksums) and every
counter exactly; at exit every block and every port unit is free.
"""

import os
import re
import socket
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import e2e_ipfix as I  # noqa: E402
import e2e_nat as N  # noqa: E402
import fxpkt as P  # noqa: E402

check = E.check
POOL = N.POOL
T0 = N.T0
OW, HOLD = N.TMO["oneway"], N.HOLD
R, R2 = "198.18.0.10", "198.18.0.11"
A, B, C, D, F, G = ("10.1.0.%d" % i for i in range(1, 7))
# a 64-port share in four blocks of 16, no per-destination quota
BLOCKS16 = ["--nat-ports", "5000-5063", "--nat-port-block", "16", "--nat-max-per-dest", "0"]


def block(port, size=16, first=5000):
    """The block (first, last) of a port of the share."""
    lo = first + (port - first) // size * size
    return lo, lo + size - 1


def in_block(port, blk):
    return blk[0] <= port <= blk[1]


def no_leak(st, what):
    """Every port unit free, every block released, at exit."""
    N.no_leak(st, what)
    t = st["totals"]
    check(t["nat_blocks_active"] == 0 and t["nat_block_allocated"] == t["nat_block_released"],
          "%s: every block released at exit (allocated %d, released %d, active %d)"
          % (what, t["nat_block_allocated"], t["nat_block_released"], t["nat_blocks_active"]))


def test_alloc(binary, tmp):
    fr = [
        (T0, N.udp(A, 5000, R, 53)),                     # A's block [5000,5015], 5000
        (T0 + 0.1, N.udp(R, 53, POOL, 5000)),            # the reply back to A
        (T0 + 0.2, N.udp(A, 7000, R, 53)),               # outside the share: in A's block
        (T0 + 0.3, N.tcp(A, 5001, R, 80, P.TCP_SYN)),    # TCP: the same block, 5001 kept
        (T0 + 0.4, N.echo(A, R, 9)),                     # ICMP echo: the same block
        (T0 + 0.5, N.udp(B, 5020, R, 53)),               # B: block [5016,5031], 5020
        (T0 + 0.6, N.udp(C, 5003, R, 53)),               # 5003 in A's block: another
    ]
    st, got = N.run(binary, tmp, "pba_alloc", fr, BLOCKS16)
    if st is None:
        return
    N.expect_frames(got, [(POOL, 5000, R, 53), (R, 53, A, 5000), (POOL, None, R, 53),
                          (POOL, 5001, R, 80), (POOL, None, R, None), (POOL, 5020, R, 53),
                          (POOL, None, R, 53)], "alloc")
    if len(got) == 7:
        a = block(5000)
        check(in_block(got[2].sport, a) and got[2].sport != 5000,
              "a port outside the share: a free one of the host's block (%d)" % got[2].sport)
        check(in_block(got[4].ident, a), "the echo's identifier in the host's block (%d)"
              % got[4].ident)
        c = block(got[6].sport)
        check(got[6].sport >= 5032 and c != block(5020),
              "a host whose port lies in another's block gets a free block (%d)" % got[6].sport)
    t = st["totals"]
    check(t["nat_created"] == 6 and t["nat_block_allocated"] == 3 and
          t["nat_block_limit"] == 0 and t["nat_block_exhausted"] == 0,
          "6 mappings in 3 blocks (created %d, blocks %d)"
          % (t["nat_created"], t["nat_block_allocated"]))
    no_leak(st, "alloc")


def test_quota(binary, tmp):
    fr = [(T0 + i * 0.01, N.udp(A, 6000 + i, R, 53)) for i in range(9)]
    fr += [
        (T0 + 0.1, N.udp(A, 6100, R2, 53)),              # another remote: overlaps
        (T0 + 0.2, N.udp(B, 6200, R, 53)),               # B: one of the two left
        (T0 + 0.3, N.udp(C, 6300, R, 53)),               # C: the last one
        (T0 + 0.4, N.udp(D, 6400, R, 53)),               # D: none left
    ]
    st, got = N.run(binary, tmp, "pba_quota", fr,
                    ["--nat-ports", "5000-5015", "--nat-port-block", "4",
                     "--nat-max-blocks-per-host", "2", "--nat-max-per-dest", "0"])
    if st is None:
        return
    N.expect_frames(got, [(POOL, None, R, 53)] * 8 + [(POOL, None, R2, 53)] +
                    [(POOL, None, R, 53)] * 2, "quota")
    if len(got) == 11:
        a = sorted(g.sport for g in got[:8])
        blocks = sorted({block(p, 4) for p in a})
        check(len(blocks) == 2 and a == [p for b in blocks for p in range(b[0], b[1] + 1)],
              "A's 8 ports fill two whole blocks (%s)" % a)
        check(any(in_block(got[8].sport, b) for b in blocks),
              "A's mapping to another remote overlaps in its blocks (%d)" % got[8].sport)
        others = {block(got[9].sport, 4), block(got[10].sport, 4)}
        check(len(others) == 2 and not others & set(blocks),
              "B and C get the two other blocks (%d, %d)" % (got[9].sport, got[10].sport))
    t = st["totals"]
    check(t["nat_block_limit"] == 1 and t["nat_block_exhausted"] == 1 and
          t["nat_no_port"] == 1 and t["nat_created"] == 11 and
          t["nat_block_allocated"] == 4,
          "A's 9th refused at its limit, D finds no block (limit %d, exhausted %d, "
          "no_port %d, created %d, blocks %d)"
          % (t["nat_block_limit"], t["nat_block_exhausted"], t["nat_no_port"],
             t["nat_created"], t["nat_block_allocated"]))
    no_leak(st, "quota")


def test_release(binary, tmp):
    end = OW + HOLD                                      # A's block is free at T0 + end
    fr = [
        (T0, N.udp(A, 5000, R, 53)),
        (T0 + end - 0.1, N.udp(B, 5002, R, 53)),         # A's still: another block
        (T0 + end + 0.1, N.udp(C, 5004, R, 53)),         # free: C gets it and 5004
    ]
    st, got = N.run(binary, tmp, "pba_release", fr, BLOCKS16)
    if st is None:
        return
    N.expect_frames(got, [(POOL, 5000, R, 53), (POOL, None, R, 53), (POOL, 5004, R, 53)],
                    "release")
    if len(got) == 3:
        check(not in_block(got[1].sport, block(5000)),
              "during the last mapping's hold-down the block stays its host's (%d)"
              % got[1].sport)
    t = st["totals"]
    check(t["nat_block_allocated"] == 3 and t["nat_created"] == 3,
          "3 blocks (got %d)" % t["nat_block_allocated"])
    no_leak(st, "release")


def test_reuse(binary, tmp):
    fr = [
        (T0, N.udp(A, 5000, R, 53)),                     # block [5000,5015]
        (T0 + OW + 2, N.udp(A, 7000, R2, 53)),           # hold-down: the same block
        (T0 + OW + HOLD + 0.1, N.udp(B, 5004, R, 53)),   # kept by A's new mapping
        (T0 + 2 * OW + 2 + HOLD + 0.1, N.udp(C, 5005, R, 53)),  # free now
    ]
    st, got = N.run(binary, tmp, "pba_reuse", fr, BLOCKS16)
    if st is None:
        return
    N.expect_frames(got, [(POOL, 5000, R, 53), (POOL, None, R2, 53), (POOL, None, R, 53),
                          (POOL, 5005, R, 53)], "reuse")
    if len(got) == 4:
        check(in_block(got[1].sport, block(5000)),
              "a mapping in the hold-down takes a port of the host's block (%d)" % got[1].sport)
        check(not in_block(got[2].sport, block(5000)),
              "the block lasts as long as its new mapping (%d)" % got[2].sport)
    t = st["totals"]
    check(t["nat_block_allocated"] == 3 and t["nat_created"] == 4,
          "A's block reused: 3 blocks for 4 mappings (got %d)" % t["nat_block_allocated"])
    no_leak(st, "reuse")


def test_workers(binary, tmp):
    """Two workers (shares 5000-5031 and 5032-5063, two blocks each), every
    packet on the first one's queue: a host's mappings are made by the
    owner of each flow (the symmetric key's hash, fxpkt.handoff_owner),
    each in a block of that worker's share, and the replies are handed to
    the owner of their public port. Two mappings a worker, their inside
    ports in the first block of its share: kept."""
    shares = [(5000, 5031), (5032, 5063)]
    conns = []
    for w in (0, 1):
        for k in range(2):
            sport, dport = shares[w][0] + k, 9000
            while P.handoff_owner(P.flow_key(4, P.PROTO_UDP, A, R, sport, dport)[0], 2) != w:
                dport += 1
            conns.append((sport, dport, w))
    fr = [(T0 + i * 0.001, N.udp(A, s, R, d)) for i, (s, d, w) in enumerate(conns)]
    fr += [(T0 + 1 + i * 0.001, N.udp(R, d, POOL, s)) for i, (s, d, w) in enumerate(conns)]
    st, got = N.run(binary, tmp, "pba_workers", None, BLOCKS16, queues=[fr, []])
    if st is None:
        return
    outs = sorted((g.sport, g.dport) for g in got if g.src == POOL)
    ins = sorted((g.dst, g.dport) for g in got if g.dst == A)
    check(outs == sorted((s, d) for s, d, w in conns),
          "every inside port kept, in its owner's block (%s)" % outs)
    check(ins == sorted((A, s) for s, d, w in conns), "every reply reached the host (%s)" % ins)
    lcs = N.lcores(st)
    check(sorted(lc["nat_block_allocated"] for lc in lcs) == [1, 1] and
          all(lc["nat_created"] == 2 for lc in lcs),
          "one block and two mappings on each worker (%s)"
          % [(lc["nat_block_allocated"], lc["nat_created"]) for lc in lcs])
    t = st["totals"]
    check(t["nat_handoff"] == 2 and t["nat_in"] == 4,
          "the replies to the second worker's ports handed to it (handoff %d, in %d)"
          % (t["nat_handoff"], t["nat_in"]))
    no_leak(st, "workers")


# ---- endpoint-independent mappings ----

R3 = "198.18.0.12"
# a 16-port share in four blocks of 4, one a host, eim with eif
EIM4 = ["--nat-ports", "5000-5015", "--nat-port-block", "4", "--nat-max-blocks-per-host", "1",
        "--nat-max-per-dest", "0", "--nat-mapping", "eim", "--nat-filtering", "eif"]


def test_eim(binary, tmp):
    # A's block [5000,5003]; its last session is R3's second, made at
    # T0 + 10 (oneway, the binding's revived session live till T0 + 11)
    end = 10 + OW + HOLD
    fr = [
        (T0, N.udp(A, 5000, R, 53)),                     # binding: block [5000,5003], 5000
        (T0 + 0.1, N.udp(A, 5000, R2, 53)),              # the binding's port towards R2
        (T0 + 0.2, N.udp(R3, 7777, POOL, 5000)),         # eif: a session under it, to A
        (T0 + 0.3, N.udp(A, 5001, R, 53)),               # A's other bindings fill the block
        (T0 + 0.4, N.udp(A, 5002, R, 53)),
        (T0 + 0.5, N.udp(A, 5003, R, 53)),
        (T0 + 0.6, N.udp(A, 6000, R, 53)),               # a fifth binding: limit, refused
        (T0 + 0.7, N.udp(A, 5001, R2, 53)),              # a session under a binding: 5001
        (T0 + 0.8, N.udp(B, 5004, R, 53)),               # B: [5004,5007], 5004
        (T0 + 0.9, N.udp(C, 5002, R, 53)),               # in A's block: another one
        (T0 + 6, N.udp(A, 5000, R, 53)),                 # held (T0 + 5 .. 9): revived
        (T0 + 10, N.udp(R3, 7777, POOL, 5000)),          # R3's first released: a new one
        (T0 + end - 0.1, N.udp(D, 5001, R, 53)),         # A's block still: another
        (T0 + end + 0.1, N.udp(F, 5002, R, 53)),         # A's block free: F gets it, 5002
    ]
    st, got = N.run(binary, tmp, "pba_eim", fr, EIM4)
    if st is None:
        return
    N.expect_frames(got, [(POOL, 5000, R, 53), (POOL, 5000, R2, 53), (R3, 7777, A, 5000),
                          (POOL, 5001, R, 53), (POOL, 5002, R, 53), (POOL, 5003, R, 53),
                          (POOL, 5001, R2, 53), (POOL, 5004, R, 53), (POOL, None, R, 53),
                          (POOL, 5000, R, 53), (R3, 7777, A, 5000), (POOL, None, R, 53),
                          (POOL, 5002, R, 53)], "eim")
    if len(got) == 13:
        a = block(5000, 4)
        c, d = block(got[8].sport, 4), block(got[11].sport, 4)
        check(c not in (a, block(5004, 4)),
              "a host whose inside port lies in another's block gets a free one (%d)"
              % got[8].sport)
        check(d != a, "during the last session's hold-down the block stays A's (%d)"
              % got[11].sport)
    t = st["totals"]
    want = {"nat_created": 12, "nat_bib_created": 8, "nat_in_sessions": 2, "nat_revived": 1,
            "nat_block_allocated": 5, "nat_block_limit": 1, "nat_block_exhausted": 0,
            "nat_no_port": 0, "nat_in_filtered": 0, "nat_in_nomatch": 0, "nat_out": 11,
            "nat_in": 2, "nat_bib_active": 0}
    check({k: t[k] for k in want} == want,
          "eim: counters %s (got %s)" % (want, {k: t[k] for k in want}))
    no_leak(st, "eim")


def test_eim_workers(binary, tmp):
    """Two workers (shares 5000-5031 and 5032-5063, two blocks of 16
    each), every packet on the first one's queue: an inside endpoint's
    binding is made by its owner (fxpkt.eim_owner), in a block of that
    worker's share with its inside port kept; a new remote's packet to
    the public endpoint is handed to the owner of the port and makes a
    session under the binding."""
    shares = [(5000, 5031), (5032, 5063)]
    eps = []
    for w in (0, 1):
        sport = shares[w][0]
        while P.eim_owner(A, sport, P.PROTO_UDP, 2) != w:
            sport += 1
        eps.append((sport, w))
    fr = [(T0 + i * 0.001, N.udp(A, s, R, 53)) for i, (s, w) in enumerate(eps)]
    fr += [(T0 + 0.1 + i * 0.001, N.udp(A, s, R2, 53)) for i, (s, w) in enumerate(eps)]
    fr += [(T0 + 1 + i * 0.001, N.udp(R3, 7777, POOL, s)) for i, (s, w) in enumerate(eps)]
    st, got = N.run(binary, tmp, "pba_eim_workers", None,
                    BLOCKS16 + ["--nat-mapping", "eim", "--nat-filtering", "eif"],
                    queues=[fr, []])
    if st is None:
        return
    outs = sorted((g.sport, g.dst) for g in got if g.src == POOL)
    ins = sorted((g.src, g.dport) for g in got if g.dst == A)
    check(outs == sorted((s, r) for s, w in eps for r in (R, R2)),
          "eim_workers: each binding's inside port kept towards both remotes (%s)" % outs)
    check(ins == sorted((R3, s) for s, w in eps),
          "eim_workers: a new remote's packets reach the endpoints (%s)" % ins)
    lcs = N.lcores(st)
    check([(lc["nat_block_allocated"], lc["nat_bib_created"], lc["nat_created"],
            lc["nat_in_sessions"]) for lc in lcs] == [(1, 1, 3, 1)] * 2,
          "eim_workers: one block, one binding, three sessions (one inbound) a worker (%s)"
          % [(lc["nat_block_allocated"], lc["nat_bib_created"], lc["nat_created"],
              lc["nat_in_sessions"]) for lc in lcs])
    t = st["totals"]
    check(t["nat_in"] == 2 and t["nat_in_nomatch"] == 0,
          "eim_workers: both inbound sessions made (in %d, nomatch %d)"
          % (t["nat_in"], t["nat_in_nomatch"]))
    no_leak(st, "eim_workers")


# ---- the log ----

ALLOC, DEALLOC, EXHAUSTED, QUOTA = 16, 17, 12, 13


def nfdump_event(rec):
    """A record of nfdump -o raw: (natEvent, inside, public address, ms
    since T0). Debian 12's nfdump (1.7.1) does not decode the port range
    of an IPFIX record (it does from 1.7.5 on): ipfix_blocks() reads it."""
    def num(k):
        v = re.match(r"\d+", rec.get(k, ""))
        return int(v.group(0)) if v else -1
    return (num("nat event"), rec.get("src addr"), rec.get("src xlt ip"),
            num("Event time") - I.T0 * 1000)


def ipfix_records(data):
    """The data records of the IPFIX messages in data (RFC 7011), each a
    {information element: bytes}, with the templates they bring."""
    tmpl, recs, off = {}, [], 0
    while off + 16 <= len(data):
        ver, mlen = struct.unpack_from("!HH", data, off)
        if ver != 10 or mlen < 16:
            break
        pos, end = off + 16, off + mlen
        while pos + 4 <= end:
            sid, slen = struct.unpack_from("!HH", data, pos)
            body, pos = data[pos + 4:pos + slen], pos + max(slen, 4)
            if sid == 2:
                b = 0
                while b + 4 <= len(body):
                    tid, nf = struct.unpack_from("!HH", body, b)
                    fields = [struct.unpack_from("!HH", body, b + 4 + 4 * i) for i in range(nf)]
                    tmpl[tid] = fields
                    b += 4 + 4 * nf
            elif sid in tmpl:
                size = sum(f[1] for f in tmpl[sid])
                for b in range(0, len(body) - size + 1, size):
                    rec, c = {}, b
                    for ie, ln in tmpl[sid]:
                        rec[ie] = body[c:c + ln]
                        c += ln
                    recs.append(rec)
        off = end
    return recs


def ipfix_blocks(recs):
    """The port-block records: (natEvent, inside, first port, last port,
    ms since T0); IEs 323 time, 230 event, 8 source, 361/362 the range."""
    out = []
    for r in recs:
        if r.get(230, b"\0")[0] in (ALLOC, DEALLOC):
            out.append((r[230][0], socket.inet_ntoa(r[8]), struct.unpack("!H", r[361])[0],
                        struct.unpack("!H", r[362])[0],
                        struct.unpack("!Q", r[323])[0] - I.T0 * 1000))
    return sorted(out)


def ipfix_scenario():
    at = I.at
    fr = [(at(100), N.udp(A, 5000, R, 53))]                       # [5000,5003]
    fr += [(at(110 + 10 * i), N.udp(A, 6001 + i, R, 53)) for i in range(3)]
    fr += [
        (at(140), N.udp(A, 6004, R, 53)),                         # block full: quota
        (at(300), N.udp(B, 5004, R, 53)),                         # [5004,5007]
        (at(400), N.udp(C, 5008, R, 53)),                         # [5008,5011]
        (at(500), N.udp(D, 5012, R, 53)),                         # [5012,5015]
        (at(600), N.udp(F, 5000, R, 53)),                         # none free
    ]
    life = (OW + HOLD) * 1000
    # each block from its first packet to its last mapping's hold-down end
    want = sorted([
        (ALLOC, A, 5000, 5003, 100), (DEALLOC, A, 5000, 5003, 130 + life),
        (ALLOC, B, 5004, 5007, 300), (DEALLOC, B, 5004, 5007, 300 + life),
        (ALLOC, C, 5008, 5011, 400), (DEALLOC, C, 5008, 5011, 400 + life),
        (ALLOC, D, 5012, 5015, 500), (DEALLOC, D, 5012, 5015, 500 + life),
    ])
    return fr, want


def collected(binary, tmp, name, fr, extra):
    """Run fr with the log exported to Debian's nfcapd: (stats, frames out,
    nfdump's records as nfdump_event()s, nfcapd's log, nfdump's output), or
    None where the nfdump package cannot be installed."""
    if not E.ensure_package("nfdump", ["nfcapd", "nfdump"]):
        print("SKIP: the nfdump package cannot be installed here")
        return None
    col = I.Collector(tmp)
    st, got = N.run(binary, tmp, name, fr,
                    extra + ["--nat-log", "ipfix:127.0.0.1:%d" % col.port])
    log = col.stop()
    if st is None:
        return st, got, [], log, ""
    recs, out = col.records()
    return st, got, [nfdump_event(r) for r in recs], log, out


def ipfix_run(binary, tmp, what, fr, extra, frames, want, refusals, n, none):
    """Run fr twice with the log exported: to Debian's nfcapd, whose
    records (nfdump) must be the block events want (ipfix_blocks()'s, to
    the millisecond), the refusals (natEvent, host, ms), n records in all
    and none of the events in none, every message in sequence; then to a
    socket read here, whose block records must be want with their port
    ranges. frames: how many frames come out. (0, the first run's stats;
    None if it failed) or (I.SKIP, None) without nfdump."""
    run = collected(binary, tmp, "pba_" + what, fr, extra)
    if run is None:
        return I.SKIP, None
    st, got, ev, log, out = run
    if st is None:
        return 0, None
    check(len(got) == frames, "%s: %d frames out (got %d)" % (what, frames, len(got)))
    blocks = sorted(e for e in ev if e[0] in (ALLOC, DEALLOC))
    check(blocks == sorted((w[0], w[1], POOL, w[4]) for w in want),
          "%s: nfdump: each block's allocation and release, host, public address and "
          "time to the millisecond (got %s)" % (what, blocks))
    got = sorted((e[0], e[1], e[3]) for e in ev if e[0] in (QUOTA, EXHAUSTED))
    check(got == sorted(refusals), "%s: nfdump: the refusals %s (got %s)"
          % (what, sorted(refusals), got))
    check(len(ev) == n and not [e for e in ev if e[0] in none],
          "%s: nfdump: %d records, none of events %s (got %s)" % (what, n, none, ev))
    lg = I.log_totals(st)
    check(lg.get("nat_log_queued") == n and lg.get("nat_log_exported") == n,
          "%s: %d events queued and exported (%s)" % (what, n, lg))
    check("Sequence Errors: 0" in log, "%s: nfcapd: no sequence error" % what)
    if len(blocks) != len(want):
        print(out[:3000])
    got = raw_blocks(binary, tmp, "pba_%s2" % what, fr, extra)
    check(got == want, "%s: the messages: each block's port range, host and times (got %s)"
          % (what, got))
    return 0, st


def raw_blocks(binary, tmp, name, fr, extra):
    """Run fr with the log exported to a socket read here: its block
    records (ipfix_blocks())."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    N.run(binary, tmp, name, fr, extra + ["--nat-log", "ipfix:127.0.0.1:%d"
                                          % sock.getsockname()[1]])
    sock.setblocking(False)
    data = b""
    try:
        while True:
            data += sock.recv(65536)
    except BlockingIOError:
        pass
    sock.close()
    return ipfix_blocks(ipfix_records(data))


IPFIX_EXTRA = ["--nat-ports", "5000-5015", "--nat-port-block", "4",
               "--nat-max-blocks-per-host", "1", "--nat-max-per-dest", "0"]


def test_ipfix(binary, tmp):
    fr, want = ipfix_scenario()
    rc, st = ipfix_run(binary, tmp, "ipfix", fr, IPFIX_EXTRA, 7, want,
                       [(EXHAUSTED, F, 600), (QUOTA, A, 140)], 10, (I.CREATE, I.DELETE))
    if st is None:
        return rc
    t = st["totals"]
    check(t["nat_block_limit"] == 1 and t["nat_block_exhausted"] == 1,
          "limit %d, exhausted %d" % (t["nat_block_limit"], t["nat_block_exhausted"]))
    no_leak(st, "ipfix")
    return 0


def test_eim_ipfix(binary, tmp):
    at = I.at
    fr = [
        (at(100), N.udp(A, 5000, R, 53)),                         # [5000,5003]
        (at(110), N.udp(A, 5000, R2, 53)),                        # the same binding
        (at(120), N.udp(A, 5001, R, 53)),
        (at(130), N.udp(A, 5002, R, 53)),
        (at(140), N.udp(A, 5003, R, 53)),
        (at(150), N.udp(A, 6000, R, 53)),                         # block full: quota
        (at(200), N.udp(R3, 7777, POOL, 5000)),                   # eif: the last session
        (at(300), N.udp(B, 5004, R, 53)),                         # [5004,5007]
    ]
    life = (OW + HOLD) * 1000
    want = sorted([
        (ALLOC, A, 5000, 5003, 100), (DEALLOC, A, 5000, 5003, 200 + life),
        (ALLOC, B, 5004, 5007, 300), (DEALLOC, B, 5004, 5007, 300 + life),
    ])
    # the block events stand for the bindings' and the sessions' events
    rc, st = ipfix_run(binary, tmp, "eim_ipfix", fr, EIM4, 7, want, [(QUOTA, A, 150)], 5,
                       (I.CREATE, I.DELETE, I.BIB_CREATE, I.BIB_DELETE))
    if st is None:
        return rc
    t = st["totals"]
    check(t["nat_block_limit"] == 1 and t["nat_bib_created"] == 5 and
          t["nat_in_sessions"] == 1,
          "eim_ipfix: limit %d, bindings %d, inbound sessions %d"
          % (t["nat_block_limit"], t["nat_bib_created"], t["nat_in_sessions"]))
    no_leak(st, "eim_ipfix")
    return 0


def test_cli(binary, tmp):
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8"]
    cases = [
        ("not a number", "--nat-port-block: 'x' is not a whole number in 0..32768",
         nat + ["--nat-port-block", "x"]),
        ("block too large", "--nat-port-block: 40000 is out of range 0..32768",
         nat + ["--nat-port-block", "40000"]),
        ("block over the share", "--nat-port-block",
         nat + ["--nat-ports", "5000-5099", "--nat-port-block", "101"]),
        ("limit without blocks", "--nat-max-blocks-per-host",
         nat + ["--nat-max-blocks-per-host", "4"]),
        ("bad limit", "--nat-max-blocks-per-host: -1 is out of range 0..65536 (0: no limit)",
         nat + ["--nat-port-block", "64", "--nat-max-blocks-per-host", "-1"]),
        ("blocks without masquerade", "--nat-port-block", ["--nat-port-block", "64"]),
    ]
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])

    def cmd(args):
        return [binary] + E.EAL + ["-l", "0-1", "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s"
                                   % (empty, os.path.join(tmp, "o.pcap")),
                                   "--", "-p", "1", "-T", "0", "--duration", "0.2"] + args
    for i, (name, opt, args) in enumerate(cases):
        rc, out = E.run_dpdk(cmd(args), "pbacli%d" % i)
        msg = [line for line in out.strip().splitlines() if opt in line]
        check(rc != 0 and msg, "%s: refused with a message (%s)" % (name, msg[:1]))
    # blocks with endpoint-independent mappings and each filtering start
    for i, filt in enumerate(("apdf", "adf", "eif")):
        rc, out = E.run_dpdk(cmd(nat + ["--relax-rx-offload", "--max-flows", "4096",
                                        "--nat-port-block", "64",
                                        "--nat-mapping", "eim", "--nat-filtering", filt]),
                             "pbacli_eim%d" % i)
        check(rc == 0, "blocks with eim and %s: the example starts and ends (rc %d: %s)"
              % (filt, rc, out.strip().splitlines()[-3:]))
    return 0


def logsize_frames(shape, n):
    """n datagrams 1 us apart, each a new mapping to its own remote."""
    fr = []
    for i in range(n):
        h = i % 4096 if shape == "steady" else i >> 4
        port = 1024 + (i // 4096 if shape == "steady" else i & 15) % 60000
        fr.append((I.T0 + i / 1e6, N.udp("10.1.%d.%d" % (h >> 8 & 255, h & 255), port,
                                         "198.18.%d.%d" % (i >> 8 & 255, i & 255), 53)))
    return fr


def tool_logsize(binary, tmp, n=1000000):
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sink.bind(("127.0.0.1", 0))
    base = ["--nat-pool", "198.51.100.0/28", "--nat-max-per-host", "0",
            "--max-flows", "262144", "--timeout-oneway", "0.05", "--nat-holddown", "0.05",
            "--nat-log", "ipfix:127.0.0.1:%d" % sink.getsockname()[1]]
    for shape in ("steady", "bursty"):
        fr = logsize_frames(shape, n)
        size = {}
        for name, extra in (("per-session", []),
                            ("blocks of 64", ["--nat-port-block", "64",
                                              "--nat-max-blocks-per-host", "0"])):
            st, _ = N.run(binary, tmp, "logsize", fr, base + extra)
            if st is None:
                return 0
            t, lg = st["totals"], I.log_totals(st)
            size[name] = lg["nat_log_bytes"]
            print("logsize %s, %s: %d mappings, %d blocks; events %d queued, %d dropped, "
                  "%d exported in %d messages, %d bytes: %.2f bytes and %.4f events per mapping"
                  % (shape, name, t["nat_created"], t["nat_block_allocated"],
                     lg["nat_log_queued"], lg["nat_log_dropped"], lg["nat_log_exported"],
                     lg["nat_log_messages"], lg["nat_log_bytes"],
                     lg["nat_log_bytes"] / max(t["nat_created"], 1),
                     lg["nat_log_exported"] / max(t["nat_created"], 1)))
            check(lg["nat_log_dropped"] == 0 and t["nat_created"] == n,
                  "%s %s: every datagram a mapping, no event dropped" % (shape, name))
        print("logsize %s: the log with blocks is %.1f times smaller"
              % (shape, size["per-session"] / max(size["blocks of 64"], 1)))
    sink.close()
    return 0


def main(argv):
    tests = {"alloc": test_alloc, "quota": test_quota, "release": test_release,
             "reuse": test_reuse, "workers": test_workers, "ipfix": test_ipfix,
             "cli": test_cli, "eim": test_eim, "eim_ipfix": test_eim_ipfix,
             "eim_workers": test_eim_workers,
             "logsize": tool_logsize}
    if len(argv) not in (3, 4) or argv[2] not in tests or \
       (len(argv) == 4 and argv[2] != "logsize"):
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxpba_") as tmp:
        if len(argv) == 4:
            rc = tests[argv[2]](argv[1], tmp, int(float(argv[3])))
        else:
            rc = tests[argv[2]](argv[1], tmp)
    if rc == I.SKIP:
        return I.SKIP
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
