"""Playing whole games between engine processes with a clock kept by the test, as a GUI does."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine

TELEMETRY_KEYS = {"ply", "used_ms", "nodes", "reused_nodes", "stop_reason"}
BOOK = Path(__file__).resolve().parents[2] / "experiments" / "books" / "openings_8ply.epd"


def opening(index: int) -> chess.Board:
    """The `index`-th balanced 8-ply start position of the project's book (so that two copies of
    the same deterministic engine do not replay one game, or repeat moves at once)."""
    lines = [line for line in BOOK.read_text().splitlines() if line.strip()]
    board, _ = chess.Board.from_epd(lines[index % len(lines)])
    return board


@dataclass
class GameLog:
    """What happened in one game: the final board, clocks, every move's telemetry record."""

    board: chess.Board
    result: str
    forfeit: str | None = None
    telemetry: list[dict] = field(default_factory=list)
    min_clock_ms: float = float("inf")
    max_latency_ms: float = 0.0
    """Largest difference between a move's time on the test's clock and the engine's `used_ms`."""


def play_game(
    white: chess.engine.SimpleEngine,
    black: chess.engine.SimpleEngine,
    base_s: float,
    inc_s: float = 0.0,
    moves_per_period: int | None = None,
    max_plies: int = 600,
    start: chess.Board | None = None,
) -> GameLog:
    """Play to the end by the rules (or `max_plies`), charging each side its wall time.

    With `moves_per_period`, each side gets `base_s` more every that many of its moves
    (a repeating control such as 40/10).
    """
    board = start.copy() if start is not None else chess.Board()
    clocks = {chess.WHITE: base_s, chess.BLACK: base_s}
    moves_made = {chess.WHITE: 0, chess.BLACK: 0}
    log = GameLog(board=board, result="*")
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        side = board.turn
        engine = white if side == chess.WHITE else black
        togo = None
        if moves_per_period:
            togo = moves_per_period - moves_made[side] % moves_per_period
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
            white_inc=inc_s, black_inc=inc_s, remaining_moves=togo,
        )
        began = time.perf_counter()
        played = engine.play(board, limit, info=chess.engine.INFO_ALL, game=id(log))
        clocks[side] -= time.perf_counter() - began
        log.min_clock_ms = min(log.min_clock_ms, clocks[side] * 1000)
        assert played.move in board.legal_moves, (played.move, board.fen())
        text = played.info.get("string", "")
        assert text.startswith("tm "), f"no telemetry line before bestmove: {played.info}"
        record = json.loads(text[3:])
        log.telemetry.append(record)
        latency = (time.perf_counter() - began) * 1000 - record["used_ms"]
        log.max_latency_ms = max(log.max_latency_ms, latency)
        if clocks[side] < 0:
            log.forfeit = "white" if side == chess.WHITE else "black"
            log.result = "0-1" if side == chess.WHITE else "1-0"
            return log
        board.push(played.move)
        clocks[side] += inc_s
        moves_made[side] += 1
        if moves_per_period and moves_made[side] % moves_per_period == 0:
            clocks[side] += base_s
    log.result = board.result(claim_draw=True)
    return log
