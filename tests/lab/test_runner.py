"""The runner: real games on the local pool, SPRT early stop, repeated-failure stop, standings."""

from __future__ import annotations

import io
import multiprocessing
import os
import signal
import sys
from pathlib import Path

import chess.pgn
import pytest

from lab import stats
from lab.backends.local import run_local
from lab.experiment import BookConfig, Experiment, SprtConfig, load_book_for
from lab.records import Adjudication, EngineSpec, GameRecord
from lab.runner import run_experiment
from lab.schedule import build_schedule
from lab.sprt_estimate import sequential_estimate
from lab.store import open_store
from lab.tournament import Tournament, faulty_engine
from timecontrol.control import parse_time_control

STOCKFISH = "/usr/games/stockfish"
FAKES = Path(__file__).parent / "fakes"
BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"


def sf(name: str, **options) -> EngineSpec:
    return EngineSpec(name, [STOCKFISH], options={"Threads": 1, "Hash": 16, **options})


def experiment(tmp_path: Path, engines: list[EngineSpec], games: int, tc: str = "nodes=3000",
               sprt: SprtConfig | None = None, concurrency: int = 2) -> Experiment:
    exp = Experiment(
        name="t", engines=engines, tc=parse_time_control(tc), schedule="gauntlet",
        challengers=[engines[0].name], games=games,
        openings=BookConfig(file=str(BOOK), order="random", seed=11),
        concurrency=concurrency, sprt=sprt, out=tmp_path / "out",
        adjudication=Adjudication(resign_move_count=3, resign_score_cp=500, max_moves=120),
    )
    exp.book = load_book_for(exp)
    return exp


def read_pgn(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors
            games.append(game)
    return games


def test_a_stockfish_gauntlet_plays_every_game_once(tmp_path):
    exp = experiment(tmp_path, [sf("sf2", **{"Skill Level": 2}), sf("sf0", **{"Skill Level": 0}),
                                sf("sf1", **{"Skill Level": 1})], games=4, tc="1+0.02")
    out = io.StringIO()
    outcome = run_experiment(exp, stream=out, live=False)
    assert outcome.exit_code == 0 and outcome.tournament.stop_reason is None
    with open_store(exp.out) as store:
        games = store.games()
        moves = store.moves()
    assert sorted(games["game_id"]) == sorted(t.game_id for t in build_schedule(exp))
    assert (games["plies"] > 0).all() and len(moves) == games["plies"].sum()
    assert moves["clock_before_ms"].notna().all() and moves["elapsed_ms"].gt(0).all()
    pgn = read_pgn(exp.out / "games.pgn")
    assert [g.headers["GameId"] for g in pgn] == list(games["game_id"])
    for name in ("moves.csv", "ratings.csv", "time_usage.png"):
        assert (exp.out / name).exists()
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("game r000") for line in lines) == 4
    assert "4/4 games" in lines[-1] and "sf2 +" in lines[-1]


def test_sprt_stops_the_gauntlet_early(tmp_path):
    sprt = SprtConfig(elo0=0, elo1=400, alpha=0.1, beta=0.1, model="logistic")
    exp = experiment(tmp_path, [sf("weak", **{"Skill Level": 0}), sf("strong")], games=40,
                     tc="nodes=4000", sprt=sprt)
    stream = io.StringIO()
    outcome = run_experiment(exp, stream=stream, live=False)
    tournament = outcome.tournament
    assert outcome.exit_code == 0
    assert tournament.sprt_result is not None and tournament.sprt_result.decision == "H0"
    corrected = tournament.sprt_estimate
    assert corrected == sequential_estimate(tournament.standings["weak"].pentanomial(), 0, 400,
                                            0.1, 0.1, "logistic")
    # the corrected Elo shows once the pairs hold two outcomes (usually every pair is lost here)
    shown = f"SPRT Elo {corrected.elo:+.1f} [" in stream.getvalue()
    assert "LLR" in stream.getvalue()
    assert shown == (sum(1 for c in tournament.standings["weak"].pentanomial() if c) >= 2)
    assert "H0 accepted" in tournament.stop_reason
    with open_store(exp.out) as store:
        games = store.games()
    assert len(games) < 40
    # the decision is the SPRT of the stored, completed pairs
    penta = stats.pentanomial(stats.pair_scores(games, "weak"))
    assert penta == tournament.standings["weak"].pentanomial()
    assert stats.sprt(penta, 0, 400, 0.1, 0.1, "logistic").decision == "H0"
    assert len(read_pgn(exp.out / "games.pgn")) == len(games)


