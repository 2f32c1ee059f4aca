#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of TCP state an off-path host cannot change, on
dpdk-l3fwd-flowexp (meson suite e2e). Every run replays a pcap through
net_pcap with --clock pcap: the timeouts are exact to a tick, and every
frame out and every counter is checked exactly.

  e2e_tcp.py BINARY blind       five established connections (flows); from
                                the server's side: a RST far outside the
                                window, an exact RST with a wrong checksum,
                                a FIN outside the window, a RST in the
                                window but not exact, an exact RST. Past
                                the RST and closing timeouts the first four
                                connections are alive (a client segment
                                refreshes each), the fifth expired after
                                the RST timeout
  e2e_tcp.py BINARY blind-nat   the same attacks from outside on NAT
                                mappings (an inbound segment past the
                                timeouts is translated, or not), and an
                                inbound SYN on a mapping an exact RST
                                closed: dropped, the mapping is not reopened
  e2e_tcp.py BINARY evict       --table-full evict, 64 flows: 8 real
                                handshakes, 4 half-open ones and 52 forged
                                pairs of bare ACKs (one each way) fill the
                                table; 56 new SYNs evict the half-open ones
                                and the forged pairs, never a handshake's
                                flow
  e2e_tcp.py BINARY midstream   TCP seen both ways without a SYN keeps the
                                one-way timeout
  e2e_tcp.py BINARY udp         UDP is answered only by a reply from the
                                remote endpoint with a right checksum: a
                                flow and a mapping whose only "reply" had a
                                wrong checksum expire at the one-way timeout

Exit status 0 when every check passed.
"""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402
import fxpkt as P  # noqa: E402
import gen_traffic as G  # noqa: E402

check = E.check
TICK = 0.001                  # --tick-us 1000
# flows: the timeouts these scenarios tell apart
TMO = {"oneway": 1.0, "tcp-syn": 1.5, "tcp": 100.0, "tcp-close": 3.0, "tcp-rst": 2.0,
       "udp": 50.0, "icmp": 50.0, "other": 50.0}
A, S, SA, F, R = P.TCP_ACK, P.TCP_SYN, P.TCP_SYN | P.TCP_ACK, P.TCP_FIN | P.TCP_ACK, P.TCP_RST
TCP_COUNTERS = ("tcp_out_of_window", "tcp_invalid", "tcp_rst_ignored", "tcp_syn_ignored")
FAR = 1 << 20                 # beyond any window here (8192, no scaling)


def bad_l4_cksum(frame):
    """frame (untagged IPv4) with its TCP or UDP checksum made wrong."""
    f = bytearray(frame)
    ihl = (f[14] & 15) * 4
    at = 14 + ihl + (16 if f[23] == P.PROTO_TCP else 6)
    f[at] ^= 0x5A
    return bytes(f)


class Conn:
    """A TCP connection between two IPv4 hosts through the example as a
    plain router: frames of each side, numbered as its end would."""

    def __init__(self, k, net=(31, 32)):
        self.cli, self.srv = G.addrs(4, k, net)
        self.cport = 20000 + k
        self.c = P.TcpConn(self.cport, 443, isn=(3000000000 + 977 * k, 12345 + 100003 * k))

    def frame(self, side, flags, payload=b"", **kw):
        l4 = self.c.seg(side, flags, payload, **kw)
        if side == 0:
            return G.packet(4, P.PROTO_TCP, self.cli, self.srv, self.cport, 443, l4=l4)
        return G.packet(4, P.PROTO_TCP, self.srv, self.cli, 443, self.cport, l4=l4)

    def handshake(self):
        return [self.frame(0, S), self.frame(1, SA), self.frame(0, A),
                self.frame(0, A, b"GET /"), self.frame(1, A, b"200 OK")]


def run_flows(binary, tmp, name, frames, extra=()):
    """frames: [(time, frame, forwarded?)] through the example as a router
    (one worker, --clock pcap): the final statistics, and whether the
    frames out are exactly the forwarded ones, rewritten (TTL, checksum)."""
    inp, out = os.path.join(tmp, name + ".pcap"), os.path.join(tmp, name + "_out.pcap")
    w = P.PcapWriter(inp)
    for t, f, _ in frames:
        w.write(f, t)
    w.close()
    ex = E.Example(binary, "tcp_" + name, E.EAL + ["-l", "0-1", "--vdev",
                   "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, out)],
                   ["-p", "1"] + E.PMD + ["--clock", "pcap", "--tick-us", "1000",
                                          "--max-flows", "1024", "--exit-when-drained",
                                          "--duration", "60"] +
                   [a for k, v in TMO.items() for a in ("--timeout-" + k, str(v))] + list(extra),
                   tmp)
    st = ex.finish()
    if st is None:
        return None
    want = [E.expect_forwarded(f) for _, f, fwd in frames if fwd]
    got = [g[12:] for g in P.read_pcap(out)]
    bad = [i for i, (a, b) in enumerate(zip(want, got)) if a != b]
    check(len(got) == len(want) and not bad,
          "%s: exactly the %d frames meant to pass went out, in order (got %d; first differing %s)"
          % (name, len(want), len(got), bad[:3]))
    return st


def counters(t, want, what):
    """t's counters named in want (the others of TCP_COUNTERS must be 0)."""
    full = {k: 0 for k in TCP_COUNTERS}
    full.update(want)
    got = {k: t.get(k) for k in full}
    check(got == full, "%s: counters %s (got %s)" % (what, full, got))


