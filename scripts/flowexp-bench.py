#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Benchmarks of dpdk-l3fwd-flowexp (doc/performance.md quotes its output).

Traffic: dpdk-testpmd --forward-mode=flowgen over net_memif, driven over its
stdin (start/stop). CPUs: the example's worker lcore alone on CPU 0; its
main lcore, testpmd, every control thread and this script on CPU 1. For each --expiry mode, in one run:

  new   new flows per second per lcore, sustained at about 1M concurrent
        flows: flowgen cycles through 500M flows, so every packet opens a
        flow, and the one-way timeout is set to 1M / (rate of a short
        calibration run), so that about 1M flows are live; of 12 one-second
        windows, those that ended with 0.8M..1.25M live flows count
  mpps  packets per second with 1M live flows (flowgen cycles 1M flows,
        timeout 60 s), and the same with --expiry none (no flow tracking);
        each run also gives the share of the worker's cycles spent in
        iterations that had packets (busy: near 1 when the worker, not the
        generator, is the limit) and those cycles per packet
  stages  the mpps workload with --bench: the worker's cycles per packet
        in each stage of a burst (rx, parse, lookup, flow, forward, tx...),
        in the expiry polls, and in the rest of the loop
  storm 1M flows created once (flowgen stops after one cycle), then they
        all expire, their deadlines spread as their creation was: longest
        loop iteration and sweep during the expiry, iterations over 100 us,
        time from the first expiry to an empty table; the same maxima over
        an idle window just before are the machine's noise floor
  burst the same 1M flows made due at one moment: the workers' expiry
        polls are held (/l3fwd_flowexp/hold, which the example offers only
        with --bench; forwarding goes on) until every deadline has passed,
        then released; the same figures, the most flows one poll removed,
        and the worker's CPU time per expiry

  evict every packet a new flow (the replayed pcaps of "handoff", one
        worker): flows leave by expiry (5 ms timeout), or the table is
        full (8192 flows) and --table-full evict makes room, or drop; the
        cycles per packet of each (as for handoff, below)
  bind  masquerade where every packet is a new inside endpoint (the
        replayed pcaps of "handoff", one worker, sources 10.30.0.0/15
        inside, a 5 ms timeout and a 10 ms hold-down, both shorter than a
        replay's cycle): new mappings per CPU-second with
        --nat-mapping edm (mode "edm") and with eim and eif (mode "eim"),
        where each mapping also makes a binding; the "new" scenario's
        flowgen traffic comes from one inside endpoint, so under eim it
        measures sessions under one binding. On hugepages unless
        --no-huge, as the flowgen scenarios (the other pcap scenarios
        always run on --no-huge). Runs once per repeat.
  handoff  two rx queues of net_pcap replaying a pcap each (infinite_rx;
        no testpmd, so each worker can have a CPU), the flows of each
        queue owned half by one worker, half by the other: packets/s
        (8192 flows, all hits) and new flows/s (60000 flows per cycle, a
        timeout of a third of a replay cycle at the hits' rate, 1 to 5 ms,
        so every replay creates them again; a run whose flows made are
        under 95 % of its packets is reported as not valid), with one
        worker polling both queues (CPU 0) against two workers with
        --affinity handoff (CPUs 0 and 1); the fraction handed off, the
        fraction a full ring dropped, and the extra cycles per handed-off
        packet: (cycles per packet with two workers - with one) / fraction
        handed off, cycles being the workers' CPU time times the share of
        their loop time spent in iterations that had packets (busy_cycles),
        at the TSC rate. Scenario scale does the same on N workers.
        Runs only once per repeat (its own expiry: twheel).

  scale N workers (--workers 1,2,4,8,...), each alone on a CPU with its
        own net_pcap rx queue, --affinity handoff: hits, every packet a new
        flow, and new NAT mappings (edm; eim with eif), per N the rate in
        all and per worker against N=1, the shares handed off and dropped,
        the extra cycles per handed-off packet and the ring counters that
        explain them, each run's timeout checked against its replay cycle
        (scripts/flowexp_scale.py says how; --scale-csv writes the rows
        that scripts/plot-flowexp-scale.sh plots). Its own expiry (twheel).

  steer masquerade on 2 workers under --affinity rss --rss-model, the
        replies on the queues a NIC's RSS would give them, NAT's port
        choice steering them (--nat-steer on) and not (off), alternated:
        packets/s, cycles per packet and the share handed off, and, with
        every packet a new mapping, the choice's cost per new mapping
        (scripts/flowexp_steer.py says how). Not with --base.

  tcp   TCP through the connection tracker at 1M live connections: net_pcap
        replays a pcap (made once, under /tmp/fxbench_tcp) of 1M IPv4
        connections, first every handshake (SYN, SYN-ACK, ACK), then one
        6-byte data segment from each client and one from each server,
        with valid checksums (verified in software: net_pcap gives no
        checksum flags); --bench. Measured over the data segments alone
        (from the moment every connection exists to the end of the file):
        packets per CPU-second of the worker and cycles per packet by
        stage. The rx stage is libpcap reading the file, the same for any
        build; parse holds the checksum, flow the window checks.
        Runs once per repeat (its own expiry: twheel).

  rate  the cost of expiry per new flow at fixed offered rates, with about
        --rate-live (10M) flows live in a table of --rate-max-flows (16M):
        for each one-way timeout of --rate-timeouts (3,10,30,100,300 s),
        flowgen cycles through 500M flows (every packet a new flow) held by
        tools/pace.py to live / timeout packets/s; after a warm-up of one
        timeout plus --rate-margin (5 s), the stats deltas over
        --rate-window (10 s) give per new flow the cycles of the expiry polls
        (expiry_cycles; idle_expiry_cycles the part in iterations without
        packets), of the "flow" stage (--bench: arming a timer or a wheel
        entry), and all the worker's work (busy_cycles + idle_expiry_cycles,
        in ns), each scaled by the worker's CPU share (the TSC also counts
        time the OS gave its CPU to others); the expiry lag over the window
        beside them. Mode scan_paced is --expiry scan with --scan-interval
        --rate-scan-interval (1 s); plain scan walks --expire-budget slots
        every loop iteration. The example runs with -m sized per back-end;
        the heap it allocated and both processes' RSS are recorded. One
        row per run is appended to --rate-csv (scripts/plot-flowexp-rate.sh
        plots it). A run that achieved less than 90 % of the offered rate
        "fell behind".
  mem   the DPDK heap the example allocates (telemetry /eal/heap_info)
        with --max-flows 1M: the difference between mode nat and mode
        twheel, divided by the capacity, is the memory per NAT mapping

  flood hash flooding (doc/security.md): one worker, net_pcap replaying
        (infinite_rx) one packet of each of 20000 UDP flows from one
        source (mode twheel: --max-flows 32768) or of 20000 outbound
        UDP tuples from inside hosts (mode nat: every one a mapping), the
        keys being (set "random") random, (set "crc") ones with one
        CRC32-C (rte_hash_crc, seed 0: the unkeyed hash, computed by
        test/lib/collide.py by linear algebra; the secret is not involved), or
        (set "keyed") 200 that share one home bucket of the index under
        the keyed hash with the secret the example is given
        (--hash-secret, known to the attacker here; builds without the
        option are run without it). Cycles per packet as for handoff
        (the worker's CPU time at the TSC rate, times its busy share, over
        the packets received) in a 4 s window after 2 s of warm-up, and
        each set's ratio to "random" (paired within a repeat). The flows
        stay live (60 s timeouts), so a replay after the first is hits,
        or, past an index's probe bound, refused adds.

Mode "nat" is the flow tracker with masquerade on (--expiry twheel,
--nat-pool 203.0.113.0/28 --nat-inside 10.254.0.0/16 --nat-holddown 0.1
--nat-max-per-host 0: flowgen's source is one inside address, so every
flow is a mapping of that host); its counts are the mappings'. So
"--modes twheel,nat" measures NAT against the flow tracker alone in one run.
Mode "nat_log" is mode nat with the NAT event log on (--nat-log to a UDP
socket on 127.0.0.1 that this script holds open and never reads: every
message is built and sent, the kernel drops it at the full socket, and no
collector takes CPU time); "--modes nat,nat_log" measures the log's cost,
and prints the events the workers' rings dropped (nat_log_dropped).
Mode "nat_eim" is mode nat with endpoint-independent mappings and
filtering (--nat-mapping eim --nat-filtering eif: a binding per inside
endpoint, each flow a session under one); "--modes nat,nat_eim" measures
its cost against the default endpoint-dependent mappings.
Mode "nat_pba" is mode nat with port blocks (--nat-port-block 64
--nat-max-blocks-per-host 0): the one host's mappings take their ports in
its blocks (overlapping across the remote endpoints, as without blocks);
"--modes nat,nat_pba" measures the block allocator's cost per new
mapping. Mode "nat_pba_log" is mode nat_log with the same blocks: the log
carries block events instead of session events; "--modes
nat_log,nat_pba_log" compares the two with logging on and prints the
events queued of both. The log's size per mapping with many hosts is
test/e2e/e2e_pba.py's logsize tool.

