#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# A meson project that takes twheel in (test/subproject/, with doc/usage.c
# as its program), built two ways, as DPDK developers take libraries in:
#   - as a subproject: subprojects/twheel a link to this source tree,
#     dependency('libtwheel', fallback: ['twheel', 'twheel_dep']) forced
#     to the fallback; the program must link the subproject's libtwheel;
#   - against the installed library: BUILD_DIR installed into a scratch
#     prefix, found by pkg-config with the fallback forbidden.
# Each program is run (no hugepages) and must end with status 0.
# Usage: scripts/check-subproject.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
eal=(--no-huge -m 64 --no-pci -l 0 --log-level=lib.eal:error)
run_id=$$_$(date +%s%N)
eal_run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
trap 'rm -rf "$tmp" "$eal_run/sub_$run_id" "$eal_run/inst_$run_id"' EXIT

consumer=$tmp/consumer
mkdir -p "$consumer/subprojects"
cp "$src/test/subproject/meson.build" "$src/doc/usage.c" "$consumer/"
ln -s "$src" "$consumer/subprojects/twheel"

# as a subproject
meson setup "$tmp/b-sub" "$consumer" --force-fallback-for=libtwheel >"$tmp/sub.log" 2>&1 ||
	{ tail -30 "$tmp/sub.log"; exit 1; }
ninja -C "$tmp/b-sub" >"$tmp/sub-ninja.log" 2>&1 || { tail -30 "$tmp/sub-ninja.log"; exit 1; }
lib=$(ldd "$tmp/b-sub/usage" | awk '/libtwheel/ { print $3 }')
case $lib in
"$tmp/b-sub/subprojects/twheel/"*) echo "ok   as a subproject: usage links $lib" ;;
*) echo "FAIL as a subproject: usage links '$lib', not the subproject's"; exit 1 ;;
esac
"$tmp/b-sub/usage" "${eal[@]}" --file-prefix "sub_$run_id" >"$tmp/sub-run.log" 2>&1 ||
	{ cat "$tmp/sub-run.log"; echo "FAIL as a subproject: usage failed"; exit 1; }
echo "ok   as a subproject: usage ran"

# against the installed library
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/dest" >/dev/null
pcdir=$(dirname "$(find "$tmp/dest" -name libtwheel.pc | head -1)")
sed -i "s#^prefix=#prefix=$tmp/dest#" "$pcdir/libtwheel.pc"
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf "$consumer/subprojects"
meson setup "$tmp/b-inst" "$consumer" --wrap-mode=nofallback >"$tmp/inst.log" 2>&1 ||
	{ tail -30 "$tmp/inst.log"; exit 1; }
ninja -C "$tmp/b-inst" >"$tmp/inst-ninja.log" 2>&1 || { tail -30 "$tmp/inst-ninja.log"; exit 1; }
lib=$(ldd "$tmp/b-inst/usage" | awk '/libtwheel/ { print $3 }')
case $lib in
"$tmp/dest/"*) echo "ok   installed: usage links $lib" ;;
*) echo "FAIL installed: usage links '$lib', not the installed one"; exit 1 ;;
esac
"$tmp/b-inst/usage" "${eal[@]}" --file-prefix "inst_$run_id" >"$tmp/inst-run.log" 2>&1 ||
	{ cat "$tmp/inst-run.log"; echo "FAIL installed: usage failed"; exit 1; }
echo "ok   installed: usage ran"
