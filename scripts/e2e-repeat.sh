#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# The e2e suite N times in a row on a loaded machine: the proof that no
# scenario depends on wall-clock timing (doc/reliability.md, "Flake-proof
# e2e suite").
#
# Usage: scripts/e2e-repeat.sh [-n RUNS] [-C BUILD] [--load stress|build|none]
#                              [--log DIR]
#   -n      how many runs (default 20)
#   -C      the build directory (default build; set up and built if missing)
#   --load  what runs beside the suite: stress (default: stress-ng --cpu 2,
#           installed with apt-get if missing; a build if that fails), build
#           (a loop of clean builds of twheel in DIR/load-build, ninja -j2),
#           or none
#   --log   where each run's meson log goes (default /tmp/e2e-repeat.PID)
#
# Each run is `meson test -C BUILD --suite e2e --no-rebuild`. After each
# run the script checks that the tests left no EAL runtime directory
# (/var/run/dpdk/PREFIX) and no hugepage file behind: the tests name every
# DPDK process's --file-prefix after FXE2E_TAG (set here, unique to this
# invocation) and remove its runtime directory. The summary counts the
# failures per test; the last line is "e2e-repeat: N runs, N failed, ...".
# The exit status is non-zero if any run failed or left anything behind.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
runs=20
build=build
load=stress
logdir=/tmp/e2e-repeat.$$
while [ $# -gt 0 ]; do
	case "$1" in
	-n|-C|--load|--log)
		[ $# -ge 2 ] || { echo "e2e-repeat: $1 needs a value" >&2; exit 2; } ;;
	esac
	case "$1" in
	-n) runs=$2; shift 2 ;;
	-C) build=$2; shift 2 ;;
	--load) load=$2; shift 2 ;;
	--log) logdir=$2; shift 2 ;;
	-h|--help) sed -n '5,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "e2e-repeat: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$runs" in ''|*[!0-9]*) echo "e2e-repeat: -n wants a number" >&2; exit 2 ;; esac
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)

if [ ! -d "$build" ]; then
	meson setup "$build" --buildtype=release --werror >/dev/null || exit 1
fi
ninja -C "$build" >/dev/null || { ninja -C "$build" | tail -20; exit 1; }

load_pid=""
load_desc="none"
stop_load() {
	if [ -n "$load_pid" ]; then
		kill -- -"$load_pid" 2>/dev/null || kill "$load_pid" 2>/dev/null
		wait "$load_pid" 2>/dev/null
		load_pid=""
	fi
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM
start_build_load() {
	local dir=$logdir/load-build
	[ -d "$dir" ] || meson setup "$dir" --buildtype=release >/dev/null || return 1
	# its own process group, so that stop_load ends the compilers too
	# shellcheck disable=SC2016
	setsid bash -c 'while :; do ninja -C "$1" -t clean >/dev/null; ninja -C "$1" -j2 >/dev/null; done' \
		_ "$dir" &
	load_pid=$!
	load_desc="a loop of clean builds (ninja -j2)"
}
case "$load" in
stress)
	if ! command -v stress-ng >/dev/null; then
		scripts/deps.sh stress-ng >/dev/null 2>&1 || true
	fi
	if command -v stress-ng >/dev/null; then
		setsid stress-ng --cpu 2 --timeout 0 >/dev/null 2>&1 &
		load_pid=$!
		load_desc="stress-ng --cpu 2"
	else
		echo "e2e-repeat: no stress-ng: a build as the load instead"
		start_build_load || { echo "e2e-repeat: cannot start the load" >&2; exit 1; }
	fi ;;
build) start_build_load || { echo "e2e-repeat: cannot start the load" >&2; exit 1; } ;;
none) ;;
*) echo "e2e-repeat: --load is stress, build or none" >&2; exit 2 ;;
esac

export FXE2E_TAG=rep$$
leftovers() { # what this invocation's tests left behind
	ls -d /var/run/dpdk/*"$FXE2E_TAG"* /dev/hugepages/*"$FXE2E_TAG"* 2>/dev/null
}
declare -A fails=()
failed_runs=0
left_runs=0
tests=0
t0=$SECONDS
echo "e2e-repeat: $runs runs of the e2e suite ($build), load: $load_desc, logs: $logdir"
for i in $(seq 1 "$runs"); do
	t1=$SECONDS
	meson test -C "$build" --suite e2e --no-rebuild --print-errorlogs \
		--logbase "e2e-repeat-$i" > "$logdir/run-$i.log" 2>&1
	rc=$?
	json=$build/meson-logs/e2e-repeat-$i.json
	cp "$json" "$logdir/" 2>/dev/null
	bad=$(python3 - "$json" <<'EOF'
import json, sys
n = 0
bad = []
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        n += 1
        if r["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
            bad.append(r["name"])
except OSError:
    bad.append("(no test log)")
print(n, " ".join(bad))
EOF
)
	n=${bad%% *}
	bad=${bad#* }
	[ "$bad" = "$n" ] && bad=""
	tests=$n
	if [ "$rc" -ne 0 ] && [ -z "$bad" ]; then
		bad="(meson-exit-$rc)"
	fi
	left=$(leftovers)
	status=ok
	if [ -n "$bad" ]; then
		failed_runs=$((failed_runs + 1))
		status="FAILED: $bad"
		for t in $bad; do fails[$t]=$(( ${fails[$t]:-0} + 1 )); done
	fi
	if [ -n "$left" ]; then
		left_runs=$((left_runs + 1))
		status="$status; left behind: $(printf '%s ' $left)"
	fi
	echo "run $i/$runs: $n tests, $((SECONDS - t1)) s, $status"
done
stop_load
total=$((SECONDS - t0))
if [ ${#fails[@]} -gt 0 ]; then
	echo "failures per test:"
	for t in "${!fails[@]}"; do echo "  $t: ${fails[$t]} of $runs runs"; done | sort
fi
echo "e2e-repeat: $runs runs, $failed_runs failed, $left_runs left files behind;" \
	"$tests tests a run; $total s; load: $load_desc"
[ "$failed_runs" -eq 0 ] && [ "$left_runs" -eq 0 ]
