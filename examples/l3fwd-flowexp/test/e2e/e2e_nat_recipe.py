#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
r"""doc/nat.md's two-port recipe, run as written (meson suite e2e,
flowexp_nat_recipe).

  e2e_nat_recipe.py BINARY [NAT_MD]

The command is read from the sh block of "Using it" in doc/nat.md (or
NAT_MD) at every run and run by bash, as if pasted into it, with the
bracketed optional options left out (their defaults apply): each
outermost `[...]` becomes a word the test then drops, its line breaks
kept as they stood, a `\`-continuation inside it included
(optional_out()). On bash's PATH there is only a recorder named
dpdk-l3fwd-flowexp that writes the arguments it was given. The block
must be one command: a line that does not end in `\` where the command
goes on (the next command is then an option: "command not found"), an
error bash reports, or the recorder run other than once fails the test,
with the lines of doc/nat.md at fault. What the recorder got after `--`
is passed as it stands, with these added after it (none changes the
recipe's meaning):
  --relax-rx-offload    the virtual devices cannot verify IPv4 checksums
  --stats-file PATH, --hash-secret S   what every e2e test reads and fixes
  --duration 120        a bound on a hang: the test stops it with SIGTERM
Before it, `dpdk-l3fwd-flowexp` is the built binary and `...` the EAL
options of these tests (no hugepages, but -m 2048 for the defaults' 1.2
GiB; a file prefix of its own) with one device per port. `-l LIST` stays
unless this machine lacks one of its CPUs; then it becomes --lcores with
the same lcores on the CPUs there are (`-l 0-2` on two CPUs: --lcores
0@0,1@1,2@0). A recipe the test cannot read that way (no such block, not
`dpdk-l3fwd-flowexp EAL -- OPTIONS`, a placeholder left after `--`) is a
failure, not a skip.

The world the recipe describes, in three network namespaces (names with
the PID), nobody with a static neighbour entry:

  inside  10.0.0.2/8, default via 10.0.0.1
      --veth-- [port 0  l3fwd-flowexp  port 1] --veth--
                                  outside: the router 192.0.2.254/24,
                                  a server 198.51.100.1 on its lo,
                                  203.0.113.0/28 on-link on the veth

The example runs in the middle namespace, whose kernel has no address and
forwards nothing. Its ports are net_pcap devices on the middle veth ends
(rx_iface_in: incoming frames only; one tx_iface per tx queue), not
net_af_packet: the recipe gives each port one rx queue and three tx queues
(the two workers' and the main lcore's), and net_af_packet only has queue
pairs, whose rx sockets share the interface's frames among them; two of
the three are never polled (tried: nothing came through).

Checks:
  - curl from the inside gets a page from the server, which saw a client
    address in the pool; a UDP datagram is echoed back, its source at
    the server in the pool too;
  - ping of 10.0.0.1 from the inside and of 192.0.2.1 from the router is
    answered;
  - the router's kernel learnt the pool address the server saw, and
    192.0.2.1, at port 1's MAC (by ARP, not permanent);
  - the gateway resolved its next hop 192.0.2.254 by ARP
    (/l3fwd_flowexp/neigh,1 has it at the router's MAC; ARP replies and
    resolutions counted);
  - neither kernel counted a checksum error;
  - counters: mappings made, translated both ways, no classification
    drop, nothing refused for a port, a SYN or room, nothing held lost;
    exit status 0.

A broken recipe fails here: without its default route, for one, curl
and the UDP echo time out and nothing is translated (about a minute).

Exit status 77 (skipped) where e2e_netns.py skips (not root, no `ip
netns`, ethtool or curl), or where the DPDK build has no net_pcap.
Everything made is removed in any case. The run takes a few seconds.
"""

import ipaddress
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import e2e_netns as NS  # noqa: E402
import e2e_netns_neigh as NN  # noqa: E402
from e2e_netns import sh, wait_lines  # noqa: E402

NAT_MD = os.path.join(HERE, "..", "..", "..", "..", "doc", "nat.md")
PROGRAM = "dpdk-l3fwd-flowexp"
# what an optional group of the recipe becomes for bash: a word of its
# own, left out of the arguments recorded (a command of its own if the
# group begins one)
OPTIONAL = "@optional@"
# the recipe's defaults (two workers of a million flows each, and their
# NAT tables) take about 1.2 GiB; without hugepages -m is the heap
MEM_MB = 2048
# the test's additions after the recipe's own options
ADDED = ["--relax-rx-offload", "--duration", "120"]