def test_blind(binary, tmp):
    conns = [Conn(k) for k in range(5)]
    fr = []
    for c in conns:
        fr += [(1.0, f, True) for f in c.handshake()]
    s_next = [c.c.nxt[1] for c in conns]
    t1 = 2.0
    fr += [
        # a RST far outside the window: dropped
        (t1, conns[0].frame(1, R, seq=s_next[0] + FAR), False),
        # exactly the next sequence number, but a wrong checksum: dropped
        (t1, bad_l4_cksum(conns[1].frame(1, R, seq=s_next[1])), False),
        # a FIN far outside the window: dropped
        (t1, conns[2].frame(1, F, seq=s_next[2] + FAR), False),
        # in the window, not exact: passed, no effect
        (t1, conns[3].frame(1, R, seq=s_next[3] + 100), True),
        # exact: closes
        (t1, conns[4].frame(1, R), True),
    ]
    # past the RST timeout and the closing one, measured from the attacks
    t2 = t1 + TMO["tcp-close"] + TICK + 0.05
    fr += [(t2, c.frame(0, A, b"still there?"), True) for c in conns]
    st = run_flows(binary, tmp, "blind", fr)
    if st is None:
        return
    t = st["totals"]
    check(st["malformed"].get("l4_cksum") == 1, "the RST with a wrong checksum dropped as l4_cksum "
          "(got %s)" % st["malformed"].get("l4_cksum"))
    counters(t, {"tcp_out_of_window": 2, "tcp_rst_ignored": 1}, "blind")
    # 5 x 4 segments after each SYN, the exact RST, 4 probes of live flows
    check(t["created"] == 6 and t["refreshed"] == 25,
          "past the RST and closing timeouts the 4 attacked connections are alive (their "
          "segment refreshed them) and the reset one is gone (its segment made a new, "
          "mid-stream flow): created 6 refreshed 25 (got %d, %d)" % (t["created"], t["refreshed"]))
    check(t["shortened"] == 1 and t["expired_tcp_rst"] == 1,
          "only the exact RST shortened a deadline (shortened %d, expired as reset %d)"
          % (t["shortened"], t["expired_tcp_rst"]))
    check(t["expired_tcp"] == 4 and t["expired_oneway"] == 1 and t["expired"] == 6 and
          t["expired_tcp_close"] == 0,
          "at the end: 4 established, the probe's mid-stream flow one-way, none closing "
          "(tcp %d, oneway %d, close %d, all %d)" % (t["expired_tcp"], t["expired_oneway"],
                                                     t["expired_tcp_close"], t["expired"]))
    check(st["port_0"]["dropped"] == 3, "3 frames dropped (got %d)" % st["port_0"]["dropped"])


