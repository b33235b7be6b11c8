"""The `smooth` preset against docs/reference/smooth_time_manager.md section 12 (S1-S6,
estimators)."""

from __future__ import annotations

import pytest

from timecontrol.common import move_stopper
from timecontrol.factory import create_manager
from timecontrol.go import GoParams
from timecontrol.smooth import (
    SmoothManager,
    SmoothParams,
    SmoothState,
    exponential_decay,
    move_weight,
    smooth_budget,
    update_timeuse,
    update_tree_reuse,
)
from timecontrol.stopper import ChainedStopper, SearchStats, StopperHints

REL = 1e-6  # section 12 is computed in double precision, as here
# Section 12's wiring: the overhead taken once, movestogo only a cap (Lc0's)
LC0_OVERHEAD = SmoothParams(overhead_per_move=False, plan_period=False)


def state(**changes: float) -> SmoothState:
    fresh = SmoothState.fresh(SmoothParams())
    for key, value in changes.items():
        setattr(fresh, key, value)
    return fresh


def approx(value: float) -> object:
    return pytest.approx(value, rel=REL, abs=1e-3)


@pytest.mark.parametrize(
    ("case", "st", "args", "row"),
    [
        ("S1", {}, (60_000, 0, None, 0, 0, 100),
         (51.5, 59900, 1163.107, 46524.272, 2326.214, 3323.162)),
        ("S2", {}, (60_000, 1000, None, 0, 0, 100),
         (51.5, 110400, 2143.689, 85747.573, 4287.379, 6124.827)),
        ("S3", {"nps": 15000.0, "tree_reuse": 0.6, "timeuse": 0.5},
         (30_000, 300, None, 40, 20_000, 100),
         (31.5196, 39055.874, 1239.099, 46466.206, 1764.414, 3528.827)),
        ("S4", {}, (10_000, 0, 1, 40, 0, 100), (1, 9900, 9900, 396000, 19800, 3000)),
        ("S5", {"nps": 30000.0}, (20_000, 0, None, 100, 2_000_000, 100),
         (9.1168, 19900, 2182.787, 130967.238, 0, 0)),
        ("S6", {}, (400, 0, 1, 0, 0, 300), (1, 100, 100, 4000, 200, 100)),
    ],
)
def test_section_12_budgets(case: str, st: dict[str, float], args: tuple, row: tuple) -> None:
    moves, game_time, avg_ms, target_total, expected, alloc = row
    budget = smooth_budget(SmoothParams(), state(**st), *args)
    assert budget.moves_left == pytest.approx(moves, abs=1e-4)
    assert budget.game_time_ms == approx(game_time)
    assert budget.avg_ms == approx(avg_ms)
    assert budget.target_total_nodes == approx(target_total)
    assert budget.expected_ms == approx(expected)
    assert budget.alloc_ms == approx(alloc)


def test_s5_without_the_1476_clamp_would_be_negative() -> None:
    budget = smooth_budget(SmoothParams(), state(nps=30000.0), 20_000, 0, None, 100, 2_000_000,
                           100)
    assert budget.target_total_nodes - 2_000_000 < 0
    assert budget.new_nodes == 0.0 and budget.alloc_ms == 0.0


def test_s6_clock_minus_overhead_clamp_is_tighter_than_the_budget_cap() -> None:
    params = SmoothParams()
    assert 400 * params.max_move_budget == pytest.approx(120.0)
    assert smooth_budget(params, state(), 400, 0, 1, 0, 0, 300).alloc_ms == 100.0
    assert smooth_budget(params, state(), 200, 0, 1, 0, 0, 300).alloc_ms == 0.0


def test_seed_estimator_updates() -> None:
    assert exponential_decay(30000, 20000, 5.0, 1.0) == pytest.approx(28705.506, abs=1e-3)
    assert exponential_decay(30000, 20000, 5.0, 5.0) == pytest.approx(25000.0)
    assert update_tree_reuse(0.5, 0.6, 2.0, 4.0, 0.7) == pytest.approx(0.529289, abs=1e-6)
    assert update_tree_reuse(0.68, 0.9, 1.0, 4.0, 0.7) == 0.7
    assert update_timeuse(0.7, 0.5, 1.0, 10.0, 0.3) == pytest.approx(0.686607, abs=1e-6)
    assert update_timeuse(0.32, 0.1, 3.0, 10.0, 0.3) == 0.3
    # The seed's decay: halfway per step, 3/4 after two, 7/8 after three.
    assert exponential_decay(0.0, 8.0, 1.0, 3.0) == pytest.approx(7.0)
    assert move_weight(3000, 1500) == 2.0 and move_weight(3000, 0) == 0.0