def test_an_engine_that_keeps_crashing_stops_the_run_keeping_finished_games(tmp_path):
    crashy = EngineSpec("crashy", [sys.executable, str(FAKES / "fake_uci.py"), "--fault=crash",
                                   "--at=3"])
    exp = experiment(tmp_path, [sf("sf"), crashy], games=20, concurrency=1)
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    assert outcome.exit_code == 1
    reason = outcome.tournament.stop_reason
    assert "engine 'crashy' failed 3 games in a row" in reason and "disconnected" in reason
    with open_store(exp.out) as store:
        games = store.games()
    assert len(games) == 3 and (games["termination"] == "abandoned").all()
    assert len(read_pgn(exp.out / "games.pgn")) == 3


def test_a_null_move_loses_the_game_and_the_run_goes_on(tmp_path):
    """`bestmove 0000` is well-formed UCI that python-chess parses as the null move: the game is
    lost by rules infraction, stored with the text, and the next games are played."""
    nully = EngineSpec("nully", [sys.executable, str(FAKES / "fake_uci.py"), "--fault=nullmove",
                                 "--at=2"])
    exp = experiment(tmp_path, [sf("sf"), nully], games=2, concurrency=1)
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    assert outcome.exit_code == 0
    with open_store(exp.out) as store:
        games = store.games().set_index("game_id")
    assert len(games) == 2
    assert (games["termination"] == "rules infraction").all()
    assert (games["illegal_move"] == "0000").all()
    assert set(games["reason"]) == {"illegal move 0000 by White", "illegal move 0000 by Black"}
    assert len(read_pgn(exp.out / "games.pgn")) == 2


def record(game_id: str, white: str, black: str, result: str, pair: str | None,
           termination: str = "normal", reason: str = "") -> GameRecord:
    return GameRecord(game_id, white, black, result, termination, reason,
                      chess.STARTING_FEN, pair_id=pair)


def test_standings_count_only_completed_pairs(tmp_path):
    exp = experiment(tmp_path, [sf("a"), sf("b")], games=6)
    with open_store(tmp_path) as store:
        t = Tournament(exp, store, build_schedule(exp))
        assert t.total == 6 and len(t.pending) == 6
        t.record(record("r0001-e01-g0", "a", "b", "1-0", "r0001-e01"))
        assert t.standings["a"].pentanomial() == [0, 0, 0, 0, 0]
        t.record(record("r0001-e01-g1", "b", "a", "1/2-1/2", "r0001-e01"))
        t.record(record("r0002-e01-g0", "a", "b", "0-1", "r0002-e01", "time forfeit"))
        assert t.standings["a"].pentanomial() == [0, 0, 0, 1, 0]
        assert (t.standings["a"].wins, t.standings["a"].draws, t.standings["a"].losses) == (
            1, 1, 1)
        assert t.standings["a"].forfeits == 1 and t.standings["b"].forfeits == 0
        assert t.done == 3 and not t.record(record("r0001-e01-g0", "a", "b", "1-0", "x"))
    # a new Tournament over the same store (a resume) rebuilds the same standings
    with open_store(tmp_path) as store:
        again = Tournament(exp, store, build_schedule(exp))
        assert again.resumed == 3 and len(again.pending) == 3
        assert again.standings["a"] == t.standings["a"]


def test_faulty_engine_is_the_loser_of_a_fault():
    assert faulty_engine(record("g", "a", "b", "0-1", None, "abandoned")) == "a"
    assert faulty_engine(record("g", "a", "b", "1-0", None, "stalled connection")) == "b"
    assert faulty_engine(record("g", "a", "b", "1-0", None, "time forfeit")) is None
    assert faulty_engine(record("g", "a", "b", "*", None, "abandoned", "Black disconnected")) == (
        "b")


