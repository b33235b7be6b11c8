"""Engine integration of the time managers (issue 3): options, budgets, game lifetime, telemetry,
and real games with every manager."""

from __future__ import annotations

import json
import time

import chess
import chess.engine
import pytest

from tests.engine.conftest import ENGINE_CMD, REPO, raw_engine, read_until
from tests.engine.gameplay import TELEMETRY_KEYS, opening, play_game

MANAGERS = ("smooth", "smooth-lc0", "fraction", "stockfish", "movetime")
HARD_LIMIT_SLACK_MS = 50


def telemetry_of(lines: list[str]) -> dict:
    records = [line for line in lines if line.startswith("info string tm ")]
    assert len(records) == 1, lines[-5:]
    return json.loads(records[0][len("info string tm "):])


def go_telemetry(commands: str) -> dict:
    """Telemetry of one `go` sent to a fresh engine after `commands`."""
    process = raw_engine()
    try:
        process.stdin.write(commands)
        return telemetry_of(read_until(process, "bestmove"))
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)


@pytest.mark.parametrize(("mode", "increment", "budget"),
                         [("mcts", "", 3323), ("mcts", " winc 1000 binc 1000", 6124),
                          ("alphabeta", "", 1661), ("alphabeta", " winc 1000 binc 1000", 3062)])
def test_smooth_budget_at_the_start_position(mode, increment, budget):
    """Section 12's S1 and S2 with MCTS (tree reuse 0.5 at the start); alpha-beta keeps no tree,
    so its tree reuse is 0 and the budget half of theirs (issue 16), with a hard limit above."""
    record = go_telemetry(
        f"setoption name SearchMode value {mode}\n"
        "setoption name TimeManager value smooth(overhead-per-move=0)\n"
        "setoption name Move Overhead value 100\n"
        f"position startpos\ngo wtime 60000 btime 60000{increment}\n"
    )
    assert record["tm"] == "smooth"
    assert abs(record["budget_ms"] - budget) <= 1
    assert record["ply"] == 0 and record["reused_nodes"] == 0
    assert record["used_ms"] <= record.get("hard_ms", budget) + 100
    assert TELEMETRY_KEYS <= set(record)


def test_invalid_time_manager_keeps_the_previous_one():
    process = raw_engine()
    try:
        process.stdin.write(
            "setoption name TimeManager value fraction\n"
            "setoption name TimeManager value smooth(init-nps=fast)\nisready\n"
        )
        lines = read_until(process, "readyok")
        errors = [line for line in lines if line.startswith("info string error: ")]
        assert len(errors) == 1 and "init-nps" in errors[0]
        process.stdin.write("position startpos\ngo wtime 10000 btime 10000\n")
        assert telemetry_of(read_until(process, "bestmove"))["tm"] == "fraction"
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)


def test_manager_lives_for_one_game():
    """The smooth manager learns its NPS from the search's node counts within a game, and
    forgets it on a position that does not continue the game (and on ucinewgame)."""
    process = raw_engine()
    try:
        def go(position: str) -> dict:
            process.stdin.write(f"{position}\ngo wtime 8000 btime 8000\n")
            lines = read_until(process, "bestmove")
            return telemetry_of(lines), lines[-1].split()[1]

        first, reply = go("position startpos moves e2e4")
        assert first["nps_est"] == 20000.0  # the smooth manager's initial estimate
        second, _ = go(f"position startpos moves e2e4 {reply} g1f3")
        assert second["nps_est"] != 20000.0  # updated from the nodes the first search reported
        third, _ = go("position startpos moves d2d4")  # not a continuation: a new game
        assert third["nps_est"] == 20000.0
        fourth, _ = go("position startpos moves d2d4 d7d5")
        assert fourth["nps_est"] != 20000.0
        process.stdin.write("ucinewgame\n")
        fifth, _ = go("position startpos moves d2d4 d7d5")
        assert fifth["nps_est"] == 20000.0
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)


