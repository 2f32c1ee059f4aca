#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sum meson's test results over one or more testlog.json files and print
the plain summary line "N passed, N failed" last. Exit 1 if anything failed
or nothing ran, so a run that executed no test is visible. Each failed test
is followed by the lines of its output that say why (the e2e checks' "FAIL"
lines, a test app's "Test Failed", errors), or else its last lines, so that
a CI log that keeps only its tail still tells the cause."""
import json
import sys

PASS = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}

WHY = ("FAIL", "Test Failed", "error", "Error", "ERROR", "Traceback", "assert")
WHY_MAX = 12


def why(out):
    """Print the lines of a failed test's output that give the cause."""
    lines = out.splitlines()
    hits = [x for x in lines if any(w in x for w in WHY)]
    for x in (hits or lines)[-WHY_MAX:]:
        print("    | " + x[:300])


passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"{path}: {e}")
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)
        res = r.get("result", "")
        if res in PASS:
            passed += 1
        elif res in SKIP:
            skipped += 1
            print(f"skipped: {r.get('name')}")
        else:
            failed += 1
            print(f"FAILED: {r.get('name')} ({res})")
            why(r.get("stdout") or "")
if skipped:
    print(f"({skipped} skipped)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or passed == 0 else 0)
