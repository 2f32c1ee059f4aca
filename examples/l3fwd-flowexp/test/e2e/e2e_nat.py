#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of l3fwd-flowexp's masquerade NAT (meson suite e2e).

Every run replays a pcap through net_pcap with --clock pcap, so hours of
timeouts pass in a second and expiry is exact (a packet is handled after
everything due by its capture time expired, at most one tick late).

  e2e_nat.py BINARY udp     mapping, port preservation, endpoint-dependent
                            uniqueness and port overlapping, outbound
                            refresh, a reply just before the deadline
                            delivered and one just after dropped, expiry
                            is final, hold-down, nothing leaks
  e2e_nat.py BINARY tcp     only a SYN makes a mapping; FIN and RST shorten
                            the deadline; unsolicited inbound dropped
  e2e_nat.py BINARY icmp    echo identifier translated; ICMP errors
                            translated back (outer and quoted headers) and
                            neither make nor refresh a mapping
  e2e_nat.py BINARY ports   a one-port share: nat_no_port, overlapping
  e2e_nat.py BINARY workers two workers, replies on the queue of the worker
                            that does not own them: handed to the owner
                            of their public port
  e2e_nat.py BINARY flush   /l3fwd_flowexp/flush,PREFIX ends the mappings of
                            the inside hosts in it (through the wheel's
                            remote cancel), into hold-down; the others live
  e2e_nat.py BINARY cli     bad --nat-*, --clock and --rss-model arguments; masquerade
                            on a port without --port-addr warned about

