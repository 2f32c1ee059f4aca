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
#     prefix, found by pkg-config with the fallback forbidden;
#   - with --system, only against the library installed in /usr (the
#     Debian packages: scripts/check-debian.sh), the fallback forbidden.
# Each program is run (no hugepages) and must end with status 0.
# Usage: scripts/check-subproject.sh BUILD_DIR | --system
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
system=false
if [ "$1" = --system ]; then
	system=true
else
	build=$(cd "$1" && pwd)
fi
tmp=$(mktemp -d)
eal=(--no-huge -m 64 --no-pci -l 0 --log-level=lib.eal:error)
run_id=$$_$(date +%s%N)
eal_run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
trap 'rm -rf "$tmp" "$eal_run/subproject_$run_id" "$eal_run/installed_$run_id"' EXIT

consumer=$tmp/consumer
mkdir -p "$consumer/subprojects"
cp "$src/test/subproject/meson.build" "$src/doc/usage.c" "$consumer/"
ln -s "$src" "$consumer/subprojects/twheel"

# build_and_run TAG WHERE SETUP_ARGS...: configure and build the consumer
# into $tmp/b-TAG, check that its program links the libtwheel under WHERE,
# and run it
build_and_run() {
	local tag=$1 where=$2 b=$tmp/b-$1 lib
	shift 2
	meson setup "$b" "$consumer" "$@" >"$b.log" 2>&1 || { tail -30 "$b.log"; exit 1; }
	ninja -C "$b" >>"$b.log" 2>&1 || { tail -30 "$b.log"; exit 1; }
	lib=$(readlink -f "$(ldd "$b/usage" | awk '/libtwheel/ { print $3 }')")
	case $lib in
	"$where"/*) echo "ok   $tag: usage links $lib" ;;
	*) echo "FAIL $tag: usage links '$lib', not the one under $where"; exit 1 ;;
	esac
	"$b/usage" "${eal[@]}" --file-prefix "${tag}_$run_id" >"$b.run" 2>&1 ||
		{ cat "$b.run"; echo "FAIL $tag: usage failed"; exit 1; }
	echo "ok   $tag: usage ran"
}

if $system; then
	rm -rf "$consumer/subprojects"
	build_and_run system /usr --wrap-mode=nofallback
	exit 0
fi

# as a subproject
build_and_run subproject "$tmp/b-subproject/subprojects/twheel" --force-fallback-for=libtwheel

# against the installed library
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/dest" >/dev/null
pcdir=$(dirname "$(find "$tmp/dest" -name libtwheel.pc | head -1)")
sed -i "s#^prefix=#prefix=$tmp/dest#" "$pcdir/libtwheel.pc"
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf "$consumer/subprojects"
build_and_run installed "$tmp/dest" --wrap-mode=nofallback
