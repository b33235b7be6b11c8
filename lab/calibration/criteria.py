"""Acceptance criteria of a calibrated table (docs/reference/elo_limit.md §5), as pure arithmetic.

(A) each level: |measured − nominal| ≤ 50 with a 95 % half-width ≤ 40; (B) over the table:
|mean signed error| ≤ 25, RMS error ≤ 40, largest error ≤ 75; (C) slope of measured on nominal
(least squares) within 0.90–1.10; (D) measured strictly increasing, and every adjacent measured gap
within 50–150 % of the nominal gap. (G) levels measured outside the anchors' range ± 200 are
extrapolations: they are listed but left out of (A)–(D). (E) transitivity and (F) robustness
need extra runs and are not judged here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Thresholds:
    """The §5 numbers; a calibration file may tighten or loosen them."""

    level_error: float = 50.0
    level_halfwidth: float = 40.0
    bias: float = 25.0
    rms: float = 40.0
    max_error: float = 75.0
    slope_low: float = 0.90
    slope_high: float = 1.10
    gap_low: float = 0.50
    gap_high: float = 1.50
    anchor_margin: float = 200.0


@dataclass
class LevelResult:
    """One level: nominal and measured Elo, the 95 % half-width, and what was judged."""

    nominal: float
    measured: float
    halfwidth: float
    extrapolated: str = ""  # "", "below" or "above" the anchors' range ± margin
    passed: bool = False

    @property
    def error(self) -> float:
        return self.measured - self.nominal


@dataclass
class Verdict:
    """The table's figures and one (name, passed, detail) line per criterion."""

    levels: list[LevelResult]
    bias: float = math.nan
    rms: float = math.nan
    max_error: float = math.nan
    slope: float = math.nan
    lines: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.lines) and all(ok for _, ok, _ in self.lines)


def judge(nominal: Sequence[float], measured: Sequence[float], halfwidth: Sequence[float],
          anchor_range: tuple[float, float], thresholds: Thresholds | None = None,
          bounds: Sequence[float] | None = None) -> Verdict:
    """Judge measured levels against the §5 criteria (levels in increasing nominal order).

    A level whose measured Elo (or, without one, its bound from `bounds`: a perfect score's
    ceiling or floor) lies outside [lowest anchor − margin, highest anchor + margin] is marked
    extrapolated and judged by nothing; a missing measurement inside the range fails (A). With
    fewer than two judged levels, (C) and (D) fail.
    """
    t = thresholds or Thresholds()
    low, high = anchor_range[0] - t.anchor_margin, anchor_range[1] + t.anchor_margin
    places = list(measured) if bounds is None else [
        m if math.isfinite(m) else b for m, b in zip(measured, bounds, strict=True)]
    levels = []
    for nom, mea, hw, place in zip(nominal, measured, halfwidth, places, strict=True):
        where = "below" if place < low else "above" if place > high else ""
        level = LevelResult(float(nom), float(mea), float(hw), where)
        level.passed = (not where and math.isfinite(mea) and math.isfinite(hw)
                        and abs(level.error) <= t.level_error and hw <= t.level_halfwidth)
        levels.append(level)
    verdict = Verdict(levels)
    judged = [lv for lv in levels if not lv.extrapolated and math.isfinite(lv.measured)]
    failing = [f"{lv.nominal:.0f}" for lv in levels if not lv.extrapolated and not lv.passed]
    verdict.lines.append((
        "A per-level accuracy", not failing and bool(judged),
        f"|error| <= {t.level_error:.0f} and 95% half-width <= {t.level_halfwidth:.0f}; "
        + (f"failing: {', '.join(failing)}" if failing else f"{len(judged)} levels pass"),
    ))
    if not judged:
        return verdict
    errors = np.array([lv.error for lv in judged])
    verdict.bias = float(errors.mean())
    verdict.rms = float(np.sqrt(np.mean(errors**2)))
    verdict.max_error = float(np.abs(errors).max())
    verdict.lines += [
        ("B bias", abs(verdict.bias) <= t.bias,
         f"mean signed error {verdict.bias:+.1f} (limit ±{t.bias:.0f})"),
        ("B RMS error", verdict.rms <= t.rms, f"{verdict.rms:.1f} (limit {t.rms:.0f})"),
        ("B max error", verdict.max_error <= t.max_error,
         f"{verdict.max_error:.1f} (limit {t.max_error:.0f})"),
    ]
    if len(judged) < 2:
        verdict.lines.append(("C slope", False, "needs two judged levels"))
        verdict.lines.append(("D monotone, gaps", False, "needs two judged levels"))
        return verdict
    x = np.array([lv.nominal for lv in judged])
    y = np.array([lv.measured for lv in judged])
    verdict.slope = float(np.polyfit(x, y, 1)[0])
    verdict.lines.append((
        "C slope", t.slope_low <= verdict.slope <= t.slope_high,
        f"measured on nominal {verdict.slope:.3f} (accept {t.slope_low:.2f}..{t.slope_high:.2f})",
    ))
    ratios = np.diff(y) / np.diff(x)
    increasing = bool(np.all(np.diff(y) > 0))
    bad_gaps = [f"{a:.0f}->{b:.0f}: {100 * r:.0f}%"
                for a, b, r in zip(x[:-1], x[1:], ratios, strict=True)
                if not t.gap_low <= r <= t.gap_high]
    verdict.lines.append((
        "D monotone, gaps", increasing and not bad_gaps,
        ("strictly increasing" if increasing else "NOT increasing")
        + f"; gaps within {100 * t.gap_low:.0f}-{100 * t.gap_high:.0f}% of nominal"
        + (f" except {', '.join(bad_gaps)}" if bad_gaps else ""),
    ))
    return verdict


def head_to_head(gap: float, score: float, games: int, min_games: int = 400,
                 tolerance: float = 5.0) -> tuple[float, str]:
    """The §5 (D) cross-check of two levels `gap` nominal Elo apart that met directly.

    Returns the predicted score in % (logistic, 1/(1 + 10^(−gap/400)): +100 → 64.0, +200 →
    76.0) and "pass"/"FAIL" when the observed `score` (%) lies within ± `tolerance` points of it
    over at least `min_games` games, or "too few games" below that.
    """
    predicted = 100.0 / (1.0 + 10.0 ** (-gap / 400.0))
    if games < min_games:
        return predicted, f"too few games ({games} < {min_games})"
    return predicted, "pass" if abs(score - predicted) <= tolerance else "FAIL"