Each frame out is checked field by field (addresses, ports, identifiers,
TTL, IPv4, TCP, UDP and ICMP checksums) and every counter exactly.
"""

import ipaddress
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import fxpkt as P  # noqa: E402

check = E.check
POOL = "203.0.113.1"
TICK = 0.001                  # --tick-us 1000
TMO = {"oneway": 5, "tcp-syn": 8, "tcp": 100, "tcp-close": 20, "tcp-rst": 3,
       "udp": 30, "icmp": 10, "other": 30}
HOLD = 4.0
T0 = 1000.0
APP = ["--parse-ptype", "--relax-rx-offload", "-T", "0", "--clock", "pcap",
       "--tick-us", "1000", "--max-flows", "4096", "--exit-when-drained",
       "--duration", "60", "--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/16",
       "--nat-holddown", str(HOLD)] + \
    [a for k, v in TMO.items() for a in ("--timeout-" + k, str(v))]


def ip(a):
    return ipaddress.IPv4Address(a).packed


def l4_csum(src, dst, proto, seg):
    ph = ip(src) + ip(dst) + struct.pack("!BBH", 0, proto, len(seg))
    return P.csum(ph + seg)


def with_csum(src, dst, proto, seg):
    """seg with its TCP / UDP / ICMP checksum filled in."""
    if proto == P.PROTO_TCP:
        c = l4_csum(src, dst, proto, seg[:16] + b"\0\0" + seg[18:])
        return seg[:16] + struct.pack("!H", c) + seg[18:]
    if proto == P.PROTO_UDP:
        c = l4_csum(src, dst, proto, seg[:6] + b"\0\0" + seg[8:]) or 0xFFFF
        return seg[:6] + struct.pack("!H", c) + seg[8:]
    c = P.csum(seg[:2] + b"\0\0" + seg[4:])
    return seg[:2] + struct.pack("!H", c) + seg[4:]


def frame(src, dst, proto, seg, csum=True):
    if csum:
        seg = with_csum(src, dst, proto, seg)
    return P.pad60(P.eth(P.ipv4(src, dst, proto, seg), P.ETH_IPV4))


def udp(src, sport, dst, dport, payload=b"data", csum=True):
    return frame(src, dst, P.PROTO_UDP, P.udp(sport, dport, payload), csum)


def tcp(src, sport, dst, dport, flags, conn=None, side=0):
    """A TCP frame; with conn (fxpkt.TcpConn) the segment of that side,
    numbered as its end would, else with made-up numbers."""
    seg = conn.seg(side, flags, b"x") if conn else P.tcp(sport, dport, flags, b"x")
    return frame(src, dst, P.PROTO_TCP, seg)


def echo(src, dst, ident, reply=False):
    return frame(src, dst, P.PROTO_ICMP, P.icmp_echo(ident, 1, reply))


def icmp_error(src, dst, quoted, typ=3, code=3):
    """An ICMP error from src to dst quoting the IPv4 packet `quoted`
    (header + 8 bytes of L4, as RFC 792)."""
    ihl = (quoted[0] & 15) * 4
    body = struct.pack("!BBHI", typ, code, 0, 0) + quoted[:ihl + 8]
    return frame(src, dst, P.PROTO_ICMP, body)


def ipv4_of(f):
    return f[14:14 + struct.unpack("!H", f[16:18])[0]]


class Pkt:
    """A frame out, decoded."""

    def __init__(self, f):
        self.f = f
        self.ip = ipv4_of(f)
        ihl = (self.ip[0] & 15) * 4
        self.ttl = self.ip[8]
        self.proto = self.ip[9]
        self.src = str(ipaddress.IPv4Address(self.ip[12:16]))
        self.dst = str(ipaddress.IPv4Address(self.ip[16:20]))
        self.l4 = self.ip[ihl:]
        self.sport, self.dport = struct.unpack("!HH", self.l4[:4])
        self.ident = struct.unpack("!H", self.l4[4:6])[0]

    def checksums_ok(self):
        if P.csum(self.ip[:(self.ip[0] & 15) * 4]) != 0:
            return "ipv4"
        if self.proto in (P.PROTO_TCP, P.PROTO_UDP):
            if self.proto == P.PROTO_UDP and self.l4[6:8] == b"\0\0":
                return None
            if l4_csum(self.src, self.dst, self.proto, self.l4) != 0:
                return "l4"
        if self.proto == P.PROTO_ICMP and P.csum(self.l4) != 0:
            return "icmp"
        return None

    def __repr__(self):
        return "%s:%d -> %s:%d proto %d" % (self.src, self.sport, self.dst,
                                            self.dport, self.proto)


def out_frames(paths):
    pk = []
    for p in paths:
        pk += [Pkt(f) for f in P.read_pcap(p)]
    return pk


def expect_frames(got, want, what):
    """want: [(src, sport, dst, dport)] (sport/dport None: any), in order."""
    ok = len(got) == len(want)
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if (g.src, g.dst) != (w[0], w[2]) or \
           (w[1] is not None and g.sport != w[1]) or \
           (w[3] is not None and g.dport != w[3]):
            bad.append((i, repr(g), w))
        if g.ttl != 63:
            bad.append((i, "ttl %d" % g.ttl))
        c = g.checksums_ok()
        if c:
            bad.append((i, "%s checksum of %r" % (c, g)))
    check(ok and not bad, "%s: %d frames out as expected (got %d; %s)"
          % (what, len(want), len(got), bad[:4]))


def run(binary, tmp, name, frames, extra=(), queues=None):
    """frames: [(time, frame)] on one rx queue, or queues: a list of such
    lists, one per rx queue and worker. Returns (stats, frames out)."""
    if queues is None:
        queues = [frames]
    vdev, tx = pcap_vdev(tmp, name, queues)
    n = len(queues)
    config = ",".join("(0,%d,%d)" % (q, q + 1) for q in range(n))
    st = E.Example(binary, "nat_" + name, E.EAL + ["--lcores", lcore_map(n), "--vdev", vdev],
                   ["-p", "1", "--config", config] + APP + list(extra), tmp).finish()
    return st, out_frames(tx)


def pcap_vdev(tmp, name, queues):
    """One net_pcap port with an rx and a tx capture per queue, each rx
    capture the queue's [(time, frame)] in time order: (the --vdev
    argument, the tx captures' paths)."""
    rx, tx = [], []
    for q, fr in enumerate(queues):
        path = os.path.join(tmp, "%s_in%d.pcap" % (name, q))
        w = P.PcapWriter(path)
        for t, f in sorted(fr, key=lambda x: x[0]):
            w.write(f, t)
        w.close()
        rx.append(path)
        tx.append(os.path.join(tmp, "%s_out%d.pcap" % (name, q)))
    return ("net_pcap0," + ",".join("rx_pcap=" + p for p in rx) + "," +
            ",".join("tx_pcap=" + p for p in tx)), tx


def lcore_map(n):
    """The main lcore and n workers on the machine's two CPUs (the main
    lcore, asleep but for telemetry and statistics, shares the first)."""
    if n == 1:
        return "0@0,1@1"
    return "0@0," + ",".join("%d@%d" % (w + 1, w % 2) for w in range(n))


def nat_totals(st):
    return st["totals"]


