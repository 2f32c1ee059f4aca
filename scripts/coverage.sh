#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Line and branch coverage of the library (lib/) by the fast tests, in one
# command: installs gcovr if missing, builds build-cov/ with
# -Db_coverage=true at -O0, runs the fast-tests suite from zeroed counters
# and prints gcovr's per-file table of lines (with the uncovered line
# numbers), then the branch table, then the summary. HTML with every line:
# build-cov/coverage/index.html. See doc/reliability.md for the figures.
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
meson test -C "$dir" --suite fast-tests --print-errorlogs |
	grep -E '^ *[0-9]+/[0-9]+ '

gcov_args=(--root . --object-directory "$dir" --filter 'lib/'
	--exclude-unreachable-branches)
mkdir -p "$dir/coverage"
gcovr "${gcov_args[@]}" --txt "$dir/coverage/lines.txt"
gcovr "${gcov_args[@]}" --branches --txt "$dir/coverage/branches.txt"
gcovr "${gcov_args[@]}" --html-details "$dir/coverage/index.html" \
	--print-summary | tail -3 >"$dir/coverage/summary.txt"
cat "$dir/coverage/lines.txt" "$dir/coverage/branches.txt" \
	"$dir/coverage/summary.txt"
