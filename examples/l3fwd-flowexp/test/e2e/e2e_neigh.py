#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of the gateway's addresses and neighbours (meson suite
e2e): ARP, neighbour discovery, next-hop resolution with its hold queue,
ageing, ICMP echo and time exceeded, --max-pkt-len, /0 routes.

net_pcap ports, one worker (lcore 1), --clock pcap unless said otherwise.
Each port with an address has two tx_pcap files: the worker's queue and
the main lcore's (which sends every answer, probe and held packet). Port 0
is 10.1.0.1/24 and 2001:db8:1::1/64 where it has addresses, port 1
198.51.100.1/24 and 2001:db8:2::1/64; the host A is 10.1.0.2 /
2001:db8:1::2 on port 0, the next hop N 198.51.100.254 / 2001:db8:2::fe
on port 1 (10.1.0.254 on port 0 in "gone").

How the frames meet: net_pcap reads a capture 32 frames at a time; the
worker polls port 0, then port 1. In one burst the worker hands ARP and
ND to the main lcore while parsing, and packets for a neighbour later, when
it forwards them; so a reply the test wants handled after a packet comes
in a later burst (runt frames fill a burst up) or on port 1.

  e2e_neigh.py BINARY arp        ARP requests answered byte for byte, for the
                                 port's address and, on the outside port
                                 with NAT, for the pool; gratuitous ARP at
                                 start; not ours, truncated, bad types, a
                                 multicast sender, a reply nobody asked
                                 for, a host claiming our address, a
                                 tagged frame: each dropped and counted
  e2e_neigh.py BINARY nd         NS answered with NA (global, link-local,
                                 duplicate detection), unsolicited NA at
                                 start; a bad option, hop limit 64, not
                                 ours, an NA nobody asked for, a router
                                 solicitation: counted; a bad checksum
                                 dropped by the worker (l4_cksum)
  e2e_neigh.py BINARY resolve    /0 routes through next hops: the first
                                 packets held (8 per neighbour, the rest
                                 dropped and counted), one ARP request and
                                 one NS byte for byte, the held packets sent
                                 once the reply comes, later ones forwarded
  e2e_neigh.py BINARY gone       a next hop that stops answering: reachable,
                                 stale, used (delay), three unicast probes,
                                 failed, then broadcast again, on capture
                                 time with short neighbour times
  e2e_neigh.py BINARY echo       ping of the port addresses (IPv4, IPv6, TTL
                                 1) answered byte for byte, rate-limited;
                                 a bad checksum (l4_cksum on the worker),
                                 TCP to the gateway dropped
  e2e_neigh.py BINARY ttl        TTL / hop limit 1 answered with time
                                 exceeded byte for byte, rate-limited on
                                 capture time; no error about an error
  e2e_neigh.py BINARY oversized  --max-pkt-len: one byte over is dropped
  e2e_neigh.py BINARY default    0.0.0.0/0 and ::/0 with a more specific /1;
                                 a permanent --neigh; no route on a port with
                                 addresses, the subnet's broadcast and
                                 network addresses: dropped
  e2e_neigh.py BINARY telemetry  /l3fwd_flowexp/neigh and neigh,PORT on the
                                 TSC: entries learnt and permanent, counters
  e2e_neigh.py BINARY hostile    4000 frames meant to break the parser and
                                 2000 ARP, NS, NA, echo and TTL-1 frames cut
                                 short or with bytes flipped, through a port
                                 with addresses and on-link /0 routes: no
                                 crash, and every frame accounted for, on
                                 the worker and on the main lcore
  e2e_neigh.py BINARY cli        bad --port-addr, --neigh, next hops, times,
                                 --icmp-rate, --max-pkt-len refused with
                                 their reason; a port without a queue for
                                 the main lcore; /0 routes start