def nat_conn(k, pub_tmo=None):
    """A NAT connection: inside host 10.1.2.k, remote 198.18.1.k:80."""
    a, r = "10.1.2.%d" % (k + 1), "198.18.1.%d" % (k + 1)
    return a, r, P.TcpConn(41000 + k, 80, isn=(4000000000 + 7 * k, 600000 + 11 * k))


def test_blind_nat(binary, tmp):
    T0 = N.T0
    conns = [nat_conn(k) for k in range(6)]
    fr, want = [], []
    for k, (a, r, c) in enumerate(conns):
        # each step at its own time: a burst's inbound lookups are made
        # before its outbound packets make mappings
        port, t = c.port[0], T0 + 0.01 * k
        fr += [(t, N.tcp(a, port, r, 80, S, c, 0)), (t + 0.001, N.tcp(r, 80, N.POOL, port, SA, c, 1)),
               (t + 0.002, N.tcp(a, port, r, 80, A, c, 0)),
               (t + 0.003, N.tcp(r, 80, N.POOL, port, A, c, 1))]
        want += [(N.POOL, port, r, 80), (r, 80, a, port), (N.POOL, port, r, 80), (r, 80, a, port)]

    def inbound(k, flags, **kw):
        a, r, c = conns[k]
        return N.frame(r, N.POOL, P.PROTO_TCP, c.seg(1, flags, b"x", **kw))

    nxt = [c.nxt[1] for _, _, c in conns]
    t1 = T0 + 1
    fr += [
        (t1, inbound(0, R, seq=nxt[0] + FAR)),                 # outside: dropped
        (t1, bad_l4_cksum(inbound(1, R, seq=nxt[1]))),         # wrong checksum: dropped
        (t1, inbound(2, F, seq=nxt[2] + FAR)),                 # outside: dropped
        (t1, inbound(3, R, seq=nxt[3] + 100)),                 # in, not exact: passed
        (t1, inbound(4, R, seq=nxt[4])),                       # exact: closes
        (t1, inbound(5, R, seq=nxt[5])),                       # exact: closes
        # the remote opens again on the closed mapping: dropped, not reopened
        (t1 + 0.5, inbound(5, S, seq=777777)),
    ]
    want += [(conns[3][1], 80, conns[3][0], conns[3][2].port[0]),
             (conns[4][1], 80, conns[4][0], conns[4][2].port[0]),
             (conns[5][1], 80, conns[5][0], conns[5][2].port[0])]
    # an inbound segment once the RST timeout passed since the SYN: the
    # closed mapping is gone (it was not reopened)
    fr.append((t1 + 0.5 + N.TMO["tcp-rst"] + TICK + 0.05, inbound(5, A)))
    # past the RST and closing timeouts since the attacks: alive or not
    t2 = t1 + N.TMO["tcp-close"] + TICK + 0.05
    for k in range(5):
        fr.append((t2, inbound(k, A)))
        if k < 4:
            a, r, c = conns[k]
            want.append((r, 80, a, c.port[0]))
    st, got = N.run(binary, tmp, "blind", fr)
    if st is None:
        return
    N.expect_frames(got, want, "blind-nat")
    t = st["totals"]
    check(st["malformed"].get("l4_cksum") == 1, "the RST with a wrong checksum dropped as l4_cksum "
          "(got %s)" % st["malformed"].get("l4_cksum"))
    nat = {k: t.get("nat_" + k) for k in TCP_COUNTERS}
    check(nat == {"tcp_out_of_window": 2, "tcp_invalid": 1, "tcp_rst_ignored": 1,
                  "tcp_syn_ignored": 0},
          "2 outside the window, the inbound SYN invalid, 1 inexact RST passed (got %s)" % nat)
    check(t["nat_in_nomatch"] == 2 and t["nat_in"] == 6 * 2 + 3 + 4,
          "the reset mappings' late segments found nothing, the 4 attacked mappings "
          "translated theirs (no match %d, in %d)" % (t["nat_in_nomatch"], t["nat_in"]))
    check(t["nat_shortened"] == 2 and t["nat_expired_tcp_rst"] == 2 and t["nat_expired_tcp"] == 4,
          "only the exact RSTs shortened (shortened %d); 2 expired as reset, 4 established "
          "at the end (got %d, %d)" % (t["nat_shortened"], t["nat_expired_tcp_rst"],
                                       t["nat_expired_tcp"]))
    check(t["nat_created"] == 6, "no mapping made again (created %d)" % t["nat_created"])
    N.no_leak(st, "blind-nat")


