#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# The main job: watch dpdk-l3fwd-flowexp track and expire a million flows.
#
# Installs what is missing (scripts/deps.sh), builds build/ (release),
# finds memory (free 2 MiB hugepages; as root on a machine with none it
# mounts hugetlbfs and reserves them, and gives both back at the end;
# otherwise --no-huge), then
# runs the example as a memif server and dpdk-testpmd --forward-mode=flowgen
# as the memif client sending --flows distinct UDP flows. The example prints
# its statistics table every second. Once every flow has been seen and at
# least --traffic seconds passed, testpmd stops forwarding (it stays
# connected), the flows expire after --timeout seconds, the example stops
# by itself (--exit-when-drained) and the script prints the summary. Exit
# status 0 when every flow that was created also expired; on any failure it
# says which step failed and where that step's log is, and exits non-zero.
#
# CPUs: the example's worker lcore has CPU 0 to itself; its main lcore
# (statistics, control path, mostly asleep) shares CPU 1 with testpmd's
# main and forwarding lcores. That is the smallest layout (2 CPUs) and the
# generator competes only with the example's main lcore.
set -euo pipefail
cd "$(dirname "$0")/.."
# everything this script starts (testpmd, the telemetry polls, this shell)
# stays on CPU 1; EAL moves the example's worker lcore to CPU 0, so nothing
# else is scheduled beside it (DPDK puts a process's control threads with
# its lcores when all of its CPUs are taken)
taskset -pc 1 $$ >/dev/null 2>&1 || true

flows=1000000
rate=0
timeout=5
traffic=10
expiry=twheel
force_nohuge=0
nat=0
max_traffic=300

usage() {
	cat <<EOF
usage: scripts/demo.sh [--flows N] [--rate PPS] [--timeout SECONDS]
                       [--traffic SECONDS] [--expiry twheel|rte_timer|scan]
                       [--no-huge] [--nat]
  --flows N        distinct flows testpmd's flowgen cycles through (default $flows)
  --rate PPS       packets per second to aim at (default 0: as fast as it
                   goes); testpmd has no rate limit on virtual devices, so
                   tools/pace.py stops and continues it (SIGSTOP/SIGCONT)
                   within 50 ms periods, adjusted from the example's rx rate
  --timeout S      one-way flow timeout of the example (default $timeout)
  --traffic S      send traffic at least this long (default $traffic), and
                   until every flow was seen (at most $max_traffic s)
  --expiry MODE    the example's expiry back-end (default $expiry)
  --no-huge        do not use hugepages
  --nat            masquerade: the example translates flowgen's source
                   (10.254.0.0/16 inside) to the pool 203.0.113.0/28, one
                   mapping per flow on the wheel; the summary counts the
                   mappings made, expired, released, active and held and the
                   NAT expiry poll's figures, and checks every public port
                   came back
EOF
}

# the step under way and its log, named if the script fails
step="arguments"
step_log=""
die() { echo "demo: $*" >&2; exit 1; }
on_exit() {
	local rc=$?
	cleanup
	if [ "$rc" -ne 0 ]; then
		echo "demo: FAILED at step '$step' (exit status $rc)${step_log:+; log: $step_log}" >&2
	elif [ -n "${logdir:-}" ]; then
		rm -rf "$logdir"
	fi
	exit "$rc"
}
cleanup() { :; }
trap on_exit EXIT
trap 'exit 130' INT TERM
# a write to a program that died must fail with a message, not kill the
# script silently
trap '' PIPE
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

while [ $# -gt 0 ]; do
	case "$1" in
	--flows|--rate|--timeout|--traffic|--expiry)
		[ $# -ge 2 ] || { usage >&2; die "$1 needs a value"; } ;;
	esac
	case "$1" in
	--flows) flows=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--traffic) traffic=$2; shift 2 ;;
	--expiry) expiry=$2; shift 2 ;;
	--no-huge) force_nohuge=1; shift ;;
	--nat) nat=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument '$1'" ;;
	esac
done
is_uint "$flows" && [ "$flows" -ge 1 ] && [ "$flows" -le 16000000 ] ||
	{ usage >&2; die "--flows must be 1..16000000"; }
is_uint "$rate" || { usage >&2; die "--rate must be a number of packets per second"; }
[[ $timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "$timeout" != 0 ] ||
	{ usage >&2; die "--timeout must be a positive number of seconds"; }
is_uint "$traffic" && [ "$traffic" -ge 1 ] ||
	{ usage >&2; die "--traffic must be a positive number of seconds"; }
case "$expiry" in twheel|rte_timer|scan) ;; *) usage >&2; die "bad --expiry '$expiry'" ;; esac
[ "$(nproc --all)" -ge 2 ] || die "needs at least 2 CPUs"

