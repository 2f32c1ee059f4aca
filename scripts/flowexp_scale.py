# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""The "scale" scenario of flowexp-bench.py: the example on N workers.

Layout, as an operator would run it with a software handoff: N workers,
each alone on a CPU, each polling its own rx queue of one net_pcap port
(infinite_rx), whose pcap holds distinct UDP flows (sources 10.(30+q).x.x);
--affinity handoff, so a packet whose flow another worker owns is handed
to it: the share handed off is about (N-1)/N. On hugepages when enough
are free for the run, else --no-huge (the table says which). The main
lcore and this script share a CPU (CPU 0 when there are more CPUs than workers, else the
first worker's).

Loads, each its own run per N:
  owned    the control: hits as below, but each queue's flows chosen so
           that the worker polling it owns them (the runs are given the
           hash secret, --hash-secret, and the flows are picked by the
           example's owner function, test/lib/fxpkt.py): nothing is handed
           off, and what N workers cost beyond one without the handoff
           (shared caches, memory, the machine) shows here
  hits     4096 flows per queue, all live (60 s timeout): packets/s
  new      every packet a new flow: --scale-pkts flows per queue, each
           replayed once per cycle, with a one-way timeout shorter than a
           replay cycle at the rate the hits run reached at this N (the
           fastest this N will see), so that each replay creates its flows
           again; checked after the run: valid when the flows created are
           at least 95 % of the packets received
  nat_edm  the same pcaps under masquerade, every packet a new mapping
           (endpoint-dependent, the default), timeout and hold-down from
           the same rule
  nat_eim  the same with --nat-mapping eim --nat-filtering eif: a binding
           per mapping
Per N and load: the rate in all and per worker, per worker against N=1
("efficiency"), the share handed off and the share dropped (by a full
ring, or by anything else the workers count), the cycles per packet (the
workers' CPU time times their busy share, at the TSC rate) and the extra
cycles per handed-off packet ((cycles per packet at N - at 1) / share
handed off), the same against "owned" at the same N (extra/ho vs
owned: what the handoff itself costs, without what N workers cost
anyway), and the counters that explain them: packets per ring write
and per ring read (the batch each ring operation carries: it shrinks as
N grows), the loop iterations that found a ring to an owner without
room (waits), and each stage's cycles per packet (the runs use --bench,
whose timers cost the same at every N).

The CSV (--scale-csv) gets one row per run; scripts/plot-flowexp-scale.sh
draws the efficiency against N from it.
"""

import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOADS = ("owned", "hits", "new", "nat_edm", "nat_eim")
STAGES = ("rx", "parse", "handoff", "nat", "lookup", "flow", "forward", "tx")
HITS_FLOWS = 4096
HITS_PKTS = 32768
WINDOW_S = 4
WARM_S = 1.5
NAT_ARGS = ["--nat-pool", "203.0.113.0/24", "--nat-inside", "10.0.0.0/8",
            "--nat-max-per-host", "0"]
EIM_ARGS = ["--nat-mapping", "eim", "--nat-filtering", "eif"]
MAX_FLOWS = 131072    # per worker: the new loads keep about 20k live
SECRET = "0001020304050607" "08090a0b0c0d0e0f"   # test/lib/fxpkt.py's HASH_SECRET
CSV_FIELDS = ("workers", "load", "rate_per_s", "rate_per_worker", "efficiency", "pps",
              "cycles_per_pkt", "extra_cycles_per_ho", "extra_vs_owned", "handed_off",
              "dropped",
              "pkts_per_send", "pkts_per_take", "waits_per_s", "timeout_s", "cycle_s",
              "valid")


def write_pcaps(tmp, queues, flows, pkts):
    """One pcap per rx queue, distinct UDP flows in each; returns their paths."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    paths = []
    for q in range(queues):
        path = os.path.join(tmp, "scale_%d_%d_q%d.pcap" % (flows, pkts, q))
        paths.append(path)
        if os.path.exists(path):
            continue
        w = P.PcapWriter(path + ".tmp")
        for i in range(pkts):
            f = i % flows
            w.write(P.pad60(P.eth(P.ipv4("10.%d.%d.%d" % (30 + q, f >> 8 & 255, f & 255),
                                         "198.18.%d.%d" % (f >> 8 & 255, f & 255),
                                         17, P.udp(1024 + f % 50000, 53, b"x")), P.ETH_IPV4)))
        w.close()
        os.rename(path + ".tmp", path)
    return paths


def write_pcaps_owned(tmp, queues, flows, pkts):
    """As write_pcaps(), but each queue's flows owned by its worker (queue q
    polled by worker q) under the example's owner function with the tests'
    hash secret."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
    import fxpkt as P
    paths = []
    for q in range(queues):
        path = os.path.join(tmp, "owned%d_%d_%d_q%d.pcap" % (queues, flows, pkts, q))
        paths.append(path)
        if os.path.exists(path):
            continue
        chosen, f = [], 0
        while len(chosen) < flows:
            t = ("10.%d.%d.%d" % (30 + q, f >> 8 & 255, f & 255),
                 "198.18.%d.%d" % (f >> 16 & 255, f >> 8 & 255), 1024 + f % 50000, 53)
            key, _ = P.flow_key(4, P.PROTO_UDP, *t)
            if P.handoff_owner(key, queues) == q:
                chosen.append(t)
            f += 1
        w = P.PcapWriter(path + ".tmp")
        for i in range(pkts):
            src, dst, sport, dport = chosen[i % flows]
            w.write(P.pad60(P.eth(P.ipv4(src, dst, 17, P.udp(sport, dport, b"x")), P.ETH_IPV4)))
        w.close()
        os.rename(path + ".tmp", path)
    return paths


def layout(n):
    """(lcores, main CPU): worker i on its own CPU; the main lcore on CPU 0
    when the machine has a CPU more than the workers, else beside worker 1."""
    cpus = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
    if n > len(cpus):
        raise RuntimeError("%d workers need %d CPUs, the machine has %d" % (n, n, len(cpus)))
    first = 1 if len(cpus) > n else 0
    lcores = ["0@%d" % cpus[0]] + ["%d@%d" % (i + 1, cpus[first + i]) for i in range(n)]
    return ",".join(lcores), cpus[0]


def memory_mb(n, desc):
    """MiB of DPDK memory the example gets with n workers: the mbuf pool
    (the pcaps it holds), and per worker its flow table, wheel and NAT
    tables at --max-flows MAX_FLOWS (NAT under eim the most)."""
    return 768 + n * ((2 * desc * 2560 >> 20) + 512)


def huge_free_mb():
    try:
        with open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages") as f:
            return int(f.read()) * 2
    except OSError:
        return 0


def command(app, n, pcaps, prefix, args):
    lcores, _ = layout(n)
    config = ",".join("(0,%d,%d)" % (q, q + 1) for q in range(n))
    vdev = "net_pcap0," + ",".join("rx_pcap=%s" % p for p in pcaps) + ",infinite_rx=1"
    # the pool must hold every pcap (infinite_rx keeps them in mbufs): the
    # rx descriptor count is what sizes it
    desc = min(32768, 1 << (args_pkts(pcaps) - 1).bit_length())
    mb = memory_mb(n, desc)
    # hugepages where there are enough (the packets' and tables' random
    # lines each cost a TLB miss on 4 KiB pages), else --no-huge
    mem = ["-m", str(mb), "--huge-unlink"] if huge_free_mb() >= mb + 64 else \
        ["--no-huge", "-m", str(mb)]
    return [app] + mem + ["--no-pci", "--lcores", lcores,
            "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev", vdev, "--",
            "-p", "1", "--relax-rx-offload", "-T", "0", "--config", config,
            "--affinity", "handoff", "--tick-us", "100", "--bench",
            "--rx-queue-size", str(desc), "--tx-queue-size", str(desc),
            "--max-flows", str(MAX_FLOWS), "--hash-secret", SECRET] + args


def args_pkts(pcaps):
    """Packets in the first pcap (from its name)."""
    return int(os.path.basename(pcaps[0]).split("_")[2])


def one_run(window, app, n, load, pcaps, args, timeout_s, cycle_s):
    """One window of the example on n workers; the figures of the run."""
    prefix = "fxbench_scale_%d_%d_%s" % (os.getpid(), n, load)
    cmd = command(app, n, pcaps, prefix, args)
    (s0, c0, t0), (s1, c1, t1) = window(cmd, prefix, WARM_S, WINDOW_S)
    tot = lambda k: s1["totals"].get(k, 0) - s0["totals"].get(k, 0)  # noqa: E731
    port = lambda k: s1["port_0"][k] - s0["port_0"][k]  # noqa: E731
    n_rx, cpu, dt = port("rx"), c1 - c0, t1 - t0
    busy = min(1.0, tot("busy_cycles") / s1["tsc_hz"] / (dt * n))
    made = {"hits": 0, "owned": 0, "new": tot("created")}.get(load, tot("nat_created"))
    rate = n_rx if load in ("hits", "owned") else made
    # a full ring's, and the rest the workers drop (port_0's "dropped"
    # holds those a full ring dropped too)
    dropped = port("dropped")
    return {"workers": n, "load": load, "rate_per_s": rate / dt, "pps": n_rx / dt,
            "huge": "--no-huge" not in cmd,
            "rate_per_worker": rate / dt / n, "cpu": cpu / dt,
            "cycles_per_pkt": cpu * busy * s1["tsc_hz"] / max(1, n_rx),
            "handed_off": tot("handed_off") / max(1, n_rx),
            "dropped": dropped / max(1, n_rx),
            # builds before these counters: nan
            "pkts_per_send": ratio(tot("handed_off"), tot("handoff_sends"),
                                   "handoff_sends" in s1["totals"]),
            "pkts_per_take": ratio(tot("handoff_received"), tot("handoff_takes"),
                                   "handoff_takes" in s1["totals"]),
            "waits_per_s": tot("handoff_waits") / dt,
            "nat_in_nomatch": tot("nat_in_nomatch"),
            "timeout_s": timeout_s, "cycle_s": cycle_s,
            # --bench: each stage's cycles per packet received, all workers
            **{"c_" + st: tot("stage_%s_cycles" % st) / max(1, n_rx) for st in STAGES},
            "valid": load in ("hits", "owned") or made >= 0.95 * n_rx}


def ratio(a, b, known):
    return a / b if known and b > 0 else float("nan")


def scen_scale(window, app, n, pkts):
    """Every load at n workers; a list of run dicts (see one_run)."""
    tmp = "/tmp/fxbench_scale_pcaps"
    os.makedirs(tmp, exist_ok=True)
    _, main_cpu = layout(n)
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {main_cpu})
    try:
        owned = write_pcaps_owned(tmp, n, HITS_FLOWS, HITS_PKTS)
        hits = write_pcaps(tmp, n, HITS_FLOWS, HITS_PKTS)
        new = write_pcaps(tmp, n, pkts, pkts)
        live = ["--timeout-oneway", "60"]
        out = [one_run(window, app, n, "owned", owned, live, 60, 0),
               one_run(window, app, n, "hits", hits, live, 60, 0)]
        # a replay cycle at the fastest rate this n will see: the hits'
        cycle = pkts / max(1.0, max(r["pps"] for r in out) / n)
        tmo = max(0.001, min(0.005, round(cycle / 3, 4)))
        t = ["--timeout-oneway", "%g" % tmo]
        nat = NAT_ARGS + ["--nat-holddown", "%g" % tmo]
        out.append(one_run(window, app, n, "new", new, t, tmo, cycle))
        out.append(one_run(window, app, n, "nat_edm", new, t + nat, tmo, cycle))
        out.append(one_run(window, app, n, "nat_eim", new, t + nat + EIM_ARGS, tmo, cycle))
        return out
    finally:
        os.sched_setaffinity(0, saved)


def derive(rows):
    """Efficiency and extra cycles per handed-off packet, against N=1 (the
    median of N=1's runs of each load), filled into each row."""
    base = {}
    for load in LOADS:
        one = [r for r in rows if r["workers"] == 1 and r["load"] == load]
        if one:
            base[load] = (statistics.median(r["rate_per_worker"] for r in one),
                          statistics.median(r["cycles_per_pkt"] for r in one))
    for r in rows:
        b = base.get(r["load"])
        r["efficiency"] = r["rate_per_worker"] / b[0] if b and b[0] > 0 else float("nan")
        r["extra_cycles_per_ho"] = ((r["cycles_per_pkt"] - b[1]) / r["handed_off"]
                                    if b and r["handed_off"] > 0 else float("nan"))
    # against the control at the same N (hits only: the control is hits)
    for r in rows:
        own = [x["cycles_per_pkt"] for x in rows
               if x["workers"] == r["workers"] and x["load"] == "owned"]
        r["extra_vs_owned"] = ((r["cycles_per_pkt"] - statistics.median(own)) / r["handed_off"]
                               if own and r["load"] == "hits" and r["handed_off"] > 0
                               else float("nan"))


def table(rows, log):
    """The medians per N and load."""
    derive(rows)
    log("\nscale: N workers, each its own CPU and rx queue (net_pcap replay), --affinity handoff;"
        " medians over the runs; 'eff' = rate per worker / rate per worker at N=1")
    log("%-3s %-8s %12s %11s %6s %8s %9s %9s %8s %8s %6s %6s %9s %8s %6s" % (
        "N", "load", "rate/s", "per worker", "eff", "cyc/pkt", "extra/ho", "vs owned",
        "handoff", "dropped", "/send", "/take", "waits/s", "timeout", "valid"))
    for n in sorted({r["workers"] for r in rows}):
        for load in LOADS:
            rs = [r for r in rows if r["workers"] == n and r["load"] == load]
            if not rs:
                continue
            m = lambda k: statistics.median(r[k] for r in rs)  # noqa: E731
            log("%-3d %-8s %12.0f %11.0f %6.2f %8.0f %9.0f %9.0f %7.1f%% %7.3f%% %6.1f %6.1f"
                " %9.0f %7.1fms %6s" % (
                    n, load, m("rate_per_s"), m("rate_per_worker"), m("efficiency"),
                    m("cycles_per_pkt"), m("extra_cycles_per_ho"), m("extra_vs_owned"),
                    100 * m("handed_off"),
                    100 * m("dropped"), m("pkts_per_send"), m("pkts_per_take"),
                    m("waits_per_s"), 1e3 * m("timeout_s"),
                    "yes" if all(r["valid"] for r in rs) else "NO"))
    huge = {r["huge"] for r in rows}
    log("memory: %s" % ("hugepages" if huge == {True} else "--no-huge" if huge == {False}
                        else "mixed: hugepages and --no-huge"))
    log("\ncycles per packet by stage (--bench; all workers' cycles over the packets received)")
    log("%-3s %-8s" % ("N", "load") + "".join("%9s" % st for st in STAGES))
    for n in sorted({r["workers"] for r in rows}):
        for load in LOADS:
            rs = [r for r in rows if r["workers"] == n and r["load"] == load]
            if rs:
                log("%-3d %-8s" % (n, load) + "".join(
                    "%9.1f" % statistics.median(r["c_" + st] for r in rs) for st in STAGES))


def csv_write(path, rows):
    """One row per run (scripts/plot-flowexp-scale.sh plots it)."""
    derive(rows)
    with open(path, "w") as f:
        f.write(",".join(CSV_FIELDS) + "\n")
        for r in rows:
            f.write(",".join(("%.6g" % r[k]) if isinstance(r[k], float) and not
                             isinstance(r[k], bool) else str(r[k]) for k in CSV_FIELDS) + "\n")