POOL = ipaddress.ip_network("203.0.113.0/28")
HOST, GW0 = "10.0.0.2", "10.0.0.1"
ROUTER, GW1, SERVER = "192.0.2.254", "192.0.2.1", "198.51.100.1"
MAC_IN, MAC_ROUTER = "02:fe:0a:00:00:02", "02:fe:c0:00:02:fe"
HANG = NS.HANG
TOKEN = "fxrecipe-page-%d" % os.getpid()


def optional_out(block):
    r"""block with each optional group taken out. A group runs from an
    outermost `[` to its matching `]` (groups nest); it is cut at its
    line breaks, each piece with anything but blanks on it becomes the
    word OPTIONAL, and each line break stays as it stood, with its `\`
    when it had one. A group spanning lines thus keeps its
    `\`-continuations, and a line break in it without one still ends the
    command there, the rest of the group then beginning a command of its
    own, as a shell would read the text with the group filled in. The
    block's other text, and its line count, are left as they are."""
    out, depth, group = [], 0, []
    for k, c in enumerate(block):
        if c == "[":
            depth += 1
            if depth == 1:
                group = []
                continue
        elif c == "]":
            if depth == 0:
                raise ValueError("a `]` without its `[` at character %d of the block" % k)
            depth -= 1
            if depth == 0:
                lines = "".join(group).split("\n")
                for n, piece in enumerate(lines):
                    cont = n < len(lines) - 1 and piece.endswith("\\")
                    if cont:
                        piece = piece[:-1]
                    out.append(" %s " % OPTIONAL if piece.strip() else " ")
                    if n < len(lines) - 1:
                        out.append("\\\n" if cont else "\n")
                continue
        (out if depth == 0 else group).append(c)
    if depth:
        raise ValueError("a `[` without its `]` in the block")
    return "".join(out)


def unended(block, first):
    r"""Where the block's text says one command but a shell reads more:
    (line, next line with anything on it) for each line, numbered from
    first, that does not end in `\` (a blank after it counts: it is
    then an escaped blank, no continuation) while a later one goes on."""
    lines = block.split("\n")
    found = []
    for i, line in enumerate(lines):
        later = [j for j in range(i + 1, len(lines)) if lines[j].strip()]
        if later and not line.endswith("\\"):
            found.append((first + i, first + later[0]))
    return found


def recipe(path, tmp):
    """doc/nat.md's command as a shell runs it: (program, EAL words,
    application words). The sh block, its optional groups taken out
    (optional_out()), is given to bash on its standard input, as if
    pasted, with nothing on its PATH but a recorder named PROGRAM that
    writes its arguments; the block is preceded by blank lines so that
    bash's line numbers are the file's."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"^## Using it\n(.*?)^## ", text, re.S | re.M)
    if not m:
        raise ValueError("%s: no section \"Using it\"" % path)
    block = re.search(r"^```sh\n(.*?)^```", m.group(1), re.S | re.M)
    if not block:
        raise ValueError("%s: no sh block under \"Using it\"" % path)
    first = text.count("\n", 0, m.start(1) + block.start(1)) + 1
    body = block.group(1)
    script = "\n" * (first - 1) + optional_out(body)

    bindir = os.path.join(tmp, "recipe-bin")
    os.makedirs(bindir, exist_ok=True)
    argv_file = os.path.join(tmp, "recipe-argv")
    recorder = os.path.join(bindir, PROGRAM)
    with open(recorder, "w") as f:
        f.write("#!%s\nimport json, sys\nwith open(%r, 'a') as f:\n"
                "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n" % (sys.executable, argv_file))
    os.chmod(recorder, 0o755)
    bash = shutil.which("bash")
    if bash is None:
        raise ValueError("no bash on the PATH to run the recipe")
    r = subprocess.run([bash, "--norc", "--noprofile", "-s"], input=script, text=True,
                       capture_output=True, cwd=tmp, timeout=30,
                       env={"PATH": bindir, "LC_ALL": "C"})
    runs = []
    if os.path.exists(argv_file):
        with open(argv_file) as f:
            runs = [json.loads(line) for line in f]
    if r.returncode != 0 or r.stderr or len(runs) != 1:
        what = []
        for i, j in unended(body, first):
            what.append("more than one command: line %d does not end in `\\` where the "
                        "command goes on (line %d)" % (i, j))
        if r.returncode != 0 or r.stderr:
            what.append("bash exit %d: %s" % (r.returncode, r.stderr.strip() or "no message"))
        if len(runs) != 1:
            what.append("%s ran %d times, not once" % (PROGRAM, len(runs)))
        raise ValueError("its sh block of \"Using it\" run by bash: %s" % "; ".join(what))
    args = runs[0]
    words = [PROGRAM] + [w for w in args if w != OPTIONAL]
    line = " ".join(shlex.quote(w) for w in words)
    if "--" not in words or any(OPTIONAL in w for w in words):
        raise ValueError("the recipe is not `%s EAL -- OPTIONS`: %s" % (PROGRAM, line))
    i = words.index("--")
    eal, app = words[1:i], words[i + 1:]
    if eal.count("...") != 1 or any(w == "..." or "[" in w or "]" in w for w in app):
        raise ValueError("the recipe has placeholders the test cannot fill: %s" % line)
    return words[0], eal, app


def lcore_list(text):
    """EAL's -l list (0-2, 0,2, ...) as numbers."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def substitute_eal(eal, devices):
    """The recipe's EAL words with `...` replaced by the tests' options and
    devices, and -l mapped onto the CPUs there are if it names others."""
    import e2e_flowexp as E
    out = []
    it = iter(eal)
    cpus = sorted(os.sched_getaffinity(0))
    for w in it:
        if w == "...":
            opts = list(E.EAL)
            opts[opts.index("-m") + 1] = str(MEM_MB)
            out += opts + devices
        elif w == "-l":
            text = next(it)
            lcores = lcore_list(text)
            if set(lcores) <= set(cpus):
                out += ["-l", text]
            else:
                out += ["--lcores", ",".join("%d@%d" % (lc, cpus[k % len(cpus)])
                                             for k, lc in enumerate(lcores))]
        else:
            out.append(w)
    return out


