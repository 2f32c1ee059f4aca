#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fuzz suite's bounded run of one libFuzzer harness: FUZZER for SECONDS
# from the committed seed corpus, new inputs into WORKDIR/corpus, crashes
# into WORKDIR/artifacts, inputs of at most MAX_LEN bytes (default 4096),
# any further arguments passed to libFuzzer. Fails when the fuzzer finds a
# crash, a mismatch or a broken invariant.
# Usage: run-fuzz.sh FUZZER SEED_CORPUS WORKDIR SECONDS [MAX_LEN [FLAG...]]
set -eu
fuzzer=$1 seeds=$2 work=$3 secs=$4 maxlen=${5:-4096}
shift $(( $# < 5 ? $# : 5 ))
name=$(basename "$fuzzer")
mkdir -p "$work/corpus" "$work/artifacts"
# halt on the first UBSan report; leaks are checked per input by libFuzzer
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=20 -max_len="$maxlen" \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" \
	"$work/corpus" "$seeds" >"$work/fuzz.log" 2>&1 || rc=$?
# the last status line and the final statistics, for the test log
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/fuzz.log" | tail -1
grep -E '^Done [0-9]+ runs' "$work/fuzz.log" || true
grep -E '^stat::' "$work/fuzz.log" || true
# a finding exits libFuzzer with 77 (its -error_exitcode), which meson
# reads as a skip: any non-zero status is a failure here
if [ "$rc" -ne 0 ]; then
	grep -E 'MODEL MISMATCH|INVARIANT BROKEN|ERROR|SUMMARY|Test unit written' "$work/fuzz.log" | head -20
	echo "$name failed ($rc); full log: $work/fuzz.log"
	exit 1
fi
exit 0
