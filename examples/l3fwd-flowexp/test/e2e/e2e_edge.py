#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of l3fwd-flowexp at the edge (meson suite e2e):
interface roles and anti-spoofing, per-host quotas, the ICMP errors NAT
translates, tagged frames.

Every NAT run has two net_pcap ports on one worker, port 0 inside and
port 1 outside (--nat-outside 1), routes 10.1.0.0/16 and 192.0.2.0/24 to
port 0 and 198.18.0.0/15 to port 1, and --clock pcap. The worker polls
port 0 before port 1 and each capture holds at most a burst (32 frames),
so every inside frame is handled before every outside frame: the outside
captures' times follow the inside ones'.

  e2e_edge.py BINARY masq         the two-port masquerade: outbound leaves
                                  by port 1 translated, replies by port 0
                                  translated back, inside-to-inside and
                                  inside-routed traffic untranslated
  e2e_edge.py BINARY spoof        on the outside port an inside or a pool
                                  source is dropped; the counts in
                                  telemetry, the stats file and the summary
  e2e_edge.py BINARY unsolicited  outside to inside hosts (TCP 22, UDP 161)
                                  and transit dropped, no flow made
  e2e_edge.py BINARY impersonate  from inside: a pool source, a source
                                  outside --nat-inside (BCP 38), an echo to
                                  the pool (not hairpinned) dropped
  e2e_edge.py BINARY quota        one host at --nat-max-per-host and at
                                  --nat-max-per-dest while another host gets
                                  mappings; the mappings made keep working
  e2e_edge.py BINARY quota-held   held mappings count until released
  e2e_edge.py BINARY icmp         redirect, source quench, an error quoting
                                  an error, truncated and fragment quotes,
                                  echo quotes of the wrong direction
                                  dropped; good errors translated back
  e2e_edge.py BINARY vlan         tagged frames (one tag, two tags) refused
                                  by NAT both ways; tagged inside traffic
                                  forwarded as flows
  e2e_edge.py BINARY flows        --max-flows-per-host in the flow tracker
                                  (IPv4 hosts, an IPv6 /64; a connection
                                  reopened by the other end)
  e2e_edge.py BINARY cli          bad --nat-outside and quota values; an
                                  outside port without --port-addr warned
                                  about

Each frame out is compared byte for byte from the EtherType on with the
frame the translation must produce (addresses, ports, TTL, every
checksum), its destination MAC with its output port's, and every counter
exactly.
"""

import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402
import fxpkt as P  # noqa: E402

check = E.check
POOL = "203.0.113.1"
A, B = "10.1.0.1", "10.1.0.2"
R, R2, R3, RT = "198.18.0.10", "198.18.0.11", "198.18.0.12", "198.18.0.1"
T0 = 1000.0
TI = T0 + 1.0     # the outside capture starts after the inside one
HOLD = 4.0
TMO = {"oneway": 5, "tcp-syn": 8, "tcp": 100, "tcp-close": 20, "tcp-rst": 3,
       "udp": 30, "icmp": 10, "other": 30}
ROUTES = ["--route", "10.1.0.0/16,0", "--route", "192.0.2.0/24,0",
          "--route", "198.18.0.0/15,1"]
APP = ["--parse-ptype", "--relax-rx-offload", "-T", "0", "--tick-us", "1000",
       "--max-flows", "4096", "--duration", "60"] + ROUTES + \
    [a for k, v in TMO.items() for a in ("--timeout-" + k, str(v))]
NAT = ["--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/16",
       "--nat-holddown", str(HOLD), "--nat-outside", "1"]


def ip_pkt(src, dst, proto, seg, frag=0):
    return P.ipv4(src, dst, proto, N.with_csum(src, dst, proto, seg), frag=frag)


def frame(ip, tags=()):
    return P.tagged(P.pad60(P.eth(ip, P.ETH_IPV4)), list(tags))


def udp(src, sport, dst, dport, tags=()):
    return frame(ip_pkt(src, dst, P.PROTO_UDP, P.udp(sport, dport, b"data")), tags)


def tcp(src, sport, dst, dport, flags):
    return frame(ip_pkt(src, dst, P.PROTO_TCP, P.tcp(sport, dport, flags, b"x")))


def tcp_seg(src, dst, seg):
    """A frame of a TCP segment made by fxpkt.TcpConn (its checksum filled
    in for these addresses), so that the connection tracker sees the
    sequence numbers the connection's ends would send."""
    return frame(ip_pkt(src, dst, P.PROTO_TCP, seg))