Every rate is also given per CPU-second of the worker thread (from
/proc/PID/task/TID/stat), which is what a dedicated core would do when the
machine is shared. Each scenario runs --repeat times, all modes one after
the other each time; medians are printed, and ratios between modes are
medians of the ratios between such neighbouring runs. With --base DIR
(an A/B of two builds) every run is followed by the same run with DIR's
binary, and the ratios of each run to its neighbour are printed at the
end: a change's cost, measured in one run with the builds alternated.
--args "ARGS" adds example options to this build's runs only (not to
--base's), for options the base does not have: the cost of a feature in
use against a build without it.

  scripts/flowexp-bench.py [--repeat N] [--modes twheel,rte_timer,scan]
                           [--scenarios new,mpps,stages,storm,burst,handoff,evict,bind,mem,tcp,rate,flood,scale,steer]
                           [--workers 1,2,4,8] [--scale-pkts N] [--scale-csv PATH]
                           [--no-huge] [--build DIR] [--base DIR] [--args "ARGS"]
                           [--rate-timeouts 3,10,30,100,300] [--rate-live N]
                           [--rate-max-flows N] [--rate-window S] [--rate-margin S]
                           [--rate-scan-interval S] [--rate-csv PATH]
  (rate also takes the mode scan_paced: --modes twheel,rte_timer,scan,scan_paced)
