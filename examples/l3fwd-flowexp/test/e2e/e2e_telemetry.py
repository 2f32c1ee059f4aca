#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of dpdk-l3fwd-flowexp's telemetry (meson suite e2e).

  e2e_telemetry.py BINARY commands    two workers on the capture's clock, a
                                      known number of flows each: the
                                      per-instance commands agree with
                                      /l3fwd_flowexp/stats and the stats
                                      file; /reset zeroes the maxima and no
                                      counter; bad parameters get an error
  e2e_telemetry.py BINARY prometheus  the same run scraped by DPDK 24.11's
                                      dpdk-telemetry-exporter.py (from the
                                      tarball in ../shared/dpdk/) with
                                      share/dpdk/telemetry-endpoints/
                                      twheel.py, and a Prometheus server
                                      (Debian's prometheus, installed with
                                      apt-get if missing) scraping it every
                                      second: live, created and expired per
                                      lcore, asked of Prometheus's HTTP API,
                                      are the stats file's
  e2e_telemetry.py TEST endpoint64    the endpoint against
                                      flowexp-telemetry-test serving 64
                                      made-up workers: every lcore's
                                      metrics, each of the types it declares

Every wait is on a value (a counter, a series), bounded only against a
hang. Servers listen on free loopback ports chosen at run time; every
process and temporary directory is removed at the end. Exit status 0 when
every check passed, 77 (skipped) when Prometheus cannot be installed or
the DPDK 24.11 tarball is not there.
"""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402

P, G, fxtel, check = E.P, E.G, E.fxtel, E.check
ENDPOINT_DIR = os.path.join(ROOT, "share", "dpdk", "telemetry-endpoints")
TARBALLS = os.path.join(ROOT, "..", "shared", "dpdk", "dpdk-24.11*.tar.xz")
SKIP = 77


def free_port():
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_until(pred, what, timeout=60.0, step=0.1):
    """pred() until it returns a true value (returned), at most timeout
    seconds: a bound against a hang, not a delay that decides."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = pred()
            if last:
                check(True, what)
                return last
        except (OSError, ValueError, KeyError) as e:
            last = e
        time.sleep(step)
    check(False, "%s (last: %s)" % (what, str(last)[:800]))
    return None


def stop(proc, timeout=10.0):
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class TwoWorkers:
    """The example on two workers, port 0's two queues read from one
    pcap each, on the capture's clock: every flow in the pcap of the
    worker that owns it (fxpkt.handoff_owner), so nothing is handed off
    and each worker's counts are known. The capture ends, time jumps, and
    every flow expires: created == expired == the worker's flows."""

    def __init__(self, binary, tmp, name):
        self.flows, per = {1: 0, 2: 0}, {1: [], 2: []}
        for i in range(700):
            owner = 1 + P.handoff_owner(bytes.fromhex(G.flow_key(i, (31, 32))), 2)
            per[owner].append(G.flow_packets(i, (31, 32))[0])
            self.flows[owner] += 1
        files, self.packets = {}, 0
        for lc in (1, 2):
            frames = G.interleave(per[lc])
            files[lc] = os.path.join(tmp, "%s%d.pcap" % (name, lc))
            E.write_pcap(files[lc], frames, ts=1.0)
            self.packets += len(frames)
        vdev = "net_pcap0,rx_pcap=%s,rx_pcap=%s,tx_pcap=%s,tx_pcap=%s" % (
            files[1], files[2], os.path.join(tmp, name + "o1.pcap"),
            os.path.join(tmp, name + "o2.pcap"))
        self.ex = E.Example(binary, name, E.EAL + ["--lcores", "0@0,1@1,2@1", "--vdev", vdev],
                            ["-p", "1", "--config", "(0,0,1),(0,1,2)"] + E.PMD + E.FAST +
                            ["--clock", "pcap", "--max-flows", "4096", "--duration", "120"], tmp)
        print("     flows per lcore: %s" % self.flows)

    def settled(self):
        """Wait until every flow of each worker was created and expired
        (the capture's end made time jump); the /lcore,N replies."""
        def done():
            r = {lc: self.ex.tel("/l3fwd_flowexp/lcore,%d" % lc) for lc in (1, 2)}
            return r if all(r[lc]["created"] == self.flows[lc] and
                            r[lc]["expired"] == self.flows[lc] for lc in (1, 2)) else None
        return wait_until(done, "each worker created and expired its flows %s" % self.flows)


FLOW_FIELDS = ("active", "created", "refreshed", "expired", "invalidated", "drained",
               "table_full", "evicted", "shortened", "expired_oneway", "expired_tcp_syn")


