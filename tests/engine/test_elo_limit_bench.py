"""`tempo bench elo` (lab/bench/elo.py): the score matrix, each level's search effort and the
saturation Elos found from the engine's own dumps, and a tiny ladder end to end."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pandas as pd
import pytest

from engine.strength import (
    CALIBRATED,
    FULL_STRENGTH_ELO,
    formula_elo,
    load_elo_table,
    params_for_elo,
)
from engine.strength.range import LADDER_MIN_ELO
from engine.strength.throttle import rescaled_nps
from lab.bench.elo import (
    LimitProbe,
    nodes_per_move,
    parse_levels,
    probe_spec,
    saturation_elo,
    score_matrix,
)
from tests.engine.conftest import REPO


def test_score_matrix_counts_points_both_ways():
    games = pd.DataFrame({
        "white": ["L800", "full", "L800", "full", "L800"],
        "black": ["full", "L800", "L1400", "L1400", "L1400"],
        "result": ["0-1", "1/2-1/2", "1-0", "1-0", "*"],
    })
    matrix = score_matrix(games, ["L800", "L1400", "full"])
    assert matrix.loc["L800", "full"] == "0.5/2" and matrix.loc["full", "L800"] == "1.5/2"
    assert matrix.loc["L800", "L1400"] == "1/1" and matrix.loc["L1400", "L800"] == "0/1"
    assert matrix.loc["full", "L1400"] == "1/1" and matrix.loc["L800", "L800"] == "-"
    assert list(matrix["score %"]) == ["50", "0", "83"]


def test_saturation_is_the_lowest_elo_whose_limit_is_reached():
    def limit(elo: int) -> int:
        return (elo - 500) * 10

    assert saturation_elo(5000, limit, (600, 1720)) == 1000
    assert saturation_elo(5001, limit, (600, 1720)) == 1001
    assert saturation_elo(10, limit, (600, 1720)) == 600
    assert saturation_elo(12190, limit, (600, 1720)) == 1719  # the top limited level
    assert saturation_elo(12191, limit, (600, 1720)) is None  # 1720 is full strength


def formulas() -> LimitProbe:
    """A probe of the levels MadChess's formulas give (`EloTable` empty), whose figures the
    reference states, rather than the calibrated table the engine loads by default."""
    return LimitProbe(dataclasses.replace(probe_spec(), options={"EloTable": ""}))


def test_the_probe_reads_the_loaded_tables_range():
    """With the table the engine loads by default, the range starts at its first row (710), not
    at the 600 the option declares for the formulas, so `--levels` below it are refused."""
    with LimitProbe() as probe:
        assert probe.elo_range == (710, FULL_STRENGTH_ELO)
    with pytest.raises(ValueError, match=r"distinct Elos in 710\.\.1739 needed"):
        parse_levels("650,900", probe.elo_range)


def test_saturation_from_the_engines_dumps():
    # UCI_Elo 1170 plays the formulas' 1600 (125,500 NPS) and 1169 their 1598 (reference §0).
    with formulas() as probe:
        assert probe.elo_range == (LADDER_MIN_ELO, FULL_STRENGTH_ELO)
        assert probe.nps(1170) == params_for_elo(1600).nps == 125_500
        assert probe.nps(1169) == params_for_elo(1598).nps < 125_500
        assert saturation_elo(125_500, probe.nps, probe.elo_range) == 1170
        assert saturation_elo(125_501, probe.nps, probe.elo_range) == 1171
        assert saturation_elo(2_000_501, probe.nps, probe.elo_range) is None


def test_each_levels_effort_is_the_engines_own():
    """The dump's node budget, depth cap and throttle NPS are what the engine plays with, and
    the node budgets' saturation Elo is the lowest level whose budget reaches a node count."""
    with formulas() as probe:
        for elo in (700, 1200, 1600):
            effort = probe.effort(elo)
            params = params_for_elo(formula_elo(elo))
            assert (effort.nps, effort.nodes, effort.depth_cap) == (
                params.nps, params.nodes, params.depth_cap)
            assert effort.throttle_nps == rescaled_nps(params.nps)
        budget = probe.nodes(1200)
        where = saturation_elo(budget, probe.nodes, probe.elo_range)
        assert where <= 1200 and probe.nodes(where) >= budget > probe.nodes(where - 1)


def test_nodes_per_move_is_each_engines_median():
    moves = pd.DataFrame({"engine": ["full", "full", "full", "L800", "L800"],
                          "nodes": [100, 5000, 300, 40, None]})
    assert nodes_per_move(moves) == {"full": 300, "L800": 40}


def test_levels_are_checked():
    assert parse_levels("1700, 800,1400", (600, 1720)) == [800, 1400, 1700]
    for bad in ("800,800", "500", "1720", "2000", "x", ""):  # 1720: the top, full strength
        with pytest.raises(ValueError, match="--levels"):
            parse_levels(bad, (600, 1720))


@pytest.mark.slow
def test_tiny_ladder_end_to_end(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "lab.cli", "bench", "elo", "--levels", "800", "--games", "2",
         "--tc", "2+0.02", "--interpreter", "cpython", "--concurrency", "2", "--bench-depth",
         "2", "--out", str(tmp_path / "ladder")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    row = next(line for line in lines if line.startswith("L800 ") and "/2" in line)
    full = next(line for line in lines if line.startswith("full ") and "/2" in line)
    assert row.split()[1] == "-" and full.split()[2] == "-"
    assert float(row.split()[2].split("/")[0]) + float(full.split()[1].split("/")[0]) == 2
    limit_row = next(line for line in lines if line.startswith("L800 ") and "/" not in line)
    with LimitProbe() as probe:
        effort = probe.effort(800)
    nps = load_elo_table(CALIBRATED).params_for_elo(800).nps  # the engine's default table
    assert limit_row.split()[1:5] == [str(nps), str(effort.nodes), str(effort.depth_cap),
                                      str(effort.throttle_nps)]
    assert any(line.startswith("LimitMode nodes (played here): full strength searched a median")
               for line in lines)
    assert any("cpython" in line and "NPS" in line for line in lines)
