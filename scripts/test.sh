#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build, run the tests.
# Builds: release (fast tests, e2e), AddressSanitizer + UndefinedBehavior-
# Sanitizer and ThreadSanitizer (fast tests), and a minute of each fuzzer
# (clang, ASan + UBSan). Then the main job in a short form (one test), the
# Debian packages (one test: scripts/check-debian.sh builds, lintians,
# installs, uses and purges them), the fast and e2e tests again against each DPDK LTS source tarball in
# ../shared/dpdk/ when that directory exists (scripts/dpdk-compat.sh, each
# DPDK built once into a cache), and the arm64 cross build (one test,
# scripts/cross-arm64.sh). Tests need no hugepages (they run with
# --no-huge; the demo takes them when it can). The last line is the plain
# summary "N passed, N failed", summed over everything above.
set -uo pipefail
cd "$(dirname "$0")/.."
t_start=$SECONDS

scripts/deps.sh || exit 1

logs=()
# results that are not meson tests, as lines of meson's testlog.json
extra=$(mktemp)
trap 'rm -f "$extra"' EXIT
logs+=("$extra")
record() { # name command...
	local name=$1 t0=$SECONDS; shift
	if "$@"; then
		printf '{"name": "%s", "result": "OK"}\n' "$name" >> "$extra"
		echo "ok   $name ($(( SECONDS - t0 )) s)"
	else
		printf '{"name": "%s", "result": "FAIL"}\n' "$name" >> "$extra"
		echo "FAIL $name ($(( SECONDS - t0 )) s)"
	fi
}
run_build() {
	local dir=$1; shift
	local suites=$1; shift
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null || return 1
	else
		meson setup "$dir" "$@" >/dev/null || return 1
	fi
	ninja -C "$dir" >/dev/null || { ninja -C "$dir" | tail -20; return 1; }
	local args=()
	for s in $suites; do args+=(--suite "$s"); done
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs "${args[@]}" | grep -E '^ *[0-9]+/[0-9]+ '
	logs+=("$dir/meson-logs/testlog.json")
	scripts/remove-eal-runtime.sh "$dir"
}

run_build build "fast-tests e2e" --buildtype=release --werror ||
	logs+=(/nonexistent-build-failed)
# the same fast tests under AddressSanitizer and UndefinedBehaviorSanitizer
run_build build-asan "fast-tests" -Db_sanitize=address,undefined \
	-Db_lundef=false --buildtype=debugoptimized -Dexamples=false \
	-Dtest_timeout_multiplier=4 || logs+=(/nonexistent-build-failed)
# and under ThreadSanitizer (cross-lcore test; see app/test-twheel/tsan.supp)
run_build build-tsan "fast-tests" -Db_sanitize=thread \
	-Db_lundef=false --buildtype=debugoptimized -Dexamples=false \
	-Dtest_timeout_multiplier=6 || logs+=(/nonexistent-build-failed)
# the libFuzzer harnesses for about a minute each, under ASan/UBSan (clang
# only; doc/reliability.md): the wheel's (app/fuzz-twheel) and the example's
# packet path (examples/l3fwd-flowexp/test/fuzz, which -Dfuzz=true builds from
# the example's sources without the rest of the example)
if scripts/deps.sh clang libclang-rt-14-dev llvm; then
	CC=clang run_build build-fuzz "fuzz" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized -Dexamples=false -Dtests=false ||
		logs+=(/nonexistent-build-failed)
else
	logs+=(/nonexistent-build-failed)
fi

# the main job, short: 100k flows, 1 s timeout
demo_log=$(mktemp /tmp/twheel-demo.XXXXXX.log)
record "main job: scripts/demo.sh --flows 100000 --timeout 1 --traffic 2 (log: $demo_log)" \
	bash -c 'scripts/demo.sh --flows 100000 --timeout 1 --traffic 2 > "$1" 2>&1 ||
		{ tail -20 "$1"; exit 1; }' _ "$demo_log"

# the Debian packages: built from a copy of the tree after apt-get
# build-dep, lintian, installed, used from PATH and pkg-config, purged
record "debian packages: scripts/check-debian.sh" scripts/check-debian.sh

# the DPDK LTS releases users run (sources beside the clone, as in CI)
shopt -s nullglob
lts=(../shared/dpdk/*.tar.xz)
if [ ${#lts[@]} -gt 0 ]; then
	scripts/dpdk-compat.sh --results "$extra" "${lts[@]}" | grep -v ' passed, '
else
	echo "no ../shared/dpdk/*.tar.xz: DPDK LTS compatibility builds skipped"
fi

# arm64 (128-byte cache lines), warnings as errors
record "arm64 cross build: scripts/cross-arm64.sh" scripts/cross-arm64.sh

echo "total time: $(( SECONDS - t_start )) s"
python3 scripts/meson-summary.py "${logs[@]}"
