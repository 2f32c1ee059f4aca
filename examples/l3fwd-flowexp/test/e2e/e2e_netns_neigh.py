#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Real clients with no static neighbour anywhere (meson suite e2e,
flowexp_neigh_netns).

  e2e_netns_neigh.py BINARY

Three network namespaces, all made for this run (names with the PID):

  inside  10.78.0.2/24            [port 0   l3fwd-flowexp   port 1]     outside 198.51.101.2/24
          2001:db8:78::2/64 --veth-- 10.78.0.1   198.51.101.1 --veth-- 2001:db8:79::2/64
                                     2001:db8:78::1 2001:db8:79::1     192.0.2.80/32 on lo

The example runs in the middle namespace on net_af_packet (two queue pairs
per port: the worker's and the main lcore's), with --port-addr on both
ports, no --eth-dest, and nobody has an `ip neigh` entry made by hand: the
inside kernel resolves its gateway 10.78.0.1 by ARP and 2001:db8:78::1 by
ND, the outside kernel resolves 198.51.101.1 and, with an on-link route
to it, the NAT pool address 203.0.113.10 by ARP; the example resolves
the inside host (on-link), the server (on-link) and the next hop of its
default route (the server, for 192.0.2.80). NAT (--nat-outside 1) for
IPv4; IPv6 goes through the flow tracker.

Checks:
  - curl from the inside to http://192.0.2.80:8080 (the default route's
    next hop) gets the page, the server sees the pool address;
  - a TCP client reaches the echo server on 198.51.101.2 (on-link), which
    sees the pool address;
  - curl -6 to http://[2001:db8:79::2]:8080 gets the page, by ND both ways;
  - ping (ICMP echo, a raw socket) of 10.78.0.1 and 2001:db8:78::1 from the
    inside, and of 198.51.101.1 from the outside, is answered;
  - both kernels' neighbour tables hold the example's port MACs, learnt
    (not permanent), for its addresses and the pool;
  - then the server's link goes down while the inside keeps sending to
    192.0.2.80: the example's entry for its next hop goes stale, is used
    (delay), probed by unicast ARP three times and fails; counted
    (neigh_failed, arp_probes_sent), with short neighbour times;
  - counters: ARP and NS answered, neighbours resolved, echo replies.

Exit status 77 (skipped) when the DPDK build has no net_af_packet driver,
or when namespaces or veth pairs cannot be made (not root, no `ip netns`,
no ethtool or curl). Everything made is removed in any case.

The same file is the helper run inside the namespaces:
  e2e_netns_neigh.py --serve DIR        HTTP (8080) on 198.51.101.2,
                                        192.0.2.80 and 2001:db8:79::2, TCP
                                        echo (7000) on 198.51.101.2, one JSON
                                        line per event
  e2e_netns_neigh.py --tcp ADDR         connect, send, report the echo
  e2e_netns_neigh.py --ping ADDR        one ICMP or ICMPv6 echo, report it
  e2e_netns_neigh.py --udp ADDR N MS    N datagrams to ADDR:7777, MS apart
