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


CUT_NUMPY_IMPORT = """
import contextlib, os, signal, sys
from lab.interrupt import signals_held
signal.signal(signal.SIGINT, signal.default_int_handler)

class CtrlCInsideNumpy:
    # Ctrl-C while numpy's compiled core, half initialised, imports its exceptions module
    # (numpy._core in numpy 2, numpy.core in 1.x): the cut that leaves numpy unimportable
    def find_spec(self, name, path=None, target=None):
        if name in ("numpy._core._exceptions", "numpy.core._exceptions"):
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlCInsideNumpy())
try:
    with (signals_held() if sys.argv[1] == "held" else contextlib.nullcontext()):
        import numpy
    print("imported")
except KeyboardInterrupt:
    print("interrupted")
try:
    import numpy
    print(numpy.arange(3).sum())
except ImportError as error:
    print("broken:", error)
"""


def cut_numpy_import(hold: str) -> list[str]:
    """Run an import of numpy that Ctrl-C cuts inside its core, held or not; what it printed."""
    done = subprocess.run([sys.executable, "-c", CUT_NUMPY_IMPORT, hold], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


def test_an_import_of_numpy_cut_by_ctrl_c_completes_first():
    """The failure it prevents: Ctrl-C in the middle of numpy's first import leaves numpy
    impossible to import again in the process; held, the import completes, the Ctrl-C is raised
    after it and numpy works."""
    unheld = cut_numpy_import("unheld")
    assert unheld[0] == "interrupted"
    assert unheld[1].startswith("broken:"), unheld
    assert cut_numpy_import("held") == ["interrupted", "3"]