def echo(src, dst, ident, reply=False):
    return frame(ip_pkt(src, dst, P.PROTO_ICMP, P.icmp_echo(ident, 1, reply)))


def icmp_error(src, dst, quoted, typ=3, code=3, quote_len=None, rest=0):
    """An ICMP error from src to dst quoting the IPv4 packet `quoted`
    (header + 8 bytes of L4 unless quote_len says otherwise)."""
    ihl = (quoted[0] & 15) * 4
    n = ihl + 8 if quote_len is None else quote_len
    body = struct.pack("!BBHI", typ, code, 0, rest) + quoted[:n]
    return frame(ip_pkt(src, dst, P.PROTO_ICMP, body))


def out_mac(port):
    return bytes.fromhex("02000000000%d" % port)


def run(binary, tmp, name, inside, outside, extra=(), nat=True, stop=None):
    """inside, outside: frames for port 0 and port 1, each at most a burst,
    at T0 + 1 ms each and TI + 1 ms each unless given as (time, frame).
    Returns (stats, frames out of port 0, frames out of port 1, Example)."""
    def timed(frames, t):
        return [f if isinstance(f, tuple) else (t + i * 0.001, f)
                for i, f in enumerate(frames)]
    assert len(inside) <= 32 and len(outside) <= 32
    paths = []
    for p, fr in ((0, timed(inside, T0)), (1, timed(outside, TI))):
        rx = os.path.join(tmp, "%s_in%d.pcap" % (name, p))
        w = P.PcapWriter(rx)
        for t, f in fr:
            w.write(f, t)
        w.close()
        paths.append((rx, os.path.join(tmp, "%s_out%d.pcap" % (name, p))))
    eal = E.EAL + ["--lcores", "0@0,1@1"]
    for p, (rx, tx) in enumerate(paths):
        eal += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (p, rx, tx)]
    app = ["-p", "3", "--config", "(0,0,1),(1,0,1)"] + APP + (NAT if nat else []) + \
        list(extra)
    if stop is None:
        app += ["--clock", "pcap", "--exit-when-drained"]
    ex = E.Example(binary, "edge_" + name, eal, app, tmp)
    if stop is not None:
        if stop(ex) is None:
            ex.finish(stop=True)
            return None, [], [], ex
    st = ex.finish(stop=stop is not None)
    if st is None:
        return None, [], [], ex
    return st, P.read_pcap(paths[0][1]), P.read_pcap(paths[1][1]), ex