"""

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "tools"))
import fxtel  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import flowexp_scale  # noqa: E402
import flowexp_steer  # noqa: E402

HP = "/sys/kernel/mm/hugepages/hugepages-2048kB"
EX_MB, TP_MB = 900, 192
NAT_EX_MB = 1600     # 2M mappings at about 300 B each beside the flow table


def log(msg):
    print(msg, flush=True)


def hugepages_ok():
    try:
        free = int(open(os.path.join(HP, "free_hugepages")).read())
    except OSError:
        return False
    return free >= (NAT_EX_MB + TP_MB) // 2 + 32


# a short hold-down: held mappings occupy records, and at 1M new mappings/s
# the default 120 s would need a table of 120M; no per-host limit, as
# flowgen sends every flow from one address (10.254.0.0)
NAT_ARGS = ["--nat-pool", "203.0.113.0/28", "--nat-inside", "10.254.0.0/16",
            "--nat-holddown", "0.1"]
# options of later builds only, given where the binary has them (an A/B
# against a build from before them)
NAT_ARGS_IF = [["--nat-max-per-host", "0"]]


# mode nat_eim: endpoint-independent mapping, endpoint-independent filtering
NAT_EIM_ARGS = ["--nat-mapping", "eim", "--nat-filtering", "eif"]


def knows(app, opt):
    """Whether a build's binary takes option opt: its usage text names
    it. Since the usage is made from the option table (boot/args_table.c)
    it is not in the binary as text, so the binary's --help is asked
    (before EAL: no hugepages); builds from before that hold the text."""
    with open(app, "rb") as f:
        if opt.encode() in f.read():
            return True
    r = subprocess.run([app, "--", "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=60)
    return ("  %s " % opt) in r.stdout.decode(errors="replace") or \
        ("  %s:" % opt) in r.stdout.decode(errors="replace")


def nat_args(app):
    """NAT_ARGS and those of NAT_ARGS_IF that app takes."""
    return NAT_ARGS + [x for o in NAT_ARGS_IF if knows(app, o[0]) for x in o]


# mode nat_pba: port blocks of 64, no limit of blocks (flowgen's one host)
NAT_PBA_ARGS = ["--nat-port-block", "64", "--nat-max-blocks-per-host", "0"]


# mode nat_log's collector: a socket that is never read
_sink = None


def nat_log_args():
    global _sink
    if _sink is None:
        _sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        _sink.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        _sink.bind(("127.0.0.1", 0))
    return ["--nat-log", "ipfix:127.0.0.1:%d" % _sink.getsockname()[1]]


# --args: example options for the runs of one binary (app -> list)
EXTRA_ARGS = {}


class Run:
    """The example and testpmd connected by memif."""

    n = 0

    def __init__(self, app, expiry, args, flowgen_flows, huge, ex_mb=None):
        args = list(args) + EXTRA_ARGS.get(app, [])
        if expiry == "nat":
            expiry, args = "twheel", args + nat_args(app)
        elif expiry == "nat_log":
            expiry, args = "twheel", args + nat_args(app) + nat_log_args()
        elif expiry == "nat_eim":
            expiry, args = "twheel", args + nat_args(app) + NAT_EIM_ARGS
        elif expiry == "nat_pba":
            expiry, args = "twheel", args + nat_args(app) + NAT_PBA_ARGS
        elif expiry == "nat_pba_log":
            expiry, args = "twheel", args + nat_args(app) + nat_log_args() + NAT_PBA_ARGS
        Run.n += 1
        tag = "fxbench_%d_%d" % (os.getpid(), Run.n)
        self.prefix = tag + "_ex"
        sock = "/tmp/%s.sock" % tag
        if ex_mb is None:
            ex_mb = NAT_EX_MB if NAT_ARGS[0] in args else EX_MB
        mem = ["-m", str(ex_mb), "--huge-unlink"] if huge else ["--no-huge", "-m", str(ex_mb)]
        tmem = ["-m", str(TP_MB), "--huge-unlink"] if huge else ["--no-huge", "-m", str(TP_MB)]
        self.log = open("/tmp/%s.log" % tag, "w")
        cmd = [app] + mem + ["--no-pci", "--lcores", "0@1,1@0", "--file-prefix", self.prefix,
                             "--log-level=lib.eal:error", "--vdev",
                             "net_memif0,role=server,socket=%s,socket-abstract=no" % sock,
                             "--", "-p", "1", "--parse-ptype", "--relax-rx-offload", "-T", "0",
                             "--expiry", expiry] + args
        self.ex = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_stats()
        self.tp = subprocess.Popen(
            ["dpdk-testpmd"] + tmem + ["--no-pci", "--lcores", "0@1,1@1",
                                       "--file-prefix", tag + "_tp", "--log-level=lib.eal:error",
                                       "--vdev", "net_memif0,role=client,socket=%s,socket-abstract=no" % sock,
                                       "--", "-i", "--forward-mode=flowgen",
                                       "--flowgen-flows=%d" % flowgen_flows, "--txpkts=64",
                                       "--total-num-mbufs=8192"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.worker_stat = None
        time.sleep(1.5)

    def wait_stats(self, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.ex.poll() is not None:
                raise RuntimeError("the example exited (see %s)" % self.log.name)
            try:
                return self.stats()
            except (OSError, ValueError):
                time.sleep(0.2)
        raise RuntimeError("the example does not answer")

    def stats(self):
        return fxtel.query(self.prefix, "/l3fwd_flowexp/stats")

    def tel(self, cmd):
        return fxtel.query(self.prefix, cmd)

    def testpmd(self, line):
        self.tp.stdin.write((line + "\n").encode())
        self.tp.stdin.flush()

    def worker_cpu(self):
        """CPU seconds the worker thread has used so far."""
        if self.worker_stat is None:
            for t in os.listdir("/proc/%d/task" % self.ex.pid):
                p = "/proc/%d/task/%s" % (self.ex.pid, t)
                try:
                    comm = open(p + "/comm").read().strip()
                except OSError:
                    # a thread that ended after listdir: the telemetry
                    # server's thread for a client that just disconnected
                    continue
                if comm == "rte-worker-1":
                    self.worker_stat = p + "/stat"
        f = open(self.worker_stat).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def close(self):
        try:
            self.testpmd("stop")
        except OSError:
            pass
        if self.ex.poll() is None:
            self.ex.terminate()
        try:
            self.ex.wait(120)
        except subprocess.TimeoutExpired:
            self.ex.kill()
            self.ex.wait()
        try:
            self.testpmd("quit")
            self.tp.stdin.close()
        except OSError:
            pass
        try:
            self.tp.wait(30)
        except subprocess.TimeoutExpired:
            self.tp.kill()
            self.tp.wait()
        self.log.close()


def sample(run, seconds, key):
    """Per-second rates of key(stats) over `seconds` with the active flow
    count at the end of each second, the worker's CPU share over the whole
    window, and the last stats."""
    rates, actives = [], []
    s0, t0, c0 = run.stats(), time.monotonic(), run.worker_cpu()
    s_prev, t_prev = s0, t0
    for _ in range(seconds):
        time.sleep(1.0)
        s, t = run.stats(), time.monotonic()
        rates.append((key(s) - key(s_prev)) / (t - t_prev))
        actives.append(active(s))
        s_prev, t_prev = s, t
    cpu = (run.worker_cpu() - c0) / (t_prev - t0)
    return rates, actives, cpu, s_prev


def rx(s):
    return sum(v["rx"] for k, v in s.items() if k.startswith("port_"))


def created(s):
    """Flows made, or NAT mappings where masquerade is on."""
    t = s["totals"]
    return t.get("nat_created", t["created"])


def active(s):
    t = s["totals"]
    return t.get("nat_active", t["active"])


def expired(s):
    t = s["totals"]
    return t.get("nat_expired", t["expired"])


def scen_new(app, mode, huge):
    # calibration: the rate at a timeout short enough that even 4M new
    # flows/s stay within the table
    r = Run(app, mode, ["--max-flows", "2097152", "--timeout-oneway", "0.25"], 500000000, huge)
    try:
        r.testpmd("start")
        time.sleep(2)
        rates, _, _, _ = sample(r, 4, created)
    finally:
        r.close()
    cal = max(statistics.median(rates), 50000.0)
    # a timeout that keeps about 1M flows live; no shorter than 10 ticks
    tmo = min(30.0, max(0.1, 1e6 / cal))
    for attempt in range(2):
        r = Run(app, mode, ["--max-flows", "2097152", "--timeout-oneway", "%.3f" % tmo],
                500000000, huge)
        try:
            r.testpmd("start")
            time.sleep(tmo + 2)
            rates, actives, cpu, s = sample(r, 12, created)
        finally:
            r.close()
        # the machine is shared: the rate, and so the live flow count,
        # drifts; keep the seconds that ended with 0.8M..1.25M flows live
        kept = [x for x, a in zip(rates, actives) if 800000 <= a <= 1250000]
        if kept or attempt == 1:
            break
        # missed the band: scale the timeout by what was live, once
        tmo = min(30.0, max(0.1, tmo * 1e6 / max(statistics.median(actives), 1.0)))
    med = statistics.median(kept if kept else rates)
    return {"new_per_s": med, "timeout_s": tmo, "windows_kept": len(kept),
            "active": statistics.median(actives),
            "table_full": s["totals"].get("nat_table_full", s["totals"]["table_full"]),
            "log_dropped": s["totals"].get("nat_log_dropped", 0),
            "log_queued": s["totals"].get("nat_log_queued", 0),
            "cpu": cpu,
            "new_per_cpu_s": med / cpu if cpu > 0 else 0}


def start_1m_live(app, mode, huge, args=()):
    """flowgen cycling 1M flows with a 60 s timeout, once all 1M are live
    (at once with --expiry none)."""
    r = Run(app, mode, ["--max-flows", "2097152", "--timeout-oneway", "60"] + list(args),
            1000000, huge)
    try:
        r.testpmd("start")
        end = time.monotonic() + 60
        while mode != "none" and created(r.stats()) < 1000000 and time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(2)
    except BaseException:
        r.close()
        raise
    return r


def scen_mpps(app, mode, huge):
    r = start_1m_live(app, mode, huge)
    try:
        s0, t0 = r.stats(), time.monotonic()
        rates, _, cpu, s = sample(r, 8, rx)
        dt = time.monotonic() - t0
    finally:
        r.close()
    med = statistics.median(rates)
    # whether the worker is saturated (the generator not the limit), and
    # what a packet costs it: the cycles of its iterations that had packets
    busy = s["totals"]["busy_cycles"] - s0["totals"]["busy_cycles"]
    return {"pps": med, "active": active(s), "cpu": cpu,
            "busy": busy / float(s["tsc_hz"]) / dt,
            "busy_cycles_per_pkt": busy / max(1, rx(s) - rx(s0)),
            "log_dropped": s["totals"].get("nat_log_dropped", 0),
            "pps_per_cpu_s": med / cpu if cpu > 0 else 0}


STAGES = ("rx", "parse", "handoff", "nat", "lookup", "flow", "forward", "tx")


def scen_stages(app, mode, huge):
    """The mpps workload with --bench: cycles per received packet in each
    stage of a burst (TSC, summed by the worker), the expiry polls, and
    the rest of the busy loop iterations ("loop")."""
    r = start_1m_live(app, mode, huge, ["--bench"])
    try:
        s0 = r.stats()
        time.sleep(8)
        s1 = r.stats()
    finally:
        r.close()
    t0, t1 = s0["totals"], s1["totals"]
    pkts = max(1, rx(s1) - rx(s0))
    out = {"c_" + n: (t1["stage_%s_cycles" % n] - t0["stage_%s_cycles" % n]) / pkts
           for n in STAGES}
    out["c_expiry"] = (t1["expiry_cycles"] - t0["expiry_cycles"]) / pkts
    out["c_busy"] = (t1["busy_cycles"] - t0["busy_cycles"]) / pkts
    out["c_loop"] = out["c_busy"] - sum(out["c_" + n] for n in STAGES)
    out["active"] = active(s1)
    return out


def poll_until(run, pred, timeout, step=0.01):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        s = run.stats()
        if pred(s):
            return s, time.monotonic()
        time.sleep(step)
    raise RuntimeError("timed out")


def reset(run):
    """Reset the maxima; returns the stalls so far (a counter, which a
    reset leaves as it is), to count those of the window that follows."""
    run.tel("/l3fwd_flowexp/reset")
    return run.stats()["totals"]["stalls"]


def scen_storm(app, mode, huge):
    tmo = 5.0
    r = Run(app, mode, ["--max-flows", "2097152", "--timeout-oneway", "%g" % tmo], 1000000, huge)
    try:
        r.testpmd("start")
        _, t_first = poll_until(r, lambda s: created(s) > 0, 30)
        _, t_all = poll_until(r, lambda s: created(s) >= 1000000, 60)
        r.testpmd("stop")
        stalls0 = reset(r)
        # idle until just before the first deadline: the noise floor
        idle_end = t_first + tmo - 0.3
        if idle_end > time.monotonic():
            time.sleep(idle_end - time.monotonic())
        idle = r.stats()["totals"]
        stalls1 = reset(r)
        s, t_exp = poll_until(r, lambda s: expired(s) > 0, tmo + 30)
        s, t_empty = poll_until(r, lambda s: active(s) == 0, 120)
        st = s["totals"]
    finally:
        r.close()
    return {"spread_s": t_all - t_first, "drain_s": t_empty - t_exp,
            "loop_max_us": st["loop_max_us"], "sweep_max_us": st["sweep_max_us"],
            "stalls": st["stalls"] - stalls1, "lag_max_ms": st["lag_max_us"] / 1e3,
            "lag_mean_ms": st["lag_mean_us"] / 1e3,
            "idle_loop_max_us": idle["loop_max_us"], "idle_stalls": idle["stalls"] - stalls0,
            "expired": expired(s)}


def scen_mem(app, mode, huge):
    """The heap the example holds with --max-flows 1M, no traffic."""
    r = Run(app, mode, ["--max-flows", "1048576"], 1, huge)
    try:
        h = r.tel("/eal/heap_info,0")
        h = h.get("/eal/heap_info", h)
    finally:
        r.close()
    return {"alloc_bytes": float(h["Alloc_size"]), "capacity": 1048576.0}


def scen_burst(app, mode, huge):
    """1M flows made due at the same moment: expiry polls are held (the
    workers keep forwarding) until every flow is overdue, then released."""
    tmo, hold_s = 2.0, 3.5
    r = Run(app, mode, ["--max-flows", "2097152", "--timeout-oneway", "%g" % tmo, "--bench"],
            1000000, huge)
    try:
        r.testpmd("start")
        poll_until(r, lambda s: created(s) >= 1000000, 60)
        r.testpmd("stop")
        time.sleep(0.2)
        r.tel("/l3fwd_flowexp/hold,%d" % (hold_s * 1000))
        t_release = time.monotonic() + hold_s
        stalls0 = reset(r)
        time.sleep(hold_s - 0.5)
        idle = r.stats()["totals"]
        stalls1 = reset(r)
        time.sleep(max(0.0, t_release - time.monotonic()))
        c0 = r.worker_cpu()
        s, t_empty = poll_until(r, lambda s: active(s) == 0, 120)
        cpu = r.worker_cpu() - c0
        st = s["totals"]
        st["expired"] = expired(s)
        idle["expired"] = idle.get("nat_expired", idle["expired"])
    finally:
        r.close()
    return {"drain_s": t_empty - t_release, "expired": st["expired"],
            "loop_max_us": st["loop_max_us"], "sweep_max_us": st["sweep_max_us"],
            "stalls": st["stalls"] - stalls1, "poll_removed_max": st["poll_removed_max"],
            "lag_max_ms": st["lag_max_us"] / 1e3,
            "ns_cpu_per_expiry": cpu * 1e9 / max(1, st["expired"]),
            "idle_loop_max_us": idle["loop_max_us"], "idle_stalls": idle["stalls"] - stalls0,
            "idle_expired": idle["expired"]}


# ---- rate: expiry cost per new flow at fixed offered rates ----

PACE = os.path.join(ROOT, "examples", "l3fwd-flowexp", "tools", "pace.py")
RATE_CSV_FIELDS = [
    "mode", "expiry", "scan_interval_s", "timeout_s", "max_flows", "memory", "offered_per_s",
    "achieved_per_s", "expired_per_s", "live", "window_s", "expiry_cyc_per_new",
    "idle_expiry_cyc_per_new", "loops_per_new", "flow_stage_cyc_per_new", "work_ns_per_new", "work_cyc_per_new",
    "cpu_ns_per_new", "cpu_share", "busy", "lag_mean_us", "lag_max_us", "heap_mb", "ex_rss_mb",
    "tp_rss_mb", "mem_available_mb", "tsc_hz", "fell_behind", "loadavg"]


def rss_mb(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def mem_available_mb():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def rate_ex_mb(mode, max_flows):
    """The example's -m: about 175, 210 and 300 B per flow for scan, twheel
    and rte_timer (the heap a --max-flows 16M run allocates, route tables,
    mbufs and flow state together: telemetry /eal/heap_info, doc/bench/),
    and 768 MiB besides, with room to spare."""
    per_flow = {"scan": 175, "twheel": 210, "rte_timer": 300}[mode]
    return 768 + max_flows * per_flow // 1048576


def scen_rate(app, mode, tmo, o, huge):
    """Every packet a new flow (flowgen cycles 500M) at a fixed offered rate
    live / tmo held by tools/pace.py, one-way timeout tmo: after a warm-up
    of tmo + margin, the stats deltas over a window give each back-end's
    cycles per new flow. Mode scan_paced is scan with --scan-interval."""
    expiry, extra = mode, []
    if mode == "scan_paced":
        expiry, extra = "scan", ["--scan-interval", "%g" % o.rate_scan_interval]
    rate = o.rate_live / tmo
    ex_mb = rate_ex_mb(expiry, o.rate_max_flows)
    if huge:
        try:
            free = int(open(os.path.join(HP, "free_hugepages")).read())
        except OSError:
            free = 0
        huge = free * 2 >= ex_mb + TP_MB + 64
    r = Run(app, expiry, ["--max-flows", str(o.rate_max_flows), "--timeout-oneway", "%g" % tmo,
                          "--bench"] + extra, 500000000, huge, ex_mb=ex_mb)
    pace = None
    try:
        r.testpmd("start")
        pace = subprocess.Popen([sys.executable, PACE, str(r.tp.pid), r.prefix, "%.0f" % rate])
        warm = tmo + o.rate_margin + (o.rate_scan_interval if mode == "scan_paced" else 0)
        end = time.monotonic() + warm
        while time.monotonic() < end:
            time.sleep(min(5.0, max(0.0, end - time.monotonic())))
            if pace.poll() is not None or r.ex.poll() is not None or r.tp.poll() is not None:
                raise RuntimeError("pace, the example or testpmd exited during the warm-up")
        r.tel("/l3fwd_flowexp/reset")
        s0, t0, c0 = r.stats(), time.monotonic(), r.worker_cpu()
        actives = []
        for _ in range(int(o.rate_window)):
            time.sleep(1.0)
            actives.append(active(r.stats()))
        s1, t1, c1 = r.stats(), time.monotonic(), r.worker_cpu()
        h = r.tel("/eal/heap_info,0")
        h = h.get("/eal/heap_info", h)
        mem = (float(h["Alloc_size"]) / 1048576, rss_mb(r.ex.pid), rss_mb(r.tp.pid),
               mem_available_mb())
    finally:
        if pace is not None:
            pace.terminate()
            pace.wait()
        r.close()
    d = lambda k: s1["totals"][k] - s0["totals"][k]  # noqa: E731
    dt, hz = t1 - t0, float(s1["tsc_hz"])
    n = max(1, d("created"))
    work = d("busy_cycles") + d("idle_expiry_cycles")
    achieved = d("created") / dt
    # the TSC intervals also count the time the OS gave the worker's CPU to
    # others (a shared machine): scaled by the worker's CPU share, as
    # ho_run does
    share = min(1.0, (c1 - c0) / dt)
    return {"mode": mode, "expiry": expiry,
            "scan_interval_s": o.rate_scan_interval if mode == "scan_paced" else 0,
            "timeout_s": tmo, "max_flows": o.rate_max_flows,
            "memory": "hugepages" if huge else "no-huge",
            "offered_per_s": rate, "achieved_per_s": achieved,
            "expired_per_s": d("expired") / dt, "live": statistics.median(actives),
            "window_s": dt,
            "expiry_cyc_per_new": d("expiry_cycles") * share / n,
            "idle_expiry_cyc_per_new": d("idle_expiry_cycles") * share / n,
            "loops_per_new": d("loops") / n,
            "flow_stage_cyc_per_new": d("stage_flow_cycles") * share / n,
            "work_cyc_per_new": work * share / n,
            "work_ns_per_new": work * share / hz * 1e9 / n,
            "cpu_share": share,
            "cpu_ns_per_new": (c1 - c0) * 1e9 / n,
            "busy": d("busy_cycles") / hz / dt,
            "lag_mean_us": s1["totals"]["lag_mean_us"], "lag_max_us": s1["totals"]["lag_max_us"],
            "heap_mb": mem[0], "ex_rss_mb": mem[1], "tp_rss_mb": mem[2],
            "mem_available_mb": mem[3], "tsc_hz": hz,
            # pace holds the rate within a few per cent when the worker keeps up
            "fell_behind": int(achieved < 0.9 * rate),
            "loadavg": float(open("/proc/loadavg").read().split()[0])}


def rate_csv_append(path, row):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    if not new:
        with open(path) as f:
            header = f.readline().strip()
        if header != ",".join(RATE_CSV_FIELDS):
            # written by another version of this script: keep it aside
            os.replace(path, path + ".old")
            log("  %s had other columns: moved to %s.old" % (path, path))
            new = True
    with open(path, "a") as f:
        if new:
            f.write(",".join(RATE_CSV_FIELDS) + "\n")
        f.write(",".join(("%.6g" % row[k]) if isinstance(row[k], float) else str(row[k])
                         for k in RATE_CSV_FIELDS) + "\n")


# ---- handoff: 1 worker against 2 workers with --affinity handoff ----

HO_QUEUE_PKTS = 30000        # packets per pcap (both fit in the mbuf pool)
HO_WINDOW_S = 4


def write_ho_pcaps(tmp, flows_per_queue, pkts_per_queue):
    """Two pcaps of UDP flows, one per rx queue, distinct flows in each."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    paths = []
    for q in range(2):
        path = os.path.join(tmp, "ho_%d_%d_q%d.pcap" % (flows_per_queue, pkts_per_queue, q))
        w = P.PcapWriter(path)
        for i in range(pkts_per_queue):
            f = i % flows_per_queue
            w.write(P.pad60(P.eth(P.ipv4("10.%d.%d.%d" % (30 + q, f >> 8 & 255, f & 255),
                                         "10.%d.%d.%d" % (40 + q, f >> 16 & 255, f >> 8 & 255),
                                         17, P.udp(1024 + f % 50000, 53, b"x")), P.ETH_IPV4)))
        w.close()
        paths.append(path)
    return paths