On the build before neighbours existed every scenario fails: its options
are refused (or, for cli, /0 was refused).
"""

import ipaddress
import os
import random
import re
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import fxpkt as P  # noqa: E402
import gen_traffic as G  # noqa: E402

check = E.check
T0 = 1000.0
A_MAC = bytes.fromhex("020000000a02")
N_MAC = bytes.fromhex("020000000bfe")
BCAST = b"\xff" * 6
ZERO6 = bytes(6)
P0_V4, P1_V4 = "10.1.0.1", "198.51.100.1"
P0_V6, P1_V6 = "2001:db8:1::1", "2001:db8:2::1"
A4, A6 = "10.1.0.2", "2001:db8:1::2"
N4, N6 = "198.51.100.254", "2001:db8:2::fe"
POOL = "203.0.113.1"
BASE = ["--parse-ptype", "--relax-rx-offload", "-T", "0", "--tick-us", "1000",
        "--max-flows", "4096", "--duration", "60"]
ADDR0 = ["--port-addr", "0,%s/24" % P0_V4, "--port-addr", "0,%s/64" % P0_V6]
ADDR1 = ["--port-addr", "1,%s/24" % P1_V4, "--port-addr", "1,%s/64" % P1_V6]


# ---- frames ----

def ip4(a):
    return ipaddress.IPv4Address(a).packed


def ip6(a):
    return ipaddress.IPv6Address(a).packed


def arp_frame(op, sha, spa, tha, tpa, dst, src=None, htype=1):
    body = struct.pack("!HHBBH", htype, 0x800, 6, 4, op) + sha + ip4(spa) + tha + ip4(tpa)
    return P.pad60(P.eth(body, P.ETH_ARP, dst=dst, src=src or sha))


def icmp6_csum(src, dst, body):
    """body (ICMPv6, its checksum field 0) with its checksum: for frames
    whose bytes are changed after it."""
    return P.l4_fill(ip6(src), ip6(dst), 58, body, 16)


def ip6_pkt(src, dst, nh, body, hlim):
    """An IPv6 packet; an L4 checksum still 0 is computed (fxpkt)."""
    return P.ipv6(src, dst, nh, body, hlim=hlim)


def snm(target):
    return "ff02::1:ff%02x:%02x%02x" % tuple(ip6(target)[13:16])


def mcast_mac(group):
    return b"\x33\x33" + ip6(group)[12:16]


def nd_frame(typ, src, dst, target, lla=None, opt_type=None, flags=0, hlim=255,
             eth_dst=None, eth_src=A_MAC, opt_len=1):
    body = struct.pack("!BBHI", typ, 0, 0, flags << 24) + ip6(target)
    if lla is not None:
        body += bytes([opt_type or (1 if typ == 135 else 2), opt_len]) + lla
    body = icmp6_csum(src, dst, body)
    return P.eth(ip6_pkt(src, dst, 58, body, hlim), P.ETH_IPV6,
                 dst=eth_dst or mcast_mac(dst if dst.startswith("ff") else snm(dst)),
                 src=eth_src)


def icmp4(t, ident, seq, payload=b"ping", code=0):
    b = struct.pack("!BBHHH", t, code, 0, ident, seq) + payload
    return b[:2] + struct.pack("!H", P.csum(b)) + b[4:]


def echo4(src, dst, ident, ttl=64, bad=False):
    body = icmp4(8, ident, 1)
    if bad:
        body = body[:2] + bytes([body[2] ^ 1]) + body[3:]
    return P.pad60(P.eth(P.ipv4(src, dst, 1, body, ttl=ttl), P.ETH_IPV4, src=A_MAC))


def echo4_reply(src, dst, ident):
    return P.ipv4(src, dst, 1, icmp4(0, ident, 1), ttl=64)


def echo6(src, dst, ident, t=128, hlim=64):
    body = icmp6_csum(src, dst, struct.pack("!BBHHH", t, 0, 0, ident, 1) + b"ping6")
    return ip6_pkt(src, dst, 58, body, hlim)


def udp4(src, dst, sport, dport=53, ttl=64, src_mac=A_MAC):
    return P.pad60(P.eth(P.ipv4(src, dst, 17, P.udp(sport, dport, b"data"), ttl=ttl),
                         P.ETH_IPV4, src=src_mac))


def udp6(src, dst, sport, dport=53, hlim=64, src_mac=A_MAC):
    return P.pad60(P.eth(ip6_pkt(src, dst, 17, P.udp(sport, dport, b"data6"), hlim),
                         P.ETH_IPV6, src=src_mac))


def runt():
    return b"\x02" * 10


def burst(frames):
    """frames filled up to a burst of 32 with runts (dropped, counted runt)."""
    assert len(frames) <= 32
    return frames + [runt()] * (32 - len(frames))


# ---- running the example ----

def port_macs(log):
    return {int(m.group(1)): bytes.fromhex(m.group(2).replace(":", ""))
            for m in re.finditer(r"port (\d+): MAC ([0-9a-f:]{17})", log)}


class Result:
    def __init__(self, st, out, log):
        self.st, self.out, self.log = st, out, log
        self.mac = port_macs(log)

    def neigh(self, k):
        return (self.st or {}).get("neigh", {}).get(k)

    def tot(self, k):
        return (self.st or {}).get("totals", {}).get(k)


def run(binary, tmp, name, inputs, app, nports=2, pcap_clock=True, live=None):
    """inputs: {port: [frame or (time, frame)]}, at T0 + 1 ms each unless
    timed. Returns a Result: the stats file, out[port] = (worker frames,
    main lcore frames), the log."""
    eal = E.EAL + ["--lcores", "0@0,1@1"]
    outs = {}
    for p in range(nports):
        rx = os.path.join(tmp, "%s_in%d.pcap" % (name, p))
        w = P.PcapWriter(rx)
        for i, f in enumerate(inputs.get(p, [])):
            t, f = f if isinstance(f, tuple) else (T0 + i * 0.001, f)
            w.write(f, t)
        w.close()
        outs[p] = [os.path.join(tmp, "%s_out%d_%s.pcap" % (name, p, q)) for q in ("w", "m")]
        eal += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s,tx_pcap=%s" % (p, rx, *outs[p])]
    cfg = ",".join("(%d,0,1)" % p for p in range(nports))
    args = ["-p", "%x" % ((1 << nports) - 1), "--config", cfg] + BASE + list(app)
    if pcap_clock:
        args += ["--clock", "pcap", "--exit-when-drained"]
    ex = E.Example(binary, "neigh_" + name, eal, args, tmp)
    if live is not None:
        live(ex)
    st = ex.finish(stop=live is not None)
    with open(ex.log) as f:
        log = f.read()
    out = {p: tuple(P.read_pcap(x) if os.path.exists(x) else [] for x in outs[p])
           for p in outs}
    return Result(st, out, log)


def counters(r, want, what, where="neigh"):
    got = {k: (r.st or {}).get(where, {}).get(k) for k in want}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    check(not bad, "%s: %s counters %s (wrong, got/want: %s)"
          % (what, where, sorted(want.items()), bad))


def same(got, want, what):
    ok = got == want
    check(ok, "%s: byte for byte" % what)
    if not ok:
        print("   got  %s\n   want %s" % (got.hex() if got else None, want.hex()))


def forwarded(frame, dst_mac, src_mac):
    """frame as the example forwards it: MACs, TTL or hop limit - 1."""
    return dst_mac + src_mac + E.expect_forwarded(frame)


# ---- scenarios ----

def test_arp(binary, tmp):
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.1.0.0/24", "--nat-outside", "1"]
    app = ["--port-addr", "0,%s/24" % P0_V4, "--port-addr", "1,%s/24" % P1_V4,
           "--route", "10.1.0.0/24,0", "--route", "0.0.0.0/0,1,%s" % N4] + nat
    trunc = P.eth(struct.pack("!HHBBH", 1, 0x800, 6, 4, 1) + A_MAC + ip4(A4), P.ETH_ARP,
                  dst=BCAST, src=A_MAC)
    in0 = [arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST),                 # answered
           arp_frame(1, A_MAC, A4, ZERO6, "10.1.0.77", BCAST),           # not ours
           arp_frame(1, A_MAC, A4, ZERO6, POOL, BCAST),                  # the pool, inside
           trunc,                                                        # 20 bytes of ARP
           arp_frame(1, b"\x03\0\0\0\0\x01", A4, ZERO6, P0_V4, BCAST),   # multicast sender
           arp_frame(2, bytes.fromhex("020000000a50"), "10.1.0.50", A_MAC, P0_V4, BCAST),
           arp_frame(1, bytes.fromhex("020000000a66"), P0_V4, ZERO6, P0_V4, BCAST),
           P.tagged(arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST), [(P.ETH_VLAN, 5)]),
           arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST, htype=6)]
    in1 = [arp_frame(1, N_MAC, N4, ZERO6, POOL, BCAST),                  # the pool, outside
           arp_frame(1, N_MAC, N4, ZERO6, P1_V4, BCAST)]
    r = run(binary, tmp, "arp", {0: in0, 1: in1}, app)
    if r.st is None:
        return
    m0, m1 = r.mac.get(0, b""), r.mac.get(1, b"")
    o0, o1 = r.out[0][1], r.out[1][1]
    check(len(o0) == 2, "port 0: the main lcore sent 2 frames (%d)" % len(o0))
    if len(o0) == 2:
        same(o0[0], arp_frame(1, m0, P0_V4, ZERO6, P0_V4, BCAST), "gratuitous ARP for 10.1.0.1")
        same(o0[1], arp_frame(2, m0, P0_V4, A_MAC, A4, A_MAC), "ARP reply to A")
    check(len(o1) == 4, "port 1: gratuitous ARP for its address and the pool, two "
          "replies (%d)" % len(o1))
    if len(o1) == 4:
        same(o1[0], arp_frame(1, m1, P1_V4, ZERO6, P1_V4, BCAST), "gratuitous ARP port 1")
        same(o1[1], arp_frame(1, m1, POOL, ZERO6, POOL, BCAST), "gratuitous ARP for the pool")
        same(o1[2], arp_frame(2, m1, POOL, N_MAC, N4, N_MAC), "ARP reply for the pool")
        same(o1[3], arp_frame(2, m1, P1_V4, N_MAC, N4, N_MAC), "ARP reply for port 1")
    check(r.out[0][0] == [] and r.out[1][0] == [], "the worker forwarded nothing")
    counters(r, {"arp_rx": 10, "arp_requests_answered": 3, "arp_not_ours": 2, "arp_bad": 2,
                 "arp_bad_sender": 1, "arp_unsolicited": 1, "arp_conflict": 1,
                 "garp_sent": 3, "arp_requests_sent": 0}, "arp")
    check(r.st["malformed"]["non_ip"] == 1, "the tagged ARP frame: non_ip (%d)"
          % r.st["malformed"]["non_ip"])
    check(r.tot("to_main") == 10 and r.tot("to_main_full") == 0,
          "10 frames handed to the main lcore (%s)" % r.tot("to_main"))
    # A and N asked for us: learnt (N was already a next hop)
    check(r.neigh("neigh_created") == 2 and r.neigh("entries_stale") == 2,
          "A learnt, N's entry too: stale (created %s, stale %s)"
          % (r.neigh("neigh_created"), r.neigh("entries_stale")))


def test_nd(binary, tmp):
    app = ADDR0 + ["--route", "10.1.0.0/24,0", "--route", "2001:db8:1::/64,0"]
    a_ll = "fe80::a"
    # the port's MAC, hence its link-local address, is net_pcap's: port 0
    p0 = bytes.fromhex("027063617000")
    ll0 = str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + bytes([p0[0] ^ 2]) + p0[1:3] +
                                    b"\xff\xfe" + p0[3:6]))
    ns = nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC)
    ns_ll = nd_frame(135, a_ll, snm(ll0), ll0, A_MAC)
    dad = nd_frame(135, "::", snm(P0_V6), P0_V6)
    bad_opt = nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC, opt_len=0)
    hop64 = nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC, hlim=64)
    badsum = bytearray(nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC))
    badsum[14 + 40 + 3] ^= 0x20
    other = nd_frame(135, A6, snm("2001:db8:1::99"), "2001:db8:1::99", A_MAC)
    na_unasked = nd_frame(136, "2001:db8:1::50", P0_V6, "2001:db8:1::50", A_MAC,
                          flags=0x60, eth_dst=p0)
    rs = P.eth(ip6_pkt(A6, "ff02::2", 58, icmp6_csum(A6, "ff02::2", struct.pack(
        "!BBHI", 133, 0, 0, 0)), 255), P.ETH_IPV6, dst=mcast_mac("ff02::2"), src=A_MAC)
    frames = [ns, ns_ll, dad, bad_opt, hop64, bytes(badsum), other, na_unasked, rs]
    r = run(binary, tmp, "nd", {0: frames}, app, nports=1)
    if r.st is None:
        return
    m = r.mac.get(0, p0)
    check(m == p0, "port 0's MAC is net_pcap's %s (%s)" % (p0.hex(), m.hex()))
    o = r.out[0][1]
    all_nodes = "ff02::1"
    want = [arp_frame(1, m, P0_V4, ZERO6, P0_V4, BCAST),
            nd_frame(136, P0_V6, all_nodes, P0_V6, m, flags=0xa0, eth_dst=mcast_mac(all_nodes),
                     eth_src=m),
            nd_frame(136, ll0, all_nodes, ll0, m, flags=0xa0, eth_dst=mcast_mac(all_nodes),
                     eth_src=m),
            nd_frame(136, P0_V6, A6, P0_V6, m, flags=0xe0, eth_dst=A_MAC, eth_src=m),
            nd_frame(136, ll0, a_ll, ll0, m, flags=0xe0, eth_dst=A_MAC, eth_src=m),
            nd_frame(136, P0_V6, all_nodes, P0_V6, m, flags=0xa0,
                     eth_dst=mcast_mac(all_nodes), eth_src=m)]
    names = ["gratuitous ARP", "unsolicited NA for 2001:db8:1::1",
             "unsolicited NA for the link-local address", "NA answering the NS",
             "NA answering the NS for the link-local address",
             "NA to all nodes answering duplicate detection"]
    check(len(o) == len(want), "port 0: the main lcore sent %d frames (%d)" % (len(want), len(o)))
    for g, w, n in zip(o, want, names):
        same(g, w, n)
    counters(r, {"nd_rx": 8, "ns_answered": 3, "una_sent": 2, "nd_bad_option": 1, "nd_bad": 1,
                 "nd_not_ours": 1, "na_unsolicited": 1, "nd_ignored": 1}, "nd")
    check(r.st["malformed"]["l4_cksum"] == 1, "the bad checksum dropped by the worker: "
          "l4_cksum (%d)" % r.st["malformed"]["l4_cksum"])
    check(r.neigh("neigh_created") == 2, "A learnt from its NS, by both its addresses (%s)"
          % r.neigh("neigh_created"))


def resolve_inputs():
    d4 = [udp4(A4, "192.0.2.9", 1000 + i) for i in range(10)]
    d6 = [udp6(A6, "2001:db8:99::9", 2000 + i) for i in range(10)]
    later4 = [udp4(A4, "192.0.2.9", 3000 + i) for i in range(5)]
    later6 = [udp6(A6, "2001:db8:99::9", 4000 + i) for i in range(5)]
    return d4, d6, later4, later6


def test_resolve(binary, tmp):
    app = ADDR0 + ADDR1 + ["--route", "10.1.0.0/24,0", "--route", "2001:db8:1::/64,0",
                           "--route", "0.0.0.0/0,1,%s" % N4, "--route", "::/0,1,%s" % N6]
    d4, d6, later4, later6 = resolve_inputs()
    in0 = burst(d4 + d6) + later4 + later6
    # port 1 answers: an ARP reply and a solicited NA, read after burst 1
    mac1 = bytes.fromhex("027063617001")
    in1 = [arp_frame(2, N_MAC, N4, mac1, P1_V4, mac1),
           nd_frame(136, N6, P1_V6, N6, N_MAC, flags=0x60, eth_dst=mac1, eth_src=N_MAC)]
    r = run(binary, tmp, "resolve", {0: in0, 1: in1}, app)
    if r.st is None:
        return
    m1 = r.mac.get(1, mac1)
    w1, o1 = r.out[1]
    head = [f for f in o1 if f[12:14] in (b"\x08\x06",) or
            (f[12:14] == b"\x86\xdd" and f[20] == 58)]
    data = [f for f in o1 + w1 if f not in head]
    check(len(head) == 5, "port 1 control frames: gratuitous ARP, 2 unsolicited NA, one ARP "
          "request, one NS (%d)" % len(head))
    if len(head) == 5:
        same(head[3], arp_frame(1, m1, P1_V4, ZERO6, N4, BCAST), "the ARP request for N")
        same(head[4], nd_frame(135, P1_V6, snm(N6), N6, m1, eth_src=m1),
             "the NS for N, to its solicited-node address")
    held = [forwarded(f, N_MAC, m1) for f in d4[:8] + d6[:8]]
    check(o1[5:5 + 16] == held, "the 8 + 8 held packets sent once N answered, in order, "
          "with N's MAC (%d frames after the control ones)" % (len(o1) - 5))
    later = sorted(forwarded(f, N_MAC, m1) for f in later4 + later6)
    check(sorted(data[16:]) == later if len(data) >= 16 else False,
          "the 10 later packets forwarded to N (%d)" % (len(data) - 16))
    counters(r, {"hold_queued": 16, "hold_sent": 16, "hold_dropped": 4, "neigh_resolved": 2,
                 "arp_requests_sent": 1, "ns_sent": 1, "arp_replies_rx": 1, "na_rx": 1,
                 "neigh_failed": 0}, "resolve")
    check(r.st["port_0"]["dropped"] == 12, "port 0 dropped only the 12 runts (%s)"
          % r.st["port_0"]["dropped"])


def test_gone(binary, tmp):
    nh = "10.1.0.254"
    times = ["--neigh-reachable-ms", "1000", "--neigh-delay-ms", "500",
             "--neigh-retrans-ms", "200", "--neigh-probes", "3"]
    app = ["--port-addr", "0,%s/24" % P0_V4, "--route", "10.1.0.0/24,0",
           "--route", "192.0.2.0/24,0,%s" % nh] + times
    p0 = bytes.fromhex("027063617000")
    d = [udp4(A4, "192.0.2.9", 5000 + i) for i in range(8)]
    reply = arp_frame(2, N_MAC, nh, p0, P0_V4, p0)
    # burst by burst: (capture time, the frames)
    plan = [(T0, [d[0]]),            # incomplete: a broadcast request, held
            (T0 + 0.010, [reply]),   # reachable for 0.5..1.5 s; d0 sent
            (T0 + 0.100, [d[1]]),    # reachable
            (T0 + 2.000, [d[2]]),    # past it: stale, this use starts delay (0.5 s)
            (T0 + 2.600, [d[3]]),    # delay over: probe 1
            (T0 + 2.900, [d[4]]),    # probe 2
            (T0 + 3.200, [d[5]]),    # probe 3
            (T0 + 3.500, [d[6]]),    # no answer: failed; incomplete again, held
            (T0 + 4.000, [d[7]])]    # another broadcast; held
    frames = []
    for t, fr in plan:
        frames += [(t, f) for f in burst(fr)]
    r = run(binary, tmp, "gone", {0: frames}, app, nports=1)
    if r.st is None:
        return
    m = r.mac.get(0, p0)
    w, o = r.out[0]
    req_b = arp_frame(1, m, P0_V4, ZERO6, nh, BCAST)
    req_u = arp_frame(1, m, P0_V4, ZERO6, nh, N_MAC)
    fwd = [forwarded(f, N_MAC, m) for f in d]
    seq = [f for f in o if f != fwd[1]]
    want = [arp_frame(1, m, P0_V4, ZERO6, P0_V4, BCAST), req_b, fwd[0], fwd[2], req_u, fwd[3],
            req_u, fwd[4], req_u, fwd[5], req_b, req_b]
    names = ["gratuitous ARP", "broadcast request", "d0 held, sent", "d2 (stale -> delay)",
             "probe 1", "d3", "probe 2", "d4", "probe 3", "d5", "broadcast after failing",
             "broadcast again"]
    check(len(seq) == len(want), "the main lcore's frames: %d (%d)" % (len(want), len(seq)))
    for i, (g, wnt) in enumerate(zip(seq, want)):
        same(g, wnt, "main lcore frame %d: %s" % (i, names[i]))
    check((fwd[1] in w) != (fwd[1] in o), "d1 sent once, by the worker or the main lcore")
    counters(r, {"neigh_resolved": 1, "neigh_stale_used": 1, "arp_probes_sent": 3,
                 "arp_requests_sent": 3, "neigh_failed": 1, "hold_queued": 3,
                 "hold_sent": 1, "entries_incomplete": 1}, "gone")


def test_echo(binary, tmp):
    app = ADDR0 + ["--route", "10.1.0.0/24,0", "--icmp-rate", "10,3"]
    p0 = bytes.fromhex("027063617000")
    e6 = P.pad60(P.eth(echo6(A6, P0_V6, 0x66), P.ETH_IPV6, src=A_MAC))
    syn = P.pad60(P.eth(P.ipv4(A4, P0_V4, 6, P.tcp(40000, 22, P.TCP_SYN)), P.ETH_IPV4, src=A_MAC))
    frames = [(T0, echo4(A4, P0_V4, i)) for i in range(1, 6)]          # 3 of 5: burst of 3
    frames += [(T0 + 1, echo4(A4, P0_V4, 6)), (T0 + 1, e6),             # refilled
               (T0 + 1, echo4(A4, P0_V4, 7, ttl=1)),                     # TTL 1, to us
               (T0 + 1, echo4(A4, P0_V4, 8, bad=True)), (T0 + 1, syn)]
    r = run(binary, tmp, "echo", {0: frames}, app, nports=1)
    if r.st is None:
        return
    m = r.mac.get(0, p0)
    o = [f for f in r.out[0][1] if f[12:14] == b"\x08\x00" or
         (f[12:14] == b"\x86\xdd" and f[54] == 129)]

    def rep4(i):
        return P.pad60(P.eth(echo4_reply(P0_V4, A4, i), P.ETH_IPV4, dst=A_MAC, src=m))
    want = [rep4(1), rep4(2), rep4(3), rep4(6),
            P.pad60(P.eth(echo6(P0_V6, A6, 0x66, t=129), P.ETH_IPV6, dst=A_MAC, src=m)),
            rep4(7)]
    check(len(o) == len(want), "%d echo replies (%d)" % (len(want), len(o)))
    for i, (g, wnt) in enumerate(zip(o, want)):
        same(g, wnt, "echo reply %d" % i)
    counters(r, {"echo_replies": 6, "echo_ratelimited": 2, "echo_bad": 0}, "echo")
    check(r.st["malformed"]["l4_cksum"] == 1, "the bad checksum dropped by the worker: "
          "l4_cksum (%d)" % r.st["malformed"]["l4_cksum"])
    check(r.tot("local_dropped") == 1, "TCP to the gateway dropped (local_dropped %s)"
          % r.tot("local_dropped"))
    check(r.out[0][0] == [], "the worker forwarded nothing")


def test_ttl(binary, tmp):
    app = ADDR0 + ["--eth-dest", "1,02:00:00:00:0b:01", "--route", "10.1.0.0/24,0",
                   "--route", "0.0.0.0/0,1", "--route", "::/0,1", "--icmp-rate", "10,2"]
    p0 = bytes.fromhex("027063617000")
    dst = "192.0.2.9"
    u = [udp4(A4, dst, 6000 + i, ttl=1) for i in range(7)]
    u6 = udp6(A6, "2001:db8:99::9", 7000, hlim=1)
    err = P.pad60(P.eth(P.ipv4(A4, dst, 1, icmp4(3, 0, 0, bytes(28), code=3), ttl=1),
                        P.ETH_IPV4, src=A_MAC))
    ok = udp4(A4, dst, 6100, ttl=2)
    frames = [(T0, f) for f in u[:5]] + [(T0 + 1, u[5]), (T0 + 1, u[6]), (T0 + 2, u6),
                                          (T0 + 2, err), (T0 + 2, ok)]
    r = run(binary, tmp, "ttl", {0: frames}, app)
    if r.st is None:
        return
    m = r.mac.get(0, p0)
    o = [f for f in r.out[0][1] if f[12:14] != b"\x08\x06" and
         not (f[12:14] == b"\x86\xdd" and f[54] == 136)]

    def te4(orig):
        ipb = orig[14:14 + 20 + 8 + 4]   # the IP packet, without the padding
        body = struct.pack("!BBHI", 11, 0, 0, 0) + ipb
        body = body[:2] + struct.pack("!H", P.csum(body)) + body[4:]
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(body), 0, 0, 64, 1, 0,
                          ip4(P0_V4), ip4(A4))
        hdr = hdr[:10] + struct.pack("!H", P.csum(hdr)) + hdr[12:]
        return P.eth(hdr + body, P.ETH_IPV4, dst=A_MAC, src=m)

    def te6(orig):
        ipb = orig[14:14 + 40 + 8 + 5]
        body = icmp6_csum(P0_V6, A6, struct.pack("!BBHI", 3, 0, 0, 0) + ipb)
        return P.eth(ip6_pkt(P0_V6, A6, 58, body, 64), P.ETH_IPV6, dst=A_MAC, src=m)
    want = [te4(u[0]), te4(u[1]), te4(u[5]), te4(u[6]), te6(u6)]
    names = ["first", "second (the burst of 2)", "a second later", "and another",
             "ICMPv6 time exceeded"]
    check(len(o) == len(want), "%d time-exceeded messages (%d)" % (len(want), len(o)))
    for g, w, n in zip(o, want, names):
        same(g, w, "time exceeded, %s" % n)
    counters(r, {"ttl_time_exceeded": 5, "ttl_ratelimited": 3, "ttl_not_answered": 1}, "ttl")
    check(r.st["malformed"]["ttl_exceeded"] == 9, "9 counted ttl_exceeded (%d)"
          % r.st["malformed"]["ttl_exceeded"])
    w1 = r.out[1][0]
    check(len(w1) == 1 and w1[0][14 + 8] == 1, "TTL 2 forwarded with TTL 1 (%d)" % len(w1))


def test_oversized(binary, tmp):
    def sized(n, sport):
        f = udp4(A4, "198.18.1.9", sport)
        ipb = P.ipv4(A4, "198.18.1.9", 17, P.udp(sport, 53, bytes(n - 14 - 28)))
        return P.eth(ipb, P.ETH_IPV4, src=A_MAC) if n > len(f) else f
    frames = [sized(996, 1), sized(997, 2), sized(1500, 3), sized(60, 4)]
    r = run(binary, tmp, "oversized", {0: frames}, ["--max-pkt-len", "1000"], nports=1)
    if r.st is None:
        return
    w = r.out[0][0]
    check(len(w) == 2 and len(w[0]) == 996, "996 bytes and 60 bytes forwarded (%s)"
          % [len(f) for f in w])
    check(r.tot("oversized") == 2, "997 and 1500 bytes dropped (oversized %s)"
          % r.tot("oversized"))
    check("--max-pkt-len 1000" in r.log, "the start-up says so")


def test_default(binary, tmp):
    app = ["--eth-dest", "0,02:00:00:00:0c:00", "--eth-dest", "1,02:00:00:00:0c:01",
           "--route", "0.0.0.0/0,1", "--route", "::/0,1", "--route", "0.0.0.0/1,0"]
    frames = [udp4(A4, "1.2.3.4", 1), udp4(A4, "200.1.1.1", 2),
              udp6(A6, "2001:db8::5", 3), udp6(A6, "8000::1", 4)]
    r = run(binary, tmp, "default", {0: frames}, app)
    if r.st is None:
        return
    w0, w1 = r.out[0][0], r.out[1][0]
    check(len(w0) == 1 and w0[0][30:34] == ip4("1.2.3.4"), "0.0.0.0/1 beats /0: 1.2.3.4 on "
          "port 0 (%d)" % len(w0))
    check(len(w1) == 3, "200.1.1.1, 2001:db8::5 and 8000::1 by the /0 routes on port 1 (%d)"
          % len(w1))
    # a port with addresses: a permanent neighbour, no route
    p = "02:00:00:00:0a:42"
    app = ["--port-addr", "0,%s/24" % P0_V4, "--route", "10.1.0.0/24,0",
           "--neigh", "0,10.1.0.42,%s" % p]
    frames = [udp4(A4, "10.1.0.42", 10), udp4(A4, "8.8.8.8", 11),
              udp4(A4, "10.1.0.255", 12), udp4(A4, "10.1.0.0", 13)]
    r = run(binary, tmp, "noroute", {0: frames}, app, nports=1)
    if r.st is None:
        return
    w = r.out[0][0]
    check(len(w) == 1 and w[0][:6] == bytes.fromhex(p.replace(":", "")),
          "to the permanent neighbour: forwarded by the worker with its MAC (%d)" % len(w))
    check(r.tot("no_route") == 1, "no route on a port with addresses: dropped (no_route %s)"
          % r.tot("no_route"))
    check(r.neigh("entries_permanent") == 1, "one permanent entry")
    check(r.neigh("hold_dropped") == 2 and r.neigh("arp_requests_sent") == 0,
          "the subnet's broadcast and network addresses: dropped, never asked for "
          "(hold_dropped %s, requests %s)" % (r.neigh("hold_dropped"),
                                              r.neigh("arp_requests_sent")))


def test_telemetry(binary, tmp):
    app = ADDR0 + ["--route", "10.1.0.0/24,0", "--neigh", "0,10.1.0.42,02:00:00:00:0a:42"]
    got = {}

    def live(ex):
        s = ex.wait_for(lambda s: s["neigh"]["arp_requests_answered"] == 1,
                        "telemetry: the ARP request answered", timeout=30)
        if s is None:
            return
        got["all"] = ex.tel("/l3fwd_flowexp/neigh")
        got["p0"] = ex.tel("/l3fwd_flowexp/neigh,0")
        got["bad"] = ex.tel("/l3fwd_flowexp/neigh,5")
        got["from"] = ex.tel("/l3fwd_flowexp/neigh,0,1")
    r = run(binary, tmp, "telemetry", {0: [arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST)]},
            app, nports=1, pcap_clock=False, live=live)
    a, p = got.get("all"), got.get("p0")
    check(a is not None and a.get("neigh", {}).get("arp_requests_answered") == 1 and
          a.get("port_0", {}).get("entries_permanent") == 1 and
          a["port_0"].get("entries_stale") == 1,
          "/l3fwd_flowexp/neigh: totals and port 0's entries by state (%s)" % a)
    n = sorted((p or {}).get("neighbours", {}).values())
    check(p is not None and p.get("entries") == 2 and p.get("shown") == 2 and len(n) == 2 and
          n[1].startswith("10.1.0.42 permanent 02:00:00:00:0a:42 permanent") and
          n[0].startswith(A4 + " stale 02:00:00:00:0a:02 on-link"),
          "/l3fwd_flowexp/neigh,0: both entries (%s)" % p)
    check(got.get("bad", {}).get("error") is not None, "a port without an address: error")
    check((got.get("from") or {}).get("shown") == 1, "neigh,0,1: from the second entry")
    check(r.st is not None and r.st["neigh"]["arp_requests_answered"] == 1,
          "the stats file has the neigh counters")


def hostile_frames(n, rng):
    """n frames of the gateway's own kinds, cut short or with bytes flipped."""
    p0 = bytes.fromhex("027063617000")
    valid = [arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST),
             arp_frame(2, N_MAC, "10.1.0.9", p0, P0_V4, p0),
             arp_frame(1, A_MAC, A4, ZERO6, A4, BCAST),
             nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC),
             nd_frame(135, "::", snm(P0_V6), P0_V6),
             nd_frame(136, "2001:db8:1::9", P0_V6, "2001:db8:1::9", N_MAC, flags=0x60, eth_dst=p0),
             echo4(A4, P0_V4, 9),
             P.pad60(P.eth(echo6(A6, P0_V6, 9), P.ETH_IPV6, src=A_MAC)),
             udp4(A4, "192.0.2.1", 9, ttl=1), udp6(A6, "2001:db8:9::1", 9, hlim=1)]
    out = []
    for _ in range(n):
        f = bytearray(rng.choice(valid))
        if rng.randrange(2):
            f = f[:rng.randrange(12, len(f) + 1)]
        for _ in range(rng.randrange(0, 4)):
            if len(f) > 14:
                f[rng.randrange(14, len(f))] ^= 1 << rng.randrange(8)
        out.append(bytes(f))
    return out


