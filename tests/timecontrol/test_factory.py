"""Spec strings in Lc0 syntax, the registry, and the stopper chain every manager hands out."""

from __future__ import annotations

import pytest

from timecontrol.baselines import FractionManager, MovetimeManager, StockfishManager
from timecontrol.common import OnlyMoveStopper, move_stopper
from timecontrol.factory import MANAGERS, create_manager
from timecontrol.manager import TimeManager
from timecontrol.moves_left import LegacyMovesLeft
from timecontrol.options import TimeManagerSpecError, parse_spec
from timecontrol.smooth import SmoothManager
from timecontrol.smooth_lc0 import SmoothLc0Manager
from timecontrol.stopper import (
    ChainedStopper,
    DepthStopper,
    GoParams,
    NodesStopper,
    SearchStats,
    StopperHints,
    TimeLimitStopper,
)


def test_parse_nested_spec() -> None:
    options = parse_spec(
        "smooth(init-tree-reuse=0.5, max-move-budget=0.3,mle-legacy(midpoint=50.0,steepness=12.0))")
    assert options.name == "smooth"
    assert options.values == {"init-tree-reuse": "0.5", "max-move-budget": "0.3"}
    assert options.subs["mle-legacy"].values == {"midpoint": "50.0", "steepness": "12.0"}
    assert parse_spec("fraction()").values == {}


def test_smooth_keys_reach_the_parameters() -> None:
    manager = create_manager(
        "smooth(init-tree-reuse=0.5,max-move-budget=0.3,mle-legacy(midpoint=50.0,steepness=12.0))")
    assert isinstance(manager, SmoothManager)
    assert manager.params.moves_left == LegacyMovesLeft(50.0, 12.0)
    assert manager.params.max_move_budget == 0.3
    direct = create_manager("smooth(midpoint=40,steepness=6.5,init-nps=30000.0)")
    assert direct.params.moves_left == LegacyMovesLeft(40.0, 6.5)
    assert direct.state.nps == 30000.0


def test_smooth_lc0_keys_and_integer_keys() -> None:
    manager = create_manager("smooth-lc0(force-piggybank-ms=500,nps-update-period=10.0,"
                             "trend-nps-update-period-ms=2000,init-piggybank=0.0)")
    assert isinstance(manager, SmoothLc0Manager)
    assert manager.params.force_piggybank_ms == 500
    assert manager.params.trend_nps_update_period_ms == 2000
    assert manager.params.nps_update_period == 10.0
    assert manager.params.moves_left == LegacyMovesLeft(45.2, 5.93)


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("", ["empty"]),
        ("   ", ["empty"]),
        ("legacy", ["unknown manager 'legacy'", "smooth"]),
        ("smooth(foo=1.0)", ["key 'foo'", "unknown"]),
        ("smooth(init-tree-reuse=abc)", ["key 'init-tree-reuse'", "expects a number"]),
        ("smooth(init-tree-reuse=0.5.1)", ["key 'init-tree-reuse'", "expects a number"]),
        ("smooth(init-tree-reuse=nan)", ["key 'init-tree-reuse'"]),
        ("smooth(init-tree-reuse=1.0)", ["key 'init-tree-reuse'", "out of range"]),
        ("smooth(max-move-budget=0)", ["key 'max-move-budget'", "out of range"]),
        ("smooth(max-move-budget=1.5)", ["key 'max-move-budget'", "out of range"]),
        ("smooth(init-nps=-5.0)", ["key 'init-nps'", "out of range"]),
        ("smooth(min-timeuse=0.0)", ["key 'min-timeuse'", "out of range"]),
        ("smooth(nps-update-period=20.0)", ["key 'nps-update-period'", "unknown"]),
        ("smooth(mle-legacy(midpoint=0.0))", ["key 'midpoint'", "out of range"]),
        ("smooth(mle-legacy(midpoint=50.0,bogus=1.0))", ["key 'bogus'", "unknown"]),
        ("smooth(mle-legacy(steepness=5.0),midpoint=40.0)", ["key 'midpoint'", "unknown"]),
        ("smooth(mle-legacy=3)", ["key 'mle-legacy'", "sub-list"]),
        ("smooth(init-nps(x=1))", ["key 'init-nps'", "not a sub-list"]),
        ("smooth-lc0(init-nps=20000.0)", ["key 'init-nps'", "unknown"]),
        ("smooth-lc0(nps-update-rate=5.0)", ["key 'nps-update-rate'", "unknown"]),
        ("smooth-lc0(force-piggybank-ms=1000.5)", ["key 'force-piggybank-ms'", "integer"]),
        ("smooth-lc0(trend-nps-update-period-ms=-1)", ["trend-nps-update-period-ms"]),
        ("smooth-lc0(max-piggybank-use=1.2)", ["key 'max-piggybank-use'", "out of range"]),
        ("fraction(moves=0.5)", ["key 'moves'", "out of range"]),
        ("fraction(inc-use=2)", ["key 'inc-use'", "out of range"]),
        ("movetime(ms=-1)", ["key 'ms'", "out of range"]),
        ("movetime(seconds=1)", ["key 'seconds'", "unknown"]),
        ("stockfish(x=1)", ["key 'x'", "unknown"]),
        ("smooth(init-tree-reuse=0.5,init-tree-reuse=0.6)", ["init-tree-reuse", "twice"]),
        ("smooth(init-tree-reuse=)", ["init-tree-reuse", "no value"]),
        ("smooth(init-tree-reuse)", ["init-tree-reuse", "'=value'"]),
        ("smooth(init-tree-reuse=0.5", ["',' or ')' is missing"]),
        ("smooth(init-tree-reuse=0.5))", ["unexpected text"]),
        ("smooth extra", ["unexpected text"]),
        ("(x=1)", ["a name is missing"]),
    ],
)
def test_bad_specs_name_the_problem(spec: str, fragments: list[str]) -> None:
    with pytest.raises(TimeManagerSpecError) as caught:
        create_manager(spec)
    assert isinstance(caught.value, ValueError)
    for fragment in fragments:
        assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "cls"),
    [("smooth", SmoothManager), ("smooth-lc0", SmoothLc0Manager),
     ("fraction", FractionManager), ("stockfish", StockfishManager),
     ("movetime(ms=250)", MovetimeManager)],
)
def test_every_manager_chains_its_stopper_before_the_limits(spec: str, cls: type) -> None:
    """A manager hands out only its own stopper; `move_stopper` chains it before the limits of
    `go` and the one-move stop (Lc0's CommonTimeManager)."""
    manager = create_manager(spec)
    assert isinstance(manager, cls) and isinstance(manager, TimeManager)
    assert manager.name == spec.split("(")[0]
    go = GoParams(wtime=60_000, btime=60_000, winc=500, binc=500, nodes=1000, depth=9)
    own = manager.make_stopper(go, ply=10, white=False, reused_nodes=0, move_overhead_ms=50)
    assert own is not None and not isinstance(own, ChainedStopper)
    stopper = move_stopper(own, go, False, 50, iterative=False)
    assert isinstance(stopper, ChainedStopper)
    first, *limits = stopper.stoppers
    assert first is own
    assert [type(s) for s in limits] == [NodesStopper, DepthStopper, OnlyMoveStopper]
    telemetry = stopper.telemetry()
    assert telemetry["tm"] == manager.name
    assert isinstance(telemetry["budget_ms"], int) and telemetry["budget_ms"] > 0
    hints = StopperHints()
    assert stopper.should_stop(SearchStats(time_since_movestart_ms=1.0), hints) is None
    assert hints.remaining_ms < telemetry.get("hard_ms", telemetry["budget_ms"])
    assert stopper.should_stop(SearchStats(time_since_movestart_ms=59_000.0),
                               StopperHints()) == "budget"
    stopper.on_search_done(SearchStats(time_since_movestart_ms=500.0, total_nodes=5000))


