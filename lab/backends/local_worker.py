"""A local pool's worker process: play the games it is given, one at a time, keeping its engines.

Its own module, importing only the game and the engine processes: the one job of a worker, and
all a process started by another backend's means (a spawned interpreter) would have to import.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import traceback
from typing import Any

from lab.engine_process import EnginePool
from lab.game import play_game
from lab.interrupt import default_sigterm


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the run's process dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(1)


def worker_main(worker_id: int, inbox: Any, outbox: Any) -> None:
    """A worker process: play the games it is given, one at a time, keeping its engines."""
    _die_with_parent()
    os.setpgrp()  # its own group: Ctrl-C goes to the run, which stops workers and engines
    default_sigterm()  # the run's handler is inherited by the fork; the run kills workers itself
    # XBoard engines chatter ("Unexpected engine output" warnings) over the progress display
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    with EnginePool() as pool:
        while True:
            task = inbox.get()
            if task is None:
                break
            try:
                outbox.put(("done", worker_id, play_game(task, pool)))
            except BaseException:
                outbox.put(("error", worker_id, traceback.format_exc()))
