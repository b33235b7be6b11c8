"""Acceptance criteria of a calibrated table (docs/reference/elo_limit.md §5), as pure arithmetic.

(A) each level: |measured − nominal| ≤ 50 with a 95 % half-width ≤ 40; (B) over the table:
|mean signed error| ≤ 25, RMS error ≤ 40, largest error ≤ 75; (C) slope of measured on nominal
(least squares) within 0.90–1.10; (D) measured strictly increasing, and every adjacent measured gap
within 50–150 % of the nominal gap. (G) levels measured outside the anchors' range ± 200 are
extrapolations: they are listed but left out of (A)–(D). Issue #18 adds: (R) a level counts only
when two independent measurements of it agree within 2 standard errors (`replication_line`);
(E) transitivity, adjacent levels' head-to-head score against what their anchor ratings predict
(`transitivity_line`), at the anchors' own scale or at one head-to-head scale fitted to the pairs
(`head_to_head_scale`: levels of one engine may play each other further apart than the anchors
place them, and a ladder whose pairs all do so is still transitive); (F) robustness, a level
measured again at half and double the time control, with another `Seed` and under another machine
load agrees with its measurement (`robustness_line`). E and F are families of checks: each
check's threshold is raised (`family_se`) so that a calibration with nothing wrong fails the
family as seldom as it fails one check at 2 SE, 4.6 % of the time, instead of 1 − 0.954^m (31 %
for F's 8 checks). (S) levels 400 Elo apart are separated: the stronger scores >= 85 % head to
head (`spread_line`); (T) full strength against the top level scores 40-60 % (`top_line`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.stats import chi2


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
    agreement_se: float = 2.0


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
          bounds: Sequence[float] | None = None,
          names: Sequence[str] | None = None) -> Verdict:
    """Judge measured levels against the §5 criteria (levels in increasing nominal order).

    A level whose measured Elo (or, without one, its bound from `bounds`: a perfect score's
    ceiling or floor) lies outside [lowest anchor − margin, highest anchor + margin] is marked
    extrapolated and judged by nothing; a missing measurement inside the range fails (A). With
    fewer than two judged levels, (C) and (D) fail. `names` label the levels in the details
    (default: the Elo each is judged against), so a level judged away from its own nominal Elo
    is still recognisable.
    """
    t = thresholds or Thresholds()
    low, high = anchor_range[0] - t.anchor_margin, anchor_range[1] + t.anchor_margin
    places = list(measured) if bounds is None else [
        m if math.isfinite(m) else b for m, b in zip(measured, bounds, strict=True)]
    labels = [f"{nom:.0f}" for nom in nominal] if names is None else list(names)
    levels = []
    for nom, mea, hw, place in zip(nominal, measured, halfwidth, places, strict=True):
        where = "below" if place < low else "above" if place > high else ""
        level = LevelResult(float(nom), float(mea), float(hw), where)
        level.passed = (not where and math.isfinite(mea) and math.isfinite(hw)
                        and abs(level.error) <= t.level_error and hw <= t.level_halfwidth)
        levels.append(level)
    verdict = Verdict(levels)
    kept = [i for i, lv in enumerate(levels) if not lv.extrapolated and math.isfinite(lv.measured)]
    judged = [levels[i] for i in kept]
    failing = [f"{name} ({_error_text(lv)})" for name, lv in zip(labels, levels, strict=True)
               if not lv.extrapolated and not lv.passed]
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
    judged_labels = [labels[i] for i in kept]
    increasing = bool(np.all(np.diff(y) > 0))
    bad_gaps = [f"{a}->{b}: {100 * r:.0f}%"
                for a, b, r in zip(judged_labels[:-1], judged_labels[1:], ratios, strict=True)
                if not t.gap_low <= r <= t.gap_high]
    verdict.lines.append((
        "D monotone, gaps", increasing and not bad_gaps,
        ("strictly increasing" if increasing else "NOT increasing")
        + f"; gaps within {100 * t.gap_low:.0f}-{100 * t.gap_high:.0f}% of nominal"
        + (f" except {', '.join(bad_gaps)}" if bad_gaps else ""),
    ))
    return verdict


def _error_text(level: LevelResult) -> str:
    """A level's error and 95 % half-width as A judges them: "-51 ± 58", or "no measurement"."""
    if not (math.isfinite(level.measured) and math.isfinite(level.halfwidth)):
        return "no measurement"
    return f"{level.error:+.0f} ± {level.halfwidth:.0f}"


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


