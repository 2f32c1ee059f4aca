#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of RFC 4787 mapping and filtering behaviour and of
hairpinning (meson suite e2e), on e2e_edge.py's two-port set-up: port 0
inside, port 1 outside, one worker, --clock pcap, every inside frame
handled before every outside one.

  e2e_eim.py BINARY mapping    --nat-mapping eim: one inside endpoint keeps
                               one public endpoint towards two remotes,
                               which another inside endpoint's binding
                               keeps it from taking (--nat-ports 5000-5001,
                               the preserved port bound already); replies
                               from both remotes reach it
  e2e_eim.py BINARY apdf       eim with --nat-filtering apdf, adf, eif:
  e2e_eim.py BINARY adf        the same inbound frames (the remote endpoint
  e2e_eim.py BINARY eif        sent to, the same address from another port,
                               another address, a TCP SYN and a bare ACK
                               from others, a port with no binding): which
                               are let in, as sessions under the binding,
                               and which are refused and counted
  e2e_eim.py BINARY edm        the default mode with the same frames: only
                               the exact remote endpoint, nothing counted
                               as filtered
  e2e_eim.py BINARY hairpin    eim+eif: an inside host to another's public
                               endpoint and the answer back, both delivered
                               inside with the senders' public endpoints
  e2e_eim.py BINARY hairpin-edm  edm+apdf: the first packet to the other's
                               public endpoint is refused (its mapping was
                               made towards a remote), the other's answer
                               to the first's public endpoint, and from
                               then on both ways, delivered
  e2e_eim.py BINARY cli        bad --nat-mapping and --nat-filtering values,
                               adf or eif without eim, either without a pool

