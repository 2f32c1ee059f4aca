# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""The "steer" scenario of flowexp-bench.py: masquerade on 2 workers with
its replies on the queues a NIC's RSS would give them, with NAT's port
choice steering them (--nat-steer on) and without (off).

Layout: 2 workers, each alone on a CPU when the machine has 3, else the
main lcore beside the first (as scenario scale), each polling its own rx
queue of one net_pcap port (infinite_rx), --affinity rss with
--rss-model: the queues hold what test/lib/rss.py's model of symmetric
Toeplitz RSS sends to each worker (net_pcap has no RSS of its own).

Loads, each run with the port choice on and off, alternated:
  replies  SESSIONS UDP sessions per worker, long-lived (600 s): each
           session's outbound packet on its worker's queue and its
           reply on the queue the model gives the reply's tuple (public
           address and port). The public ports come from a probe run of
           the outbound packets alone with the same --hash-secret, whose
           seed makes the measured run draw the same ports (checked: a
           reply that finds no mapping in the window is counted). Off:
           about half the replies land on the other worker and are
           handed off; on: none. Figures: packets/s, cycles per packet,
           the share handed off.
  new      every packet a new mapping (--scale-pkts distinct flows per
           queue, 2 ms timeouts, inside ports outside --nat-ports so that
           every mapping draws its port, on or off): the cycles per packet
           on and off, whose difference is the cost of the choice per new
           mapping (its h0 hash and class draw, less the unsteered draw).
