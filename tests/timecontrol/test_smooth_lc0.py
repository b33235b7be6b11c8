"""The `smooth-lc0` preset against docs/reference/smooth_time_manager.md section 10 (E1-E15).

Floats within 1e-3 relative (Lc0 is float32; the reference is double), integer outputs exact.
"""

from __future__ import annotations

import pytest

from timecontrol.factory import create_manager
from timecontrol.go import GoParams
from timecontrol.smart_pruning import SmartPruningStopper, remaining_playouts
from timecontrol.smooth import exponential_decay, update_timeuse, update_tree_reuse
from timecontrol.smooth_lc0 import (
    SmoothLc0Manager,
    SmoothLc0Params,
    SmoothLc0State,
    VisitsTrendWatcher,
    linear_decay,
    smooth_lc0_budget,
)
from timecontrol.stopper import ChainedStopper, SearchStats, StopperHints

REL = 1e-3
P = SmoothLc0Params()
# Section 10's wiring: the overhead taken once, movestogo only a cap (Lc0's)
LC0_OVERHEAD = SmoothLc0Params(overhead_per_move=False, plan_period=False)


def fresh(**changes: object) -> SmoothLc0State:
    state = SmoothLc0State(tree_reuse=0.52, nps=20000.0, timeuse=0.7)
    for key, value in changes.items():
        setattr(state, key, value)
    return state


def rel(value: float) -> object:
    return pytest.approx(value, rel=REL)


def test_e1_first_move() -> None:
    state = fresh()
    b = smooth_lc0_budget(P, state, 60_000, 0, None, 0, 0, 200)
    assert b.moves_left == rel(45.2)
    assert b.bank_max_ms == rel(48289.82)
    assert b.game_time_ms == rel(54400)
    assert b.avg_ms == rel(1203.540)
    assert b.target_total_nodes == rel(50147.49)
    assert b.brutto_ms == rel(2507.375)
    assert b.to_bank_ms == rel(300.885)
    assert b.netto_ms == rel(2206.490)
    assert b.alloc_ms == rel(3152.128)
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (3152, 5076, 5700)
    assert state.bank_ms == 5700 and not state.first_move


def test_e2_increment() -> None:
    b = smooth_lc0_budget(P, fresh(), 60_000, 1000, None, 0, 0, 200)
    assert b.game_time_ms == rel(98600)
    assert b.bank_max_ms == rel(83982.30)
    assert b.brutto_ms == rel(4544.617)
    assert b.to_bank_ms == rel(545.354)
    assert b.alloc_ms == rel(5713.232)
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (5713, 5076, 5945)


def test_e3_reused_nodes() -> None:
    b = smooth_lc0_budget(P, fresh(), 60_000, 0, None, 0, 10_000, 200)
    assert b.new_nodes == rel(40147.49)
    assert b.brutto_ms == rel(2007.375)
    assert b.to_bank_ms == rel(240.885)
    assert b.alloc_ms == rel(2523.557)
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (2523, 5076, 5640)


def test_e4_mid_game() -> None:
    state = fresh(nps=50000.0, tree_reuse=0.6, timeuse=0.5, bank_ms=3000, first_move=False)
    b = smooth_lc0_budget(P, state, 30_000, 500, None, 60, 80_000, 200)
    assert b.moves_left == rel(16.4524)
    assert b.game_time_ms == rel(34526.21)
    assert b.avg_ms == rel(2098.549)
    assert b.target_total_nodes == rel(262318.60)
    assert b.new_nodes == rel(182318.60)
    assert b.brutto_ms == rel(3646.372)
    assert b.to_bank_ms == rel(437.565)
    assert b.alloc_ms == rel(6417.615)
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (6417, 2820, 3437)


def test_e5_max_move_budget_cap() -> None:
    b = smooth_lc0_budget(P, fresh(first_move=False), 10_000, 0, 1, 40, 0, 200)
    assert b.moves_left == 1.0
    assert b.game_time_ms == rel(9800)
    assert b.brutto_ms == rel(20416.67)
    assert b.to_bank_ms == rel(2450)
    assert b.netto_ms == rel(17966.67)
    assert b.netto_ms / 0.7 == rel(25666.7)
    assert b.alloc_ms == rel(4200)
    assert (b.allowed_ms, b.bank_ms) == (0, 2450)


def test_e6_overhead_clamp() -> None:
    b = smooth_lc0_budget(P, fresh(first_move=False), 400, 0, 1, 40, 0, 300)
    assert b.game_time_ms == rel(100)
    assert b.brutto_ms == rel(208.333)
    assert b.to_bank_ms == rel(25)
    assert b.netto_ms / 0.7 == rel(261.9)
    assert min(b.netto_ms / 0.7, 400 * 0.42) == rel(168)
    assert b.alloc_ms == 100.0
    assert (b.allowed_ms, b.bank_ms) == (0, 25)


