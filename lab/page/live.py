"""Keeping a run's page current while it plays, off the game path.

The run calls `LivePage.refresh` after each stored game; that only sets a flag shared with a
process of its own (started at the first refresh), which rewrites the page from the store through
its own read-only connection when the flag is set and then waits `interval_s` before it looks
again (longer for a large folder, and at a lower priority, so that it takes little from the
engines). A burst of games costs one write, and the process that hands out games and keeps the
clocks never waits for a page, not even for the interpreter lock. A page that cannot be written
never stops a run: the failure is kept in `problem` and the next refresh tries again. The writer
leaves when the run closes it, or on its own when the run's process is gone.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import time
from pathlib import Path
from typing import Any

#: Seconds between two writes of the page while a run plays.
INTERVAL_S = 5.0
#: How often (seconds) an idle writer checks that the run's process is still there.
PARENT_CHECK_S = 1.0
#: The writer waits at least this many times as long as its last write took, so it takes at
#: most a tenth of a core from the engines however large the folder grows.
COST_RATIO = 10.0
#: Niceness added to the writer process: the engines' moves come first.
NICENESS = 10


def _serve(folder: str, interval_s: float, parent: int, wanted: Any, closing: Any,
           writes: Any, problems: Any) -> None:
    """The writer process: one page per raised flag, at most one per `interval_s` (or per
    `COST_RATIO` times the last write's duration, when that is longer), at low priority.

    The page's modules (pandas, matplotlib) are imported here, in the writer, so the run's own
    process starts its first game without loading them."""
    from lab.page.write import write_run_page

    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    while not closing.is_set():
        if not wanted.wait(PARENT_CHECK_S):
            if os.getppid() != parent:
                return
            continue
        if closing.is_set():
            return
        wanted.clear()
        started = time.monotonic()
        try:
            write_run_page(folder, running=True)
            with writes.get_lock():
                writes.value += 1
        except Exception as exc:  # a page must never stop a run
            problems.put(f"report.html not refreshed: {exc!r}")
        closing.wait(max(interval_s, COST_RATIO * (time.monotonic() - started)))


class LivePage:
    """Rewrites `folder/report.html` after finished games, at most every `interval_s`."""

    def __init__(self, folder: str | Path, interval_s: float = INTERVAL_S) -> None:
        self.folder = Path(folder)
        self.interval_s = interval_s
        self.problem = ""
        ctx = mp.get_context("spawn")
        self._ctx = ctx
        self._wanted = ctx.Event()
        self._closing = ctx.Event()
        self._writes = ctx.Value("i", 0)
        self._problems = ctx.Queue()
        self._process: Any = None

    @property
    def writes(self) -> int:
        """Pages written so far."""
        return int(self._writes.value)

    def refresh(self) -> None:
        """Ask for the page to be rewritten soon (returns at once)."""
        if self._process is None:
            self._process = self._ctx.Process(
                target=_serve, name="tempo-page", daemon=True,
                args=(str(self.folder), self.interval_s, os.getpid(), self._wanted,
                      self._closing, self._writes, self._problems))
            self._process.start()
        self._wanted.set()

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop refreshing; waits (up to `timeout_s`) for a write in progress to end, since the
        final page is the run's own to write after this."""
        self._closing.set()
        self._wanted.set()
        if self._process is not None:
            self._process.join(timeout_s)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        while True:
            try:
                self.problem = self._problems.get_nowait()
            except (queue.Empty, OSError, ValueError):
                break