#: Standard errors in a 95 % half-width (normal approximation): half-width / 1.96 = SE.
Z95 = 1.959964


@dataclass(frozen=True)
class Measurement:
    """One measurement of a rating: Elo and its 95 % half-width."""

    elo: float
    halfwidth: float

    @property
    def se(self) -> float:
        return self.halfwidth / Z95


def _elo_text(measurement: Measurement) -> str:
    """A measurement's Elo, or "no measurement" (no games, only a bound, not tied)."""
    return f"{measurement.elo:.0f}" if math.isfinite(measurement.elo) else "no measurement"


def agree(a: Measurement, b: Measurement, k: float = 2.0) -> bool:
    """Whether two independent measurements agree: |a − b| <= k x SE of the difference,
    SE = sqrt(SE_a² + SE_b²) (both finite; a missing one never agrees)."""
    values = (a.elo, a.halfwidth, b.elo, b.halfwidth)
    if not all(math.isfinite(v) for v in values):
        return False
    return abs(a.elo - b.elo) <= k * math.hypot(a.se, b.se)


def family_se(k: float, checks: int) -> float:
    """The threshold, in standard errors, at which `checks` independent comparisons together
    raise a false alarm as often as one comparison does at `k` SE (Bonferroni: each at the
    two-sided tail P(|z| > k) divided by `checks`). Worked examples: k = 2 gives 2.0 for one
    check, 2.67 for 6, 2.77 for 8."""
    tail = math.erfc(k / math.sqrt(2.0))
    return NormalDist().inv_cdf(1.0 - tail / (2.0 * max(1, checks)))


def replication_line(nominal: Sequence[float], first: Sequence[Measurement],
                     second: Sequence[Measurement], k: float = 2.0) -> tuple[str, bool, str]:
    """(R): every level's two independent measurements (for example the two halves of its game
    pairs, fitted apart) agree within `k` standard errors; a level that does not, does not count."""
    failing = [f"{n:.0f} ({_elo_text(a)} vs {_elo_text(b)})"
               for n, a, b in zip(nominal, first, second, strict=True) if not agree(a, b, k)]
    return ("R replicated", not failing and bool(nominal),
            f"two independent measurements within {k:g} SE; "
            + (f"disagreeing: {', '.join(failing)}" if failing else f"{len(nominal)} levels agree")
            + stated_error_text(first, second))


def stated_error_text(first: Sequence[Measurement], second: Sequence[Measurement]) -> str:
    """A diagnostic beside R, not a criterion: whether the stated errors are the real ones. Each
    level's two measurements differ by z = (a − b) / SE of the difference; if the half-widths
    are right, the mean z² over n levels is a chi-square with n degrees of freedom divided by n,
    whose central 95 % range is given (n = 6: 0.21–2.41). Far above it, the intervals are too
    narrow (games not independent, a drifting opponent); far below, too wide."""
    z = [(a.elo - b.elo) / math.hypot(a.se, b.se) for a, b in zip(first, second, strict=True)
         if all(math.isfinite(v) for v in (a.elo, a.halfwidth, b.elo, b.halfwidth))
         and a.halfwidth + b.halfwidth > 0]
    if not z:
        return ""
    n = len(z)
    mean_square = sum(v * v for v in z) / n
    return (f"; stated errors: mean z² {mean_square:.2f} over {n} level(s), "
            f"{chi2.ppf(0.025, n) / n:.2f}–{chi2.ppf(0.975, n) / n:.2f} if they are right")


def _listing(failing: Sequence[str], passing: Sequence[str]) -> str:
    """Every figure of a criterion, the failing ones first, so a report shows what passed as
    well as what did not."""
    parts = [f"failing: {'; '.join(failing)}"] if failing else []
    if passing:
        parts.append(f"passing: {'; '.join(passing)}")
    return "; ".join(parts)


def score_se(score: float, games: int) -> float:
    """Standard error of a score fraction over `games` games (binomial, draws counted as half
    points: conservative, draws lower the real variance; reference harness_and_stats.md)."""
    return math.sqrt(max(score * (1.0 - score), 0.25 / games) / games) if games else math.inf