@pytest.mark.parametrize("spec", sorted(MANAGERS))
@pytest.mark.parametrize(
    "go",
    [GoParams(movetime=1000), GoParams(nodes=500), GoParams(depth=5), GoParams(infinite=True),
     GoParams(wtime=60_000, btime=60_000, infinite=True), GoParams(wtime=60_000, movetime=800)],
)
@pytest.mark.parametrize("iterative", [False, True])
def test_without_a_clock_for_the_mover_the_chain_is_just_the_limits(spec: str, go: GoParams,
                                                                    iterative: bool) -> None:
    manager = create_manager(spec)
    own = manager.make_stopper(go, ply=0, white=False, reused_nodes=0, move_overhead_ms=100)
    assert own is None
    stopper = move_stopper(own, go, False, 100, iterative=iterative)
    assert stopper.telemetry() == {}
    if go.movetime is not None:
        assert stopper.stoppers == [TimeLimitStopper(go.movetime - 100)]
    if go.infinite:
        assert stopper.stoppers == []


@pytest.mark.parametrize("spec", sorted(MANAGERS))
def test_iteration_factors_are_the_managers_choice(spec: str) -> None:
    """Stockfish's iteration factors belong to its allocation: on for `stockfish`, off for the
    others (smooth plans trees of equal size per move); `iteration-factors=0/1` overrides either,
    and an iterative search learns the choice from the hints of the chain."""
    default = create_manager(spec).iteration_factors
    assert default is (spec == "stockfish")
    go = GoParams(wtime=60_000, btime=60_000)
    for flag in (0, 1):
        manager = create_manager(f"{spec}(iteration-factors={flag})")
        assert manager.iteration_factors is bool(flag)
        own = manager.make_stopper(go, ply=0, white=True, reused_nodes=None, move_overhead_ms=50)
        stopper = move_stopper(own, go, True, 50, iterative=True,
                               iteration_factors=manager.iteration_factors)
        hints = StopperHints()
        assert stopper.should_stop(SearchStats(time_since_movestart_ms=1.0), hints) is None
        assert hints.iteration_factors is bool(flag)
        hints.reset()
        assert hints.iteration_factors is False
    with pytest.raises(TimeManagerSpecError, match="iteration-factors"):
        create_manager(f"{spec}(iteration-factors=2)")


def test_a_move_no_manager_plans_asks_for_no_iteration_factors() -> None:
    """`go movetime` is exact: no soft limit to scale, whatever the manager would choose."""
    stopper = move_stopper(None, GoParams(movetime=500), True, 50, iterative=True,
                           iteration_factors=True)
    hints = StopperHints()
    stopper.should_stop(SearchStats(time_since_movestart_ms=1.0), hints)
    assert hints.iteration_factors is False


@pytest.mark.parametrize("spec", sorted(MANAGERS))
def test_equal_trees_is_on_for_smooth_only_and_a_key_of_every_manager(spec: str) -> None:
    """`smooth` makes its alpha-beta trees equal by default; smooth-lc0 stops in time as Lc0
    does; `equal-trees=0/1` overrides either."""
    assert create_manager(spec).equal_trees is (spec == "smooth")
    for flag in (0, 1):
        assert create_manager(f"{spec}(equal-trees={flag})").equal_trees is bool(flag)
    with pytest.raises(TimeManagerSpecError, match="equal-trees"):
        create_manager(f"{spec}(equal-trees=yes)")