def lcores(st):
    return [v for k, v in st.items() if k.startswith("lcore_")]


def no_leak(st, what):
    for lc in lcores(st):
        check(lc["nat_active"] == 0 and lc["nat_held"] == 0 and
              lc["nat_ports_free"] == lc["nat_ports_share"] and lc["nat_ports_held"] == 0,
              "%s: every port back at exit (active %d, held %d, free %d of %d)"
              % (what, lc["nat_active"], lc["nat_held"], lc["nat_ports_free"],
                 lc["nat_ports_share"]))


# ---- scenarios ----

def test_udp(binary, tmp):
    A, B, R, R2 = "10.1.0.1", "10.1.0.2", "198.18.0.10", "198.18.0.11"
    U = TMO["udp"]
    fr = [
        (T0, udp(A, 5000, R, 53)),                     # mapping 1, port kept
        (T0 + 0.1, udp(R, 53, POOL, 5000)),            # reply: class udp
        (T0 + 0.2, udp(B, 5000, R, 53)),               # same remote endpoint: another port
        (T0 + 0.3, udp(B, 5000, R2, 53)),              # another remote: 5000 again
        (T0 + 0.4, udp(R, 53, POOL, 5001)),            # no such mapping
        (T0 + 20, udp(A, 5000, R, 53)),                # outbound-only refresh
        (T0 + 20 + U - 0.1, udp(R, 53, POOL, 5000)),   # just before: delivered
        # deadline now T0+20+U-0.1+U; just after it (one tick late allowed)
        (T0 + 20 + 2 * U - 0.1 + TICK + 0.05, udp(R, 53, POOL, 5000)),
        (T0 + 20 + 2 * U, udp(A, 5000, R, 53)),        # a new mapping, 5000 held
        (T0 + 20 + 2 * U + HOLD + 100, udp(A, 5000, R, 53)),  # hold-down over: 5000
    ]
    st, got = run(binary, tmp, "udp", fr, ["--timeout-udp", str(U)])
    if st is None:
        return
    want = [(POOL, 5000, R, 53), (R, 53, A, 5000), (POOL, None, R, 53),
            (POOL, 5000, R2, 53), (POOL, 5000, R, 53), (R, 53, A, 5000),
            (POOL, None, R, 53), (POOL, 5000, R, 53)]
    expect_frames(got, want, "udp")
    if len(got) == len(want):
        check(got[2].sport != 5000 and 1024 <= got[2].sport <= 65535,
              "a second host to the same remote endpoint gets another port (%d)" % got[2].sport)
        check(got[6].sport != 5000,
              "the held public tuple is not handed out again (%d)" % got[6].sport)
    t = nat_totals(st)
    check(t["nat_created"] == 5, "5 mappings made (got %d)" % t["nat_created"])
    check(t["nat_in_nomatch"] == 2, "2 replies without a live mapping dropped (got %d)"
          % t["nat_in_nomatch"])
    check(t["nat_out"] == 6 and t["nat_in"] == 2, "6 out, 2 in translated (got %d, %d)"
          % (t["nat_out"], t["nat_in"]))
    check(t["nat_expired"] == 5 and t["nat_expired_udp"] == 1 and t["nat_expired_oneway"] == 4,
          "every mapping expired: 1 udp, 4 one-way (got %d: %d, %d)"
          % (t["nat_expired"], t["nat_expired_udp"], t["nat_expired_oneway"]))
    check(t["nat_released"] == 5, "every public tuple released after its hold-down")
    no_leak(st, "udp")