def expect(got, want, port, what):
    """got: the frames out of port; want: the frames as they came in, with
    the translation applied (the example adds the MACs and the TTL)."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g[:6] != out_mac(port):
            bad.append((i, "dst mac %s" % g[:6].hex()))
        if g[12:] != E.expect_forwarded(w):
            bad.append((i, "frame differs: got %s want %s" % (g[12:60].hex(),
                                                             E.expect_forwarded(w)[:48].hex())))
    check(len(got) == len(want) and not bad,
          "%s: port %d sent the %d frames expected (got %d; %s)"
          % (what, port, len(want), len(got), bad[:3]))


def counters(st, want, what):
    """want: {counter: value} of the totals; every NAT drop cause not named
    must be 0."""
    t = st["totals"]
    full = {k: 0 for k in t if k.startswith("nat_drop_")}
    full.update(want)
    bad = {k: (t.get(k), v) for k, v in full.items() if t.get(k) != v}
    check(not bad, "%s: counters %s (wrong: %s)" % (what, sorted(want.items()), bad))


def no_leak(st, what):
    for k, lc in st.items():
        if not k.startswith("lcore_") or "nat_active" not in lc:
            continue
        check(lc["nat_active"] == 0 and lc["nat_held"] == 0 and
              lc["nat_ports_free"] == lc["nat_ports_share"],
              "%s: every port back at exit (active %d, held %d, free %d of %d)"
              % (what, lc["nat_active"], lc["nat_held"], lc["nat_ports_free"],
                 lc["nat_ports_share"]))


# ---- scenarios ----

def test_masq(binary, tmp):
    S, SA = P.TCP_SYN, P.TCP_SYN | P.TCP_ACK
    c = P.TcpConn(40000, 80)
    syn, synack = c.seg(0, S), c.seg(1, SA)
    inside = [udp(A, 5000, R, 53), tcp_seg(A, R, syn), echo(A, R, 0x1234),
              udp(A, 5001, B, 53),            # inside to inside: not translated
              udp(A, 5002, "192.0.2.5", 53)]  # routed inside: not translated
    outside = [udp(R, 53, POOL, 5000), tcp_seg(R, POOL, synack),
               echo(R, POOL, 0x1234, reply=True)]
    st, o0, o1, _ = run(binary, tmp, "masq", inside, outside)
    if st is None:
        return
    expect(o1, [udp(POOL, 5000, R, 53), tcp_seg(POOL, R, syn), echo(POOL, R, 0x1234)],
           1, "masq outbound")
    expect(o0, [udp(A, 5001, B, 53), udp(A, 5002, "192.0.2.5", 53),
                udp(R, 53, A, 5000), tcp_seg(R, A, synack), echo(R, A, 0x1234, reply=True)],
           0, "masq inbound and inside")
    counters(st, {"nat_created": 3, "nat_out": 3, "nat_in": 3, "nat_in_nomatch": 0,
                  "created": 2, "host_limit": 0}, "masq")
    no_leak(st, "masq")


def test_spoof(binary, tmp):
    """The TSC clock, so that the running example's telemetry can be read."""
    outside = [udp(A, 5000, R, 53),         # an inside source arriving outside
               udp("10.1.3.4", 1, R, 7),
               udp(POOL, 5000, R, 53)]      # a pool source arriving outside
    want = {"nat_drop_spoof_inside": 2, "nat_drop_spoof_pool": 1}

    def live(ex):
        s = ex.wait_for(lambda s: s["totals"]["nat_drop_spoof_pool"] == 1 and
                        s["totals"]["nat_drop_spoof_inside"] == 2,
                        "spoof: telemetry /l3fwd_flowexp/stats counts the drops")
        if s is not None:
            n = ex.tel("/l3fwd_flowexp/nat")["totals"]
            check(all(n[k] == v for k, v in want.items()) and n["nat_created"] == 0,
                  "spoof: telemetry /l3fwd_flowexp/nat counts them (%s)"
                  % {k: n[k] for k in want})
        return s
    st, o0, o1, ex = run(binary, tmp, "spoof", [], outside, stop=live)
    if st is None:
        return
    check(o0 == [] and o1 == [], "spoof: nothing sent (%d, %d)" % (len(o0), len(o1)))
    counters(st, dict(want, nat_created=0, nat_out=0, created=0), "spoof stats file")
    check(st["port_1"]["dropped"] == 3, "spoof: 3 dropped on port 1 (got %d)"
          % st["port_1"]["dropped"])
    with open(ex.log) as f:
        log = f.read()
    check("masquerade drops: spoof_inside 2, spoof_pool 1" in log,
          "spoof: the exit summary names the causes")
    no_leak(st, "spoof")


def test_unsolicited(binary, tmp):
    outside = [tcp(R, 40000, A, 22, P.TCP_SYN), udp(R, 40001, A, 161),
               udp(R, 40002, "10.1.200.200", 161),
               udp(R, 40003, "198.18.0.99", 53),     # transit: routed outside
               udp(R, 40004, "192.0.2.5", 53)]       # transit: routed inside
    st, o0, o1, _ = run(binary, tmp, "unsolicited", [], outside)
    if st is None:
        return
    check(o0 == [] and o1 == [], "unsolicited: nothing sent (%d, %d)" % (len(o0), len(o1)))
    counters(st, {"nat_drop_unsolicited": 3, "nat_drop_transit": 2, "created": 0,
                  "nat_created": 0}, "unsolicited")


