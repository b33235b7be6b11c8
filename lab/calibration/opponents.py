"""Each level's result against each anchor it met, beside the score its fitted rating predicts.

A level's rating is one fit over all the anchors it played. An anchor whose play the level
handles much worse or better than the others' (a clash of styles: the ratings are not
transitive; or an anchor on the clock playing at another speed than it was rated at, which
`speeds` shows) pulls that rating without showing in it; listing every (level, anchor) pair with
the predicted score, the distance in standard errors and the rating the pair alone implies shows
which anchors pull. A diagnostic printed beside the criteria, not one of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from lab.calibration.criteria import family_se, score_se
from lab.ratings.models import OrdoModel

#: The fit's model (`measure.fit_folders` fits Ordo's default: 202 points for 76 %), whose
#: expectancy f = 1/(1 + e^(−βΔ)) predicts the scores and, inverted, gives the implied ratings.
MODEL = OrdoModel()
#: A perfect score counts as this (or 1 − it) in the implied rating, which is then a bound.
PERFECT_CLIP = 0.05


@dataclass(frozen=True)
class OpponentResult:
    """One level against one anchor: results from the level's side, its score (fraction), the
    score the fitted ratings predict (the fit's expectancy of their difference), that distance
    in standard errors, and the rating the pair alone implies (the anchor's rating plus the
    expectancy inverted; a perfect score counts as 5 % or 95 %, and the rating is a bound)."""

    level: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    predicted: float
    z: float
    implied: float

    @property
    def perfect(self) -> bool:
        return self.wins == self.games or self.losses == self.games


def opponent_results(head_to_head: pd.DataFrame, levels: Sequence[str],
                     ratings: Mapping[str, float]) -> list[OpponentResult]:
    """Every pair of a level in `levels` and an anchor in `ratings` (name to the rating the fit
    held fixed) that met, from a fit's `RatingTable.head_to_head`, in the order of `levels`,
    then of the anchors' ratings.

    The z score is the score test of criterion E (`criteria.transitivity_line`): the binomial
    error at the predicted score, with the fit's error of the rating difference carried through
    the expectancy's slope; NaN for a level the fit gives only a bound.
    """
    rows = head_to_head[head_to_head["player"].isin(levels)
                        & head_to_head["opponent"].isin(list(ratings))]
    order = {name: i for i, name in enumerate(levels)}
    rows = rows.assign(level_order=rows["player"].map(order),
                       anchor_rating=rows["opponent"].map(dict(ratings)))
    results = []
    for row in rows.sort_values(["level_order", "anchor_rating"]).itertuples(index=False):
        games = int(row.games)
        score = float(row.score) / 100.0
        predicted = float(MODEL.expectancy(float(row.diff)))
        slope = MODEL.beta * predicted * (1.0 - predicted)
        se = math.hypot(score_se(predicted, games), slope * float(row.diff_sd))
        clipped = min(max(score, PERFECT_CLIP), 1.0 - PERFECT_CLIP)
        implied = float(row.anchor_rating) + math.log(clipped / (1.0 - clipped)) / MODEL.beta
        results.append(OpponentResult(
            str(row.player), str(row.opponent), games, int(row.wins), int(row.draws),
            int(row.losses), score, predicted, (score - predicted) / se, implied))
    return results


#: What the per-anchor table shows, in the report and on the page.
INTRO = ("Per anchor (a diagnostic, not a criterion): each level's score against each anchor it "
         "met, the score its fitted rating predicts, the distance in standard errors, and the "
         "rating that anchor's games alone imply.")


def opponent_rows(results: Sequence[OpponentResult]) -> tuple[list[str], list[list[str]]]:
    """The table of `opponent_results`: its headings and one row of text per pair."""
    head = ["level", "anchor", "games", "+W −L =D", "score %", "predicted %", "SE", "implied"]
    rows = []
    for r in results:
        implied = ("≥ " if r.wins == r.games else "≤ " if r.perfect else "") + f"{r.implied:.0f}"
        predicted, z = ((f"{100 * r.predicted:.1f}", f"{r.z:+.1f}") if math.isfinite(r.z)
                        else ("—", "—"))
        rows.append([r.level, r.opponent, str(r.games), f"+{r.wins} −{r.losses} ={r.draws}",
                     f"{100 * r.score:.1f}", predicted, z, implied])
    return head, rows


def beyond_text(results: Sequence[OpponentResult], k: float = 2.0) -> str:
    """Which pairs lie further from their prediction than `family_se(k, pairs)` standard errors
    (the false-alarm rate of one check at `k` SE over them all), furthest first, or "none"."""
    limit = family_se(k, len(results))
    far = [f"{r.level} vs {r.opponent} ({r.z:+.1f} SE)"
           for r in sorted(results, key=lambda r: -abs(r.z)) if abs(r.z) > limit]
    return (f"Beyond {limit:.2f} SE ({k:g} SE's false-alarm rate over {len(results)} pairs): "
            + (", ".join(far) if far else "none") + ".")
