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
  e2e_eim.py BINARY workers    two workers (e2e_nat.py's one-port set-up,
                               one rx queue each), eim: one inside UDP
                               endpoint and one ICMP echo identifier to 8
                               remotes each, whose flows the flow owner
                               function would spread over both workers,
                               each session's packets on alternate queues:
                               every session on the endpoint's owner, one
                               binding and one public port each, every
                               reply delivered, counters per worker exact
  e2e_eim.py BINARY hairpin-workers  two workers, eim+eif: inside hosts to
                               the public endpoints of bindings on the
                               other worker, both ways, delivered
  e2e_eim.py BINARY cli        bad --nat-mapping and --nat-filtering values,
                               adf or eif without eim, either without a pool

Frames out are compared byte for byte (e2e_edge.expect), counters exactly
(e2e_edge.counters: every drop cause not named must be 0), and every port
must be back at exit.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_edge as G  # noqa: E402
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402
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
    # 5000 towards R, where B's tuple is another remote's, and 5001
    # towards R2). A share of two ports is tried whole (nat_ports.h), not
    # drawn at random: 5001 is found every time
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


# two workers: the port shares of e2e_nat.py's default range
SHARES = [(1024, 33279), (33280, 65535)]


def owned_port(addr, proto, want, start):
    """The first port (identifier) from start whose eim owner is worker
    `want` and that lies in its share (so it is preserved)."""
    port = start
    while not (SHARES[want][0] <= port <= SHARES[want][1] and
               P.eim_owner(addr, port, proto, 2) == want):
        port += 1
    return port


def counts(st, key):
    return [st["lcore_%d" % (w + 1)][key] for w in (0, 1)]


def test_workers(binary, tmp):
    """Which worker owns an endpoint is the keyed hash of the endpoint
    (fxpkt.eim_owner); the flows of each of its sessions (fxpkt's
    handoff_owner) span both workers, so without the endpoint's owner
    function they would make two bindings with two public ports. A
    session's outbound packet and its reply are on one queue (which of
    two queues a worker reads first is wall-clock timing): on the
    owner's queue or handed to the owner, the reply after it on the same
    ring."""
    A = "10.1.0.1"
    n = 8
    remotes = ["198.18.0.%d" % (10 + i) for i in range(n)]
    sport = owned_port(A, P.PROTO_UDP, 1, 40000)
    ident = owned_port(A, P.PROTO_ICMP, 0, 7000)
    owner = {P.PROTO_UDP: 1, P.PROTO_ICMP: 0}
    flow_owners = {P.PROTO_UDP: set(), P.PROTO_ICMP: set()}
    q = [[], []]
    for i, rem in enumerate(remotes):
        flow_owners[P.PROTO_UDP].add(P.handoff_owner(
            P.flow_key(4, P.PROTO_UDP, A, rem, sport, 53)[0], 2))
        flow_owners[P.PROTO_ICMP].add(P.handoff_owner(
            P.flow_key(4, P.PROTO_ICMP, A, rem, ident, ident)[0], 2))
        q[i % 2] += [(N.T0 + i * 0.001, N.udp(A, sport, rem, 53)),
                     (N.T0 + 0.0005 + i * 0.001, N.echo(A, rem, ident)),
                     (N.T0 + 1 + i * 0.001, N.udp(rem, 53, N.POOL, sport)),
                     (N.T0 + 1.0005 + i * 0.001, N.echo(rem, N.POOL, ident, reply=True))]
    check(flow_owners == {P.PROTO_UDP: {0, 1}, P.PROTO_ICMP: {0, 1}},
          "workers: the sessions' flows span both workers (%s)" % flow_owners)
    st, got = N.run(binary, tmp, "eim_workers", None, queues=q,
                    extra=["--nat-mapping", "eim"])
    if st is None:
        return
    outs = [g for g in got if g.src == N.POOL]
    ins = [g for g in got if g.dst == A]
    check(sorted((g.proto, g.dst) for g in outs) ==
          sorted((p, r) for p in (P.PROTO_ICMP, P.PROTO_UDP) for r in remotes),
          "workers: every session out (got %s)" % outs)
    check({g.sport for g in outs if g.proto == P.PROTO_UDP} == {sport} and
          {g.ident for g in outs if g.proto == P.PROTO_ICMP} == {ident},
          "workers: one public port %d and one identifier %d for all remotes (got %s, %s)"
          % (sport, ident, sorted({g.sport for g in outs if g.proto == P.PROTO_UDP}),
             sorted({g.ident for g in outs if g.proto == P.PROTO_ICMP})))
    check(sorted((g.proto, g.src, g.dport if g.proto == P.PROTO_UDP else g.ident)
                 for g in ins) ==
          sorted([(P.PROTO_UDP, r, sport) for r in remotes] +
                 [(P.PROTO_ICMP, r, ident) for r in remotes]),
          "workers: every reply delivered to the inside endpoint (got %s)" % ins)
    bad = [repr(g) for g in got if g.checksums_ok() or g.ttl != 63]
    check(not bad, "workers: checksums and TTL of every frame %s" % bad[:3])
    made = [0, 0]
    for p in owner.values():
        made[p] += n
    check(counts(st, "nat_created") == made and counts(st, "nat_bib_created") == [1, 1],
          "workers: each endpoint's sessions and binding on its owner (created %s, "
          "bindings %s)" % (counts(st, "nat_created"), counts(st, "nat_bib_created")))
    # a packet on the queue of the worker that does not own its endpoint
    # is handed off, outbound by its endpoint, the reply by its port
    off = 2 * sum(1 for i in range(n) for p in owner.values() if i % 2 != p)
    t = N.nat_totals(st)
    want = {"nat_out": 2 * n, "nat_in": 2 * n, "nat_in_nomatch": 0, "nat_no_port": 0,
            "nat_handoff": off, "nat_bib_created": 2, "nat_bib_active": 0,
            "nat_created": 2 * n, "nat_in_filtered": 0}
    check({k: t[k] for k in want} == want,
          "workers: counters %s (got %s)" % (want, {k: t[k] for k in want}))
    N.no_leak(st, "workers")