def test_impersonate(binary, tmp):
    inside = [udp(POOL, 5000, R, 53),           # another subscriber's public tuple
              udp("203.0.113.1", 1024, R2, 53),
              udp("192.0.2.9", 5000, R, 53),    # not an inside source (BCP 38)
              udp("198.18.0.77", 5000, R, 53),
              echo(A, POOL, 0x77),              # ICMP to the pool: no hairpin
              udp(A, 5001, R, 53)]              # and a good one
    st, o0, o1, _ = run(binary, tmp, "impersonate", inside, [])
    if st is None:
        return
    expect(o1, [udp(POOL, 5001, R, 53)], 1, "impersonate")
    check(o0 == [], "impersonate: nothing back inside (%d)" % len(o0))
    counters(st, {"nat_drop_spoof_pool": 2, "nat_drop_bcp38": 2, "nat_drop_hairpin": 1,
                  "nat_created": 1, "created": 0}, "impersonate")
    no_leak(st, "impersonate")


def test_quota(binary, tmp):
    S, SA = P.TCP_SYN, P.TCP_SYN | P.TCP_ACK
    conns = [P.TcpConn(41000 + i, 8000 + i) for i in range(10)]
    syns = [c.seg(0, S) for c in conns]
    synacks = [c.seg(1, SA) for c in conns[:8]]
    inside = [tcp_seg(A, R, syns[i]) for i in range(10)]              # 8 of 10
    inside += [udp(B, 6000 + i, R2, 53) for i in range(5)]            # 3 of 5
    inside += [udp(B, 7000, R3, 53)]                                  # another remote
    outside = [tcp_seg(R, POOL, synacks[i]) for i in range(8)]
    st, o0, o1, _ = run(binary, tmp, "quota", inside, outside,
                        ["--nat-max-per-host", "8", "--nat-max-per-dest", "3"])
    if st is None:
        return
    expect(o1, [tcp_seg(POOL, R, syns[i]) for i in range(8)] +
           [udp(POOL, 6000 + i, R2, 53) for i in range(3)] + [udp(POOL, 7000, R3, 53)],
           1, "quota outbound")
    expect(o0, [tcp_seg(R, A, synacks[i]) for i in range(8)], 0,
           "quota: the mappings made still translate")
    counters(st, {"nat_created": 12, "nat_host_limit": 2, "nat_dest_limit": 2,
                  "nat_in": 8, "nat_table_full": 0}, "quota")
    no_leak(st, "quota")


def test_quota_held(binary, tmp):
    one = TMO["oneway"]
    inside = [(T0, udp(A, 5000, R, 53)), (T0 + 0.001, udp(A, 5001, R, 53)),
              (T0 + 1, udp(A, 5002, R, 53)),                   # over: refused
              (T0 + one + 1, udp(A, 5003, R, 53)),             # expired, held: refused
              (T0 + one + HOLD + 1, udp(A, 5004, R, 53)),      # released: made
              (T0 + one + HOLD + 1.001, udp(B, 5005, R, 53))]
    st, o0, o1, _ = run(binary, tmp, "quota_held", inside, [],
                        ["--nat-max-per-host", "2"])
    if st is None:
        return
    expect(o1, [udp(POOL, p, R, 53) for p in (5000, 5001, 5004, 5005)], 1, "quota-held")
    counters(st, {"nat_created": 4, "nat_host_limit": 2, "nat_expired": 4,
                  "nat_released": 4}, "quota-held")
    no_leak(st, "quota-held")


