#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Plot the cost of flow expiry per new flow against the one-way timeout,
# one line per back-end, from the CSV that
# `scripts/flowexp-bench.py --scenarios rate --rate-csv PATH` appends to:
# three panels, log x (timeout; the offered rate is live flows / timeout):
# cycles of the expiry polls per new flow, cycles of the "flow" stage per
# new flow (arming a timer or a wheel entry on the packet path), and all
# the worker's work per new flow in ns. Each point is labelled on the
# first panel with the flows live during its window (millions).
#
# Usage: scripts/plot-flowexp-rate.sh rate.csv out.png
# With several runs of one back-end and timeout, the last one is used.
# Needs gnuplot (Debian: gnuplot-nox); installs it when it is missing.
set -euo pipefail

. "$(dirname "$0")/plot-common.sh"
plot_setup "rate.csv out.png" "$@"

# one file per mode: timeout, expiry cycles, flow-stage cycles, work ns,
# live (M), fell behind; columns found by name in the header
modes=$(awk -F, 'NR == 1 { next } { print $1 }' "$csv" | sort -u)
if [ -z "$modes" ]; then
	echo "$0: no rows in $csv" >&2
	exit 1
fi
for m in $modes; do
	awk -F, -v mode="$m" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["mode"] == mode {
			v[$c["timeout_s"]] = $c["timeout_s"] " " $c["expiry_cyc_per_new"] " " \
				$c["flow_stage_cyc_per_new"] " " $c["work_ns_per_new"] " " \
				sprintf("%.1f", $c["live"] / 1e6) " " $c["fell_behind"]
		}
		END { for (t in v) print v[t] }' "$csv" | sort -g > "$tmp/$m.dat"
done

style() {
	case $1 in
	twheel) echo "lw 2 pt 7 lc rgb '#1b9e77'" ;;
	rte_timer) echo "lw 2 pt 5 lc rgb '#d95f02'" ;;
	scan) echo "lw 2 pt 9 lc rgb '#7570b3'" ;;
	scan_paced) echo "lw 2 pt 11 lc rgb '#e7298a' dt 2" ;;
	*) echo "lw 2 pt 13" ;;
	esac
}

panel() {   # column, with labels (0/1)
	local col=$1 labels=$2 sep="" p="plot " m
	for m in $modes; do
		p+="$sep'$tmp/$m.dat' using 1:$col with linespoints $(style "$m") title '$m' noenhanced"
		sep=", "
		if [ "$labels" = 1 ]; then
			p+=", '$tmp/$m.dat' using 1:$col:(sprintf('%sM', stringcolumn(5)))"
			p+=" with labels offset 0,0.9 font ',8' notitle"
		fi
	done
	echo "$p"
}

gnuplot <<EOF
set terminal pngcairo size 900,1200 font 'sans,10'
set output '$png'
set multiplot layout 3,1 title "l3fwd-flowexp: cost per new flow, every packet a new flow, about 10M live flows per lcore\n(offered rate = live / timeout; labels: live flows during the window)"
set logscale x
set logscale y
set grid
set key outside right
set xlabel 'one-way timeout (s)'
set xtics (1, 3, 10, 30, 100, 300)
set xrange [2:450]
set ylabel 'expiry-poll cycles / new flow'
$(panel 2 1)
set ylabel 'flow-stage cycles / new flow'
$(panel 3 0)
set ylabel 'worker ns / new flow (all work)'
$(panel 4 0)
unset multiplot
EOF
echo "wrote $png"