def test_evict(binary, tmp):
    real = [Conn(k, net=(41, 42)) for k in range(8)]
    half = [Conn(k, net=(43, 44)) for k in range(4)]
    forged = [Conn(k, net=(45, 46)) for k in range(52)]
    syns = [Conn(k, net=(47, 48)) for k in range(56)]
    fr = []
    for c in real:
        fr += [(1.0, c.frame(0, S), True), (1.0, c.frame(1, SA), True), (1.0, c.frame(0, A), True)]
    for c in half:
        fr += [(1.0, c.frame(0, S), True), (1.0, c.frame(1, SA), True)]
    for c in forged:
        # made-up numbers that agree with each other, as a forger's would
        fr += [(1.0, c.frame(0, A, b"x"), True), (1.0, c.frame(1, A, b"y"), True)]
    fr += [(1.0, c.frame(0, S), True) for c in syns]
    # then a segment of each real connection: it must still be there
    fr += [(1.0, c.frame(0, A, b"z"), True) for c in real]
    st = run_flows(binary, tmp, "evict", fr, ["--max-flows", "64", "--table-full", "evict"])
    if st is None:
        return
    t = st["totals"]
    check(t["evicted"] == 56 and t["evict_miss"] == 0 and t["table_full"] == 0,
          "the 56 SYNs evicted the 4 half-open flows and the 52 forged pairs: evicted 56, "
          "no miss, never full (got %d, %d, %d)" % (t["evicted"], t["evict_miss"], t["table_full"]))
    check(t["created"] == 120 and t["refreshed"] == 8 * 2 + 4 + 52 + 8,
          "every real connection's segment after the SYNs refreshed its flow (created 120, "
          "refreshed %d: got %d, %d)" % (8 * 2 + 4 + 52 + 8, t["created"], t["refreshed"]))
    check(t["expired_tcp"] == 8 and t["expired_tcp_syn"] == 56 and t["expired"] == 64,
          "left at the end: the 8 established and the 56 SYNs (tcp %d, syn %d, all %d)"
          % (t["expired_tcp"], t["expired_tcp_syn"], t["expired"]))
    counters(t, {}, "evict")


def test_midstream(binary, tmp):
    c = Conn(1, net=(51, 52))
    fr = [(1.0, c.frame(0, A, b"a"), True), (1.0, c.frame(1, A, b"b"), True),
          (1.0, c.frame(0, A, b"c"), True), (1.0, c.frame(1, A, b"d"), True),
          # after the one-way timeout: the flow expired as one-way
          (1.0 + TMO["oneway"] + TICK + 0.05, c.frame(0, A, b"e"), True)]
    st = run_flows(binary, tmp, "midstream", fr)
    if st is None:
        return
    t = st["totals"]
    check(t["created"] == 2 and t["refreshed"] == 3 and t["expired_oneway"] == 2 and
          t["expired"] == 2,
          "picked up mid-stream, both ways: one-way, expired after its timeout, and the next "
          "segment made a new flow (created 2, refreshed 3, expired one-way 2: got %d, %d, %d)"
          % (t["created"], t["refreshed"], t["expired_oneway"]))
    counters(t, {}, "midstream")


