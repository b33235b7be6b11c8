"""Writing a results folder's page: `report.html`, gathered, drawn and replaced atomically.

`write_run_page` reads the store once (read-only), computes the page's tables, draws its figures
as SVG and renames the finished file over the old one, so a browser never reads half a page.
"""

from __future__ import annotations

import fcntl
import gc
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lab.export import write_atomically
from lab.machine import machine
from lab.page.data import read_folder, summarize
from lab.page.games import game_pgns
from lab.page.render import run_page
from lab.page.svg import inline_svg, llr_figure
from lab.plots.time_usage import time_usage_figure
from lab.store import LOCK_NAME

PAGE_NAME = "report.html"


def run_in_progress(folder: str | Path) -> bool:
    """True while a run holds the folder's run lock (`Store.lock_for_run`); only tested, with a
    shared lock on the lock file opened for reading, never created."""
    path = Path(folder) / LOCK_NAME
    if not path.is_file():
        return False
    with open(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def this_machine() -> tuple[str, str]:
    """This computer's host name and a line about it (CPU, cores, OS, Python)."""
    return socket.gethostname(), machine()


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """CPython's cycle collector paused for the block, resumed (not run) after it.

    A page of 100k moves makes millions of small objects (rows, columns, JSON) that form no
    cycles; each full collection while they live walks all of them: 0.15-0.35 s of a 2.5 s
    write (`tempo bench page`, timed with `gc.callbacks`). Reference counting still frees
    everything; the figures' cycles wait for the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def write_run_page(folder: str | Path, running: bool = False) -> Path:
    """Write `folder/report.html` from the folder's store; returns its path. `running` says the
    run is still playing (the page then shows an ETA and reloads itself)."""
    with _without_cyclic_gc():
        return _write_run_page(Path(folder), running)


def _write_run_page(folder: Path, running: bool) -> Path:
    """`write_run_page`'s work: read, summarize, draw, render, replace."""
    summary = summarize(read_folder(folder), running=running, local=this_machine())
    time_svg, time_note = "", "no moves recorded yet"
    if not summary.moves.empty:
        try:
            time_svg = inline_svg(time_usage_figure(summary.moves, summary.games), "time usage")
        except ValueError as exc:
            time_note = f"no time-usage figure: {exc}"
    llr_svg = inline_svg(llr_figure(summary.sprt), "SPRT LLR") if summary.sprt else ""
    pgns = game_pgns(folder, summary.games, summary.moves, summary.name)
    text = run_page(summary, time_svg, time_note, llr_svg, pgns)
    return write_atomically(folder / PAGE_NAME,
                            lambda tmp: tmp.write_text(text, encoding="utf-8"))