@pytest.mark.parametrize("kind", ["round-robin", "gauntlet"])
def test_sprt_counts_follow_the_focus_player(tmp_path, kind):
    exp = experiment(tmp_path, [sf("a"), sf("b")], games=4,
                     sprt=SprtConfig(0, 400, 0.1, 0.1, "logistic"))
    exp.schedule = kind
    exp.challengers = ["a"] if kind == "gauntlet" else []
    with open_store(tmp_path) as store:
        t = Tournament(exp, store, build_schedule(exp))
        for n in range(1, 3):
            t.record(record(f"r{n:04d}-e01-g0", "a", "b", "0-1", f"r{n:04d}-e01"))
            t.record(record(f"r{n:04d}-e01-g1", "b", "a", "1-0", f"r{n:04d}-e01"))
        assert t.sprt_result.llr < 0 and t.focus == ["a"]


def test_progress_redraws_one_line_on_a_terminal_and_prints_lines_otherwise(tmp_path):
    from lab.progress import Progress

    exp = experiment(tmp_path, [sf("a"), sf("b")], games=4,
                     sprt=SprtConfig(0, 400, 0.1, 0.1, "logistic"))
    games = [record("r0001-e01-g0", "a", "b", "1-0", "r0001-e01"),
             record("r0001-e01-g1", "b", "a", "1-0", "r0001-e01", "time forfeit",
                    "Black loses on time (5 ms overrun)"),
             record("r0002-e01-g0", "a", "b", "1/2-1/2", "r0002-e01"),
             record("r0002-e01-g1", "b", "a", "0-1", "r0002-e01")]
    with open_store(tmp_path) as store:
        t = Tournament(exp, store, build_schedule(exp))
        live, plain = io.StringIO(), io.StringIO()
        bars = Progress(t, live, live=True)
        lines = Progress(t, plain, live=False)
        for game in games:
            t.record(game)
            bars.game(game)
            lines.game(game)
        bars.close()
    text = live.getvalue()
    assert text.count("\r") == 4
    text, stopped = text.split("\n", 1)
    # pairs WL and DW: pentanomial [0, 0, 1, 1, 0], which already accepts H0 at these bounds
    assert stopped == f"stopped: {stats.sprt([0, 0, 1, 1, 0], 0, 400, 0.1, 0.1, 'logistic')}\n"
    assert "H0 accepted" in stopped
    steps = text.split("\r")[1:]
    # one WL pair: a single pentanomial cell, whose spread would be the regularisation's alone
    assert "a +1 -1 =0 (50.0%) |" in steps[1]
    assert "LLR" in steps[1] and "SPRT Elo" not in steps[1]
    assert "a +1 -0 =0 (100.0%) |" in steps[0]
    last = steps[-1]
    assert last.startswith("4/4 games | a +2 -1 =1 (62.5%) Elo ")
    assert "time forfeits 1" in last and "games/min, ETA" in last and "LLR" in last
    assert "SPRT Elo" in last
    out = plain.getvalue().splitlines()
    assert len(out) == 4
    assert out[1].startswith("game r0001-e01-g1: b - a 1-0 (time forfeit: Black loses on time")


def _worker_pids() -> list[int]:
    """This process's children that are pool workers."""
    return [p.pid for p in multiprocessing.active_children() if p.name.startswith("tempo-worker-")]


def test_a_worker_killed_mid_game_is_replaced_and_its_game_replayed(tmp_path):
    exp = experiment(tmp_path, [sf("a", **{"Skill Level": 1}), sf("b", **{"Skill Level": 0})],
                     games=4, tc="nodes=4000")
    killed: list[int] = []

    def kill_the_workers(record: GameRecord) -> None:
        # after the first game: the worker that played it is idle, the other is mid-game
        if not killed:
            killed.extend(_worker_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    with open_store(exp.out) as store:
        tournament = Tournament(exp, store, build_schedule(exp))
        run_local(tournament, 2, kill_the_workers)
        games = store.games()
    assert len(killed) == 2 and tournament.stop_reason is None
    assert sorted(games["game_id"]) == sorted(t.game_id for t in build_schedule(exp))
