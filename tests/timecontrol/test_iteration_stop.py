"""Stockfish's iteration-boundary factors (timecontrol.iteration_stop): worked examples computed
by hand from the formulas of the module docstring (scores in cp, 3.56 Stockfish units each)."""

from __future__ import annotations

import pytest

from timecontrol.iteration_stop import (
    FIRST_TIME_REDUCTION,
    IterationFacts,
    IterationHistory,
    PreviousSearch,
    StopParams,
    best_move_instability,
    decide,
    falling_eval,
    reduction,
    time_reduction,
)

THIRD = StopParams(depth_scale=1.0 / 3.0)


def test_falling_eval_worked_example() -> None:
    """Score 0 after a previous average of 5 and 5 four iterations before: both drops are
    5*3.56 = 17.8 units, (16.93 + 2.73*17.8 + 0.8*17.8)/100 = 79.764/100."""
    assert falling_eval(0, 5, 5.0) == pytest.approx(0.79764, abs=1e-9)


def test_falling_eval_clamps() -> None:
    """A 20 cp fall (and 10 against four iterations before) gives 2.398: clamped to 1.860; a
    30 cp rise gives a negative value: clamped to 0.610."""
    assert falling_eval(0, 10, 20.0) == 1.860
    assert falling_eval(30, 0, 0.0) == 0.610


def test_falling_eval_on_the_first_move_of_a_game_is_at_its_upper_clamp() -> None:
    """No previous move: Stockfish's bestPreviousAverageScore is VALUE_INFINITE."""
    assert falling_eval(-500, 0, None) == 1.860


def test_time_reduction_interpolates_the_plies_of_stability() -> None:
    """15 stable plies (depth 20, last change at 5): 0.670 + 7*(0.770/9) = 1.268889; with plies
    counted three times, depth 6 and last change at 2 are 12 plies: 0.670 + 4*0.770/9."""
    assert time_reduction(20, 5) == pytest.approx(1.268889, abs=1e-6)
    assert time_reduction(6, 2, THIRD) == pytest.approx(1.012222, abs=1e-6)
    assert time_reduction(5, 1) == 0.670
    assert time_reduction(30, 1) == 1.440


def test_reduction_and_instability_worked_examples() -> None:
    """(2.100 + 0.85) / (2.480 * 1.012222) = 1.175153; 0.960 + 1.630*1.5 = 3.405."""
    assert reduction(1.0122222, 0.85) == pytest.approx(1.175153, abs=1e-6)
    assert best_move_instability(1.5) == pytest.approx(3.405)
    assert best_move_instability(0.0) == 0.960


def facts(elapsed_ms: float, changes: float = 0.0) -> IterationFacts:
    """Depth 6, best move since depth 2, score 0 after 5 cp (previous move and four iterations
    before), the first move's time reduction: factors 0.79764, 1.175153 and 0.960 + 1.63*changes;
    optimum 1000 ms, hard 1300 ms."""
    return IterationFacts(elapsed_ms=elapsed_ms, optimum_ms=1000.0, hard_ms=1300.0,
                          completed_depth=6, last_best_change_depth=2,
                          best_move_changes=changes, score=0, score_iterations_before=5,
                          previous_average_score=5.0,
                          previous_time_reduction=FIRST_TIME_REDUCTION)


def test_a_stable_move_stops_before_the_plain_budget() -> None:
    """Scaled limit 1000 * 0.79764 * 1.175153 * 0.96 = 899.86 ms: no new iteration past
    0.7 * 899.86 = 629.9 ms, which is before the plain budget's 700 ms ("stable")."""
    decision = decide(facts(300.0), THIRD)
    assert decision.scaled_soft_ms == pytest.approx(899.86, abs=0.01)
    assert decision.reason is None
    assert decide(facts(650.0), THIRD).reason == "stable"
    assert decide(facts(710.0), THIRD).reason == "budget"
    assert decision.telemetry() == {"falling_eval": 0.7976, "time_reduction": 1.0122,
                                    "reduction": 1.1752, "bm_instability": 0.96,
                                    "scaled_soft_ms": 899}


def test_an_unstable_move_is_extended_up_to_the_hard_limit_only() -> None:
    """Two recent changes: 1000 * 0.79764 * 1.175153 * 4.22 = 3955.6 ms, capped at the hard
    1300 ms: the search goes on until 0.7 * 1300 = 910 ms."""
    assert decide(facts(900.0, changes=2.0), THIRD).scaled_soft_ms == 1300.0
    assert decide(facts(900.0, changes=2.0), THIRD).reason is None
    assert decide(facts(920.0, changes=2.0), THIRD).reason == "budget"


def test_history_decays_changes_and_keeps_the_last_change_depth() -> None:
    """Changes are halved before each iteration and added after it; the last best-move change is
    the depth whose best move differed from the one before."""
    history = IterationHistory(PreviousSearch())
    for depth, move, changes in [(1, "e2e4", 0), (2, "d2d4", 1), (3, "d2d4", 2), (4, "d2d4", 0)]:
        history.start_iteration()
        history.end_iteration(depth, move, 10 * depth, changes)
        history.after_check(10 * depth, None)
    assert history.best_move_changes == ((0 / 2 + 1) / 2 + 2) / 2 + 0 == 1.25
    assert history.last_best_change_depth == 2


def test_history_ring_compares_with_four_iterations_before() -> None:
    """The ring starts with the previous move's score (0 on a game's first move) and then holds
    the scores of the last four iterations."""
    assert list(IterationHistory(PreviousSearch()).iter_values) == [0, 0, 0, 0]
    history = IterationHistory(PreviousSearch(average_score=40.0, score=35))
    scores = [50, 60, 70, 80, 90]
    seen = []
    for depth, score in enumerate(scores, start=1):
        history.end_iteration(depth, "e2e4", score, 0)
        seen.append(history.facts(0.0, 100.0, 130.0, depth, score).score_iterations_before)
        history.after_check(score, None)
    assert seen == [35, 35, 35, 35, 50]


def test_history_leaves_the_next_move_its_average_score_and_time_reduction() -> None:
    """The best move's average is (score + average) / 2 over the iterations it was best (Stockfish's
    RootMove::averageScore); the time reduction of the last decision is kept."""
    previous = PreviousSearch()
    history = IterationHistory(previous)
    for depth, move, score in [(1, "e2e4", 40), (2, "d2d4", 10), (3, "e2e4", 20), (4, "e2e4", 30)]:
        history.end_iteration(depth, move, score, 0)
        decision = decide(history.facts(0.0, 1000.0, 1300.0, depth, score))
        history.after_check(score, decision)
    history.finish(30)
    assert previous.average_score == ((40 + 20) / 2 + 30) / 2
    assert previous.score == 30
    assert previous.time_reduction == time_reduction(4, 3) == 0.670


def test_a_search_without_a_budget_leaves_time_reduction_one() -> None:
    """No decision (no soft limit): Stockfish's timeReduction stays at its initial 1."""
    previous = PreviousSearch()
    history = IterationHistory(previous)
    history.end_iteration(1, "e2e4", 0, 0)
    history.after_check(0, None)
    history.finish(0)
    assert previous.time_reduction == 1.0
