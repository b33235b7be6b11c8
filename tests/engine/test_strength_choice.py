"""engine.strength.choice: uniform choice within the error budget (MadChess "The UCI_LimitStrength
Algorithm", reference §1.4)."""

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from engine.strength.choice import DECISIVE_CP, choose_move, draw_budget
from engine.strength.params import params_for_elo

ALPHA = 0.001
DRAWS = 6000


def fixed_budget(budget: int):
    """Params whose budget is always `budget`: no blunders."""
    return dataclasses.replace(params_for_elo(1075), move_error=budget, blunder_per128=0)


# (root scores, budget, the moves that are within the budget of the best)
ROOT_CASES = [
    ([("a", 0), ("b", -10), ("c", -30), ("d", -50), ("e", -51), ("f", -200)], 50, "a b c d"),
    ([("x", -300), ("best", 120), ("y", 100), ("z", 119), ("w", 40)], 31, "best y z"),
    ([("p", 15), ("q", 15), ("r", 15), ("s", -400)], 5, "p q r"),
    ([("only", 35), ("bad", -600)], 330, "only"),
    ([("m1", 700), ("m2", 371), ("m3", 370), ("m4", 369)], 330, "m1 m2 m3"),
]


@pytest.mark.parametrize("roots, budget, spec", ROOT_CASES)
def test_choice_is_uniform_over_moves_within_budget(roots, budget, spec):
    eligible = set(spec.split())
    rng = random.Random(20261121)
    params = fixed_budget(budget)
    counts = Counter(choose_move(roots, params, rng).move for _ in range(DRAWS))
    assert set(counts) <= eligible, "a move outside the budget was played"
    assert set(counts) == eligible
    if len(eligible) > 1:
        observed = [counts[m] for m in sorted(eligible)]
        assert stats.chisquare(observed).pvalue > ALPHA


def test_chi_squared_check_detects_a_best_move_bias():
    # The same test at the same sample size rejects a chooser that favours the best move 2:1.
    rng = random.Random(7)
    weights = [2, 1, 1, 1]
    counts = Counter(rng.choices(range(4), weights=weights, k=DRAWS))
    assert stats.chisquare([counts[i] for i in range(4)]).pvalue < ALPHA


def test_a_budget_drawn_before_the_search_chooses_as_one_drawn_after_it():
    """The limiter draws the budget before the search (it sets the search's choice margin) and
    passes it in: the stream draws the same numbers in the same order, so the choices are the
    same move for move as when `choose_move` draws it."""
    roots = [("a", 40), ("b", 20), ("c", -100), ("d", -500)]
    params = params_for_elo(700)
    after, before = random.Random(9), random.Random(9)
    for _ in range(300):
        drawn = draw_budget(params, before)
        assert choose_move(roots, params, after) == choose_move(roots, params, before, drawn=drawn)


def test_reported_budget_and_eligible_count():
    choice = choose_move(ROOT_CASES[0][0], fixed_budget(50), random.Random(1))
    assert choice.budget_cp == 50 and not choice.blunder and choice.eligible == 4
    assert dict(ROOT_CASES[0][0])[choice.move] == choice.score


def test_blunder_frequency_is_blunder_per128():
    params = params_for_elo(1075)  # BlunderPer128 = 13, MoveError 31, BlunderError 330
    rng = random.Random(3)
    draws = [draw_budget(params, rng) for _ in range(20000)]
    assert {budget for budget, _ in draws} == {31, 330}
    assert all((budget == 330) == blunder for budget, blunder in draws)
    blunders = sum(blunder for _, blunder in draws)
    assert stats.binomtest(blunders, len(draws), 13 / 128).pvalue > ALPHA


def test_budget_never_below_move_error():
    params = dataclasses.replace(params_for_elo(1075), move_error=80, blunder_error=40)
    rng = random.Random(5)
    assert {draw_budget(params, rng)[0] for _ in range(2000)} == {80}


def test_zero_errors_always_play_the_best_move():
    params = dataclasses.replace(params_for_elo(2600), move_error=0, blunder_error=0)
    rng = random.Random(11)
    roots = [("a", 10), ("b", 10), ("c", 9)]
    assert {choose_move(roots, params, rng).move for _ in range(500)} == {"a", "b"}
    assert {choose_move([("c", 9), ("a", 10)], params, rng).move for _ in range(200)} == {"a"}


def test_forced_mate_always_converts():
    params = params_for_elo(600)  # the largest budgets: MoveError 50, BlunderError 603
    rng = random.Random(13)
    mate_in_2, mate_in_3 = 32000 - 3, 32000 - 5
    roots = [("slow", mate_in_3), ("fast", mate_in_2), ("draw", 0), ("nearly", 9_999)]
    assert {choose_move(roots, params, rng).move for _ in range(3000)} == {"fast"}


def test_decisive_threshold_is_adjustable():
    params = fixed_budget(100)
    roots = [("win", 1500), ("also", 1450)]
    rng = random.Random(17)
    assert {choose_move(roots, params, rng, decisive_cp=1000).move for _ in range(300)} == {"win"}
    assert {choose_move(roots, params, rng).move for _ in range(300)} == {"win", "also"}
    assert DECISIVE_CP > 1500


def test_losing_side_still_errs():
    # No guard for the side being mated (reference §1.4, step 3).
    roots = [("a", -31990), ("b", -31992), ("c", -31996)]
    rng = random.Random(19)
    assert {choose_move(roots, fixed_budget(5), rng).move for _ in range(500)} == {"a", "b"}


def test_same_seed_same_choices():
    roots = ROOT_CASES[0][0]
    params = params_for_elo(900)

    def play(seed: int) -> list:
        rng = random.Random(seed)
        return [choose_move(roots, params, rng) for _ in range(300)]

    assert play(42) == play(42)
    assert [c.move for c in play(42)] != [c.move for c in play(43)]


def test_empty_root_list_is_an_error():
    with pytest.raises(ValueError, match="root move"):
        choose_move([], params_for_elo(1000), random.Random(0))


@settings(deadline=None)
@given(
    scores=st.lists(st.integers(-3000, 3000), min_size=1, max_size=40),
    budget=st.integers(0, 700),
    seed=st.integers(0, 2**32),
)
def test_never_plays_outside_the_budget(scores, budget, seed):
    roots = list(enumerate(scores))
    choice = choose_move(roots, fixed_budget(budget), random.Random(seed))
    best = max(scores)
    assert scores[choice.move] >= best - budget
    assert choice.score == scores[choice.move]
    assert choice.eligible == sum(s >= best - budget for s in scores)