def test_icmp(binary, tmp):
    D, DP = "198.18.0.40", 7000
    sent = ip_pkt(A, D, P.PROTO_UDP, P.udp(6000, DP, b"data"))
    xlat = ip_pkt(POOL, D, P.PROTO_UDP, P.udp(6000, DP, b"data"))
    other_end = ip_pkt(POOL, D, P.PROTO_UDP, P.udp(6000, DP + 1, b"data"))
    frag = ip_pkt(POOL, D, P.PROTO_UDP, P.udp(6000, DP, b"data"), frag=0x2000)
    ping_sent = ip_pkt(A, R, P.PROTO_ICMP, P.icmp_echo(0x1234, 1))
    ping_xlat = ip_pkt(POOL, R, P.PROTO_ICMP, P.icmp_echo(0x1234, 1))
    pong_xlat = ip_pkt(POOL, R, P.PROTO_ICMP, P.icmp_echo(0x1234, 1, reply=True))
    # an error quoting an error, its "unused" word holding the echo's
    # identifier where an echo has it
    nested = ip_pkt(POOL, R, P.PROTO_ICMP,
                    struct.pack("!BBHI", 3, 3, 0, 0x12340000) + xlat[:28])
    delivered = ip_pkt(D, A, P.PROTO_UDP, P.udp(DP, 6000, b"data"))
    inside = [udp(A, 6000, D, DP), echo(A, R, 0x1234),
              icmp_error(A, D, delivered, typ=5, code=1)]   # a redirect from inside
    outside = [icmp_error(RT, POOL, xlat),                      # translated
               icmp_error("198.18.9.9", POOL, xlat, typ=5, code=1, rest=0x0a010063),
               icmp_error(RT, POOL, xlat, typ=4, code=0),        # source quench
               icmp_error(RT, POOL, nested, typ=11, code=0),     # error in an error
               icmp_error(RT, POOL, xlat, quote_len=24),         # truncated
               icmp_error(RT, POOL, xlat, quote_len=20),
               icmp_error(RT, POOL, frag),                       # a fragment
               icmp_error(RT, POOL, other_end),                  # another remote port
               icmp_error(RT, POOL, pong_xlat),                  # a reply it never sent
               icmp_error(RT, POOL, ping_xlat, typ=11, code=0)]  # translated
    st, o0, o1, _ = run(binary, tmp, "icmp", inside, outside)
    if st is None:
        return
    expect(o1, [udp(POOL, 6000, D, DP), echo(POOL, R, 0x1234)], 1, "icmp outbound")
    expect(o0, [icmp_error(RT, A, sent), icmp_error(RT, A, ping_sent, typ=11, code=0)], 0,
           "icmp: the two good errors translated back, quotes included")
    counters(st, {"nat_icmp_errors": 2, "nat_drop_icmp_type": 3, "nat_drop_icmp_nested": 1,
                  "nat_drop_icmp_quote": 4, "nat_in_nomatch": 1, "nat_created": 2},
             "icmp")
    no_leak(st, "icmp")


def test_vlan(binary, tmp):
    inside = [udp(A, 5000, R, 53, tags=[(P.ETH_VLAN, 10)]),
              udp(A, 5000, R, 53, tags=[(P.ETH_QINQ, 100), (P.ETH_VLAN, 10)]),
              udp(A, 5000, R, 53),
              udp(A, 5001, B, 53, tags=[(P.ETH_VLAN, 10)]),   # inside to inside
              udp(A, 5001, B, 53, tags=[(P.ETH_QINQ, 7), (P.ETH_VLAN, 10)])]
    outside = [udp(R, 53, POOL, 5000, tags=[(P.ETH_VLAN, 20)]),
               udp(R, 53, POOL, 5000, tags=[(P.ETH_QINQ, 30), (P.ETH_VLAN, 20)]),
               udp(R, 53, POOL, 5000)]
    st, o0, o1, _ = run(binary, tmp, "vlan", inside, outside)
    if st is None:
        return
    expect(o1, [udp(POOL, 5000, R, 53)], 1, "vlan outbound")
    expect(o0, [udp(A, 5001, B, 53, tags=[(P.ETH_VLAN, 10)]),
                udp(A, 5001, B, 53, tags=[(P.ETH_QINQ, 7), (P.ETH_VLAN, 10)]),
                udp(R, 53, A, 5000)], 0, "vlan: tagged inside traffic, the untagged reply")
    counters(st, {"nat_drop_vlan": 4, "nat_created": 1, "nat_in": 1, "created": 2},
             "vlan")
    no_leak(st, "vlan")