def test_tcp(binary, tmp):
    A, B, C, R = "10.1.0.1", "10.1.0.3", "10.1.0.4", "198.18.0.20"
    S, SA, AK, F, RS = P.TCP_SYN, P.TCP_SYN | P.TCP_ACK, P.TCP_ACK, P.TCP_FIN | P.TCP_ACK, P.TCP_RST
    # the numbers each end would send (the NAT checks them, nat.h)
    a, c = P.TcpConn(40000, 80, isn=(1000, 900000)), P.TcpConn(40002, 80, isn=(5000, 700000))
    fr = [
        (T0, tcp(A, 40000, R, 80, S, a, 0)),
        (T0 + 0.01, tcp(R, 80, POOL, 40000, SA, a, 1)),
        (T0 + 0.02, tcp(A, 40000, R, 80, AK, a, 0)),
        (T0 + 0.03, tcp(B, 40001, R, 80, AK)),           # no SYN: dropped
        (T0 + 0.04, tcp(R, 443, POOL, 40001, S)),        # unsolicited inbound
        (T0 + 10, tcp(A, 40000, R, 80, F, a, 0)),        # FIN: close timeout
        (T0 + 10 + TMO["tcp-close"] - 0.1, tcp(R, 80, POOL, 40000, AK, a, 1)),   # delivered
        (T0 + 10 + 2 * TMO["tcp-close"] - 0.1 + TICK + 0.05,
         tcp(R, 80, POOL, 40000, AK, a, 1)),             # after: dropped
        (T0 + 100, tcp(C, 40002, R, 80, S, c, 0)),
        (T0 + 100.01, tcp(R, 80, POOL, 40002, SA, c, 1)),
        (T0 + 101, tcp(R, 80, POOL, 40002, RS, c, 1)),   # an exact RST: rst timeout
        (T0 + 101 + TMO["tcp-rst"] + TICK + 0.05, tcp(R, 80, POOL, 40002, AK, c, 1)),
    ]
    st, got = run(binary, tmp, "tcp", fr)
    if st is None:
        return
    want = [(POOL, 40000, R, 80), (R, 80, A, 40000), (POOL, 40000, R, 80),
            (POOL, 40000, R, 80), (R, 80, A, 40000),
            (POOL, 40002, R, 80), (R, 80, C, 40002), (R, 80, C, 40002)]
    expect_frames(got, want, "tcp")
    t = nat_totals(st)
    check(t["nat_created"] == 2 and t["nat_non_syn"] == 1,
          "only SYNs make mappings (created %d, non-SYN %d)" % (t["nat_created"], t["nat_non_syn"]))
    check(t["nat_in_nomatch"] == 3, "unsolicited and late inbound dropped (got %d)"
          % t["nat_in_nomatch"])
    check(t["nat_shortened"] == 2, "FIN and RST shortened the deadline (got %d)"
          % t["nat_shortened"])
    check(t["nat_expired_tcp_close"] == 1 and t["nat_expired_tcp_rst"] == 1,
          "expired as closing and as reset (got %d, %d)"
          % (t["nat_expired_tcp_close"], t["nat_expired_tcp_rst"]))
    no_leak(st, "tcp")


def test_icmp(binary, tmp):
    A, R, RT = "10.1.0.1", "198.18.0.30", "198.18.0.1"
    sent = ipv4_of(udp(A, 6000, "198.18.0.40", 7000))
    # what the NAT sends for it: the source translated (port 6000 kept)
    translated = ipv4_of(udp(POOL, 6000, "198.18.0.40", 7000))
    stray = ipv4_of(udp(POOL, 6001, "198.18.0.40", 7000))
    # a reply as the NAT delivered it to the inside host, and as it came
    delivered = ipv4_of(udp("198.18.0.40", 7000, A, 6000))
    replied = ipv4_of(udp("198.18.0.40", 7000, POOL, 6000))
    fr = [
        (T0, echo(A, R, 0x1234)),
        (T0 + 0.01, echo(R, POOL, 0x1234, reply=True)),
        (T0 + 0.02, udp(A, 6000, "198.18.0.40", 7000)),
        # the inside host's port unreachable about a reply it got: out
        (T0 + 0.025, icmp_error(A, "198.18.0.40", delivered)),
        (T0 + 0.03, icmp_error(RT, POOL, translated)),   # translated back
        (T0 + 0.04, icmp_error(RT, POOL, stray)),        # no mapping: dropped
        # an error just before the one-way deadline neither refreshes it...
        (T0 + 0.02 + TMO["oneway"] - 0.1, icmp_error(RT, POOL, translated)),
        # ...so a reply after it finds nothing
        (T0 + 0.02 + TMO["oneway"] + TICK + 0.05, udp("198.18.0.40", 7000, POOL, 6000)),
    ]
    st, got = run(binary, tmp, "icmp", fr)
    if st is None:
        return
    want = [(POOL, None, R, None), (R, None, A, None), (POOL, 6000, "198.18.0.40", 7000),
            (POOL, None, "198.18.0.40", None), (RT, None, A, None), (RT, None, A, None)]
    expect_frames(got, want, "icmp")
    if len(got) == len(want):
        check(got[0].ident == 0x1234 and got[1].ident == 0x1234,
              "echo identifier translated both ways (%#x, %#x)" % (got[0].ident, got[1].ident))
        q = got[4].l4[8:]
        check(q[:28] == sent[:28],
              "the quoted packet is the one the inside host sent, byte for byte")
        q = got[3].l4[8:]
        check(q[:28] == replied[:28],
              "an inside host's error quotes the reply as it came from outside")
    t = nat_totals(st)
    check(t["nat_icmp_errors"] == 3 and t["nat_in_nomatch"] == 2,
          "3 errors translated, 1 error and 1 late reply dropped (got %d, %d)"
          % (t["nat_icmp_errors"], t["nat_in_nomatch"]))
    check(t["nat_created"] == 2 and t["nat_expired_icmp"] == 1 and t["nat_expired_oneway"] == 1,
          "errors made no mapping; the echo expired as icmp, the unanswered UDP one-way "
          "(created %d, icmp %d, one-way %d)"
          % (t["nat_created"], t["nat_expired_icmp"], t["nat_expired_oneway"]))
    no_leak(st, "icmp")


