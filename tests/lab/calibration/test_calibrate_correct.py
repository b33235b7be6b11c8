"""The correction step, criteria and anchor choice on synthetic measurements (no games)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lab.calibration.anchors import anchors_for, choose_anchors, expected_score, score_window_elo
from lab.calibration.correct import correct_table, monotone_measurements
from lab.calibration.criteria import Thresholds, judge

LEVELS = list(range(600, 2601, 200))


def true_params(elo: float) -> dict[str, float]:
    """A smooth, monotone 'undistorted' parameter curve: what a correct table would hold."""
    b = (2600 - elo) / 200
    return {
        "NPS": 500 * 2 ** ((elo - 600) / 150),
        "MoveError": 5 + 0.45 * b**2,
        "BlunderError": 50 + 1.75 * b**2.5,
        "BlunderPer128": 6 + b,
        "mobility": min(1.0, (elo - 600) / 1200),
    }


def distortion(nominal: float) -> float:
    """The Elo a level really plays at: compressed and shifted, with a bend (known, monotone)."""
    return 900 + 0.6 * (nominal - 600) + 60 * math.sin((nominal - 600) / 700)


def inverse_distortion(elo: float) -> float:
    from scipy.optimize import brentq

    return brentq(lambda x: distortion(x) - elo, 0, 4000)


def params_table(levels):
    rows = [true_params(lv) for lv in levels]
    return {c: [r[c] for r in rows] for c in rows[0]}


def test_correction_recovers_the_undistorted_table():
    # Levels played with true_params(nominal) but measured at distortion(nominal): the parameters
    # that really play at T are true_params(distortion^-1(T)); the correction must find them.
    measured = [distortion(lv) for lv in LEVELS]
    targets = list(range(600, 2601, 100))
    result = correct_table(measured, params_table(LEVELS), targets)
    assert result.below == [t for t in targets if t < distortion(600)]
    assert result.above == [t for t in targets if t > distortion(2600)]
    assert not result.adjusted
    assert len(result.rows) >= 10
    for target, row in result.rows.items():
        expected = true_params(inverse_distortion(target))
        assert row["NPS"] == pytest.approx(expected["NPS"], rel=0.02), target
        for column in ("MoveError", "BlunderError", "BlunderPer128"):
            assert row[column] == pytest.approx(expected[column], abs=1.0), (target, column)
        assert row["mobility"] == pytest.approx(expected["mobility"], abs=0.02)


def test_correction_is_exact_at_measured_points_and_monotone_between():
    measured = [distortion(lv) for lv in LEVELS]
    params = params_table(LEVELS)
    targets = [round(m) for m in measured[1:-1]]
    result = correct_table(measured, params, targets)
    for i, target in enumerate(targets, start=1):
        assert result.rows[target]["BlunderError"] == pytest.approx(
            params["BlunderError"][i], abs=0.5)
    dense = correct_table(measured, params, list(range(1000, 2100, 10))).rows
    nps = [dense[t]["NPS"] for t in sorted(dense)]
    errors = [dense[t]["MoveError"] for t in sorted(dense)]
    assert all(np.diff(nps) > 0) and all(np.diff(errors) <= 1e-9)


def test_identity_measurement_gives_back_the_table():
    result = correct_table([float(lv) for lv in LEVELS], params_table(LEVELS), LEVELS)
    assert sorted(result.rows) == LEVELS and not result.below and not result.above
    for level in LEVELS:
        for column, value in true_params(level).items():
            assert result.rows[level][column] == pytest.approx(value, rel=1e-9)


def test_non_monotone_measurements_are_made_monotone_first():
    measured = [distortion(lv) for lv in LEVELS]
    measured[4], measured[5] = measured[5] + 20, measured[4]  # noise swaps two levels
    mono = monotone_measurements(measured)
    assert all(np.diff(mono) >= 0)
    assert mono[4] == mono[5] == pytest.approx((measured[4] + measured[5]) / 2)
    result = correct_table(measured, params_table(LEVELS), list(range(1000, 2000, 25)))
    assert result.adjusted
    nps = [result.rows[t]["NPS"] for t in sorted(result.rows)]
    assert all(np.diff(nps) >= 0)


def test_the_report_says_when_the_pooled_points_were_smoothed_and_what_fell_outside():
    """final-v4's round 3 measured its own six levels strictly increasing, yet the points pooled
    over its three rounds were not (round 2's 1577k-node setting measured 1725, above round 1's
    1996k at 1720): the report names the pooled points, not the round's levels."""
    from lab.calibration.report import correction_notes

    params = {"NPS": [952678.0, 1490084.0, 1577196.0, 1995536.0], "MoveError": [7.0, 4.0, 3.0, 1.0]}
    smoothed = correct_table([1627.1, 1714.8, 1724.7, 1719.8], params, [1600, 1650, 1700, 1750])
    notes = correction_notes(smoothed)
    assert notes[0].startswith("The points the correction fits (every round's measurements, "
                               "merged by setting and ordered by search effort")
    assert notes[1:] == ["Extrapolated, left out: 1600 (weaker than the weakest level plays).",
                         "Extrapolated, left out: 1750 (stronger than the curve's strongest "
                         "point plays)."]
    increasing = correct_table([1627.1, 1714.8, 1719.8, 1724.7], params, [1650, 1700])
    assert not increasing.adjusted and correction_notes(increasing) == []


