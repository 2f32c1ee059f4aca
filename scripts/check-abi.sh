#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# The ABI of libtwheel.so against the release's, with libabigail (Debian:
# abigail-tools), as DPDK's devtools/check-abi.sh does for DPDK.
#
#   scripts/check-abi.sh --dump OUT    record the ABI of this tree (abidw)
#   scripts/check-abi.sh [BASELINE]    compare this tree's ABI with
#                                      BASELINE (default: abi/libtwheel-*.abi,
#                                      the newest release's)
#   scripts/check-abi.sh --self-test   the check on planted changes: a
#                                      changed field of a stable struct
#                                      must fail it, a function added to
#                                      EXPERIMENTAL must pass
#
# The library is built from the source tree with debug information (the
# types abidw reads) into a scratch directory, alone (no tests, examples
# or docs). As DPDK's check: any change abidiff reports to what the
# baseline exports fails (its status bits 4 and 8; a stable struct's
# field whose type changes within the same size is a change too), what
# was added passes (--no-added-syms), and changes to the experimental
# tier are suppressed (abi/suppress.abignore). The public header bounds the types recorded
# (abidw --headers-dir --drop-private-types).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v abidw >/dev/null || { echo "abidw not found: install abigail-tools"; exit 1; }

# dump TREE OUT: build TREE's library with debug information, its ABI into OUT
dump() {
	local tree=$1 out=$2 b
	b=$(mktemp -d "$tmp/build.XXXX")
	meson setup "$b" "$tree" --buildtype=debugoptimized -Dtests=false \
		-Dexamples=false -Ddocs=disabled >"$b.log" 2>&1 || { tail -20 "$b.log"; return 1; }
	ninja -C "$b" >>"$b.log" 2>&1 || { tail -20 "$b.log"; return 1; }
	abidw --headers-dir "$tree/include" --drop-private-types --no-corpus-path \
		--out-file "$out" "$b/lib/libtwheel.so"
}

# compare BASELINE CURRENT: 0, or 1 on any change abidiff reports to what
# BASELINE exports (bits 4 and 8: a type changed, a function removed);
# what was added is not a change (--no-added-syms)
compare() {
	local rc=0
	abidiff --suppressions "$src/abi/suppress.abignore" --no-added-syms \
		"$1" "$2" >"$tmp/diff.txt" 2>&1 || rc=$?
	if [ $((rc & 3)) -ne 0 ]; then
		cat "$tmp/diff.txt"
		echo "abidiff failed (status $rc)"
		return 2
	fi
	if [ $((rc & 12)) -ne 0 ]; then
		cat "$tmp/diff.txt"
		return 1
	fi
	return 0
}

# a copy of the source tree, as git tracks it and as it is now
copy_tree() {
	mkdir -p "$1"
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$1")
}

self_test() {
	local base=$1 rc
	# a stable struct's field changes type: incompatible
	copy_tree "$tmp/broken"
	python3 - "$tmp/broken/include/twheel.h" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
start = s.index("struct twheel_stats {")
end = s.index("};", start)
body = s[start:end]
new = re.sub(r"uint64_t (\w+);", r"uint32_t \1;", body, count=1)
assert new != body, "no uint64_t field in struct twheel_stats"
open(p, "w").write(s[:start] + new + s[end:])
PY
	dump "$tmp/broken" "$tmp/broken.abi"
	rc=0
	compare "$base" "$tmp/broken.abi" >/dev/null || rc=$?
	[ "$rc" -eq 1 ] || { echo "FAIL a changed field of struct twheel_stats passed the check ($rc)"; return 1; }
	echo "ok   a changed field of struct twheel_stats fails the check"
	# a function added to the experimental tier: compatible
	copy_tree "$tmp/added"
	cat >>"$tmp/added/include/twheel.h.add" <<'H'
__twheel_experimental
unsigned int twheel_abi_probe(const struct twheel *w);
H
	python3 - "$tmp/added" <<'PY'
import sys
d = sys.argv[1]
h = open(d + "/include/twheel.h").read()
i = h.rindex("#ifdef __cplusplus")
h = h[:i] + open(d + "/include/twheel.h.add").read() + "\n" + h[i:]
open(d + "/include/twheel.h", "w").write(h)
m = open(d + "/lib/version.map").read()
m = m.replace("EXPERIMENTAL {\n\tglobal:\n", "EXPERIMENTAL {\n\tglobal:\n\n\ttwheel_abi_probe;\n")
open(d + "/lib/version.map", "w").write(m)
with open(d + "/lib/twheel_stats.c", "a") as f:
    f.write("\nunsigned int\ntwheel_abi_probe(const struct twheel *w)\n{\n\treturn w != NULL;\n}\n")
PY
	dump "$tmp/added" "$tmp/added.abi"
	compare "$base" "$tmp/added.abi" >/dev/null ||
		{ echo "FAIL a function added to EXPERIMENTAL fails the check"; return 1; }
	echo "ok   a function added to EXPERIMENTAL passes the check"
}

case ${1:-} in
--dump)
	dump "$src" "$2"
	echo "wrote $2"
	;;
--self-test)
	base=$(ls "$src"/abi/libtwheel-*.abi | sort -V | tail -1)
	self_test "$base"
	;;
*)
	base=${1:-$(ls "$src"/abi/libtwheel-*.abi | sort -V | tail -1)}
	dump "$src" "$tmp/current.abi"
	if compare "$base" "$tmp/current.abi"; then
		echo "ok   the ABI of this tree is compatible with $(basename "$base")"
	else
		echo "FAIL the ABI of this tree breaks $(basename "$base")"
		exit 1
	fi
	;;
esac
