# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Packet and pcap helpers for the l3fwd-flowexp tests (standard library only).

Builders return Ethernet frames as bytes; checksums of IPv4 headers are
computed, and so are the TCP, UDP, ICMP and ICMPv6 checksums of every
datagram that is not a fragment and holds its L4 checksum field, unless the
field was given a value already (l4_cksum=False leaves it as it is): the
example verifies them and drops what fails.
PcapWriter/read_pcap handle classic pcap files with Ethernet link type.
"""

import ipaddress
import struct

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_ARP = 0x0806
ETH_VLAN = 0x8100
ETH_QINQ = 0x88A8
ETH_QINQ1 = 0x9100
VLAN_TYPES = (ETH_VLAN, ETH_QINQ, ETH_QINQ1)

PROTO_ICMP = 1
PROTO_TCP = 6
PROTO_UDP = 17
PROTO_GRE = 47
PROTO_ICMPV6 = 58

TCP_FIN = 0x01
TCP_SYN = 0x02
TCP_RST = 0x04
TCP_ACK = 0x10

SRC_MAC = bytes.fromhex("020000000a01")
DST_MAC = bytes.fromhex("020000000a02")


def csum(data):
    """Internet checksum of data."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(payload, ethertype, dst=DST_MAC, src=SRC_MAC):
    return dst + src + struct.pack("!H", ethertype) + payload


# where each protocol's checksum field is in its header
L4_CKSUM_AT = {PROTO_TCP: 16, PROTO_UDP: 6, PROTO_ICMP: 2, PROTO_ICMPV6: 2}


def l4_fill(src, dst, proto, seg, alen):
    """seg (a whole L4 datagram) with its checksum computed, if its
    checksum field is there and still 0; src and dst are packed addresses
    (the pseudo-header; ICMP over IPv4 has none)."""
    at = L4_CKSUM_AT.get(proto)
    if at is None or len(seg) < at + 2 or seg[at:at + 2] != b"\0\0":
        return seg
    if proto == PROTO_ICMP and alen == 4:
        c = csum(seg)
    else:
        ln = struct.pack("!H", len(seg)) if alen == 4 else struct.pack("!I", len(seg))
        c = csum(src + dst + bytes([0, proto]) + ln + seg) if alen == 4 else \
            csum(src + dst + ln + bytes([0, 0, 0, proto]) + seg)
        if proto == PROTO_UDP and c == 0:
            c = 0xFFFF   # 0 would mean "no checksum"
    return seg[:at] + struct.pack("!H", c) + seg[at + 2:]


def ipv4(src, dst, proto, payload, ttl=64, options=b"", frag=0,
         ihl=None, total_length=None, version=4, l4_cksum=True):
    """An IPv4 packet; ihl/total_length/version override the true values."""
    if l4_cksum and not frag & 0x3FFF:
        payload = l4_fill(ipaddress.IPv4Address(src).packed,
                          ipaddress.IPv4Address(dst).packed, proto, payload, 4)
    hl = 20 + len(options)
    if ihl is None:
        ihl = hl // 4
    if total_length is None:
        total_length = hl + len(payload)
    hdr = struct.pack("!BBHHHBBH4s4s", (version << 4) | ihl, 0, total_length,
                      0x1234, frag, ttl, proto, 0,
                      ipaddress.IPv4Address(src).packed,
                      ipaddress.IPv4Address(dst).packed) + options
    c = csum(hdr)
    hdr = hdr[:10] + struct.pack("!H", c) + hdr[12:]
    return hdr + payload


IPV6_EXT = (0, 43, 60, 51)   # hop-by-hop, routing, destination options, AH


def ipv6(src, dst, nh, payload, hlim=64, payload_len=None, version=6, l4_cksum=True):
    """An IPv6 packet; the L4 checksum is filled in after the extension
    headers in payload (not in a fragment)."""
    if l4_cksum:
        ofs, h = 0, nh
        while h in IPV6_EXT + (44,) and ofs + 8 <= len(payload):
            e = payload[ofs:]
            if h == 44:
                if (e[2] << 8 | e[3]) & 0xFFF9:
                    h = None   # a fragment: not checked
                    break
                ln = 8
            elif h == 51:
                ln = (e[1] + 2) * 4
            else:
                ln = (e[1] + 1) * 8
            h, ofs = e[0], ofs + ln
        if h is not None and ofs <= len(payload):
            payload = payload[:ofs] + l4_fill(ipaddress.IPv6Address(src).packed,
                                              ipaddress.IPv6Address(dst).packed, h,
                                              payload[ofs:], 16)
    if payload_len is None:
        payload_len = len(payload)
    return struct.pack("!IHBB16s16s", version << 28, payload_len, nh, hlim,
                       ipaddress.IPv6Address(src).packed,
                       ipaddress.IPv6Address(dst).packed) + payload


