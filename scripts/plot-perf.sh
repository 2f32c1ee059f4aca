#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Plot cycles per operation against N for rte_timer and twheel, from the CSV
# that twheel_perf_autotest writes with TWHEEL_PERF_CSV=path: one panel per
# phase of the timer_perf workload (append, callbacks, reset, expiry after
# reset), log-log, and a PNG out.
#
# Usage: scripts/plot-perf.sh [-m hugepages|no-huge] perf.csv out.png
# With several runs in the CSV, the last figure of each kind is used.
# Needs gnuplot (Debian: gnuplot-nox); installs it when it is missing.
set -euo pipefail

memory=hugepages
if [ "${1:-}" = "-m" ]; then
	memory=$2
	shift 2
fi
. "$(dirname "$0")/plot-common.sh"
plot_setup "[-m hugepages|no-huge] perf.csv out.png" "$@"

# columns: test,memory,section,library,workload,n,metric,value,unit
phases="append callbacks reset expire_reset"
found=0
for lib in rte_timer twheel; do
	for ph in $phases; do
		awk -F, -v mem="$memory" -v lib="$lib" -v ph="$ph" '
			$2 == mem && $3 == "timer_perf" && $4 == lib &&
			$5 == ph && $7 == "cycles_per_op" { v[$6] = $8 }
			END { for (n in v) print n, v[n] }' "$csv" |
			sort -n > "$tmp/$lib.$ph.dat"
		[ -s "$tmp/$lib.$ph.dat" ] && found=1
	done
done
if [ $found -eq 0 ]; then
	echo "$0: no timer_perf figures for memory=$memory in $csv" >&2
	exit 1
fi

plots=""
for ph in $phases; do
	plots+="set title '${ph//_/ }'
plot '$tmp/rte_timer.$ph.dat' using 1:2 with linespoints lw 2 pt 7 title 'rte\\_timer', \\
     '$tmp/twheel.$ph.dat' using 1:2 with linespoints lw 2 pt 5 title 'twheel'
"
done

gnuplot <<EOF
set terminal pngcairo size 1200,900 font ",11"
set output '$png'
set multiplot layout 2,2 title "DPDK timer-perf workload: cycles per timer (median), $memory"
set logscale xy
set format x "10^{%L}"
set xlabel 'N timers'
set ylabel 'cycles per op'
set grid
set key top left
$plots
unset multiplot
EOF
echo "wrote $png"
