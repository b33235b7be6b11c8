"""Stockfish's iteration-boundary stop in alpha-beta (timecontrol.iteration_stop), used only when
the manager asks for it (`iteration-factors`, on for `stockfish`): a free queen recapture, a
stable best move with a rising score, stops well before the plain budget would; the default
`smooth` keeps the plain budget; the factors reach the telemetry only when they were used."""

from __future__ import annotations

import chess
import pytest

import engine.search.alphabeta as alphabeta
from engine.evaluate import Evaluator
from engine.search.context import SearchContext, SearchResult
from engine.tt import TranspositionTable
from tests.engine.conftest import raw_engine, read_until
from tests.engine.test_timemanagers import telemetry_of
from timecontrol.common import HARD_FACTOR, SOFT_FRACTION, move_stopper
from timecontrol.factory import create_manager
from timecontrol.iteration_stop import FALLING_MAX, FALLING_MIN, PreviousSearch
from timecontrol.stopper import ChainedStopper, DepthStopper, GoParams, Stopper

BEFORE = "6k1/5ppp/8/3q4/8/5N2/5PPP/R5K1 w - - 0 1"
"""White's rook and knight against Black's queen; after h2h3 Black gives the queen for the
knight (Qd5xf3), and g2xf3 is the one recapture."""
RECAPTURE = "6k1/5ppp/8/8/8/5q1P/5PP1/R5K1 w - - 0 2"
MS_PER_NODE = 0.1
CLOCK_MS = 13000
"""The clock of the worked example below: its budget's soft fraction falls in depth 8."""
FACTOR_KEYS = {"falling_eval", "time_reduction", "reduction", "bm_instability", "scaled_soft_ms"}


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


def planned_stopper(spec: str, clock_ms: int = 600000) -> Stopper:
    """The stopper of the manager of `spec` for one move on `clock_ms`, chained as the engine
    chains it for alpha-beta (engine.uci `make_stopper`)."""
    go = GoParams(wtime=clock_ms, btime=clock_ms)
    manager = create_manager(spec)
    own = manager.make_stopper(go, 2, True, None, 0)
    return move_stopper(own, go, True, 0, iterative=True,
                        iteration_factors=manager.iteration_factors)


def iteration_ends(monkeypatch) -> dict[int, int]:
    """Nodes at the end of each iteration of RECAPTURE up to depth 9 (one search to depth 9)."""
    _, sent = search_on_node_clock(monkeypatch, ChainedStopper([DepthStopper(9)]),
                                   PreviousSearch())
    ends = {}
    for line in sent:
        if line.startswith("info depth ") and "bound" not in line:
            ends[int(line.split()[2])] = int(line.split(" nodes ")[1].split()[0])
    return ends


def test_a_free_recapture_stops_well_before_the_budget(monkeypatch) -> None:
    """The budget is set so that SOFT_FRACTION of it is 1.25 times the end of depth 8: the plain
    rule starts depth 9. After a move scored -100 cp the recapture's score rises (falling-eval
    0.61) and g2f3 stays best from depth 1 (time reduction 1.44): the scaled limit is about half
    the budget and the search ends at depth 8 ("stable"). The same search as a game's first move
    (falling-eval 1.86) runs on into depth 9."""
    nodes8 = iteration_ends(monkeypatch)[8]
    budget = 1.25 * nodes8 * MS_PER_NODE / SOFT_FRACTION
    spec = f"movetime(ms={budget!r},iteration-factors=1)"

    stable, _ = search_on_node_clock(
        monkeypatch, planned_stopper(spec),
        PreviousSearch(average_score=-100.0, score=-100, time_reduction=1.0))
    assert (stable.best_move, stable.stop_reason, stable.depth) == (
        chess.Move.from_uci("g2f3"), "stable", 8)
    assert stable.nodes == nodes8
    assert stable.time_ms < 0.6 * budget
    assert stable.stop_figures["falling_eval"] == FALLING_MIN
    assert stable.stop_figures["scaled_soft_ms"] < 0.6 * budget

    first, _ = search_on_node_clock(monkeypatch, planned_stopper(spec), PreviousSearch())
    assert first.stop_reason in ("budget", "hard-limit", "deadline")
    assert first.nodes > nodes8 and first.time_ms > SOFT_FRACTION * budget
    assert first.stop_figures["falling_eval"] == FALLING_MAX
    assert first.stop_figures["scaled_soft_ms"] > budget


