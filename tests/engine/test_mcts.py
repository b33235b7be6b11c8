"""`SearchMode mcts` through real UCI processes: options, mates, tree reuse and its reset, smart
pruning, time limits, MultiPV, and games at 10+0.1 with the smooth manager (issue 4)."""

from __future__ import annotations

import json
import re
import time

import chess
import chess.engine
import pytest

from tests.engine.conftest import ENGINE_CMD, REPO, raw_engine, read_until
from tests.engine.gameplay import play_game

MCTS = "setoption name SearchMode value mcts\n"
CLOCK = "go wtime 10000 btime 10000 winc 100 binc 100\n"


def telemetry_of(lines: list[str]) -> dict:
    records = [line for line in lines if line.startswith("info string tm ")]
    assert len(records) == 1, lines[-5:]
    return json.loads(records[0][len("info string tm "):])


class Session:
    """One engine process in mcts mode, driven line by line."""

    def __init__(self) -> None:
        self.process = raw_engine()
        self.send(MCTS)

    def send(self, text: str) -> None:
        self.process.stdin.write(text)

    def go(self, position: str, go: str = CLOCK) -> tuple[dict, list[str], float]:
        """(telemetry, output lines, wall ms) of one search."""
        began = time.perf_counter()
        self.send(f"{position}\n{go}")
        lines = read_until(self.process, "bestmove")
        return telemetry_of(lines), lines, (time.perf_counter() - began) * 1000

    def close(self) -> None:
        self.send("quit\n")
        self.process.communicate(timeout=30)


@pytest.fixture
def session():
    engine = Session()
    try:
        yield engine
    finally:
        engine.close()


def bestmove(lines: list[str]) -> tuple[str, str | None]:
    words = lines[-1].split()
    return words[1], (words[3] if len(words) > 3 else None)


def test_options_are_declared_and_checked():
    process = raw_engine()
    try:
        process.stdin.write("uci\n")
        lines = read_until(process, "uciok")
        assert "option name ValueScale type spin default 400 min 50 max 4000" in lines
        assert "option name SmartPruningFactor type string default 1.33" in lines
        process.stdin.write("setoption name SmartPruningFactor value fast\n"
                            "setoption name SmartPruningFactor value -1\nisready\n")
        errors = [line for line in read_until(process, "readyok") if "error" in line]
        assert len(errors) == 2 and all("SmartPruningFactor" in line for line in errors)
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)


@pytest.mark.parametrize("fen, move, mate", [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8", 1),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7", 1),
    # mate in 2 from sunfish's mate2.epd: 1. Nf5+ gxf5 2. Qh5#
    ("8/1p3Qb1/p5pk/P1p1p1p1/1P2P1P1/2P1N2n/5P1P/4qB1K w - - 1 1", "e3f5", 2),
    # the side to move is mated in 1 whatever it plays (Kb8 or a2, then Rh8#)
    ("k7/8/1K6/8/8/p7/8/7R b - - 0 1", None, -1),
])
def test_mates_are_reported_as_score_mate(session, fen, move, mate):
    _, lines, _ = session.go(f"position fen {fen}", "go nodes 20000\n")
    assert move is None or bestmove(lines)[0] == move
    scores = [line for line in lines if line.startswith("info depth")]
    assert f"score mate {mate} " in scores[-1]


