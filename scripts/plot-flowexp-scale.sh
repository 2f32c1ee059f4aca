#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Plot how the example scales with its workers, from the CSV that
# `scripts/flowexp-bench.py --scenarios scale --workers 1,2,4,8 --scale-csv
# PATH` writes: two panels against the number of workers N, one line per
# load (hits, new flows, new NAT mappings edm and eim): the rate per
# worker against one worker's (efficiency; 1 is perfect scaling, and the
# share handed off, (N-1)/N, is what pulls it down), and the extra cycles
# per handed-off packet. Each point is the median of the runs at that N.
#
# Usage: scripts/plot-flowexp-scale.sh scale.csv out.png
# Needs gnuplot (Debian: gnuplot-nox); installs it when it is missing.
set -euo pipefail

. "$(dirname "$0")/plot-common.sh"
plot_setup "scale.csv out.png" "$@"

# one file per load: N, median efficiency, median extra cycles per handed-off
# packet; columns found by name in the header
loads=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["load"] }' "$csv" | sort -u)
if [ -z "$loads" ]; then
	echo "$0: no rows in $csv" >&2
	exit 1
fi
median() {   # values on stdin, one a line
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for l in $loads; do
	: > "$tmp/$l.dat"
	for n in $(awk -F, -v load="$l" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["load"] == load { print $c["workers"] }' "$csv" | sort -n -u); do
		col() {
			awk -F, -v load="$l" -v n="$n" -v k="$1" '
				NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["load"] == load && $c["workers"] == n && $c[k] != "nan" { print $c[k] }' \
				"$csv" | median
		}
		echo "$n $(col efficiency) $(col extra_cycles_per_ho)" >> "$tmp/$l.dat"
	done
done

plots() {   # column
	local sep="" p="plot " l
	for l in $loads; do
		p+="$sep'$tmp/$l.dat' using 1:$1 with linespoints lw 2 pt 7 title '$l' noenhanced"
		sep=", "
	done
	echo "$p"
}

gnuplot <<GP
set terminal pngcairo size 900,900 font 'sans,10'
set output '$png'
set multiplot layout 2,1 title "l3fwd-flowexp on N workers, --affinity handoff (each worker its own CPU and rx queue)"
set grid
set key outside right
set xlabel 'workers'
set logscale x 2
set xrange [1:*]
set ylabel 'rate per worker / one worker'
set yrange [0:1.2]
$(plots 2)
set ylabel 'extra cycles per handed-off packet'
set autoscale y
set yrange [0:*]
$(plots 3)
unset multiplot
GP
echo "wrote $png"