def test_weights_let_precise_levels_move_less():
    mono = monotone_measurements([1000, 1200, 1150, 1400], weights=[1, 100, 1, 1])
    assert mono[1] == mono[2] == pytest.approx((100 * 1200 + 1150) / 101)


def test_correction_input_errors():
    with pytest.raises(ValueError, match="at least two"):
        correct_table([1000.0], {"NPS": [1.0]}, [1000])
    with pytest.raises(ValueError, match="'NPS' has 1 values for 2 levels"):
        correct_table([1000.0, 1200.0], {"NPS": [1.0]}, [1000])
    with pytest.raises(ValueError, match="positive"):
        correct_table([1000.0, 1200.0], {"NPS": [0.0, 5.0]}, [1000])
    with pytest.raises(ValueError, match="same Elo"):
        correct_table([1300.0, 1200.0], {"NPS": [1.0, 2.0]}, [1000])


def test_expected_score_and_window():
    # docs/reference/elo_limit.md §5 (D): nominal +100 predicts 64.0 %, +200 predicts 76.0 %.
    assert expected_score(100) == pytest.approx(0.640, abs=0.0005)
    assert expected_score(200) == pytest.approx(0.760, abs=0.0005)
    low, high = score_window_elo(0.25, 0.75)
    assert high == pytest.approx(190.85, abs=0.01) and low == pytest.approx(-high)


ANCHORS = {"sk0": 1320, "sk1": 1468, "sk2": 1608, "sk3": 1742, "sk4": 1923, "sk5": 2204}


def test_anchor_choice_keeps_scores_between_25_and_75_percent():
    chosen = anchors_for(1600, ANCHORS)
    assert chosen == ["sk2", "sk1", "sk3"]  # nearest first, at most three
    for name in chosen:
        assert 0.25 <= expected_score(1600 - ANCHORS[name]) <= 0.75
    assert anchors_for(2500, ANCHORS) == []


def test_levels_outside_the_score_window_play_their_nearest_anchor():
    # the ladder places no level (its games judge transitivity only), so every level plays at
    # least the anchor nearest to it, however far outside the window
    assert choose_anchors([600, 800, 1000, 1200], ANCHORS) == [["sk0"], ["sk0"], ["sk0"], ["sk0"]]
    assert choose_anchors([1600], ANCHORS) == [["sk2", "sk1", "sk3"]]


def test_criteria_pass_for_an_accurate_table():
    nominal = [1400, 1600, 1800, 2000]
    verdict = judge(nominal, [1410, 1590, 1820, 1995], [30, 30, 35, 38], (1320, 2204))
    assert verdict.passed
    assert verdict.bias == pytest.approx(3.75)
    assert verdict.rms == pytest.approx(math.sqrt((100 + 100 + 400 + 25) / 4))
    assert verdict.slope == pytest.approx(np.polyfit(nominal, [1410, 1590, 1820, 1995], 1)[0])


