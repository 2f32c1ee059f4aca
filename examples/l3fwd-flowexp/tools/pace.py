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
second on average: the share is set from the rate one unit of share gave
lately (smoothed) and what the count since the start lacks of PPS times the
time, made up over the next 2 s (at most 2 s of PPS either way, so a
generator that could not keep up does not burst later). A controller that
only followed the last quarter second's rate ran 10-60 % fast on a busy
machine: the noise biased it. At small shares the period grows (up to 250 ms) so that the
generator runs at least 0.5 ms at a time: a shorter sleep is mostly the
scheduler's wake-up latency, and the rate swung by tens of per cent. It runs itself at real-time priority (SCHED_FIFO, when allowed)
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
PERIOD_MAX = 0.250
ON_MIN = 0.0005
ADJUST = 0.25
HORIZON = 2.0


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
    gain = None   # packets per second at a share of 1
    try:
        last_rx, last_t = rx_total(prefix), time.monotonic()
        rx0, t_start = last_rx, last_t
        next_adjust = last_t + ADJUST
        while not stop and alive(pid):
            period = min(PERIOD_MAX, max(PERIOD, ON_MIN / duty))
            on = duty * period
            os.kill(pid, signal.SIGCONT)
            time.sleep(on)
            if duty < 1.0:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(period - on)
            now = time.monotonic()
            if now >= next_adjust:
                rx = rx_total(prefix)
                rate = (rx - last_rx) / (now - last_t)
                if rate > 0:
                    g = rate / duty
                    gain = g if gain is None else 0.7 * gain + 0.3 * g
                    lack = target * (now - t_start) - (rx - rx0)
                    lack = min(target * HORIZON, max(-target * HORIZON, lack))
                    if abs(lack) == target * HORIZON:
                        # saturated: forget the older debt
                        t_start, rx0 = now, rx
                        lack = 0.0
                    want = target + lack / HORIZON
                    duty = want / gain
                else:
                    duty *= 2.0
                duty = min(1.0, max(ON_MIN / PERIOD_MAX, duty))
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
