#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""End-to-end tests of l3fwd-flowexp against hash flooding (meson suite e2e).

Keys chosen offline to collide (test/lib/collide.py) replayed through net_pcap
on the capture's clock (--clock pcap), one worker. The example is given
fxpkt.HASH_SECRET (--hash-secret, as every e2e test), so this test can
model exactly where each key lands in the index (collide.IndexModel) and
assert every count; whether the attacker knows that secret is what the
two kinds of set differ in:

  e2e_hashflood.py BINARY flow-crc   3500 UDP flows from one source whose
                                     keys share one CRC32-C (the unkeyed
                                     hash: computed by linear algebra, no
                                     secret involved), among 500 others: as
                                     random keys to the keyed hash: every
                                     flow made and refreshed, no add
                                     refused at the probe bound, the most
                                     buckets an add read is what the model
                                     of the index says, every frame out
  e2e_hashflood.py BINARY flow-keyed 100 flows sharing one home bucket of
                                     the flow index under the known secret
                                     (tried offline), between 500 others:
                                     the bound's 8 buckets fill and every
                                     add past them is refused and counted
                                     (index_full, table_full), an add reads
                                     8 buckets at most, every other flow
                                     (but one with that home bucket) is
                                     made and refreshed; exactly the frames
                                     of the admitted flows out, in order
  e2e_hashflood.py BINARY nat-crc    3000 outbound UDP tuples from inside
                                     hosts whose NAT out keys share one
                                     CRC32-C: every mapping made with its
                                     source port kept, every reply
                                     translated back, no refusal
  e2e_hashflood.py BINARY nat-keyed  100 outbound tuples whose out keys
                                     share one home bucket of the NAT
                                     index under the known secret, among
                                     400 others: refused past the bound
                                     (nat_index_full, nat_table_full),
                                     their replies dropped as no match,
                                     every other mapping and reply
                                     translated; exactly those frames out