def test_criteria_fail_each_for_its_own_reason():
    nominal = [1400, 1600, 1800, 2000]
    lines = dict((name, ok) for name, ok, _ in judge(
        nominal, [1460, 1600, 1800, 2000], [30] * 4, (1320, 2204)).lines)
    assert not lines["A per-level accuracy"] and lines["B bias"] and lines["C slope"]
    verdict = judge(nominal, [1400, 1600, 1800, math.nan], [30, 45, 30, math.nan], (1320, 2204))
    name, ok, detail = verdict.lines[0]
    assert name == "A per-level accuracy" and not ok  # an interval too wide, a level unmeasured
    assert detail.endswith("failing: 1600 (+0 ± 45), 2000 (no measurement)")
    compressed = judge(nominal, [1500, 1600, 1700, 1800], [20] * 4, (1320, 2204))
    lines = dict((name, ok) for name, ok, _ in compressed.lines)
    assert compressed.slope == pytest.approx(0.5) and not lines["C slope"]
    assert lines["D monotone, gaps"]  # 100-Elo gaps for 200 nominal: exactly 50 %, allowed
    swapped = judge(nominal, [1400, 1620, 1600, 2000], [20] * 4, (1320, 2204))
    lines = dict((name, ok) for name, ok, _ in swapped.lines)
    assert not lines["D monotone, gaps"]


def test_levels_outside_the_anchor_range_are_extrapolated_not_judged():
    verdict = judge([600, 800, 1400, 1600], [700, 1050, 1400, 1600], [60, 50, 20, 20],
                    (1320, 2204), Thresholds())
    assert [lv.extrapolated for lv in verdict.levels] == ["below", "below", "", ""]
    assert verdict.passed  # the two judged levels are exact; the extrapolated are not counted
    assert not any(lv.passed for lv in verdict.levels[:2])


def test_head_to_head_cross_check_uses_the_reference_predictions():
    from lab.calibration.criteria import head_to_head

    assert head_to_head(100, 66.0, 400) == (pytest.approx(64.0, abs=0.05), "pass")
    assert head_to_head(200, 70.0, 500) == (pytest.approx(76.0, abs=0.05), "FAIL")
    assert head_to_head(200, 76.0, 40)[1] == "too few games (40 < 400)"


def test_performance_rating_inverts_the_expectancy_and_caps_perfect_scores():
    from lab.calibration.anchors import performance

    assert performance([(1500, 0.76, 10)]) == pytest.approx(1500 + 200, abs=1)
    assert performance([(1500, 0.5, 4), (1700, 0.5, 4)]) == pytest.approx(1600)
    # a perfect loss counts as 5 %: 511.5 below the anchor, finite
    assert performance([(1320, 0.0, 6)]) == pytest.approx(1320 - 511.5, abs=0.1)
    with pytest.raises(ValueError):
        performance([])


def test_a_bound_below_the_anchor_range_is_extrapolated_too():
    nan = math.nan
    verdict = judge([800, 1400, 1600], [nan, 1400, 1600], [nan, 20, 20], (1320, 2204),
                    bounds=[900, nan, nan])
    assert [lv.extrapolated for lv in verdict.levels] == ["below", "", ""]
    inside = judge([800, 1400], [nan, 1400], [nan, 20], (1320, 2204), bounds=[1300, nan])
    assert inside.levels[0].extrapolated == "" and not inside.levels[0].passed


def test_two_measurements_agree_within_two_standard_errors_of_their_difference():
    from lab.calibration.criteria import Measurement, agree

    # 95 % half-widths of 39.2 are SEs of 20; the difference's SE is 20 x sqrt(2) = 28.3
    a = Measurement(1500, 39.2)
    assert agree(a, Measurement(1556, 39.2)) and not agree(a, Measurement(1558, 39.2))
    assert agree(a, Measurement(1450, 39.2), k=2.0) and not agree(a, Measurement(1450, 39.2), 1)
    assert not agree(a, Measurement(math.nan, math.nan))


