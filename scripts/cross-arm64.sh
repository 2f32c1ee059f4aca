#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Cross-build everything (library, test app, example) for arm64 against
# Debian's libdpdk-dev:arm64, with warnings as errors. The library's
# layout checks (RTE_BUILD_BUG_ON) run at compile time, so they are checked
# for arm64's 128-byte cache lines too.
#
# Usage: scripts/cross-arm64.sh [--cache DIR] [BUILD_DIR]
#   --cache   where the arm64 sysroot is kept and reused (default
#             $TWHEEL_CROSS_CACHE, else ~/.cache/twheel-cross)
#   BUILD_DIR default build-arm64
#
# libdpdk-dev:arm64 cannot be installed beside the amd64 one (apt removes
# libdpdk-dev and dpdk-dev to make room: their dependencies conflict), so
# the arm64 packages are downloaded (dpkg --add-architecture arm64) and
# unpacked into a sysroot instead; crossbuild-essential-arm64 brings the
# compiler. Exit status 0 when the build is clean.
set -euo pipefail
src_root=$(cd "$(dirname "$0")/.." && pwd)
cd "$src_root"

cache=${TWHEEL_CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel-cross}
build=build-arm64
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || { echo "cross-arm64: --cache needs a value" >&2; exit 2; }
		cache=$2; shift 2 ;;
	-h|--help) sed -n '5,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "cross-arm64: unknown option '$1'" >&2; exit 2 ;;
	*) build=$1; shift ;;
	esac
done

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
scripts/deps.sh crossbuild-essential-arm64 file >/dev/null

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "cross-arm64: adding the arm64 architecture to apt"
	$sudo dpkg --add-architecture arm64
	$sudo apt-get update -qq
fi
version=$(apt-cache policy libdpdk-dev:arm64 | awk '/Candidate:/ {print $2}')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
	$sudo apt-get update -qq
	version=$(apt-cache policy libdpdk-dev:arm64 | awk '/Candidate:/ {print $2}')
fi
[ -n "$version" ] && [ "$version" != "(none)" ] ||
	{ echo "cross-arm64: apt has no libdpdk-dev:arm64" >&2; exit 1; }

sysroot=$cache/sysroot-$version
if [ ! -f "$sysroot/.complete" ]; then
	echo "cross-arm64: making an arm64 sysroot with libdpdk-dev $version in $sysroot"
	rm -rf "$sysroot" "$cache/debs"
	mkdir -p "$sysroot" "$cache/debs"
	# libdpdk-dev:arm64 and everything it depends on, arm64 packages only
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances libdpdk-dev:arm64 |
		grep -E '^[a-z0-9].*:arm64$' | sort -u > "$cache/packages.txt"
	(cd "$cache/debs" && xargs apt-get download -qq < "$cache/packages.txt") 2>&1 |
		grep -v "unsandboxed as root" || true
	for deb in "$cache"/debs/*.deb; do
		dpkg-deb -x "$deb" "$sysroot"
	done
	# absolute symbolic links point into the sysroot, not the build host
	find "$sysroot" -type l -lname '/*' | while read -r link; do
		ln -sfn "$sysroot$(readlink "$link")" "$link"
	done
	rm -rf "$cache/debs"
	touch "$sysroot/.complete"
fi

machine=$cache/sysroot-$version.ini
printf "[constants]\nsysroot = '%s'\n" "$sysroot" > "$machine"
rm -rf "$build"
meson setup "$build" --cross-file "$machine" --cross-file config/arm64-linux-gnu.ini \
	--buildtype=release --werror > "$build.log" 2>&1 ||
	{ tail -30 "$build.log"; echo "cross-arm64: meson setup failed (log: $build.log)"; exit 1; }
if ! ninja -C "$build" >> "$build.log" 2>&1; then
	grep -E 'error|warning' "$build.log" | head -30
	echo "cross-arm64: the arm64 build failed (log: $build.log)"
	exit 1
fi
warnings=$(grep -c 'warning' "$build.log" || true)
if [ "$warnings" -ne 0 ]; then
	grep 'warning' "$build.log" | head -20
	echo "cross-arm64: $warnings warnings (log: $build.log)"
	exit 1
fi
file -b "$build/examples/l3fwd-flowexp/dpdk-l3fwd-flowexp" | grep -q aarch64 ||
	{ echo "cross-arm64: the example is not an aarch64 binary"; exit 1; }
echo "cross-arm64: libdpdk-dev:arm64 $version: library, test app and example built for aarch64, 0 warnings"