Frames out are compared byte for byte (e2e_edge.expect), counters exactly
(e2e_edge.counters: every drop cause not named must be 0), and every port
must be back at exit.
"""

import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import e2e_edge as G  # noqa: E402
import e2e_flowexp as E  # noqa: E402
import fxpkt as P  # noqa: E402

check = E.check
POOL, A, B = G.POOL, G.A, G.B
R, R2, R3 = G.R, G.R2, G.R3
udp, tcp, tcp_seg = G.udp, G.tcp, G.tcp_seg


def udp_sport(frame):
    """The UDP source port of a frame out (no VLAN tag, IHL 5)."""
    return struct.unpack("!H", frame[14 + 20:14 + 22])[0]


def test_mapping(binary, tmp):
    # B's binding takes 5000 first; A's inside port 5000 is taken then and
    # A's binding must be 5001 towards both remotes (under edm A would get
    # 5000 towards R, where B's tuple is another remote's, and a random
    # port towards R2)
    inside = [udp(B, 5000, R2, 53), udp(A, 5000, R, 53), udp(A, 5000, R2, 53)]
    outside = [udp(R, 53, POOL, 5001), udp(R2, 53, POOL, 5001), udp(R2, 53, POOL, 5000)]
    st, o0, o1, _ = G.run(binary, tmp, "eim_mapping", inside, outside,
                          extra=["--nat-mapping", "eim", "--nat-ports", "5000-5001"])
    if st is None:
        return
    ports = [udp_sport(f) for f in o1]
    check(ports == [5000, 5001, 5001],
          "mapping: B's binding 5000, A's 5001 towards both remotes (got %s)" % ports)
    G.expect(o1, [udp(POOL, 5000, R2, 53), udp(POOL, 5001, R, 53),
                  udp(POOL, 5001, R2, 53)], 1, "mapping outbound")
    G.expect(o0, [udp(R, 53, A, 5000), udp(R2, 53, A, 5000), udp(R2, 53, B, 5000)],
             0, "mapping inbound")
    G.counters(st, {"nat_created": 3, "nat_bib_created": 2, "nat_bib_active": 0,
                    "nat_out": 3, "nat_in": 3, "nat_in_nomatch": 0,
                    "nat_in_filtered": 0, "nat_no_port": 0}, "mapping")
    G.no_leak(st, "mapping")


# the filtering scenario: A's UDP binding towards R:53 and TCP binding
# towards R:80, then from outside
S, SA, AK = P.TCP_SYN, P.TCP_SYN | P.TCP_ACK, P.TCP_ACK
SYN0 = P.TcpConn(40000, 80).seg(0, S)
FILTER_IN = [udp(A, 5000, R, 53), tcp_seg(A, R, SYN0)]
FILTER_OUT = [udp(R, 53, POOL, 5000),        # the remote endpoint sent to
              udp(R, 777, POOL, 5000),       # its address, another port
              udp(R2, 999, POOL, 5000),      # another address
              tcp(R2, 4444, POOL, 40000, S),   # a SYN from another address
              tcp(R3, 4445, POOL, 40000, AK),  # a bare ACK from another
              udp(R3, 1, POOL, 5999)]        # no binding there
# delivered to A for each mode, and the counters
FILTER_WANT = {
    "apdf": ([0], {"nat_in_filtered": 4, "nat_in_nomatch": 1, "nat_in_sessions": 0}),
    "adf": ([0, 1], {"nat_in_filtered": 3, "nat_in_nomatch": 1, "nat_in_sessions": 1}),
    "eif": ([0, 1, 2, 3], {"nat_in_filtered": 0, "nat_in_nomatch": 1,
                           "nat_in_sessions": 3, "nat_non_syn": 1}),
    "edm": ([0], {"nat_in_filtered": 0, "nat_in_nomatch": 5, "nat_in_sessions": 0}),
}


def translated_in(i):
    """FILTER_OUT[i] as delivered to A."""
    return [udp(R, 53, A, 5000), udp(R, 777, A, 5000), udp(R2, 999, A, 5000),
            tcp(R2, 4444, A, 40000, S)][i]


def filtering(binary, tmp, mode):
    extra = [] if mode == "edm" else ["--nat-mapping", "eim", "--nat-filtering", mode]
    st, o0, o1, _ = G.run(binary, tmp, "eim_" + mode, FILTER_IN, FILTER_OUT, extra=extra)
    if st is None:
        return
    let_in, want = FILTER_WANT[mode]
    G.expect(o1, [udp(POOL, 5000, R, 53), tcp_seg(POOL, R, SYN0)], 1,
             "%s outbound" % mode)
    G.expect(o0, [translated_in(i) for i in let_in], 0, "%s: the frames let in" % mode)
    want = dict(want, nat_in=len(let_in), nat_out=2,
                nat_created=2 + want["nat_in_sessions"],
                nat_non_syn=want.get("nat_non_syn", 0),
                nat_bib_created=0 if mode == "edm" else 2)
    G.counters(st, want, mode)
    G.no_leak(st, mode)


def test_hairpin(binary, tmp):
    inside = [udp(B, 6000, R, 53),          # B's binding: POOL:6000
              udp(A, 5000, POOL, 6000),     # A to B's public endpoint
              udp(B, 6000, POOL, 5000)]     # B answers A's
    st, o0, o1, _ = G.run(binary, tmp, "eim_hairpin", inside, [],
                          extra=["--nat-mapping", "eim", "--nat-filtering", "eif"])
    if st is None:
        return
    G.expect(o1, [udp(POOL, 6000, R, 53)], 1, "hairpin outbound")
    G.expect(o0, [udp(POOL, 5000, B, 6000), udp(POOL, 6000, A, 5000)], 0,
             "hairpin: both ways delivered inside from the senders' public endpoints")
    G.counters(st, {"nat_hairpin": 2, "nat_created": 3, "nat_in_sessions": 1,
                    "nat_out": 3, "nat_in": 2, "nat_in_nomatch": 0,
                    "nat_in_filtered": 0}, "hairpin")
    G.no_leak(st, "hairpin")


def test_hairpin_edm(binary, tmp):
    inside = [udp(B, 6000, R, 53),          # B's mapping towards R
              udp(A, 5000, POOL, 6000),     # refused: not towards A's
              udp(B, 6000, POOL, 5000),     # to A's, which A made towards B's
              udp(A, 5000, POOL, 6000)]     # and now B's mapping is A's
    st, o0, o1, _ = G.run(binary, tmp, "eim_hairpin_edm", inside, [])
    if st is None:
        return
    G.expect(o1, [udp(POOL, 6000, R, 53)], 1, "hairpin-edm outbound")
    G.expect(o0, [udp(POOL, 6000, A, 5000), udp(POOL, 5000, B, 6000)], 0,
             "hairpin-edm: the answers delivered")
    G.counters(st, {"nat_hairpin": 3, "nat_created": 3, "nat_out": 4, "nat_in": 2,
                    "nat_in_nomatch": 1, "nat_in_filtered": 0}, "hairpin-edm")
    G.no_leak(st, "hairpin-edm")


def test_cli(binary, tmp):
    vdevs = ["--vdev", "net_null0", "--vdev", "net_null1"]
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/16", "--nat-outside", "1"]
    bad = [(nat + ["--nat-mapping", "eif"], "--nat-mapping 'eif'"),
           (nat + ["--nat-filtering", "any"], "--nat-filtering 'any'"),
           (nat + ["--nat-filtering", "eif"], "need --nat-mapping eim"),
           (nat + ["--nat-mapping", "edm", "--nat-filtering", "adf"], "need --nat-mapping eim"),
           (["--nat-mapping", "eim"], "need --nat-pool")]
    for i, (args, what) in enumerate(bad):
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + \
            ["--", "-p", "3", "-T", "0", "--duration", "0.2", "--relax-rx-offload"] + args
        rc, out = E.run_dpdk(cmd, "eimcli%d" % i)
        lines = [ln for ln in out.splitlines() if what in ln]
        check(rc != 0 and len(lines) == 1, "%s: refused in one line naming %r (rc %d: %s)"
              % (" ".join(args), what, rc, out.strip()[-200:]))
    for i, mode in enumerate(["apdf", "adf", "eif"]):
        args = ["-p", "3"] + nat + ["--nat-mapping", "eim", "--nat-filtering", mode]
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + \
            ["--", "-T", "0", "--duration", "0.2", "--relax-rx-offload",
             "--max-flows", "4096"] + args
        rc, out = E.run_dpdk(cmd, "eimcliok%d" % i)
        check(rc == 0, "%s: starts (rc %d: %s)" % (" ".join(args), rc, out.strip()[-200:]))


def main(argv):
    tests = {"mapping": test_mapping, "hairpin": test_hairpin,
             "hairpin-edm": test_hairpin_edm, "cli": test_cli}
    for mode in FILTER_WANT:
        tests[mode] = lambda b, t, m=mode: filtering(b, t, m)
    if len(argv) != 3 or argv[2] not in tests:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxeim_") as tmp:
        tests[argv[2]](argv[1], tmp)
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
