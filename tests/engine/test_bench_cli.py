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
        [str(TEMPO), "bench", "engine", "--depth", "2", "--modes", "alphabeta",
         "--search-depth", "0", "--seconds", ""], cwd=REPO,
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


@pytest.mark.slow
def test_tempo_bench_engine_prints_time_to_depth_and_depth_in_time():
    out = subprocess.run(
        [str(TEMPO), "bench", "engine", "--depth", "1", "--modes", "alphabeta",
         "--search-depth", "3", "--seconds", "0.3,1"], cwd=REPO,
        capture_output=True, text=True, timeout=600, check=True,
    ).stdout
    table = out.split("one engine process per interpreter:")[1].strip().splitlines()
    assert "cpython" in table[0] and "pypy" in table[0]
    rows = {line.split("|")[0].strip(): line.split("|")[1:] for line in table[2:]}
    assert set(rows) == {"s to depth 3, total", "s to depth 3, slowest",
                         "depth in 0.3 s, median (min)", "depth in 1 s, median (min)"}
    total, slowest = float(rows["s to depth 3, total"][0]), float(rows["s to depth 3, slowest"][0])
    assert 0 < slowest <= total
    short = int(rows["depth in 0.3 s, median (min)"][0].split("(")[1].rstrip(") "))
    long = int(rows["depth in 1 s, median (min)"][0].split("(")[1].rstrip(") "))
    assert 1 <= short <= long  # more time never reaches less deep on every position


@pytest.mark.parametrize(("seconds", "message"), [("1,x", "'x' is not a number"),
                                                  ("0", "'0' must be above 0")])
def test_bad_search_times_are_named(seconds, message):
    done = subprocess.run(
        [str(TEMPO), "bench", "engine", "--seconds", seconds], cwd=REPO,
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and message in done.stderr