def test_commands(binary, tmp):
    run = TwoWorkers(binary, tmp, "cmds")
    ex = run.ex
    try:
        r = run.settled()
        if r is None:
            return
        lcores = ex.tel("/l3fwd_flowexp/lcores")
        check(lcores == [1, 2], "/l3fwd_flowexp/lcores: [1, 2] (got %s)" % lcores)
        check(ex.tel("/l3fwd_flowexp/ports") == [0], "/l3fwd_flowexp/ports: [0]")
        st = ex.stats()
        check("incomplete" not in st and "lcore_1" in st and "lcore_2" in st,
              "/l3fwd_flowexp/stats at 2 workers is whole")
        for lc in (1, 2):
            one = r[lc]
            agg = st["lcore_%d" % lc]
            check(one["lcore"] == lc and one["tsc_hz"] == st["tsc_hz"] > 0,
                  "lcore,%d: its id and tsc_hz beside the cycle counters" % lc)
            check(all(one[k] == agg[k] for k in FLOW_FIELDS),
                  "lcore,%d: the flow counters of /stats's lcore_%d" % (lc, lc))
            check(not any(k in one for k in ("lag_max_us", "sweep_max_us", "loop_max_us",
                                             "poll_removed_max")),
                  "lcore,%d: no maxima (they are in maxima,%d)" % (lc, lc))
            m = ex.tel("/l3fwd_flowexp/maxima,%d" % lc)
            check(m["poll_removed_max"] > 0 and m["lag_max_us"] > 0 and m["resets"] == 0,
                  "maxima,%d: flows were removed by its polls, late (%s)" % (lc, m))
        port = ex.tel("/l3fwd_flowexp/port,0")
        check(port["rx"] == run.packets == st["port_0"]["rx"] and port["port"] == 0,
              "port,0: the %d packets received, as /stats (got %s)" % (run.packets, port))
        before = {lc: ex.tel("/l3fwd_flowexp/lcore,%d" % lc) for lc in (1, 2)}
        r = ex.tel("/l3fwd_flowexp/reset")
        check(r == {"status": "ok", "resets": 1}, "/reset: ok, the first (got %s)" % r)

        def reset_seen():
            m = {lc: ex.tel("/l3fwd_flowexp/maxima,%d" % lc) for lc in (1, 2)}
            return m if all(m[lc]["poll_removed_max"] == 0 and m[lc]["lag_max_us"] == 0
                            for lc in (1, 2)) else None
        wait_until(reset_seen, "after /reset both workers' removal and lag maxima are 0 "
                   "(nothing expires any more)")
        after = {lc: ex.tel("/l3fwd_flowexp/lcore,%d" % lc) for lc in (1, 2)}
        for lc in (1, 2):
            check(all(after[lc][k] == before[lc][k] for k in FLOW_FIELDS) and
                  after[lc]["stalls"] >= before[lc]["stalls"] and
                  after[lc]["loops"] > before[lc]["loops"],
                  "lcore,%d: /reset left every counter as it was (stalls %d -> %d)"
                  % (lc, before[lc]["stalls"], after[lc]["stalls"]))
        m = ex.tel("/l3fwd_flowexp/maxima")
        check(m["resets"] == 1 and m["workers"] == 2 and m["since_reset_us"] < 60e6,
              "/maxima: one reset, %d us ago" % m["since_reset_us"])
        for cmd in ("/l3fwd_flowexp/lcore,abc", "/l3fwd_flowexp/lcore,999",
                    "/l3fwd_flowexp/lcore,0", "/l3fwd_flowexp/port,-1",
                    "/l3fwd_flowexp/port,1", "/l3fwd_flowexp/lcore,1,2",
                    "/l3fwd_flowexp/maxima,1,", "/l3fwd_flowexp/lcores,1",
                    "/l3fwd_flowexp/lcore"):
            r = ex.tel(cmd)
            check(list(r) == ["error"], "%s: an error (%s)" % (cmd, r.get("error")))
        try:
            r = ex.tel("/l3fwd_flowexp/nat")
        except ValueError:
            r = None
        check(r is None, "no /l3fwd_flowexp/nat without masquerade")
    finally:
        fin = ex.finish(stop=True)
    if fin is None:
        return
    for lc in (1, 2):
        f = fin["lcore_%d" % lc]
        check(f["created"] == f["expired"] == run.flows[lc] and f["active"] == 0,
              "stats file lcore_%d: %d created and expired" % (lc, run.flows[lc]))


