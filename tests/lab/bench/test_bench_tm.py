"""`tempo bench tm`: the per-manager table from real self-play games of our engine."""

from __future__ import annotations

import pandas as pd
import pytest

from lab.bench.tm import manager_figures
from lab.cli import main


def test_figures_count_forfeits_time_used_and_node_spread() -> None:
    games = pd.DataFrame({"game_id": ["g1", "g2"], "termination": ["normal", "time forfeit"]})
    moves = pd.DataFrame({
        "game_id": ["g1"] * 4,
        "engine": ["x", "y", "x", "y"],
        "side": ["white", "black", "white", "black"],
        "ply": [1, 2, 3, 4],
        "elapsed_ms": [100.0, 200.0, 300.0, 200.0],
        "clock_after_ms": [900.0, 800.0, 600.0, 600.0],
        "nodes": [100, 300, 300, 300],
        "depth": [3, 4, 5, 4],
        "tm_used_ms": [100, 200, 300, 200],
        "tm_budget_ms": [100, 400, 200, 0],
    })
    row = manager_figures("m", games, moves)
    # White used 400 of 1000 ms, Black 400 of 1000: 40 %; no side of 50+ moves. Used/budget
    # 1.0, 0.5, 1.5 (a 0 budget is left out): median 1.0. Nodes CV: White 141.4/200, Black 0.
    assert row == {"manager": "m", "games": 2, "time forfeits": 1, "used %": 40.0,
                   "used % 50+": None, "used/budget": 1.0, "nodes/move": 250,
                   "nodes CV": 0.35, "depth": 4.0}


def test_spread_counts_the_first_40_moves_and_long_sides_their_time() -> None:
    """60 moves of one side: nodes alternate 100/300 for 40 moves, then 10000 (left out of the
    spread: CV = 100*sqrt(40/39)/200 = 0.51); 10 ms a move with 400 ms left: 60 % used."""
    plies = range(1, 120, 2)
    nodes = [100 if i % 2 == 0 else 300 for i in range(40)] + [10_000] * 20
    moves = pd.DataFrame({
        "game_id": "g", "engine": "x", "side": "white", "ply": list(plies),
        "elapsed_ms": 10.0, "clock_after_ms": [1000.0 - 10 * (i + 1) for i in range(59)] + [400.0],
        "nodes": nodes,
    })
    row = manager_figures("m", pd.DataFrame({"game_id": ["g"], "termination": ["normal"]}),
                          moves)
    assert row["nodes CV"] == 0.51
    assert row["used %"] == row["used % 50+"] == 60.0
    assert row["used/budget"] is None and row["depth"] is None


@pytest.mark.slow
def test_bench_tm_plays_each_manager(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "tm", "--managers", "fraction,smooth", "--games", "2",
                 "--tc", "3+0.03"]) == 0
    out = capsys.readouterr().out
    table = [line.split() for line in out.splitlines()]
    rows = {line[0]: line[1:] for line in table if line and line[0] in ("fraction", "smooth")}
    assert set(rows) == {"fraction", "smooth"}
    assert all(row[0] == "2" for row in rows.values())