tag=fxdemo_$$
logdir=/tmp/$tag
mkdir -p "$logdir"

# ---- install and build ----
step="install packages (scripts/deps.sh)"
step_log=$logdir/deps.log
scripts/deps.sh > "$step_log" 2>&1 || { tail -5 "$step_log" >&2; die "could not install the packages"; }
for prog in meson ninja python3 dpdk-testpmd; do
	command -v "$prog" >/dev/null || die "$prog is not installed (scripts/deps.sh should have installed it)"
done
step="build (meson, ninja)"
step_log=$logdir/build.log
{
	if [ -d build ]; then
		meson setup --reconfigure build
	else
		meson setup build --buildtype=release
	fi && ninja -C build
} > "$step_log" 2>&1 || { tail -20 "$step_log" >&2; die "build failed"; }
app=build/examples/l3fwd-flowexp/dpdk-l3fwd-flowexp
tel=examples/l3fwd-flowexp/tools/fxtel.py
pace=examples/l3fwd-flowexp/tools/pace.py
[ -x "$app" ] || die "$app was not built (meson -Dexamples=true)"
step_log=""

# ---- memory ----
# the flow table per flow: slab 64 B, rte_hash ~90 B, wheel 54 B (rte_timer
# 120 B instead); plus the route tables (~130 MiB) and the mbufs
max_flows=$(( flows + flows / 4 ))
[ "$max_flows" -lt 65536 ] && max_flows=65536
[ "$max_flows" -gt 16777216 ] && max_flows=16777216
per_flow=210
[ "$expiry" = rte_timer ] && per_flow=330
# a NAT mapping: record, its share of the index, wheel entry, its
# remote-endpoint count (doc/nat.md)
[ "$nat" = 1 ] && per_flow=$(( per_flow + 260 ))
nat_args=()
created_key=totals.created
if [ "$nat" = 1 ]; then
	# flowgen sends every flow from one address: no per-host limit; the
	# demo waits for every hold-down: 10 s, not the default 120 s
	nat_args=(--nat-pool 203.0.113.0/28 --nat-inside 10.254.0.0/16 --nat-max-per-host 0
		--nat-holddown 10)
	created_key=totals.nat_created
fi
ex_mb=$(( 256 + max_flows * per_flow / 1048576 ))
tp_mb=192
need_pages=$(( (ex_mb + tp_mb) / 2 + 16 ))
step="memory (hugepages)"
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
hugedir=/dev/hugepages
reserved=""
mounted=""
mem_mode=nohuge
# root on a machine without hugetlbfs mounted (a fresh one): mount it
if [ "$force_nohuge" = 0 ] && [ -d "$hp" ] && [ "$(id -u)" -eq 0 ] &&
   ! grep -qs hugetlbfs /proc/mounts; then
	if mkdir -p "$hugedir" && mount -t hugetlbfs -o pagesize=2M nodev "$hugedir" 2>/dev/null; then
		mounted=$hugedir
		echo ">>> memory: mounted hugetlbfs on $hugedir for this run"
	fi
fi
if [ "$force_nohuge" = 0 ] && [ -d "$hp" ] && grep -qs hugetlbfs /proc/mounts; then
	free_pages=$(cat "$hp/free_hugepages")
	total_pages=$(cat "$hp/nr_hugepages")
	if [ "$free_pages" -ge "$need_pages" ]; then
		mem_mode=huge
	elif [ "$total_pages" -eq 0 ] && [ -w "$hp/nr_hugepages" ]; then
		# nothing reserved on this machine: reserve for the demo, give back later
		echo "$need_pages" > "$hp/nr_hugepages" 2>/dev/null || true
		if [ "$(cat "$hp/free_hugepages")" -ge "$need_pages" ]; then
			mem_mode=huge
			reserved=yes
		else
			echo 0 > "$hp/nr_hugepages" 2>/dev/null || true
		fi
	fi
fi
if [ "$mem_mode" = huge ]; then
	ex_mem=(-m "$ex_mb" --huge-unlink)
	tp_mem=(-m "$tp_mb" --huge-unlink)
	echo ">>> memory: $need_pages hugepages of 2 MiB${reserved:+ (reserved for this run)}"