def ensure_prometheus():
    """The path of prometheus, installed with apt-get if missing; None if
    it cannot be."""
    return shutil.which("prometheus") if E.ensure_package("prometheus", ["prometheus"]) else None


def unpack_exporter(tmp):
    """DPDK 24.11's usertools/dpdk-telemetry-exporter.py, unpacked into
    tmp; None without the tarball."""
    tarballs = sorted(glob.glob(TARBALLS))
    if not tarballs:
        return None
    with tarfile.open(tarballs[-1]) as t:
        for m in t.getmembers():
            if m.name.endswith("/usertools/dpdk-telemetry-exporter.py"):
                m.name = os.path.basename(m.name)
                t.extract(m, tmp)
                return os.path.join(tmp, m.name)
    return None


def prom_query(port, q):
    """Prometheus's instant query q: {labels-tuple: value}."""
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q}))
    r = json.loads(http_get(url))
    if r.get("status") != "success":
        raise ValueError(r)
    return {tuple(sorted(s["metric"].items())): float(s["value"][1]) for s in r["data"]["result"]}


def per_lcore(port, metric):
    """{lcore: value} of the series of metric."""
    return {int(dict(k)["lcore"]): v for k, v in prom_query(port, metric).items()
            if "lcore" in dict(k)}


def start_exporter(exporter, tmp, sockpath):
    port = free_port()
    log = open(os.path.join(tmp, "exporter.log"), "w")
    proc = subprocess.Popen([sys.executable, exporter, "-p", ENDPOINT_DIR, "-e", "twheel",
                             "-s", sockpath, "-o", "prometheus://127.0.0.1:%d" % port],
                            stdout=log, stderr=subprocess.STDOUT)
    return proc, port, log


def start_prometheus(prom, tmp, target_port):
    port = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: twheel\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % target_port)
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    proc = subprocess.Popen([prom, "--config.file=" + cfg,
                             "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                             "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                            stdout=log, stderr=subprocess.STDOUT)
    return proc, port, log


def show_log(path):
    with open(path) as f:
        print("---- %s ----\n%s----" % (os.path.basename(path), f.read()[-3000:]))


def promtool_check(prom, body):
    """Prometheus's own linter on the page the exporter serves: the
    exposition format, names, types and help texts."""
    promtool = os.path.join(os.path.dirname(prom), "promtool")
    if not os.access(promtool, os.X_OK):
        promtool = shutil.which("promtool")
    if not check(promtool is not None, "promtool is there (the prometheus package)"):
        return
    r = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                       text=True, timeout=30)
    out = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and out == "",
          "promtool check metrics passes the exporter's page, %d lines (status %d%s)"
          % (body.count("\n"), r.returncode, ": " + out[:600] if out else ""))


def test_prometheus(binary, tmp):
    prom = ensure_prometheus()
    if prom is None:
        print("SKIP: the prometheus package cannot be installed here")
        return SKIP
    exporter = unpack_exporter(tmp)
    if exporter is None:
        print("SKIP: no DPDK 24.11 tarball at %s" % TARBALLS)
        return SKIP
    t0 = time.monotonic()
    run = TwoWorkers(binary, tmp, "prom")
    ex, xp, pp, logs = run.ex, None, None, []
    fin = got = None
    try:
        if run.settled() is None:
            return 0
        xp, xport, xlog = start_exporter(exporter, tmp, fxtel.socket_path(ex.prefix))
        logs.append(xlog)
        body = wait_until(lambda: xp.poll() is None and
                          http_get("http://127.0.0.1:%d/" % xport),
                          "the exporter answers on 127.0.0.1:%d" % xport, timeout=30)
        if not body:
            show_log(xlog.name)
            return 0
        for name in ("dpdk_twheel_flowexp_created_total{lcore=\"1\"}",
                     "dpdk_twheel_wheel_live{wheel=\"fx2\", lcore=\"2\"}",
                     "# TYPE dpdk_twheel_flowexp_active gauge",
                     "# TYPE dpdk_twheel_flowexp_expired_total counter"):
            check(name in body, "the exporter's page has %s" % name)
        promtool_check(prom, body)
        pp, pport, plog = start_prometheus(prom, tmp, xport)
        logs.append(plog)

        def scraped():
            got = {m: per_lcore(pport, m) for m in ("dpdk_twheel_flowexp_created_total",
                                                    "dpdk_twheel_flowexp_expired_total",
                                                    "dpdk_twheel_flowexp_active",
                                                    "dpdk_twheel_wheel_live")}
            return got if all(len(v) == 2 for v in got.values()) else None
        got = wait_until(scraped, "Prometheus on 127.0.0.1:%d has the series of both lcores"
                         % pport, timeout=60, step=0.25)
        if got is None:
            show_log(plog.name)
            show_log(xlog.name)
            return 0
        meta = json.loads(http_get("http://127.0.0.1:%d/api/v1/metadata" % pport))["data"]
        for m, kind in (("dpdk_twheel_flowexp_created_total", "counter"),
                        ("dpdk_twheel_flowexp_active", "gauge"),
                        ("dpdk_twheel_flowexp_lag_max_seconds", "gauge"),
                        ("dpdk_twheel_wheel_due_total", "counter")):
            t = [e["type"] for e in meta.get(m, [])]
            check(t == [kind], "Prometheus knows %s as a %s (got %s)" % (m, kind, t))
        ttl = prom_query(pport, 'sum(dpdk_twheel_flowexp_busy_seconds_total) > 0')
        check(len(ttl) == 1, "busy time exported in seconds, above 0 (%s)" % ttl)
    finally:
        stop(pp)
        stop(xp)
        for log in logs:
            log.close()
        fin = ex.finish(stop=True)
    if fin is None or got is None:
        return 0
    for lc in (1, 2):
        f = fin["lcore_%d" % lc]
        want = {"dpdk_twheel_flowexp_created_total": f["created"],
                "dpdk_twheel_flowexp_expired_total": f["expired"],
                "dpdk_twheel_flowexp_active": f["active"],
                "dpdk_twheel_wheel_live": f["active"]}
        have = {m: got[m].get(lc) for m in want}
        check(have == {m: float(v) for m, v in want.items()} and f["created"] == run.flows[lc],
              "lcore %d: Prometheus's live, created and expired are the stats file's %s "
              "(got %s)" % (lc, want, have))
    print("     prometheus test: %.1f s" % (time.monotonic() - t0))
    return 0