def workers(app):
    """The lcores of the recipe's --config: one tx queue each on every port."""
    cfg = app[app.index("--config") + 1]
    return sorted({int(t.split(",")[2]) for t in re.findall(r"\(([^)]*)\)", cfg)})


class Topology(NS.Topology):
    """e2e_netns.py's namespaces, addressed as the recipe's world."""

    def __init__(self):
        super().__init__("fxrec", ("fxrp0", "fxri", "fxrp1", "fxro"))

    def build(self):
        self.links((None, MAC_IN, None, MAC_ROUTER))
        i, o = self.ns_in, self.ns_out
        sh(*self.nsx(i, "ip", "addr", "add", HOST + "/8", "dev", self.if_in))
        sh(*self.nsx(i, "ip", "route", "add", "default", "via", GW0))
        sh(*self.nsx(o, "ip", "addr", "add", ROUTER + "/24", "dev", self.if_out))
        sh(*self.nsx(o, "ip", "addr", "add", SERVER + "/32", "dev", "lo"))
        # as doc/nat.md says the router may: the pool on-link, found by ARP
        sh(*self.nsx(o, "ip", "route", "add", str(POOL), "dev", self.if_out))


def devices(topo, ntx):
    """A net_pcap device on each middle veth end: one rx queue (incoming
    frames only), ntx tx queues."""
    out = []
    for k, dev in enumerate((topo.if_p0, topo.if_p1)):
        out += ["--vdev", ",".join(["net_pcap%d" % k, "rx_iface_in=" + dev] +
                                   ["tx_iface=" + dev] * ntx)]
    return out


def in_pool(addr):
    """Whether addr (text) is in the recipe world's pool."""
    try:
        return ipaddress.ip_address(addr) in POOL
    except ValueError:
        return False


