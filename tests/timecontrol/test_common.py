"""The limits every move has (timecontrol.common): soft and hard limits of an iterative search,
the one-move stop, smart pruning last, and tree reuse 0 for a search that keeps no tree."""

from __future__ import annotations

import pytest

from timecontrol.baselines import StockfishManager
from timecontrol.budget import BudgetStopper
from timecontrol.common import (
    HARD_FACTOR,
    MAX_CLOCK_SHARE,
    OnlyMoveStopper,
    SoftLimitStopper,
    clock_cap_ms,
    hard_limit_ms,
    move_stopper,
)
from timecontrol.factory import create_manager
from timecontrol.go import GoParams
from timecontrol.smart_pruning import SmartPruningStopper
from timecontrol.smooth import SmoothManager, SmoothParams
from timecontrol.stopper import SearchStats, StopperHints


def at(ms: float, **fields: object) -> SearchStats:
    return SearchStats(time_since_movestart_ms=ms, time_since_first_eval_ms=ms, **fields)


def test_hard_limit_worked_examples() -> None:
    assert (HARD_FACTOR, MAX_CLOCK_SHARE) == (1.3, 0.8097)
    assert clock_cap_ms(3000, 50) == pytest.approx(2379.1)
    assert clock_cap_ms(40, 50) == 0.0
    assert hard_limit_ms(1000, 2379.1) == 1300
    assert hard_limit_ms(2000, 2379.1) == 2379.1
    assert hard_limit_ms(-5, 100) == 0.0


def test_a_budget_is_soft_in_an_iterative_search() -> None:
    """Budget 1000 ms on a 10 s clock: soft limit 1000, hard limit 1300 (HARD_FACTOR); the
    manager's own stop at 1000 is no stop here."""
    stopper = SoftLimitStopper(BudgetStopper(1000.0, {"tm": "fraction", "budget_ms": 1000}),
                               clock_cap_ms(10_000, 50))
    hints = StopperHints()
    assert stopper.should_stop(at(600.0), hints) is None
    assert (hints.soft_remaining_ms, hints.remaining_ms) == (400.0, 700.0)
    hints.reset()
    assert stopper.should_stop(at(1200.0), hints) is None
    assert hints.soft_remaining_ms == -200.0
    assert stopper.should_stop(at(1300.0), StopperHints()) == "hard-limit"
    assert stopper.telemetry() == {"tm": "fraction", "budget_ms": 1000, "hard_ms": 1300}


def test_the_clock_caps_the_hard_limit() -> None:
    stopper = SoftLimitStopper(BudgetStopper(2000.0), clock_cap_ms(3000, 50))
    hints = StopperHints()
    assert stopper.should_stop(at(100.0), hints) is None
    assert hints.remaining_ms == pytest.approx(2279.1)
    assert stopper.should_stop(at(2380.0), StopperHints()) == "hard-limit"


def test_stockfish_keeps_its_own_optimum_and_maximum() -> None:
    """A stopper that publishes a soft limit keeps its hard one: the reference §9 example,
    optimum 2450, maximum 16838 on 60+1."""
    go = GoParams(wtime=60_000, btime=60_000, winc=1000, binc=1000)
    own = StockfishManager().make_stopper(go, ply=0, white=True, reused_nodes=None,
                                          move_overhead_ms=10)
    stopper = move_stopper(own, go, True, 10, iterative=True)
    hints = StopperHints()
    assert stopper.should_stop(at(3000.0, num_root_moves=20), hints) is None
    assert (hints.soft_remaining_ms, hints.remaining_ms) == (2450 - 3000, 16838 - 3000)
    assert stopper.should_stop(at(16838.0, num_root_moves=20), StopperHints()) == "budget"


def test_the_chain_of_a_planned_mcts_move() -> None:
    go = GoParams(wtime=60_000, btime=60_000, nodes=10_000)
    own = create_manager("smooth").make_stopper(go, ply=0, white=True, reused_nodes=0,
                                                move_overhead_ms=50)
    chain = move_stopper(own, go, True, 50, iterative=False, smart_pruning_factor=1.33)
    kinds = [type(stopper).__name__ for stopper in chain.stoppers]
    assert kinds == ["SmoothStopper", "NodesStopper", "OnlyMoveStopper", "SmartPruningStopper"]
    assert isinstance(chain.stoppers[-1], SmartPruningStopper)
    infinite = move_stopper(None, GoParams(infinite=True), True, 50, iterative=False,
                            smart_pruning_factor=1.33)
    assert infinite.stoppers == []
    # `go movetime` alone is exact (UCI): no smart pruning, no one-move stop
    exact = move_stopper(None, GoParams(movetime=1000), True, 50, iterative=False,
                         smart_pruning_factor=1.33)
    assert [type(stopper).__name__ for stopper in exact.stoppers] == ["TimeLimitStopper"]