def go(wtime: int = 60_000, winc: int | None = None, **extra: int) -> GoParams:
    return GoParams(wtime=wtime, btime=wtime, winc=winc, binc=winc, **extra)


def test_budget_through_the_factory_and_telemetry() -> None:
    """The UCI-facing numbers: S1 = 3323.162 ms and S2 = 6124.827 ms as budget_ms."""
    manager = create_manager("smooth(overhead-per-move=0,plan-period=0)")
    stopper = manager.make_stopper(GoParams(wtime=60_000, btime=60_000), ply=0, white=True,
                                   reused_nodes=0, move_overhead_ms=100)
    telemetry = stopper.telemetry()
    assert telemetry["budget_ms"] == pytest.approx(3323, abs=1)
    assert telemetry == {"tm": "smooth", "budget_ms": telemetry["budget_ms"],
                         "hard_ms": telemetry["budget_ms"], "moves_left": 51.5,
                         "game_time_ms": 59900, "target_nodes": 46524, "nps_est": 20000.0,
                         "tree_reuse": 0.5, "timeuse": 0.7}
    stopper.on_search_done(SearchStats(time_since_movestart_ms=1000.0, total_nodes=30_000))
    after = stopper.telemetry()
    assert after["timeuse_after"] == round(manager.state.timeuse, 6) != 0.7
    assert after["nps_after"] == 20000.0  # no check with nodes: the NPS estimate is unchanged
    manager = create_manager("smooth(overhead-per-move=0,plan-period=0)")
    stopper = manager.make_stopper(GoParams(wtime=60_000, btime=60_000, winc=1000, binc=1000),
                                   ply=0, white=True, reused_nodes=0, move_overhead_ms=100)
    assert stopper.telemetry()["budget_ms"] == pytest.approx(6124, abs=1)
    black = create_manager("smooth(overhead-per-move=0,plan-period=0)").make_stopper(
        GoParams(wtime=1000, btime=60_000, winc=0, binc=1000), ply=1, white=False,
        reused_nodes=0, move_overhead_ms=100)
    assert black.telemetry()["budget_ms"] > 6000


def test_stopper_stops_at_the_budget_and_publishes_hints() -> None:
    manager = SmoothManager(LC0_OVERHEAD)
    stopper = manager.make_stopper(go(), ply=0, white=True, reused_nodes=0, move_overhead_ms=100)
    hints = StopperHints()
    stats = SearchStats(time_since_movestart_ms=1000.0, time_since_first_eval_ms=900.0,
                        nodes_since_movestart=27_000)
    assert stopper.should_stop(stats, hints) is None
    assert hints.estimated_nps == pytest.approx(30_000.0)  # first search: the raw NPS
    assert hints.remaining_ms == pytest.approx(3323.162 - 1000.0, abs=1e-3)
    stats.time_since_movestart_ms = 3323.2
    assert stopper.should_stop(stats, StopperHints()) == "budget"


def test_budget_zero_stops_at_the_first_check() -> None:
    manager = SmoothManager(LC0_OVERHEAD)
    manager.state.nps = 30_000.0
    stopper = manager.make_stopper(go(20_000), ply=100, white=True, reused_nodes=2_000_000,
                                   move_overhead_ms=100)
    assert stopper.telemetry()["budget_ms"] == 0
    assert stopper.should_stop(SearchStats(), StopperHints()) == "budget"


def test_nps_update_rule_during_a_search() -> None:
    """v1 with the #1243 fix: raw on the first search, then exponential decay (5 s half-life)
    from the previous estimate, with the elapsed search time since the last check."""
    manager = SmoothManager(LC0_OVERHEAD)
    assert manager.update_nps(0.0, 100) == 20_000.0  # before the first evaluation: unchanged
    assert manager.update_nps(500.0, 15_000) == 30_000.0  # first search of the game: raw
    manager.search_done(600.0, 20_000)
    manager.make_stopper(go(), ply=2, white=True, reused_nodes=5_000, move_overhead_ms=100)
    assert manager.state.last_time_ms == 0.0
    # 1 s into the next search at a raw 20000: 30000 -> 28705.506 (section 12).
    assert manager.update_nps(1000.0, 20_000) == pytest.approx(28705.506, abs=1e-3)
    # 4 s later, raw still 20000: the distance halves at 5 s in total.
    assert manager.update_nps(5000.0, 100_000) == pytest.approx(25000.0)
    # A check in the same millisecond changes nothing.
    assert manager.update_nps(5000.0, 50_000) == pytest.approx(25000.0)


