#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sum meson's test results over one or more testlog.json files and print
the plain summary line "N passed, N failed" last. Exit 1 if anything failed
or nothing ran, so a run that executed no test is visible."""
import json
import sys

PASS = {"OK", "EXPECTEDFAIL"}
SKIP = {"SKIP"}

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
if skipped:
    print(f"({skipped} skipped)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or passed == 0 else 0)
