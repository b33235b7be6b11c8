"""Which anchors a level plays: those it should score 25–75 % against (elo_limit §5, step 1).

Pure arithmetic on ratings. At extreme scores the information per game collapses (§5: the SE at
90 % is about 1.9 times that at 50 %), so a level plays only anchors within the score window of
its current estimate; a level with none plays its nearest anchor, since levels are placed by their
anchor games alone (`lab.calibration.measure`). "§5" is §5 of
docs/reference/elo_limit.md (the suggested acceptance test for an Elo-calibration lab).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def expected_score(diff: float) -> float:
    """Logistic expectancy 1/(1 + 10^(−Δ/400)) of a player Δ Elo stronger (§5, step 3)."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def score_window_elo(low: float = 0.25, high: float = 0.75) -> tuple[float, float]:
    """The Elo differences (Δ_low, Δ_high) that give expected scores `low` and `high`."""
    def diff(p: float) -> float:
        return -400.0 * math.log10(1.0 / p - 1.0)

    return diff(low), diff(high)


def anchors_for(estimate: float, anchors: Mapping[str, float], low: float = 0.25,
                high: float = 0.75, most: int = 3) -> list[str]:
    """Anchors whose expected score for a level rated `estimate` lies in [low, high].

    Nearest first, at most `most` of them (§5 asks for about three across T ± 200).
    """
    inside = [(abs(estimate - r), name) for name, r in anchors.items()
              if low <= expected_score(estimate - r) <= high]
    return [name for _, name in sorted(inside)[:most]]


def nearest_anchor(estimate: float, anchors: Mapping[str, float]) -> str:
    """The anchor rated closest to `estimate`."""
    return min(anchors, key=lambda name: (abs(estimate - anchors[name]), name))


def choose_anchors(estimates: Sequence[float], anchors: Mapping[str, float], low: float = 0.25,
                   high: float = 0.75, most: int = 3) -> list[list[str]]:
    """For each level (by its estimate), the anchors it plays: those in the score window, or
    its nearest one, so that every level is placed by anchor games (`lab.calibration.measure`).
    """
    if not anchors:
        raise ValueError("a calibration needs at least one anchor")
    return [anchors_for(e, anchors, low, high, most) or [nearest_anchor(e, anchors)]
            for e in estimates]


def performance(scores: Sequence[tuple[float, float, int]], clip: float = 0.05) -> float:
    """A level's performance rating from (opponent rating, score fraction, games) results.

    Each opponent gives rating + 400·log10(s/(1 − s)) (the logistic expectancy inverted), with s
    kept within [clip, 1 − clip] so that a perfect score gives a finite, cautious estimate;
    the results are averaged weighted by games. Used only to choose anchors when a first fit
    is impossible (levels not yet tied to the anchors).
    """
    total = sum(n for _, _, n in scores)
    if total == 0:
        raise ValueError("no games to rate")
    value = 0.0
    for rating, score, games in scores:
        s = min(max(score, clip), 1.0 - clip)
        value += games * (rating + 400.0 * math.log10(s / (1.0 - s)))
    return value / total