def test_replication_transitivity_and_robustness_lines():
    from lab.calibration.criteria import (
        Measurement,
        replication_line,
        robustness_line,
        transitivity_line,
    )

    m = Measurement
    name, ok, detail = replication_line([1000, 1400], [m(1000, 40), m(1400, 40)],
                                        [m(1030, 40), m(1500, 40)])
    assert name == "R replicated" and not ok and "1400 (1400 vs 1500)" in detail
    assert replication_line([1000], [m(1000, 40)], [m(1030, 40)])[1]
    # the stated-error diagnostic: 30 and 100 Elo apart at SE 40/1.96 each (difference SE
    # 28.86) are z = 1.04 and 3.46, mean z² (1.08 + 12.00) / 2 = 6.54, far above the 0.03-3.69
    # (chi-square with 2 degrees of freedom at 2.5 % and 97.5 %, halved) right errors give
    assert "stated errors: mean z² 6.54 over 2 level(s), 0.03–3.69 if they are right" in detail
    assert "mean z²" not in replication_line([1000], [m(1000, 40)], [m(math.nan, math.nan)])[2]
    # 200 Elo apart predicts 76 %; over 400 games the score's SE is about 2.1 points
    pairs = [("L1400-L1200", m(1200, 20), m(1400, 20), 0.75, 400)]
    assert transitivity_line(pairs)[1]
    name, ok, detail = transitivity_line([("L1400-L1200", m(1200, 20), m(1400, 20), 0.55, 400)])
    assert not ok and "failing: L1400-L1200: 55.0 % vs 76.0 % predicted" in detail
    # every pair is listed, the passing ones too, each with its tolerance and games
    name, ok, detail = transitivity_line(pairs + [("L1600-L1400", m(1400, 20), m(1600, 20),
                                                   0.55, 400)])
    assert not ok and detail.index("failing: L1600-L1400") < detail.index("passing: L1400-L1200")
    assert "L1400-L1200: 75.0 % vs 76.0 % predicted (-0.4 SE, 400 games)" in detail
    assert "within 2.28 SE (2 SE's false-alarm rate over 2 pairs)" in detail
    assert not transitivity_line([])[1]  # no ladder: nothing shows the levels are transitive
    # a level with only a bound (a perfect score against its anchors) predicts nothing: it fails
    name, ok, detail = transitivity_line([("L1800-L1400", m(1400, 60), m(math.nan, math.nan),
                                           1.0, 6)])
    assert not ok and detail.endswith("failing: L1800-L1400: 100.0 %, no prediction (a level "
                                      "without a rating), 6 games")
    # The score's error is taken at the prediction (73.8 % here: 6.95 points over 40 games), not
    # at the 97.5 % observed (2.47 points, which would put it 9.6 SE away).
    name, ok, detail = transitivity_line([("L1450-L1250", m(1250, 0), m(1430, 0), 0.975, 40)])
    assert not ok and "97.5 % vs 73.8 % predicted (+3.4 SE, 40 games)" in detail
    checks = [("tc-5+0.05", 900.0, m(900, 40), m(950, 40)),
              ("seed-7", 900.0, m(900, 40), m(1100, 40))]
    name, ok, detail = robustness_line(checks)
    assert not ok and "failing: seed-7 at 900: 1100 vs 900 (+6.9 SE)" in detail
    assert "passing: tc-5+0.05 at 900: 950 vs 900 (+1.7 SE)" in detail  # what passed as well
    unplayed = robustness_line([("load-1", 900.0, m(900, 40), m(math.nan, math.nan))])
    assert not unplayed[1] and "load-1 at 900: no measurement vs 900" in unplayed[2]
    assert robustness_line(checks[:1])[1] and not robustness_line([])[1]


