"""`tempo plot` on real SQLite results stores: files written, options, and errors naming the
folder or game."""

from __future__ import annotations

import random

import chess
import pytest

from lab.cli import main
from lab.records import GameRecord, MoveRecord, SearchInfo
from lab.store import DB_NAME, open_store
from timecontrol.control import parse_time_control

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def random_game(game_id: str, white: str, black: str, telemetry_for: set[str],
                seed: int, max_plies: int = 40) -> GameRecord:
    """A legal game from the start position with made-up clocks at 5+0.05 s.

    Players in `telemetry_for` send smooth-manager telemetry, as our engine does.
    """
    rng = random.Random(seed)
    board = chess.Board()
    clocks = {chess.WHITE: 5000.0, chess.BLACK: 5000.0}
    moves = []
    while not board.is_game_over() and len(moves) < max_plies:
        move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
        mover = white if board.turn == chess.WHITE else black
        before = clocks[board.turn]
        budget = before / 30
        elapsed = budget * rng.uniform(0.5, 1.0)
        clocks[board.turn] = before - elapsed + 50.0
        nodes = int(elapsed * 20)
        telemetry = {}
        if mover in telemetry_for:
            telemetry = {
                "tm": "smooth", "ply": board.ply(), "budget_ms": budget, "hard_ms": 2 * budget,
                "used_ms": elapsed, "nodes": nodes, "reused_nodes": nodes // 4,
                "moves_left": 30.0, "nps_est": 20000.0, "tree_reuse": 0.5, "timeuse": 0.7,
                "stop_reason": "budget",
            }
        san = board.san(move)
        turn = board.turn
        board.push(move)
        moves.append(MoveRecord(  # ply as the game runner counts it: after the move
            ply=board.ply(), move=move.uci(), san=san, elapsed_ms=elapsed,
            clock_before_ms=before, clock_after_ms=clocks[turn],
            search=SearchInfo(nodes=nodes, nps=20000, depth=5, telemetry=telemetry),
        ))
    result = board.result(claim_draw=True)
    return GameRecord(
        game_id=game_id, white=white, black=black, result="1/2-1/2" if result == "*" else result,
        termination="normal" if board.is_game_over() else "adjudication", reason="",
        opening_fen=chess.STARTING_FEN, moves=moves, tc=parse_time_control("5+0.05"),
        started_at=f"2026-11-21T13:00:{seed:02d}", finished_at=f"2026-11-21T13:01:{seed:02d}",
    )


@pytest.fixture
def results(tmp_path):
    """A results folder with 4 games: 'tempo' (telemetry) against 'sf' (none), colours swapped."""
    folder = tmp_path / "run"
    with open_store(folder) as store:
        for i in range(4):
            white, black = ("tempo", "sf") if i % 2 == 0 else ("sf", "tempo")
            store.add_game(random_game(f"r1-g{i}", white, black, {"tempo"}, seed=i))
    return folder


def is_png(path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_SIGNATURE) and len(data) > 10_000


def test_plot_time_writes_the_summary_and_one_game(results, capsys):
    assert main(["plot", "time", str(results)]) == 0
    assert capsys.readouterr().out.strip() == str(results / "time_usage.png")
    assert is_png(results / "time_usage.png")
    assert main(["plot", "time", str(results), "--game", "r1-g1"]) == 0
    assert is_png(results / "time_r1-g1.png")
    out = results.parent / "elsewhere" / "game"
    assert main(["plot", "time", str(results), "--game", "r1-g2", "--format", "svg",
                 "--out", str(out)]) == 0
    svg = out.with_suffix(".svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "Moves-left estimate" in svg


def test_plot_time_without_telemetry(tmp_path):
    folder = tmp_path / "external"
    with open_store(folder) as store:
        store.add_game(random_game("x-g0", "sf-a", "sf-b", set(), seed=7))
    with open_store(folder) as store:
        assert not any(c.startswith("tm_") for c in store.moves().columns)
    assert main(["plot", "time", str(folder)]) == 0
    assert is_png(folder / "time_usage.png")
    assert main(["plot", "time", str(folder), "--game", "x-g0"]) == 0
    assert is_png(folder / "time_x-g0.png")


def test_plot_score(results, capsys):
    assert main(["plot", "score", str(results), "--engine", "tempo"]) == 0
    assert is_png(results / "score_tempo.png")
    # Without --engine: the experiment's one challenger, else the player in every game.
    # Both play every game here: the first game's White.
    assert main(["plot", "score", str(results)]) == 0
    assert capsys.readouterr().out.split()[-1] == str(results / "score_tempo.png")
    with open_store(results) as store:
        store.bind_experiment("g", {"id": 1}, {"challengers": ["sf"]})
    assert main(["plot", "score", str(results)]) == 0
    assert capsys.readouterr().out.split()[-1] == str(results / "score_sf.png")
    with open_store(results) as store:
        store.bind_experiment("g", {"id": 1}, {"challengers": ["tempo", "sf"]})
    assert main(["plot", "score", str(results)]) == 1
    assert "several challengers (tempo, sf)" in capsys.readouterr().err


def test_plot_ratings(results, capsys):
    assert main(["plot", "ratings", str(results), "--format", "svg"]) == 0
    svg = (results / "ratings.svg").read_text()
    assert "rating (Elo)" in svg and "95 % intervals" in svg
    assert capsys.readouterr().out.strip() == str(results / "ratings.svg")


def test_plot_errors_name_the_folder_or_game(tmp_path, results, capsys):
    missing = tmp_path / "nothing"
    assert main(["plot", "time", str(missing)]) == 1
    err = capsys.readouterr().err
    assert f"no results store in {missing}" in err and DB_NAME in err
    assert not missing.exists()  # plotting never creates a store

    assert main(["plot", "time", str(results), "--game", "r9-g9"]) == 1
    err = capsys.readouterr().err
    assert "'r9-g9'" in err and str(results) in err

    assert main(["plot", "score", str(results), "--engine", "nobody"]) == 1
    assert "'nobody'" in capsys.readouterr().err

    assert main(["plot", "time", str(results), "--out", str(tmp_path / "x.pdf")]) == 1
    assert "x.pdf" in capsys.readouterr().err

    empty = tmp_path / "empty"
    open_store(empty).close()
    for kind in ("time", "ratings", "score"):
        assert main(["plot", kind, str(empty)]) == 1
        assert f"no games recorded in {empty}" in capsys.readouterr().err