else
	ex_mem=(--no-huge -m "$ex_mb")
	tp_mem=(--no-huge -m "$tp_mb")
	echo ">>> memory: no hugepages (--no-huge); expect lower rates"
fi

# ---- run ----
sock=$logdir/memif.sock
fifo=$logdir/testpmd.fifo
stats=$logdir/stats.json
exlog=$logdir/example.log
tplog=$logdir/testpmd.log
ex_pid=""
tp_pid=""
pace_pid=""

cleanup() {
	set +e
	[ -n "$pace_pid" ] && kill "$pace_pid" 2>/dev/null && wait "$pace_pid" 2>/dev/null
	[ -n "$tp_pid" ] && kill -CONT "$tp_pid" 2>/dev/null
	exec 3>&-
	[ -n "$ex_pid" ] && kill "$ex_pid" 2>/dev/null && wait "$ex_pid" 2>/dev/null
	[ -n "$tp_pid" ] && kill "$tp_pid" 2>/dev/null && wait "$tp_pid" 2>/dev/null
	rm -f "$sock" "$fifo" "$stats" "$stats.tmp"
	# EAL's runtime directories (root's, or the user's); with --huge-unlink
	# no hugepage file was left in hugetlbfs
	local run
	run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
	rm -rf "$run/${tag}_ex" "$run/${tag}_tp"
	[ -n "$reserved" ] && echo 0 > "$hp/nr_hugepages"
	[ -n "$mounted" ] && umount "$mounted"
}

# send one testpmd command; fails with a message if testpmd is gone
testpmd_cmd() {
	kill -0 "$tp_pid" 2>/dev/null || die "dpdk-testpmd is not running (see $tplog)"
	echo "$1" >&3 2>/dev/null || die "dpdk-testpmd does not read its commands (see $tplog)"
}

step="start the example"
step_log=$exlog
echo ">>> example: $expiry expiry, $max_flows flows per lcore, one-way timeout $timeout s${nat_args:+, masquerade to 203.0.113.0/28} (log: $exlog)"
"$app" "${ex_mem[@]}" --no-pci --lcores 0@1,1@0 --file-prefix "${tag}_ex" \
	--log-level=lib.eal:error \
	--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" -- \
	-p 1 --parse-ptype --relax-rx-offload -T 1 --expiry "$expiry" \
	--max-flows "$max_flows" --timeout-oneway "$timeout" "${nat_args[@]}" \
	--exit-when-drained --stats-file "$stats" > >(tee "$exlog") 2>&1 &
ex_pid=$!
for _ in $(seq 100); do
	[ -S "$sock" ] && python3 "$tel" "${tag}_ex" /l3fwd_flowexp/stats >/dev/null 2>&1 && break
	kill -0 "$ex_pid" 2>/dev/null || die "the example exited during start-up"
	sleep 0.2
done
[ -S "$sock" ] || die "the example did not create $sock"

step="start dpdk-testpmd"
step_log=$tplog
echo ">>> traffic: dpdk-testpmd flowgen, $flows flows, $([ "$rate" -gt 0 ] && echo "about $rate packets/s" || echo "as fast as it goes") (log: $tplog)"
rm -f "$fifo"
mkfifo "$fifo"
# read-write: opening never blocks, and a write never raises SIGPIPE even
# if testpmd dies (testpmd_cmd checks that it is alive)
exec 3<>"$fifo"
taskset -c 1 dpdk-testpmd "${tp_mem[@]}" --no-pci --lcores '0@1,1@1' --file-prefix "${tag}_tp" \
	--log-level=lib.eal:error \
	--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no" -- \
	-i --forward-mode=flowgen --flowgen-flows="$flows" --txpkts=64 \
	--total-num-mbufs=8192 < "$fifo" > "$tplog" 2>&1 &
tp_pid=$!
for _ in $(seq 100); do
	grep -qs "Press enter to exit\|testpmd>" "$tplog" && break
	kill -0 "$tp_pid" 2>/dev/null || die "dpdk-testpmd exited during start-up"
	sleep 0.1
done
testpmd_cmd "start"
step="traffic"
step_log=$tplog

if [ "$rate" -gt 0 ]; then
	python3 "$pace" "$tp_pid" "${tag}_ex" "$rate" &
	pace_pid=$!
