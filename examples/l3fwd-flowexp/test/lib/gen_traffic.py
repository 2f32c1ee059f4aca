#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Write test traffic for dpdk-l3fwd-flowexp as a pcap, and what the example
must make of it as JSON.

  gen_traffic.py flows N OUT.pcap OUT.json   N distinct flows: IPv4 and IPv6,
                                            TCP, UDP and ICMP echo; half of
                                            them answered, half of the
                                            answered TCP ones closed with FIN
  gen_traffic.py malformed OUT.pcap OUT.json one frame per parser rule

The expectations name the flows by timeout class (the class a flow is in
when it expires), the packets to forward, and the malformed causes.
"""

import json
import random
import struct
import sys

import fxpkt as P

KINDS = [(4, P.PROTO_TCP), (4, P.PROTO_UDP), (4, P.PROTO_ICMP),
         (6, P.PROTO_TCP), (6, P.PROTO_UDP), (6, P.PROTO_ICMP)]


def addrs(fam, i, net=(1, 2)):
    """Client and server address of flow i (unique per flow)."""
    if fam == 4:
        return ("10.%d.%d.%d" % (net[0], (i >> 8) & 255, i & 255),
                "10.%d.%d.%d" % (net[1], (i >> 8) & 255, i & 255))
    return ("2001:db8:%x::%x" % (net[0], i), "2001:db8:%x::%x" % (net[1], i))


def packet(fam, proto, src, dst, sport, dport, reply=False, flags=P.TCP_ACK, l4=None):
    """One frame of a flow; for ICMP the ports are (ident, seq); l4: the
    TCP segment (P.TcpConn.seg) instead of one with made-up numbers."""
    if l4 is not None:
        pass
    elif proto == P.PROTO_TCP:
        l4 = P.tcp(sport, dport, flags)
    elif proto == P.PROTO_UDP:
        l4 = P.udp(sport, dport, b"data")
    else:
        l4 = P.icmp_echo(sport, dport, reply=reply, v6=(fam == 6))
    if fam == 4:
        return P.pad60(P.eth(P.ipv4(src, dst, proto, l4), P.ETH_IPV4))
    nh = P.PROTO_ICMPV6 if proto == P.PROTO_ICMP else proto
    return P.pad60(P.eth(P.ipv6(src, dst, nh, l4), P.ETH_IPV6))


def tcp_flow_packets(i, fam, cli, srv, cport, sport, two_way, closing):
    """Flow i as a TCP connection with real sequence numbers: a SYN (sent
    again i % 3 times, unanswered), or a handshake, i % 3 data segments
    from the client and i % 2 from the server, and FINs both ways."""
    c = P.TcpConn(cport, sport, isn=(1000 + 7919 * i, 3000000 + 104729 * i))
    A, S, SA, F = P.TCP_ACK, P.TCP_SYN, P.TCP_SYN | P.TCP_ACK, P.TCP_FIN | P.TCP_ACK

    def fwd(l4):
        return packet(fam, P.PROTO_TCP, cli, srv, cport, sport, l4=l4)

    def rev(l4):
        return packet(fam, P.PROTO_TCP, srv, cli, sport, cport, l4=l4)
    out = [fwd(c.seg(0, S))]
    if not two_way:
        return out + [fwd(c.seg(0, S, seq=c.isn[0])) for _ in range(i % 3)]
    out += [rev(c.seg(1, SA)), fwd(c.seg(0, A))]
    out += [fwd(c.seg(0, A, b"data")) for _ in range(i % 3)]
    out += [rev(c.seg(1, A, b"data")) for _ in range(i % 2)]
    if closing:
        out += [fwd(c.seg(0, F)), rev(c.seg(1, F))]
    return out


def flow_packets(i, net=(1, 2), tcp_answered=True):
    """The frames of flow i in order, and its expected timeout class. With
    tcp_answered False, every TCP flow is a SYN alone."""
    fam, proto = KINDS[i % len(KINDS)]
    two_way = (i // len(KINDS)) % 2 == 0 and (tcp_answered or proto != P.PROTO_TCP)
    closing = proto == P.PROTO_TCP and two_way and (i // 12) % 2 == 0
    cli, srv = addrs(fam, i, net)
    cport, sport = 1024 + i % 50000, (80 if proto == P.PROTO_TCP else 53)
    if proto == P.PROTO_ICMP:
        cport, sport = i & 0xFFFF, 1   # ident, seq
    if not two_way:
        # every TCP flow here opens with a SYN: unanswered, it is SYN_SENT
        cls = "tcp_syn" if proto == P.PROTO_TCP else "oneway"
    elif proto == P.PROTO_TCP:
        cls = "tcp_close" if closing else "tcp"
    elif proto == P.PROTO_UDP:
        cls = "udp"
    else:
        cls = "icmp"
    if proto == P.PROTO_TCP:
        return tcp_flow_packets(i, fam, cli, srv, cport, sport, two_way, closing), cls
    out = [packet(fam, proto, cli, srv, cport, sport) for _ in range(1 + i % 3)]
    if two_way:
        for k in range(1 + i % 2):
            if proto == P.PROTO_ICMP:
                out.append(packet(fam, proto, srv, cli, cport, sport, reply=True))
            else:
                out.append(packet(fam, proto, srv, cli, sport, cport))
    return out, cls


def flow_key(i, net=(1, 2)):
    """The example's key of flow i (fxpkt.flow_key), as hex."""
    fam, proto = KINDS[i % len(KINDS)]
    cli, srv = addrs(fam, i, net)
    if proto == P.PROTO_ICMP:
        ident = i & 0xFFFF
        return P.flow_key(fam, P.PROTO_ICMPV6 if fam == 6 else proto, cli, srv,
                          ident, ident)[0].hex()
    sport = 80 if proto == P.PROTO_TCP else 53
    return P.flow_key(fam, proto, cli, srv, 1024 + i % 50000, sport)[0].hex()