def test_the_anchors_rating_errors_widen_the_gap_between_levels_on_different_anchors():
    """A level placed against fixed anchors moves with each anchor by its share of the games'
    information, n f(1 - f); two levels on different anchors carry those anchors' errors into
    their gap (delta method), two on the same anchors in the same shares carry none."""
    from lab.calibration.criteria import (
        LadderPair,
        Measurement,
        anchor_gap_se,
        anchor_shares,
        transitivity_line,
    )

    # 120 games at 50 % (w = 120 x 0.25 = 30) and 120 at 80 % (w = 120 x 0.16 = 19.2)
    shares = anchor_shares([("A", 0.5, 120), ("B", 0.8, 120)])
    assert shares == pytest.approx({"A": 30 / 49.2, "B": 19.2 / 49.2})
    assert anchor_shares([]) == {}
    cov = {("A", "A"): 40.0**2, ("B", "B"): 30.0**2}
    assert anchor_gap_se({"A": 1.0}, {"B": 1.0}, cov) == pytest.approx(50.0)
    assert anchor_gap_se(shares, shares, cov) == 0.0
    # correlated anchors share part of their error: Var(B - A) = 1600 + 900 - 2 x 1000
    correlated = dict(cov) | {("A", "B"): 1000.0, ("B", "A"): 1000.0}
    assert anchor_gap_se({"A": 1.0}, {"B": 1.0}, correlated) == pytest.approx(500**0.5)
    # final-v6 round 1's L910-L710: 72.5 % where 82.2 % is predicted, 200 games, the levels
    # 665 ± 38.3 and 931 ± 37.4 relative to the anchors: -2.7 SE; with the 41 Elo its anchors
    # (the phalanx settings, 90 round-robin games each) add to the gap, -2.0 SE
    m = Measurement
    gap = 400 * math.log10(0.822 / 0.178)
    exact = ("L910-L710", m(665, 38.3), m(665 + gap, 37.4), 0.725, 200)
    assert "(-2.7 SE, 200 games)" in transitivity_line([exact], scale_mode="floor")[2]
    name, ok, detail = transitivity_line([LadderPair(*exact, anchor_se=41.0)], scale_mode="floor")
    assert ok and "(-2.0 SE, 200 games, the anchors' errors 41 Elo on the gap)" in detail


def test_transitivity_at_a_fitted_head_to_head_scale():
    """E with `fitted`: one scale s, fitted to every pair, replaces the anchors' 1; a ladder
    whose pairs all play further apart passes, one pair out of line with the others fails."""
    from lab.calibration.criteria import Measurement, head_to_head_scale, transitivity_line

    m = Measurement
    # 200 apart scoring 90.9 %, what 400 apart predicts: s = 2; Fisher information over 100
    # games 100 (ln10 x 200 / 400)^2 x 0.909 x 0.091 = 10.96, SE 0.302
    scale, se = head_to_head_scale([("L1200-L1000", m(1000, 0), m(1200, 0), 0.909, 100)])
    assert scale == pytest.approx(2.0, abs=0.01) and se == pytest.approx(0.302, abs=0.002)
    spread = [(f"L{lo + 200}-L{lo}", m(lo, 20), m(lo + 200, 20), score, 100)
              for lo, score in ((700, 0.90), (900, 0.925), (1100, 0.875), (1300, 0.90))]
    anchors = transitivity_line(spread)
    assert not anchors[1] and "vs 76.0 % predicted" in anchors[2]  # at s = 1, 76 %
    name, ok, detail = transitivity_line(spread, scale_mode="fitted")
    assert ok and detail.startswith("head to head 1.9") and "at that scale" in detail
    assert "L1100-L900: 92.5 % vs 90." in detail
    # one pair that plays at the anchors' scale while the rest spread twice as wide fails
    odd = spread + [("L1700-L1500", m(1500, 20), m(1700, 20), 0.5, 100)]
    name, ok, detail = transitivity_line(odd, scale_mode="fitted")
    assert not ok and "failing: L1700-L1500: 50.0 %" in detail
    # the stronger levels must win head to head: a scale not above 0 fails
    even = [(f"L{lo + 200}-L{lo}", m(lo, 30), m(lo + 200, 30), 0.5, 40) for lo in (700, 900, 1100)]
    name, ok, detail = transitivity_line(even, scale_mode="fitted")
    assert not ok and "scale 0.00 not above 0 by 2 SE" in detail
    # too few pairs to fit a scale; every game won gives no finite scale
    assert "needs 3" in transitivity_line(spread[:2], scale_mode="fitted")[2]
    sweep = [(name, w, s, 1.0, g) for name, w, s, _, g in spread]
    assert not transitivity_line(sweep, scale_mode="fitted")[1]
    assert head_to_head_scale(sweep)[0] == math.inf
    lost = [(name, w, s, 0.0, g) for name, w, s, _, g in spread]  # far from any logistic's
    assert head_to_head_scale(lost)[0] == -math.inf  # reach, without overflow
    assert not transitivity_line(lost, scale_mode="fitted")[1]