fi
t0=$SECONDS
while :; do
	sleep 1
	kill -0 "$tp_pid" 2>/dev/null || die "dpdk-testpmd exited during traffic"
	kill -0 "$ex_pid" 2>/dev/null || die "the example exited during traffic (see $exlog)"
	elapsed=$(( SECONDS - t0 ))
	created=$(python3 "$tel" "${tag}_ex" /l3fwd_flowexp/stats "$created_key" 2>/dev/null || echo 0)
	if [ "$elapsed" -ge "$traffic" ] && [ "$created" -ge "$flows" ]; then
		break
	fi
	if [ "$elapsed" -ge "$max_traffic" ]; then
		echo "demo: only $created of $flows flows seen after $max_traffic s; stopping the traffic" >&2
		break
	fi
done
if [ -n "$pace_pid" ]; then
	kill "$pace_pid" 2>/dev/null
	wait "$pace_pid" 2>/dev/null || true
	pace_pid=""
fi
kill -CONT "$tp_pid"
testpmd_cmd "stop"
echo
echo ">>> traffic stopped after $(( SECONDS - t0 )) s; the flows expire in $timeout s"
echo

step="expiry"
step_log=$exlog
ex_rc=0
wait "$ex_pid" || ex_rc=$?
ex_pid=""
echo "quit" >&3 2>/dev/null
exec 3>&-
wait "$tp_pid" 2>/dev/null || true
tp_pid=""
[ "$ex_rc" -eq 0 ] || die "the example exited with status $ex_rc"
[ -s "$stats" ] || die "the example wrote no statistics to $stats"

step="summary"

python3 - "$stats" "$flows" "$nat" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
t, want = s["totals"], int(sys.argv[2])
if sys.argv[3] == "1":
    lcores = [v for k, v in s.items() if k.startswith("lcore_")]
    free = sum(l["nat_ports_free"] for l in lcores)
    share = sum(l["nat_ports_share"] for l in lcores)
    print("==== demo summary (masquerade, %s) ====" % s["expiry"])
    print("mappings created:     %d (testpmd cycled through %d flows)" % (t["nat_created"], want))
    print("mappings expired:     %d, flushed %d" % (t["nat_expired"], t["nat_flushed"]))
    print("mappings released:    %d (after the hold-down)" % t["nat_released"])
    print("mappings at end:      %d active, %d held" % (t["nat_active"], t["nat_held"]))
    print("packets translated:   %d out, %d in; no port %d, table full %d"
          % (t["nat_out"], t["nat_in"], t["nat_no_port"], t["nat_table_full"]))
    print("public ports back:    %d of %d units free" % (free, share))
    print("NAT expiry poll:      at most %d mappings in one poll; lag max %.1f ms, mean %.1f ms"
          % (t["nat_poll_max"], t["nat_lag_max_us"] / 1e3, t["nat_lag_mean_us"] / 1e3))
    print("per worker:           %s" % "; ".join(
        "lcore %s created %d expired %d released %d" % (k[6:], l["nat_created"], l["nat_expired"],
                                                       l["nat_released"])
        for k, l in sorted(s.items()) if k.startswith("lcore_")))
    print("longest sweep:        %d us" % t["sweep_max_us"])
    print("longest loop:         %d us (%d iterations over 100 us)" % (t["loop_max_us"], t["stalls"]))
    ok = (t["nat_created"] >= want and t["nat_expired"] == t["nat_created"] and
          t["nat_released"] == t["nat_created"] and t["nat_active"] == 0 and
          t["nat_held"] == 0 and free == share)
    print("result: %s" % ("every mapping made expired and every port came back" if ok else "FAILED"))
    sys.exit(0 if ok else 1)
print("==== demo summary (%s) ====" % s["expiry"])
print("flows created:        %d (testpmd cycled through %d)" % (t["created"], want))
print("flows expired:        %d" % t["expired"])
print("flows active at end:  %d" % t["active"])
print("longest sweep:        %d us" % t["sweep_max_us"])
print("longest loop:         %d us (%d iterations over 100 us)" % (t["loop_max_us"], t["stalls"]))
print("expiry poll:          at most %d flows in one poll" % t["poll_removed_max"])
print("expiry lag:           max %.1f ms, mean %.1f ms" % (t["lag_max_us"] / 1e3, t["lag_mean_us"] / 1e3))
ok = t["created"] > 0 and t["expired"] == t["created"] and t["active"] == 0
if t["created"] < want:
    print("note: fewer flows than --flows were created: the traffic was too short or too slow")
    ok = False
print("result: %s" % ("every flow created was expired" if ok else "FAILED"))
sys.exit(0 if ok else 1)
EOF