def test_tree_reuse_update_is_deferred_to_the_next_budget() -> None:
    manager = SmoothManager(LC0_OVERHEAD)
    first = manager.make_stopper(go(), ply=0, white=True, reused_nodes=0, move_overhead_ms=100)
    avg_ms = manager.state.avg_ms
    assert avg_ms == pytest.approx(1163.107, abs=1e-3)
    first.should_stop(SearchStats(time_since_movestart_ms=2 * avg_ms,
                                  time_since_first_eval_ms=2 * avg_ms,
                                  nodes_since_movestart=50_000), StopperHints())
    first.on_search_done(SearchStats(time_since_movestart_ms=2 * avg_ms, total_nodes=50_000))
    assert manager.state.tree_reuse == 0.5  # not yet: it needs the next move's reused nodes
    second = manager.make_stopper(go(), ply=2, white=True, reused_nodes=30_000,
                                  move_overhead_ms=100)
    # sample 30000/50000 = 0.6 with weight 2 average move times: 0.529289 (section 12).
    assert manager.state.tree_reuse == pytest.approx(0.529289, abs=1e-6)
    assert second.telemetry()["tree_reuse"] == pytest.approx(0.529289, abs=1e-6)


def test_time_use_update_weighted_by_average_move_times() -> None:
    manager = SmoothManager(LC0_OVERHEAD)
    stopper = manager.make_stopper(go(), ply=0, white=True, reused_nodes=0, move_overhead_ms=100)
    alloc, avg_ms = manager.state.alloc_ms, manager.state.avg_ms
    elapsed = alloc / 2
    stopper.on_search_done(SearchStats(time_since_movestart_ms=elapsed, total_nodes=10_000))
    weight = elapsed / avg_ms
    assert manager.state.timeuse == pytest.approx(0.5 + 0.2 * 0.5 ** (weight / 10.0))
    assert manager.state.nps_reliable
    assert manager.state.last_final_nodes == 10_000


def test_zero_allocation_counts_as_full_time_use() -> None:
    """#1527: after a 0 ms allocation the time-use sample is 1.0, not infinity."""
    manager = SmoothManager(LC0_OVERHEAD)
    manager.state.nps = 30_000.0
    stopper = manager.make_stopper(go(20_000), ply=100, white=True, reused_nodes=2_000_000,
                                   move_overhead_ms=100)
    stopper.on_search_done(SearchStats(time_since_movestart_ms=3.0, total_nodes=2_000_100))
    assert 0.7 < manager.state.timeuse < 1.0


def test_state_persists_across_moves_and_new_game_resets_it() -> None:
    manager = create_manager("smooth(overhead-per-move=0,plan-period=0)")
    stopper = manager.make_stopper(go(), ply=0, white=True, reused_nodes=0, move_overhead_ms=100)
    stopper.should_stop(SearchStats(time_since_movestart_ms=900.0,
                                    time_since_first_eval_ms=800.0,
                                    nodes_since_movestart=40_000), StopperHints())
    stopper.on_search_done(SearchStats(time_since_movestart_ms=900.0, total_nodes=40_000))
    assert manager.state.nps == pytest.approx(50_000.0)
    second = manager.make_stopper(go(58_000), ply=2, white=True, reused_nodes=10_000,
                                  move_overhead_ms=100)
    assert second.telemetry()["nps_est"] == pytest.approx(50_000.0)
    assert manager.state.timeuse != 0.7 and manager.state.tree_reuse != 0.5
    manager.new_game()
    assert manager.state == SmoothState.fresh(manager.params)
    # A stopper of the old game reporting late must not leak into the new one.
    second.should_stop(SearchStats(time_since_movestart_ms=100.0, time_since_first_eval_ms=50.0,
                                   nodes_since_movestart=99_999), StopperHints())
    second.on_search_done(SearchStats(time_since_movestart_ms=100.0, total_nodes=99_999))
    assert manager.state == SmoothState.fresh(manager.params)


def test_movestogo_and_limits_in_the_same_go() -> None:
    manager = SmoothManager(LC0_OVERHEAD)
    params = go(10_000, movestogo=1, nodes=5000)
    own = manager.make_stopper(params, ply=40, white=True, reused_nodes=0, move_overhead_ms=100)
    stopper = move_stopper(own, params, True, 100, iterative=False)
    assert isinstance(stopper, ChainedStopper) and len(stopper.stoppers) == 3
    assert stopper.telemetry()["budget_ms"] == 3000  # S4
    assert stopper.should_stop(SearchStats(nodes_since_movestart=5000), StopperHints()) == "nodes"