def test_hostile(binary, tmp):
    seed = int(os.environ.get("FLOWEXP_RANDOM_SEED", "0")) or int(time.time())
    print("hostile frames: seed %d (FLOWEXP_RANDOM_SEED replays)" % seed)
    frames, _ = G.random_traffic(4000, seed)
    frames += hostile_frames(2000, random.Random(seed))
    random.Random(seed + 1).shuffle(frames)
    # one bad ARP and one bad ND first, while the ring to the main lcore
    # is empty: which of the shuffled ones reach it past a full ring
    # depends on timing, so the check below would otherwise be luck
    frames = [arp_frame(1, A_MAC, A4, ZERO6, P0_V4, BCAST)[:14 + 20],
              nd_frame(135, A6, snm(P0_V6), P0_V6, A_MAC, hlim=254)] + frames
    app = ADDR0 + ["--route", "0.0.0.0/0,0", "--route", "::/0,0", "--max-flows", "65536"]
    r = run(binary, tmp, "hostile", {0: frames}, app, nports=1)
    if r.st is None:
        return
    t, port, n = r.st["totals"], r.st["port_0"], r.st["neigh"]
    check(port["rx"] == len(frames), "rx %d (got %d)" % (len(frames), port["rx"]))
    check(port["rx"] == port["tx"] + port["dropped"] + t["to_main"] + t["to_main_full"],
          "rx = tx + dropped + to_main + to_main_full (%s, %d, %d)"
          % (port, t["to_main"], t["to_main_full"]))
    handled = sum(n[k] for k in ("arp_rx", "nd_rx", "echo_replies", "echo_bad",
                                 "echo_ratelimited", "ttl_time_exceeded", "ttl_not_answered",
                                 "ttl_ratelimited", "icmp_no_source", "hold_queued",
                                 "hold_dropped", "sent_direct"))
    check(handled == t["to_main"], "every frame handed over accounted for on the main "
          "lcore (%d of %d)" % (handled, t["to_main"]))
    check(n["arp_rx"] > 0 and n["nd_rx"] > 0 and n["arp_bad"] > 0 and n["nd_bad"] > 0,
          "ARP and ND refused as well as answered (%s)"
          % {k: v for k, v in n.items() if v and k.startswith(("arp", "nd", "ns", "na"))})
    check(n["held"] <= 1024,
          "held packets within their bound (%d)" % n["held"])


