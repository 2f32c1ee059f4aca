#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build, run the tests.
# Builds: release (fast tests, e2e), AddressSanitizer + UndefinedBehavior-
# Sanitizer and ThreadSanitizer (fast tests), and a one-minute fuzz run
# (clang, ASan + UBSan). Tests need no hugepages (they run with --no-huge).
# The last line is the plain summary "N passed, N failed", summed over
# every build tested.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh || exit 1

logs=()
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
}

run_build build "fast-tests e2e" --buildtype=release ||
	logs+=(/nonexistent-build-failed)
# the same fast tests under AddressSanitizer and UndefinedBehaviorSanitizer
run_build build-asan "fast-tests" -Db_sanitize=address,undefined \
	-Db_lundef=false --buildtype=debugoptimized -Dexamples=false \
	-Dtest_timeout_multiplier=4 || logs+=(/nonexistent-build-failed)
# and under ThreadSanitizer (cross-lcore test; see app/test-twheel/tsan.supp)
run_build build-tsan "fast-tests" -Db_sanitize=thread \
	-Db_lundef=false --buildtype=debugoptimized -Dexamples=false \
	-Dtest_timeout_multiplier=6 || logs+=(/nonexistent-build-failed)
# the libFuzzer harness for about a minute, under ASan/UBSan (clang only;
# app/fuzz-twheel, doc/reliability.md)
if scripts/deps.sh clang libclang-rt-14-dev llvm; then
	CC=clang run_build build-fuzz "fuzz" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debugoptimized -Dexamples=false -Dtests=false ||
		logs+=(/nonexistent-build-failed)
else
	logs+=(/nonexistent-build-failed)
fi

python3 scripts/meson-summary.py "${logs[@]}"