def test_transitivity_with_the_anchors_scale_as_a_floor():
    """E with `floor`: a pair fails only when the stronger level scores below the anchors'
    prediction, so a ladder that plays itself further apart passes and one that does not
    separate still fails, at the same tolerance as the two-sided test."""
    from lab.calibration.criteria import Measurement, transitivity_line

    m = Measurement
    # final-v5's upper pairs, 200 apart, scored 95.0 and 97.5 % in 40 games where 76.0 % was
    # predicted: +2.8 and +3.2 SE, beyond the two-sided 2.28 SE for two pairs, not below
    upper = [("L1510-L1310", m(1310, 0), m(1510, 0), 0.95, 40),
             ("L1710-L1510", m(1510, 0), m(1710, 0), 0.975, 40)]
    assert not transitivity_line(upper)[1]
    name, ok, detail = transitivity_line(upper, scale_mode="floor")
    assert ok and "95.0 % vs 76.0 % predicted (+2.8 SE, 40 games)" in detail
    assert "no lower than 2.28 SE" in detail and "below their ratings' prediction" in detail
    # a pair that does not separate fails as it does two-sided: 55 % where 76 % is predicted
    flat = upper + [("L1910-L1710", m(1710, 0), m(1910, 0), 0.55, 400)]
    name, ok, detail = transitivity_line(flat, scale_mode="floor")
    assert not ok and "failing: L1910-L1710: 55.0 % vs 76.0 % predicted" in detail
    with pytest.raises(ValueError, match="scale_mode must be one of anchors, fitted, floor"):
        transitivity_line(upper, scale_mode="wide")


def test_a_family_of_checks_is_held_to_one_checks_false_alarm_rate():
    """E and F: m checks at 2 SE each would fail a sound calibration 1 - 0.9545^m of the time
    (31 % for 8); each is judged at `family_se` instead, Bonferroni's threshold for the family."""
    from lab.calibration.criteria import Measurement, family_se, robustness_line

    assert family_se(2.0, 1) == pytest.approx(2.0)
    assert family_se(2.0, 6) == pytest.approx(2.670, abs=1e-3)  # 1 - Φ(z) = 0.0455 / 12
    assert family_se(2.0, 8) == pytest.approx(2.765, abs=1e-3)  # 1 - Φ(z) = 0.0455 / 16
    assert family_se(3.0, 1) == pytest.approx(3.0)
    m = Measurement
    off = 2.3 * math.hypot(40 / 1.96, 40 / 1.96)  # a variant 2.3 SE from its level
    alone = [("load-1", 900.0, m(900, 40), m(900 + off, 40))]
    assert not robustness_line(alone)[1]  # one check: 2 SE
    family = alone + [(f"seed-{i}", 900.0, m(900, 40), m(900, 40)) for i in range(7)]
    name, ok, detail = robustness_line(family)
    assert ok and "within 2.77 SE (2 SE's false-alarm rate over 8 checks)" in detail
    assert "load-1 at 900: 966 vs 900 (+2.3 SE)" in detail
    far = [("load-1", 900.0, m(900, 40), m(900 + 1.25 * off, 40))] + family[1:]
    assert not robustness_line(far)[1]  # 2.9 SE fails the family of 8 as well


def test_spread_and_top_lines_judge_issue_18s_match_targets():
    from lab.calibration.criteria import spread_line, top_line

    # 400 Elo predicts 90.9 %; the issue accepts 85 %: 85 of 100 passes, 84.5 does not
    name, ok, detail = spread_line([("L1100-L700", 0.85, 100), ("L1300-L900", 0.845, 100)],
                                   400, 0.85)
    assert name == "S 400-Elo pairs" and not ok
    assert "failing: L1300-L900: 84.5 % in 100" in detail
    assert "passing: L1100-L700: 85.0 % in 100" in detail
    name, ok, detail = spread_line([("L1100-L700", 0.91, 100)], 400, 0.85)
    assert ok and detail.endswith("passing: L1100-L700: 91.0 % in 100")
    assert not spread_line([], 400, 0.85)[1]  # no pair played: nothing shows the spread
    assert not spread_line([("L1100-L700", 0.0, 0)], 400, 0.85)[1]
    name, ok, detail = top_line(1700, 0.585, 100, (0.40, 0.60))
    assert name == "T full strength vs top" and ok and "58.5 % in 100 games against L1700" in detail
    assert not top_line(1700, 0.92, 100, (0.40, 0.60))[1]  # a jump at the top of the range
    assert not top_line(1700, 0.35, 100, (0.40, 0.60))[1]
    assert not top_line(1700, 0.5, 0, (0.40, 0.60))[1]