"""

import os
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_netns as NS  # noqa: E402
from fxpkt import csum  # noqa: E402
from e2e_netns import Skip, sh, json_lines, wait_lines, dispatch  # noqa: E402,F401

SKIP = NS.SKIP

POOL = "203.0.113.10"
IN4, IN6 = "10.78.0.2", "2001:db8:78::2"
GW_IN4, GW_IN6 = "10.78.0.1", "2001:db8:78::1"
SRV4, SRV6, FAR = "198.51.101.2", "2001:db8:79::2", "192.0.2.80"
GW_OUT4, GW_OUT6 = "198.51.101.1", "2001:db8:79::1"
HTTP_PORT, ECHO_PORT, SINK_PORT = 8080, 7000, 7777
HANG = 20.0
TOKEN = "fxneigh-page-%d" % os.getpid()
TIMES = ["--neigh-reachable-ms", "1000", "--neigh-delay-ms", "500",
         "--neigh-retrans-ms", "200", "--neigh-probes", "3", "--neigh-stale-ms", "30000"]


# ---------------------------------------------------------------- helpers

emit = NS.emit


def serve(directory):
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            emit(http=self.client_address[0], line=fmt % args)

    class Server6(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6

    for addr in (SRV4, FAR, SRV6):
        cls = Server6 if ":" in addr else http.server.ThreadingHTTPServer
        httpd = cls((addr, HTTP_PORT), functools.partial(Handler, directory=directory))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
    NS.tcp_echo(SRV4, ECHO_PORT, data_events=False)
    emit(ready=True)
    while True:
        time.sleep(3600)


def tcp_client(addr):
    try:
        s = socket.create_connection((addr, ECHO_PORT), timeout=HANG)
        msg = b"through the gateway"
        s.sendall(msg)
        got = b""
        while len(got) < len(msg):
            d = s.recv(4096)
            if not d:
                break
            got += d
        emit(ok=got == msg, local=list(s.getsockname()))
    except OSError as e:
        emit(ok=False, error=str(e))


def ping(addr):
    v6 = ":" in addr
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_RAW,
                      socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
    s.settimeout(2.0)
    ident = os.getpid() & 0xFFFF
    end = time.monotonic() + HANG
    seq = 0
    while time.monotonic() < end:
        seq += 1
        body = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, ident, seq) + b"fxneigh"
        if not v6:
            body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
        s.sendto(body, (addr, 0))   # the kernel computes the ICMPv6 checksum
        try:
            while True:
                d, peer = s.recvfrom(4096)
                if not v6:
                    d = d[(d[0] & 15) * 4:]
                t = d[0]
                if t == (129 if v6 else 0) and struct.unpack("!H", d[4:6])[0] == ident:
                    emit(ok=True, seq=seq, peer=peer[0])
                    return
        except socket.timeout:
            continue
    emit(ok=False)


def udp_burst(addr, n, ms):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(int(n)):
        s.sendto(b"tick %d" % i, (addr, SINK_PORT))
        time.sleep(int(ms) / 1000.0)
    emit(sent=int(n))


# ---------------------------------------------------------------- the test

class Topology(NS.Topology):
    """e2e_netns.py's, with IPv6 and no neighbour entry."""

    script = os.path.abspath(__file__)

    def __init__(self):
        super().__init__("fxnn", ("fxnp0", "fxni", "fxnp1", "fxno"))

    def build(self):
        self.links(ipv6_ends=True)
        i, o = self.ns_in, self.ns_out
        sh(*self.nsx(i, "ip", "addr", "add", IN4 + "/24", "dev", self.if_in))
        sh(*self.nsx(i, "ip", "-6", "addr", "add", IN6 + "/64", "dev", self.if_in, "nodad"))
        sh(*self.nsx(i, "ip", "route", "add", "default", "via", GW_IN4))
        sh(*self.nsx(i, "ip", "-6", "route", "add", "default", "via", GW_IN6))
        sh(*self.nsx(o, "ip", "addr", "add", SRV4 + "/24", "dev", self.if_out))
        sh(*self.nsx(o, "ip", "-6", "addr", "add", SRV6 + "/64", "dev", self.if_out, "nodad"))
        sh(*self.nsx(o, "ip", "addr", "add", FAR + "/32", "dev", "lo"))
        # the pool on-link: this kernel asks for it by ARP
        sh(*self.nsx(o, "ip", "route", "add", POOL + "/32", "dev", self.if_out))
        sh(*self.nsx(o, "ip", "-6", "route", "add", "2001:db8:78::/64", "via", GW_OUT6))


def neighbours(topo, ns):
    """{address: (lladdr, states)} of the namespace's kernel."""
    out = {}
    for fam in ("-4", "-6"):
        for line in sh(*topo.nsx(ns, "ip", fam, "neigh", "show")).stdout.splitlines():
            f = line.split()
            if "lladdr" in f:
                out[f[0]] = (f[f.index("lladdr") + 1], f[-1])
    return out


def port_macs(log):
    """{port: MAC} as the example's log says at start."""
    macs = {}
    with open(log) as f:
        for line in f:
            if line.startswith("port ") and ": MAC " in line:
                macs[int(line.split()[1].rstrip(":"))] = line.split()[3].rstrip(",").lower()
    return macs


