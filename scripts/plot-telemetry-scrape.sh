#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Plot a demo run as Prometheus scraped it (scripts/telemetry-scrape.sh
# writes the CSV: t_s,active,created,expired): flows active (a gauge),
# created and expired (counters) against time, one point per scrape.
#
# Usage: scripts/plot-telemetry-scrape.sh scrape.csv out.png
# Needs gnuplot (Debian: gnuplot-nox); installs it when it is missing.
set -euo pipefail

. "$(dirname "$0")/plot-common.sh"
plot_setup "scrape.csv out.png" "$@"

tail -n +2 "$csv" | tr , ' ' > "$tmp/scrape.dat"
[ -s "$tmp/scrape.dat" ] || { echo "$0: no rows in $csv" >&2; exit 1; }
gnuplot <<EOF
set terminal pngcairo size 900,480 font ',10'
set output '$png'
set title "l3fwd-flowexp demo scraped by Prometheus every second (DPDK's telemetry exporter, endpoint twheel.py)" noenhanced
set xlabel 'seconds since the first scrape'
set ylabel 'flows'
set format y '%.0s%c'
set key top left noenhanced
set grid
set offsets 0, 0, graph 0.3, 0
plot '$tmp/scrape.dat' using 1:3 with linespoints lw 4 pt 7 ps 0.9 lc rgb '#1b9e77' title 'created: dpdk_twheel_flowexp_created_total (a counter)', \
     '$tmp/scrape.dat' using 1:4 with linespoints lw 2 pt 5 ps 0.7 lc rgb '#d95f02' title 'expired: dpdk_twheel_flowexp_expired_total (a counter)', \
     '$tmp/scrape.dat' using 1:2 with linespoints lw 2 dt 2 pt 9 ps 0.7 lc rgb '#7570b3' title 'active: dpdk_twheel_flowexp_active (a gauge)'
EOF
echo "$png"
