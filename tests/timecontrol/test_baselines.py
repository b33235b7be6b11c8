"""Baselines: Stockfish's optimum/maximum (reference §9 examples), fraction, movetime."""

from __future__ import annotations

import math

import pytest

from timecontrol.baselines import (
    FractionParams,
    StockfishManager,
    fraction_budget,
    stockfish_budget,
)
from timecontrol.factory import create_manager
from timecontrol.go import GoParams
from timecontrol.stopper import SearchStats, StopperHints


def test_stockfish_sudden_death_example() -> None:
    budget = stockfish_budget(60_000, 1000, None, 0, 10, None)
    assert budget.time_left == 108_480
    assert budget.adj == pytest.approx(1.23347, abs=1e-5)
    assert (budget.optimum_ms, budget.maximum_ms) == (2450, 16838)


def test_stockfish_movestogo_example() -> None:
    budget = stockfish_budget(120_000, 0, 20, 40, 10, None)
    assert budget.moves_to_go == 20
    assert budget.time_left == 119_780
    assert (budget.optimum_ms, budget.maximum_ms) == (7328, 25648)
    assert budget.adj is None


def test_stockfish_manager_keeps_adj_for_the_game_and_resets_it() -> None:
    manager = StockfishManager()
    first = manager.make_stopper(GoParams(wtime=60_000, btime=60_000, winc=1000, binc=1000),
                                 ply=0, white=True, reused_nodes=0, move_overhead_ms=10)
    assert first.telemetry() == {"tm": "stockfish", "budget_ms": 2450, "hard_ms": 16838,
                                 "moves_left": 50.0}
    adj = manager.adj
    assert adj == pytest.approx(1.23347, abs=1e-5)
    manager.make_stopper(GoParams(wtime=5_000, btime=5_000), ply=80, white=True,
                         reused_nodes=0, move_overhead_ms=10)
    assert manager.adj == adj  # computed once per game, from the first move
    manager.new_game()
    assert manager.adj is None
    manager.make_stopper(GoParams(wtime=5_000, btime=5_000), ply=0, white=True, reused_nodes=0,
                         move_overhead_ms=10)
    assert manager.adj == pytest.approx(0.3272 * math.log10(5000 - 10 * 52) - 0.4141)


def test_stockfish_stopper_soft_optimum_and_hard_maximum() -> None:
    stopper = StockfishManager().make_stopper(
        GoParams(wtime=60_000, btime=60_000, winc=1000, binc=1000), ply=0, white=True,
        reused_nodes=0, move_overhead_ms=10)
    hints = StopperHints()
    assert stopper.should_stop(SearchStats(time_since_movestart_ms=3000.0), hints) is None
    assert hints.soft_remaining_ms == 2450 - 3000  # past the optimum: start no new iteration
    assert hints.remaining_ms == 16838 - 3000  # but no hard stop before the maximum
    assert stopper.should_stop(SearchStats(time_since_movestart_ms=16838.0),
                               StopperHints()) == "budget"


def test_stockfish_short_clock_uses_fewer_moves_to_go() -> None:
    budget = stockfish_budget(500, 0, None, 60, 10, 1.0)
    assert budget.moves_to_go == 25
    assert 1 <= budget.optimum_ms <= budget.maximum_ms <= 0.8097 * 500
    tiny = stockfish_budget(5, 0, None, 60, 10, 1.0)
    assert tiny.moves_to_go == 1 and tiny.optimum_ms >= 1


def test_fraction_formula_and_caps() -> None:
    params = FractionParams()
    moves, budget = fraction_budget(params, 60_000, 1000, None, 100)
    assert moves == 30.0 and budget == pytest.approx(2000 + 800)
    assert fraction_budget(params, 60_000, 0, 10, 100) == (10.0, 6000.0)
    # movestogo 1 wants all the clock; the hard cap keeps half of it.
    assert fraction_budget(params, 10_000, 0, 1, 100) == (1.0, 5000.0)
    # A clock below the overhead gives 0, never a negative budget.
    assert fraction_budget(params, 50, 1000, None, 100) == (30.0, 0.0)
    assert fraction_budget(params, 300, 1000, None, 100) == (30.0, 150.0)


def test_fraction_and_movetime_through_the_factory() -> None:
    go = GoParams(wtime=60_000, btime=30_000, winc=1000, binc=500)
    fraction = create_manager("fraction(moves=20,inc-use=1.0,max-move-budget=0.25)")
    telemetry = fraction.make_stopper(go, ply=5, white=False, reused_nodes=0,
                                      move_overhead_ms=100).telemetry()
    assert telemetry == {"tm": "fraction", "budget_ms": 2000, "moves_left": 20.0}
    movetime = create_manager("movetime(ms=1500)")
    assert movetime.make_stopper(go, ply=5, white=True, reused_nodes=0,
                                 move_overhead_ms=100).telemetry() == {"tm": "movetime",
                                                                       "budget_ms": 1500}
    short = movetime.make_stopper(GoParams(wtime=700, btime=700), ply=5, white=True,
                                  reused_nodes=0, move_overhead_ms=100)
    assert short.telemetry()["budget_ms"] == 600
    assert short.should_stop(SearchStats(time_since_movestart_ms=600.0),
                             StopperHints()) == "budget"


def test_stockfish_uses_its_own_10_ms_overhead_not_the_engines() -> None:
    """Issue 16: with the engine's 50 ms taken per remaining move (50*52 = 2600 ms), every
    clock under ~2.6 s had a 1 ms optimum. Stockfish's own default overhead is 10 ms; the
    engine's overhead only caps the maximum at clock - overhead."""
    go = GoParams(wtime=2000, btime=2000)
    telemetry = create_manager("stockfish").make_stopper(
        go, ply=60, white=True, reused_nodes=0, move_overhead_ms=50).telemetry()
    expected = stockfish_budget(2000, 0, None, 60, 10, None)
    assert expected.optimum_ms > 20
    assert (telemetry["budget_ms"], telemetry["hard_ms"]) == (expected.optimum_ms,
                                                              expected.maximum_ms)
    assert stockfish_budget(2000, 0, None, 60, 50, None).optimum_ms == 1
    tight = create_manager("stockfish(move-overhead=0)").make_stopper(
        GoParams(wtime=100, btime=100), ply=60, white=True, reused_nodes=0,
        move_overhead_ms=90).telemetry()
    assert tight["hard_ms"] <= 10 and tight["budget_ms"] <= tight["hard_ms"]