def test_ports(binary, tmp):
    R, R2 = "198.18.0.10", "198.18.0.11"
    fr = [
        (T0, udp("10.1.0.1", 40000, R, 53)),
        (T0 + 0.01, udp("10.1.0.2", 40000, R, 53)),     # the only port is taken
        (T0 + 0.02, udp("10.1.0.2", 41000, R2, 53)),    # another remote: overlaps
    ]
    st, got = run(binary, tmp, "ports", fr, ["--nat-ports", "40000-40000"])
    if st is None:
        return
    expect_frames(got, [(POOL, 40000, R, 53), (POOL, 40000, R2, 53)], "ports")
    t = nat_totals(st)
    check(t["nat_no_port"] == 1 and t["nat_created"] == 2,
          "one packet found no port (no_port %d, created %d)" % (t["nat_no_port"], t["nat_created"]))
    no_leak(st, "ports")


def test_workers(binary, tmp):
    """Two workers; each connection's packets (outbound, reply, the inside
    host's ICMP error) on one queue, for half of the connections the queue
    of the worker that does not own it. The inside ports lie in the share
    of the worker that owns the connection (the handoff owner of its key,
    modelled by fxpkt.handoff_owner), so they are kept and the expected
    owner of each reply is known: a reply on the other worker's queue is
    handed to the owner of its public port, over the same ring as its
    outbound packet (handed over by its key) and after it. Which of two
    queues a worker reads first is wall-clock timing, so no connection has
    its outbound packet on one queue and its reply on the other."""
    R = "198.18.0.50"
    n = 64
    shares = [(1024, 33279), (33280, 65535)]
    q, conns = [[], []], []
    seed = 7
    for i in range(n):
        inside = "10.1.%d.%d" % (i // 200, 1 + i % 200)
        dport = 9000 + i
        while True:
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            sport = 1024 + seed % 64512
            key, _ = P.flow_key(4, P.PROTO_UDP, inside, R, sport, dport)
            owner = P.handoff_owner(key, 2)
            if shares[owner][0] <= sport <= shares[owner][1]:
                break
        qo = i % 2
        q[qo].append((T0 + i * 0.001, udp(inside, sport, R, dport)))
        q[qo].append((T0 + 1 + i * 0.001, udp(R, dport, POOL, sport)))
        if i % 4 == 0:
            # the inside host answers the reply with a port unreachable
            quoted = ipv4_of(udp(R, dport, inside, sport))
            q[qo].append((T0 + 2 + i * 0.001, icmp_error(inside, R, quoted)))
        conns.append((inside, sport, dport, qo, owner))
    queues = [sorted(q[w], key=lambda x: x[0]) for w in (0, 1)]
    st, got = run(binary, tmp, "workers", None, queues=queues)
    if st is None:
        return
    errors = [g for g in got if g.proto == P.PROTO_ICMP]
    got = [g for g in got if g.proto != P.PROTO_ICMP]
    n_err = len([c for c in range(n) if c % 4 == 0])
    check(len(errors) == n_err and all(g.src == POOL and g.dst == R for g in errors),
          "every inside host's ICMP error left from the pool address (%d of %d)"
          % (len(errors), n_err))
    outs = [g for g in got if g.src == POOL]
    ins = [g for g in got if g.dst.startswith("10.1.")]
    check(len(outs) == n and len(ins) == n, "%d out and %d in translated (got %d, %d)"
          % (n, n, len(outs), len(ins)))
    check({(g.sport, g.dport) for g in outs} == {(c[1], c[2]) for c in conns},
          "every inside port kept (it lies in its owner's share)")
    check({(g.dst, g.dport) for g in ins} == {(c[0], c[1]) for c in conns},
          "every reply reached its inside host and port")
    bad = [repr(g) for g in got if g.checksums_ok() or g.ttl != 63]
    check(not bad, "checksums and TTL of every frame %s" % bad[:3])
    t = nat_totals(st)
    # a reply is handed off when its queue's worker does not own its port
    expect_ho = sum(c[3] != c[4] for c in conns)
    check(t["nat_handoff"] == expect_ho and expect_ho > 0,
          "replies handed to their port's owner: %d (got %d)" % (expect_ho, t["nat_handoff"]))
    check(t["nat_in"] == n and t["nat_in_nomatch"] == 0, "no reply lost (in %d, no match %d)"
          % (t["nat_in"], t["nat_in_nomatch"]))
    check(t["nat_icmp_errors"] == n_err, "the errors reached their mapping's worker (%d of %d)"
          % (t["nat_icmp_errors"], n_err))
    made = [lc["nat_created"] for lc in lcores(st)]
    check(sorted(made) == sorted([sum(c[4] == w for c in conns) for w in (0, 1)]),
          "each mapping made by its connection's owner (%s)" % made)
    no_leak(st, "workers")


def test_flush(binary, tmp):
    """TSC clock and long timeouts: the mappings stay until flushed."""
    R = "198.18.0.60"
    a = [("10.1.1.%d" % i, 3000 + i) for i in range(1, 41)]
    b = [("10.1.2.%d" % i, 3000 + i) for i in range(1, 41)]
    inp, out = os.path.join(tmp, "flush_in.pcap"), os.path.join(tmp, "flush_out.pcap")
    E.write_pcap(inp, [udp(h, p, R, 53) for h, p in a + b])
    app = [x for x in APP if x not in ("--exit-when-drained",)]
    i = app.index("--clock")
    # the TSC: a timeout and a hold-down longer than any run, so that
    # nothing expires and nothing leaves hold-down before the test reads it
    app = app[:i] + app[i + 2:] + ["--timeout-oneway", "600", "--nat-holddown", "600"]
    ex = E.Example(binary, "nat_flush", E.EAL + ["--lcores", "0@0,1@1", "--vdev",
                   "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, out)],
                   ["-p", "1", "--config", "(0,0,1)"] + app, tmp)
    s = ex.wait_for(lambda s: s["totals"]["nat_active"] == len(a) + len(b),
                    "%d mappings live" % (len(a) + len(b)))
    if s is None:
        ex.finish(stop=True)
        return
    r = ex.tel("/l3fwd_flowexp/flush,10.1.1.0/24")
    check(r.get("status") == "ok" and r.get("flushed") == len(a),
          "flush 10.1.1.0/24: %d mappings asked to end (got %s)" % (len(a), r))
    ex.wait_for(lambda s: s["totals"]["nat_flushed"] == len(a) and
                s["totals"]["nat_active"] == len(b) and s["totals"]["nat_held"] == len(a),
                "the flushed mappings went into hold-down, the others live")
    r = ex.tel("/l3fwd_flowexp/flush,10.1.9.0/24")
    check(r.get("status") == "ok" and r.get("flushed") == 0, "a prefix with no host flushes nothing")
    st = ex.finish(stop=True)
    if st is not None:
        check(st["totals"]["nat_expired"] == 0, "nothing expired on its own")
        no_leak(st, "flush")


def test_cli(binary, tmp):
    cases = [
        ("pool not a prefix", ["--nat-pool", "203.0.113.1", "--nat-inside", "10.0.0.0/8"]),
        ("pool bad length", ["--nat-pool", "203.0.113.1/33", "--nat-inside", "10.0.0.0/8"]),
        ("pool IPv6", ["--nat-pool", "2001:db8::1/128", "--nat-inside", "10.0.0.0/8"]),
        ("pool too large", ["--nat-pool", "10.0.0.0/8", "--nat-inside", "192.168.0.0/16"]),
        ("pool without inside", ["--nat-pool", "203.0.113.1/32"]),
        ("inside without pool", ["--nat-inside", "10.0.0.0/8"]),
        ("ports without pool", ["--nat-ports", "1024-2047"]),
        ("inside overlaps pool", ["--nat-pool", "10.0.0.1/32", "--nat-inside", "10.0.0.0/8"]),
        ("ports reversed", ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8",
                            "--nat-ports", "2000-1000"]),
        ("ports zero", ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8",
                        "--nat-ports", "0-100"]),
        ("ports text", ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8",
                        "--nat-ports", "many"]),
        ("holddown negative", ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8",
                               "--nat-holddown", "-1"],
         "--nat-holddown: -1 is out of range 0..1000000 s"),
        ("clock unknown", ["--clock", "wall"], "--clock: 'wall' is not one of tsc, pcap"),
        ("clock pcap with rte_timer", ["--clock", "pcap", "--expiry", "rte_timer"]),
        ("nat with expiry none", ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8",
                                  "--expiry", "none"]),
        ("rss model without rss", ["--rss-model"],
         "--rss-model: stands in for the NIC's RSS under --affinity rss, which is not given"),
    ]
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])
    for i, case in enumerate(cases):
        name, args = case[0], case[1]
        cmd = [binary] + E.EAL + ["-l", "0-1",
                                  "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, os.path.join(tmp, "o.pcap")),
                                  "--", "-p", "1", "-T", "0", "--duration", "0.2"] + args
        rc, out, err = E.run_dpdk_split(cmd, "natcli%d" % i)
        line = E.cli_error(err)
        msg = [line] if line is not None and \
            any(w in line.lower() for w in ("nat", "clock", "rss")) and \
            (len(case) < 3 or case[2] in line) else []
        check(rc != 0 and msg, "%s: refused with one line on stderr and see --help (%s)"
              % (name, msg[:1] or err[-200:]))
    # the default hold-down is RFC 6888 REQ-8's 120 s
    cmd = [binary] + E.EAL + ["-l", "0-1",
                              "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, os.path.join(tmp, "o.pcap")),
                              "--", "-p", "1", "-T", "0", "--duration", "0.2", "--relax-rx-offload",
                              "--max-flows", "4096", "--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8"]
    rc, out = E.run_dpdk(cmd, "natcliok")
    check(rc == 0 and "hold-down 120 s" in out,
          "without --nat-holddown: hold-down 120 s (rc %d: %s)" % (rc, out.strip()[-300:]))
    pool_arp(binary, tmp, empty)


