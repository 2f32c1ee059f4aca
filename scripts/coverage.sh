#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Line and branch coverage of the library (lib/) by the fast tests, in one
# command: installs gcovr if missing, builds build-cov/ with
# -Db_coverage=true at -O0, runs the fast-tests suite from zeroed counters
# and prints gcovr's per-file table of lines (with the uncovered line
# numbers), then the branch table, then the summary. HTML with every line:
# build-cov/coverage/index.html. See doc/reliability.md for the figures.
# Every test of the suite must pass: a failure prints its log and makes the
# script exit non-zero, after the report (figures from a failed run are
# not figures to quote).
# Usage: scripts/coverage.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh gcovr

dir=build-cov
# atomic counters: the tests run threads, and racing counters go negative
opts=(-Db_coverage=true --buildtype=debug -Dexamples=false -Ddocs=disabled
	-Dc_args=-fprofile-update=atomic)
if [ -d "$dir" ]; then
	meson setup --reconfigure "$dir" "${opts[@]}" >/dev/null
else
	meson setup "$dir" "${opts[@]}" >/dev/null
fi
ninja -C "$dir" >/dev/null
find "$dir" -name '*.gcda' -delete
mkdir -p "$dir/coverage"
tests_ok=1
if meson test -C "$dir" --suite fast-tests --print-errorlogs \
	>"$dir/coverage/tests.txt" 2>&1; then
	grep -E '^ *[0-9]+/[0-9]+ ' "$dir/coverage/tests.txt"
else
	# every line meson printed, the failures' logs included
	tests_ok=0
	cat "$dir/coverage/tests.txt" >&2
	echo "coverage: a fast test FAILED (log: $dir/coverage/tests.txt)" >&2
fi

gcov_args=(--root . --object-directory "$dir" --filter 'lib/'
	--exclude-unreachable-branches)
gcovr "${gcov_args[@]}" --txt "$dir/coverage/lines.txt"
gcovr "${gcov_args[@]}" --branches --txt "$dir/coverage/branches.txt"
gcovr "${gcov_args[@]}" --html-details "$dir/coverage/index.html" \
	--print-summary | tail -3 >"$dir/coverage/summary.txt"
cat "$dir/coverage/lines.txt" "$dir/coverage/branches.txt" \
	"$dir/coverage/summary.txt"
if [ "$tests_ok" = 0 ]; then
	echo "coverage: FAILED: not every fast test passed (above)" >&2
	exit 1
fi
