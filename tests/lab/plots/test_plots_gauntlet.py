"""`tempo plot` on results folders written by real gauntlets (`tempo gauntlet`, real engines).

Stockfish only: no telemetry, on a clock or nodes-limited (no clock at all), and the plots must
still show time used. Our engine with the smooth manager: the telemetry panels.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from lab.cli import main
from lab.plots import game_time_figure, time_usage_figure
from lab.store import open_store

STOCKFISH = "/usr/games/stockfish"
BOOK = Path(__file__).resolve().parents[3] / "experiments" / "books" / "openings_8ply.epd"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.skipif(shutil.which(STOCKFISH) is None, reason="needs Debian's Stockfish")


def write_experiment(folder: Path, name: str, engines: str, tc: str = "2+0.05") -> Path:
    """A two-game paired gauntlet of the first engine, games cut at 20 moves."""
    path = folder / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ntc = "{tc}"\nconcurrency = 2\nmargin_ms = 200\n'
        f'out = "{folder / name}"\n\n'
        '[schedule]\ntype = "gauntlet"\nchallengers = ["challenger"]\ngames = 2\n\n'
        f'[openings]\nfile = "{BOOK}"\norder = "sequential"\npaired = true\n\n'
        "[adjudication]\nmax_moves = 20\n\n" + engines
    )
    return path


def is_png(path: Path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_SIGNATURE) and len(data) > 10_000


def frames(folder: Path):
    with open_store(folder) as store:
        return store.games(), store.moves()


def test_stockfish_gauntlet_without_telemetry_plots_time_used(tmp_path, capsys):
    engines = (
        f'[[engines]]\nname = "challenger"\ncmd = ["{STOCKFISH}"]\n\n'
        f'[[engines]]\nname = "sf-weak"\ncmd = ["{STOCKFISH}"]\n'
        'options = { "Skill Level" = 0 }\n'
    )
    experiment = write_experiment(tmp_path, "sf", engines, tc="1+0.05")
    assert main(["gauntlet", str(experiment), "--plain"]) == 0
    results = tmp_path / "sf"
    capsys.readouterr()

    games, moves = frames(results)
    assert len(games) == 2
    assert not any(c.startswith("tm_") for c in moves.columns)
    assert main(["plot", "time", str(results)]) == 0
    assert is_png(results / "time_usage.png")
    fig = time_usage_figure(moves, games)
    time_ax = next(ax for ax in fig.axes if ax.get_title().startswith("Time used per move"))
    assert sorted(line.get_label() for line in time_ax.get_lines()) == ["challenger", "sf-weak"]
    top = max(max(line.get_ydata()) for line in time_ax.get_lines())
    assert 0 < top <= moves["elapsed_ms"].max() / 1000
    frac_ax = next(ax for ax in fig.axes if ax.get_title().startswith("Fraction"))
    assert sorted(t.get_text() for t in frac_ax.get_legend().get_texts()) == [
        "challenger (2 games)", "sf-weak (2 games)",
    ]

    for game_id in games["game_id"]:
        assert main(["plot", "time", str(results), "--game", game_id]) == 0
        assert is_png(results / f"time_{game_id}.png")
    fig = game_time_figure(moves, games["game_id"].iloc[0], games)
    assert "no time-manager telemetry" in fig.get_suptitle()
    assert main(["plot", "score", str(results)]) == 0
    assert capsys.readouterr().out.split()[-1] == str(results / "score_challenger.png")
    assert is_png(results / "score_challenger.png")


def test_nodes_limited_gauntlet_has_no_clock_but_plots_time_used(tmp_path, capsys):
    engines = (
        f'[[engines]]\nname = "challenger"\ncmd = ["{STOCKFISH}"]\n\n'
        f'[[engines]]\nname = "sf-small"\ncmd = ["{STOCKFISH}"]\ntc = "nodes=1000"\n'
    )
    experiment = write_experiment(tmp_path, "nodes", engines, tc="nodes=4000")
    assert main(["gauntlet", str(experiment), "--plain"]) == 0
    results = tmp_path / "nodes"
    games, moves = frames(results)
    assert moves["clock_after_ms"].isna().all()
    assert main(["plot", "time", str(results)]) == 0
    assert is_png(results / "time_usage.png")
    fig = time_usage_figure(moves, games)
    frac_ax = next(ax for ax in fig.axes if ax.get_title().startswith("Fraction"))
    assert any("no clock data" in t.get_text() for t in frac_ax.texts)
    nodes_ax = next(ax for ax in fig.axes if ax.get_title().startswith("Nodes per move"))
    means = {line.get_label(): np.mean(line.get_ydata()) for line in nodes_ax.get_lines()}
    assert means["sf-small"] < means["challenger"]  # 1000 against 4000 nodes a move
    game_id = games["game_id"].iloc[1]
    assert main(["plot", "time", str(results), "--game", game_id]) == 0
    assert is_png(results / f"time_{game_id}.png")


@pytest.mark.slow
def test_tempo_gauntlet_plots_the_smooth_managers_telemetry(tmp_path, capsys):
    engines = (
        '[[engines]]\nname = "challenger"\nbuiltin = "tempo"\n'
        'options = { TimeManager = "smooth" }\n\n'
        f'[[engines]]\nname = "sf-nodes"\ncmd = ["{STOCKFISH}"]\ntc = "nodes=2000"\n'
    )
    experiment = write_experiment(tmp_path, "tempo", engines, tc="4+0.1")
    assert main(["gauntlet", str(experiment), "--plain"]) == 0
    results = tmp_path / "tempo"
    games, moves = frames(results)
    ours = moves[moves["engine"] == "challenger"]
    assert ours["tm_budget_ms"].notna().all() and (ours["tm_tm"] == "smooth").all()

    assert main(["plot", "time", str(results)]) == 0
    assert is_png(results / "time_usage.png")
    fig = time_usage_figure(moves, games)
    time_ax = next(ax for ax in fig.axes if ax.get_title().startswith("Time used per move"))
    assert sorted(line.get_label() for line in time_ax.get_lines()) == [
        "challenger [smooth]", "challenger [smooth]: budget", "sf-nodes",
    ]
    game_id = games["game_id"].iloc[0]
    assert main(["plot", "time", str(results), "--game", game_id, "--format", "svg"]) == 0
    assert "Moves-left estimate" in (results / f"time_{game_id}.svg").read_text()
    fig = game_time_figure(moves, game_id, games)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(titles) == 5, titles
