"""Fixtures for engine tests: the engine is always a real process, driven through `chess.engine`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess.engine
import pytest

REPO = Path(__file__).resolve().parents[2]
ENGINE_CMD = [sys.executable, "-m", "engine"]
PYPY = REPO / ".venv-pypy" / "bin" / "python"


@pytest.fixture
def full_width(monkeypatch):
    """The alpha-beta search without its prunings and reductions (in-process searches only).

    They depend on the window (null move, futility, quiescence delta pruning) and on move order
    and history (LMR, late move pruning), so with them a move's score depends on what was searched
    before it; tests of what holds over a full-width tree (exact root scores, Greenblatt's
    selection being narrower) turn them off. test_selectivity.py tests them.
    """
    import engine.search.alphabeta as alphabeta

    monkeypatch.setattr(alphabeta, "NULL_MIN_DEPTH", 10**6)
    monkeypatch.setattr(alphabeta, "LMR_MIN_DEPTH", 10**6)
    monkeypatch.setattr(alphabeta, "SHALLOW_DEPTH", 0)
    monkeypatch.setattr(alphabeta, "DELTA_MARGIN", 10**6)


@pytest.fixture
def engine():
    """A fresh engine process (CPython) under python-chess's UCI driver."""
    process = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=30)
    try:
        yield process
    finally:
        process.quit()


def raw_engine() -> subprocess.Popen:
    """The engine as a bare process, for tests that need to write arbitrary bytes to it."""
    return subprocess.Popen(
        ENGINE_CMD, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, bufsize=1,
    )


def read_until(process: subprocess.Popen, prefix: str, limit: int = 100000) -> list[str]:
    """Lines of output up to and including the first that starts with `prefix`."""
    lines = []
    for _ in range(limit):
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"engine ended before {prefix!r}; got {lines[-5:]}")
        lines.append(line.rstrip("\n"))
        if line.startswith(prefix):
            return lines
    raise AssertionError(f"no {prefix!r} in {limit} lines")
