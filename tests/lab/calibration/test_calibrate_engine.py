"""Our engine as the calibrated engine: its parameters read from its `debug on` dump, the
tables the calibration writes loaded through `EloTable`, and a tiny calibration end to end."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from lab.calibration import load_calibration, run_calibration
from lab.calibration.probe import (
    ProbeError,
    check_table_loads,
    level_parameters,
    probe_level,
)
from lab.calibration.tables import write_elo_table
from lab.experiment import BUILTIN_ENGINES
from lab.records import EngineSpec

BOOK = Path(__file__).resolve().parents[3] / "experiments" / "books" / "openings_8ply.epd"
TEMPO = EngineSpec("tempo", list(BUILTIN_ENGINES["tempo"]))
#: The limit on, playing MadChess's formulas (`EloTable` empty) unless a test names a table.
LIMIT = {"EloTable": "", "UCI_LimitStrength": True}


@pytest.fixture(scope="module", autouse=True)
def engine_dumps_its_parameters():
    """These tests need the engine's Elo limit wired into its UCI loop (`debug on` dump)."""
    if "NPS" not in probe_level(TEMPO, {**LIMIT, "UCI_Elo": 1200}).params:
        pytest.skip("our engine prints no strength parameters with 'debug on' yet "
                    "(UCI_LimitStrength/EloTable not wired into engine/uci.py)")


def test_formula_parameters_come_from_the_engine():
    # docs/reference/elo_limit.md §1.2: MadChess 3.2 beta at 1200 and 1600 Elo, which UCI_Elo
    # 942 and 1170 play (the declared range 600..1740 mapped onto the formulas' 600..2600).
    params = level_parameters(TEMPO, {e: {**LIMIT, "UCI_Elo": e} for e in (942, 1170)})
    assert [params[942][k] for k in ("NPS", "MoveError", "BlunderError", "BlunderPer128")] == \
        [16700, 27, 276, 13]
    assert [params[1170][k] for k in ("NPS", "MoveError", "BlunderError", "BlunderPer128")] == \
        [125500, 16, 147, 11]
    # §1.5: knowledge per 128 at 1200 (passed pawns full, king safety 96, mobility 64)
    assert params[942]["passed_pawns"] == 1.0
    assert params[942]["king_safety"] == 96 / 128 and params[942]["mobility"] == 64 / 128


def test_a_written_table_is_what_the_engine_plays(tmp_path):
    rows = {1000: {"NPS": 2500, "MoveError": 40, "BlunderError": 420, "BlunderPer128": 15,
                   "mobility": 0.25},
            1500: {"NPS": 40000, "MoveError": 22, "BlunderError": 230, "BlunderPer128": 12,
                   "mobility": 0.75}}
    path = write_elo_table(tmp_path / "table.csv", rows, ["test table"])
    for elo, row in rows.items():
        dumped = check_table_loads(TEMPO, path, elo).params
        for column in ("NPS", "MoveError", "BlunderError", "BlunderPer128", "mobility"):
            assert dumped[column] == row[column], (elo, column)


def test_a_broken_table_is_reported_with_the_engines_words(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("Elo,NPS,MoveError,BlunderError\n1000,1,2,3\n")
    with pytest.raises(ProbeError, match="BlunderPer128"):
        check_table_loads(TEMPO, bad, 1000)
    result = probe_level(TEMPO, {**LIMIT, "UCI_Elo": 1400})
    assert not result.errors


TINY_TEMPO = f"""
name = "tiny-tempo"
tc = "2+0.02"
concurrency = 2
margin_ms = 300

[levels]
values = [1000, 1600]
targets = {{ start = 600, stop = 1660, step = 20 }}
games = 6
ladder_games = 6
rounds = 1
passes = 1

[engine]
builtin = "tempo"
options = {{ Hash = 16 }}

# our own levels as anchors, pinned at their names (the issue allows levels already calibrated)
[[anchors]]
name = "a1100"
builtin = "tempo"
options = {{ Hash = 16, UCI_LimitStrength = true, UCI_Elo = 1100 }}
rating = 1100

[[anchors]]
name = "a1600"
builtin = "tempo"
options = {{ Hash = 16, UCI_LimitStrength = true, UCI_Elo = 1600 }}
rating = 1600

[openings]
file = "{BOOK}"

[adjudication]
max_moves = 100
"""


@pytest.mark.slow
def test_tiny_calibration_of_our_engine_writes_a_table_it_loads(tmp_path):
    path = tmp_path / "cal.toml"
    path.write_text(TINY_TEMPO)
    cal = load_calibration(path, out=str(tmp_path / "out"))
    outcome = run_calibration(cal, stream=io.StringIO())
    table = outcome.final
    assert table is not None and table.name == "elo_table.csv"
    assert (tmp_path / "out" / "calibration.png").read_bytes()[:4] == b"\x89PNG"
    rows = pd.read_csv(table, comment="#").set_index("Elo")
    assert list(rows.columns[:4]) == ["NPS", "MoveError", "BlunderError", "BlunderPer128"]
    assert rows["NPS"].is_monotonic_increasing and rows["MoveError"].is_monotonic_decreasing
    # the two levels' own parameters bracket every corrected row
    params = outcome.rounds[0].params
    assert params[1000]["NPS"] <= rows["NPS"].min() <= rows["NPS"].max() <= params[1600]["NPS"]
    elo = int(rows.index[len(rows) // 2])
    dumped = check_table_loads(TEMPO, table, elo).params
    assert dumped["NPS"] == rows.loc[elo, "NPS"]
    assert dumped["BlunderError"] == rows.loc[elo, "BlunderError"]
