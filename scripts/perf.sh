#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the benchmarks of doc/performance.md and plot them: builds build/
# (release) when needed, runs twheel_perf_autotest and
# twheel_layout_perf_autotest of dpdk-test-twheel pinned to lcores 0-1,
# appends their figures to OUT/perf.csv, keeps their output in OUT/*.txt,
# and draws OUT/perf-<memory>.png with scripts/plot-perf.sh.
#
# Usage: scripts/perf.sh [--no-huge] [--lcores 0-1] [OUT]     (OUT: perf-out)
# Memory: hugepages (-m 1000, i.e. 500 2-MiB pages) when that many are free,
# otherwise --no-huge -m 2048; it never reserves pages itself. The TWHEEL_PERF_*
# variables (see app/test-twheel/twheel_perf.h) pass through, e.g.
# TWHEEL_PERF_QUICK=1 for a smoke run, TWHEEL_PERF_SIZES=16000000 for 16M.
set -euo pipefail
cd "$(dirname "$0")/.."

nohuge=0
lcores=0-1
out=perf-out
while [ $# -gt 0 ]; do
	case $1 in
	--no-huge) nohuge=1; shift ;;
	--lcores) lcores=$2; shift 2 ;;
	-*) echo "usage: $0 [--no-huge] [--lcores LIST] [OUT]" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
mkdir -p "$out"

free_mb=$(awk '/HugePages_Free/ { f = $2 } /Hugepagesize/ { s = $2 }
	END { print int(f * s / 1024) }' /proc/meminfo)
if [ $nohuge -eq 0 ] && [ "$free_mb" -ge 1000 ]; then
	mem=(-m 1000)
	memory=hugepages
else
	[ $nohuge -eq 0 ] && echo "only ${free_mb} MB of free hugepages: using --no-huge"
	mem=(--no-huge -m 2048)
	memory=no-huge
fi

[ -d build ] || meson setup build --buildtype=release >/dev/null
ninja -C build >/dev/null
bin=build/app/test-twheel/dpdk-test-twheel

for t in twheel_perf_autotest twheel_layout_perf_autotest; do
	echo "== $t ($memory, lcores $lcores) -> $out/$t-$memory.txt"
	TWHEEL_PERF_CSV="$out/perf.csv" DPDK_TEST=$t "$bin" "${mem[@]}" \
		--no-pci -l "$lcores" --file-prefix "perf_$$" \
		--log-level=lib.eal:error | tee "$out/$t-$memory.txt" |
		grep -E '^ *(\[|N =|target|random|append|expiry|lazy|longest|memory|re-arm|insert|cancel|expire|[0-9]+ target)' || true
done
scripts/plot-perf.sh -m "$memory" "$out/perf.csv" "$out/perf-$memory.png"
