# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""twheel endpoint for DPDK's telemetry exporter (dpdk-telemetry-exporter.py,
DPDK 24.07 and later).

The exporter loads every file of its endpoint directories (by default
/usr/local/share/dpdk/telemetry-endpoints and /usr/share/dpdk/...,
where `meson install` puts this one) and calls info(), then metrics(sock)
on each scrape; it names each metric dpdk_<file name>_<name>, so these are
dpdk_twheel_*:

  wheel_*     every twheel of the process (/twheel/list, /twheel/stats,NAME),
              label wheel (its name), and lcore for l3fwd-flowexp's wheels;
              any program built with libtwheel
  flowexp_*   dpdk-l3fwd-flowexp's workers (/l3fwd_flowexp/lcore,N and
              /l3fwd_flowexp/maxima,N), label lcore; with masquerade the
              flowexp_nat_* of /l3fwd_flowexp/lcore,N too; the expiries by
              timeout class with a label class as well
  flowexp_port_*  its ports (/l3fwd_flowexp/port,N), label port

Counters are exported as counters, their names ending in _total; gauges
(flows active, mappings live and held, port units, the maxima since the
last reset) as gauges. Times in cycles become seconds (_seconds_total)
with the example's tsc_hz, which is exported too. A counter the example
adds to its lists shows here without a change: a number this file does not
know is exported as a counter; info() returns the dictionary metrics()
adds such names to, which the exporter reads after metrics() on each
scrape.
"""

import re

# the example's gauges; every other number of a worker is a counter
GAUGES = {
    "active": "Flows in the table now.",
    "nat_active": "NAT mappings live now.",
    "nat_held": "NAT mappings in their hold-down now.",
    "nat_ports_share": "NAT port units of the worker's share.",
    "nat_ports_free": "NAT port units free now.",
    "nat_ports_held": "NAT port units held (hold-down) now.",
}
# the example's counters with a description; others get a generic one
COUNTERS = {
    "created": "Flows created.",
    "refreshed": "Packets that refreshed a flow.",
    "expired": "Flows removed at their deadline.",
    "invalidated": "Flows removed by the control path (flush, route change).",
    "drained": "Flows removed at exit.",
    "table_full": "Packets that found the flow table full.",
    "evicted": "Flows evicted for a new one (--table-full evict).",
    "stalls": "Loop iterations longer than 100 us.",
    "loops": "Loop iterations.",
    "nat_created": "NAT mappings created.",
    "nat_expired": "NAT mappings expired (into the hold-down).",
    "nat_released": "NAT mappings released after the hold-down.",
    "nat_flushed": "NAT mappings ended by the control path.",
    "nat_out": "Packets translated outbound.",
    "nat_in": "Packets translated inbound.",
}
# per-worker names that are not metrics of their own
SKIP = {"lcore", "worker", "uptime_ms", "tsc_hz"}
# the expiries by timeout class: one metric with a label class
CLASS_RE = re.compile(r"^(nat_)?(expired|active)_([a-z_]+)$")
# the wheels' gauges (/twheel/stats); the rest are counters
WHEEL_GAUGES = {
    "live": "Entries in the wheel now.",
    "capacity": "Entries the wheel can hold.",
    "slots": "Slots of the wheel's buckets.",
    "memory_bytes": "Memory the wheel holds, in bytes.",
    "remote_lanes": "Remote lanes: one per EAL lcore when the wheel was made.",
    "tick_cycles": "The wheel's tick, in its time unit (TSC cycles in l3fwd-flowexp).",
    "max_lag_cycles": "Largest now - deadline of a Due record, in the wheel's time unit.",
}
WHEEL_SKIP = {"name", "socket_id"}
PORT_SKIP = {"port"}

# name -> (description, type); metrics() adds what it finds
INFO = {"flowexp_tsc_hz": ("The TSC frequency of l3fwd-flowexp's time figures.", "gauge")}


def _counter_name(name):
    if name.endswith("_cycles"):
        return name[:-len("_cycles")] + "_seconds_total"
    return name + "_total"


def _add(out, name, kind, desc, value, labels):
    if name not in INFO:
        INFO[name] = (desc, kind)
    out.append((name, value, labels))


def _worker(out, lcore, reply, hz):
    labels = {"lcore": lcore}
    for key, v in reply.items():
        if key in SKIP or not isinstance(v, int):
            continue
        m = CLASS_RE.match(key)
        if m:
            nat, what, cls = m.groups()
            nat = nat or ""
            if what == "active":
                _add(out, "flowexp_%sactive_class" % nat, "gauge",
                     "Flows in the table now, by timeout class.", v,
                     dict(labels, **{"class": cls}))
            else:
                _add(out, "flowexp_%sexpired_class_total" % nat, "counter",
                     "%s by timeout class." % ("NAT mappings expired" if nat else "Flows expired"),
                     v, dict(labels, **{"class": cls}))
            continue
        if key in GAUGES:
            _add(out, "flowexp_" + key, "gauge", GAUGES[key], v, labels)
        elif key == "since_reset_us":
            _add(out, "flowexp_since_reset_seconds", "gauge",
                 "Seconds since the last /l3fwd_flowexp/reset (or the start).", v / 1e6, labels)
        elif key.endswith("_us"):
            # the maxima since the last reset
            _add(out, "flowexp_" + key[:-3] + "_seconds", "gauge",
                 "%s since the last /l3fwd_flowexp/reset, seconds." % key[:-3], v / 1e6, labels)
        elif key.endswith("_max"):
            _add(out, "flowexp_" + key, "gauge",
                 "%s since the last /l3fwd_flowexp/reset." % key, v, labels)
        elif key.endswith("_cycles"):
            if hz:
                _add(out, "flowexp_" + _counter_name(key), "counter",
                     "%s, in seconds of the TSC." % key, v / hz, labels)
        else:
            _add(out, "flowexp_" + _counter_name(key), "counter",
                 COUNTERS.get(key, "l3fwd-flowexp counter %s." % key), v, labels)


def _flowexp(sock, out):
    """The example's metrics; returns its wheels' lcores by wheel name."""
    owners = {}
    lcores = sock.cmd("/l3fwd_flowexp/lcores")
    if not isinstance(lcores, list):
        return owners   # not l3fwd-flowexp
    hz = 0
    for lcore in lcores:
        r = sock.cmd("/l3fwd_flowexp/lcore", lcore)
        if not isinstance(r, dict) or "error" in r:
            continue
        hz = r.get("tsc_hz", hz)
        for key in ("wheel", "nat_wheel"):
            if key in r:
                owners[r[key]] = lcore
        _worker(out, lcore, r, hz)
        m = sock.cmd("/l3fwd_flowexp/maxima", lcore)
        if isinstance(m, dict) and "error" not in m:
            _worker(out, lcore, {k: v for k, v in m.items() if k not in ("resets",)}, hz)
    if hz:
        out.append(("flowexp_tsc_hz", hz, {}))
    for port in sock.cmd("/l3fwd_flowexp/ports") or []:
        r = sock.cmd("/l3fwd_flowexp/port", port)
        if not isinstance(r, dict) or "error" in r:
            continue
        for key, v in r.items():
            if key not in PORT_SKIP and isinstance(v, int):
                _add(out, "flowexp_port_%s_total" % key, "counter",
                     "Packets %s on the port (l3fwd-flowexp)." % key, v, {"port": port})
    return owners


def _wheels(sock, out, owners):
    for name in sock.cmd("/twheel/list") or []:
        r = sock.cmd("/twheel/stats", name)
        if not isinstance(r, dict):
            continue
        labels = {"wheel": name}
        if name in owners:
            labels["lcore"] = owners[name]
        for key, v in r.items():
            if key in WHEEL_SKIP or not isinstance(v, int):
                continue
            if key in WHEEL_GAUGES:
                _add(out, "wheel_" + key, "gauge", WHEEL_GAUGES[key], v, labels)
            else:
                _add(out, "wheel_%s_total" % key, "counter",
                     "twheel counter %s (twheel_stats)." % key, v, labels)


def info():
    return INFO


def metrics(sock):
    out = []
    owners = _flowexp(sock, out)
    _wheels(sock, out, owners)
    return out
