"""Ctrl-C and SIGTERM held over a block (`signals_held`): the block finishes, then the run stops
as the signal asked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.interrupt import Terminated, signals_held, stop_on_sigterm


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """Ctrl-C raising KeyboardInterrupt, as in a terminal: a run started in the background by a
    non-interactive shell (CI's, say) inherits SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def deliver(signum: int) -> None:
    """Send `signum` to this process and give Python a moment to run its handler."""
    os.kill(os.getpid(), signum)
    time.sleep(0.05)


def test_ctrl_c_inside_the_block_is_raised_after_it():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with signals_held():
            deliver(signal.SIGINT)
            done.append("finished")
    assert done == ["finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_inside_the_block_stops_as_terminated_after_it():
    previous = signal.getsignal(signal.SIGTERM)
    stop_on_sigterm()
    try:
        done = []
        with pytest.raises(Terminated):
            with signals_held():
                deliver(signal.SIGTERM)
                deliver(signal.SIGINT)  # the first signal decides
                done.append("finished")
        assert done == ["finished"]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_quiet_block_changes_nothing():
    with signals_held():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        deliver(signal.SIGINT)


def test_an_ignored_ctrl_c_stays_ignored():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with signals_held():
        deliver(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_an_import_of_numpy_cut_by_ctrl_c_completes_first():
    """The failure it prevents: Ctrl-C in the middle of numpy's first import leaves numpy
    impossible to import again in the process; held, the import completes and numpy works."""
    code = """
import os, signal, sys, threading
from lab.interrupt import signals_held
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    with signals_held():
        # started inside the held block: a Ctrl-C that came while `start` waits for the timer's
        # thread would be raised there, before the import the test is about
        threading.Timer(0.001, os.kill, (os.getpid(), signal.SIGINT)).start()
        import numpy
        import time; time.sleep(0.05)
except KeyboardInterrupt:
    pass
import numpy
print(numpy.arange(3).sum())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"
