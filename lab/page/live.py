"""Keeping a run's page current while it plays, off the game path.

The run calls `LivePage.refresh` after each stored game; that only sets a flag. A thread of its
own rewrites the page (reading the store through its own read-only connection) when the flag is
set, then waits `interval_s` before it looks again, so a burst of games costs one write and the
loop that hands out games never waits for a page. A page that cannot be written never stops a
run: the failure is kept in `problem` and the next refresh tries again.
"""

from __future__ import annotations

import threading
from pathlib import Path

#: Seconds between two writes of the page while a run plays.
INTERVAL_S = 5.0


class LivePage:
    """Rewrites `folder/report.html` after finished games, at most every `interval_s`."""

    def __init__(self, folder: str | Path, interval_s: float = INTERVAL_S) -> None:
        self.folder = Path(folder)
        self.interval_s = interval_s
        self.writes = 0
        self.problem = ""
        self._wanted = threading.Event()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None

    def refresh(self) -> None:
        """Ask for the page to be rewritten soon (returns at once)."""
        self._wanted.set()
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="tempo-page", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop refreshing; waits for a write in progress to end (the final page is the run's
        own to write, after this)."""
        self._closing.set()
        self._wanted.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        from lab.page.write import write_run_page

        while True:
            self._wanted.wait()
            if self._closing.is_set():
                return
            self._wanted.clear()
            try:
                write_run_page(self.folder, running=True)
                self.writes += 1
                self.problem = ""
            except Exception as exc:  # a page must never stop a run
                self.problem = f"report.html not refreshed: {exc!r}"
            if self._closing.wait(self.interval_s):
                return