def interleave(per_flow, pairs_every=7):
    """Round robin over the flows; every pairs_every-th flow sends its first
    two packets back to back, so they share a burst (two misses of one new
    flow in one lookup)."""
    queues = []
    for i, pkts in enumerate(per_flow):
        if i % pairs_every == 0 and len(pkts) >= 2:
            queues.append([("pair", pkts[0], pkts[1])] + pkts[2:])
        else:
            queues.append(list(pkts))
    frames = []
    rnd = 0
    while True:
        any_left = False
        for q in queues:
            if rnd < len(q):
                any_left = True
                item = q[rnd]
                if isinstance(item, tuple):
                    frames.extend(item[1:])
                else:
                    frames.append(item)
        if not any_left:
            return frames
        rnd += 1


def flows_traffic(n, net=(1, 2), first=0, tcp_answered=True):
    per_flow, classes, endpoints, keys = [], {}, [], []
    for i in range(first, first + n):
        pkts, cls = flow_packets(i, net, tcp_answered)
        per_flow.append(pkts)
        classes[cls] = classes.get(cls, 0) + 1
        endpoints.append(addrs(KINDS[i % len(KINDS)][0], i, net))
        keys.append(flow_key(i, net))
    frames = interleave(per_flow)
    expect = {
        "flows": n,
        "packets": len(frames),
        "classes": classes,
        "two_way": n - classes.get("oneway", 0) - classes.get("tcp_syn", 0),
        "shortened": classes.get("tcp_close", 0),
        "endpoints": endpoints,
        "keys": keys,
    }
    return frames, expect


