#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Test test_app_version: `dpdk-test-twheel --version` prints the
project's version and DPDK's (built against, running) on two lines and
exits 0, before EAL (no EAL option given).

  version_check.py BINARY VERSION
"""

import re
import subprocess
import sys


def main(binary, version):
    r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    lines = r.stdout.splitlines()
    want = "dpdk-test-twheel (twheel %s)" % version
    ok = (r.returncode == 0 and len(lines) == 2 and lines[0] == want and
          re.match(r"DPDK \d+\.\d\d\.\d+ built against, DPDK \S+ running$", lines[1]))
    print("%s --version: exit status %d, %r (want %r and DPDK's versions)"
          % ("ok  " if ok else "FAIL", r.returncode, lines, want))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
