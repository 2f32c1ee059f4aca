#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# A demo run (scripts/demo.sh) as a monitoring system sees it: DPDK 24.11's
# dpdk-telemetry-exporter.py (unpacked from ../shared/dpdk/) with the
# endpoint share/dpdk/telemetry-endpoints/twheel.py serves the example's
# telemetry on a free loopback port, a Prometheus server (Debian's
# prometheus, installed when it is missing) scrapes it every second, and
# once the demo has ended the series are read back with Prometheus's
# query_range, one point a second, into OUT.csv:
#   t_s,active,created,expired
# (flows; with --nat the mappings: live, created, expired). Plot it with
# scripts/plot-telemetry-scrape.sh OUT.csv OUT.png.
#
# Usage: scripts/telemetry-scrape.sh OUT.csv [demo.sh options]
# Every process it starts and its scratch directory go away at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 OUT.csv [demo.sh options]" >&2; exit 2; }
out=$1
shift
nat=0
for a in "$@"; do [ "$a" = --nat ] && nat=1; done

if ! command -v prometheus >/dev/null; then
	echo "installing prometheus"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		prometheus >/dev/null
fi
tarball=$(ls ../shared/dpdk/dpdk-24.11*.tar.xz 2>/dev/null | tail -1)
[ -n "$tarball" ] || { echo "$0: no DPDK 24.11 tarball in ../shared/dpdk" >&2; exit 1; }

tmp=$(mktemp -d)
demo_pid="" xp_pid="" prom_pid=""
cleanup() {
	set +e
	for p in $prom_pid $xp_pid $demo_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
exporter=$(tar -tf "$tarball" | grep '/usertools/dpdk-telemetry-exporter.py$')
tar -xf "$tarball" -C "$tmp" "$exporter"
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
xport=$(free_port)
pport=$(free_port)

# demo.sh names its example's file prefix after its own PID
scripts/demo.sh "$@" &
demo_pid=$!
base=/var/run
[ "$(id -u)" -eq 0 ] || base=${XDG_RUNTIME_DIR:-/tmp}
sock=$base/dpdk/fxdemo_${demo_pid}_ex/dpdk_telemetry.v2
python3 "$tmp/$exporter" -p share/dpdk/telemetry-endpoints -e twheel -s "$sock" \
	-o "prometheus://127.0.0.1:$xport" > "$tmp/exporter.log" 2>&1 &
xp_pid=$!
cat > "$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: twheel
    static_configs:
      - targets: ['127.0.0.1:$xport']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn > "$tmp/prometheus.log" 2>&1 &
prom_pid=$!
t0=$(date +%s)
rc=0
wait "$demo_pid" || rc=$?
demo_pid=""
t1=$(date +%s)
[ "$rc" -eq 0 ] || { echo "$0: demo.sh failed ($rc)" >&2; exit "$rc"; }

if [ "$nat" = 1 ]; then
	live=dpdk_twheel_flowexp_nat_active created=dpdk_twheel_flowexp_nat_created_total
	expired=dpdk_twheel_flowexp_nat_expired_total
else
	live=dpdk_twheel_flowexp_active created=dpdk_twheel_flowexp_created_total
	expired=dpdk_twheel_flowexp_expired_total
fi
python3 - "$pport" "$t0" "$t1" "$out" "$live" "$created" "$expired" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, t0, t1, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cols = {}
for q in sys.argv[5:]:
    url = "http://127.0.0.1:%d/api/v1/query_range?%s" % (port, urllib.parse.urlencode(
        {"query": "sum(%s)" % q, "start": t0, "end": t1, "step": 1}))
    r = json.load(urllib.request.urlopen(url, timeout=10))
    res = r["data"]["result"]
    cols[q] = {int(t): float(v) for t, v in (res[0]["values"] if res else [])}
ts = sorted(set().union(*cols.values()))
if not ts:
    sys.exit("no series scraped")
with open(out, "w") as f:
    f.write("t_s,active,created,expired\n")
    for t in ts:
        f.write("%d,%s\n" % (t - ts[0], ",".join("%.0f" % cols[q].get(t, float("nan"))
                                                   for q in sys.argv[5:])))
print("%s: %d points from %s" % (out, len(ts), ", ".join(sys.argv[5:])))
EOF