class LadderPair(NamedTuple):
    """One adjacent pair for criterion E: its name, the weaker's and the stronger's ratings from
    anchor games only (errors relative to the anchors), the stronger's score fraction against
    the weaker, games, and the standard error (Elo) the anchors' own rating errors add to the
    gap between the two (`anchor_gap_se`; 0 when the anchors' ratings are taken as exact)."""

    name: str
    weak: Measurement
    strong: Measurement
    score: float
    games: int
    anchor_se: float = 0.0


#: Fewest adjacent pairs a head-to-head scale is fitted to: with two, one scale fits both
#: nearly exactly and the pairs test little but each other.
MIN_SCALED_PAIRS = 3


def head_to_head_scale(pairs: Sequence[tuple]) -> tuple[float, float]:
    """The factor s by which head-to-head Elo differences exceed the anchors' (the stronger
    scores 1/(1 + 10^(−sΔ/400)) against the weaker), fitted by maximum likelihood to the pairs
    (name, weaker's and stronger's ratings, the stronger's score fraction, games; a score counts
    as that fraction of wins, the binomial model `score_se` uses), and its standard error from
    the Fisher information Σ n (ln10 Δ / 400)² p(1 − p). Worked example: one pair 200 apart
    scoring 90.9 % (what 400 apart predicts) gives s = 2."""
    usable = [(p.strong.elo - p.weak.elo, p.score, p.games)
              for p in (LadderPair(*t) for t in pairs)
              if p.games and math.isfinite(p.strong.elo - p.weak.elo)
              and p.strong.elo != p.weak.elo]
    if not usable:
        return math.nan, math.nan
    c = math.log(10) / 400.0

    def expected(s: float, diff: float) -> float:  # the logistic, without overflow
        x = c * s * diff
        return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else 1.0 - 1.0 / (1.0 + math.exp(x))

    def slope(s: float) -> float:  # d(log-likelihood)/ds, decreasing in s
        return sum(games * c * diff * (score - expected(s, diff)) for diff, score, games in usable)

    low, high = -1.0, 1.0
    while slope(high) > 0 and high < 1e3:
        high *= 2.0
    while slope(low) < 0 and low > -1e3:
        low *= 2.0
    if slope(high) > 0 or slope(low) < 0:
        return math.copysign(math.inf, slope(high)), math.nan
    scale = float(brentq(slope, low, high))
    info = sum(games * (c * diff) ** 2 * expected(scale, diff) * (1.0 - expected(scale, diff))
               for diff, _, games in usable)
    if not info > 0 or abs(scale) >= 1e3:  # every game won (or lost): no finite scale fits
        return math.copysign(math.inf, scale), math.nan
    return scale, 1.0 / math.sqrt(info)


#: The scales criterion E may judge head-to-head scores at (`[criteria] head_to_head`;
#: `transitivity_line` tells each).
HEAD_TO_HEAD = ("anchors", "fitted", "floor")


def anchor_shares(opponents: Sequence[tuple[str, float, int]]) -> dict[str, float]:
    """∂r/∂r_a of a rating fitted against fixed anchors, from (anchor, expected score, games)
    per anchor met: the fit solves Σ n_a (s_a − f(r − r_a)) = 0, so moving anchor a by one
    point moves the rating by w_a/Σw with w_a = n_a f(1 − f), the information its games carry
    (implicit differentiation). Worked example: 120 games at 50 % against A and 120 at 80 %
    against B give w = 30 and 19.2, shares 0.61 and 0.39."""
    weights = {name: games * f * (1.0 - f) for name, f, games in opponents}
    total = sum(weights.values())
    return {name: float(w / total) for name, w in weights.items()} if total > 0 else {}


def anchor_gap_se(weak: dict[str, float], strong: dict[str, float],
                  cov: dict[tuple[str, str], float]) -> float:
    """Standard error (Elo) that the anchors' rating errors add to the gap between two levels
    placed against them (delta method): √(cᵀΣc), c the difference of the levels' `anchor_shares`
    and Σ the anchors' covariance (Elo², by pair of names; a pair missing counts 0). Two levels
    placed on the same anchors in the same shares share their error: 0. Worked example: one level
    on anchor A alone (SE 40), the other on B alone (SE 30), uncorrelated: 50."""
    names = sorted(set(weak) | set(strong))
    c = [strong.get(a, 0.0) - weak.get(a, 0.0) for a in names]
    var = sum(ci * cj * cov.get((a, b), 0.0)
              for a, ci in zip(names, c) for b, cj in zip(names, c))
    return math.sqrt(max(var, 0.0))