def test_e7_reuse_exceeds_target() -> None:
    state = fresh(nps=30000.0, bank_ms=1000, first_move=False)
    b = smooth_lc0_budget(P, state, 20_000, 0, None, 100, 2_000_000, 200)
    assert b.moves_left == rel(8.5486)
    assert b.target_total_nodes == rel(137450.08)
    assert b.new_nodes == 0.0 and b.brutto_ms == 0.0 and b.to_bank_ms == 0.0
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (0, 940, 1000)
    # Without the #1476 clamp (v1 code path): target - N0 is about -1,862,550.
    assert b.target_total_nodes - 2_000_000 == pytest.approx(-1_862_550, abs=1)


def test_e8_movestogo_control() -> None:
    b = smooth_lc0_budget(P, fresh(nps=25000.0, first_move=False), 120_000, 0, 20, 40, 0, 200)
    assert b.moves_left == 20.0
    assert b.game_time_ms == rel(119800)
    assert b.brutto_ms == rel(12479.17)
    assert b.to_bank_ms == rel(1497.5)
    assert b.alloc_ms == rel(15688.095)
    assert (b.deadline_ms, b.bank_ms) == (15688, 1497)


def test_e9_bank_clamp_with_no_game_time() -> None:
    state = fresh(bank_ms=10_000, first_move=False)
    b = smooth_lc0_budget(P, state, 2000, 0, None, 100, 0, 200)
    assert b.bank_max_ms == rel(7685.51)
    assert b.game_time_ms == 0.0
    assert b.alloc_ms == 0.0
    assert (b.deadline_ms, b.allowed_ms, b.bank_ms) == (0, 1800, 7685)


def test_e10_tree_reuse_update_then_budget() -> None:
    manager = SmoothLc0Manager(LC0_OVERHEAD)
    manager.state.first_move = False
    manager.state.last_final_nodes = 100_000
    manager.state.last_time_ms = 2000.0
    manager.state.avg_ms = 1000.0
    stopper = manager.make_stopper(GoParams(wtime=60_000, btime=60_000), ply=30, white=True,
                                   reused_nodes=60_000, move_overhead_ms=200)
    assert manager.state.tree_reuse == rel(0.546851)
    telemetry = stopper.telemetry()
    assert telemetry["moves_left"] == rel(30.2220)
    assert telemetry["budget_ms"] == 1717
    assert telemetry["bank_ms"] == 163
    assert manager.state.last_time_ms == 0.0
    # Clamp case: r 0.70, sample 0.9, w 1 -> 0.736984 unclamped, 0.73 after the clamp.
    assert exponential_decay(0.70, 0.9, 3.39, 1.0) == rel(0.736984)
    assert update_tree_reuse(0.70, 0.9, 1.0, 3.39, 0.73) == 0.73


def test_e11_time_use_updates() -> None:
    assert update_timeuse(0.7, 0.5, 1.0, 5.51, 0.34) == rel(0.676359)
    assert exponential_decay(0.36, 0.1, 5.51, 2.0) == rel(0.302165)
    assert update_timeuse(0.36, 0.1, 2.0, 5.51, 0.34) == 0.34
    manager = SmoothLc0Manager(LC0_OVERHEAD)
    state = manager.state
    state.alloc_ms, state.avg_ms, state.bank_ms = 3000.0, 1500.0, 5000
    manager.search_done(1500.0, 1, used_bank=False, deadline_ms=3000)
    assert state.timeuse == rel(0.676359) and state.bank_ms == 5000
    state.timeuse = 0.7
    manager.search_done(4000.0, 1, used_bank=True, deadline_ms=3000)
    assert state.timeuse == rel(0.785498)
    assert state.bank_ms == 4000


def test_e12_linear_decay() -> None:
    assert linear_decay(30000, 20000, 6000, 1000, 20000) == rel(29333.33)
    assert linear_decay(30000, 20000, 1000, 1000, 20000) == rel(29500)
    assert linear_decay(30000, 40000, 7000, 500, 20000) == 40000
    assert linear_decay(30000, 15000, 25000, 5000, 20000) == 15000
    assert linear_decay(30000, 20000, 1000, 0, 20000) == 30000