def test_flows(binary, tmp):
    H1, H2 = "10.9.0.1", "10.9.0.2"
    V6a, V6b, V6c = "2001:db8:1::1", "2001:db8:1::2", "2001:db8:2::1"

    def udp6(src, sport, dst, dport):
        return P.pad60(P.eth(P.ipv6(src, dst, P.PROTO_UDP, P.udp(sport, dport, b"d")),
                             P.ETH_IPV6))
    dst6 = "2001:200:0:1::5"
    inside = [udp(H1, 1000 + i, R, 53) for i in range(6)] + \
        [udp(H2, 1000 + i, R, 53) for i in range(2)] + \
        [udp6(V6a, 2000 + i, dst6, 53) for i in range(3)] + \
        [udp6(V6b, 2000 + i, dst6, 53) for i in range(3)] + \
        [udp6(V6c, 2000, dst6, 53)] + \
        [udp(H1, 1000, R, 53)]   # a flow it has: forwarded
    st, o0, o1, _ = run(binary, tmp, "flows", inside, [], ["--max-flows-per-host", "4",
                                                           "--route", "2001:200::/32,1"],
                        nat=False)
    if st is None:
        return
    want = [inside[i] for i in (0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 14, 15)]
    expect(o1, want, 1, "flows")
    t = st["totals"]
    check(t["created"] == 11 and t["host_limit"] == 4 and t["table_full"] == 0,
          "flows: 11 made, 4 refused over the quota (created %d, host_limit %d, full %d)"
          % (t["created"], t["host_limit"], t["table_full"]))
    check(t["expired"] == 11, "flows: every flow expired (%d)" % t["expired"])
    # a connection charged to the end that sent its first packet (H1,
    # mid-stream) and then opened by the other (H2's SYN starts the
    # tracking); when H2 reopens it after its FIN, the charge moves to H2
    # (a connection is reopened by its initiator only: tcp_track.h)
    c = P.TcpConn(80, 1000)   # side 0: H2, side 1: H1
    A_, SY, F = P.TCP_ACK, P.TCP_SYN, P.TCP_FIN | P.TCP_ACK
    inside = [tcp_seg(H1, H2, c.seg(1, A_, b"x")),            # mid-stream: charged to H1
              tcp_seg(H2, H1, c.seg(0, SY)),                  # H2 opens the connection
              tcp_seg(H1, H2, c.seg(1, SY | A_)),
              tcp_seg(H2, H1, c.seg(0, A_)),
              tcp_seg(H2, H1, c.seg(0, F)),                   # H2 closes it
              tcp_seg(H2, H1, c.seg(0, SY, seq=90000)),       # and reopens it: H2's now
              udp(H1, 1001, R, 53),        # H1 has none: made
              udp(H2, 81, R, 53)]          # H2 has one: refused
    st, o0, o1, _ = run(binary, tmp, "flows_reopen", inside, [],
                        ["--max-flows-per-host", "1"], nat=False)
    if st is None:
        return
    expect(o0, inside[:6], 0, "flows reopened")
    expect(o1, inside[6:7], 1, "flows after the reopening")
    t = st["totals"]
    check(t["reopened"] == 1 and t["created"] == 3 and t["host_limit"] == 1,
          "flows: the reopened flow moved to its new initiator (reopened %d, created %d, "
          "host_limit %d)" % (t["reopened"], t["created"], t["host_limit"]))


