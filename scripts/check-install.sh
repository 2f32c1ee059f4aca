#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install a build into a scratch prefix and build programs against it with
# nothing but pkg-config, as a user would:
#   - doc/usage.c with `pkg-config --cflags --libs libtwheel` (shared),
#     warnings as errors, run;
#   - a call of an experimental function: refused (deprecation warning as
#     an error) unless TWHEEL_ALLOW_EXPERIMENTAL_API or DPDK's
#     ALLOW_EXPERIMENTAL_API is defined;
#   - app/test-twheel/install_telemetry.c the same way, and again against a
#     prefix that holds only libtwheel.a (as -Ddefault_library=static
#     installs it), so the linker takes from the archive only the objects
#     the program references: each must answer /twheel/list. (DPDK itself
#     is linked as its pkg-config gives it; Debian's full static DPDK needs
#     the static libraries of every PMD's dependencies.)
# The caller's PKG_CONFIG_PATH and LD_LIBRARY_PATH are kept after ours, so a
# DPDK installed outside the system paths is still found. FLAGS are added
# to every probe's compile and link: what the library was instrumented with
# (--coverage, -fsanitize=...), as the meson test passes them.
# Usage: scripts/check-install.sh BUILD_DIR [FLAGS...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shift
probe_flags=("$@")
dest=$(mktemp -d)
eal=(--no-huge -m 64 --no-pci -l 0 --log-level=lib.eal:error)
run_id=$$_$(date +%s%N)
# EAL's runtime directory of each run (root's, or the user's)
eal_run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
trap 'rm -rf "$dest" "$eal_run/usage_$run_id" "$eal_run/tel_shared_$run_id" "$eal_run/tel_static_$run_id"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
pcdir=$(dirname "$(find "$dest" -name libtwheel.pc | head -1)")
libdir=$(dirname "$pcdir")
# the scratch prefix stands in for the configured one
sed -i "s#^prefix=#prefix=$dest#" "$pcdir/libtwheel.pc"

# shared
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cc -O2 -Wall -Wextra -Werror ${probe_flags[@]+"${probe_flags[@]}"} \
	-o "$dest/usage" "$src/doc/usage.c" $(pkg-config --cflags --libs libtwheel)
"$dest/usage" "${eal[@]}" --file-prefix "usage_$run_id"

# the experimental tier, as a program sees it
cat >"$dest/experimental.c" <<'EOF'
#include <twheel.h>
unsigned int probe(struct twheel *w, struct twheel_fired *out);
unsigned int
probe(struct twheel *w, struct twheel_fired *out)
{
	bool more;

	return twheel_sweep_more(w, 0, 1, out, &more) + more;
}
EOF
probe_cc() {
	cc -c -Wall -Werror ${probe_flags[@]+"${probe_flags[@]}"} "$@" \
		$(pkg-config --cflags libtwheel) \
		-o "$dest/experimental.o" "$dest/experimental.c"
}
if probe_cc 2>"$dest/experimental.err" ||
   ! grep -q 'deprecated' "$dest/experimental.err"; then
	echo "experimental: a call compiled without the opt-in, or failed otherwise:" >&2
	cat "$dest/experimental.err" >&2
	exit 1
fi
probe_cc -DTWHEEL_ALLOW_EXPERIMENTAL_API
probe_cc -DALLOW_EXPERIMENTAL_API
echo "experimental: refused without the opt-in, built with either macro"
cc -O2 ${probe_flags[@]+"${probe_flags[@]}"} -o "$dest/tel_shared" \
	"$src/app/test-twheel/install_telemetry.c" $(pkg-config --cflags --libs libtwheel)
echo -n "shared: "
"$dest/tel_shared" "${eal[@]}" --file-prefix "tel_shared_$run_id"

# static: libtwheel.a alone in its libdir
sdir=$dest/static
mkdir -p "$sdir/lib/pkgconfig"
cp "$libdir/libtwheel.a" "$sdir/lib/"
sed -e "s#^libdir=.*#libdir=$sdir/lib#" "$pcdir/libtwheel.pc" > "$sdir/lib/pkgconfig/libtwheel.pc"
PKG_CONFIG_PATH=$sdir/lib/pkgconfig:$PKG_CONFIG_PATH
cc -O2 ${probe_flags[@]+"${probe_flags[@]}"} -o "$dest/tel_static" \
	"$src/app/test-twheel/install_telemetry.c" $(pkg-config --cflags --libs libtwheel)
if nm -D "$dest/tel_static" 2>/dev/null | grep -q ' U twheel_create'; then
	echo "static: the program did not link libtwheel.a" >&2
	exit 1
fi
echo -n "static: "
"$dest/tel_static" "${eal[@]}" --file-prefix "tel_static_$run_id"