def transitivity_line(pairs: Sequence[tuple], k: float = 2.0, scale_mode: str = "anchors"
                      ) -> tuple[str, bool, str]:
    """(E): for each adjacent pair (a `LadderPair`, or the same fields as a tuple without
    `anchor_se`), the observed score lies within `family_se(k, pairs)` standard errors of the
    logistic prediction 1/(1 + 10^(−sΔ/400)), the rating errors included (the levels' own and
    the anchors' share of the gap, propagated through the logistic's slope). The score's error is
    the binomial one at the predicted score, the hypothesis tested (a score test): at the
    observed one, a 39-1 score would claim a 2.5-point error where 74 % is predicted, against 6.9.

    `scale_mode` "anchors": s is 1, the anchors' scale. "fitted": s is `head_to_head_scale` of
    the pairs, which must be positive by `k` standard errors (the stronger levels win head to
    head), and each pair is judged against the others through it; at least `MIN_SCALED_PAIRS`
    pairs. "floor": s is 1 and only a pair scoring below its prediction fails, so a stronger
    level must beat the weaker at least by the anchors' gap (a ladder that does not separate
    fails), while levels that play each other further apart than the anchors place them (the
    self-play spread of levels of one engine) pass with their figure shown."""
    if scale_mode not in HEAD_TO_HEAD:
        raise ValueError(f"scale_mode must be one of {', '.join(HEAD_TO_HEAD)}, got "
                         f"{scale_mode!r}")
    if not pairs:
        return "E transitivity", False, "no adjacent levels played each other"
    fitted = scale_mode == "fitted"
    k_one, k = k, family_se(k, len(pairs))
    scale, scale_se, preface = 1.0, 0.0, ""
    if fitted:
        if len(pairs) < MIN_SCALED_PAIRS:
            return ("E transitivity", False, f"{len(pairs)} adjacent pairs played: a fitted "
                    f"head-to-head scale needs {MIN_SCALED_PAIRS}")
        scale, scale_se = head_to_head_scale(pairs)
        if not (math.isfinite(scale) and math.isfinite(scale_se)):
            return ("E transitivity", False, "no finite head-to-head scale fits the pairs "
                    "(every stronger level won every game)")
        preface = (f"head to head {scale:.2f} ± {Z95 * scale_se:.2f} (95 %) times the anchors' "
                   "gaps; ")
    failing, passing = [], []
    if fitted and scale <= k_one * scale_se:
        failing.append(f"scale {scale:.2f} not above 0 by {k_one:g} SE: the stronger levels do "
                       "not win head to head")
    for name, weak, strong, score, games, anchor_se in (LadderPair(*p) for p in pairs):
        diff = strong.elo - weak.elo
        if not math.isfinite(diff):
            failing.append(f"{name}: {100 * score:.1f} %, no prediction (a level without a "
                           f"rating), {games} games")
            continue
        predicted = 1.0 / (1.0 + 10.0 ** (-scale * diff / 400.0))
        slope = scale * math.log(10) / 400.0 * predicted * (1.0 - predicted)
        rating_se = slope * math.sqrt(weak.se ** 2 + strong.se ** 2 + anchor_se ** 2)
        se = math.hypot(score_se(predicted, games), rating_se)
        shortfall = predicted - score if scale_mode == "floor" else abs(score - predicted)
        ok = shortfall <= k * se
        anchors_text = f", the anchors' errors {anchor_se:.0f} Elo on the gap" if anchor_se else ""
        (passing if ok else failing).append(
            f"{name}: {100 * score:.1f} % vs {100 * predicted:.1f} % predicted "
            f"({(score - predicted) / se:+.1f} SE, {games} games{anchors_text})")
    tolerance = _family_text(k_one, k, len(pairs), "pairs")
    bound = (f"no lower than {tolerance} below" if scale_mode == "floor"
             else f"within {tolerance} of")
    return ("E transitivity", not failing,
            preface + f"adjacent levels' scores {bound} their ratings' prediction"
            + (" at that scale" if fitted else "") + "; " + _listing(failing, passing))