def test_endpoint64(test_binary, tmp):
    """The endpoint's metrics() against 64 made-up workers (the fast test's
    server mode), through a socket as the exporter's."""
    prefix = E.new_prefix("endpoint64")
    proc = subprocess.Popen([test_binary, "--no-huge", "-m", "256", "--no-pci", "-l", "0",
                             "--log-level=lib.eal:error", "--log-level=lib.ethdev:crit",
                             "--file-prefix", prefix, "serve"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out = b""
        while b"serving\n" not in out:
            line = proc.stdout.readline()
            if not line:
                break
            out += line
        if not check(b"serving\n" in out, "flowexp-telemetry-test serves 64 workers"):
            print(out.decode(errors="replace")[-3000:])
            return 0
        sys.path.insert(0, ENDPOINT_DIR)
        import twheel as endpoint

        class Sock:
            def __init__(self, path):
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                self.max = json.loads(self.s.recv(1024))["max_output_len"]
                self.largest = 0

            def cmd(self, uri, arg=None):
                self.s.send((uri if arg is None else "%s,%s" % (uri, arg)).encode())
                data = self.s.recv(self.max)
                self.largest = max(self.largest, len(data))
                return json.loads(data)[uri]

        sock = Sock(fxtel.socket_path(prefix))
        t = time.monotonic()
        ms = endpoint.metrics(sock)
        dt = time.monotonic() - t
        info = endpoint.info()
        names = {m[0] for m in ms}
        check(all(n in info and info[n][1] in ("counter", "gauge") for n in names),
              "every metric is declared by info(), as a counter or a gauge (%d names)" % len(names))
        for n in ("flowexp_created_total", "flowexp_expired_total", "flowexp_active",
                  "flowexp_nat_created_total", "flowexp_lag_max_seconds"):
            lc = sorted(m[2]["lcore"] for m in ms if m[0] == n)
            check(lc == list(range(1, 65)), "%s for lcores 1..64" % n)
        wl = sorted(m[2]["wheel"] for m in ms if m[0] == "wheel_live")
        check(len(wl) == 128, "wheel_live for the 128 wheels (got %d)" % len(wl))
        check(sock.largest < 16384, "every reply under 16 KiB (largest %d bytes)" % sock.largest)
        print("     %d samples of %d metrics in %.2f s" % (len(ms), len(names), dt))
    finally:
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        E.remove_runtime(prefix)
    return 0


TESTS = {"commands": test_commands, "prometheus": test_prometheus,
         "endpoint64": test_endpoint64}


def main(argv):
    test = TESTS.get(argv[2]) if len(argv) == 3 else None
    if test is None:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxtel_") as tmp:
        rc = test(argv[1], tmp)
    if rc == SKIP:
        return SKIP
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
