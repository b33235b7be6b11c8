"""engine.strength.throttle: the NPS throttle's waits, the rescale to our engine's speed, the
levels' node budgets and depth caps (reference §1.3, §6; issue #18)."""

import time

import pytest

from engine.strength.params import params_for_elo
from engine.strength.throttle import (
    ENGINE_NPS,
    REFERENCE_MOVE_S,
    SLEEP_SLICE_S,
    check_interval,
    depth_cap,
    level_nodes,
    rescaled_nps,
    throttle_delay,
)


def test_delay_brings_the_rate_down_to_the_limit():
    assert throttle_delay(1000, 1.0, 500) == pytest.approx(1.0)
    nodes, elapsed, nps = 6863, 0.25, 6863
    delay = throttle_delay(nodes, elapsed, nps)
    assert nodes / (elapsed + delay) == pytest.approx(nps)


def test_no_delay_at_or_below_the_limit():
    assert throttle_delay(0, 0.0, 500) == 0.0
    assert throttle_delay(500, 1.0, 500) == 0.0
    assert throttle_delay(100, 2.0, 500) == 0.0


def test_bad_arguments_are_errors():
    with pytest.raises(ValueError, match="NPS"):
        throttle_delay(10, 1.0, 0)
    with pytest.raises(ValueError, match="negative"):
        throttle_delay(-1, 1.0, 10)
    with pytest.raises(ValueError, match="NPS"):
        check_interval(0)
    with pytest.raises(ValueError, match="NPS"):
        rescaled_nps(0)


def test_check_interval_is_one_slice_of_nodes():
    assert check_interval(500) == 5
    assert check_interval(6863) == 68
    assert check_interval(50) == 1
    assert check_interval(2_000_500) == 20005


def test_rescale_gives_the_top_level_our_full_speed_and_keeps_the_curves_ratios():
    top = params_for_elo(2600).nps
    assert rescaled_nps(top) == ENGINE_NPS
    assert rescaled_nps(params_for_elo(1600).nps) == 1631  # 125,500 x 26,000 / 2,000,500
    assert rescaled_nps(500) == 6
    assert rescaled_nps(1) == 1


def test_level_node_budgets_grow_with_elo_and_reach_a_full_strength_move_at_the_top():
    budgets = [params_for_elo(elo).nodes for elo in range(600, 2601, 100)]
    assert budgets == sorted(budgets) and len(set(budgets)) > 12
    assert budgets[-1] == level_nodes(2_000_500) == int(ENGINE_NPS * REFERENCE_MOVE_S)
    # Unscaled, the budget at 1400 would be 18,095 nodes, more than full strength searches.
    assert params_for_elo(1400).nodes == 234
    assert level_nodes(1) == 1


def test_depth_cap_adds_a_ply_per_hundred_elo_like_stockfish_skill_levels():
    assert [depth_cap(elo, 600) for elo in (600, 699, 700, 1720, 2600)] == [1, 1, 2, 12, 21]
    assert params_for_elo(1000).depth_cap == 5


def simulate(nps_limit: int, node_cost_s: float, total_nodes: int) -> float:
    """A virtual-clock search of `total_nodes` nodes that obeys the throttle; returns its time."""
    clock = 0.0
    interval = check_interval(nps_limit)
    for nodes in range(1, total_nodes + 1):
        clock += node_cost_s
        if nodes % interval == 0:
            while (delay := throttle_delay(nodes, clock, nps_limit)) > 0:
                clock += min(delay, SLEEP_SLICE_S)
    return clock


@pytest.mark.parametrize("nps", [500, 3700, 16700])
def test_throttled_search_runs_at_the_limit(nps):
    total = 5 * nps
    elapsed = simulate(nps, 1e-5, total)
    assert total / elapsed == pytest.approx(nps, rel=0.01)


def test_throttle_leaves_a_slow_search_alone():
    elapsed = simulate(2_000_500, 1e-4, 20_000)  # 10 000 NPS, far below the limit
    assert elapsed == pytest.approx(2.0)


def test_real_sleeping_loop_respects_the_limit():
    # Sleeping (not busy-waiting) in slices, as the engine will; margins for a shared machine.
    nps = 2000
    interval = check_interval(nps)
    start = time.perf_counter()
    nodes = 0
    sleeping = 0.0
    while nodes < 600:
        nodes += 1
        if nodes % interval == 0:
            while (delay := throttle_delay(nodes, time.perf_counter() - start, nps)) > 0:
                before = time.perf_counter()
                time.sleep(min(delay, SLEEP_SLICE_S))
                sleeping += time.perf_counter() - before
    elapsed = time.perf_counter() - start
    assert nodes / elapsed <= nps * 1.02
    assert nodes / elapsed >= nps * 0.4
    assert sleeping >= 0.5 * elapsed