def ipv6_ext(nh, body_len=6):
    """A hop-by-hop / routing / destination-options style header of
    8 + (len-6 rounded) bytes: next header, length in 8-byte units - 1."""
    units = (body_len + 2) // 8
    return struct.pack("!BB", nh, units - 1) + bytes(units * 8 - 2)


def ipv6_frag(nh, offset=0, more=True):
    return struct.pack("!BBHI", nh, 0, (offset << 3) | (1 if more else 0), 0x42)


def tcp_opts(mss=None, wscale=None):
    """TCP options of a SYN: MSS, window scale (NOP padded to 4 bytes)."""
    o = b""
    if mss is not None:
        o += struct.pack("!BBH", 2, 4, mss)
    if wscale is not None:
        o += struct.pack("!BBBB", 1, 3, 3, wscale)
    return o


def tcp(sport, dport, flags=TCP_ACK, payload=b"", seq=1, ack=1, win=8192, options=b"",
        cksum=0):
    """A TCP segment; options a multiple of 4 bytes; cksum: a value to put
    in the checksum field (0: computed by the IP builder)."""
    return struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                       (5 + len(options) // 4) << 4, flags, win, cksum, 0) + options + payload


class TcpConn:
    """The sequence numbers of one TCP connection as its two ends send
    them: side 0 the client (cport), side 1 the server (sport). seg()
    makes a segment of a side, numbered where that side is (and moves it
    on, by the payload and a SYN or FIN) and acknowledging everything the
    other side sent; seq= or ack= give other numbers (a retransmission, a
    forgery), which move nothing."""

    def __init__(self, cport, sport, isn=(1000, 500000), win=(8192, 8192),
                 wscale=(None, None)):
        self.port = (cport, sport)
        self.isn = (isn[0] & 0xFFFFFFFF, isn[1] & 0xFFFFFFFF)
        self.nxt = list(self.isn)
        self.win = win
        self.wscale = wscale

    def seg(self, side, flags, payload=b"", seq=None, ack=None):
        o = 1 - side
        opts = tcp_opts(1460, self.wscale[side]) if flags & TCP_SYN else b""
        s = self.nxt[side] if seq is None else seq
        a = (self.nxt[o] if ack is None else ack) if flags & TCP_ACK else 0
        if seq is None:
            self.nxt[side] = (self.nxt[side] + len(payload) + (1 if flags & TCP_SYN else 0) +
                              (1 if flags & TCP_FIN else 0)) & 0xFFFFFFFF
        return tcp(self.port[side], self.port[o], flags, payload, seq=s, ack=a,
                   win=self.win[side], options=opts)


def udp(sport, dport, payload=b""):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def icmp_echo(ident, seq, reply=False, v6=False, payload=b"ping"):
    if v6:
        t = 129 if reply else 128
    else:
        t = 0 if reply else 8
    return struct.pack("!BBHHH", t, 0, 0, ident, seq) + payload


def tagged(frame, tags):
    """Insert VLAN tags [(tpid, vid), ...], outer first, after the MACs."""
    hdr = b"".join(struct.pack("!HH", tpid, vid) for tpid, vid in tags)
    return frame[:12] + hdr + frame[12:]


def l2_walk(frame, max_tags=2):
    """What parse.c makes of the Ethernet header and up to max_tags VLAN
    tags: ("runt" | "non_ip" | "ip", offset of L3, outer VLAN id)."""
    if len(frame) < 14:
        return "runt", 0, 0
    off, vid, et = 14, 0, int.from_bytes(frame[12:14], "big")
    for n in range(max_tags):
        if et not in VLAN_TYPES:
            break
        if len(frame) < off + 4:
            return "runt", off, vid
        if n == 0:
            vid = int.from_bytes(frame[off:off + 2], "big") & 0xFFF
        et = int.from_bytes(frame[off + 2:off + 4], "big")
        off += 4
    return ("ip" if et in (ETH_IPV4, ETH_IPV6) else "non_ip"), off, vid


def pad60(frame):
    """Ethernet minimum size (without FCS)."""
    return frame + bytes(max(0, 60 - len(frame)))


class PcapWriter:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        self.n = 0

    def write(self, frame, ts=None):
        """ts: capture time in seconds (default: 1 s + n us)."""
        self.n += 1
        if ts is None:
            sec, usec = 1, self.n
        else:
            sec, usec = int(ts), int(round((ts - int(ts)) * 1e6))
            if usec >= 1000000:
                sec, usec = sec + 1, usec - 1000000
        self.f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)))
        self.f.write(frame)

    def close(self):
        self.f.close()


