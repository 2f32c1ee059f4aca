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
  e2e_pba.py BINARY cli      bad --nat-port-block, --nat-max-blocks-per-host
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


IPFIX_EXTRA = ["--nat-ports", "5000-5015", "--nat-port-block", "4",
               "--nat-max-blocks-per-host", "1", "--nat-max-per-dest", "0"]


def test_ipfix(binary, tmp):
    if not E.ensure_package("nfdump", ["nfcapd", "nfdump"]):
        print("SKIP: the nfdump package cannot be installed here")
        return I.SKIP
    fr, want = ipfix_scenario()
    col = I.Collector(tmp)
    st, got = N.run(binary, tmp, "pba_ipfix", fr,
                    IPFIX_EXTRA + ["--nat-log", "ipfix:127.0.0.1:%d" % col.port])
    log = col.stop()
    if st is None:
        return 0
    check(len(got) == 7, "7 frames out, 2 refused (got %d)" % len(got))
    recs, out = col.records()
    ev = [nfdump_event(r) for r in recs]
    blocks = sorted(e for e in ev if e[0] in (ALLOC, DEALLOC))
    check(blocks == sorted((w[0], w[1], POOL, w[4]) for w in want),
          "nfdump: each block's allocation and release, host, public address and "
          "time to the millisecond (got %s)" % blocks)
    refusals = sorted((e[0], e[1], e[3]) for e in ev if e[0] in (QUOTA, EXHAUSTED))
    check(refusals == [(EXHAUSTED, F, 600), (QUOTA, A, 140)],
          "nfdump: A's quota exceeded, F's ports exhausted (got %s)" % refusals)
    check(len(ev) == 10 and not [e for e in ev if e[0] in (I.CREATE, I.DELETE)],
          "nfdump: 10 records, no session event (got %d)" % len(ev))
    lg = I.log_totals(st)
    check(lg.get("nat_log_queued") == 10 and lg.get("nat_log_exported") == 10,
          "10 events queued and exported (%s)" % lg)
    check("Sequence Errors: 0" in log, "nfcapd: no sequence error")
    t = st["totals"]
    check(t["nat_block_limit"] == 1 and t["nat_block_exhausted"] == 1,
          "limit %d, exhausted %d" % (t["nat_block_limit"], t["nat_block_exhausted"]))
    no_leak(st, "ipfix")
    if blocks != want:
        print(out[:3000])
    # the same run, its messages read here: the port ranges
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    st, _ = N.run(binary, tmp, "pba_ipfix2", fr,
                  IPFIX_EXTRA + ["--nat-log", "ipfix:127.0.0.1:%d" % sock.getsockname()[1]])
    sock.setblocking(False)
    data = b""
    try:
        while True:
            data += sock.recv(65536)
    except BlockingIOError:
        pass
    sock.close()
    got = ipfix_blocks(ipfix_records(data))
    check(got == want, "the messages: each block's port range, host and times (got %s)" % got)
    return 0


def test_cli(binary, tmp):
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8"]
    cases = [
        ("not a number", "--nat-port-block", nat + ["--nat-port-block", "x"]),
        ("block too large", "--nat-port-block", nat + ["--nat-port-block", "40000"]),
        ("block over the share", "--nat-port-block",
         nat + ["--nat-ports", "5000-5099", "--nat-port-block", "101"]),
        ("limit without blocks", "--nat-max-blocks-per-host",
         nat + ["--nat-max-blocks-per-host", "4"]),
        ("bad limit", "--nat-max-blocks-per-host",
         nat + ["--nat-port-block", "64", "--nat-max-blocks-per-host", "-1"]),
        ("blocks without masquerade", "--nat-port-block", ["--nat-port-block", "64"]),
        ("blocks with endpoint-independent mappings", "not with --nat-mapping eim",
         nat + ["--nat-port-block", "64", "--nat-mapping", "eim"]),
    ]
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])
    for i, (name, opt, args) in enumerate(cases):
        cmd = [binary] + E.EAL + ["-l", "0-1", "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s"
                                  % (empty, os.path.join(tmp, "o.pcap")),
                                  "--", "-p", "1", "-T", "0", "--duration", "0.2"] + args
        rc, out = E.run_dpdk(cmd, "pbacli%d" % i)
        msg = [line for line in out.strip().splitlines() if opt in line]
        check(rc != 0 and msg, "%s: refused with a message (%s)" % (name, msg[:1]))
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
             "cli": test_cli,
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