def workers_cpu(pid):
    """CPU seconds of the example's worker threads so far."""
    total = 0.0
    for t in os.listdir("/proc/%d/task" % pid):
        p = "/proc/%d/task/%s" % (pid, t)
        try:
            if "worker" not in open(p + "/comm").read():
                continue
            f = open(p + "/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    return total


def stop_example(ex, log_f):
    """Stop an example started with its output in log_f."""
    ex.terminate()
    try:
        ex.wait(60)
    except subprocess.TimeoutExpired:
        ex.kill()
        ex.wait()
    log_f.close()


def ho_run(app, workers, pcaps, args, tag):
    """One run over the two pcaps; rates over HO_WINDOW_S seconds."""
    prefix = "fxbench_ho_%d_%s" % (os.getpid(), tag)
    if workers == 1:
        lcores, config = "0@1,1@0", "(0,0,1),(0,1,1)"
    else:
        lcores, config = "0@0,1@0,2@1", "(0,0,1),(0,1,2)"
    cmd = [app, "--no-huge", "-m", "1024", "--no-pci", "--lcores", lcores,
           "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev",
           "net_pcap0,rx_pcap=%s,rx_pcap=%s,infinite_rx=1" % tuple(pcaps), "--",
           "-p", "1", "--relax-rx-offload", "-T", "0", "--config", config,
           "--affinity", "handoff", "--tick-us", "1000",
           # the pool must hold both pcaps (infinite_rx keeps them): the
           # descriptor counts are what sizes it here
           "--rx-queue-size", "16384", "--tx-queue-size", "32768",
           "--max-flows", "262144"] + args   # a later --max-flows wins
    (s0, c0, t0), (s1, c1, t1) = window(cmd, prefix, 1.5, HO_WINDOW_S)
    d = lambda f: f(s1) - f(s0)  # noqa: E731
    tot = lambda k: (lambda s: s["totals"][k])  # noqa: E731
    n_rx, cpu, dt = d(rx), c1 - c0, t1 - t0
    busy = min(1.0, d(tot("busy_cycles")) / s1["tsc_hz"] / (dt * workers))
    return {"pps": n_rx / dt, "fwd_pps": d(lambda s: s["port_0"]["tx"]) / dt,
            "new_per_s": d(tot("created")) / dt, "cpu": cpu / dt,
            "pps_per_cpu_s": n_rx / cpu if cpu > 0 else 0,
            "new_per_cpu_s": d(tot("created")) / cpu if cpu > 0 else 0,
            # cycles spent on packets: the workers' CPU time (which leaves
            # out what the OS gave to other processes) times the share of
            # their loop time that went to iterations with packets
            # (busy_cycles; which leaves out waiting for the other worker),
            # at the TSC rate
            "cycles_per_pkt": cpu * busy * s1["tsc_hz"] / max(1, n_rx),
            "busy": busy,
            "handed_off": d(tot("handed_off")) / max(1, n_rx),
            "ho_dropped": d(tot("handoff_dropped")) / max(1, n_rx),
            "ho_waits_per_s": d(tot("handoff_waits")) / dt,
            "evicted_per_s": d(tot("evicted")) / dt,
            "foreign": s1["totals"]["foreign"]}


def scen_handoff(app, workers):
    tmp = "/tmp/fxbench_ho_pcaps"
    os.makedirs(tmp, exist_ok=True)
    hits = write_ho_pcaps(tmp, 4096, HO_QUEUE_PKTS)
    new = write_ho_pcaps(tmp, HO_QUEUE_PKTS, HO_QUEUE_PKTS)
    out = {}
    r = ho_run(app, workers, hits, ["--timeout-oneway", "60"], "hits%d" % workers)
    out.update({"hits_" + k: v for k, v in r.items()})
    # every packet a new flow only if the timeout is shorter than a replay
    # cycle at the fastest rate this run sees (the hits'): a third of it,
    # 1 to 5 ms, on 100 us ticks; checked: valid when the flows made are at
    # least 95 % of the packets
    cycle = HO_QUEUE_PKTS / max(1.0, r["pps"] / 2)
    tmo = max(0.001, min(0.005, round(cycle / 3, 4)))
    r = ho_run(app, workers, new, ["--timeout-oneway", "%g" % tmo, "--tick-us", "100"],
               "new%d" % workers)
    r["valid"] = r["new_per_s"] >= 0.95 * r["pps"]
    r["timeout_s"] = tmo
    out.update({"new_" + k: v for k, v in r.items()})
    return out


def scen_evict(app, policy):
    """Every packet a new flow, one worker: flows leave by expiry (a 5 ms
    timeout, a table that never fills) or, with the table full (8192 flows
    of a 60000-flow cycle, a 60 s timeout), by --table-full evict or drop."""
    tmp = "/tmp/fxbench_ho_pcaps"
    os.makedirs(tmp, exist_ok=True)
    new = write_ho_pcaps(tmp, HO_QUEUE_PKTS, HO_QUEUE_PKTS)
    if policy == "expiry":
        args = ["--timeout-oneway", "0.005"]
    else:
        args = ["--timeout-oneway", "60", "--table-full", policy, "--max-flows", "8192"]
    r = ho_run(app, 1, new, args, "evict_" + policy)
    return r


# scenario bind: masquerade on the replayed pcaps, their sources inside
BIND_NAT_ARGS = ["--timeout-oneway", "0.005", "--nat-pool", "203.0.113.0/28",
                 "--nat-inside", "10.30.0.0/15", "--nat-holddown", "0.01",
                 "--nat-max-per-host", "0"]


def scen_bind(app, mapping, huge):
    """Every packet a new inside endpoint (the pcaps of "handoff", one
    worker): with a 5 ms timeout and a 10 ms hold-down, shorter than a
    replay's cycle, each packet makes a mapping and, under eim, a binding
    for it; new mappings per CPU-second with --nat-mapping edm or eim
    (with --nat-filtering eif). On hugepages when the others are: the
    tables' random lines each cost a TLB miss on 4 KB pages, and eim
    reads more of them."""
    tmp = "/tmp/fxbench_ho_pcaps"
    os.makedirs(tmp, exist_ok=True)
    new = write_ho_pcaps(tmp, HO_QUEUE_PKTS, HO_QUEUE_PKTS)
    extra = NAT_EIM_ARGS if mapping == "eim" else []
    prefix = "fxbench_bind_%d_%s" % (os.getpid(), mapping)
    mem = ["-m", "1024", "--huge-unlink"] if huge else ["--no-huge", "-m", "1024"]
    cmd = [app] + mem + ["--no-pci", "--lcores", "0@1,1@0",
           "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev",
           "net_pcap0,rx_pcap=%s,rx_pcap=%s,infinite_rx=1" % tuple(new), "--",
           "-p", "1", "--relax-rx-offload", "-T", "0", "--config", "(0,0,1),(0,1,1)",
           "--tick-us", "1000", "--rx-queue-size", "16384", "--tx-queue-size", "32768",
           "--max-flows", "262144"] + BIND_NAT_ARGS + extra
    (s0, c0, t0), (s1, c1, t1) = window(cmd, prefix, 1.5, HO_WINDOW_S)
    d = lambda k: s1["totals"].get(k, 0) - s0["totals"].get(k, 0)  # noqa: E731
    cpu = c1 - c0
    return {"new_per_s": d("nat_created") / (t1 - t0), "cpu": cpu / (t1 - t0),
            "new_per_cpu_s": d("nat_created") / cpu if cpu > 0 else 0,
            "bindings_per_new": d("nat_bib_created") / max(1, d("nat_created"))}


TCP_FLOWS = 1 << 20


def write_tcp_pcap(path, n):
    """n TCP connections (fxpkt.TcpConn numbering): every handshake, then
    a data segment of each client, then one of each server."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    conns = []
    tmp = path + ".part"
    w = P.PcapWriter(tmp)

    def frame(i, side, flags, payload=b""):
        cli = "10.%d.%d.%d" % (64 + (i >> 16), (i >> 8) & 255, i & 255)
        src, dst = (cli, "172.16.0.1") if side == 0 else ("172.16.0.1", cli)
        return P.pad60(P.eth(P.ipv4(src, dst, P.PROTO_TCP, conns[i].seg(side, flags, payload)),
                             P.ETH_IPV4))
    for i in range(n):
        conns.append(P.TcpConn(1024 + i % 60000, 443, isn=(i * 2654435761, i * 40503),
                               win=(65535, 65535)))
        w.write(frame(i, 0, P.TCP_SYN))
        w.write(frame(i, 1, P.TCP_SYN | P.TCP_ACK))
        w.write(frame(i, 0, P.TCP_ACK))
    for side in (0, 1):
        for i in range(n):
            w.write(frame(i, side, P.TCP_ACK, b"abcdef"))
    w.close()
    os.rename(tmp, path)


def scen_tcp(app):
    """The TCP scenario (above): rates over the data segments."""
    tmp = "/tmp/fxbench_tcp"
    os.makedirs(tmp, exist_ok=True)
    path = os.path.join(tmp, "tcp_%d.pcap" % TCP_FLOWS)
    if not os.path.exists(path):
        log("  writing %s (once)" % path)
        write_tcp_pcap(path, TCP_FLOWS)
    total = TCP_FLOWS * 5
    prefix = "fxbench_tcp_%d_%d" % (os.getpid(), int(time.monotonic() * 1000))
    cmd = [app, "--no-huge", "-m", "1200", "--no-pci", "--lcores", "0@1,1@0",
           "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev",
           "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % path, "--",
           "-p", "1", "--relax-rx-offload", "-T", "0", "--bench", "--max-flows", "1200000",
           "--timeout-oneway", "600", "--timeout-tcp-syn", "600"]
    log_f = open("/tmp/%s.log" % prefix, "w")
    ex = subprocess.Popen(cmd, stdout=log_f, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 120
        s0 = s1 = None
        while time.monotonic() < end:
            if ex.poll() is not None:
                raise RuntimeError("the example exited (see %s)" % log_f.name)
            try:
                s = fxtel.query(prefix, "/l3fwd_flowexp/stats")
            except (OSError, ValueError):
                time.sleep(0.2)
                continue
            if s0 is None and s["totals"]["created"] >= TCP_FLOWS:
                s0, c0 = s, workers_cpu(ex.pid)
            if s0 is not None and rx(s) >= total:
                s1, c1 = s, workers_cpu(ex.pid)
                break
            time.sleep(0.005)
        if s1 is None:
            raise RuntimeError("the replay did not end (see %s)" % log_f.name)
    finally:
        stop_example(ex, log_f)
    t0, t1 = s0["totals"], s1["totals"]
    pkts = max(1, rx(s1) - rx(s0))
    out = {"c_" + n: (t1["stage_%s_cycles" % n] - t0["stage_%s_cycles" % n]) / pkts
           for n in STAGES}
    out["c_busy"] = (t1["busy_cycles"] - t0["busy_cycles"]) / pkts
    out["pkts"] = pkts
    out["pps_per_cpu_s"] = pkts / max(1e-9, c1 - c0)
    out["dropped"] = s1["port_0"]["dropped"]
    out["active"] = active(s1)
    return out


def window(cmd, prefix, warm, seconds):
    """Start the example (cmd, with --file-prefix prefix), wait until it
    answers, then warm seconds; (stats, workers' CPU seconds, time) at the
    start and at the end of a window of seconds; the example is stopped."""
    log_f = open("/tmp/%s.log" % prefix, "w")
    ex = subprocess.Popen(cmd, stdout=log_f, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 60
        while True:
            if ex.poll() is not None:
                raise RuntimeError("the example exited (see %s)" % log_f.name)
            try:
                fxtel.query(prefix, "/l3fwd_flowexp/stats")
                break
            except (OSError, ValueError):
                if time.monotonic() > end:
                    raise RuntimeError("the example does not answer")
                time.sleep(0.2)
        time.sleep(warm)
        a = fxtel.query(prefix, "/l3fwd_flowexp/stats"), workers_cpu(ex.pid), time.monotonic()
        time.sleep(seconds)
        b = fxtel.query(prefix, "/l3fwd_flowexp/stats"), workers_cpu(ex.pid), time.monotonic()
    finally:
        stop_example(ex, log_f)
    return a, b



# ---- flood: the tables under keys chosen to collide ----

FLOOD_N, FLOOD_KEYED_N, FLOOD_MAX_FLOWS = 20000, 200, 32768
FLOOD_SETS = ("random", "crc", "keyed")


def flood_tuples(mode, kind):
    """The (src, dst, sport, dport) tuples of a flood set."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import collide as C
    import random as R
    rnd = R.Random(7)
    if mode == "nat":
        if kind == "crc":
            return C.crc_nat(FLOOD_N)
        if kind == "keyed":
            return C.keyed_nat(FLOOD_KEYED_N, FLOOD_MAX_FLOWS)
        return [("10.254.0.%d" % rnd.randrange(256), "198.18.0.%d" % rnd.randrange(256),
                 rnd.randrange(1024, 65536), rnd.randrange(1, 65536)) for _ in range(FLOOD_N)]
    if kind == "crc":
        return C.crc_flows(FLOOD_N)
    if kind == "keyed":
        return C.keyed_flows(FLOOD_KEYED_N, FLOOD_MAX_FLOWS)
    return [("10.254.0.1", "198.18.%d.%d" % (rnd.randrange(256), rnd.randrange(256)),
             rnd.randrange(1024, 65536), rnd.randrange(1, 65536)) for _ in range(FLOOD_N)]


def flood_pcap(mode, kind):
    """A pcap of one packet per tuple of the set (kept in /tmp between runs)."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    tmp = "/tmp/fxbench_flood"
    os.makedirs(tmp, exist_ok=True)
    path = os.path.join(tmp, "%s_%s_%d.pcap" % ("nat" if mode == "nat" else "flow", kind,
                                                 FLOOD_N if kind != "keyed" else FLOOD_KEYED_N))
    if not os.path.exists(path):
        w = P.PcapWriter(path + ".part")
        for src, dst, sport, dport in flood_tuples(mode, kind):
            w.write(P.pad60(P.eth(P.ipv4(src, dst, 17, P.udp(sport, dport, b"x")), P.ETH_IPV4)))
        w.close()
        os.replace(path + ".part", path)
    return path


def scen_flood(app, mode, kind):
    """One worker replaying a flood set (net_pcap infinite_rx): cycles per
    packet over a window, as ho_run counts them."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    pcap = flood_pcap(mode, kind)
    prefix = "fxbench_fl_%d_%s_%s_%d" % (os.getpid(), mode, kind, Run.n)
    Run.n += 1
    args = ["--expiry", "twheel", "--max-flows", str(FLOOD_MAX_FLOWS)] + \
        [a for t in ("oneway", "udp") for a in ("--timeout-" + t, "60")]
    if mode == "nat":
        args += nat_args(app)
    if knows(app, "--hash-secret"):
        args += P.HASH_SECRET_ARG
    cmd = [app, "--no-huge", "-m", "1024", "--no-pci", "--lcores", "0@1,1@0",
           "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev",
           "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "--",
           "-p", "1", "--relax-rx-offload", "-T", "0", "--config", "(0,0,1)",
           "--rx-queue-size", "16384", "--tx-queue-size", "32768"] + args
    (s0, c0, t0), (s1, c1, t1) = window(cmd, prefix, 2, 4)
    t = s1["totals"]
    n_rx, cpu, dt = rx(s1) - rx(s0), c1 - c0, t1 - t0
    busy = min(1.0, (t["busy_cycles"] - s0["totals"]["busy_cycles"]) / s1["tsc_hz"] / dt)
    full = "nat_index_full" if mode == "nat" else "index_full"
    return {"pps": n_rx / dt, "cpu": cpu / dt, "busy": busy,
            "cycles_per_pkt": cpu * busy * s1["tsc_hz"] / max(1, n_rx),
            "live": active(s1), "index_full": float(t.get(full, -1)),
            "lines_max": float(t.get(full.replace("full", "lines_max"), -1))}


def med(results, key):
    return statistics.median(r[key] for r in results) if results else float("nan")


def rng(results, key, scale=1.0):
    v = [r[key] / scale for r in results]
    if not v:
        return "-"
    return "%.3g..%.3g" % (min(v), max(v))


def main():
    # stop cleanly (the runs' finally clauses stop testpmd and the example)
    # also when started in the background, where SIGINT is ignored
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="twheel,rte_timer,scan")
    ap.add_argument("--scenarios", default="new,mpps,storm,burst")
    ap.add_argument("--no-huge", action="store_true")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base", default="",
                    help="A/B: a second build directory; every run is followed by the same "
                         "run with its binary (mode MODE@base), and the ratios this build / "
                         "base are printed at the end")
    ap.add_argument("--args", default="",
                    help="example options for this build's runs only (not --base's)")
    ap.add_argument("--rate-timeouts", default="3,10,30,100,300",
                    help="rate: one-way timeouts (s); offered rate = --rate-live / timeout")
    ap.add_argument("--rate-live", type=float, default=10e6,
                    help="rate: live flows to aim at (default 10M)")
    ap.add_argument("--rate-max-flows", type=int, default=16000000)
    ap.add_argument("--rate-window", type=float, default=10, help="rate: seconds measured")
    ap.add_argument("--rate-margin", type=float, default=5,
                    help="rate: warm-up beyond one timeout (s)")
    ap.add_argument("--rate-scan-interval", type=float, default=1.0,
                    help="rate: --scan-interval of mode scan_paced (s)")
    ap.add_argument("--rate-csv", default="", help="rate: append a row per run to this CSV")
    ap.add_argument("--workers", default="1,2",
                    help="scale: the worker counts to run, each worker on its own CPU")
    ap.add_argument("--scale-pkts", type=int, default=60000,
                    help="scale: packets (each a new flow) per queue in a replay cycle")
    ap.add_argument("--scale-csv", default="", help="scale: write a row per run to this CSV")
    a = ap.parse_args()
    timeouts = [float(x) for x in a.rate_timeouts.split(",")]
    # this script and all it starts (testpmd, its control threads, the
    # telemetry polls) stay on CPU 1; EAL moves the example's worker to
    # CPU 0, where nothing else is scheduled. Without this, testpmd's
    # interrupt, mp and telemetry threads (DPDK puts control threads on the
    # CPUs a process's lcores leave free) ran beside the worker.
    os.sched_setaffinity(0, {1})
    app = os.path.join(a.build, "examples", "l3fwd-flowexp", "dpdk-l3fwd-flowexp")
    if not os.access(app, os.X_OK):
        sys.exit("no %s: build first (meson setup build && ninja -C build)" % app)
    if a.args:
        EXTRA_ARGS[app] = a.args.split()
        log("this build's runs add: %s" % a.args)
    modes = a.modes.split(",")
    scen = a.scenarios.split(",")
    workers = [int(x) for x in a.workers.split(",")]
    huge = not a.no_huge and hugepages_ok()
    log("memory: %s; load average %s" % ("hugepages" if huge else "--no-huge",
                                         open("/proc/loadavg").read().split()[:3]))
    res = {}
    app_base = os.path.join(a.base, "examples", "l3fwd-flowexp", "dpdk-l3fwd-flowexp")
    if a.base and not os.access(app_base, os.X_OK):
        log("--base %s: no %s" % (a.base, app_base))
        return 2

    def base_run(sc, m):
        """The run of scenario sc, mode m, with the base build's binary."""
        if sc == "rate":
            mode, t = m.rsplit("@", 1)
            return lambda: scen_rate(app_base, mode, float(t[:-1]), a, huge)
        if sc == "evict":
            return lambda: scen_evict(app_base, m)
        if sc == "bind":
            return lambda: scen_bind(app_base, m, huge)
        if sc == "handoff":
            return lambda: scen_handoff(app_base, 1 if m == "1worker" else 2)
        if sc == "tcp":
            return lambda: scen_tcp(app_base)
        if sc == "scale":
            return lambda: flowexp_scale.scen_scale(window, app_base, int(m[:-1]),
                                                    a.scale_pkts)
        if sc == "flood":
            md, k = m.split(":")
            return lambda: scen_flood(app_base, md, k)
        fn = {"new": scen_new, "mpps": scen_mpps, "storm": scen_storm,
              "burst": scen_burst, "mem": scen_mem, "stages": scen_stages}[sc]
        return lambda: fn(app_base, m, huge)

    # one scenario at a time for all modes, so that the runs compared with
    # each other are a minute apart at most: the machine's load drifts
    for rep in range(a.repeat):
        for sc in scen:
            # (name, run) of each mode of the scenario
            if sc == "rate":
                runs = [("%s@%gs" % (m, t), lambda m=m, t=t: scen_rate(app, m, t, a, huge))
                        for t in timeouts for m in modes]
            elif sc == "evict":
                runs = [(m, lambda m=m: scen_evict(app, m))
                        for m in ("expiry", "evict", "drop")]
            elif sc == "bind":
                runs = [(m, lambda m=m: scen_bind(app, m, huge)) for m in ("edm", "eim")]
            elif sc == "tcp":
                runs = [("twheel", lambda: scen_tcp(app))]
            elif sc == "scale":
                runs = [("%dw" % n, lambda n=n: flowexp_scale.scen_scale(
                    window, app, n, a.scale_pkts)) for n in workers]
            elif sc == "steer":
                runs = [(m, lambda m=m: flowexp_steer.scen_steer(window, app, m, a.scale_pkts))
                        for m in flowexp_steer.MODES]
            elif sc == "handoff":
                runs = [("1worker", lambda: scen_handoff(app, 1)),
                        ("2workers", lambda: scen_handoff(app, 2))]
            elif sc == "flood":
                runs = [("%s:%s" % (md, k), lambda md=md, k=k: scen_flood(app, md, k))
                        for md in modes if md in ("twheel", "nat") for k in FLOOD_SETS]
            else:
                fn = {"new": scen_new, "mpps": scen_mpps, "storm": scen_storm,
                      "burst": scen_burst, "mem": scen_mem, "stages": scen_stages}[sc]
                runs = [(m, lambda m=m: fn(app, m, huge))
                        for m in modes + (["none"] if sc in ("mpps", "stages") else [])]
            if a.base and sc != "steer":
                runs = [x for m, run in runs
                        for x in ((m, run), (m + "@base", base_run(sc, m)))]
            for m, run in runs:
                try:
                    out = run()
                except (RuntimeError, OSError, ValueError, KeyError) as e:
                    # a run that fails (the example or testpmd gone) is left out
                    log("  run %d %-6s %-9s FAILED: %r" % (rep + 1, sc, m, e))
                    out = None
                res.setdefault((sc, m), []).append(out)
                if sc == "rate" and out is not None and a.rate_csv:
                    rate_csv_append(a.rate_csv, out)
                if sc == "scale" and out is not None:
                    for r in out:
                        log("  run %d scale  %-9s %s" % (rep + 1, m, ", ".join(
                            ("%s=%.4g" if isinstance(v, float) else "%s=%s") % (k, v)
                            for k, v in sorted(r.items()))))
                elif out is not None:
                    log("  run %d %-6s %-9s %s" % (rep + 1, sc, m,
                        ", ".join(("%s=%.4g" if isinstance(v, (int, float)) else "%s=%s") % (k, v)
                                  for k, v in sorted(out.items()))))
    # runs that failed are None: keep them in place for the pairing below
    ok = {k: [r for r in v if r is not None] for k, v in res.items()}

    def ratios(sc, a_mode, b_mode, key):
        """Per-repeat ratios of two modes' runs of one scenario."""
        out = []
        for x, y in zip(res.get((sc, a_mode), []), res.get((sc, b_mode), [])):
            if x is not None and y is not None and y[key] > 0:
                out.append(x[key] / y[key])
        return out

    def ratio_line(what, v):
        if v:
            log("%s: median %.2f, range %.2f..%.2f over %d paired runs"
                % (what, statistics.median(v), min(v), max(v), len(v)))

    def per_run(sc, m, key):
        """key of each run of scenario sc, mode m, that did not fail."""
        return [x[key] for x in ok.get((sc, m), [])]

    log("\nmedians of %d run(s), ranges over the runs; CPU = the worker thread's share of a CPU;"
        " ratios are medians of ratios between runs made one after the other" % a.repeat)
    if "new" in scen:
        log("\nnew flows/s per lcore at ~1M concurrent flows")
        log("%-10s %12s %10s %9s %6s %14s %8s  %s" % ("expiry", "new/s", "active", "timeout", "CPU",
                                                     "new/CPU-s", "windows", "new/CPU-s range (M)"))
        for m in modes:
            r = ok.get(("new", m), [])
            log("%-10s %12.0f %10.0f %8.2fs %6.2f %14.0f %8.0f  %s" % (
                m, med(r, "new_per_s"), med(r, "active"), med(r, "timeout_s"), med(r, "cpu"),
                med(r, "new_per_cpu_s"), med(r, "windows_kept"), rng(r, "new_per_cpu_s", 1e6)))
        if "twheel" in modes:
            for m in modes:
                if m != "twheel":
                    ratio_line("twheel / %s, new flows per CPU-second" % m,
                               ratios("new", "twheel", m, "new_per_cpu_s"))
    if "rate" in scen:
        log("\nexpiry cost per new flow at fixed offered rates (every packet a new flow)")
        log("%-11s %7s %10s %10s %10s %9s %9s %9s %8s %10s %10s %7s" % (
            "expiry", "timeout", "offered/s", "achieved", "live", "exp cyc", "flow cyc",
            "work cyc", "work ns", "lag mean", "lag max", "behind"))
        for t in timeouts:
            for m in modes:
                r = ok.get(("rate", "%s@%gs" % (m, t)), [])
                log("%-11s %6gs %10.0f %10.0f %10.0f %9.0f %9.0f %9.0f %8.0f %8.1fms %8.1fms %7s" % (
                    m, t, med(r, "offered_per_s"), med(r, "achieved_per_s"), med(r, "live"),
                    med(r, "expiry_cyc_per_new"), med(r, "flow_stage_cyc_per_new"),
                    med(r, "work_cyc_per_new"), med(r, "work_ns_per_new"),
                    med(r, "lag_mean_us") / 1e3, med(r, "lag_max_us") / 1e3,
                    "yes" if r and med(r, "fell_behind") > 0 else "no"))
    if "mpps" in scen:
        log("\npackets/s with 1M live flows (flowgen over memif)")
        log("%-10s %12s %10s %6s %14s  %s" % ("expiry", "pps", "active", "CPU", "pps/CPU-s",
                                             "pps/CPU-s range (M)"))
        for m in modes + ["none"]:
            r = ok.get(("mpps", m), [])
            log("%-10s %12.0f %10.0f %6.2f %14.0f  %s" % (m, med(r, "pps"), med(r, "active"),
                med(r, "cpu"), med(r, "pps_per_cpu_s"), rng(r, "pps_per_cpu_s", 1e6)))
        for m in modes:
            ratio_line("%s / none (no flow tracking), packets per CPU-second" % m,
                       ratios("mpps", m, "none", "pps_per_cpu_s"))
    if "stages" in scen:
        log("\ncycles per packet by stage with 1M live flows (the mpps workload, --bench;"
            " 'busy' is the loop iterations that had packets, 'loop' the rest of them)")
        cols = list(STAGES) + ["expiry", "loop", "busy"]
        log("%-10s" % "expiry" + "".join("%9s" % c for c in cols))
        for m in modes + ["none"]:
            r = ok.get(("stages", m), [])
            log("%-10s" % m + "".join("%9.1f" % med(r, "c_" + c) for c in cols))
    if "tcp" in scen:
        r = ok.get(("tcp", "twheel"), [])
        log("\nTCP at 1M live connections (net_pcap replay, the data segments; --bench)")
        log("%-14s %9s %9s %9s %9s %9s %14s" % ("", "rx", "parse", "lookup", "flow", "busy",
                                                 "pkts/CPU-s"))
        log("%-14s %9.1f %9.1f %9.1f %9.1f %9.1f %14.4g" % (
            "cycles/packet", med(r, "c_rx"), med(r, "c_parse"), med(r, "c_lookup"),
            med(r, "c_flow"), med(r, "c_busy"), med(r, "pps_per_cpu_s")))
    if "storm" in scen:
        log("\n1M-flow expiry storm (flows created within 'spread' seconds, then idle)")
        log("%-10s %8s %8s %10s %10s %8s %11s %12s %13s" % (
            "expiry", "spread", "drain", "loop max", "sweep max", "stalls",
            "lag max", "idle loop", "idle stalls"))
        for m in modes:
            r = ok.get(("storm", m), [])
            log("%-10s %7.2fs %7.2fs %8.0fus %8.0fus %8.0f %9.1fms %10.0fus %13.0f" % (
                m, med(r, "spread_s"), med(r, "drain_s"), med(r, "loop_max_us"),
                med(r, "sweep_max_us"), med(r, "stalls"), med(r, "lag_max_ms"),
                med(r, "idle_loop_max_us"), med(r, "idle_stalls")))
    if "burst" in scen:
        log("\n1M flows due at once (expiry held %s s, then released)" % "3.5")
        log("%-10s %8s %10s %10s %8s %12s %12s %10s %11s  %s" % (
            "expiry", "drain", "loop max", "sweep max", "stalls", "most/poll",
            "ns CPU/exp", "idle loop", "idle stalls", "loop max range (us)"))
        for m in modes:
            r = ok.get(("burst", m), [])
            log("%-10s %7.3fs %8.0fus %8.0fus %8.0f %12.0f %12.0f %8.0fus %11.0f  %s" % (
                m, med(r, "drain_s"), med(r, "loop_max_us"), med(r, "sweep_max_us"),
                med(r, "stalls"), med(r, "poll_removed_max"),
                med(r, "ns_cpu_per_expiry"), med(r, "idle_loop_max_us"), med(r, "idle_stalls"),
                rng(r, "loop_max_us")))
        if "twheel" in modes:
            for m in modes:
                if m != "twheel":
                    ratio_line("%s / twheel, longest loop iteration" % m,
                               ratios("burst", m, "twheel", "loop_max_us"))
    if "nat" in modes and "twheel" in modes:
        log("\nmasquerade (mode nat) against the flow tracker alone (mode twheel)")
        if "new" in scen:
            ratio_line("nat / twheel, new mappings vs new flows per CPU-second",
                       ratios("new", "nat", "twheel", "new_per_cpu_s"))
        if "mpps" in scen:
            ratio_line("nat / twheel, packets per CPU-second with 1M live (target >= 0.9)",
                       ratios("mpps", "nat", "twheel", "pps_per_cpu_s"))
        if "burst" in scen:
            ratio_line("nat / twheel, longest loop iteration when 1M are due at once",
                       ratios("burst", "nat", "twheel", "loop_max_us"))
        if "mem" in scen:
            per = []
            for x, y in zip(res.get(("mem", "nat"), []), res.get(("mem", "twheel"), [])):
                if x is not None and y is not None:
                    per.append((x["alloc_bytes"] - y["alloc_bytes"]) / x["capacity"])
            ratio_line("memory per NAT mapping, bytes (heap with NAT - without) / 1M "
                       "(target <= 200)", per)
    # each NAT variant against the mode it changes: (mode, base mode, the
    # heading, the targets of its new and mpps ratios, the log events
    # printed: "drops", the mode's queued and dropped (the log's cost);
    # "queued", both modes' queued (the blocks' events beside the mappings'))
    blocks = "port blocks of 64 (mode %s) against per-mapping ports (mode %s)"
    variants = (
        ("nat_log", "nat",
         "the NAT event log (mode nat_log) against masquerade without it (mode nat)",
         " (target >= 0.90)", " (target >= 0.90)", "drops"),
        ("nat_eim", "nat",
         "endpoint-independent mappings (mode nat_eim) against endpoint-dependent (mode nat)",
         " (target >= 0.85)", "", None),
        ("nat_pba", "nat", blocks % ("nat_pba", "nat"), "", "", "queued"),
        ("nat_pba_log", "nat_log", blocks % ("nat_pba_log", "nat_log"), "", "", "queued"),
    )
    for m, per, heading, new_target, mpps_target, events in variants:
        if m not in modes or per not in modes:
            continue
        log("\n" + heading)
        if "new" in scen:
            ratio_line("%s / %s, new mappings per CPU-second%s" % (m, per, new_target),
                       ratios("new", m, per, "new_per_cpu_s"))
            if events == "drops":
                log("%s, new: events queued %s, dropped by full rings %s (per run)"
                    % (m, per_run("new", m, "log_queued"), per_run("new", m, "log_dropped")))
            elif events == "queued":
                for e in (per, m):
                    log("%s, new: events queued %s (per run)"
                        % (e, per_run("new", e, "log_queued")))
        if "mpps" in scen:
            ratio_line("%s / %s, packets per CPU-second with 1M live%s" % (m, per, mpps_target),
                       ratios("mpps", m, per, "pps_per_cpu_s"))
            if events == "drops":
                log("%s, mpps: events dropped by full rings %s (per run)"
                    % (m, per_run("mpps", m, "log_dropped")))
    if "evict" in scen:
        log("\nevict: every packet a new flow, one worker; how flows leave")
        log("%-8s %12s %12s %12s %14s  %s" % ("leave by", "pkts/s", "new/s", "evicted/s",
                                              "cyc/pkt", "cyc/pkt range"))
        for m in ("expiry", "evict", "drop"):
            r = ok.get(("evict", m), [])
            log("%-8s %12.0f %12.0f %12.0f %14.0f  %s" % (
                m, med(r, "pps"), med(r, "new_per_s"), med(r, "evicted_per_s"),
                med(r, "cycles_per_pkt"), rng(r, "cycles_per_pkt")))
        ratio_line("evict / expiry, cycles per packet",
                   ratios("evict", "evict", "expiry", "cycles_per_pkt"))
    if "bind" in scen:
        log("\nbind: every packet a new inside endpoint (net_pcap replay, one worker),"
            " masquerade edm against eim with eif (a binding per mapping)")
        log("%-5s %12s %6s %14s %16s  %s" % ("map", "new/s", "CPU", "new/CPU-s",
                                            "bindings/new", "new/CPU-s range (M)"))
        for m in ("edm", "eim"):
            r = ok.get(("bind", m), [])
            log("%-5s %12.0f %6.2f %14.0f %16.2f  %s" % (
                m, med(r, "new_per_s"), med(r, "cpu"), med(r, "new_per_cpu_s"),
                med(r, "bindings_per_new"), rng(r, "new_per_cpu_s", 1e6)))
        ratio_line("eim / edm, new mappings per CPU-second, a binding each (target >= 0.85)",
                   ratios("bind", "eim", "edm", "new_per_cpu_s"))
    if "handoff" in scen:
        log("\nhandoff: two rx queues (net_pcap replay), one worker vs two with --affinity handoff")
        log("%-9s %-5s %10s %6s %12s %10s %9s %9s %10s %6s  %s" % (
            "workers", "load", "rate/s", "CPU", "rate/CPU-s", "cyc/pkt", "handoff",
            "ho drop", "foreign", "valid", "rate/CPU-s range (M)"))
        for m in ("1worker", "2workers"):
            r = ok.get(("handoff", m), [])
            for load, rate in (("hits", "pps"), ("new", "new_per_s")):
                valid = all(x.get(load + "_valid", True) for x in r)
                log("%-9s %-5s %10.0f %6.2f %12.0f %10.0f %8.1f%% %8.2f%% %10.0f %6s  %s" % (
                    m, load, med(r, load + "_" + rate), med(r, load + "_cpu"),
                    med(r, load + "_" + rate.replace("_per_s", "") + ("_per_cpu_s" if load == "hits" else "_per_cpu_s")),
                    med(r, load + "_cycles_per_pkt"), 100 * med(r, load + "_handed_off"),
                    100 * med(r, load + "_ho_dropped"), med(r, load + "_foreign"),
                    "yes" if valid else "NO",
                    rng(r, load + ("_pps_per_cpu_s" if load == "hits" else "_new_per_cpu_s"), 1e6)))
        for load in ("hits", "new"):
            extra = []
            for x, y in zip(res.get(("handoff", "2workers"), []), res.get(("handoff", "1worker"), [])):
                if x is not None and y is not None and x[load + "_handed_off"] > 0:
                    extra.append((x[load + "_cycles_per_pkt"] - y[load + "_cycles_per_pkt"]) /
                                 x[load + "_handed_off"])
            ratio_line("%s: extra cycles per handed-off packet (2 workers - 1) / fraction" % load,
                       extra)
            ratio_line("%s: rate per CPU-second, 2 workers / 1" % load,
                       ratios("handoff", "2workers", "1worker",
                              load + ("_pps_per_cpu_s" if load == "hits" else "_new_per_cpu_s")))
            ratio_line("%s: rate, 2 workers / 1" % load,
                       ratios("handoff", "2workers", "1worker",
                              load + ("_pps" if load == "hits" else "_new_per_s")))
    if "scale" in scen:
        for nm, suf in [("this build", "")] + ([("--base", "@base")] if a.base else []):
            rows = [r for n in workers for x in ok.get(("scale", "%dw%s" % (n, suf)), [])
                    for r in x]
            log("\n%s:" % nm)
            flowexp_scale.table(rows, log)
            if a.scale_csv and not suf:
                flowexp_scale.csv_write(a.scale_csv, rows)
    if "steer" in scen:
        flowexp_steer.table(res, log)
    if "flood" in scen:
        log("\nflood: one worker replaying %d flows (keyed: %d), cycles per packet; ratio to"
            " random keys paired within a repeat; index_full / lines_max: the index's"
            " refusals at its probe bound in the whole run / most buckets one insert read"
            " (-1: the build has no such counters)" % (FLOOD_N, FLOOD_KEYED_N))
        log("%-20s %-7s %10s %8s %11s %10s %10s  %s" % ("build", "set", "cyc/pkt", "ratio",
                                                     "index_full", "lines_max", "live",
                                                     "cyc/pkt range"))
        for m in modes:
            if m not in ("twheel", "nat"):
                continue
            for nm, suf in [("this", "")] + ([("base", "@base")] if a.base else []):
                for k in FLOOD_SETS:
                    r = ok.get(("flood", "%s:%s%s" % (m, k, suf)), [])
                    q = ratios("flood", "%s:%s%s" % (m, k, suf), "%s:random%s" % (m, suf),
                               "cycles_per_pkt")
                    log("%-20s %-7s %10.0f %8.2f %11.0f %10.0f %10.0f  %s" % (
                        "%s %s" % (m, nm), k, med(r, "cycles_per_pkt"),
                        statistics.median(q) if q else float("nan"), med(r, "index_full"),
                        med(r, "lines_max"), med(r, "live"), rng(r, "cycles_per_pkt")))
    if a.base:
        log("\nA/B: this build (%s) against --base %s, each run right after the other"
            % (a.build, a.base))
        keys = {"new": ["new_per_cpu_s", "new_per_s"], "mpps": ["pps_per_cpu_s", "pps"],
                "stages": ["c_busy"], "storm": ["loop_max_us", "drain_s"],
                "burst": ["ns_cpu_per_expiry", "loop_max_us"], "mem": ["alloc_bytes"],
                "evict": ["cycles_per_pkt"], "bind": ["new_per_cpu_s"], "handoff": ["hits_pps_per_cpu_s", "new_new_per_cpu_s"],
                "rate": ["work_cyc_per_new", "expiry_cyc_per_new"],
                "tcp": ["c_busy", "c_parse", "c_flow", "pps_per_cpu_s"],
                "flood": ["cycles_per_pkt"]}
        for n in workers if "scale" in scen else []:
            for load in flowexp_scale.LOADS:
                v = []
                for x, y in zip(res.get(("scale", "%dw" % n), []),
                                res.get(("scale", "%dw@base" % n), [])):
                    if x is None or y is None:
                        continue
                    xr = [r for r in x if r["load"] == load]
                    yr = [r for r in y if r["load"] == load]
                    if xr and yr and yr[0]["rate_per_s"] > 0:
                        v.append(xr[0]["rate_per_s"] / yr[0]["rate_per_s"])
                ratio_line("scale %d workers %s: this / base, rate" % (n, load), v)
        for sc in scen:
            for (s_, m) in sorted(k for k in res if k[0] == sc and not k[1].endswith("@base")):
                for key in keys.get(sc, []):
                    ratio_line("%s %s: this / base, %s" % (sc, m, key),
                               ratios(sc, m, m + "@base", key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
