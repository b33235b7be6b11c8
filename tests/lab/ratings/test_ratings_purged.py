"""lab.ratings: pools that the perfect-score purge empties (short gauntlets, calibrations).

Ordo (reference harness_and_stats.md §5.1) bounds a perfect score by the rating it would have if
one win (loss) had been a draw. When every player of a connected pool is purged, nobody is left to
bound against: the last players purged are then fitted together with one of each one's wins
(losses) counted as a draw, and centred on the pool average (or placed by the anchors). Every
test runs with warnings turned into errors: the bug was NaN ratings and a division by zero.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lab.ratings import DisconnectedPoolError, fit_ratings

pytestmark = pytest.mark.filterwarnings("error")

BETA = math.log(0.76 / 0.24) / 202  # Ordo's default: 202 points for 76 %
GAP = math.log(3) / BETA  # 1.5 of 2 games (a 75 % score): 192.5 points


def frame_of(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["white", "black", "result"])


def expected(rating: float, opponents: list[float]) -> float:
    return sum(1 / (1 + math.exp(-BETA * (rating - r))) for r in opponents)


def test_two_players_all_decisive_get_finite_marked_bounds() -> None:
    table = fit_ratings(frame_of([("a", "b", "1-0"), ("b", "a", "0-1")]))
    frame = table.frame.set_index("player")
    assert frame["rating"].notna().all()
    assert frame.loc["a", "bound"] == ">" and frame.loc["b", "bound"] == "<"
    # one of a's wins (= one of b's losses) a draw: 1.5 of 2, centred on Ordo's 2300
    assert frame.loc["a", "rating"] == pytest.approx(2300 + GAP / 2)
    assert frame.loc["b", "rating"] == pytest.approx(2300 - GAP / 2)
    assert frame["error"].isna().all()  # bounds carry no error bar
    text = str(table)
    assert ">" in text and "<" in text and "nan" not in text


def test_a_winner_and_two_perfect_losers() -> None:
    data = frame_of([("a", "b", "1-0"), ("b", "a", "0-1"), ("a", "c", "1-0")])
    frame = fit_ratings(data).frame.set_index("player")
    assert frame["rating"].notna().all()
    assert list(frame.loc[["a", "b", "c"], "bound"]) == [">", "<", "<"]
    assert frame["rating"].mean() == pytest.approx(2300)
    a, b, c = frame.loc[["a", "b", "c"], "rating"]
    # each loser's ceiling is its rating had one loss been a draw: 0.5 of 2, 0.5 of 1
    assert expected(b, [a, a]) == pytest.approx(0.5)
    assert expected(c, [a]) == pytest.approx(0.5)
    assert a > b and a >= c


def test_a_gauntlet_winner_against_levels_that_lose_everything() -> None:
    rows = []
    for level in ("L1", "L2", "L3"):
        rows += [("X", level, "1-0"), (level, "X", "0-1")]
    frame = fit_ratings(frame_of(rows)).frame.set_index("player")
    assert frame.loc["X", "bound"] == ">" and (frame.drop("X")["bound"] == "<").all()
    levels = frame.drop("X")["rating"]
    assert levels.max() - levels.min() == pytest.approx(0, abs=1e-6)
    assert frame.loc["X", "rating"] - levels.mean() == pytest.approx(GAP)
    assert frame["rating"].mean() == pytest.approx(2300)


def test_an_anchor_still_places_the_bounds() -> None:
    data = frame_of([("a", "b", "1-0"), ("b", "a", "0-1")])
    frame = fit_ratings(data, anchors={"b": 1500}).frame.set_index("player")
    assert frame.loc["b", "rating"] == 1500 and frame.loc["b", "bound"] == ""
    assert frame.loc["a", "bound"] == ">"
    assert frame.loc["a", "rating"] == pytest.approx(1500 + GAP)
    loose = fit_ratings(data, loose_anchors={"b": (1500, 50)}).frame.set_index("player")
    assert loose.loc["a", "bound"] == ">" and math.isfinite(loose.loc["a", "rating"])
    assert loose.loc["a", "rating"] > loose.loc["b", "rating"]


def test_average_and_relative_errors_with_an_emptied_pool() -> None:
    data = frame_of([("a", "b", "1-0"), ("b", "a", "0-1")])
    frame = fit_ratings(data, average=0, relative_to="pool").frame.set_index("player")
    assert frame.loc["a", "rating"] == pytest.approx(GAP / 2)
    assert frame.loc["b", "rating"] == pytest.approx(-GAP / 2)


def test_an_emptied_pool_is_refused_when_disconnected_unless_forced() -> None:
    data = frame_of([("a", "b", "1-0"), ("c", "d", "1-0")])
    with pytest.raises(DisconnectedPoolError) as info:
        fit_ratings(data)
    assert sorted(map(sorted, info.value.groups)) == [["a", "b"], ["c", "d"]]
    frame = fit_ratings(data, force=True).frame.set_index("player")
    assert frame["rating"].notna().all()
    assert frame.loc[["a", "b"], "rating"].mean() == pytest.approx(2300)
    assert frame.loc[["c", "d"], "rating"].mean() == pytest.approx(2300)


def test_perfect_players_cut_off_from_the_rated_pool_are_refused() -> None:
    # A, B fit normally; x beat y in a separate pool: neither can be bounded against A, B.
    data = frame_of([("A", "B", "1-0"), ("B", "A", "1-0"), ("x", "y", "1-0")])
    with pytest.raises(DisconnectedPoolError) as info:
        fit_ratings(data)
    assert sorted(map(sorted, info.value.groups)) == [["A", "B"], ["x", "y"]]
    frame = fit_ratings(data, force=True).frame.set_index("player")
    assert frame["rating"].notna().all()
    # a single game: with it a draw, x and y are level, centred on their own average
    assert list(frame.loc[["x", "y"], "bound"]) == [">", "<"]
    assert frame.loc["x", "rating"] == pytest.approx(2300)
    assert frame.loc["y", "rating"] == pytest.approx(2300)


def test_a_win_and_a_draw_between_two_players() -> None:
    data = frame_of([("a", "b", "1-0"), ("b", "a", "1/2-1/2")])
    frame = fit_ratings(data).frame.set_index("player")
    assert (frame["bound"] == "").all()
    assert frame.loc["a", "rating"] - frame.loc["b", "rating"] == pytest.approx(GAP)
    assert frame["error"].notna().all()


def test_simulated_errors_on_an_emptied_pool() -> None:
    data = frame_of([("a", "b", "1-0"), ("b", "a", "0-1"), ("a", "c", "1-0")])
    frame = fit_ratings(data, simulations=20, seed=3).frame.set_index("player")
    assert frame["rating"].notna().all() and frame["error"].isna().all()


def test_bayeselo_bounds_need_a_draw_rate_without_draws() -> None:
    # Without a draw in the results BayesElo's drawelo is 0 and a draw has no probability.
    data = frame_of([("a", "b", "1-0"), ("b", "a", "0-1"), ("a", "c", "1-0")])
    with pytest.raises(ValueError, match="give the draw rate"):
        fit_ratings(data, model="bayeselo", prior=0, white=0)
    frame = fit_ratings(data, model="bayeselo", prior=0, white=0, draw=0.3, bayeselo_units=1)
    frame = frame.frame.set_index("player")
    assert list(frame.loc[["a", "b", "c"], "bound"]) == [">", "<", "<"]
    assert frame["rating"].mean() == pytest.approx(0)
    assert frame.loc["a", "rating"] == pytest.approx(frame.loc["c", "rating"])
    assert frame.loc["a", "rating"] > frame.loc["b", "rating"]


def test_the_last_round_purged_seeds_the_earlier_bounds() -> None:
    # Q beat Y, Z beat P: round 1 purges Q (all wins) and P (all losses);
    # then Y won both games against Z, and the second round empties the pool.
    data = frame_of([("Q", "Y", "1-0"), ("Y", "Z", "1-0"), ("Z", "Y", "0-1"), ("Z", "P", "1-0")])
    frame = fit_ratings(data).frame.set_index("player")
    assert list(frame.loc[["Q", "Y", "Z", "P"], "bound"]) == [">", ">", "<", "<"]
    assert frame.loc[["Y", "Z"], "rating"].mean() == pytest.approx(2300)
    assert frame.loc["Y", "rating"] - frame.loc["Z", "rating"] == pytest.approx(GAP)
    # the earlier purged are bounded against them: one game each, so level with the opponent
    assert frame.loc["Q", "rating"] == pytest.approx(frame.loc["Y", "rating"])
    assert frame.loc["P", "rating"] == pytest.approx(frame.loc["Z", "rating"])