def malformed_traffic():
    """One frame per rule of parse.c: (frame, cause or None, new-flow?)."""
    v4 = lambda proto, l4, **kw: P.eth(P.ipv4("10.5.0.1", "10.6.0.1", proto, l4, **kw), P.ETH_IPV4)
    v6 = lambda nh, pl, **kw: P.eth(P.ipv6("2001:db8:5::1", "2001:db8:6::1", nh, pl, **kw), P.ETH_IPV6)
    u = P.udp(1000, 2000, b"x" * 8)
    # a checksum field value that is not the right one
    bad_tcp = 0x1234
    # 3000 bytes: more than an mbuf's 2048 of data, so net_pcap chains two
    jumbo = v4(17, P.udp(1002, 2002, bytes(range(256)) * 11 + b"j" * 130))
    jumbo_bad = bytearray(v4(17, P.udp(1003, 2003, bytes(range(256)) * 11 + b"j" * 130)))
    jumbo_bad[2500] ^= 0x40
    jumbo_bad = bytes(jumbo_bad)
    cases = [
        ("runt frame", P.eth(b"", P.ETH_IPV4)[:10], "runt"),
        ("ARP", P.pad60(P.eth(bytes(28), P.ETH_ARP)), "non_ip"),
        ("VLAN tag cut", P.eth(bytes([0, 1]), P.ETH_VLAN), "runt"),
        ("QinQ inner tag cut", P.eth(struct.pack("!HHH", 1, P.ETH_VLAN, 2), P.ETH_QINQ), "runt"),
        ("three VLAN tags", P.pad60(P.tagged(P.eth(P.ipv4("10.5.0.1", "10.6.0.1", 17, u), P.ETH_IPV4),
                                             [(P.ETH_QINQ, 1), (P.ETH_VLAN, 2), (P.ETH_VLAN, 3)])), "non_ip"),
        ("VLAN tagged ARP", P.pad60(P.tagged(P.eth(bytes(28), P.ETH_ARP), [(P.ETH_VLAN, 5)])), "non_ip"),
        ("IPv4 runt", P.eth(bytes(6), P.ETH_IPV4), "runt"),
        ("IPv6 runt", P.eth(bytes(30), P.ETH_IPV6), "runt"),
        ("IPv4 version 6", P.pad60(v4(17, u, version=6)), "ip_version"),
        ("IPv6 version 4", v6(17, u, version=4), "ip_version"),
        ("IHL 4", P.pad60(v4(17, u, ihl=4)), "ipv4_ihl"),
        ("IHL beyond frame", v4(17, b"", ihl=15), "ipv4_ihl"),
        ("total length > frame", P.pad60(v4(17, u, total_length=1000)), "ipv4_len"),
        ("total length < IHL", P.pad60(v4(17, u, total_length=12)), "ipv4_len"),
        ("TCP header cut", P.pad60(v4(6, P.tcp(1, 2)[:10])), "l4_trunc"),
        ("UDP header cut", P.pad60(v4(17, u[:4])), "l4_trunc"),
        ("ICMP header cut", P.pad60(v4(1, b"\x08\x00\x00")), "l4_trunc"),
        ("TTL 1", P.pad60(v4(17, u, ttl=1)), "ttl_exceeded"),
        ("IPv6 payload length > frame", v6(17, u, payload_len=500), "ipv6_len"),
        ("IPv6 hop-by-hop past payload", v6(0, bytes([17, 8]) + bytes(6)), "ipv6_ext"),
        ("IPv6 extension chain cut", v6(60, P.ipv6_ext(60)[:4]), "ipv6_ext"),
        ("IPv6 nine extension headers", v6(60, b"".join(P.ipv6_ext(60) for _ in range(8)) + P.ipv6_ext(17) + u), "ipv6_ext"),
        ("IPv6 UDP cut", v6(17, u[:6]), "l4_trunc"),
        ("IPv6 hop limit 1", v6(17, u, hlim=1), "ttl_exceeded"),
        # valid ones: forwarded and tracked
        ("IPv6 hop-by-hop + dst-opts + UDP", v6(0, P.ipv6_ext(60) + P.ipv6_ext(17) + u), None),
        ("IPv6 first fragment", v6(44, P.ipv6_frag(17, 0, True) + u), None),
        ("IPv6 later fragment", v6(44, P.ipv6_frag(17, 3, False) + b"y" * 8), None),
        ("IPv4 first fragment", P.pad60(v4(17, u, frag=0x2000)), None),
        ("IPv4 later fragment", P.pad60(v4(17, b"z" * 8, frag=0x0003)), None),
        ("IPv4 options", P.pad60(v4(17, u, options=bytes([1, 1, 1, 0]))), None),
        ("IPv4 GRE", P.pad60(v4(47, bytes(4))), None),
        ("IPv4 with padding", P.pad60(v4(17, P.udp(7, 9))), None),
        # the UDP tuple of "IPv4 options", on VLAN 1: another flow
        ("VLAN tagged", P.pad60(P.tagged(v4(17, u), [(P.ETH_VLAN, 1)])), None),
        # and on QinQ outer 1: the VLAN 1 flow again (the outer id is the key)
        ("QinQ tagged", P.pad60(P.tagged(v4(17, u), [(P.ETH_QINQ, 1), (P.ETH_VLAN, 7)])), None),
        ("VLAN tagged IPv6 TTL 1", P.tagged(v6(17, u, hlim=1), [(P.ETH_VLAN, 9)]), "ttl_exceeded"),
        # L4 checksums: computed where no NIC said (net_pcap says nothing)
        ("TCP checksum wrong", P.pad60(v4(6, P.tcp(1000, 2000, P.TCP_SYN, cksum=bad_tcp))), "l4_cksum"),
        ("UDP checksum wrong", P.pad60(v4(17, u[:6] + b"\xbe\xef" + u[8:])), "l4_cksum"),
        ("ICMP checksum wrong", P.pad60(v4(1, b"\x08\x00\x12\x34" + bytes(4) + b"ping")), "l4_cksum"),
        ("TTL 1 and UDP checksum wrong", P.pad60(v4(17, u[:6] + b"\xbe\xef" + u[8:], ttl=1)), "ttl_exceeded"),
        ("IPv6 UDP without checksum", v6(17, u, l4_cksum=False), "l4_cksum"),
        ("IPv6 dst-opts + TCP checksum wrong",
         v6(60, P.ipv6_ext(6) + P.tcp(1000, 2000, P.TCP_SYN, cksum=0x4321)), "l4_cksum"),
        ("ICMPv6 checksum wrong", v6(58, b"\x80\x00\x12\x34" + bytes(4) + b"ping"), "l4_cksum"),
        ("jumbo UDP, a byte wrong in the second segment", jumbo_bad, "l4_cksum"),
        # and valid ones
        ("UDP without checksum (IPv4)", P.pad60(v4(17, P.udp(1001, 2001, b"x" * 8), l4_cksum=False)), None),
        ("IPv6 dst-opts + TCP SYN", v6(60, P.ipv6_ext(6) + P.tcp(1000, 2000, P.TCP_SYN, seq=77)), None),
        ("jumbo UDP over two segments", jumbo, None),
    ]
    frames = [c[1] for c in cases]
    causes = {}
    for _, _, cause in cases:
        if cause:
            causes[cause] = causes.get(cause, 0) + 1
    forwarded = sum(1 for c in cases if c[2] is None)
    expect = {
        "packets": len(frames),
        "forwarded": forwarded,
        # distinct keys among the valid ones: the two IPv4 fragments share
        # one 3-tuple flow (ports 0), the two IPv6 fragments another, the
        # IPv4 options / padding UDP packets differ in ports, and the
        # tagged ones make one more (outer VLAN 1); then the UDP without
        # checksum, the TCP SYN after IPv6 options and the jumbo UDP
        "flows": 10,
        "fragments": 4,
        "causes": causes,
        "names": [c[0] for c in cases],
    }
    return frames, expect


