"""Close runs of ``ordered_map`` at random moments while its workers write large results,
in a process of its own: ``python -m tests.support.closing RUNS`` exits 0 when every close
returned, 1 (naming the run) when one did not within 30 seconds.

A process of its own, so that what the test suite's process holds by then cannot slow the
workers' start (in the whole suite each run took 0.9 s instead of 0.03 s)."""

from __future__ import annotations

import os
import random
import sys
import threading
import time

from spades_replay.plumbing.parallel import ordered_map

BIG = 400_000
"""Bytes in a result: several times a pipe's buffer."""


def close_runs(runs: int) -> int | None:
    """The number of the first run whose close did not return, or ``None``."""
    random.seed(7)
    for run in range(runs):
        results = ordered_map(os.urandom, [BIG] * 12, 2)
        next(results)
        time.sleep(random.uniform(0, 0.03))
        closing = threading.Thread(target=results.close, daemon=True)
        closing.start()
        closing.join(30)
        if closing.is_alive():
            return run
    return None


if __name__ == "__main__":
    stuck = close_runs(int(sys.argv[1]))
    if stuck is not None:
        print(f"closing run {stuck} never returned", flush=True)
        os._exit(1)  # the stuck close's workers are left to the process's end
