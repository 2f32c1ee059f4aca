#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A/B runs of library changes: alternate two or more dpdk-test-twheel
# binaries (built from the same benchmark code, different lib/) over the
# twheel flow workloads of twheel_perf_autotest, one repetition per run,
# and print each figure per binary, one column per round. On a shared VM a
# change is judged by its columns side by side, not by one run.
#
# Usage: [ROUNDS=3] [N=1000000] [SECTION=flow|timer] scripts/perf-ab.sh bin1 bin2 ...
# Rows: "<binary number> <figure> <round 1> <round 2> ...", cycles (us for
# the longest call). SECTION=timer runs the timer_perf workload at N alone
# (TWHEEL_PERF_TIMER_FROM=N, N a power of ten) and prints twheel's append
# on a fresh and on a churned slab and rte_timer's append. Runs at nice -n
# -10 with --no-huge -m 2048, lcores 0-1.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 bin1 [bin2 ...]" >&2; exit 2; }
rounds=${ROUNDS:-3}
n=${N:-1000000}
section=${SECTION:-flow}
run() {
	nice -n -10 env TWHEEL_PERF_TWHEEL_ONLY=1 TWHEEL_PERF_TIMER_FROM="$n" \
		TWHEEL_PERF_SECTIONS="$section" TWHEEL_PERF_SIZES="$n" \
		TWHEEL_PERF_REPS=1 DPDK_TEST=twheel_perf_autotest \
		"$1" --no-huge -m 2048 --no-pci -l 0-1 \
		--file-prefix "perf_ab_$$" --log-level=lib.eal:error 2>&1
}
for r in $(seq "$rounds"); do
	i=0
	for bin in "$@"; do
		i=$((i + 1))
		if [ "$section" = timer ]; then
			# N phase rte_timer (total) twheel (total) ratio
			run "$bin" | awk -v b=$i -v n="$n" '$1 == n && $2 ~ /^append/ {
				printf "%s %-45s %s\n", b, "twheel " $2, $(NF - 3)
				if ($2 == "append")
					printf "%s %-45s %s\n", b, "rte_timer append", $3 }'
			continue
		fi
		run "$bin" |
			awk -v b=$i '/insert, random|re-arm live|bursts of 32 \(twheel|cancel \(rte|storm, per entry|calls that kept|longest call not|revisit of a|owner apply|producer/ {
				printf "%s %-45s %s\n", b, substr($0, 5, 44), $(NF - 1) }'
	done
done | awk '{ key = $1 " " substr($0, 3, 45); vals[key] = vals[key] " " $NF }
	END { for (k in vals) print k, vals[k] }' | sort