def test_tree_reuse_through_uci_and_its_reset(session):
    record, lines, _ = session.go("position startpos", "go nodes 800\n")
    assert record["reused_nodes"] == 0
    move, reply = bestmove(lines)
    game = f"position startpos moves {move} {reply}"
    record, lines, _ = session.go(game, "go nodes 300\n")
    assert record["reused_nodes"] > 0
    # go nodes limits new visits; smart pruning may stop before the limit, as in Lc0
    if record["stop_reason"] == "nodes":
        assert record["nodes"] == record["reused_nodes"] + 300
    else:
        assert record["stop_reason"] == "smart-pruning"
        assert record["nodes"] < record["reused_nodes"] + 300
    info = [line for line in lines if line.startswith("info depth")][-1]
    assert f" nodes {record['nodes']} " in info
    move, reply = bestmove(lines)
    # an unrelated position drops the tree; so does ucinewgame
    record, _, _ = session.go("position fen 8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "go nodes 200\n")
    assert record["reused_nodes"] == 0
    record, lines, _ = session.go("position startpos", "go nodes 400\n")
    move, reply = bestmove(lines)
    session.send("ucinewgame\n")
    record, _, _ = session.go(f"position startpos moves {move} {reply}", "go nodes 100\n")
    assert record["reused_nodes"] == 0


def test_a_single_legal_move_is_played_at_once(session):
    record, lines, wall = session.go("position fen 7k/8/8/8/8/8/1q6/K7 w - - 0 1")
    assert bestmove(lines)[0] == "a1b2"
    assert record["stop_reason"] == "only-move"
    assert record["used_ms"] < 100 and wall < 1000


def test_smart_pruning_stops_early_with_one_clearly_best_move(session):
    # c3xd4 wins the queen for a pawn: every other move loses a queen's worth
    fen = "rnb1kbnr/pppp1ppp/8/4p3/3qP3/2P5/PP1P1PPP/RNBQKBNR w KQkq - 0 3"
    record, lines, _ = session.go(f"position fen {fen}")
    assert bestmove(lines)[0] == "c3d4"
    assert record["stop_reason"] == "smart-pruning"
    assert record["used_ms"] < 0.6 * record["budget_ms"]


def test_a_balanced_position_uses_nearly_the_whole_budget(session):
    record, _, _ = session.go("position startpos")
    assert record["used_ms"] >= 0.75 * record["budget_ms"]
    assert record["used_ms"] <= record["budget_ms"] + 100


def test_movetime_is_kept(session):
    record, _, wall = session.go("position startpos", "go movetime 400\n")
    # margins for a loaded machine: one playout, and the process being descheduled
    assert record["used_ms"] <= 400 + 100
    assert wall < 2000


def test_multipv_lines_by_visits_with_q(session):
    session.send("setoption name MultiPV value 3\n")
    _, lines, _ = session.go("position startpos", "go nodes 500\n")
    infos = [line for line in lines if line.startswith("info depth")][-3:]
    assert [re.search(r" multipv (\d+) ", line).group(1) for line in infos] == ["1", "2", "3"]
    visits = [line for line in lines if line.startswith("info string mcts ")][-3:]
    counts = [int(re.search(r" visits (\d+) ", line).group(1)) for line in visits]
    assert len(counts) == 3 and counts == sorted(counts, reverse=True)
    assert all(re.search(r" q [+-]\d\.\d{4}$", line) for line in visits)
    for info, visit in zip(infos, visits):
        assert info.split(" pv ")[1].split()[0] == visit.split()[3]


def mcts_engine(**options) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=30)
    engine.configure({"SearchMode": "mcts", **options})
    return engine


def legal_moves_at(game: chess.Board, ply: int) -> int:
    """How many legal moves the side to move had at `ply` of a game played from the start."""
    board = chess.Board()
    for move in game.move_stack[:ply]:
        board.push(move)
    return board.legal_moves.count()


def test_self_play_reuses_the_tree_at_10_plus_01():
    """Every later move reuses part of its tree and searches beyond it, except a forced reply:
    with one legal move the engine plays at once (as Lc0 does), searching nothing past the tree
    it kept. Such replies made this test fail about 1 run in 4 while it asserted growth for
    every move (2026-12-01, stop reason `only-move` in each failing record)."""
    white, black = mcts_engine(), mcts_engine()
    try:
        log = play_game(white, black, 10.0, 0.1, max_plies=40)
    finally:
        white.quit()
        black.quit()
    assert log.forfeit is None
    for side in (0, 1):
        records = log.telemetry[side::2]
        later = records[2:]
        assert sum(1 for r in later if r["reused_nodes"] > 0) > len(later) / 2, later
        forced = [r for r in later if r["stop_reason"] == "only-move"]
        assert all(legal_moves_at(log.board, r["ply"]) == 1 for r in forced), forced
        assert all(r["nodes"] == r["reused_nodes"] and r["used_ms"] < 50 for r in forced), forced
        searched = [r for r in later if r["stop_reason"] != "only-move"]
        assert all(r["reused_nodes"] < r["nodes"] for r in searched), searched
        # The estimator learns from the real reuse: it changes from move to move and ends away
        # from its initial 0.5 (how far depends on the game: its samples may lie near 0.5).
        estimates = [r["tree_reuse"] for r in later]
        assert len({round(e, 6) for e in estimates}) > len(estimates) / 2, estimates
        assert abs(estimates[-1] - 0.5) > 0.01, estimates
        assert all(r["used_ms"] <= r["budget_ms"] + 150 for r in records)


def test_won_kqk_is_converted_within_the_fifty_move_rule():
    white = mcts_engine()
    black = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=30)
    try:
        log = play_game(white, black, 10.0, 0.1, max_plies=200,
                        start=chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"))
    finally:
        white.quit()
        black.quit()
    assert log.forfeit is None
    assert log.board.is_checkmate() and log.result == "1-0", log.board.fen()
