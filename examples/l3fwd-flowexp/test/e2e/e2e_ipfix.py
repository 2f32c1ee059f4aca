#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of the NAT event log (--nat-log, meson suite e2e).

  e2e_ipfix.py BINARY events  a pcap replayed with --clock pcap whose every
                              mapping's creation and release time is known
                              (UDP answered and not, TCP, ICMP echo, a quota
                              refusal, a public tuple used again after its
                              hold-down), exported to Debian's nfcapd on
                              loopback: nfdump's records, each event's
                              tuple, public tuple and time to the
                              millisecond, as many deletes as creates, no
                              public tuple held twice at once, no sequence
                              error, every record queued exported
  e2e_ipfix.py BINARY bib     --nat-mapping eim: the bindings' NAT44 BIB
                              create and delete events (natEvent 8, 9)
                              beside their sessions': a UDP endpoint with
                              two sessions (its binding ends with the
                              later one's hold-down), an echo identifier
                              with one, a TCP endpoint whose SYN is
                              refused over --nat-max-per-host 2 (no
                              binding made, no event but the refusal);
                              nfdump's records, each to the millisecond
  e2e_ipfix.py BINARY exit    the TSC clock, nothing expires: 4 mappings,
                              2 of them flushed into hold-down, the run
                              stopped: a create each and, at exit, a delete
                              each, times from the wall clock between the
                              run's start and its end
  e2e_ipfix.py BINARY down    the same traffic with no collector listening:
                              every packet translated as before, nothing
                              dropped by the workers, every record queued
                              either exported or counted lost
  e2e_ipfix.py BINARY cli     bad --nat-log and --nat-log-ring arguments
  e2e_ipfix.py BINARY rate [N]  not a test (meson does not run it): N (default
                              1M) datagrams, each a new mapping, 1 us of
                              capture time apart, replayed as fast as
                              net_pcap reads them, with a 50 ms timeout and
                              hold-down, exported to nfcapd: the events the
                              workers queued and dropped, their rate while
                              the worker was busy, and what nfcapd counted

Exit status 0 when every check passed, 77 (skipped) when the nfdump package
(nfcapd, nfdump), or for events the tshark package, is not installed and
cannot be (scripts/deps.sh installs both), 1 otherwise.
"""

import calendar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402

check = E.check
SKIP = 77
POOL = N.POOL
# 2026-01-01 00:00:00 UTC: IE 323 is the capture time, milliseconds since the epoch
T0 = 1767225600
TMO, HOLD = N.TMO, int(N.HOLD)
A, B, C, D = "10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4"
R, R2 = "198.18.0.10", "198.18.0.11"
CREATE, DELETE, QUOTA = 4, 5, 13
BIB_CREATE, BIB_DELETE = 8, 9   # RFC 8158 section 4, IANA natEvent


def at(ms):
    return T0 + ms / 1000.0


def scenario():
    """(frames, expected events). An event: (natEvent, inside, inside port,
    public port or None (drawn at random), remote, remote port, proto,
    ms since T0). Deadlines: the latest packet plus the class's timeout;
    the delete comes at the deadline plus the hold-down."""
    U, OW, SYN = TMO["udp"], TMO["oneway"], TMO["tcp-syn"]
    fr = [
        (at(100), N.udp(A, 5000, R, 53)),            # m1, port 5000 kept
        (at(200), N.udp(R, 53, POOL, 5000)),         # answered: udp
        (at(300), N.udp(B, 5000, R, 53)),            # m2: 5000 taken towards R:53
        (at(1000), N.tcp(C, 40000, R, 80, N.P.TCP_SYN)),  # m3: tcp_syn
        (at(2000), N.echo(D, R, 77)),                # m4: echo id 77, outside the share
        (at(3000), N.udp(A, 5001, R2, 53)),          # m5: A's second mapping
        (at(3500), N.udp(A, 5002, R2, 53)),          # over --nat-max-per-host 2
        (at(40000), N.udp(A, 5000, R, 53)),          # m6: m1's public tuple again
    ]
    ev = [
        (CREATE, A, 5000, 5000, R, 53, 17, 100),
        (DELETE, A, 5000, 5000, R, 53, 17, 200 + U * 1000 + HOLD * 1000),
        (CREATE, B, 5000, None, R, 53, 17, 300),
        (DELETE, B, 5000, None, R, 53, 17, 300 + OW * 1000 + HOLD * 1000),
        (CREATE, C, 40000, 40000, R, 80, 6, 1000),
        (DELETE, C, 40000, 40000, R, 80, 6, 1000 + SYN * 1000 + HOLD * 1000),
        (CREATE, D, 77, None, R, 0, 1, 2000),
        (DELETE, D, 77, None, R, 0, 1, 2000 + OW * 1000 + HOLD * 1000),
        (CREATE, A, 5001, 5001, R2, 53, 17, 3000),
        (DELETE, A, 5001, 5001, R2, 53, 17, 3000 + OW * 1000 + HOLD * 1000),
        (QUOTA, A, 5002, None, R2, 53, 17, 3500),
        (CREATE, A, 5000, 5000, R, 53, 17, 40000),
        (DELETE, A, 5000, 5000, R, 53, 17, 40000 + OW * 1000 + HOLD * 1000),
    ]
    return fr, ev


EXTRA = ["--nat-max-per-host", "2"]


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rx_queue(port, pid=None):
    """Bytes waiting in the receive queue of the UDP socket bound to port
    on 127.0.0.1 (/proc/net/udp; /proc/PID/net/udp: in the network
    namespace of process pid), None if there is none."""
    want = "0100007F:%04X" % port
    with open("/proc/net/udp" if pid is None else "/proc/%d/net/udp" % pid) as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if cols[1] == want:
                return int(cols[4].split(":")[1], 16)
    return None


class Collector:
    """nfcapd on 127.0.0.1, writing into its own directory; with ns, in
    that network namespace (whose loopback must be up)."""

    def __init__(self, tmp, ns=None):
        self.dir = os.path.join(tmp, "nfcapd")
        os.mkdir(self.dir)
        self.port = free_udp_port()
        self.log = os.path.join(tmp, "nfcapd.log")
        pre = [] if ns is None else ["ip", "netns", "exec", ns]
        # `ip netns exec` execs nfcapd: the pid is nfcapd's
        self.proc = subprocess.Popen(pre + ["nfcapd", "-b", "127.0.0.1", "-p", str(self.port),
                                            "-w", self.dir], stdout=open(self.log, "w"),
                                     stderr=subprocess.STDOUT)
        self.pid = None if ns is None else self.proc.pid
        end = time.monotonic() + 20
        while self.queued() is None and time.monotonic() < end and \
                self.proc.poll() is None:
            time.sleep(0.02)
        check(self.queued() is not None, "nfcapd listens on 127.0.0.1:%d" % self.port)

    def queued(self):
        try:
            return rx_queue(self.port, self.pid)
        except OSError:   # nfcapd gone
            return None

    def stop(self):
        """Once nfcapd has read every datagram (its socket's queue empty),
        stop it: it writes its file. Returns its log."""
        end = time.monotonic() + 20
        while (self.queued() or 0) > 0 and time.monotonic() < end:
            time.sleep(0.02)
        check(self.queued() == 0, "nfcapd read every message")
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with open(self.log) as f:
            return f.read()

    def records(self):
        """nfdump -R DIR -o raw, as a list of {field: value}."""
        r = subprocess.run(["nfdump", "-R", self.dir, "-o", "raw"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        out = r.stdout.decode(errors="replace")
        recs, cur = [], None
        for line in out.splitlines():
            if line.startswith("Flow Record"):
                cur = {}
                recs.append(cur)
            elif cur is not None and "=" in line:
                k, v = line.split("=", 1)
                cur[k.strip()] = v.strip()
        return recs, out


class Capture:
    """tshark capturing the IPFIX datagrams to a port on loopback, then
    decoding them as IPFIX (-d udp.port==PORT,cflow): Wireshark's
    dissector, a reader independent of nfdump's."""

    def __init__(self, tmp, port):
        self.port = port
        self.path = os.path.join(tmp, "ipfix.pcapng")
        self.err = os.path.join(tmp, "tshark.log")
        self.seen = os.path.join(tmp, "tshark.seen")
        # -P -l: a line per packet as it is captured, so stop() can wait
        # for the packets instead of sleeping
        self.proc = subprocess.Popen(["tshark", "-i", "lo", "-f", "udp dst port %d" % port,
                                      "-w", self.path, "-P", "-l", "-T", "fields",
                                      "-e", "frame.number"], stdout=open(self.seen, "w"),
                                     stderr=open(self.err, "w"))
        end = time.monotonic() + 30
        while time.monotonic() < end and self.proc.poll() is None and \
                "Capturing on" not in open(self.err).read():
            time.sleep(0.05)
        check(self.proc.poll() is None and "Capturing on" in open(self.err).read(),
              "tshark captures udp port %d on loopback" % port)

    def stop(self, want):
        """Once tshark has seen want datagrams (or 20 s passed), stop the
        capture; the datagrams it wrote."""
        end = time.monotonic() + 20
        while time.monotonic() < end and self.proc.poll() is None:
            with open(self.seen) as f:
                if len(f.read().split()) >= want:
                    break
            time.sleep(0.05)
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        m = re.search(r"(\d+) packets? captured", open(self.err).read())
        return int(m.group(1)) if m else -1

    def records(self):
        """Every data record tshark decodes, as a dict of its cflow fields."""
        r = subprocess.run(["tshark", "-r", self.path, "-d", "udp.port==%d,cflow" % self.port,
                            "-T", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        recs = []

        def walk(node):
            if isinstance(node, dict):
                if "cflow.nat_event" in node:
                    recs.append(node)
                    return
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        walk(json.loads(r.stdout.decode(errors="replace") or "[]"))
        return recs


def ms_of(text):
    """Wireshark's absolute time ("Jan  1, 2026 00:00:01.234000000 UTC") in
    milliseconds since the epoch."""
    m = re.match(r"(\w+)\s+(\d+), (\d+) (\d+):(\d+):(\d+)\.(\d+)", text or "")
    if m is None:
        return -1
    mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec"].index(m.group(1)) + 1
    t = calendar.timegm((int(m.group(3)), mon, int(m.group(2)), int(m.group(4)),
                         int(m.group(5)), int(m.group(6))))
    return t * 1000 + int(m.group(7)[:3].ljust(3, "0"))


def decoded_tshark(rec):
    """A tshark record as decoded() makes an nfdump one: (natEvent, source,
    source port or echo identifier, public port, remote, remote port,
    protocol, time in ms from T0, public address); fields a record does
    not carry as decoded() gives them (0, or None for an address)."""
    def num(k):
        v = rec.get(k)
        return int(v, 0) if v is not None and re.match(r"^(0x)?[0-9a-f]+$", v) else 0
    return (num("cflow.nat_event"), rec.get("cflow.srcaddr"), num("cflow.srcport"),
            num("cflow.post_naptsource_transport_port"), rec.get("cflow.dstaddr"),
            num("cflow.dstport"), num("cflow.protocol"),
            ms_of(rec.get("cflow.observation_time_milliseconds")) - T0 * 1000,
            rec.get("cflow.post_natsource_ipv4_address"))


def decoded(rec):
    """A record as an expected event's tuple (public port and all)."""
    def num(k):
        v = re.match(r"\d+", rec.get(k, "0"))
        return int(v.group(0)) if v else -1
    # an ICMP record's ports are printed as "ICMP = TYPE.CODE", where the
    # echo identifier (sourceTransportPort) stands as the type
    sport = num("ICMP") if num("proto") == 1 else num("src port")
    return (num("nat event"), rec.get("src addr"), sport, num("src xlt port"),
            rec.get("dst addr"), num("dst port"), num("proto"),
            num("Event time") - T0 * 1000, rec.get("src xlt ip"))


def match(got, want, key=lambda w: (w[1], w[2], w[4], w[5], w[6])):
    """Each expected event to one record; a None public port matches any,
    and the later events of its key (a session's: its delete) must then
    have the port of its first; a None remote is a record without one (a
    binding's). Returns the unmatched of each."""
    got = list(got)
    drawn = {}
    missing = []
    for w in want:
        for i, g in enumerate(got):
            port = w[3] if w[3] is not None else drawn.get(key(w), None)
            rem = (g[4] in (None, "0.0.0.0") and g[5] in (0, -1)) if w[4] is None \
                else g[4:6] == w[4:6]
            if g[0] == w[0] and g[1:3] == w[1:3] and rem and g[6:8] == w[6:8] and \
               (port is None or g[3] == port) and (g[8] == POOL or w[0] == QUOTA):
                if w[3] is None and w[0] != QUOTA:
                    drawn.setdefault(key(w), g[3])
                del got[i]
                break
        else:
            missing.append(w)
    return missing, got


def no_overlap(events):
    """No public tuple held by two mappings at once: per public tuple, the
    [create, delete] intervals in time order do not overlap."""
    spans = {}
    for e in sorted((e for e in events if e[0] in (CREATE, DELETE)), key=lambda e: e[7]):
        key = (e[8], e[3], e[4], e[5], e[6])
        spans.setdefault(key, []).append((e[0], e[7]))
    bad = []
    for key, s in spans.items():
        for i, (kind, t) in enumerate(s):
            if kind != (CREATE if i % 2 == 0 else DELETE):
                bad.append((key, s))
                break
    return bad


def bib_scenario():
    """(frames, expected events) under eim, as scenario(); a binding's
    events have no remote (None, 0)."""
    U, OW = TMO["udp"], TMO["oneway"]
    fr = [
        (at(100), N.udp(A, 5000, R, 53)),       # A's binding and first session
        (at(200), N.udp(R, 53, POOL, 5000)),    # answered: udp
        (at(300), N.udp(A, 5000, R2, 53)),      # its second session, oneway
        (at(2000), N.echo(D, R, 77)),           # D's echo id 77: outside the share
        (at(3000), N.udp(D, 6000, R, 53)),      # D's second endpoint
        (at(3500), N.tcp(D, 40000, R, 80, N.P.TCP_SYN)),   # over the quota
    ]
    a_end = max(200 + U * 1000, 300 + OW * 1000) + HOLD * 1000
    ev = [
        (BIB_CREATE, A, 5000, 5000, None, 0, 17, 100),
        (CREATE, A, 5000, 5000, R, 53, 17, 100),
        (DELETE, A, 5000, 5000, R, 53, 17, 200 + U * 1000 + HOLD * 1000),
        (CREATE, A, 5000, 5000, R2, 53, 17, 300),
        (DELETE, A, 5000, 5000, R2, 53, 17, 300 + OW * 1000 + HOLD * 1000),
        (BIB_DELETE, A, 5000, 5000, None, 0, 17, a_end),
        (BIB_CREATE, D, 77, None, None, 0, 1, 2000),
        (CREATE, D, 77, None, R, 0, 1, 2000),
        (DELETE, D, 77, None, R, 0, 1, 2000 + OW * 1000 + HOLD * 1000),
        (BIB_DELETE, D, 77, None, None, 0, 1, 2000 + OW * 1000 + HOLD * 1000),
        (BIB_CREATE, D, 6000, 6000, None, 0, 17, 3000),
        (CREATE, D, 6000, 6000, R, 53, 17, 3000),
        (DELETE, D, 6000, 6000, R, 53, 17, 3000 + OW * 1000 + HOLD * 1000),
        (BIB_DELETE, D, 6000, 6000, None, 0, 17, 3000 + OW * 1000 + HOLD * 1000),
        (QUOTA, D, 40000, None, R, 80, 6, 3500),
    ]
    return fr, ev


def test_bib(binary, tmp):
    fr, want = bib_scenario()
    run = collected(binary, tmp, "ipfix_bib", fr, ["--nat-mapping", "eim"])
    if run is None:
        return SKIP
    col, st, got_frames, log = run
    if st is None:
        return 0
    check(len(got_frames) == 5, "5 frames out, the refused one dropped (got %d)"
          % len(got_frames))
    t, lg = st["totals"], log_totals(st)
    check(t["nat_created"] == 4 and t["nat_bib_created"] == 3 and t["nat_host_limit"] == 1,
          "4 sessions under 3 bindings, 1 refused (got %d, %d, %d)"
          % (t["nat_created"], t["nat_bib_created"], t["nat_host_limit"]))
    check(lg.get("nat_log_queued") == len(want) and lg.get("nat_log_exported") == len(want)
          and lg.get("nat_log_dropped") == 0 and lg.get("nat_log_lost") == 0,
          "%d events queued and exported, none dropped or lost (%s)" % (len(want), lg))
    check("Sequence Errors: 0" in log and "Bad Packets: 0" in log,
          "nfcapd: no sequence error, no bad packet")
    recs, out = col.records()
    got = [decoded(r) for r in recs]
    check(len(got) == len(want), "nfdump: %d records (got %d)" % (len(want), len(got)))
    # a binding's random public port is its sessions' too
    missing, extra = match(got, want, key=lambda w: (w[1], w[2], w[6]))
    check(not missing and not extra,
          "every binding and session event with its endpoints and time to the "
          "millisecond (missing %s, unexpected %s)" % (missing[:3], extra[:3]))
    if missing or extra or os.environ.get("FX_IPFIX_DUMP"):
        print(out[:6000])
    return 0


def log_totals(st):
    return st.get("nat_log", {}) if st else {}


def collected(binary, tmp, name, fr, extra, cap=None):
    """Run fr with the log exported to nfcapd: (collector, stats, frames
    out, nfcapd's log), or None when nfdump is not there; with cap (a
    list of one), tshark captures the datagrams into cap[0] (Capture)."""
    if not E.ensure_package("nfdump", ["nfcapd", "nfdump"]):
        print("SKIP: the nfdump package cannot be installed here")
        return None
    col = Collector(tmp)
    if cap is not None:
        cap[0] = Capture(tmp, col.port)
    st, got_frames = N.run(binary, tmp, name, fr,
                           EXTRA + extra + ["--nat-log", "ipfix:127.0.0.1:%d,domain=7" % col.port])
    return col, st, got_frames, col.stop()


def tshark_agrees(cap, nfdump_got, st):
    """tshark's reading of the captured stream: as many datagrams as the
    example says it sent, and the same records as nfdump's, field by
    field."""
    sent = log_totals(st).get("nat_log_messages", 0)
    n = cap.stop(sent)
    check(n == sent, "tshark captured the %d datagrams the example sent (%d)" % (sent, n))
    # one order for both; an absent address (None) sorts after any other
    order = lambda g: tuple((x is None, x) for x in g)  # noqa: E731
    want = sorted(nfdump_got, key=order)
    got = sorted((decoded_tshark(r) for r in cap.records()), key=order)
    diff = [(a, b) for a, b in zip(got, want) if a != b]
    check(len(got) == len(want) and not diff,
          "tshark decodes the %d records nfdump read, field by field (tshark %d; first "
          "differences %s)" % (len(want), len(got), diff[:2]))


def test_events(binary, tmp):
    fr, want = scenario()
    if not E.ensure_package("tshark", ["tshark"]):
        print("SKIP: the tshark package cannot be installed here")
        return SKIP
    cap = [None]
    run = collected(binary, tmp, "ipfix", fr, [], cap)
    if run is None:
        return SKIP
    col, st, got_frames, log = run
    if st is None:
        return 0
    check(len(got_frames) == 7, "7 frames out, the refused one dropped (got %d)"
          % len(got_frames))
    t, lg = st["totals"], log_totals(st)
    check(t["nat_created"] == 6 and t["nat_released"] == 6 and t["nat_host_limit"] == 1,
          "6 mappings made and released, 1 refused (got %d, %d, %d)"
          % (t["nat_created"], t["nat_released"], t["nat_host_limit"]))
    check(lg.get("nat_log_queued") == 13 and lg.get("nat_log_dropped") == 0 and
          lg.get("nat_log_exported") == 13 and lg.get("nat_log_lost") == 0 and
          lg.get("nat_log_send_errors") == 0,
          "13 events queued and exported, none dropped or lost (%s)" % lg)
    check(lg.get("nat_log_templates", 0) >= 1, "the templates were sent")
    check("Observation domain 7" in log, "nfcapd saw observation domain 7")
    check("Sequence Errors: 0" in log and "Bad Packets: 0" in log,
          "nfcapd: no sequence error, no bad packet (%s)"
          % [l for l in log.splitlines() if "Sequence" in l][:1])
    recs, out = col.records()
    got = [decoded(r) for r in recs]
    check(len(got) == len(want), "nfdump: %d records (got %d)" % (len(want), len(got)))
    missing, extra = match(got, want)
    check(not missing and not extra,
          "every event with its tuple, public tuple and time to the millisecond "
          "(missing %s, unexpected %s)" % (missing[:3], extra[:3]))
    creates = sum(1 for g in got if g[0] == CREATE)
    deletes = sum(1 for g in got if g[0] == DELETE)
    check(creates == deletes == 6, "as many deletes as creates at exit (%d, %d)"
          % (creates, deletes))
    check(not no_overlap(got), "no public tuple held twice at once (%s)" % no_overlap(got)[:2])
    if missing or extra:
        print(out[:4000])
    tshark_agrees(cap[0], got, st)
    return 0


def test_exit(binary, tmp):
    if not E.ensure_package("nfdump", ["nfcapd", "nfdump"]):
        print("SKIP: the nfdump package cannot be installed here")
        return SKIP
    col = Collector(tmp)
    hosts = [("10.1.1.1", 7000), ("10.1.1.2", 7001), ("10.1.2.1", 7002), ("10.1.2.2", 7003)]
    inp, out = os.path.join(tmp, "exit_in.pcap"), os.path.join(tmp, "exit_out.pcap")
    E.write_pcap(inp, [N.udp(h, p, R, 53) for h, p in hosts])
    app = [x for x in N.APP if x != "--exit-when-drained"]
    i = app.index("--clock")
    # the TSC: a timeout and a hold-down longer than any run
    app = app[:i] + app[i + 2:] + ["--timeout-oneway", "600", "--nat-holddown", "600",
                                   "--nat-log", "ipfix:127.0.0.1:%d" % col.port]
    t_start = time.time()
    ex = E.Example(binary, "ipfix_exit", E.EAL + ["--lcores", "0@0,1@1", "--vdev",
                   "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, out)],
                   ["-p", "1", "--config", "(0,0,1)"] + app, tmp)
    s = ex.wait_for(lambda s: s["totals"]["nat_active"] == 4, "4 mappings live")
    if s is not None:
        r = ex.tel("/l3fwd_flowexp/flush,10.1.1.0/24")
        check(r.get("flushed") == 2, "2 mappings flushed (%s)" % r)
        ex.wait_for(lambda s: s["totals"]["nat_held"] == 2, "2 mappings held, 2 live")
    st = ex.finish(stop=True)
    t_end = time.time()
    log = col.stop()
    if st is None:
        return 0
    lg = log_totals(st)
    check(lg.get("nat_log_queued") == 8 and lg.get("nat_log_exported") == 8,
          "8 events queued and exported (%s)" % lg)
    check("Sequence Errors: 0" in log, "nfcapd: no sequence error")
    recs, out = col.records()
    got = [decoded(r) for r in recs]
    lo, hi = (t_start - T0) * 1000 - 1000, (t_end - T0) * 1000 + 1000
    for h, p in hosts:
        ev = sorted((g for g in got if g[1] == h and g[2] == p), key=lambda g: g[7])
        check([g[0] for g in ev] == [CREATE, DELETE] and
              all(lo <= g[7] <= hi for g in ev),
              "%s:%d: created, then deleted at exit, within the run (%s)" % (h, p, ev))
    return 0


def test_down(binary, tmp):
    port = free_udp_port()   # nothing listens there
    fr, _ = scenario()
    ref, ref_frames = N.run(binary, tmp, "nolog", fr, EXTRA)
    st, got_frames = N.run(binary, tmp, "down", fr,
                           EXTRA + ["--nat-log", "ipfix:127.0.0.1:%d" % port])
    if st is None or ref is None:
        return 0
    # the same frames but for the public ports drawn at random (and ICMP's
    # checksums, which cover the identifier)
    def shape(frames):
        return [(f.src, f.dst, f.dport if f.proto != 1 else 0, f.proto) for f in frames]
    check(shape(got_frames) == shape(ref_frames),
          "the same %d frames out as without the log (%s; %s)"
          % (len(ref_frames), shape(got_frames), shape(ref_frames)))
    for k in ("nat_created", "nat_released", "nat_out", "nat_in", "nat_host_limit"):
        check(st["totals"][k] == ref["totals"][k], "%s as without the log (%d)"
              % (k, ref["totals"][k]))
    lg = log_totals(st)
    check(lg.get("nat_log_queued") == 13 and lg.get("nat_log_dropped") == 0,
          "the workers queued 13 events and dropped none (%s)" % lg)
    check(lg.get("nat_log_exported", -1) + lg.get("nat_log_lost", -1) == 13,
          "every event sent or counted lost (exported %s, lost %s, send errors %s)"
          % (lg.get("nat_log_exported"), lg.get("nat_log_lost"),
             lg.get("nat_log_send_errors")))
    return 0


def test_rate(binary, tmp, n=1000000):
    if not E.ensure_package("nfdump", ["nfcapd", "nfdump"]):
        print("SKIP: the nfdump package cannot be installed here")
        return SKIP
    col = Collector(tmp)
    fr = [(T0 + i / 1e6, N.udp("10.1.%d.%d" % (i >> 12 & 255, i >> 4 & 255), 1024 + (i & 15),
                               "198.18.%d.%d" % (i >> 8 & 255, i & 255), 53))
          for i in range(n)]
    t0 = time.monotonic()
    st, got = N.run(binary, tmp, "rate", fr,
                    ["--nat-pool", "198.51.100.0/28", "--nat-max-per-host", "0",
                     "--max-flows", "262144", "--timeout-oneway", "0.05",
                     "--nat-holddown", "0.05",
                     "--nat-log", "ipfix:127.0.0.1:%d" % col.port])
    wall = time.monotonic() - t0
    log = col.stop()
    if st is None:
        return 0
    t, lg = st["totals"], log_totals(st)
    busy = t["busy_cycles"] / st["tsc_hz"]
    flows = [l for l in log.splitlines() if "Flows:" in l]
    print("rate: %d datagrams, %d mappings made, %d frames out; events queued %d, dropped %d, "
          "exported %d, lost %d in %d messages; worker busy %.3f s: %.0f events/s; run %.1f s; "
          "nfcapd: %s" % (n, t["nat_created"], len(got), lg["nat_log_queued"],
                          lg["nat_log_dropped"], lg["nat_log_exported"], lg["nat_log_lost"],
                          lg["nat_log_messages"], busy, lg["nat_log_queued"] / busy, wall,
                          flows[-1] if flows else "?"))
    check(lg["nat_log_dropped"] == 0, "no event dropped by the workers")
    return 0


def test_cli(binary, tmp):
    nat = ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8"]
    cases = [
        ("no scheme", nat + ["--nat-log", "127.0.0.1:4739"]),
        ("another scheme", nat + ["--nat-log", "netflow:127.0.0.1:4739"]),
        ("not an address", nat + ["--nat-log", "ipfix:127.0.0:4739"]),
        ("IPv6", nat + ["--nat-log", "ipfix:::1:4739"]),
        ("no port", nat + ["--nat-log", "ipfix:127.0.0.1"]),
        ("port 0", nat + ["--nat-log", "ipfix:127.0.0.1:0"]),
        ("port too large", nat + ["--nat-log", "ipfix:127.0.0.1:65536"]),
        ("bad domain", nat + ["--nat-log", "ipfix:127.0.0.1:4739,domain=x"]),
        ("unknown option", nat + ["--nat-log", "ipfix:127.0.0.1:4739,mtu=9000"]),
        ("ring too small", nat + ["--nat-log", "ipfix:127.0.0.1:4739", "--nat-log-ring", "8"],
         "--nat-log-ring: 8 is out of range 64..16777216"),
        ("ring too large", nat + ["--nat-log", "ipfix:127.0.0.1:4739",
                                  "--nat-log-ring", "99999999"],
         "--nat-log-ring: 99999999 is out of range 64..16777216"),
        ("log without masquerade", ["--nat-log", "ipfix:127.0.0.1:4739"]),
    ]
    empty = os.path.join(tmp, "empty.pcap")
    E.write_pcap(empty, [])
    for i, case in enumerate(cases):
        name, args = case[0], case[1]
        want = case[2] if len(case) > 2 else "--nat-log"
        cmd = [binary] + E.EAL + ["-l", "0-1",
                                  "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s"
                                  % (empty, os.path.join(tmp, "o.pcap")),
                                  "--", "-p", "1", "-T", "0", "--duration", "0.2"] + args
        rc, out = E.run_dpdk(cmd, "ipfixcli%d" % i)
        msg = [l for l in out.strip().splitlines() if want in l]
        check(rc != 0 and msg, "%s: refused with a message (%s)" % (name, msg[:1]))
    return 0


def main(argv):
    tests = {"events": test_events, "bib": test_bib, "exit": test_exit, "down": test_down, "cli": test_cli,
             "rate": test_rate}
    if len(argv) not in (3, 4) or argv[2] not in tests or (len(argv) == 4 and argv[2] != "rate"):
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxipfix_") as tmp:
        if len(argv) == 4:
            rc = tests[argv[2]](argv[1], tmp, int(float(argv[3])))
        else:
            rc = tests[argv[2]](argv[1], tmp)
    if rc == SKIP:
        return SKIP
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