def read_pcap(path):
    """The frames of a classic pcap file (either byte order)."""
    frames = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return frames
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            endian = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            endian = ">"
        else:
            raise ValueError("%s: not a pcap file" % path)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            _, _, caplen, _ = struct.unpack(endian + "IIII", rec)
            frames.append(f.read(caplen))
    return frames


# ---- the example's flow key and its owner under --affinity handoff ----

def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC32C = _crc32c_table()


def crc32c_raw(data, crc=0):
    """rte_hash_crc(data, len, crc): CRC-32C, reflected, no final xor."""
    for b in data:
        crc = _CRC32C[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def flow_key(fam, proto, src, dst, sport, dport, vlan=0):
    """The 40-byte symmetric key parse.c builds (ports in host numbers; for
    ICMP echo both are the identifier; the outer VLAN id in host order) and
    the packet's direction."""
    alen = 4 if fam == 4 else 16
    a = [ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed]
    p = [struct.pack("!H", sport), struct.pack("!H", dport)]
    # parse.c compares the addresses bytewise, then the ports as the
    # network-order field read as a little-endian number
    c = (a[0] > a[1]) - (a[0] < a[1])
    if c == 0:
        c = struct.unpack("<H", p[0])[0] - struct.unpack("<H", p[1])[0]
    d = 0
    if c > 0:
        a.reverse()
        p.reverse()
        d = 1
    key = b"".join(x + bytes(16 - alen) for x in a) + p[0] + p[1] + \
        bytes([proto, fam]) + struct.pack("=H", vlan)
    return key, d


# The hash secret the tests run the example with (--hash-secret), so that
# they know which worker owns a key: fxhash.h with k0, k1.
HASH_SECRET = (0x0001020304050607, 0x08090a0b0c0d0e0f)
HASH_SECRET_ARG = ["--hash-secret", "%016x%016x" % HASH_SECRET]

_M64 = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M64


def _sipround(v):
    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & _M64
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = (v2 + v3) & _M64
    v3 = _rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & _M64
    v3 = _rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & _M64
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return [v0, v1, v2, v3]


def siphash13(secret, m):
    """SipHash-1-3 of the 8-byte little-endian word m under secret (k0, k1),
    64 bits (fxhash.c: fx_siphash13(), the key expansion)."""
    k0, k1 = secret
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    for w in (m, 8 << 56):
        v[3] ^= w
        v = _sipround(v)
        v[0] ^= w
    v[2] ^= 0xFF
    for _ in range(3):
        v = _sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


FX_HASH_WORDS_MAX = 8
_fx_keys = {}


def fx_hash_key(secret):
    """fxhash.c: fx_hash_set_secret(): ([a_0, b_0, a_1, ...], f)."""
    if secret not in _fx_keys:
        w = []
        for i in range(FX_HASH_WORDS_MAX):
            s = siphash13(secret, i)
            w += [s & 0xFFFFFFFF, s >> 32]
        _fx_keys[secret] = (w, siphash13(secret, FX_HASH_WORDS_MAX))
    return _fx_keys[secret]


def fx_mix64(x):
    """fxhash.h: fx_hash_mix64()."""
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & _M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & _M64
    x ^= x >> 33
    return x


def fx_hash(data, secret=HASH_SECRET):
    """fxhash.h: fx_hash_words(), the keyed hash of a key of 8-byte words
    (little-endian) with secret (k0, k1), 32 bits."""
    assert len(data) % 8 == 0 and len(data) <= 8 * FX_HASH_WORDS_MAX
    w, s = fx_hash_key(secret)
    for i, (lo, hi) in enumerate(struct.iter_unpack("<II", data)):
        s += ((lo + w[2 * i]) & 0xFFFFFFFF) * ((hi + w[2 * i + 1]) & 0xFFFFFFFF)
    return fx_mix64(s & _M64) >> 32


def handoff_owner(key, nb_workers):
    """affinity.h: fx_affinity_owner(ft_hash(key), nb_workers), the
    example run with HASH_SECRET."""
    return affinity_owner(fx_hash(key), nb_workers)


def eim_owner(addr, port, proto, nb_workers):
    """nat_eim.h: nat_eim_owner(), the worker that owns an inside endpoint
    under --nat-mapping eim (port: the ICMP echo identifier for ICMP): the
    keyed hash of the binding table's 16-byte inside key (address, 0, port,
    0, proto, network order), the example run with HASH_SECRET."""
    key = ipaddress.IPv4Address(addr).packed + bytes(4) + \
        struct.pack("!HH", port, 0) + bytes([proto, 0, 0, 0])
    return affinity_owner(fx_hash(key), nb_workers)


def affinity_owner(h, nb_workers):
    """affinity.h: fx_affinity_owner() of a 32-bit hash."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return (h * nb_workers) >> 32