def test_cli(binary, tmp):
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])
    vdevs = []
    for p in range(2):
        vdevs += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s,tx_pcap=%s"
                  % (p, empty, os.path.join(tmp, "o%dw.pcap" % p),
                     os.path.join(tmp, "o%dm.pcap" % p))]
    bad = [
        ("port-addr without a length", ["--port-addr", "0,10.1.0.1"], "expected PORT,ADDRESS/LENGTH"),
        ("port-addr /32", ["--port-addr", "0,10.1.0.1/32"], "bad prefix length '32'"),
        ("port-addr bad port", ["--port-addr", "x,10.1.0.1/24"], "bad port 'x'"),
        ("port-addr multicast", ["--port-addr", "0,224.0.0.1/24"], "not a unicast host address"),
        ("port-addr link-local", ["--port-addr", "0,fe80::1/64"], "made from the MAC"),
        ("port-addr port not in -p", ["--port-addr", "2,10.1.0.1/24"], "not in the portmask"),
        ("port-addr twice", ["--port-addr", "0,10.1.0.1/24", "--port-addr", "1,10.1.0.1/24"],
         "already an address of port 0"),
        ("next hop off the subnet", ["--port-addr", "1,198.51.100.1/24",
                                     "--route", "0.0.0.0/0,1,192.0.2.1"],
         "next hop 192.0.2.1 is not on a connected subnet of port 1"),
        ("next hop without an address", ["--route", "0.0.0.0/0,1,198.51.100.254"],
         "port 1 has no address to resolve the next hop from"),
        ("IPv6 route on an IPv4 port", ["--port-addr", "1,198.51.100.1/24", "--route", "::/0,1"],
         "port 1 has no IPv6 --port-addr"),
        ("next hop multicast", ["--port-addr", "1,198.51.100.1/24",
                                "--route", "0.0.0.0/0,1,224.0.0.9"], "not a unicast address"),
        ("next hop not an address", ["--route", "0.0.0.0/0,1,gw"], "next hop 'gw'"),
        ("neigh bad MAC", ["--port-addr", "0,10.1.0.1/24", "--neigh", "0,10.1.0.9,01:00:5e:00:00:01"],
         "not a unicast MAC address"),
        ("neigh off the subnet", ["--port-addr", "0,10.1.0.1/24", "--neigh",
                                  "0,10.2.0.9,02:00:00:00:00:09"], "not on a connected subnet"),
        ("neigh-probes 0", ["--neigh-probes", "0"], "--neigh-probes: 0 is out of range 1..10"),
        ("neigh-retrans-ms text", ["--neigh-retrans-ms", "soon"],
         "--neigh-retrans-ms: 'soon' is not a whole number in 1..3600000"),
        ("icmp-rate 0", ["--icmp-rate", "0"], "--icmp-rate '0'"),
        ("icmp-rate junk", ["--icmp-rate", "10,x"], "--icmp-rate '10,x'"),
        ("max-pkt-len small", ["--max-pkt-len", "63"], "--max-pkt-len: 63 is out of range 64..16384"),
        ("max-pkt-len large", ["--max-pkt-len", "99999"],
         "--max-pkt-len: 99999 is out of range 64..16384"),
        ("route /33", ["--route", "10.0.0.0/33,0"], "bad prefix length '33'"),
    ]
    for i, (name, args, msg) in enumerate(bad):
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + ["--", "-p", "3", "-T", "0",
                                                          "--duration", "0.2"] + args
        rc, out = E.run_dpdk(cmd, "neighcli%d" % i)
        lines = [ln for ln in out.splitlines() if msg in ln]
        check(rc != 0 and lines, "%s: refused, saying why (%s)" % (name, lines[:1] or out[-300:]))
    # a port with an address needs a tx queue for the main lcore
    one = ["--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, os.path.join(tmp, "one.pcap"))]
    rc, out = E.run_dpdk([binary] + E.EAL + ["-l", "0-1"] + one +
                         ["--", "-p", "1", "-T", "0", "--relax-rx-offload", "--duration", "0.2",
                          "--port-addr", "0,10.1.0.1/24"], "neighcliq")
    check(rc != 0 and "one for the main lcore" in out,
          "net_pcap with one tx_pcap and --port-addr: refused, saying why (%s)" % out[-300:])
    good = [["--route", "0.0.0.0/0,1", "--route", "::/0,1"],
            ["--port-addr", "1,198.51.100.1/24", "--port-addr", "1,2001:db8:2::1/64",
             "--route", "0.0.0.0/0,1,198.51.100.254", "--route", "::/0,1,fe80::1"],
            ["--eth-dest", "1,02:00:00:00:00:09", "--route", "0.0.0.0/0,1,192.0.2.1"],
            ["--port-addr", "0,10.1.0.1/24", "--max-pkt-len", "9000", "--icmp-rate", "5"]]
    for i, args in enumerate(good):
        cmd = [binary] + E.EAL + ["-l", "0-1"] + vdevs + \
            ["--", "-p", "3", "-T", "0", "--duration", "0.2", "--relax-rx-offload",
             "--max-flows", "4096"] + args
        rc, out = E.run_dpdk(cmd, "neighcliok%d" % i)
        check(rc == 0, "%s: starts (rc %d: %s)" % (" ".join(args), rc, out.strip()[-300:]))


def main(argv):
    tests = {"arp": test_arp, "nd": test_nd, "resolve": test_resolve, "gone": test_gone,
             "echo": test_echo, "ttl": test_ttl, "oversized": test_oversized,
             "default": test_default, "telemetry": test_telemetry, "hostile": test_hostile,
             "cli": test_cli}
    if len(argv) != 3 or argv[2] not in tests:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxneigh_") as tmp:
        tests[argv[2]](argv[1], tmp)
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
