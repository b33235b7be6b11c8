"""Shared fixtures of the lab tests: engine specs for Stockfish, the fakes and the bench engine."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lab.records import EngineSpec
from timecontrol.control import parse_time_control

FAKES = Path(__file__).parent / "fakes"
STOCKFISH = "/usr/games/stockfish"
PHALANX = "/usr/games/phalanx"


@pytest.fixture
def stockfish() -> Callable[..., EngineSpec]:
    """`stockfish(name, tc, **options)`: a one-thread, 16 MB Stockfish spec (`tc` as text)."""
    if not os.access(STOCKFISH, os.X_OK):
        pytest.skip("Stockfish is not installed at /usr/games/stockfish")

    def make(name: str = "stockfish", tc: str | None = None, **options: object) -> EngineSpec:
        return EngineSpec(name, [STOCKFISH], options={"Threads": 1, "Hash": 16, **options},
                          tc=parse_time_control(tc) if tc else None)

    return make


@pytest.fixture
def fake() -> Callable[..., EngineSpec]:
    """`fake(name, tc, --flag=value...)`: the misbehaving UCI engine of tests/lab/fakes/fake_uci.py
    (`tc` as text)."""

    def make(name: str = "fake", tc: str | None = None, **flags: object) -> EngineSpec:
        args = [f"--{key.replace('_', '-')}={value}" for key, value in flags.items()]
        return EngineSpec(name, [sys.executable, str(FAKES / "fake_uci.py"), *args],
                          tc=parse_time_control(tc) if tc else None)

    return make


@pytest.fixture
def instant() -> EngineSpec:
    """The bench's instant-move engine."""
    return EngineSpec("instant", [sys.executable, "-m", "lab.bench._instant_engine"])


@pytest.fixture
def phalanx() -> EngineSpec:
    """Debian's phalanx as an XBoard engine (learning off, so it writes no files)."""
    if not os.access(PHALANX, os.X_OK):
        pytest.skip("phalanx is not installed at /usr/games/phalanx")
    return EngineSpec("phalanx", [PHALANX, "-l-"], protocol="xboard")


@pytest.fixture
def no_setboard_xboard() -> EngineSpec:
    """An XBoard engine without the setboard feature (as Debian's fairymax)."""
    return EngineSpec("fairy", [sys.executable, str(FAKES / "fake_xboard.py")], protocol="xboard")


@pytest.fixture
def tempo() -> EngineSpec:
    """Our engine through its launcher (CPython, the launcher's default)."""
    launcher = Path(sys.executable).parent / "tempo-engine"
    if not os.access(launcher, os.X_OK):
        pytest.skip(f"{launcher} is not installed")
    return EngineSpec("tempo", [str(launcher)])