def test_hairpin_workers(binary, tmp):
    """A's binding on worker 0, B's two on worker 1, all frames on worker
    0's queue: A to B's public endpoint (the inbound half handed to worker
    1), B from another port to A's (its outbound half handed to worker 1,
    the inbound half back to worker 0). The bindings the inbound halves
    meet were made by packets ahead of them on the same ring or on the
    same worker."""
    A, B = "10.1.0.1", "10.1.0.2"
    R = "198.18.0.10"
    pa = owned_port(A, P.PROTO_UDP, 0, 5000)
    # A's flow to B's public endpoint is not owned by A's owner: without
    # the endpoint's owner function it would make a second binding
    pb = 40000
    while True:
        pb = owned_port(B, P.PROTO_UDP, 1, pb + 1)
        if P.handoff_owner(P.flow_key(4, P.PROTO_UDP, A, N.POOL, pa, pb)[0], 2) == 1:
            break
    pb2 = owned_port(B, P.PROTO_UDP, 1, pb + 1)
    q0 = [(N.T0, N.udp(B, pb, R, 53)),              # B's binding, worker 1
          (N.T0 + 0.001, N.udp(A, pa, R, 53)),      # A's, worker 0
          (N.T0 + 0.002, N.udp(A, pa, N.POOL, pb)),   # A to B's public endpoint
          (N.T0 + 0.003, N.udp(B, pb2, N.POOL, pa))]  # B's other port to A's
    st, got = N.run(binary, tmp, "eim_hairpin_workers", None, queues=[q0, []],
                    extra=["--nat-mapping", "eim", "--nat-filtering", "eif"])
    if st is None:
        return
    # worker 0's tx queue first, then worker 1's
    want = [(N.POOL, pa, R, 53), (N.POOL, pb2, A, pa),
            (N.POOL, pb, R, 53), (N.POOL, pa, B, pb)]
    N.expect_frames(got, want, "hairpin-workers")
    t = N.nat_totals(st)
    want = {"nat_hairpin": 2, "nat_out": 4, "nat_in": 2, "nat_created": 6,
            "nat_in_sessions": 2, "nat_bib_created": 3, "nat_handoff": 4,
            "nat_in_nomatch": 0, "nat_in_filtered": 0, "nat_no_port": 0}
    check({k: t[k] for k in want} == want,
          "hairpin-workers: counters %s (got %s)" % (want, {k: t[k] for k in want}))
    check(counts(st, "nat_bib_created") == [1, 2],
          "hairpin-workers: A's binding on worker 0, B's two on worker 1 (got %s)"
          % counts(st, "nat_bib_created"))
    N.no_leak(st, "hairpin-workers")


def test_cli(binary, tmp):
    vdevs = ["--vdev", "net_null0", "--vdev", "net_null1"]
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/16", "--nat-outside", "1"]
    bad = [(nat + ["--nat-mapping", "eif"], "--nat-mapping: 'eif' is not one of edm, eim"),
           (nat + ["--nat-filtering", "any"], "--nat-filtering: 'any' is not one of apdf, adf, eif"),
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
             "hairpin-edm": test_hairpin_edm, "cli": test_cli,
             "workers": test_workers, "hairpin-workers": test_hairpin_workers}
    for mode in FILTER_WANT:
        tests[mode] = lambda b, t, m=mode: filtering(b, t, m)
    return E.run_named(argv, tests, __doc__, "fxeim_")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
