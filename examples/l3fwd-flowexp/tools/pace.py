#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Hold a traffic generator to a packet rate by stopping and continuing it.

  pace.py GENERATOR_PID EXAMPLE_FILE_PREFIX PPS

dpdk-testpmd has no software rate limit on virtual devices (memif), and its
flowgen engine sends as fast as the ring takes packets. This helper lets the
generator run for a share of every 50 ms (SIGCONT ... SIGSTOP) and adjusts
that share four times a second from the receive rate the example reports over
telemetry (port rx counters), so the example sees about PPS packets per
second. It runs itself at real-time priority (SCHED_FIFO, when allowed)
so that it stops the generator on time on a busy CPU; it sleeps almost all
the time. It leaves the generator running when it ends (SIGTERM, or the
generator exits). Standard library only.
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fxtel  # noqa: E402

PERIOD = 0.050
ADJUST = 0.25


def rx_total(prefix):
    s = fxtel.query(prefix, "/l3fwd_flowexp/stats")
    return sum(v["rx"] for k, v in s.items() if k.startswith("port_"))


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    pid, prefix, target = int(argv[1]), argv[2], float(argv[3])
    if target <= 0:
        print("pace: PPS must be positive", file=sys.stderr)
        return 2
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    duty = 0.05
    try:
        # wake up on time to stop the generator, even on a busy CPU; the
        # helper sleeps almost all the time, so this takes nothing from others
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (OSError, AttributeError):
        print("pace: no real-time priority (not root?): the rate will overshoot",
              file=sys.stderr)
    try:
        last_rx, last_t = rx_total(prefix), time.monotonic()
        next_adjust = last_t + ADJUST
        while not stop and alive(pid):
            on = duty * PERIOD
            os.kill(pid, signal.SIGCONT)
            time.sleep(on)
            if duty < 1.0:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(PERIOD - on)
            now = time.monotonic()
            if now >= next_adjust:
                rx = rx_total(prefix)
                rate = (rx - last_rx) / (now - last_t)
                # damped: half the correction on a log scale
                duty *= min(2.0, max(0.25, (target / rate) ** 0.5)) if rate > 0 else 2.0
                duty = min(1.0, max(0.002, duty))
                last_rx, last_t, next_adjust = rx, now, now + ADJUST
    except (OSError, ValueError, KeyError) as e:
        print("pace: %s" % e, file=sys.stderr)
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