# a port that takes masquerade's inbound traffic without an address of its own
POOL_ARP_WARNING = ("l3fwd-flowexp: warning: port 0 takes masquerade's inbound traffic but has no "
                    "--port-addr: nothing answers ARP for the --nat-pool addresses there, and a "
                    "router that resolves them drops the replies to every mapping; add "
                    "--port-addr 0,ADDR/LEN (doc/nat.md, \"ARP for the pool\")")


def pool_arp(binary, tmp, empty):
    """The bare-metal recipe without --port-addr: --eth-dest gives the way
    out, but nothing answers ARP for the pool; start-up warns and names the
    port. With --port-addr (and the main lcore's tx queue it needs) it does
    not."""
    for name, extra, tx, want in [
            ("natarp", ["--eth-dest=0,02:00:00:00:00:09"], 1, True),
            ("natarpaddr", ["--eth-dest=0,02:00:00:00:00:09", "--port-addr", "0,192.0.2.1/24"],
             2, False)]:
        vdev = "net_pcap0,rx_pcap=%s" % empty + "".join(
            ",tx_pcap=%s" % os.path.join(tmp, "%s%d.pcap" % (name, k)) for k in range(tx))
        cmd = [binary] + E.EAL + ["-l", "0-1", "--vdev", vdev,
                                  "--", "-p", "1", "-T", "0", "--duration", "0.2",
                                  "--relax-rx-offload", "--max-flows", "4096",
                                  "--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8"] + extra
        rc, out, err = E.run_dpdk_split(cmd, name)
        lines = err.splitlines()
        check(rc == 0 and (POOL_ARP_WARNING in lines) == want and
              ("ARP for the pool" in err) == want,
              "masquerade on port 0 with --eth-dest and %s: %s (rc %d: %s)"
              % ("--port-addr" if not want else "no --port-addr",
                 "warned, the port named" if want else "no warning", rc, err.strip()[-400:]))


def main(argv):
    tests = {"udp": test_udp, "tcp": test_tcp, "icmp": test_icmp, "ports": test_ports,
             "workers": test_workers, "flush": test_flush, "cli": test_cli}
    return E.run_named(argv, tests, __doc__, "fxnat_")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
