#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Masquerade NAT with real clients (meson suite e2e, flowexp_nat_netns).

  e2e_netns.py BINARY

Three network namespaces, all made for this run (names with the PID):

  inside  10.77.0.2/24 --veth-- [port 0  l3fwd-flowexp  port 1] --veth-- outside 198.51.100.2/24
                                  (middle namespace, net_af_packet on
                                   its two veth ends; pool 203.0.113.9)

The example runs in the middle namespace, which has no address, no route
and forwards nothing itself. It does not answer ARP, so the inside and
outside namespaces have permanent neighbour entries for its ports' MACs.
Checksum offloads are off on every veth end, so the kernels send full
checksums and verify the ones the example rewrites.

Checks:
  - curl in the inside namespace gets a page from an HTTP server in the
    outside one, whose log shows the pool address as the client;
  - a UDP datagram is echoed back through the NAT, the server sees the
    pool address;
  - a TCP client connects to an echo server (which sees the pool address
    and the client's own port: port preservation), stays idle while the
    short timeouts (UDP, closing: 1 s) end the other mappings, the UDP one
    made after the connection's last packet, then sends and gets its
    echo: the established connection outlived them. The idle time is
    told by those expiries (counters), not by a sleep;
  - a datagram from outside to the pool without a mapping is dropped
    (nat_in_nomatch 1);
  - neither kernel counted an IPv4 header, TCP or UDP checksum error;
  - counters: 3 mappings made, packets translated both ways, nothing
    without a SYN, no port shortage; at exit every port is back on every
    worker (nat_active 0, free + held == share).

Exit status 77 (skipped) when the DPDK build has no net_af_packet driver,
or when namespaces or veth pairs cannot be made (not
root, no `ip netns`, no ethtool or curl). Everything made is removed in any
case. The run takes a few seconds.

The same file is the helper run inside the namespaces:
  e2e_netns.py --serve ADDR DIR     HTTP (8080), TCP echo (7000) and UDP
                                    echo (7001) servers on ADDR, one JSON
                                    line per event on stdout
  e2e_netns.py --tcp-client ADDR    connect, report, wait for a line on
                                    stdin, send, report the echo
  e2e_netns.py --udp-client ADDR    one datagram, report the echo
  e2e_netns.py --udp-probe ADDR     one datagram to ADDR:7777, no answer
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

POOL = "203.0.113.9"
INSIDE_NET = "10.77.0.0/24"
INSIDE_HOST = "10.77.0.2"
INSIDE_GW = "10.77.0.1"          # only a neighbour entry: the example's port 0
OUTSIDE_NET = "198.51.100.0/24"
SERVER = "198.51.100.2"
OUTSIDE_GW = "198.51.100.1"      # the example's port 1
HTTP_PORT, ECHO_PORT, UDP_PORT, PROBE_PORT = 8080, 7000, 7001, 7777
# locally administered MACs: the example's ports and the hosts' ends
MAC_P0, MAC_IN = "02:fe:77:00:00:01", "02:fe:77:00:00:02"
MAC_P1, MAC_OUT = "02:fe:51:00:00:01", "02:fe:51:00:00:02"
SHORT = 1.0                      # the timeouts of the states the test waits out
# one-way and SYN_SENT: a round trip through two kernels, the example and
# a Python server on a loaded machine must fit in them, so they only
# bound a hang
RTT_BOUND = 30.0
HANG = 20.0                      # how long a helper may take (a hang bound)
TOKEN = "fxnetns-page-%d" % os.getpid()


# ---------------------------------------------------------------- helpers
# (run inside the namespaces by the test below)

def emit(**kv):
    sys.stdout.write(json.dumps(kv) + "\n")
    sys.stdout.flush()


def tcp_echo(addr, port, data_events):
    """A TCP echo server on addr:port, in daemon threads: a JSON line
    (tcp_accept) for each connection and, with data_events, one (tcp_data)
    for each piece it echoes."""
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((addr, port))
    tcp.listen(8)

    def echo(c, peer):
        with c:
            while True:
                d = c.recv(4096)
                if not d:
                    break
                if data_events:
                    emit(tcp_data=list(peer), n=len(d))
                c.sendall(d)

    def accept():
        while True:
            c, peer = tcp.accept()
            emit(tcp_accept=list(peer))
            threading.Thread(target=echo, args=(c, peer), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()


def serve(addr, directory):
    import http.server
    import functools

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            emit(http=self.client_address[0], line=fmt % args)

    httpd = http.server.ThreadingHTTPServer(
        (addr, HTTP_PORT), functools.partial(Handler, directory=directory))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    tcp_echo(addr, ECHO_PORT, data_events=True)

    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((addr, UDP_PORT))

    def udp_echo():
        while True:
            d, peer = udp.recvfrom(4096)
            emit(udp=list(peer), n=len(d))
            udp.sendto(d, peer)
    threading.Thread(target=udp_echo, daemon=True).start()
    emit(ready=True)
    while True:
        time.sleep(3600)


def tcp_client(addr):
    s = socket.create_connection((addr, ECHO_PORT), timeout=HANG)
    emit(connected=list(s.getsockname()))
    sys.stdin.readline()             # idle until the test says go
    msg = b"still here after the idle time"
    s.sendall(msg)
    got = b""
    s.settimeout(HANG)
    try:
        while len(got) < len(msg):
            d = s.recv(4096)
            if not d:
                break
            got += d
    except OSError as e:
        emit(error=str(e))
    emit(echo=got.decode(errors="replace"), ok=got == msg)
    s.close()


def udp_client(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(HANG)
    s.sendto(b"udp through the nat", (addr, UDP_PORT))
    try:
        d, peer = s.recvfrom(4096)
        emit(echo=d.decode(errors="replace"), peer=list(peer), port=s.getsockname()[1])
    except OSError as e:
        emit(error=str(e))


def udp_probe(addr):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"unsolicited", (addr, PROBE_PORT))


# ---------------------------------------------------------------- the test

AF_PACKET_PROBE = "net_af_packet0,iface=lo"


class Skip(Exception):
    pass


def sh(*cmd, check_rc=True, timeout=15):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                 (r.stderr or r.stdout).strip()))
    return r


