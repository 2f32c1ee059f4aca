#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of NAT's steered port choice (nat/steer.h; meson suite
e2e). net_pcap has no RSS: the capture is split over the rx queues by
test/lib/rss.py's model of it (symmetric Toeplitz, a 128-entry table,
entry i to worker i % workers), which the example is told with
--rss-model, as a NIC's RSS would have spread the packets.

  e2e_steer.py BINARY sessions  10000 sessions (a quarter TCP, the rest
                UDP) of 10000 inside hosts to 16 remote addresses on 4
                workers, each polling one queue, every packet on the queue
                the model gives it. Half the sessions have an inside port
                the NAT can keep (an inside host whose address differs from
                the public one by no worker bit of the hash, a port of the
                owner's share), the other half random ones. A first run
                sends the outbound packets alone: every public port's reply
                reaches, by the model, the worker that made the mapping,
                and the keepable ports are kept. A second run, whose draws
                --hash-secret's seed repeats, sends them again and every
                session's reply (a SYN-ACK, a UDP answer) a second later on
                the queue the model gives it. Checked: the same ports drawn;
                every mapping steered (nat_steered 10000, nat_steer_missed
                0); no reply handed off (nat_handoff 0) or lost; the
                counters and the NAT log's events as without steering:
                10000 mappings made, expired and released, 10000 in, 10000
                out, 20000 events queued.
  e2e_steer.py BINARY blocks    --nat-port-block 64: 200 inside hosts with 5 UDP
                sessions each on 4 workers, a probe run and a second
                with every reply on its model queue, as above: every
                port's reply reaches its worker, every mapping steered
                within its host's blocks, every reply delivered and none
                handed off, every block released.
  e2e_steer.py BINARY log       the start-up log says whether replies are
                steered and why not: steered with --rss-model (TCP and
                UDP, the entropy); not with --affinity handoff, nor with
                one worker, nor with --nat-steer off.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402
import fxpkt as P  # noqa: E402
import rss  # noqa: E402

check = E.check
WORKERS = 4
SESSIONS = 10000
REMOTES = ["198.18.0.%d" % (10 + i) for i in range(16)]
SHARES = [(1024, 17151), (17152, 33279), (33280, 49407), (49408, 65535)]
ARGS = ["--affinity", "rss", "--rss-model", "--max-flows", "8192",
        "--nat-log", "ipfix:127.0.0.1:9", "--nat-max-per-dest", "0"]


def run(binary, tmp, name, queues, extra):
    """One run, a worker per queue: (its statistics, the frames it sent,
    its log)."""
    vdev, tx = N.pcap_vdev(tmp, name, queues)
    config = ",".join("(0,%d,%d)" % (q, q + 1) for q in range(len(queues)))
    ex = E.Example(binary, "steer_" + name,
                   E.EAL + ["--lcores", N.lcore_map(len(queues)), "--vdev", vdev],
                   ["-p", "1", "--config", config] + N.APP + extra, tmp)
    st = ex.finish(timeout=120)
    with open(ex.log) as f:
        log = f.read()
    return st, N.out_frames(tx), log


def sessions(model, rng):
    """[(proto, inside, port, remote, rport, worker, kept)], a remote port
    per session (so that a translated frame names its session): the
    worker the model gives the outbound packet; kept: the inside port lies
    in that worker's share and the model sends its reply to the same
    worker. Toeplitz is linear, so the outbound packet's hash and its
    reply's (inside and public address swapped for one another) differ by
    the hash of inside XOR public address alone, whatever the ports: a
    port can be kept only for an inside host whose difference reaches no
    worker bit, and for those any port of the share is kept."""
    out, hosts, kept_hosts = [], [], []
    for n in range(2 * SESSIONS):
        inside = "10.1.%d.%d" % (n // 250, 1 + n % 250)
        same = rss.model_worker(model.v4(inside, "0.0.0.0", 0, 0) ^
                                model.v4(N.POOL, "0.0.0.0", 0, 0), WORKERS) == 0
        (kept_hosts if same else hosts).append(inside)
    for s in range(SESSIONS):
        proto = P.PROTO_TCP if s % 4 == 0 else P.PROTO_UDP
        remote, rport = REMOTES[s % len(REMOTES)], 10000 + s
        kept = s % 2 == 0
        inside = kept_hosts.pop() if kept else hosts.pop()
        while True:
            port = rng.randrange(1024, 65536)
            w = rss.model_worker(model.v4(inside, remote, port, rport), WORKERS)
            if not kept or SHARES[w][0] <= port <= SHARES[w][1]:
                break
        out.append((proto, inside, port, remote, rport, w, kept))
    return out


def traffic(conns, public=None):
    """Per queue [(time, frame)]: every session's first outbound packet
    (a SYN, a UDP datagram) on its worker's queue, the kept ones first so
    that no other session's port takes their public tuple; with public
    ({(remote, rport): public port}), a second later each one's reply (a
    SYN-ACK, a UDP answer) on the same queue."""
    queues = [[] for _ in range(WORKERS)]
    for i, (proto, inside, port, remote, rport, w, kept) in enumerate(conns):
        t = N.T0 + i * 1e-5 + (0 if kept else 0.5)
        pub = public[(remote, rport)] if public else None
        if proto == P.PROTO_TCP:
            isn = (1000 + i, 700000 + i)
            queues[w].append((t, N.tcp(inside, port, remote, rport, P.TCP_SYN,
                                       P.TcpConn(port, rport, isn=isn), 0)))
            if pub is not None:
                c = P.TcpConn(pub, rport, isn=isn)
                c.seg(0, P.TCP_SYN)
                queues[w].append((N.T0 + 1 + i * 1e-5, N.tcp(remote, rport, N.POOL, pub,
                                                              P.TCP_SYN | P.TCP_ACK, c, 1)))
        else:
            queues[w].append((t, N.udp(inside, port, remote, rport)))
            if pub is not None:
                queues[w].append((N.T0 + 1 + i * 1e-5, N.udp(remote, rport, N.POOL, pub)))
    return queues


def probe_and_reply(binary, tmp, name, model, conns, args):
    """The two runs of a steered scenario. First the outbound packets
    alone, for the public ports: every session translated, and every
    public port's reply sent, by the model, to the worker that made the
    mapping. Then, --hash-secret's seed repeating the draws, the same
    again with every session's reply a second later on the queue the model
    gives it: the same ports drawn, every reply delivered to its inside
    host and port. (the public ports, the second run's statistics), or
    None."""
    st, got, _ = run(binary, tmp, name + "_probe", traffic(conns), args)
    if st is None:
        return None
    public = {(g.dst, g.dport): g.sport for g in got if g.src == N.POOL}
    far = [c for c in conns if (c[3], c[4]) in public and rss.model_worker(
        model.v4(c[3], N.POOL, c[4], public[(c[3], c[4])]), WORKERS) != c[5]]
    check(len(public) == len(conns) and not far,
          "%s: %d of %d sessions translated, %d with a port whose reply reaches, by the "
          "model, another worker than the mapping's" % (name, len(public), len(conns), len(far)))
    if len(public) != len(conns):
        return None
    st, got, _ = run(binary, tmp, name + "_replies", traffic(conns, public), args)
    if st is None:
        return None
    again = {(g.dst, g.dport): g.sport for g in got if g.src == N.POOL}
    check(again == public, "%s: the second run drew the same ports (%d differ)"
          % (name, sum(again.get(k) != v for k, v in public.items())))
    ins = {(g.dst, g.dport) for g in got if g.dst.startswith("10.1.")}
    check(ins == {(c[1], c[2]) for c in conns},
          "%s: every reply reached its inside host and port (%d of %d)"
          % (name, len(ins), len(conns)))
    return public, st


def test_sessions(binary, tmp):
    model = rss.Toeplitz(rss.SYM_KEY)
    check(rss.self_check(), "the RSS model's known answers")
    conns = sessions(model, random.Random(37))
    runs = probe_and_reply(binary, tmp, "sessions", model, conns, ARGS)
    if runs is None:
        return
    public, st = runs
    kept = sum(c[6] for c in conns)
    same = sum(public.get((c[3], c[4])) == c[2] for c in conns if c[6])
    check(same == kept, "the kept inside ports left as themselves (%d of %d)" % (same, kept))
    t = N.nat_totals(st)
    check(t["nat_steered"] == SESSIONS and t["nat_steer_missed"] == 0,
          "every mapping steered (steered %d, missed %d)"
          % (t["nat_steered"], t["nat_steer_missed"]))
    check(t["nat_handoff"] == 0 and t["handed_off"] == 0,
          "no reply handed off (nat_handoff %d, handed_off %d)"
          % (t["nat_handoff"], t["handed_off"]))
    check(t["nat_created"] == SESSIONS and t["nat_out"] == SESSIONS and
          t["nat_in"] == SESSIONS and t["nat_in_nomatch"] == 0 and t["nat_no_port"] == 0,
          "created %d, out %d, in %d, no match %d, no port %d"
          % (t["nat_created"], t["nat_out"], t["nat_in"], t["nat_in_nomatch"],
             t["nat_no_port"]))
    check(t["nat_expired"] == SESSIONS and t["nat_released"] == SESSIONS,
          "every mapping expired and released (%d, %d)" % (t["nat_expired"], t["nat_released"]))
    check(t["nat_log_queued"] == 2 * SESSIONS and t["nat_log_dropped"] == 0,
          "the log's events: one made and one freed per mapping (%d queued, %d dropped)"
          % (t["nat_log_queued"], t["nat_log_dropped"]))
    made = [st["lcore_%d" % (w + 1)]["nat_created"] for w in range(WORKERS)]
    check(made == [sum(c[5] == w for c in conns) for w in range(WORKERS)],
          "each worker made the mappings of its queue (%s)" % made)
    N.no_leak(st, "steer")


def test_blocks(binary, tmp):
    """Port blocks of 64: 200 inside hosts with 5 UDP sessions each, on 4
    workers; the two runs of probe_and_reply()."""
    model = rss.Toeplitz(rss.SYM_KEY)
    rng = random.Random(41)
    conns = []
    for h in range(200):
        inside = "10.1.%d.%d" % (h // 250, 1 + h % 250)
        for j in range(5):
            remote, rport = REMOTES[j], 10000 + 5 * h + j
            port = rng.randrange(1024, 65536)
            w = rss.model_worker(model.v4(inside, remote, port, rport), WORKERS)
            conns.append((P.PROTO_UDP, inside, port, remote, rport, w, False))
    args = ARGS + ["--nat-port-block", "64", "--nat-max-blocks-per-host", "4"]
    runs = probe_and_reply(binary, tmp, "blocks", model, conns, args)
    if runs is None:
        return
    t = N.nat_totals(runs[1])
    check(t["nat_in"] == len(conns) and t["nat_handoff"] == 0,
          "blocks: every reply translated (%d of %d), none handed off (%d)"
          % (t["nat_in"], len(conns), t["nat_handoff"]))
    check(t["nat_steered"] == len(conns) and t["nat_steer_missed"] == 0 and
          t["nat_block_allocated"] == t["nat_block_released"] > 0,
          "blocks: every mapping steered (%d, missed %d), blocks allocated %d and "
          "released %d" % (t["nat_steered"], t["nat_steer_missed"],
                           t["nat_block_allocated"], t["nat_block_released"]))
    N.no_leak(runs[1], "blocks")


def test_log(binary, tmp):
    udp = [(N.T0, N.udp("10.1.0.1", 4000, REMOTES[0], 53))]
    cases = [
        ("rss_model", WORKERS, ["--affinity", "rss", "--rss-model"],
         "NAT replies steered to their mapping's worker: TCP and UDP ports"),
        ("handoff", 2, ["--affinity", "handoff"],
         "NAT replies not steered: affinity handoff, not rss"),
        ("single", 1, [], "NAT replies not steered: affinity single, not rss"),
        ("off", WORKERS, ["--affinity", "rss", "--rss-model", "--nat-steer", "off"],
         "NAT replies not steered: --nat-steer off"),
    ]
    for name, n, extra, want in cases:
        queues = [udp] + [[] for _ in range(n - 1)]
        st, _, log = run(binary, tmp, name, queues, extra)
        check(st is not None and want in log, "%s: the log says \"%s\"" % (name, want))


def main(argv):
    return E.run_named(argv, {"sessions": test_sessions, "blocks": test_blocks,
                              "log": test_log}, __doc__, "fxsteer_")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
