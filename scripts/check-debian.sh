#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# The Debian packages, built and used as an operator and a DPDK developer
# would (doc/releasing.md, "Debian packages"):
#   1. the source tree (what git tracks, and untracked files it does not
#      ignore) is copied to a scratch directory; `apt-get build-dep ./`
#      installs debian/control's Build-Depends and nothing else is
#      installed by hand; `dpkg-buildpackage -us -uc -b` builds the four
#      packages (its build-time test runs twheel_autotest); the symbols
#      file must pass the library, and fail it with a symbol planted in
#      (a dropped export) and with one taken out (an unlisted export);
#   2. lintian on the result: an error or a warning not overridden (each
#      override in debian/ says why) fails;
#   3. `dpkg -i`, then `apt-get -f install` for what they depend on;
#   4. installed use: doc/usage.c built with `pkg-config --cflags --libs
#      libtwheel` alone and run; test/subproject built against the
#      installed package with the fallback forbidden, and run;
#      dpdk-test-twheel from PATH runs twheel_autotest; dpdk-l3fwd-flowexp
#      from PATH replays a 600-flow capture under --clock pcap and must
#      forward every packet and expire every flow; both print --version;
#      both man pages are found by man; the telemetry endpoint module
#      compiles; the service unit is verified where systemd-analyze is;
#   5. the packages are purged again, also when a step fails.
# Root, or sudo for apt-get and dpkg. No hugepages needed.
# Usage: scripts/check-debian.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
packages=(libtwheel0 libtwheel-dev dpdk-l3fwd-flowexp twheel-tests)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
tmp=$(mktemp -d /tmp/twheel-deb.XXXXXX)
run_id=$$_$(date +%s%N)
eal_run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
step() { echo "== $*"; }
purge() {
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" \
		>/dev/null 2>&1 || true
	rm -rf "$tmp" "$eal_run"/*_"$run_id"
}
trap purge EXIT

step "build: a copy of the tree, apt-get build-dep, dpkg-buildpackage"
tree=$tmp/twheel
mkdir -p "$tree"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$tree" 2>/dev/null) ||
	{ echo "cannot copy the tree (is $src a git clone?)"; exit 1; }
# nothing of the caller's build directories travels
(cd "$tree" && $sudo env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq ./ \
	>"$tmp/build-dep.log" 2>&1) || { tail -20 "$tmp/build-dep.log"; exit 1; }
(cd "$tree" && dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) ||
	{ tail -40 "$tmp/build.log"; exit 1; }
grep -E '^RTE>>twheel_autotest|^Test (OK|Failed|Skipped)' "$tmp/build.log" || true
debs=()
for p in "${packages[@]}"; do
	deb=$(ls "$tmp/${p}_"*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "FAIL: no package $p"; ls "$tmp"; exit 1; }
	debs+=("$deb")
	echo "built $(basename "$deb"): $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done

step "the symbols file fails a dropped export and an unlisted one"
# dpkg-gensymbols as dh_makeshlibs runs it (-c4), on the packaged library,
# with the symbols file as it is (passes), with a symbol the library does
# not export (as if the build dropped it) and without one it exports
symbols=$tree/debian/libtwheel0.symbols
solib=$(ls "$tree"/debian/libtwheel0/usr/lib/*/libtwheel.so.0.*)
version=$(cd "$tree" && dpkg-parsechangelog -S Version)
mkdir -p "$tmp/gensymbols/DEBIAN"
gensymbols() { # symbols-file
	dpkg-gensymbols -c4 -plibtwheel0 -v"$version" -P"$tmp/gensymbols" \
		-e"$solib" -I"$1" -O/dev/null >"$tmp/gensymbols.log" 2>&1
}
gensymbols "$symbols" || { cat "$tmp/gensymbols.log"; echo "FAIL: the symbols file"; exit 1; }
{ cat "$symbols"; echo " twheel_planted_gone@TWHEEL_0 0.1.0~"; } >"$tmp/dropped.symbols"
grep -v '^ twheel_name@TWHEEL_0 ' "$symbols" >"$tmp/unlisted.symbols"
for planted in dropped unlisted; do
	if gensymbols "$tmp/$planted.symbols"; then
		echo "FAIL: dpkg-gensymbols passed a $planted symbol"; exit 1
	fi
done
echo "symbols: $(grep -c '^ ' "$symbols") listed, as exported; a dropped and an unlisted symbol fail"

step "lintian"
changes=$(ls "$tmp"/twheel_*.changes | head -1)
if ! lintian --fail-on error,warning --info --display-info "$changes" >"$tmp/lintian.log" 2>&1; then
	cat "$tmp/lintian.log"
	echo "FAIL: lintian reported an error or a warning"
	exit 1
fi
echo "lintian: no error, no warning ($(grep -c '^I:' "$tmp/lintian.log" || true) infos, $(grep -c '^N:' "$tmp/lintian.log" || true) notes)"
grep -E '^(I|P):' "$tmp/lintian.log" | sort | uniq -c || true