def test_one_legal_move_is_answered_once_anything_was_searched() -> None:
    """Issue 16: alpha-beta searched 900 ms with one legal move; the stop comes after the first
    iteration (alpha-beta) or the first playout (MCTS), and only when a manager plans."""
    only = OnlyMoveStopper()
    assert only.should_stop(at(0.0, num_root_moves=1), StopperHints()) is None
    assert only.should_stop(at(1.0, num_root_moves=1, depth=1), StopperHints()) == "only-move"
    assert only.should_stop(at(1.0, num_root_moves=1, nodes_since_movestart=1),
                            StopperHints()) == "only-move"
    assert only.should_stop(at(1.0, num_root_moves=2, depth=5), StopperHints()) is None
    exact = move_stopper(None, GoParams(movetime=500), True, 50, iterative=True)
    assert exact.should_stop(at(1.0, num_root_moves=1, depth=3), StopperHints()) is None


def test_a_search_without_a_tree_has_tree_reuse_zero_from_the_start() -> None:
    """Issue 16: alpha-beta keeps no tree, so the starting 0.5 doubled its early budgets. With
    r = 0, section 12's S1 (Lc0 overhead) allocates 1163.107/0.7 = 1661.58 ms, not 3323.16."""
    manager = SmoothManager(SmoothParams(overhead_per_move=False))
    go = GoParams(wtime=60_000, btime=60_000)
    first = manager.make_stopper(go, ply=0, white=True, reused_nodes=None, move_overhead_ms=100)
    assert first.telemetry()["tree_reuse"] == 0.0
    assert manager.state.alloc_ms == pytest.approx(1163.107 / 0.7, abs=1e-3)
    first.on_search_done(at(1000.0, total_nodes=30_000))
    second = manager.make_stopper(go, ply=2, white=True, reused_nodes=None, move_overhead_ms=100)
    assert second.telemetry()["tree_reuse"] == 0.0


def test_an_equal_trees_manager_stops_an_iterative_search_at_its_planned_nodes() -> None:
    """Smooth plans in nodes: on a 60 s clock at 20k NPS (Lc0 overhead, no reuse) the plan is
    T = 59950 ms over M = 51.5 moves, 59950*20000/1000/51.5 = 23281.55 nodes. An iterative search
    stops there, mid-iteration if need be, with no soft limit in time; the hard limit stays."""
    manager = SmoothManager(SmoothParams(overhead_per_move=False))
    go = GoParams(wtime=60_000, btime=60_000)
    own = manager.make_stopper(go, ply=0, white=True, reused_nodes=None, move_overhead_ms=50)
    assert own.planned_nodes() == pytest.approx(59_950 * 20 / 51.5)
    stopper = move_stopper(own, go, True, 50, iterative=True, equal_trees=True)
    hints = StopperHints()
    assert stopper.should_stop(at(100.0, nodes_since_movestart=20_000), hints) is None
    assert hints.soft_remaining_ms == float("inf")
    assert hints.remaining_nodes == pytest.approx(3281.55, abs=0.01)
    budget = manager.state.alloc_ms
    assert hints.remaining_ms == pytest.approx(HARD_FACTOR * budget - 100.0)
    assert stopper.should_stop(at(100.0, nodes_since_movestart=23_282), StopperHints()) == (
        "target-nodes")
    fresh = SmoothManager(SmoothParams(overhead_per_move=False))
    slow = move_stopper(fresh.make_stopper(go, ply=0, white=True, reused_nodes=None,
                                           move_overhead_ms=50),
                        go, True, 50, iterative=True, equal_trees=True)
    assert slow.should_stop(at(HARD_FACTOR * budget + 0.01, nodes_since_movestart=10),
                            StopperHints()) == "hard-limit"


def test_without_equal_trees_the_planned_nodes_are_no_stop() -> None:
    """The same plan read as a time budget (MCTS, or `equal-trees=0`): the node count is no
    stop and no hint, and a manager that plans in time has no node count."""
    go = GoParams(wtime=60_000, btime=60_000)
    own = SmoothManager().make_stopper(go, ply=0, white=True, reused_nodes=None,
                                       move_overhead_ms=50)
    for stopper in (move_stopper(own, go, True, 50, iterative=True),
                    move_stopper(own, go, True, 50, iterative=False)):
        hints = StopperHints()
        assert stopper.should_stop(at(1.0, nodes_since_movestart=10**9,
                                      num_root_moves=20), hints) is None
        assert hints.remaining_nodes == float("inf")
    fraction = create_manager("fraction").make_stopper(go, ply=0, white=True,
                                                       reused_nodes=None, move_overhead_ms=50)
    assert fraction.planned_nodes() is None
