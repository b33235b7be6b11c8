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
    })
    row = manager_figures("m", games, moves)
    # White used 400 of 1000 ms, Black 400 of 1000: 40 %.
    assert row == {"manager": "m", "games": 2, "time forfeits": 1, "time used %": 40.0,
                   "nodes/move": 250, "nodes CV": 0.35}


@pytest.mark.slow
def test_bench_tm_plays_each_manager(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "tm", "--managers", "fraction,smooth", "--games", "2",
                 "--tc", "3+0.03"]) == 0
    out = capsys.readouterr().out
    table = [line.split() for line in out.splitlines()]
    rows = {line[0]: line[1:] for line in table if line and line[0] in ("fraction", "smooth")}
    assert set(rows) == {"fraction", "smooth"}
    assert all(row[0] == "2" for row in rows.values())
