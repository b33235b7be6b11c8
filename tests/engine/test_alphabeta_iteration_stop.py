"""Stockfish's iteration-boundary stop in alpha-beta (timecontrol.iteration_stop): a free queen
recapture, a stable best move with a rising score, stops well before the plain budget would, and
the factors reach the telemetry only when a manager planned the move."""

from __future__ import annotations

import chess
import pytest

import engine.search.alphabeta as alphabeta
from engine.evaluate import Evaluator
from engine.search.context import SearchContext, SearchResult
from engine.tt import TranspositionTable
from tests.engine.conftest import raw_engine, read_until
from tests.engine.test_timemanagers import telemetry_of
from timecontrol.baselines import MovetimeManager, MovetimeParams
from timecontrol.common import SOFT_FRACTION, move_stopper
from timecontrol.iteration_stop import FALLING_MAX, FALLING_MIN, PreviousSearch
from timecontrol.stopper import ChainedStopper, DepthStopper, GoParams, Stopper

BEFORE = "6k1/5ppp/8/3q4/8/5N2/5PPP/R5K1 w - - 0 1"
"""White's rook and knight against Black's queen; after h2h3 Black gives the queen for the
knight (Qd5xf3), and g2xf3 is the one recapture."""
RECAPTURE = "6k1/5ppp/8/8/8/5q1P/5PP1/R5K1 w - - 0 2"
MS_PER_NODE = 0.1


class NodeClock:
    """`time` for the alpha-beta module: the search's own node count at MS_PER_NODE, so that
    every stop falls on the same node whatever the machine's load."""

    def __init__(self) -> None:
        self.search: alphabeta.AlphaBetaSearch | None = None

    def perf_counter(self) -> float:
        return 0.0 if self.search is None else self.search.nodes * MS_PER_NODE / 1000.0


def search_on_node_clock(monkeypatch, stopper: Stopper,
                         previous: PreviousSearch) -> tuple[SearchResult, list[str]]:
    """One alpha-beta search of RECAPTURE timed by `NodeClock`; the result and its output."""
    clock = NodeClock()
    monkeypatch.setattr(alphabeta, "time", clock)
    sent: list[str] = []
    ctx = SearchContext(board=chess.Board(RECAPTURE), evaluator=Evaluator(),
                        tt=TranspositionTable(16), stopper=stopper, send=sent.append,
                        start_time=0.0, previous_search=previous)
    clock.search = alphabeta.AlphaBetaSearch(ctx)
    return clock.search.run(), sent


def planned_stopper(budget_ms: float) -> Stopper:
    """A manager's fixed budget on a long clock, as the engine chains it for alpha-beta."""
    go = GoParams(wtime=600000, btime=600000)
    own = MovetimeManager(MovetimeParams(ms=budget_ms)).make_stopper(go, 2, True, None, 0)
    return move_stopper(own, go, True, 0, iterative=True)


def test_a_free_recapture_stops_well_before_the_budget(monkeypatch) -> None:
    """The budget is set so that SOFT_FRACTION of it is 1.25 times the end of depth 8: the plain
    rule starts depth 9. After a move scored -100 cp the recapture's score rises (falling-eval
    0.61) and g2f3 stays best from depth 1 (time reduction 1.44): the scaled limit is about half
    the budget and the search ends at depth 8 ("stable"). The same search as a game's first move
    (falling-eval 1.86) runs on into depth 9."""
    _, sent = search_on_node_clock(monkeypatch, ChainedStopper([DepthStopper(8)]),
                                   PreviousSearch())
    depth8 = [line for line in sent if line.startswith("info depth 8 ") and "bound" not in line]
    nodes8 = int(depth8[-1].split(" nodes ")[1].split()[0])
    budget = 1.25 * nodes8 * MS_PER_NODE / SOFT_FRACTION

    stable, _ = search_on_node_clock(
        monkeypatch, planned_stopper(budget),
        PreviousSearch(average_score=-100.0, score=-100, time_reduction=1.0))
    assert (stable.best_move, stable.stop_reason, stable.depth) == (
        chess.Move.from_uci("g2f3"), "stable", 8)
    assert stable.nodes == nodes8
    assert stable.time_ms < 0.6 * budget
    assert stable.stop_figures["falling_eval"] == FALLING_MIN
    assert stable.stop_figures["scaled_soft_ms"] < 0.6 * budget

    first, _ = search_on_node_clock(monkeypatch, planned_stopper(budget), PreviousSearch())
    assert first.stop_reason in ("budget", "hard-limit", "deadline")
    assert first.nodes > nodes8 and first.time_ms > SOFT_FRACTION * budget
    assert first.stop_figures["falling_eval"] == FALLING_MAX
    assert first.stop_figures["scaled_soft_ms"] > budget


def product(record: dict) -> float:
    return record["falling_eval"] * record["reduction"] * record["bm_instability"]


def test_engine_keeps_the_previous_score_for_one_game() -> None:
    """A real engine: the search of the move before (h2h3) leaves its score, so after the
    recapture falling-eval is at its lower clamp and the scaled limit is the budget times the
    factors; after ucinewgame the same position is a first move (upper clamp). `go movetime`
    is not planned: no factor keys."""
    process = raw_engine()
    try:
        process.stdin.write(f"ucinewgame\nposition fen {BEFORE}\ngo depth 3 searchmoves h2h3\n")
        assert "falling_eval" not in telemetry_of(read_until(process, "bestmove"))
        go = f"position fen {BEFORE} moves h2h3 d5f3\ngo wtime 20000 btime 20000\n"
        process.stdin.write(go)
        lines = read_until(process, "bestmove")
        record = telemetry_of(lines)
        assert lines[-1].split()[1] == "g2f3"
        assert record["falling_eval"] == FALLING_MIN
        assert record["scaled_soft_ms"] == pytest.approx(
            record["budget_ms"] * product(record), rel=2e-3, abs=2)
        assert record["scaled_soft_ms"] < record["budget_ms"]
        assert record["stop_reason"] in ("stable", "budget", "hard-limit", "deadline")

        process.stdin.write(f"ucinewgame\n{go}")
        record = telemetry_of(read_until(process, "bestmove"))
        assert record["falling_eval"] == FALLING_MAX
        expected = min(record["hard_ms"], record["budget_ms"] * product(record))
        assert record["scaled_soft_ms"] == pytest.approx(expected, rel=2e-3, abs=2)
        assert record["scaled_soft_ms"] > record["budget_ms"]

        process.stdin.write(f"position fen {RECAPTURE}\ngo movetime 200\n")
        record = telemetry_of(read_until(process, "bestmove"))
        assert "tm" not in record and record["stop_reason"] in ("movetime", "deadline")
        assert not {"falling_eval", "time_reduction", "reduction", "bm_instability",
                    "scaled_soft_ms"} & set(record)
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)