def test_udp(binary, tmp):
    cli, srv = "10.61.0.1", "10.62.0.1"

    def u(src, dst, sport, dport):
        return G.packet(4, P.PROTO_UDP, src, dst, sport, dport)
    late = 1.0 + TMO["oneway"] + TICK + 0.05
    fr = [
        (1.0, u(cli, srv, 7000, 53), True),
        (1.0, u(cli, srv, 7000, 53), True),              # the same side again
        (1.0, bad_l4_cksum(u(srv, cli, 53, 7000)), False),   # a "reply" with a wrong checksum
        (1.0, u(cli, srv, 7001, 53), True),
        (1.0, u(srv, cli, 53, 7001), True),              # a reply
        (late, u(cli, srv, 7000, 53), True),             # expired: a new flow
        (late, u(cli, srv, 7001, 53), True),             # answered: refreshed
    ]
    st = run_flows(binary, tmp, "udp", fr)
    if st is not None:
        t = st["totals"]
        check(st["malformed"].get("l4_cksum") == 1 and t["created"] == 3 and t["refreshed"] == 3,
              "flows: the unanswered one expired at the one-way timeout, the answered one "
              "lives (l4_cksum 1, created 3, refreshed 3: got %s, %d, %d)"
              % (st["malformed"].get("l4_cksum"), t["created"], t["refreshed"]))
        check(t["expired_udp"] == 1 and t["expired_oneway"] == 2,
              "expired: udp 1, one-way 2 (got %d, %d)" % (t["expired_udp"], t["expired_oneway"]))
    # the same through the NAT
    T0, a, b, r = N.T0, "10.1.3.1", "10.1.3.2", "198.18.3.1"
    late = T0 + N.TMO["oneway"] + TICK + 0.05
    fr = [
        (T0, N.udp(a, 7000, r, 53)),
        (T0 + 0.01, bad_l4_cksum(N.udp(r, 53, N.POOL, 7000))),   # dropped: not a reply
        (T0 + 0.02, N.udp(b, 7001, r, 53)),
        (T0 + 0.03, N.udp(r, 53, N.POOL, 7001)),                 # a reply
        (late, N.udp(r, 53, N.POOL, 7000)),               # expired: no match
        (late, N.udp(r, 53, N.POOL, 7001)),               # answered: translated
    ]
    st, got = N.run(binary, tmp, "udp_answered", fr)
    if st is None:
        return
    N.expect_frames(got, [(N.POOL, 7000, r, 53), (N.POOL, 7001, r, 53), (r, 53, b, 7001),
                          (r, 53, b, 7001)], "udp nat")
    t = st["totals"]
    check(st["malformed"].get("l4_cksum") == 1 and t["nat_in_nomatch"] == 1 and
          t["nat_expired_oneway"] == 1 and t["nat_expired_udp"] == 1,
          "NAT: the mapping whose only reply had a wrong checksum expired one-way, the "
          "answered one as udp (l4_cksum %s, no match %d, one-way %d, udp %d)"
          % (st["malformed"].get("l4_cksum"), t["nat_in_nomatch"], t["nat_expired_oneway"],
             t["nat_expired_udp"]))
    N.no_leak(st, "udp nat")


TESTS = {"blind": test_blind, "blind-nat": test_blind_nat, "evict": test_evict,
         "midstream": test_midstream, "udp": test_udp}


def main(argv):
    if len(argv) != 3 or argv[2] not in TESTS:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxtcp_") as tmp:
        TESTS[argv[2]](argv[1], tmp)
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