def random_traffic(n, seed):
    """n frames that try to break the parser, deterministically from seed:
    random bytes, valid frames with bytes flipped or cut short, IPv4 and
    IPv6 headers with random field values and extension chains, and frames
    behind random VLAN tags. Returns the frames and what can be known of
    them without the IP rules: how many are cut inside the Ethernet header
    or a VLAN tag, and how many carry neither IPv4 nor IPv6 after the tags."""
    rng = random.Random(seed)
    valid = [f for i in range(64) for f in flow_packets(i, net=(7, 8))[0]]
    valid += [c for c in malformed_traffic()[0]]
    frames = []
    for _ in range(n):
        kind = rng.randrange(7)
        if kind == 0:               # random bytes, mostly short
            ln = rng.choice([rng.randrange(0, 80), rng.randrange(0, 1515)])
            f = bytes(rng.getrandbits(8) for _ in range(ln))
        elif kind == 1:             # a valid frame with some bytes flipped
            f = bytearray(rng.choice(valid))
            for _ in range(rng.randrange(1, 6)):
                if f:
                    f[rng.randrange(min(len(f), 80))] ^= 1 << rng.randrange(8)
            f = bytes(f)
        elif kind == 2:             # a valid frame cut short
            f = rng.choice(valid)
            f = f[:rng.randrange(len(f) + 1)]
        elif kind == 3:             # IPv4 with random header fields
            hdr = bytearray(P.ipv4("10.7.0.1", "10.8.0.1", rng.choice([1, 6, 17, 47, rng.randrange(256)]),
                                   bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 40)))))
            hdr[0] = rng.getrandbits(8)                 # version and IHL
            hdr[2:4] = rng.getrandbits(16).to_bytes(2, "big")   # total length
            hdr[6:8] = rng.getrandbits(16).to_bytes(2, "big")   # flags, offset
            hdr[8] = rng.getrandbits(8)                 # TTL
            f = P.eth(bytes(hdr), P.ETH_IPV4)
        elif kind == 4:             # IPv6 with a random extension chain
            chain, nh = b"", rng.choice([17, 6, 58])
            for _ in range(rng.randrange(0, 12)):
                ext = rng.choice([0, 43, 44, 60, 51, 135, rng.randrange(256)])
                chain = bytes([nh, rng.randrange(4)]) + bytes(rng.getrandbits(8) for _ in range(6)) + chain
                nh = ext
            pl = chain + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 24)))
            f = P.eth(P.ipv6("2001:db8:7::1", "2001:db8:8::1", nh, pl,
                             payload_len=rng.choice([None, rng.getrandbits(16)]),
                             hlim=rng.getrandbits(8)), P.ETH_IPV6)
        elif kind == 5:             # behind zero to three VLAN tags
            f = rng.choice(valid)
            tags = [(rng.choice(P.VLAN_TYPES), rng.getrandbits(16)) for _ in range(rng.randrange(4))]
            f = P.tagged(f, tags)[:rng.choice([rng.randrange(12, 26), 2000])]
        else:                       # an ethertype that is not IP
            f = P.pad60(P.eth(bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 60))),
                              rng.choice([0x0806, 0x8100, 0x88cc, 0x8847, rng.getrandbits(16)])))
        frames.append(f)
    expect = {
        "packets": n,
        "runt_eth": sum(1 for f in frames if P.l2_walk(f)[0] == "runt"),
        "non_ip": sum(1 for f in frames if P.l2_walk(f)[0] == "non_ip"),
    }
    return frames, expect


def write(frames, expect, pcap, js):
    w = P.PcapWriter(pcap)
    for f in frames:
        w.write(f)
    w.close()
    with open(js, "w") as f:
        json.dump(expect, f, indent=1)


def main(argv):
    if len(argv) == 5 and argv[1] == "flows":
        frames, expect = flows_traffic(int(argv[2]))
        write(frames, expect, argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "malformed":
        frames, expect = malformed_traffic()
        write(frames, expect, argv[2], argv[3])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