def run(binary, tmp, topo):
    import e2e_flowexp as E
    check = E.check
    topo.build()
    cfg = "(0,0,1),(0,1,1),(1,0,1),(1,1,1)"
    app = ["-p", "3", "--config", cfg, "--parse-ptype", "--relax-rx-offload", "-T", "0",
           "--tick-us", "1000", "--duration", "90", "--max-flows", "4096",
           "--port-addr", "0,%s/24" % GW_IN4, "--port-addr", "0,%s/64" % GW_IN6,
           "--port-addr", "1,%s/24" % GW_OUT4, "--port-addr", "1,%s/64" % GW_OUT6,
           "--route", "10.78.0.0/24,0", "--route", "2001:db8:78::/64,0",
           "--route", "198.51.101.0/24,1", "--route", "2001:db8:79::/64,1",
           "--route", "0.0.0.0/0,1,%s" % SRV4,
           "--nat-pool", POOL + "/32", "--nat-inside", "10.78.0.0/24", "--nat-outside", "1",
           "--timeout-oneway", "30", "--timeout-tcp-syn", "30"] + TIMES
    eal = ["netns", "exec", topo.ns_mid, binary] + E.EAL + \
        ["--lcores", "0@0,1@1",
         "--vdev", "net_af_packet0,iface=%s,qpairs=2" % topo.if_p0,
         "--vdev", "net_af_packet1,iface=%s,qpairs=2" % topo.if_p1]
    ex = E.Example("ip", "neigh_netns", eal, app, tmp)
    st = None
    try:
        slog = topo.serve_page(ex, tmp, TOKEN, ["--serve"])
        if slog is None:
            return
        # FAR: behind the default route's next hop
        topo.get_page("http://%s:%d/index.html" % (FAR, HTTP_PORT), TOKEN)
        hits = wait_lines(slog, lambda e: "http" in e, HANG)
        check(hits and hits[0]["http"] == POOL, "the server saw the pool address (%s)" % hits)
        t = topo.helper(topo.ns_in, ["--tcp", SRV4])
        check(t.get("ok"), "a TCP client reaches the echo server on-link (%s)" % t)
        acc = wait_lines(slog, lambda e: "tcp_accept" in e, HANG)
        check(acc and acc[0]["tcp_accept"][0] == POOL,
              "the echo server saw the pool address (%s)" % acc)
        # by ND
        topo.get_page("http://[%s]:%d/index.html" % (SRV6, HTTP_PORT), TOKEN, "-6", "-g")
        hits6 = [e for e in json_lines(slog) if e.get("http") == IN6]
        check(hits6, "the IPv6 server saw the inside host's own address (flow tracker)")
        for ns, addr in ((topo.ns_in, GW_IN4), (topo.ns_in, GW_IN6), (topo.ns_out, GW_OUT4)):
            p = topo.helper(ns, ["--ping", addr])
            check(p.get("ok") and p.get("peer") == addr, "ping %s answered (%s)" % (addr, p))
        # the kernels learnt the example's MACs
        s = ex.stats()
        macs = port_macs(ex.log)
        nin, nout = neighbours(topo, topo.ns_in), neighbours(topo, topo.ns_out)
        for tab, addr, port in ((nin, GW_IN4, 0), (nin, GW_IN6, 0), (nout, GW_OUT4, 1),
                                (nout, POOL, 1)):
            got = tab.get(addr)
            check(got is not None and got[0] == macs.get(port) and got[1] != "PERMANENT",
                  "the kernel learnt %s at port %d's MAC %s (%s)" % (addr, port, macs.get(port),
                                                                     got))

        # the server goes away; the inside keeps sending to it
        before = s["neigh"]
        sh(*topo.nsx(topo.ns_out, "ip", "link", "set", topo.if_out, "down"))
        u = topo.helper(topo.ns_in, ["--udp", FAR, "40", "100"], timeout=60)
        check(u.get("sent") == 40, "the inside sent 40 datagrams over 4 s (%s)" % u)
        s = ex.wait_for(lambda s: s["neigh"]["neigh_failed"] > before["neigh_failed"],
                        "the server's entry failed", timeout=20)
        if s is not None:
            n = s["neigh"]
            check(n["arp_probes_sent"] - before["arp_probes_sent"] >= 3,
                  "probed by unicast ARP first (%d probes)"
                  % (n["arp_probes_sent"] - before["arp_probes_sent"]))
            check(n["neigh_stale_used"] > before["neigh_stale_used"],
                  "used while stale first (delay)")
            ent = ex.tel("/l3fwd_flowexp/neigh,1")
            e = [v for v in ent.get("neighbours", {}).values() if v.startswith(SRV4 + " ")]
            check(e and e[0].split()[1] in ("failed", "incomplete"),
                  "/l3fwd_flowexp/neigh,1: the server's entry failed or incomplete (%s)" % e)
    finally:
        st = ex.finish(stop=True)
    if st is None:
        return
    n = st["neigh"]
    # a kernel that got an ARP request or NS from the example learnt it
    # from that and may never ask itself
    check(n["arp_requests_answered"] >= 2 and n["ns_answered"] >= 1,
          "ARP requests and NS answered (%d, %d)" % (n["arp_requests_answered"], n["ns_answered"]))
    check(n["neigh_resolved"] >= 2 and n["echo_replies"] >= 3,
          "neighbours resolved (%d), echo replies (%d)" % (n["neigh_resolved"], n["echo_replies"]))
    check(st["totals"]["nat_created"] >= 2, "NAT mappings made (%d)" % st["totals"]["nat_created"])


def main(argv):
    helpers = {"--serve": lambda a: serve(a[0]), "--tcp": lambda a: tcp_client(a[0]),
               "--ping": lambda a: ping(a[0]), "--udp": lambda a: udp_burst(*a)}
    return dispatch(argv, __doc__, helpers, Topology, run, "fxneighns_")

if __name__ == "__main__":
    sys.exit(main(sys.argv))