The cost per packet of these sets against random keys is a benchmark, not
a test: scripts/flowexp-bench.py --scenarios flood (doc/performance.md).
"""

import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import collide as C  # noqa: E402
import e2e_flowexp as E  # noqa: E402
import e2e_nat as N  # noqa: E402
import fxpkt as P  # noqa: E402

check = E.check
SRC = "10.254.0.1"          # the flows' one source
MAX_FLOWS = 4096            # --max-flows: the flow table and the NAT table
T0 = 1000.0
FLOW_APP = ["-p", "1"] + E.PMD + ["--clock", "pcap", "--tick-us", "1000", "--max-flows",
                                  str(MAX_FLOWS), "--timeout-oneway", "30",
                                  "--timeout-udp", "30", "--exit-when-drained",
                                  "--duration", "60"]


def counter(t, name):
    """A counter of the totals, or None (with a failed check) if the build
    has none: the builds before the probe bound have no index counters."""
    if not check(name in t, "the statistics have %s" % name):
        return None
    return t[name]


def udp_frame(src, dst, sport, dport):
    return P.pad60(P.eth(P.ipv4(src, dst, P.PROTO_UDP, P.udp(sport, dport, b"x")), P.ETH_IPV4))


def random_tuples(n, seed, src=None, src_net="10.254.1.", dst_net="198.19."):
    """n distinct (src, dst, sport, dport) UDP tuples."""
    rnd = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        t = (src or src_net + str(rnd.randrange(1, 255)),
             dst_net + "%d.%d" % (rnd.randrange(256), rnd.randrange(1, 255)),
             rnd.randrange(1024, 65536), rnd.randrange(1, 65536))
        if t[1:] not in seen:
            seen.add(t[1:])
            out.append(t)
    return out


# ---- the flow tracker ----

def flow_model(packets):
    """packets: tuples in order. What the flow index does with each (one
    worker, nothing expires meanwhile): ('new' | 'hit' | 'refused', tuple),
    and the most buckets an add read."""
    ix = C.IndexModel(C.flow_buckets(MAX_FLOWS))
    live, out, lines = set(), [], 0
    for t in packets:
        if t in live:
            out.append(("hit", t))
            continue
        sig = P.fx_hash(C.flow_key_of(*t))
        b = ix.insert(sig)
        if b is None:
            out.append(("refused", t))
            lines = C.PROBE_MAX
            continue
        lines = max(lines, (b - C.home(sig, ix.n)) % ix.n + 1)
        live.add(t)
        out.append(("new", t))
    return out, lines


def flow_run(binary, tmp, name, packets):
    """packets: [(time, tuple)]; the final statistics and the frames out."""
    inp, out = os.path.join(tmp, name + ".pcap"), os.path.join(tmp, name + "_out.pcap")
    w = P.PcapWriter(inp)
    for ts, t in packets:
        w.write(udp_frame(*t), ts)
    w.close()
    ex = E.Example(binary, name, E.EAL + ["-l", "0-1", "--vdev",
                   "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, out)], FLOW_APP, tmp)
    return ex.finish(), out


def frame_tuple(f):
    ip = f[14:34]
    return (".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20])),
            int.from_bytes(f[34:36], "big"), int.from_bytes(f[36:38], "big"))


def check_flow_run(st, out, packets, what):
    """Counts and frames against the model of the index."""
    verdicts, lines = flow_model([t for _, t in packets])
    n = {k: sum(v == k for v, _ in verdicts) for k in ("new", "hit", "refused")}
    t = st["totals"]
    check(t["created"] == n["new"] and t["refreshed"] == n["hit"],
          "%s: %d flows made, %d packets refreshed one (got %d, %d)"
          % (what, n["new"], n["hit"], t["created"], t["refreshed"]))
    full = counter(t, "index_full")
    lines_max = counter(t, "index_lines_max")
    if full is not None:
        check(full == n["refused"] and t["table_full"] == n["refused"],
              "%s: %d adds refused at the probe bound, counted in index_full and table_full "
              "(got %d, %d)" % (what, n["refused"], full, t["table_full"]))
    if lines_max is not None:
        check(lines_max == lines and lines_max <= C.PROBE_MAX,
              "%s: the most buckets an add read is %d, the model's (bound %d; got %d)"
              % (what, lines, C.PROBE_MAX, lines_max))
    want = [tp for v, tp in verdicts if v != "refused"]
    got = [frame_tuple(f) for f in P.read_pcap(out)]
    check(got == want, "%s: exactly the %d packets of the admitted flows out, in order "
          "(got %d)" % (what, len(want), len(got)))
    E.check_forwarded(out, len(want))
    check(t["expired"] == n["new"] and t["active"] == 0,
          "%s: every flow made expired at the end (expired %d of %d, active %d)"
          % (what, t["expired"], n["new"], t["active"]))


def test_flow_crc(binary, tmp):
    crc = C.crc_flows(3500, src=SRC)
    check(len({P.crc32c_raw(C.flow_key_of(*t)) for t in crc}) == 1 and
          len(set(crc)) == len(crc),
          "the set: %d distinct flow keys with one CRC32-C" % len(crc))
    other = random_tuples(500, 1, src="10.254.0.2")
    first = crc + other
    random.Random(2).shuffle(first)
    packets = [(T0, t) for t in first] + [(T0 + 0.5, t) for t in first]
    st, out = flow_run(binary, tmp, "flow_crc", packets)
    if st is None:
        return
    check_flow_run(st, out, packets, "CRC-colliding flows, secret unknown to them")
    verdicts, _ = flow_model([t for _, t in packets])
    check(all(v != "refused" for v, _ in verdicts), "the model refuses none of them either")


def test_flow_keyed(binary, tmp):
    bad = C.keyed_flows(100, MAX_FLOWS, src=SRC)
    nb = C.flow_buckets(MAX_FLOWS)
    check(len({C.home(P.fx_hash(C.flow_key_of(*t)), nb) for t in bad}) == 1,
          "the set: 100 flows with one home bucket among %d under the known secret" % nb)
    before, after = random_tuples(300, 3), random_tuples(200, 4, src_net="10.254.2.")
    packets = [(T0, t) for t in before] + [(T0 + 0.1, t) for t in bad] + \
        [(T0 + 0.2, t) for t in bad] + [(T0 + 0.3, t) for t in before] + \
        [(T0 + 0.4, t) for t in after] + [(T0 + 0.5, t) for t in after]
    st, out = flow_run(binary, tmp, "flow_keyed", packets)
    if st is None:
        return
    verdicts, _ = flow_model([t for _, t in packets])
    admitted = {tp for v, tp in verdicts if v == "new"}
    target = C.home(P.fx_hash(C.flow_key_of(*bad[0])), nb)
    rest = [t for t in before + after if t not in admitted]
    check(0 < sum(t in admitted for t in bad) <= C.PROBE_MAX * C.PAIRS and
          all(C.home(P.fx_hash(C.flow_key_of(*t)), nb) == target for t in rest),
          "the model: at most %d of the set admitted (%d); of the others only those with "
          "the same home bucket refused (%d)"
          % (C.PROBE_MAX * C.PAIRS, sum(t in admitted for t in bad), len(rest)))
    check_flow_run(st, out, packets, "flows in one home bucket, secret known")


# ---- NAT ----

def nat_model(ops):
    """ops: ('out' | 'in', inside tuple) in order; the public port is the
    inside port (kept: the tests' tuples are distinct). What the NAT index
    does: ('new' | 'hit' | 'refused' | 'nomatch', tuple), the most buckets
    an insert read."""
    ix = C.IndexModel(C.nat_buckets(MAX_FLOWS))
    live, out, lines = set(), [], 0
    for d, t in ops:
        if d == "in":
            out.append(("hit" if t in live else "nomatch", t))
            continue
        if t in live:
            out.append(("hit", t))
            continue
        src, dst, sport, dport = t
        placed = []
        for k in (C.nat_key_of(src, dst, sport, dport), C.nat_key_of(dst, N.POOL, dport, sport)):
            sig = P.fx_hash(k)
            b = ix.insert(sig)
            if b is None:
                lines = C.PROBE_MAX
                break
            lines = max(lines, (b - C.home(sig, ix.n)) % ix.n + 1)
            placed.append(b)
        if len(placed) < 2:
            for b in placed:
                ix.remove(b)
            out.append(("refused", t))
            continue
        live.add(t)
        out.append(("new", t))
    return out, lines


def nat_frames(ops, times):
    """The frames of ops: outbound from the inside host, replies to the pool."""
    fr = []
    for (d, (src, dst, sport, dport)), ts in zip(ops, times):
        fr.append((ts, N.udp(src, sport, dst, dport) if d == "out" else
                   N.udp(dst, dport, N.POOL, sport)))
    return fr


def check_nat_run(st, got, ops, what):
    verdicts, lines = nat_model(ops)
    outs = [v for (d, _), (v, _) in zip(ops, verdicts) if d == "out"]
    ins = [v for (d, _), (v, _) in zip(ops, verdicts) if d == "in"]
    t = N.nat_totals(st)
    made, refused = outs.count("new"), outs.count("refused")
    check(t["nat_created"] == made and t["nat_out"] == made + outs.count("hit"),
          "%s: %d mappings made, %d packets out translated (got %d, %d)"
          % (what, made, made + outs.count("hit"), t["nat_created"], t["nat_out"]))
    check(t["nat_in"] == ins.count("hit") and t["nat_in_nomatch"] == ins.count("nomatch"),
          "%s: %d replies translated back, %d without a mapping dropped (got %d, %d)"
          % (what, ins.count("hit"), ins.count("nomatch"), t["nat_in"], t["nat_in_nomatch"]))
    full = counter(t, "nat_index_full")
    lines_max = counter(t, "nat_index_lines_max")
    if full is not None:
        check(full == refused and t["nat_table_full"] == refused,
              "%s: %d mappings refused at the probe bound, counted in nat_index_full and "
              "nat_table_full (got %d, %d)" % (what, refused, full, t["nat_table_full"]))
    if lines_max is not None:
        check(lines_max == lines, "%s: the most buckets an insert read is %d, the model's "
              "(bound %d; got %d)" % (what, lines, C.PROBE_MAX, lines_max))
    want = []
    for (d, (src, dst, sport, dport)), (v, _) in zip(ops, verdicts):
        if v in ("new", "hit"):
            want.append((N.POOL, sport, dst, dport) if d == "out" else (dst, dport, src, sport))
    N.expect_frames(got, want, what)
    N.no_leak(st, what)


def nat_run(binary, tmp, name, ops, times):
    """e2e_nat's run: --nat-inside 10.1.0.0/16, one pool address."""
    return N.run(binary, tmp, name, nat_frames(ops, times), ["--max-flows", str(MAX_FLOWS)])


def test_nat_crc(binary, tmp):
    crc = C.crc_nat(3000, src_net="10.1.0.0")
    check(len({P.crc32c_raw(C.nat_key_of(*t)) for t in crc}) == 1 and
          all(t[2] >= 32768 for t in crc),
          "the set: %d NAT out keys with one CRC32-C, source ports that can be kept" % len(crc))
    ops = [("out", t) for t in crc] + [("in", t) for t in crc] + [("out", t) for t in crc]
    times = [T0] * len(crc) + [T0 + 0.5] * len(crc) + [T0 + 1] * len(crc)
    st, got = nat_run(binary, tmp, "nat_crc", ops, times)
    if st is None:
        return
    check_nat_run(st, got, ops, "CRC-colliding NAT keys, secret unknown to them")
    check(all(v != "refused" for v, _ in nat_model(ops)[0]),
          "the model refuses none of them either")


def test_nat_keyed(binary, tmp):
    bad = C.keyed_nat(100, MAX_FLOWS, src="10.1.0.1")
    nb = C.nat_buckets(MAX_FLOWS)
    check(len({C.home(P.fx_hash(C.nat_key_of(*t)), nb) for t in bad}) == 1,
          "the set: 100 NAT out keys with one home bucket among %d under the known secret" % nb)
    before, after = random_tuples(250, 5, src_net="10.1.1."), random_tuples(150, 6, src_net="10.1.2.")
    ops = [("out", t) for t in before] + [("out", t) for t in bad] + \
        [("in", t) for t in before + bad] + [("out", t) for t in after] + \
        [("in", t) for t in after] + [("out", t) for t in before]
    times = [T0] * len(before) + [T0 + 0.1] * len(bad) + [T0 + 0.2] * (len(before) + len(bad)) + \
        [T0 + 0.3] * len(after) + [T0 + 0.4] * len(after) + [T0 + 0.5] * len(before)
    st, got = nat_run(binary, tmp, "nat_keyed", ops, times)
    if st is None:
        return
    verdicts, _ = nat_model(ops)
    made = {t for v, t in verdicts if v == "new"}
    target = C.home(P.fx_hash(C.nat_key_of(*bad[0])), nb)
    rest = [t for t in before + after if t not in made]
    check(0 < sum(t in made for t in bad) <= C.PROBE_MAX * C.PAIRS and
          all(C.home(P.fx_hash(C.nat_key_of(*t)), nb) == target or
              C.home(P.fx_hash(C.nat_key_of(t[1], N.POOL, t[3], t[2])), nb) == target
              for t in rest),
          "the model: at most %d of the set admitted (%d); of the others only those with "
          "a key in the same home bucket refused (%d)"
          % (C.PROBE_MAX * C.PAIRS, sum(t in made for t in bad), len(rest)))
    check_nat_run(st, got, ops, "NAT keys in one home bucket, secret known")


TESTS = {"flow-crc": test_flow_crc, "flow-keyed": test_flow_keyed,
         "nat-crc": test_nat_crc, "nat-keyed": test_nat_keyed}


def main(argv):
    if len(argv) != 3 or argv[2] not in TESTS:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix="fxflood_") as tmp:
        TESTS[argv[2]](argv[1], tmp)
    print("%d check(s) failed" % len(E.failures) if E.failures else "all checks passed")
    return 1 if E.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
