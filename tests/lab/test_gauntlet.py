"""Real gauntlets through real processes: our engine against itself and against Stockfish; the demo.

Our engine runs as its own process through its launcher (`builtin = "tempo"`), exactly as in an
experiment file.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from lab.experiment_file import load_experiment
from lab.runner import probe_engines, run_experiment
from lab.schedule import build_schedule
from lab.store import open_store

ROOT = Path(__file__).parents[2]
DEMO = ROOT / "experiments" / "demo.toml"
BOOK = ROOT / "experiments" / "books" / "openings_8ply.epd"


def engine_works() -> bool:
    try:
        result = subprocess.run([sys.executable, "-m", "engine"], input="uci\nisready\nquit\n",
                                capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "uciok" in result.stdout and "readyok" in result.stdout


needs_engine = pytest.mark.skipif(not engine_works(), reason="our engine does not run yet")

SELF_PLAY = """
name = "self"
tc = "3+0.05"
concurrency = 2
margin_ms = 100
out = "{out}"

[schedule]
challengers = ["smooth"]
games = 2

[openings]
file = "{book}"
order = "random"
seed = 9

[adjudication]
resign_move_count = 3
resign_score_cp = 600
max_moves = 60

[[engines]]
name = "smooth"
builtin = "tempo"
options = {{ TimeManager = "smooth" }}

[[engines]]
name = "{second}"
{second_engine}
"""


def run(tmp_path: Path, second: str, second_engine: str):
    path = tmp_path / "exp.toml"
    path.write_text(SELF_PLAY.format(out=tmp_path / "out", book=BOOK, second=second,
                                     second_engine=second_engine))
    exp = load_experiment(path)
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    with open_store(exp.out) as store:
        return exp, outcome, store.games(), store.moves()


def check_pgn(path: Path, count: int) -> None:
    with open(path) as handle:
        games = [g for g in iter(lambda: chess.pgn.read_game(handle), None)]
    assert len(games) == count and not any(g.errors for g in games)
    for game in games:
        assert game.headers["SetUp"] == "1" and game.end().board().is_valid()


@needs_engine
def test_our_engine_against_itself_with_two_time_managers(tmp_path):
    exp, outcome, games, moves = run(tmp_path, "fraction",
                                     'builtin = "tempo"\noptions = { TimeManager = "fraction" }')
    assert outcome.exit_code == 0
    assert sorted(games["game_id"]) == sorted(t.game_id for t in build_schedule(exp))
    assert not games["termination"].isin(["abandoned", "stalled connection",
                                          "rules infraction"]).any()
    # the telemetry of each manager reaches the store, one column per key
    by_engine = moves.groupby("engine")["tm_tm"].agg(lambda s: set(s.dropna()))
    assert by_engine["smooth"] == {"smooth"} and by_engine["fraction"] == {"fraction"}
    for key in ("tm_budget_ms", "tm_used_ms", "tm_stop_reason"):
        assert moves[key].notna().mean() > 0.9
    check_pgn(exp.out / "games.pgn", 2)


@needs_engine
def test_our_engine_against_stockfish(tmp_path):
    exp, outcome, games, moves = run(
        tmp_path, "stockfish",
        'cmd = ["/usr/games/stockfish"]\ntc = "1+0.02"\n'
        'options = { "Skill Level" = 0, Threads = 1, Hash = 16 }')
    assert outcome.exit_code == 0 and len(games) == 2
    assert set(games["white"]) == {"smooth", "stockfish"}
    # time odds: each side's own control is recorded and exported
    assert (games["white_tc"] != games["black_tc"]).all()
    sf_moves = moves[moves["engine"] == "stockfish"]
    assert sf_moves["tm_tm"].isna().all() and sf_moves["depth"].notna().all()
    with open(exp.out / "games.pgn") as handle:
        first = chess.pgn.read_game(handle)
    assert {first.headers["WhiteTimeControl"], first.headers["BlackTimeControl"]} == {
        "3+0.05", "1+0.02"}


def test_demo_experiment_is_a_paired_self_play_gauntlet():
    exp = load_experiment(DEMO)
    assert exp.schedule == "gauntlet" and exp.challengers == ["smooth"]
    assert exp.openings.paired and exp.concurrency == 2
    assert Path(exp.openings.file) == BOOK.resolve()
    assert {e.name: e.options.get("TimeManager") for e in exp.engines} == {
        "smooth": "smooth", "fraction": "fraction", "elo1500": "smooth"}
    assert exp.engine("elo1500").options["UCI_LimitStrength"] is True
    tasks = build_schedule(exp)
    assert 20 <= len(tasks) <= 40 and len({t.pair_id for t in tasks}) == len(tasks) // 2
    assert exp.out == Path("results/demo")


@needs_engine
def test_demo_engines_accept_their_options():
    identities = probe_engines(load_experiment(DEMO))
    assert {i.name for i in identities.values()} == {identities["smooth"].name}


@pytest.mark.slow
@needs_engine
def test_the_demo_runs_and_writes_its_results(tmp_path):
    result = subprocess.run([sys.executable, "-m", "lab.cli", "gauntlet", str(DEMO), "--out",
                             str(tmp_path / "demo"), "--plain"], capture_output=True, text=True,
                            timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "demo"
    for name in ("tempo.sqlite", "games.pgn", "moves.csv", "ratings.csv", "time_usage.png"):
        assert (out / name).exists()
    with open_store(out) as store:
        assert store.game_count() == len(build_schedule(load_experiment(DEMO)))
    assert "smooth" in result.stdout and "RATING" in result.stdout
