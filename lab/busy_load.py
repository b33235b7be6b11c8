"""Another machine load: busy processes that compete with the games for the CPU while a stage plays.

Issue #18 asks that a level's measurement hold under "another machine load". A level with a node
budget plays the same moves on any machine, but the clock caps it, and anchors that search by
time (Stockfish, phalanx) lose depth when they get less of a core. Each busy process is a Python
interpreter spinning in a loop at normal priority, so with `concurrency` games and `n` busy
processes on `cores` cores every process gets about cores / (concurrency + n) of one. Pinned to
`cpus`, the load falls on those CPUs alone: the calibration puts it beside the level only
(`lab.calibration.checks.load_cpus`), so that the anchors, which lose strength under load, do
not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Collection, Iterator
from contextlib import contextmanager

#: The program each busy process runs.
SPIN = "while True: pass"


@contextmanager
def busy_load(count: int, cpus: Collection[int] = ()) -> Iterator[list[subprocess.Popen]]:
    """Run `count` busy processes for the body of the `with`, on `cpus` only when given; they
    are killed when it ends, however it ends (an error, Ctrl-C, SIGTERM turned into
    KeyboardInterrupt)."""
    if count < 0:
        raise ValueError(f"a busy load is a number of processes >= 0, got {count}")
    spinners: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            spinners.append(subprocess.Popen([sys.executable, "-c", SPIN],
                                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL))
            if cpus:
                os.sched_setaffinity(spinners[-1].pid, cpus)
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
