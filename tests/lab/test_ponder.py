"""Pondering in a game (`EngineSpec.ponder`): `go ponder` on the expected reply with the clocks as
they stand after the move, `ponderhit` charged from the `ponderhit`, `stop` and a new `go` on a
miss, no pondering on an unusable ponder move, and a pondering engine stopped at the game's end.
The fake (tests/lab/fakes/fake_uci.py) makes each path certain; Stockfish and our engine show it
with real searches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import chess

from lab.engine_log import EngineLogs
from lab.engine_process import EnginePool, TimedUciProtocol
from lab.game import play_game
from lab.records import EngineSpec, GameRecord
from tests.lab.test_game import QUICK, check_clocks, task
from timecontrol.control import parse_time_control

SLOW_MS = 300
"""The opponent's time per move: a ponderhit move charged from `go ponder` would take longer."""


def pondering(spec: EngineSpec) -> EngineSpec:
    spec.ponder = True
    return spec


def commands(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text().splitlines()]


def hits_and_previous(record: GameRecord, side: int = 0) -> list[tuple[float, float]]:
    """(elapsed of the move, elapsed of the opponent's move before it) for each ponderhit of the
    mover of `side` (0: the first engine move's)."""
    return [(move.elapsed_ms, record.moves[index - 1].elapsed_ms)
            for index, move in enumerate(record.moves) if index % 2 == side and move.ponderhit]


def test_a_ponderhit_is_charged_from_ponderhit_and_pondering_stops_at_the_end(fake,
                                                                             tmp_path) -> None:
    log = tmp_path / "w.log"
    white = pondering(fake("w", log=log, ponder="first", sleep_ms=20))
    black = fake("b", sleep_ms=SLOW_MS)
    with EnginePool() as pool:
        record = play_game(task(white, black, "3+0.1", max_moves=4), pool, QUICK)
        assert len(pool.idle_pids()) == 2  # stopped and drained, not faulted
    assert record.reason == "Draw by adjudication: max moves rule"
    white_moves, black_moves = record.moves[0::2], record.moves[1::2]
    # The fake's reply is always the ponder move: every white move after the first is a hit.
    assert [move.ponderhit for move in white_moves] == [False, True, True, True]
    assert not any(move.ponderhit for move in black_moves)
    for elapsed, previous in hits_and_previous(record):
        assert elapsed < 150 and previous >= SLOW_MS
    check_clocks(record, 3000, 100)
    sent = commands(log)
    ponders = [words for words in sent if words[:2] == ["go", "ponder"]]
    assert len(ponders) == 4 and [words[0] for words in sent].count("ponderhit") == 3
    assert ["setoption", "name", "Ponder", "value", "true"] in sent
    for words, move, reply in zip(ponders, white_moves, black_moves):
        fields = dict(zip(words[2::2], map(int, words[3::2])))
        # cutechess's clocks: the mover's after its move, the opponent's as it stands.
        assert fields["wtime"] == move.clock_after_ms
        assert fields["btime"] == reply.clock_before_ms
        assert fields["winc"] == fields["binc"] == 100
    # The last ponder (on black's final move, which ended the game) is stopped and drained.
    assert [words[0] for words in sent[-4:]] == ["go", "stop", "isready", "quit"]


def test_a_ponder_miss_is_stopped_then_searched_with_a_new_go(fake, tmp_path) -> None:
    log = tmp_path / "w.log"
    white = pondering(fake("w", log=log, ponder="second", sleep_ms=20))
    record = play_game(task(white, fake("b", sleep_ms=50), "3+0.1", max_moves=3), timeouts=QUICK)
    assert record.reason == "Draw by adjudication: max moves rule"
    assert not any(move.ponderhit for move in record.moves)
    check_clocks(record, 3000, 100)
    assert all(move.elapsed_ms < 150 for move in record.moves[0::2])
    sent = [words[0] if words[0] != "go" else " ".join(words[:2]) for words in commands(log)]
    misses = [index for index, word in enumerate(sent) if word == "stop"]
    assert len(misses) == 3  # after white's 1st and 2nd moves, and at the end
    for index in misses[:2]:
        assert sent[index - 2:index + 3] == ["position", "go ponder", "stop", "position",
                                             "go wtime"]