"""

import os
import statistics
import subprocess
import sys

import flowexp_scale as S

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "l3fwd-flowexp", "test", "lib"))
import fxpkt as P  # noqa: E402
import rss  # noqa: E402

WORKERS = 2
SESSIONS = 4096
POOL = "203.0.113.1"
NAT = ["--nat-pool", POOL + "/32", "--nat-inside", "10.0.0.0/8", "--nat-max-per-host", "0",
       "--nat-max-per-dest", "0"]
LIVE = ["--timeout-oneway", "600", "--timeout-udp", "600"]
MODES = ("replies:on", "replies:off", "new:on", "new:off")


def steer_args(on):
    return ["--affinity", "rss", "--rss-model", "--nat-steer", "on" if on else "off"]


def outbound(model):
    """Per worker, SESSIONS (inside, sport, remote, dport) the model sends
    to that worker."""
    per = [[] for _ in range(WORKERS)]
    i = 0
    while min(len(p) for p in per) < SESSIONS:
        t = ("10.30.%d.%d" % (i >> 8 & 255, i & 255), 20000 + i % 40000,
             "198.18.%d.%d" % (i >> 8 & 255, i & 255), 53)
        w = rss.model_worker(model.v4(t[0], t[2], t[1], t[3]), WORKERS)
        if len(per[w]) < SESSIONS:
            per[w].append(t)
        i += 1
    return per


def frame(src, sport, dst, dport):
    return P.pad60(P.eth(P.ipv4(src, dst, 17, P.udp(sport, dport, b"x")), P.ETH_IPV4))


def write(path, frames):
    w = P.PcapWriter(path)
    for f in frames:
        w.write(f)
    w.close()


def udp_tuple(f):
    """(src, dst, sport, dport) of an untagged IPv4 UDP frame."""
    ihl = (f[14] & 15) * 4
    l4 = 14 + ihl
    return (".".join(str(b) for b in f[26:30]), ".".join(str(b) for b in f[30:34]),
            int.from_bytes(f[l4:l4 + 2], "big"), int.from_bytes(f[l4 + 2:l4 + 4], "big"))


def probe(app, tmp, per, on):
    """The public port of each session, {(remote, dport): port}, from a run
    of the outbound packets alone (the same lcores and seed as the
    measured run, so the same draws)."""
    rx = [os.path.join(tmp, "steer_probe_q%d.pcap" % w) for w in range(WORKERS)]
    tx = [os.path.join(tmp, "steer_probe_%s_tx%d.pcap" % (on, w)) for w in range(WORKERS)]
    for w in range(WORKERS):
        write(rx[w], [frame(*t) for t in per[w]])
    lcores, _ = S.layout(WORKERS)
    prefix = "fxbench_steer_probe_%d" % os.getpid()
    vdev = "net_pcap0," + ",".join("rx_pcap=" + p for p in rx) + "," + \
        ",".join("tx_pcap=" + p for p in tx)
    cmd = [app, "--no-huge", "-m", "1024", "--no-pci", "--lcores", lcores,
           "--file-prefix", prefix, "--log-level=lib.eal:error", "--vdev", vdev, "--",
           "-p", "1", "--relax-rx-offload", "-T", "0", "--config",
           ",".join("(0,%d,%d)" % (q, q + 1) for q in range(WORKERS)),
           "--clock", "pcap", "--exit-when-drained", "--duration", "60",
           "--max-flows", str(S.MAX_FLOWS), "--hash-secret", S.SECRET] + \
        steer_args(on) + NAT + LIVE
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix], check=False)
    if r.returncode != 0:
        raise RuntimeError("probe run: exit %d: %s" % (r.returncode, r.stdout[-500:]))
    public = {}
    for path in tx:
        for f in P.read_pcap(path):
            src, dst, sport, dport = udp_tuple(f)
            if src == POOL:
                public[(dst, dport)] = sport
    if len(public) != WORKERS * SESSIONS:
        raise RuntimeError("probe run: %d of %d sessions translated"
                           % (len(public), WORKERS * SESSIONS))
    return public


def replies_pcaps(app, tmp, on):
    """The measured run's pcaps: per queue its outbound packets and the
    replies the model sends to it, interleaved."""
    model = rss.Toeplitz(rss.SYM_KEY)
    per = outbound(model)
    public = probe(app, tmp, per, on)
    queues = [[] for _ in range(WORKERS)]
    for w in range(WORKERS):
        for src, sport, dst, dport in per[w]:
            queues[w].append(frame(src, sport, dst, dport))
            pub = public[(dst, dport)]
            queues[rss.model_worker(model.v4(dst, POOL, dport, pub), WORKERS)].append(
                frame(dst, dport, POOL, pub))
    n = max(len(q) for q in queues)
    paths = []
    for w in range(WORKERS):
        # the name carries the packet count, as scale's (flowexp_scale.args_pkts)
        path = os.path.join(tmp, "steer_%s_%d_q%d.pcap" % (on, n, w))
        write(path, queues[w])
        paths.append(path)
    return paths


def scen_steer(window, app, mode, pkts):
    """One run of mode (see MODES): the figures of flowexp_scale.one_run,
    and the replies without a mapping."""
    load, on = mode.split(":")
    on = on == "on"
    tmp = "/tmp/fxbench_steer_pcaps"
    os.makedirs(tmp, exist_ok=True)
    _, main_cpu = S.layout(WORKERS)
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {main_cpu})
    try:
        if load == "replies":
            pcaps = replies_pcaps(app, tmp, on)
            r = S.one_run(window, app, WORKERS, "hits", pcaps,
                          steer_args(on) + NAT + LIVE, 600, 0)
        else:
            new = new_pcaps(tmp, pkts)
            # the timeout rule of scale's new loads, at 5 ms at most
            tmo = 0.002
            r = S.one_run(window, app, WORKERS, "nat_edm", new,
                          steer_args(on) + NAT + ["--timeout-oneway", "%g" % tmo,
                                                  "--nat-holddown", "%g" % tmo], tmo, 0)
        r["mode"] = mode
        # a reply that met no mapping in the window: the probe's ports
        # were not drawn again (replies), or a mapping gone (new: none
        # are sent)
        r["valid"] = r["valid"] and r["nat_in_nomatch"] == 0
        return r
    finally:
        os.sched_setaffinity(0, saved)


def new_pcaps(tmp, pkts):
    """Per queue pkts distinct UDP flows, each a new mapping when the
    replay comes round, whose inside ports (1..1000) lie outside
    --nat-ports: no mapping keeps its port, on or off, so both draw every
    port (a run of kept sequential ports would favour off)."""
    paths = []
    for q in range(WORKERS):
        path = os.path.join(tmp, "steer_new_%d_q%d.pcap" % (pkts, q))
        paths.append(path)
        if os.path.exists(path):
            continue
        write(path + ".tmp", [frame("10.%d.%d.%d" % (30 + q, f >> 8 & 255, f & 255),
                                    1 + f % 1000,
                                    "198.18.%d.%d" % (f >> 8 & 255, f & 255), 53)
                              for f in range(pkts)])
        os.rename(path + ".tmp", path)
    return paths


def table(res, log):
    """Medians per mode, and on / off per repeat."""
    log("\nsteer: 2 workers, a queue each, --affinity rss --rss-model; NAT's port choice"
        " steering replies (on) or not (off); medians")
    log("%-12s %12s %9s %9s %8s %6s" % ("mode", "pkts/s", "rate/s", "cyc/pkt", "handoff",
                                         "valid"))
    for m in MODES:
        rs = [r for r in res.get(("steer", m), []) if r is not None]
        if not rs:
            continue
        med = lambda k: statistics.median(r[k] for r in rs)  # noqa: E731
        log("%-12s %12.0f %9.0f %9.0f %7.1f%% %6s" % (
            m, med("pps"), med("rate_per_s"), med("cycles_per_pkt"), 100 * med("handed_off"),
            "yes" if all(r["valid"] for r in rs) else "NO"))
    for load in ("replies", "new"):
        on, off = res.get(("steer", load + ":on"), []), res.get(("steer", load + ":off"), [])
        pairs = [(a, b) for a, b in zip(on, off) if a is not None and b is not None]
        if not pairs:
            continue
        rate = [a["pps"] / b["pps"] for a, b in pairs]
        cyc = [b["cycles_per_pkt"] - a["cycles_per_pkt"] for a, b in pairs]
        log("%s: on / off, packets/s: median %.3f (%s)" % (
            load, statistics.median(rate), ", ".join("%.3f" % x for x in rate)))
        log("%s: cycles per packet, off - on: median %.1f (%s)%s" % (
            load, statistics.median(cyc), ", ".join("%.1f" % x for x in cyc),
            "; per handed-off packet saved: %.0f" % (
                statistics.median(cyc) / statistics.median(b["handed_off"] for _, b in pairs))
            if load == "replies" else ": the choice costs minus this per new mapping"))
