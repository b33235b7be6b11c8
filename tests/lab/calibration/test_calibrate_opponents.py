"""The per-anchor diagnostic of a calibration round: each level's score against each anchor,
against the score its fitted rating predicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lab.calibration.opponents import opponent_results
from lab.calibration.report import opponent_lines
from lab.ratings import fit_ratings


def test_a_worked_example_in_the_fits_own_expectancy():
    # Ordo's curve: beta = ln(0.76/0.24)/202 = 0.0057063. 200 below predicts 24.21 %; the score
    # test's error over 60 games is hypot(sqrt(.2421 x .7579 / 60), beta x .2421 x .7579 x 20)
    # = hypot(0.0553, 0.0209) = 0.0591, so a 0-60 loss lies -4.09 SE away; 5 % (the clip of a
    # perfect loss) implies 1500 + ln(0.05/0.95)/beta = 984.0, a ceiling.
    h2h = pd.DataFrame({
        "player": ["L1300", "L1300", "sf", "L1300"],
        "opponent": ["hi", "even", "L1300", "L1500"],
        "games": [60, 100, 100, 40], "wins": [0, 40, 40, 10], "draws": [0, 20, 20, 0],
        "losses": [60, 40, 40, 30], "score": [0.0, 50.0, 50.0, 25.0],
        "diff": [-200.0, 0.0, 0.0, -200.0], "diff_sd": [20.0, 20.0, 20.0, 25.0],
    })
    results = opponent_results(h2h, ["L1300"], {"even": 1300.0, "hi": 1500.0})
    assert [(r.level, r.opponent) for r in results] == [("L1300", "even"), ("L1300", "hi")]
    even, high = results
    assert even.z == 0.0 and even.implied == pytest.approx(1300.0)
    assert high.predicted == pytest.approx(0.242088, abs=1e-6)
    assert high.z == pytest.approx(-4.0941, abs=1e-3)
    assert high.implied == pytest.approx(984.005, abs=1e-3) and high.perfect
    lines = opponent_lines(results)
    assert "| L1300 | hi | 60 | +0 −60 =0 | 0.0 | 24.2 | -4.1 | ≤ 984 |" in lines
    assert "| L1300 | even | 100 | +40 −40 =20 | 50.0 | 50.0 | +0.0 | 1300 |" in lines
    assert lines[-1] == ("Beyond 2.28 SE (2 SE's false-alarm rate over 2 pairs): "
                         "L1300 vs hi (-4.1 SE).")
    assert opponent_lines([]) == []
    # a level with only a bound (a perfect score) has no prediction to test
    bound = opponent_results(h2h.assign(diff=np.nan, diff_sd=np.nan), ["L1300"], {"hi": 1500.0})
    assert "| L1300 | hi | 60 | +0 −60 =0 | 0.0 | — | — | ≤ 984 |" in opponent_lines(bound)
    assert opponent_lines(bound)[-1].endswith("over 1 pairs): none.")


def games_between(level: str, anchor: str, score: float, pairs: int) -> list[dict]:
    """`pairs` game pairs (colours swapped) in which `level` scores `score` exactly."""
    wins = round(2 * pairs * score)
    results = [1.0] * wins + [0.0] * (2 * pairs - wins)
    rows = []
    for k, points in enumerate(results):
        white, black = (level, anchor) if k % 2 == 0 else (anchor, level)
        won = points == 1.0
        rows.append({"white": white, "black": black,
                     "result": "1-0" if won == (white == level) else "0-1"})
    return rows


def test_an_anchor_the_level_cannot_handle_is_named_from_a_real_fit():
    # L1400 scores as a 1400 does against two anchors and far worse against a third of the same
    # rating (a clash of styles): the fit places it below 1400, so every pair misses its
    # prediction, but the one anchor is named first, alone on its side, and only the ratings
    # its games imply are far from 1400.
    rows = (games_between("L1400", "sf-1300", 0.64, 60)
            + games_between("L1400", "sf-1500", 0.36, 60)
            + games_between("L1400", "other-1400", 0.10, 60)
            + games_between("sf-1300", "sf-1500", 0.24, 30))
    games = pd.DataFrame(rows).sample(frac=1.0, random_state=np.random.default_rng(1))
    anchors = {"sf-1300": 1300.0, "sf-1500": 1500.0, "other-1400": 1400.0}
    table = fit_ratings(games, anchors=anchors)
    assert table.rating("L1400") < 1340  # pulled down by the one anchor
    results = opponent_results(table.head_to_head, ["L1400"], anchors)
    assert [r.opponent for r in results] == ["sf-1300", "other-1400", "sf-1500"]
    implied = {r.opponent: r.implied for r in results}
    assert implied["sf-1300"] == pytest.approx(1400, abs=3)
    assert implied["sf-1500"] == pytest.approx(1400, abs=3)
    assert implied["other-1400"] < 1050
    beyond = opponent_lines(results)[-1]
    assert beyond == ("Beyond 2.43 SE (2 SE's false-alarm rate over 3 pairs): L1400 vs other-1400 "
                      "(-5.1 SE), L1400 vs sf-1300 (+2.7 SE), L1400 vs sf-1500 (+2.7 SE).")
