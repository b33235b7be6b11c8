"""The Elo table shipped with the engine (engine/strength/calibrated.py): `EloTable`'s default
`<calibrated>` loads it, empty plays MadChess's formulas, and the shipped file is the
calibration's own table, byte for byte (over UCI: tests/engine/test_elo_limit.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

from engine.limiter import StrengthLimiter
from engine.options import Options
from engine.strength import (
    CALIBRATED,
    SHIPPED_TABLE,
    EloTable,
    formula_elo,
    load_elo_table,
    params_for_elo,
)
from tests.engine.conftest import REPO

#: Where the shipped table comes from: the final calibration's round 2 correction, the table its
#: round 3 (the last) measured (final-v5; results/calibration/README.md says which criteria it
#: passes); round 3's own correction is not played.
SOURCE = REPO / "results" / "calibration" / "final-v5" / "round2" / "corrected_elo_table.csv"


def test_the_shipped_table_is_the_calibrations():
    assert SHIPPED_TABLE.read_bytes() == SOURCE.read_bytes()
    rows = EloTable.load(str(SHIPPED_TABLE)).rows
    assert (rows[0].elo, rows[-1].elo) == (710, 1710)  # measured reach; 1710 is full effort


def test_the_default_is_the_shipped_table_and_empty_the_formulas():
    shipped = EloTable.load(str(SHIPPED_TABLE))
    assert load_elo_table(CALIBRATED).rows == shipped.rows and load_elo_table("") is None
    strength = StrengthLimiter(Options())
    assert Options()["EloTable"] == CALIBRATED and strength.table.rows == shipped.rows
    strength.set_option("UCI_LimitStrength", "true")
    strength.set_option("UCI_Elo", "710")
    assert strength.params.nps == shipped.params_for_elo(710).nps == 6066
    strength.set_option("EloTable", "")
    assert strength.table is None
    assert strength.params.nps == params_for_elo(formula_elo(710)).nps != 6066
    strength.set_option("EloTable", CALIBRATED)
    assert strength.params.nps == 6066


@pytest.mark.slow
def test_a_built_wheel_ships_the_table(tmp_path):
    """An installed engine (not this checkout) finds its default table: pyproject.toml's
    package data puts it in the wheel. Builds the wheel as pip installs one (its build
    isolation fetches setuptools, as scripts/setup.sh's install does)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for name in ("engine", "timecontrol", "lab"):
        shutil.copytree(REPO / name, source / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(tmp_path / "dist"), str(source)], check=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("engine/strength/elo_table.csv") == SHIPPED_TABLE.read_bytes()