def test_moves_left_is_rounded_in_telemetry() -> None:
    """Issue 16: moves_left printed 51.000000000000114; it is rounded to 4 decimals."""
    manager = SmoothManager(LC0_OVERHEAD)
    telemetry = manager.make_stopper(go(30_000), ply=1, white=True, reused_nodes=0,
                                     move_overhead_ms=100).telemetry()
    exact = manager.params.moves_left.moves_left(1)
    assert exact != round(exact, 4) and telemetry["moves_left"] == round(exact, 4)


def test_movestogo_plans_the_period_by_default() -> None:
    """Issue 16: in a later period (ply 100, 30 moves to go) the preset plans for the 30 moves
    of the period, not Lc0's MLE(100) = 9.1168 (which flags by move 80 of 40/20)."""
    telemetry = create_manager("smooth").make_stopper(
        go(20_000, movestogo=30), ply=100, white=True, reused_nodes=0,
        move_overhead_ms=100).telemetry()
    assert telemetry["moves_left"] == 30.0
    assert telemetry["game_time_ms"] == 20_000 - 100 * 30
    with pytest.raises(ValueError, match="plan-period"):
        create_manager("smooth(plan-period=yes)")


def test_movestogo_only_caps_the_estimate() -> None:
    """Reference §2 step 4 (Lc0, plan-period=0): in a later period (ply 100, 30 moves to go)
    smooth still plans for MLE(100) = 9.1168 moves, not 30: it spends the period faster than a
    per-period split."""
    manager = SmoothManager(LC0_OVERHEAD)
    telemetry = manager.make_stopper(go(20_000, movestogo=30), ply=100, white=True,
                                     reused_nodes=0, move_overhead_ms=100).telemetry()
    assert telemetry["moves_left"] == pytest.approx(9.1168, abs=1e-4)
    capped = manager.make_stopper(go(20_000, movestogo=5), ply=102, white=True, reused_nodes=0,
                                  move_overhead_ms=100).telemetry()
    assert capped["moves_left"] == 5.0


def test_e14_lc0_v1_merged_defaults_through_the_spec() -> None:
    """Reference §10 E14: PR 1195 as merged (u0 = 0.5, r0 = 0.5, MLE 51.5/7.0, cap 0.3), O 200."""
    manager = create_manager("smooth(init-timeuse=0.5)")
    first = smooth_budget(manager.params, manager.state, 60_000, 0, None, 0, 0, 200)
    assert (first.moves_left, first.game_time_ms) == (51.5, 59800)
    assert first.expected_ms == approx(2322.330)
    assert first.alloc_ms == approx(4644.660)
    manager.state.nps = 50_000.0
    mid = smooth_budget(manager.params, manager.state, 30_000, 500, None, 60, 80_000, 200)
    assert mid.moves_left == pytest.approx(21.8286, abs=1e-4)
    assert mid.game_time_ms == approx(40214.28)
    assert mid.target_total_nodes == approx(184227.81)
    assert mid.new_nodes == approx(104227.81)
    assert mid.expected_ms == approx(2084.556)
    assert mid.alloc_ms == approx(4169.112)


def test_overhead_reserved_per_expected_move_by_default() -> None:
    """Issue 16: the default keeps O back for each of the M expected moves (Stockfish's
    timeLeft, reference §9), so S1's game time 60000 - 100 = 59900 becomes 60000 - 100*51.5."""
    budget = smooth_budget(SmoothParams(), state(), 60_000, 0, None, 0, 0, 100,
                           overhead_per_move=True)
    assert budget.game_time_ms == approx(54850.0)
    assert budget.avg_ms == approx(54850.0 / 51.5)
    assert budget.alloc_ms == approx(54850.0 / 51.5 * 20 / 0.5 / 20 / 0.7)
    telemetry = create_manager("smooth").make_stopper(
        go(), ply=0, white=True, reused_nodes=0, move_overhead_ms=100).telemetry()
    assert telemetry["budget_ms"] == int(budget.alloc_ms)
    with pytest.raises(ValueError, match="overhead-per-move"):
        create_manager("smooth(overhead-per-move=2)")


@pytest.mark.parametrize("spec", ["smooth", "smooth-lc0"])
def test_a_sub_millisecond_check_is_no_nps_sample(spec: str) -> None:
    """Issue 16: MCTS's first check came 0.004 ms after the first playout and set the NPS to
    250k (real ~450). Lc0 times in whole ms: a check within the first millisecond changes
    nothing; the first one after it is the first sample."""
    manager = create_manager(spec)
    assert manager.update_nps(0.004, 1) == 20_000.0
    assert manager.update_nps(0.999, 1) == 20_000.0
    assert manager.update_nps(2.0, 3) == pytest.approx(1500.0)