def run(binary, tmp, topo, nat_md):
    import e2e_flowexp as E
    check = E.check
    try:
        prog, eal, app = recipe(nat_md, tmp)
    except (OSError, ValueError) as e:
        check(False, "the recipe read from %s: %s" % (nat_md, e))
        return
    print("recipe: %s" % " ".join(shlex.quote(w) for w in [prog] + eal + ["--"] + app))
    topo.build()
    eal = substitute_eal(eal, devices(topo, len(workers(app)) + 1))
    ex = E.Example("ip", "nat_recipe", ["netns", "exec", topo.ns_mid, binary] + eal,
                   app + ADDED, tmp)
    st = None
    try:
        slog = topo.serve_page(ex, tmp, TOKEN, ["--serve", SERVER])
        if slog is None:
            return
        topo.get_page("http://%s:%d/index.html" % (SERVER, NS.HTTP_PORT), TOKEN)
        hits = wait_lines(slog, lambda e: "http" in e, HANG)
        check(hits and all(in_pool(h["http"]) for h in hits),
              "the HTTP server saw a client in %s (%s)" % (POOL, hits))
        u = topo.helper(topo.ns_in, ["--udp-client", SERVER])
        check(u.get("echo") == "udp through the nat" and u.get("peer") == [SERVER, NS.UDP_PORT],
              "a UDP datagram is echoed back to the inside host (%s)" % u)
        seen = [e["udp"] for e in NS.json_lines(slog) if "udp" in e]
        check(len(seen) == 1 and in_pool(seen[0][0]),
              "the UDP server saw a source in %s (%s)" % (POOL, seen))

        for ns, addr in ((topo.ns_in, GW0), (topo.ns_out, GW1)):
            p = topo.helper(ns, ["--ping", addr], script=NN.Topology.script)
            check(p.get("ok") and p.get("peer") == addr, "ping %s answered (%s)" % (addr, p))

        macs = NN.port_macs(ex.log)
        nout = NN.neighbours(topo, topo.ns_out)
        for addr in sorted({h["http"] for h in hits if in_pool(h["http"])}) + [GW1]:
            got = nout.get(addr)
            check(got is not None and got[0] == macs.get(1) and got[1] != "PERMANENT",
                  "the router learnt %s at port 1's MAC %s (%s)" % (addr, macs.get(1), got))
        ent = ex.tel("/l3fwd_flowexp/neigh,1")
        # ADDRESS state MAC kind ...
        e = [v.split() for v in ent.get("neighbours", {}).values() if v.startswith(ROUTER + " ")]
        check(e and e[0][1] in ("reachable", "stale", "delay", "probe") and
              e[0][2:4] == [MAC_ROUTER, "next-hop"],
              "the gateway resolved its next hop %s at the router's MAC %s (%s)"
              % (ROUTER, MAC_ROUTER, e))
        for ns in (topo.ns_in, topo.ns_out):
            bad = {k: v for k, v in NS.snmp(topo, ns).items() if v}
            check(not bad, "%s: no IPv4 header or TCP / UDP checksum error (%s)" % (ns, bad))
    finally:
        st = ex.finish(stop=True)
    if st is None:
        return
    n = st["neigh"]
    check(n["arp_requests_sent"] >= 1 and n["arp_replies_rx"] >= 1 and n["neigh_resolved"] >= 1,
          "next hop asked for and resolved by ARP (requests %d, replies %d, resolved %d)"
          % (n["arp_requests_sent"], n["arp_replies_rx"], n["neigh_resolved"]))
    check(n["arp_requests_answered"] >= 2 and n["echo_replies"] >= 2,
          "ARP requests answered (%d), echo replies (%d)"
          % (n["arp_requests_answered"], n["echo_replies"]))
    check(n["hold_dropped"] == 0 and n["hold_failed"] == 0,
          "no held packet lost (%d, %d)" % (n["hold_dropped"], n["hold_failed"]))
    t = st["totals"]
    check(t["nat_created"] >= 2, "mappings made: curl and UDP at least (%d)" % t["nat_created"])
    check(t["nat_out"] > 0 and t["nat_in"] > 0,
          "translated both ways (out %d, in %d)" % (t["nat_out"], t["nat_in"]))
    drops = {k: v for k, v in t.items() if k.startswith("nat_drop_") and v}
    check(not drops, "no packet dropped by classification (%s)" % drops)
    check(t["nat_in_nomatch"] == 0 and t["nat_non_syn"] == 0 and t["nat_no_port"] == 0 and
          t["nat_table_full"] == 0,
          "nothing without a mapping, a SYN, a port or room (%d, %d, %d, %d)"
          % (t["nat_in_nomatch"], t["nat_non_syn"], t["nat_no_port"], t["nat_table_full"]))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    nat_md = os.path.abspath(argv[2] if len(argv) == 3 else NAT_MD)
    return NS.run_main(os.path.abspath(argv[1]), Topology,
                       lambda b, tmp, topo: run(b, tmp, topo, nat_md), "fxrecipe_",
                       probe="net_pcap0,iface=lo")

if __name__ == "__main__":
    sys.exit(main(sys.argv))