def test_cli(binary, tmp):
    ok_nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/16"]
    cases = [
        ("outside port not in -p", ["-p", "3"] + ok_nat + ["--nat-outside", "2"],
         "not in the portmask"),
        ("every port outside", ["-p", "3"] + ok_nat + ["--nat-outside", "0", "--nat-outside", "1"],
         "every port"),
        ("outside without NAT", ["-p", "3", "--nat-outside", "1"], "need --nat-pool"),
        ("two-port NAT without roles", ["-p", "3"] + ok_nat, "needs --nat-outside"),
        ("one-port NAT with the port outside", ["-p", "1"] + ok_nat + ["--nat-outside", "0"],
         "every port"),
        ("outside not a number", ["-p", "3"] + ok_nat + ["--nat-outside", "one"],
         "--nat-outside: 'one' is not a whole number in 0..31"),
        ("outside too large", ["-p", "3"] + ok_nat + ["--nat-outside", "32"],
         "--nat-outside: 32 is out of range 0..31"),
        ("max-per-host negative", ["-p", "3"] + ok_nat + ["--nat-outside", "1",
                                                         "--nat-max-per-host", "-1"],
         "--nat-max-per-host: -1 is out of range 0..16777216 (0: no limit)"),
        ("max-per-host text", ["-p", "3"] + ok_nat + ["--nat-outside", "1",
                                                     "--nat-max-per-host", "many"],
         "--nat-max-per-host: 'many' is not a whole number in 0..16777216 (0: no limit)"),
        ("max-per-host too large", ["-p", "3"] + ok_nat + ["--nat-outside", "1",
                                                          "--nat-max-per-host", "99999999999"],
         "--nat-max-per-host: 99999999999 is out of range 0..16777216 (0: no limit)"),
        ("max-per-dest junk", ["-p", "3"] + ok_nat + ["--nat-outside", "1",
                                                     "--nat-max-per-dest", "12x"],
         "--nat-max-per-dest: '12x' is not a whole number in 0..16777216 (0: no limit)"),
        ("quota without NAT", ["-p", "1", "--nat-max-per-host", "10"], "need --nat-pool"),
        ("max-flows-per-host negative", ["-p", "1", "--max-flows-per-host", "-4"],
         "--max-flows-per-host: -4 is out of range 0..16777216 (0: no limit)"),
        ("max-flows-per-host with expiry none", ["-p", "1", "--max-flows-per-host", "4",
                                                 "--expiry", "none"],
         "--expiry none tracks no flows"),
    ]
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])
    vdevs = []
    for p in range(2):
        vdevs += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s"
                  % (p, empty, os.path.join(tmp, "o%d.pcap" % p))]
    for i, (name, args, msg) in enumerate(cases):
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + \
            ["--", "-T", "0", "--duration", "0.2"] + args
        rc, out, err = E.run_dpdk_split(cmd, "edgecli%d" % i)
        line = E.cli_error(err)
        lines = [line] if line is not None and msg in line else []
        check(rc != 0 and lines, "%s: refused in one line on stderr, saying why, and see --help (%s)"
              % (name, lines[:1] or err[-200:]))
    # and the good ones start
    for i, args in enumerate([["-p", "3"] + ok_nat + ["--nat-outside", "1",
                                                      "--nat-max-per-host", "0",
                                                      "--nat-max-per-dest", "0"],
                              ["-p", "1"] + ok_nat,
                              ["-p", "3", "--max-flows-per-host", "10"]]):
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + \
            ["--", "-T", "0", "--duration", "0.2", "--relax-rx-offload",
             "--max-flows", "4096"] + args
        rc, out = E.run_dpdk(cmd, "edgecliok%d" % i)
        check(rc == 0, "%s: starts (rc %d: %s)" % (" ".join(args), rc, out.strip()[-200:]))
        if i == 0:
            # the outside port answers ARP for the pool, if it has an address
            warned = [ln.split(" takes ")[0] for ln in out.splitlines()
                      if "takes masquerade's inbound traffic but has no --port-addr" in ln]
            check(warned == ["l3fwd-flowexp: warning: port 1"],
                  "--nat-outside 1 without --port-addr: start-up warns about port 1 and not "
                  "the inside port 0 (%s)" % warned)


def main(argv):
    tests = {"masq": test_masq, "spoof": test_spoof, "unsolicited": test_unsolicited,
             "impersonate": test_impersonate, "quota": test_quota,
             "quota-held": test_quota_held, "icmp": test_icmp, "vlan": test_vlan,
             "flows": test_flows, "cli": test_cli}
    if len(argv) != 3 or argv[2] not in tests:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxedge_") as tmp:
        tests[argv[2]](argv[1], tmp)
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
