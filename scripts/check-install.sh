#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install a build into a scratch prefix, build doc/usage.c against it with
# nothing but `pkg-config --cflags --libs libtwheel`, and run it.
# Usage: scripts/check-install.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
pcdir=$(dirname "$(find "$dest" -name libtwheel.pc | head -1)")
libdir=$(dirname "$pcdir")
# the scratch prefix stands in for the configured one
sed -i "s#^prefix=#prefix=$dest#" "$pcdir/libtwheel.pc"
export PKG_CONFIG_PATH="$pcdir"
cc -O2 -o "$dest/usage" "$src/doc/usage.c" $(pkg-config --cflags --libs libtwheel)
LD_LIBRARY_PATH="$libdir" "$dest/usage" --no-huge -m 64 --no-pci -l 0 \
	--file-prefix "usage_$$_$(date +%s%N)" --log-level=lib.eal:error