class Topology:
    """The namespaces and veth pairs of one run; remove() undoes all.
    spawn() and helper() run a helper of script (by default the file the
    class is for) in a namespace."""

    script = os.path.abspath(__file__)

    def __init__(self, tag="fxnetns", ifs=("fxp0", "fxin", "fxp1", "fxout")):
        pid = os.getpid()
        self.ns_in, self.ns_mid, self.ns_out = ("%s_%s_%d" % (tag, n, pid)
                                                for n in ("in", "mid", "out"))
        # interface names: at most 15 characters (pid up to 7 digits)
        self.if_p0, self.if_in, self.if_p1, self.if_out = ("%s_%d" % (i, pid) for i in ifs)
        self.made = []
        self.procs = []

    def nsx(self, ns, *cmd):
        return ["ip", "netns", "exec", ns] + list(cmd)

    def links(self, macs=None, ipv6_ends=False):
        """The three namespaces and the two veth pairs (MACs of p0, in,
        p1, out; the kernel's where None), checksum offloads off,
        everything up. No kernel forwards; the middle one has no IPv6 (no
        link-local chatter through the example), nor have the ends unless
        ipv6_ends (then they take no router advertisement)."""
        # can namespaces be made at all? (else: skip, not fail)
        r = sh("ip", "netns", "add", self.ns_mid, check_rc=False)
        if r.returncode != 0:
            raise Skip("cannot make a network namespace: %s" % r.stderr.strip())
        self.made.append(self.ns_mid)
        for ns in (self.ns_in, self.ns_out):
            sh("ip", "netns", "add", ns)
            self.made.append(ns)
        no6 = ["net.ipv6.conf.default.disable_ipv6=1", "net.ipv6.conf.all.disable_ipv6=1"]
        for ns in self.made:
            keys = ["net.ipv4.ip_forward=0"]
            if ns == self.ns_mid or not ipv6_ends:
                keys += no6
            else:
                keys += ["net.ipv6.conf.all.forwarding=0", "net.ipv6.conf.default.accept_ra=0"]
            for k in keys:
                sh(*self.nsx(ns, "sysctl", "-qw", k), check_rc=False)
        def mac(i):
            return ["address", macs[i]] if macs and macs[i] else []
        r = sh("ip", "link", "add", "name", self.if_p0, "netns", self.ns_mid, *mac(0),
               "type", "veth", "peer", "name", self.if_in, "netns", self.ns_in, *mac(1),
               check_rc=False)
        if r.returncode != 0:
            raise Skip("cannot make a veth pair: %s" % r.stderr.strip())
        sh("ip", "link", "add", "name", self.if_p1, "netns", self.ns_mid, *mac(2),
           "type", "veth", "peer", "name", self.if_out, "netns", self.ns_out, *mac(3))
        if ipv6_ends:
            for ns, dev in ((self.ns_in, self.if_in), (self.ns_out, self.if_out)):
                sh(*self.nsx(ns, "sysctl", "-qw", "net.ipv6.conf.%s.accept_ra=0" % dev),
                   check_rc=False)
        for ns, dev in ((self.ns_mid, self.if_p0), (self.ns_mid, self.if_p1),
                        (self.ns_in, self.if_in), (self.ns_out, self.if_out)):
            sh(*self.nsx(ns, "ethtool", "-K", dev, "tx", "off", "rx", "off"))
            sh(*self.nsx(ns, "ip", "link", "set", dev, "up"))
        for ns in self.made:
            sh(*self.nsx(ns, "ip", "link", "set", "lo", "up"))

    def build(self):
        self.links((MAC_P0, MAC_IN, MAC_P1, MAC_OUT))
        i, o = self.ns_in, self.ns_out
        sh(*self.nsx(i, "ip", "addr", "add", INSIDE_HOST + "/24", "dev", self.if_in))
        sh(*self.nsx(i, "ip", "neigh", "replace", INSIDE_GW, "lladdr", MAC_P0,
                     "dev", self.if_in, "nud", "permanent"))
        sh(*self.nsx(i, "ip", "route", "add", "default", "via", INSIDE_GW))
        sh(*self.nsx(o, "ip", "addr", "add", SERVER + "/24", "dev", self.if_out))
        sh(*self.nsx(o, "ip", "neigh", "replace", OUTSIDE_GW, "lladdr", MAC_P1,
                     "dev", self.if_out, "nud", "permanent"))
        # the outside knows the pool only, never the inside network
        sh(*self.nsx(o, "ip", "route", "add", POOL + "/32", "via", OUTSIDE_GW))

    def spawn(self, ns, args, out, stdin=subprocess.DEVNULL, script=None):
        p = subprocess.Popen(self.nsx(ns, sys.executable, "-u", script or self.script)
                             + args, stdin=stdin, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def helper(self, ns, args, timeout=HANG + 10, script=None):
        """A helper run to its end: its first JSON line, or the error."""
        r = subprocess.run(self.nsx(ns, sys.executable, script or self.script) + args,
                           capture_output=True, text=True, timeout=timeout)
        for line in r.stdout.splitlines():
            try:
                return json.loads(line)
            except ValueError:
                pass
        return {"error": (r.stdout + r.stderr)[-300:]}

    def serve_page(self, ex, tmp, token, args):
        """Once the example ex answers, the helper args, then a directory
        whose index.html says token, run in the outside namespace: the log
        the servers write, or None (a failed check) if the example did not
        answer or the servers did not say they listen."""
        import e2e_flowexp as E
        if not ex.wait_for(lambda s: s is not None, "the example answers in the middle namespace"):
            return None
        www = os.path.join(tmp, "www")
        os.mkdir(www)
        with open(os.path.join(www, "index.html"), "w") as f:
            f.write(token + "\n")
        slog = os.path.join(tmp, "servers.log")
        with open(slog, "w") as f:
            self.spawn(self.ns_out, args + [www], f)
        if not E.check(wait_lines(slog, lambda e: e.get("ready"), HANG),
                       "servers listening in the outside namespace"):
            return None
        return slog

    def get_page(self, url, token, *opt):
        """curl (options opt) gets url from the inside namespace: whether it
        said token (a check)."""
        import e2e_flowexp as E
        r = subprocess.run(self.nsx(self.ns_in, "curl", "-sS", "--max-time", "%g" % HANG,
                                    *opt, url), capture_output=True, text=True,
                           timeout=HANG + 10)
        return E.check(r.returncode == 0 and r.stdout.strip() == token,
                       "curl%s from the inside gets %s (rc %d, %r)"
                       % ("".join(" " + o for o in opt), url, r.returncode, (r.stdout + r.stderr).strip()[:200]))

    def remove(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        # deleting a namespace deletes the veth ends in it (and their peers)
        for ns in reversed(self.made):
            r = sh("ip", "netns", "del", ns, check_rc=False)
            if r.returncode != 0:
                print("cleanup: ip netns del %s: %s" % (ns, r.stderr.strip()))
        self.made = []


def json_lines(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


def wait_lines(path, pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = [e for e in json_lines(path) if pred(e)]
        if got:
            return got
        time.sleep(0.02)
    return []


def preflight():
    if os.geteuid() != 0:
        raise Skip("needs root to make network namespaces and veth pairs")
    for tool in ("ip", "ethtool", "curl"):
        if shutil.which(tool) is None:
            raise Skip("%s not found (scripts/deps.sh installs it)" % tool)


def run(binary, tmp, topo):
    import e2e_flowexp as E
    check = E.check
    topo.build()
    app = ["-p", "3", "--config", "(0,0,1),(1,0,1)", "--parse-ptype", "--relax-rx-offload",
           "-T", "0", "--tick-us", "1000", "--duration", "60", "--max-flows", "4096",
           "--route", INSIDE_NET + ",0", "--route", OUTSIDE_NET + ",1",
           "--eth-dest", "0," + MAC_IN, "--eth-dest", "1," + MAC_OUT,
           "--nat-pool", POOL + "/32", "--nat-inside", INSIDE_NET, "--nat-holddown", "0.5",
           "--nat-outside", "1",
           "--timeout-tcp", "60", "--timeout-oneway", str(RTT_BOUND),
           "--timeout-tcp-syn", str(RTT_BOUND)] + \
        [a for c in ("tcp-close", "tcp-rst", "udp", "icmp", "other")
         for a in ("--timeout-" + c, str(SHORT))]
    eal = ["netns", "exec", topo.ns_mid, binary] + E.EAL + \
        ["--lcores", "0@0,1@1", "--vdev", "net_af_packet0,iface=" + topo.if_p0,
         "--vdev", "net_af_packet1,iface=" + topo.if_p1]
    # the NAT event log to a real collector beside the example, where
    # Debian's nfdump is installed (scripts/deps.sh installs it)
    col = None
    if shutil.which("nfcapd") and shutil.which("nfdump"):
        import e2e_ipfix as X
        sh(*topo.nsx(topo.ns_mid, "ip", "link", "set", "lo", "up"))
        col = X.Collector(tmp, ns=topo.ns_mid)
        app += ["--nat-log", "ipfix:127.0.0.1:%d" % col.port]
    else:
        print("skip (the NAT log part): nfcapd and nfdump are not installed")
    # `ip netns exec` execs the example itself: signals and exit status are its own
    ex = E.Example("ip", "nat_netns", eal, app, tmp)
    st = None
    local = None
    try:
        slog = topo.serve_page(ex, tmp, TOKEN, ["--serve", SERVER])
        if slog is None:
            return

        # curl: the page, and the server saw the pool address
        topo.get_page("http://%s:%d/index.html" % (SERVER, HTTP_PORT), TOKEN)
        hits = wait_lines(slog, lambda e: "http" in e, HANG)
        check([h["http"] for h in hits] == [POOL] and "GET /index.html" in hits[0]["line"],
              "the HTTP server saw one GET from the pool address %s (log: %s)" % (POOL, hits))

        # unsolicited inbound: dropped, counted
        sh(*topo.nsx(topo.ns_out, sys.executable, os.path.abspath(__file__),
                     "--udp-probe", POOL))

        # the idle TCP connection
        clog = os.path.join(tmp, "tcp_client.log")
        with open(clog, "w") as f:
            cl = topo.spawn(topo.ns_in, ["--tcp-client", SERVER], f, stdin=subprocess.PIPE)
        conn = wait_lines(clog, lambda e: "connected" in e or "error" in e, HANG)
        t_conn = time.monotonic()
        if not check(conn and "connected" in conn[0], "the TCP client connected (%s)"
                     % (conn or open(clog).read()[-500:])):
            return
        local = conn[0]["connected"]
        acc = wait_lines(slog, lambda e: "tcp_accept" in e, HANG)
        check(acc and acc[0]["tcp_accept"] == [POOL, local[1]],
              "the echo server saw the pool address and the client's own port %s:%d (%s)"
              % (POOL, local[1], acc))

        # UDP echo, after the TCP connection's last packet (its handshake):
        # when this mapping has expired, the connection has idled longer
        # than the short timeouts
        r = subprocess.run(topo.nsx(topo.ns_in, sys.executable, os.path.abspath(__file__),
                                    "--udp-client", SERVER),
                           capture_output=True, text=True, timeout=HANG + 10)
        u = json_lines_text(r.stdout)
        check(u.get("echo") == "udp through the nat" and u.get("peer") == [SERVER, UDP_PORT],
              "a UDP datagram is echoed back to the inside client (%s)" % (u or r.stdout))
        seen = [e["udp"] for e in json_lines(slog) if "udp" in e]
        check(len(seen) == 1 and seen[0][0] == POOL,
              "the UDP server saw the pool address (%s)" % seen)

        # while it idles, the short timeouts end curl's and the UDP mapping
        s = ex.wait_for(lambda s: s["totals"]["nat_expired"] >= 2 and
                        s["totals"]["nat_active"] == 1,
                        "curl's and the UDP mapping expired while the TCP connection idles",
                        timeout=30)
        if s is not None:
            n = ex.tel("/l3fwd_flowexp/nat")["totals"]
            check(n["nat_expired_tcp_close"] == 1 and n["nat_expired_udp"] == 1,
                  "expired as closing TCP and as UDP (%d, %d)"
                  % (n["nat_expired_tcp_close"], n["nat_expired_udp"]))
        idle = time.monotonic() - t_conn
        cl.stdin.write(b"go\n")
        cl.stdin.close()
        cl.wait(HANG + 10)
        res = [e for e in json_lines(clog) if "echo" in e]
        check(res and res[0]["ok"],
              "after %.1f s idle (longer than the %.1f s timeouts: a UDP mapping made after "
              "its last packet expired meanwhile; TCP established) the echo came back (%s)"
              % (idle, SHORT, res or open(clog).read()[-500:]))
        data = [e for e in json_lines(slog) if "tcp_data" in e]
        check(data and all(e["tcp_data"] == [POOL, local[1]] for e in data),
              "the echo server got the data from the same public tuple (%s)" % data)
        s = ex.wait_for(lambda s: s["totals"]["nat_active"] == 0,
                        "the closed connection's mapping expired too", timeout=30)
        # the kernels verified every checksum the example rewrote
        for ns in (topo.ns_in, topo.ns_out):
            bad = {k: v for k, v in snmp(topo, ns).items() if v}
            check(not bad, "%s: no IPv4 header or TCP / UDP checksum error (%s)" % (ns, bad))
    finally:
        st = ex.finish(stop=True)   # removes its runtime directory too
        if col is not None:
            col.stop()
    if st is None:
        return
    if col is not None:
        logged(col, st, local)
    t = st["totals"]
    check(t["nat_created"] == 3, "3 mappings made: curl, UDP, the idle TCP (got %d)"
          % t["nat_created"])
    check(t["nat_out"] > 0 and t["nat_in"] > 0,
          "translated both ways (out %d, in %d)" % (t["nat_out"], t["nat_in"]))
    check(t["nat_in_nomatch"] == 1, "the unsolicited datagram dropped, nothing else "
          "(nat_in_nomatch %d)" % t["nat_in_nomatch"])
    check(t["nat_non_syn"] == 0 and t["nat_no_port"] == 0 and t["nat_table_full"] == 0,
          "no packet refused for want of a SYN, a port or room (%d, %d, %d)"
          % (t["nat_non_syn"], t["nat_no_port"], t["nat_table_full"]))
    for k in ("port_0", "port_1"):
        check(k in st and st[k]["rx"] > 0, "%s received (%s)" % (k, st.get(k)))
    for k, lc in st.items():
        if k.startswith("lcore_"):
            check(lc["nat_active"] == 0 and
                  lc["nat_ports_free"] + lc["nat_ports_held"] == lc["nat_ports_share"],
                  "%s: every port back at exit (active %d, free %d + held %d of %d)"
                  % (k, lc["nat_active"], lc["nat_ports_free"], lc["nat_ports_held"],
                     lc["nat_ports_share"]))


def logged(col, st, local):
    """The collector's events against the run: a create and a delete for
    each mapping, every one from the pool address, the idle TCP
    connection's with the client's own port."""
    import e2e_flowexp as E
    import e2e_ipfix as X
    recs, out = col.records()
    ev = [X.decoded(r) for r in recs]
    creates = [e for e in ev if e[0] == X.CREATE]
    deletes = [e for e in ev if e[0] == X.DELETE]
    n = st["totals"]["nat_created"]
    E.check(len(creates) == n and len(deletes) == n and len(ev) == 2 * n,
            "nfdump: a create and a delete for each of the %d mappings, nothing else (%d, %d of "
            "%d: %s)" % (n, len(creates), len(deletes), len(ev), out[-1500:]))
    E.check(all(e[8] == POOL and e[1] == INSIDE_HOST and e[4] == SERVER for e in ev),
            "every event: %s to %s translated to the pool address %s (%s)"
            % (INSIDE_HOST, SERVER, POOL, [(e[1], e[4], e[8]) for e in ev]))
    key = lambda e: (e[1], e[2], e[3], e[4], e[5], e[6])
    E.check(sorted(map(key, creates)) == sorted(map(key, deletes)),
            "each delete names its create's tuple (%s)" % sorted(map(key, ev)))
    E.check(sorted(e[5] for e in creates) == sorted([HTTP_PORT, ECHO_PORT, UDP_PORT]),
            "one mapping each to the HTTP, TCP echo and UDP servers (%s)"
            % [e[5] for e in creates])
    if local is not None:
        tcp = [e for e in creates if e[5] == ECHO_PORT]
        E.check(tcp and tcp[0][2] == local[1] and tcp[0][3] == local[1] and tcp[0][6] == 6,
                "the idle TCP connection's create: the client's port %d, kept (%s)"
                % (local[1], tcp))
    lt = X.log_totals(st)
    E.check(st["totals"].get("nat_log_dropped") == 0 and lt.get("nat_log_exported") == 2 * n,
            "the workers dropped no event, the main lcore exported %d (%s, %s)"
            % (2 * n, st["totals"].get("nat_log_dropped"), lt.get("nat_log_exported")))


def snmp(topo, ns):
    """The checksum and header error counters of namespace ns."""
    text = sh(*topo.nsx(ns, "cat", "/proc/net/snmp")).stdout.splitlines()
    out = {}
    for names, values in zip(text[::2], text[1::2]):
        proto = names.split(":")[0]
        row = dict(zip(names.split()[1:], values.split()[1:]))
        for k in ("InHdrErrors", "InCsumErrors"):
            if proto in ("Ip", "Tcp", "Udp") and k in row:
                out[proto + k] = int(row[k])
    return out


def json_lines_text(text):
    for line in text.splitlines():
        try:
            return json.loads(line)
        except ValueError:
            pass
    return {}


def driver_check(binary, vdev=AF_PACKET_PROBE):
    """Skip where the DPDK the example runs on has not the driver of vdev
    (net_af_packet is not in the cut-down LTS builds of
    scripts/dpdk-compat.sh): EAL refuses the vdev.
    The probe must reach EAL (--help is answered before it): its --config
    names an lcore EAL was not given, which the example refuses after EAL
    has parsed the devices."""
    import e2e_flowexp as E
    _, out = E.run_dpdk([binary, "--no-huge", "-m", "64", "--no-pci", "-l", "0",
                         "--log-level=lib.eal:error", "--vdev", vdev,
                         "--", "-p", "1", "--config", "(0,0,63)"], "netns_probe")
    if "failed to parse device" in out:
        raise Skip("this DPDK build has no %s driver" % vdev.split(",")[0].rstrip("0123456789"))


def run_main(binary, topology, run_fn, tmp_prefix, probe=AF_PACKET_PROBE):
    """A namespaces test from start to end: skip (77) without root, the
    tools or the driver of the probe vdev; build topology(), run
    run_fn(binary, tmp, topo) in a temporary directory, remove the
    topology whatever happens (meson's timeout sends SIGTERM: it is
    cleaned up on the way out); 0, or 1 if a check failed."""
    def on_term(*_):
        print("SIGTERM: stopping and cleaning up")
        sys.exit(1)
    signal.signal(signal.SIGTERM, on_term)
    sys.path.insert(0, HERE)
    import e2e_flowexp as E
    t0 = time.monotonic()
    topo = None
    try:
        preflight()
        driver_check(binary, probe)
        topo = topology()
        with tempfile.TemporaryDirectory(prefix=tmp_prefix) as tmp:
            try:
                run_fn(binary, tmp, topo)
            finally:
                topo.remove()
    except Skip as e:
        if topo is not None:
            topo.remove()
        print("SKIP: %s" % e)
        return SKIP
    print("%.1f s" % (time.monotonic() - t0))
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


def dispatch(argv, doc, helpers, topology, run_fn, tmp_prefix):
    """The main() of a namespaces test file that is also its own helper:
    `FILE --NAME ARG...` runs helpers["--NAME"]([ARG...]) (in a namespace,
    started by Topology.spawn() or helper()) and returns 0; `FILE BINARY`
    runs the test by run_main(); anything else prints doc and returns 2."""
    if len(argv) >= 3 and argv[1] in helpers:
        helpers[argv[1]](argv[2:])
        return 0
    if len(argv) != 2:
        print(doc)
        return 2
    return run_main(os.path.abspath(argv[1]), topology, run_fn, tmp_prefix)


def main(argv):
    helpers = {"--serve": lambda a: serve(a[0], a[1]), "--tcp-client": lambda a: tcp_client(a[0]),
               "--udp-client": lambda a: udp_client(a[0]), "--udp-probe": lambda a: udp_probe(a[0])}
    return dispatch(argv, __doc__, helpers, Topology, run, "fxnetns_")

if __name__ == "__main__":
    sys.exit(main(sys.argv))
