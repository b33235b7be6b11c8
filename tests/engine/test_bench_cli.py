"""`tempo bench engine`: the engine's bench through CPython and PyPy processes, side by side."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.conftest import PYPY, REPO

TEMPO = Path(sys.executable).parent / "tempo"


@pytest.mark.slow
def test_tempo_bench_engine_prints_both_interpreters():
    out = subprocess.run(
        [str(TEMPO), "bench", "engine", "--depth", "2", "--modes", "alphabeta"], cwd=REPO,
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    header, _, row = out.strip().splitlines()
    assert "cpython nodes" in header and "pypy nodes" in header
    numbers = [int(n) for n in re.findall(r"\d+", row)]
    assert row.startswith("alphabeta")
    if PYPY.exists():
        cpython_nodes, pypy_nodes = numbers[0], numbers[4]
        assert cpython_nodes == pypy_nodes > 0  # the same search on both interpreters
    else:
        assert "not available" in row


def test_unknown_mode_is_an_error():
    done = subprocess.run(
        [str(TEMPO), "bench", "engine", "--modes", "alphabeta,bogus"], cwd=REPO,
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "bogus" in done.stderr