def test_e12_sequence_through_the_stopper() -> None:
    manager = SmoothLc0Manager(LC0_OVERHEAD)
    manager.state.nps_reliable = True
    manager.state.nps = 30000.0
    manager.state.first_move = False
    stopper = manager.make_stopper(GoParams(wtime=600_000, btime=600_000), ply=20, white=True,
                                   reused_nodes=0, move_overhead_ms=200)
    expected = [(500, 10000, 29500.000), (1000, 12000, 29051.282), (2000, 14000, 28259.109),
                (5000, 15000, 26049.258), (10000, 15000, 22366.172), (20000, 15000, 15000)]
    for t, raw, estimate in expected:
        hints = StopperHints()
        stats = SearchStats(time_since_movestart_ms=t + 5.0, time_since_first_eval_ms=t,
                            nodes_since_movestart=raw * t // 1000)
        stopper.should_stop(stats, hints)
        assert hints.estimated_nps == rel(estimate)
    # Quirk (reference §3): a second check in the same millisecond snaps to the raw value.
    hints = StopperHints()
    stopper.should_stop(SearchStats(time_since_movestart_ms=20005.0,
                                    time_since_first_eval_ms=20000.0,
                                    nodes_since_movestart=100_000), hints)
    assert hints.estimated_nps == 5000.0


def test_v1_exponential_nps_example() -> None:
    assert exponential_decay(30000, 20000, 5.0, 1.0) == pytest.approx(28705.5, abs=0.05)


def test_e13_two_move_carry_over() -> None:
    manager = create_manager("smooth-lc0(overhead-per-move=0,plan-period=0)")
    first = manager.make_stopper(GoParams(wtime=60_000, btime=60_000), ply=0, white=True,
                                 reused_nodes=0, move_overhead_ms=200)
    assert first.telemetry()["budget_ms"] == 3152
    state = manager.state
    first.on_search_done(SearchStats(time_since_movestart_ms=2000.0, total_nodes=40_000))
    assert state.timeuse == rel(0.687642)
    state.nps, state.last_time_ms = 25000.0, 1950.0
    second = manager.make_stopper(GoParams(wtime=57_900, btime=60_000), ply=2, white=True,
                                  reused_nodes=12_000, move_overhead_ms=200)
    assert state.tree_reuse == rel(0.457960)
    assert state.avg_ms == rel(52000 / 44.2)
    telemetry = second.telemetry()
    assert telemetry["moves_left"] == rel(44.2)
    assert telemetry["budget_ms"] == 2163
    assert telemetry["hard_ms"] == 2163 + 5358
    assert telemetry["bank_ms"] == 5902
    assert state.alloc_ms == rel(2163.329)
    # Move 2 runs to 5000 ms on the bank (forced in its first second after the first eval).
    hints = StopperHints()
    late = SearchStats(time_since_movestart_ms=2500.0, time_since_first_eval_ms=400.0,
                       nodes_since_movestart=10_000)
    assert second.should_stop(late, hints) is None
    assert hints.remaining_ms == pytest.approx(2163 + 5358 - 2500.0)
    second.on_search_done(SearchStats(time_since_movestart_ms=5000.0, total_nodes=60_000))
    assert second.telemetry()["used_bank"] is True
    assert state.bank_ms == 3065
    assert state.timeuse == rel(0.816996)


def stopper_for_bank(**extra: int) -> tuple[SmoothLc0Manager, ChainedStopper]:
    """A stopper with deadline 3152 and allowance 5076 (E1)."""
    manager = SmoothLc0Manager(LC0_OVERHEAD)
    return manager, manager.make_stopper(GoParams(wtime=60_000, btime=60_000, **extra), ply=0,
                                         white=True, reused_nodes=0, move_overhead_ms=200)


def test_deadline_without_a_reason_to_use_the_bank() -> None:
    manager, stopper = stopper_for_bank()
    stats = SearchStats(time_since_movestart_ms=3152.0, time_since_first_eval_ms=3000.0,
                        nodes_since_movestart=60_000)
    hints = StopperHints()
    assert stopper.should_stop(stats, hints) == "budget"
    assert hints.remaining_ms == 0.0
    stopper.on_search_done(SearchStats(time_since_movestart_ms=3152.0, total_nodes=60_000))
    assert manager.state.bank_ms == 5700  # not a bank move: the bank keeps its deposit
    assert stopper.telemetry()["used_bank"] is False


def test_need_more_time_extends_to_the_bank() -> None:
    _, stopper = stopper_for_bank()
    stats = SearchStats(time_since_movestart_ms=4000.0, time_since_first_eval_ms=3900.0,
                        nodes_since_movestart=80_000, need_more_time=True)
    assert stopper.should_stop(stats, StopperHints()) is None
    stats.time_since_movestart_ms = 3152.0 + 5076.0
    assert stopper.should_stop(stats, StopperHints()) == "budget"
    assert stopper.telemetry()["used_bank"] is True


def test_forced_bank_use_in_the_first_second_after_the_first_eval() -> None:
    _, stopper = stopper_for_bank()
    slow_start = SearchStats(time_since_movestart_ms=3500.0, time_since_first_eval_ms=1000.0,
                             nodes_since_movestart=20_000)
    assert stopper.should_stop(slow_start, StopperHints()) is None
    slow_start.time_since_first_eval_ms = 1001.0
    assert stopper.should_stop(slow_start, StopperHints()) == "budget"


def test_overtake_watcher_through_the_stopper() -> None:
    """Past the deadline (3152), a second move gaining fast keeps the search on the bank."""
    _, stopper = stopper_for_bank()
    checks = [(3000.0, [900, 600, 50], None), (3100.0, [1000, 800, 50], None),
              (3200.0, [1100, 1000, 50], None), (3300.0, [1100, 1000, 50], "budget")]
    for t, visits, reason in checks:
        stats = SearchStats(time_since_movestart_ms=t, time_since_first_eval_ms=t,
                            nodes_since_movestart=sum(visits), root_visits=visits)
        assert stopper.should_stop(stats, StopperHints()) == reason
    assert stopper.telemetry()["used_bank"] is True


def test_e15_overtake_cases() -> None:
    watcher = VisitsTrendWatcher(3000)
    watcher.update(2000, [900, 600, 50])
    watcher.update(2100, [1000, 800, 50])
    assert watcher.overtaken(5000, 0.2, 4.0)
    assert not watcher.overtaken(2100, 0.2, 4.0)  # by <= last.ts
    watcher = VisitsTrendWatcher(3000)
    watcher.update(2000, [900, 99])
    watcher.update(2100, [1000, 100])
    assert not watcher.overtaken(5000, 0.2, 4.0)
    watcher.update(2100, [5, 5000])  # not later than the last sample: ignored
    assert not watcher.overtaken(5000, 0.2, 4.0)


def test_watcher_measures_between_the_two_latest_samples_and_freezes_after_a_gap() -> None:
    watcher = VisitsTrendWatcher(3000)
    watcher.update(0, [0, 0])
    watcher.update(1000, [100, 0])
    watcher.update(2000, [200, 100])
    assert watcher.prev is not None and watcher.prev[0] == 1000
    watcher.update(6000, [300, 150])  # more than a period after cur: no shift any more
    watcher.update(7000, [400, 200])
    assert watcher.prev[0] == 1000 and watcher.last is not None and watcher.last[0] == 7000


def test_e15_smart_pruning() -> None:
    assert remaining_playouts(1652.0, 25000.0, 1.33) == pytest.approx(31052.6, abs=0.05)
    pruning = SmartPruningStopper(1.33)
    hints = StopperHints(estimated_nps=25000.0, remaining_ms=1652.0)
    first = SearchStats(time_since_movestart_ms=10.0, nodes_since_movestart=1,
                        num_root_moves=3, root_visits=[1, 0, 0])
    assert pruning.should_stop(first, hints) is None
    grace = SearchStats(time_since_movestart_ms=209.0, nodes_since_movestart=40_000,
                        num_root_moves=3, root_visits=[40_000, 8_947, 50])
    assert pruning.should_stop(grace, hints) is None  # within 200 ms of the first eval
    close = SearchStats(time_since_movestart_ms=300.0, nodes_since_movestart=40_000,
                        num_root_moves=3, root_visits=[40_000, 8_948, 50])
    hints = StopperHints(estimated_nps=25000.0, remaining_ms=1652.0)
    assert pruning.should_stop(close, hints) is None  # lead 31052 < 31052.6 playouts left
    assert hints.remaining_nodes == pytest.approx(31052.6, abs=0.05)
    far = SearchStats(time_since_movestart_ms=300.0, nodes_since_movestart=40_000,
                      num_root_moves=3, root_visits=[40_000, 8_947, 50])
    assert pruning.should_stop(far, StopperHints(estimated_nps=25000.0,
                                                 remaining_ms=1652.0)) == "smart-pruning"
    assert SmartPruningStopper().should_stop(SearchStats(num_root_moves=1),
                                             StopperHints()) == "only-move"
    assert SmartPruningStopper(0.0).should_stop(far, StopperHints()) is None


def test_new_game_resets_bank_and_first_move() -> None:
    manager = create_manager("smooth-lc0(overhead-per-move=0,plan-period=0)")
    manager.make_stopper(GoParams(wtime=60_000, btime=60_000), ply=0, white=True,
                         reused_nodes=0, move_overhead_ms=200)
    assert manager.state.bank_ms == 5700
    manager.new_game()
    assert manager.state == SmoothLc0State(tree_reuse=0.52, nps=20000.0, timeuse=0.7)
    again = manager.make_stopper(GoParams(wtime=60_000, btime=60_000), ply=0, white=True,
                                 reused_nodes=0, move_overhead_ms=200)
    assert again.telemetry()["budget_ms"] == 3152