@pytest.mark.parametrize("go", ["movetime 0", "wtime 0 btime 0", "wtime 1 btime 1"])
def test_zero_budget_returns_a_legal_move_at_once(go):
    process = raw_engine()
    try:
        process.stdin.write("position startpos moves e2e4\nisready\n")
        read_until(process, "readyok")
        sent = time.perf_counter()
        process.stdin.write(f"go {go}\n")
        lines = read_until(process, "bestmove")
        assert time.perf_counter() - sent < 0.5
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)


def check_game(log, manager: str, first_ply: int = 0) -> None:
    assert log.forfeit is None, (
        f"{manager}: {log.forfeit} lost on time at ply {log.board.ply()}; last record "
        f"{log.telemetry[-1]}; largest harness latency {log.max_latency_ms:.0f} ms"
    )
    assert len(log.telemetry) == log.board.ply() - first_ply
    for ply, record in enumerate(log.telemetry, first_ply):
        assert TELEMETRY_KEYS | {"tm", "budget_ms", "cpu_ms"} <= set(record), record
        assert record["tm"] == manager.split("(")[0]
        assert record["ply"] == ply and record["reused_nodes"] == 0
        if "hard_ms" in record:
            # The search stops at the hard limit. On this shared 2-core machine the OS sometimes
            # leaves the engine unscheduled for 50-100 ms; such an overrun is excused only as far
            # as the search thread was not running (wall time minus its CPU time).
            limit = record["hard_ms"] + HARD_LIMIT_SLACK_MS
            overrun = record["used_ms"] - limit
            not_running = record["used_ms"] - record["cpu_ms"]
            assert overrun <= max(0, not_running), record


def manager_game(manager: str, base_s: float, inc_s: float, moves_per_period: int | None,
                 max_plies: int, overhead_ms: int = 100, book_index: int = 0) -> None:
    """A game between two engines using `manager`; the move overhead covers the harness's own
    latency, which reaches 100-150 ms on this shared 2-core machine under load."""
    with chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as white, \
            chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as black:
        for engine in (white, black):
            engine.configure({"TimeManager": manager, "Move Overhead": overhead_ms})
        start = opening(book_index)
        log = play_game(white, black, base_s, inc_s, moves_per_period, max_plies, start)
    check_game(log, manager, start.ply())


def spec_for(manager: str, move_ms: int) -> str:
    """The manager's spec for a game: the fixed-time baseline gets a per-move time that suits
    the control (its default, 1 s a move, spends a 5 s clock in five moves by design)."""
    return f"movetime(ms={move_ms})" if manager == "movetime" else manager


@pytest.mark.parametrize("manager", MANAGERS)
def test_short_game_with_each_manager(manager):
    manager_game(spec_for(manager, 80), 5.0, 0.05, None, max_plies=68,
                 book_index=MANAGERS.index(manager))


@pytest.mark.slow
@pytest.mark.parametrize("manager", MANAGERS)
def test_full_game_at_5_plus_005(manager):
    manager_game(spec_for(manager, 60), 5.0, 0.05, None, max_plies=600, overhead_ms=200,
                 book_index=10 + MANAGERS.index(manager))


@pytest.mark.slow
@pytest.mark.parametrize("manager", MANAGERS)
def test_full_game_at_40_moves_in_10_s_repeating(manager):
    manager_game(spec_for(manager, 150), 10.0, 0.0, 40, max_plies=600, overhead_ms=200,
                 book_index=20 + MANAGERS.index(manager))


@pytest.mark.slow
@pytest.mark.parametrize("game", range(2))
def test_self_play_at_10_plus_01(game):
    with chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as white, \
            chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as black:
        start = opening(30 + game)
        log = play_game(white, black, 10.0, 0.1, start=start)
    assert log.board.is_game_over(claim_draw=True)
    check_game(log, "smooth", start.ply())
