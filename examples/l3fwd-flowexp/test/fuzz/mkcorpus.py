#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""The seed corpus of fuzz-flowexp, in its input format (fuzz_flowexp.c),
made from the frames of the end-to-end tests: every scenario of
test/e2e/e2e_edge.py, test/e2e/e2e_nat.py and test/e2e/e2e_tcp.py is run with the
function that would start the example replaced by one that records the
frames it was given, with their capture times and receive ports; and
test/lib/gen_traffic.py's flows, malformed frames and random frames.

A scenario's frames become loop iterations: a run of frames on one port
at one capture time (at most a burst) is one iteration, the clock moving
by the time since the previous run. Frames on one rx queue (e2e_nat's NAT
on one port, e2e_tcp's router) are given the harness's port by their
source address: inside 10.1.0.0/16, 192.0.2.0/24 and 2001:db8:1::/48 on
port 0, the rest of 10.0.0.0/8 and 2001:db8::/32 on port 2, anything
else on port 1 (outside). A scenario too long for one input is cut into
several, at iteration boundaries. Each scenario is written a second time
with every frame in two segments.

  mkcorpus.py OUTDIR [MAX_LEN]    (default 4096, the fuzz suite's -max_len)

Files are named by the SHA-1 of their contents, as libFuzzer names them.
"""

import hashlib
import ipaddress
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_edge  # noqa: E402
import e2e_nat  # noqa: E402
import e2e_tcp  # noqa: E402
import gen_traffic as G  # noqa: E402

BURST = 32
FLAG_SPLIT = 4
UNITS_US = (1000000, 100000, 1000, 10)   # step >> 6 = 3, 2, 1, 0
PORT0 = [ipaddress.ip_network(n) for n in ("10.1.0.0/16", "192.0.2.0/24", "2001:db8:1::/48")]
PORT2 = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "2001:db8::/32")]


def source(frame):
    """The source address of an untagged IPv4 or IPv6 frame, or None."""
    et = frame[12:14]
    try:
        if et == b"\x08\x00":
            return ipaddress.ip_address(frame[26:30])
        if et == b"\x86\xdd":
            return ipaddress.ip_address(frame[22:38])
    except ValueError:
        pass
    return None


def port_by_source(frame):
    a = source(frame)
    if a is None:
        return 0
    if any(a in n for n in PORT0 if n.version == a.version):
        return 0
    if any(a in n for n in PORT2 if n.version == a.version):
        return 2
    return 1


def steps(dt_us):
    """Step bytes moving the clock by about dt_us (one per iteration)."""
    out = []
    for code, unit in zip((3, 2, 1, 0), UNITS_US):
        while dt_us >= unit:
            k = min(63, dt_us // unit)
            out.append(code << 6 | k)
            dt_us -= k * unit
    return out or [0]


def iterations(frames, flags=0):
    """frames: [(time s, port, frame)] -> the inputs' iterations, as bytes."""
    frames = sorted(frames, key=lambda x: x[0])
    its, now, i = [], None, 0
    while i < len(frames):
        t, port, _ = frames[i]
        j = i
        while j < len(frames) and j - i < BURST and frames[j][1] == port and \
                frames[j][0] == t:
            j += 1
        st = steps(0 if now is None else int(round((t - now) * 1e6)))
        now = t
        # idle iterations carry the clock the rest of the way
        for s in st[:-1]:
            its.append(struct.pack("BBB", flags & ~3, s, 0))
        body = b""
        for _, _, f in frames[i:j]:
            f = f[:4096]
            body += struct.pack("<H", len(f))
            if flags & FLAG_SPLIT:
                body += b"\x80"
            body += f
        its.append(struct.pack("BBB", (flags & ~3) | port, st[-1], j - i) + body)
        i = j
    return its


def inputs(its, max_len):
    """Iterations cut into inputs of at most max_len bytes."""
    out, cur = [], b""
    for it in its:
        if len(it) > max_len:
            continue
        if len(cur) + len(it) > max_len:
            out.append(cur)
            cur = b""
        cur += it
    if cur:
        out.append(cur)
    return out


class Recorder:
    """Stands in for the e2e helpers that start the example."""

    def __init__(self):
        self.runs = []

    def edge_run(self, binary, tmp, name, inside, outside, extra=(), nat=True, stop=None):
        fr = []
        for port, frames, t0 in ((0, inside, e2e_edge.T0), (1, outside, e2e_edge.TI)):
            for k, f in enumerate(frames):
                t, f = f if isinstance(f, tuple) else (t0 + k * 0.001, f)
                fr.append((t, port, f))
        self.runs.append(("edge_" + name, fr))
        return None, [], [], None

    def nat_run(self, binary, tmp, name, frames, extra=(), queues=None):
        qs = [frames] if queues is None else queues
        self.runs.append(("nat_" + name, [(t, port_by_source(f), f) for q in qs
                                          for t, f in q]))
        return None, []

    def tcp_run_flows(self, binary, tmp, name, frames, extra=()):
        self.runs.append(("tcp_" + name, [(t, port_by_source(f), f)
                                          for t, f, _ in frames]))
        return None


def scenarios():
    rec = Recorder()
    e2e_edge.run = rec.edge_run
    e2e_nat.run = rec.nat_run
    e2e_tcp.run_flows = rec.tcp_run_flows
    tmp = tempfile.mkdtemp(prefix="mkcorpus")
    devnull = open(os.devnull, "w")
    for mod in (e2e_edge, e2e_nat, e2e_tcp):
        for name in sorted(n for n in dir(mod) if n.startswith("test_")):
            out, sys.stdout = sys.stdout, devnull
            try:
                getattr(mod, name)("/nonexistent", tmp)
            except Exception:   # a check on a result the recorder never gives
                pass
            finally:
                sys.stdout = out
    runs = rec.runs

    def timed(frames, gap=0.0001):
        fr = [f[0] if isinstance(f, tuple) else f for f in frames]
        return [(k * gap, port_by_source(f), f) for k, f in enumerate(fr)]
    runs.append(("gen_flows", timed(G.flows_traffic(48)[0], 0.01)))
    runs.append(("gen_malformed", timed(G.malformed_traffic()[0])))
    runs.append(("gen_random", timed(G.random_traffic(256, 1)[0])))
    return runs


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-3])
        return 2
    outdir, max_len = argv[1], int(argv[2]) if len(argv) == 3 else 4096
    os.makedirs(outdir, exist_ok=True)
    n = total = 0
    for name, frames in scenarios():
        if not frames:
            continue
        for flags in (0, FLAG_SPLIT):
            for data in inputs(iterations(frames, flags), max_len):
                path = os.path.join(outdir, hashlib.sha1(data).hexdigest())
                with open(path, "wb") as f:
                    f.write(data)
                n += 1
                total += len(data)
    print("%d inputs, %d bytes, in %s" % (n, total, outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