def product(record: dict) -> float:
    return record["falling_eval"] * record["reduction"] * record["bm_instability"]


def test_smooth_keeps_the_plain_budget_and_stockfish_scales_it(monkeypatch) -> None:
    """Worked example on the node clock (0.1 ms a node): RECAPTURE's iterations end at 1704
    nodes (depth 7, 170 ms), 2896 (depth 8, 290 ms) and 5037 (depth 9). `smooth` on a 13 s
    clock (CLOCK_MS) allocates 367 ms: SOFT_FRACTION of it (257 ms) falls in depth 8, so the
    plain rule ends the move at depth 8, "budget", with no factors. The same allocation with
    `iteration-factors=1`, after a move scored -100 cp (falling-eval 0.61, time reduction 1.44:
    scaled limit about half the budget) ends it at depth 7, "stable". `stockfish` scales its
    optimum by the factors without being asked."""
    ends = iteration_ends(monkeypatch)
    previous = dict(average_score=-100.0, score=-100, time_reduction=1.0)
    smooth = planned_stopper("smooth", clock_ms=CLOCK_MS)
    budget = smooth.telemetry()["budget_ms"]
    assert ends[7] * MS_PER_NODE < SOFT_FRACTION * budget <= ends[8] * MS_PER_NODE
    assert ends[8] * MS_PER_NODE < HARD_FACTOR * budget

    plain, _ = search_on_node_clock(monkeypatch, smooth, PreviousSearch(**previous))
    assert (plain.stop_reason, plain.depth, plain.nodes) == ("budget", 8, ends[8])
    assert plain.stop_figures == {}

    asked, _ = search_on_node_clock(monkeypatch,
                                    planned_stopper("smooth(iteration-factors=1)", CLOCK_MS),
                                    PreviousSearch(**previous))
    assert (asked.stop_reason, asked.depth, asked.nodes) == ("stable", 7, ends[7])
    assert asked.stop_figures["falling_eval"] == FALLING_MIN
    assert asked.stop_figures["scaled_soft_ms"] == pytest.approx(
        budget * product(asked.stop_figures), abs=1)

    stockfish = planned_stopper("stockfish", clock_ms=CLOCK_MS)
    optimum = stockfish.telemetry()["budget_ms"]
    scaled, _ = search_on_node_clock(monkeypatch, stockfish, PreviousSearch(**previous))
    assert FACTOR_KEYS <= set(scaled.stop_figures)
    assert scaled.stop_figures["scaled_soft_ms"] == pytest.approx(
        optimum * product(scaled.stop_figures), abs=1)


def test_engine_keeps_the_previous_score_for_one_game() -> None:
    """A real engine: the search of the move before (h2h3) leaves its score, so after the
    recapture falling-eval is at its lower clamp and the scaled limit is the budget times the
    factors (`stockfish`, whose optimum they scale); after ucinewgame the same position is a
    first move (upper clamp). `go movetime` is not planned, and the default `smooth` does not
    ask for the factors (it stops on its planned tree): no factor keys, and never "stable"."""
    process = raw_engine()
    try:
        process.stdin.write("setoption name TimeManager value stockfish\n"
                            f"ucinewgame\nposition fen {BEFORE}\ngo depth 3 searchmoves h2h3\n")
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
        assert not FACTOR_KEYS & set(record)

        process.stdin.write(f"setoption name TimeManager value smooth\nucinewgame\n{go}")
        record = telemetry_of(read_until(process, "bestmove"))
        assert record["tm"] == "smooth"
        assert record["stop_reason"] in ("target-nodes", "hard-limit", "deadline")
        assert not FACTOR_KEYS & set(record)
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=30)
