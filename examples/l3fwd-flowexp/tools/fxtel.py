#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""A minimal DPDK telemetry client (standard library only).

  fxtel.py FILE_PREFIX COMMAND [FIELD]

prints the reply to COMMAND (e.g. /l3fwd_flowexp/stats) as JSON, or with
FIELD (e.g. totals.created) only that value. Exit status 1 if the process
does not answer (not started yet, or gone) or the command is unknown.
usertools' dpdk-telemetry.py does the same interactively:
  dpdk-telemetry.py -f FILE_PREFIX, then /l3fwd_flowexp/stats
"""

import json
import os
import socket
import sys


def socket_path(prefix):
    base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix, "dpdk_telemetry.v2")


def query(prefix, cmd, timeout=5.0):
    """The reply to cmd; raises OSError if nobody answers, ValueError if the
    command is not (yet) registered."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(socket_path(prefix))
        info = json.loads(s.recv(4096).decode())
        s.send(cmd.encode())
        reply = json.loads(s.recv(info.get("max_output_len", 16384)).decode())
    finally:
        s.close()
    value = reply.get(cmd.split(",")[0])
    if value is None:
        raise ValueError("%s: no such command (yet)" % cmd)
    return value


def field(value, path):
    for k in path.split("."):
        value = value[k]
    return value


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    try:
        v = query(argv[1], argv[2])
        if len(argv) == 4:
            v = field(v, argv[3])
    except (OSError, ValueError, KeyError) as e:
        print("fxtel: %s" % e, file=sys.stderr)
        return 1
    print(json.dumps(v, indent=1) if isinstance(v, (dict, list)) else v)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