step "install: dpkg -i, apt-get -f install"
if ! $sudo dpkg -i "${debs[@]}" >"$tmp/dpkg.log" 2>&1; then
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >>"$tmp/dpkg.log" 2>&1 ||
		{ tail -20 "$tmp/dpkg.log"; exit 1; }
fi
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status} ${Package} ${Version}\n' "$p" | grep -q '^install ok installed' ||
		{ echo "FAIL: $p not installed"; exit 1; }
done
echo "installed: ${packages[*]}"

step "the library through pkg-config alone"
eal=(--no-huge -m 64 --no-pci -l 0 --log-level=lib.eal:error)
cc -O2 -Wall -Wextra -Werror -o "$tmp/usage" "$src/doc/usage.c" \
	$(pkg-config --cflags --libs libtwheel)
lib=$(readlink -f "$(ldd "$tmp/usage" | awk '/libtwheel/ { print $3 }')")
if dpkg -L libtwheel0 | grep -qx "$lib"; then
	echo "usage links $lib (libtwheel0)"
else
	echo "FAIL: usage links '$lib', not libtwheel0's"; exit 1
fi
"$tmp/usage" "${eal[@]}" --file-prefix "usage_$run_id" >"$tmp/usage.log" 2>&1 ||
	{ cat "$tmp/usage.log"; echo "FAIL: usage"; exit 1; }
echo "usage ran"
"$src/scripts/check-subproject.sh" --system

step "the programs from PATH"
for prog in dpdk-test-twheel dpdk-l3fwd-flowexp; do
	[ "$(command -v "$prog")" = "/usr/bin/$prog" ] ||
		{ echo "FAIL: $prog is not /usr/bin/$prog"; exit 1; }
	# the first line, read whole: a pipe into head could end the program
	# with SIGPIPE, which pipefail would take for its failure
	ver_line=$("$prog" --version)
	echo "${ver_line%%$'\n'*}"
	man -w "$prog" >/dev/null 2>&1 || [ -f "/usr/share/man/man1/$prog.1.gz" ] ||
		{ echo "FAIL: no man page for $prog"; exit 1; }
done
DPDK_TEST=twheel_autotest dpdk-test-twheel --no-huge -m 512 --no-pci -l 0-1 \
	--log-level=lib.eal:error --file-prefix "tests_$run_id" >"$tmp/autotest.log" 2>&1 ||
	{ tail -20 "$tmp/autotest.log"; echo "FAIL: twheel_autotest"; exit 1; }
grep -E '^Test OK' "$tmp/autotest.log" | sed 's/^/twheel_autotest: /'
python3 "$src/examples/l3fwd-flowexp/test/lib/gen_traffic.py" flows 600 \
	"$tmp/in.pcap" "$tmp/in.json"
dpdk-l3fwd-flowexp --no-huge -m 512 --no-pci -l 0-1 --log-level=lib.eal:error \
	--file-prefix "flowexp_$run_id" \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out.pcap" -- \
	-p 1 --relax-rx-offload --eth-dest 0,02:00:00:00:00:01 --clock pcap \
	--exit-when-drained -T 0 --stats-file "$tmp/stats.json" >"$tmp/flowexp.log" 2>&1 ||
	{ tail -20 "$tmp/flowexp.log"; echo "FAIL: dpdk-l3fwd-flowexp"; exit 1; }
python3 - "$tmp/in.json" "$tmp/stats.json" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
st = json.load(open(sys.argv[2]))
t, port = st["totals"], st["port_0"]
got = (port["rx"], port["tx"], t["created"], t["expired"], t["active"])
expect = (want["packets"], want["packets"], want["flows"], want["flows"], 0)
print("dpdk-l3fwd-flowexp: rx %d tx %d, flows created %d expired %d active %d" % got)
sys.exit(0 if got == expect else "FAIL: expected rx/tx %d/%d, created/expired %d/%d, active %d" % expect)
PY

step "the telemetry endpoint and the service"
python3 -m py_compile /usr/share/dpdk/telemetry-endpoints/twheel.py
echo "endpoint module: /usr/share/dpdk/telemetry-endpoints/twheel.py compiles"
unit=$(dpkg -L dpdk-l3fwd-flowexp | grep '/dpdk-l3fwd-flowexp.service$')
[ -f /etc/default/dpdk-l3fwd-flowexp ] || { echo "FAIL: no /etc/default/dpdk-l3fwd-flowexp"; exit 1; }
if command -v systemd-analyze >/dev/null && [ -d /run/systemd/system ]; then
	systemd-analyze verify "$unit"
	echo "service: $unit verified"
else
	echo "service: $unit installed (no running systemd here to verify it)"
fi

step "remove"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null
for p in "${packages[@]}"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		echo "FAIL: $p still installed"; exit 1
	fi
done
[ ! -e /usr/bin/dpdk-l3fwd-flowexp ] && ! pkg-config --exists libtwheel ||
	{ echo "FAIL: files left after purge"; exit 1; }
echo "removed: ${packages[*]}"