def test_an_unusable_ponder_move_is_not_pondered_on(fake, tmp_path) -> None:
    log = tmp_path / "w.log"
    white = pondering(fake("w", log=log, ponder="illegal"))
    record = play_game(task(white, fake("b"), "3+0.1", max_moves=2), timeouts=QUICK)
    assert record.reason == "Draw by adjudication: max moves rule" and len(record.moves) == 4
    assert not any(words[:2] == ["go", "ponder"] or words[0] == "stop" for words in commands(log))


def test_stockfish_ponders_and_is_charged_from_ponderhit(stockfish) -> None:
    game = task(pondering(stockfish("sf-ponder")), stockfish("sf", tc=f"st={SLOW_MS / 1000}"),
                "2+0.05", margin_ms=300, max_moves=8)
    record = play_game(game, timeouts=QUICK)
    assert record.termination in ("normal", "adjudication"), record.reason
    hits = hits_and_previous(record)
    assert hits, "Stockfish against itself predicts some replies"
    for elapsed, previous in hits:
        assert previous >= SLOW_MS - 20 and elapsed < previous  # charged from go ponder: >=
    check_clocks(record, 2000, 50, margin_ms=300, sides=(0,))


def test_our_engine_ponders_and_is_charged_from_ponderhit(tempo) -> None:
    opponent = EngineSpec("opponent", tempo.cmd, tc=parse_time_control(f"st={SLOW_MS / 1000}"))
    game = task(pondering(tempo), opponent, "3+0.05", margin_ms=300, max_moves=8)
    record = play_game(game, timeouts=QUICK)
    assert record.termination in ("normal", "adjudication"), record.reason
    hits = hits_and_previous(record)
    assert hits, "our engine against itself predicts some replies"
    for elapsed, previous in hits:
        assert elapsed < previous  # charged from go ponder, it would be longer
    for move in record.moves[0::2]:
        telemetry = move.search.telemetry
        assert telemetry.get("ponder", False) == move.ponderhit
        # The engine's time counts from ponderhit too: it agrees with the harness's.
        assert abs(telemetry["used_ms"] - move.elapsed_ms) < 100
    check_clocks(record, 3000, 50, margin_ms=300, sides=(0,))


def test_an_xboard_engine_is_told_hard_and_easy(phalanx, stockfish, tmp_path) -> None:
    game = task(pondering(phalanx), stockfish("sf", **{"Skill Level": 2}), "2+0.05",
                margin_ms=300, max_moves=5)
    game.logs = EngineLogs(io_dir=str(tmp_path))
    record = play_game(game, timeouts=QUICK)
    assert record.reason == "Draw by adjudication: max moves rule" or record.termination == "normal"
    assert not any(move.ponderhit for move in record.moves)
    (log,) = tmp_path.glob("phalanx-*.log")
    sent = [line.split(" > ", 1)[1] for line in log.read_text().splitlines() if " > " in line]
    assert sent.count("hard") == len(record.moves[0::2]) and "easy" in sent


def test_a_ponder_move_that_ends_the_game_or_is_illegal_is_dropped() -> None:
    async def read(fen: str, line: str) -> str:
        protocol = TimedUciProtocol()
        protocol.board = chess.Board(fen)
        return protocol.for_library(line)

    # Fool's mate: after 2.g4, Qh4 mates; a ponder on it has nothing left to think about.
    before = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2"
    assert asyncio.run(read(before, "bestmove g2g4 ponder d8h4")) == "bestmove g2g4"
    assert asyncio.run(read(before, "bestmove g2g4 ponder e8e6")) == "bestmove g2g4"
    assert asyncio.run(read(before, "bestmove g2g4 ponder (none)")) == "bestmove g2g4"
    kept = "bestmove g2g4 ponder d8g5"
    assert asyncio.run(read(before, kept)) == kept
    assert asyncio.run(read(before, "bestmove g2g4")) == "bestmove g2g4"
