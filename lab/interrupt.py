"""SIGTERM stops a run the way Ctrl-C does.

`timeout`, `kill` and service managers send SIGTERM. Python's default for it ends the process at
once: no message, the workers' queues left to the interpreter's exit (multiprocessing then warns
about leaked semaphores). `tempo` turns SIGTERM into `Terminated`, a KeyboardInterrupt, so the run
stops its workers and engines, keeps its finished games and says so, and exits with 128 + 15 as a
process killed by SIGTERM would (Ctrl-C: 130).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Terminated(KeyboardInterrupt):
    """The run received SIGTERM."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def stop_on_sigterm() -> None:
    """From now on SIGTERM raises `Terminated` in the main thread."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def default_sigterm() -> None:
    """SIGTERM ends the process again (a forked worker, which the run stops by itself)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block ends, then act on the first that arrived.

    For imports made during a run: an interrupt that cuts the first import of numpy in half
    leaves it impossible to import again in the process ("cannot load module more than once per
    process"), and the stopped run could not write its report. Signals reach Python code in the
    main thread only, so elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        arrived.append(signum)

    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, hold) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if arrived:
        handler = previous[arrived[0]]
        if callable(handler):
            handler(arrived[0], None)
        elif handler == signal.SIG_DFL:
            signal.raise_signal(arrived[0])


def interrupted_exit_code(exc: KeyboardInterrupt) -> int:
    """The exit status of a run stopped by `exc`: 143 after SIGTERM, 130 after Ctrl-C."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


INTERRUPTED_MESSAGE = "tempo: interrupted; finished games are kept, run again to resume"