def robustness_line(checks: Sequence[tuple[str, float, Measurement, Measurement]],
                    k: float = 2.0) -> tuple[str, bool, str]:
    """(F): each (variant, level, base measurement, measurement under the variant: half or
    double time control, another `Seed`, another machine load) agrees within
    `family_se(k, checks)` SE."""
    if not checks:
        return ("F robustness", False,
                "no robustness runs (half/double TC, another Seed, another load)")
    k_one, k = k, family_se(k, len(checks))
    failing, passing = [], []
    for variant, level, a, b in checks:
        (passing if agree(a, b, k) else failing).append(
            f"{variant} at {level:.0f}: {_elo_text(b)} vs {_elo_text(a)} "
            f"({_z_text(b, a)})")
    return ("F robustness", not failing,
            f"variants within {_family_text(k_one, k, len(checks), 'checks')} of the level's "
            "measurement; " + _listing(failing, passing))


def _family_text(k_one: float, k: float, checks: int, what: str) -> str:
    """The threshold `k` = `family_se(k_one, checks)` of a family of `checks` comparisons in
    words."""
    if checks <= 1:
        return f"{k_one:g} SE"
    return f"{k:.2f} SE ({k_one:g} SE's false-alarm rate over {checks} {what})"


def _z_text(a: Measurement, b: Measurement) -> str:
    """How many standard errors of their difference `a` lies from `b`."""
    se = math.hypot(a.se, b.se)
    if not (math.isfinite(a.elo) and math.isfinite(b.elo) and se > 0):
        return "no measurement"
    return f"{(a.elo - b.elo) / se:+.1f} SE"


def spread_line(pairs: Sequence[tuple[str, float, int]], gap: float,
                min_score: float) -> tuple[str, bool, str]:
    """(S): each pair of levels `gap` nominal Elo apart (name, the stronger's score fraction,
    games) is separated: the stronger scores at least `min_score` (issue #18 asks 85 % for 400 Elo,
    where the logistic predicts 1/(1 + 10^(−400/400)) = 90.9 %)."""
    name = f"S {gap:g}-Elo pairs"
    if not pairs:
        return name, False, f"no two levels {gap:g} nominal Elo apart played each other"
    failing, passing = [], []
    for pair, score, games in pairs:
        (passing if games and score >= min_score else failing).append(
            f"{pair}: {100 * score:.1f} % in {games}")
    return (name, not failing,
            f"the stronger scores >= {100 * min_score:.0f} %; " + _listing(failing, passing))


def top_line(level: float, score: float, games: int,
             window: tuple[float, float]) -> tuple[str, bool, str]:
    """(T): full strength against the top level scores inside `window` (issue #18: 40-60 %), so
    the declared range ends where the engine's full strength is, with no jump at its top."""
    low, high = window
    ok = games > 0 and low <= score <= high
    return ("T full strength vs top", ok,
            f"full strength scores {100 * score:.1f} % in {games} games against L{level:.0f} "
            f"(accept {100 * low:.0f}-{100 * high:.0f} %)" if games
            else f"no games between full strength and L{level:.0f}")


def range_top_line(declared: float, measured: Measurement, bound: str, games: int,
                   k: float = 2.0) -> tuple[str, bool, str]:
    """(U): the top of the declared range is full strength's rating measured against the anchors
    (issue #18: UCI_Elo's max is the engine's measured full strength), within `k` standard
    errors of the measurement; a perfect score (`bound`, Ordo's '>' or '<' rating) measures
    nothing and fails."""
    name = "U range top is full strength"
    if not games:
        return name, False, "full strength played no anchor game"
    if bound:
        side = "above" if bound.startswith(">") else "below"
        return name, False, (f"full strength scored {'all' if side == 'above' else 'none'} of "
                             f"its {games} anchor games (rating {bound}): add an anchor {side} "
                             "it to measure it")
    distance = abs(measured.elo - declared) / measured.se
    return (name, distance <= k,
            f"full strength measures {measured.elo:.0f} ± {measured.halfwidth:.0f} in {games} "
            f"anchor games; the declared top {declared:.0f} is {distance:.1f} SE from it "
            f"(accept <= {k:g})")
