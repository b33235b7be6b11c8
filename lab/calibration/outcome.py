"""What a calibration measured: each round's result and the outcome of the whole calibration.

Plain records shared by the run (which fills them), the table writer and the report (which read
them), so that none of those imports another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

import pandas as pd

from lab.calibration.config import Calibration
from lab.calibration.correct import Correction
from lab.calibration.criteria import Verdict
from lab.calibration.speeds import AnchorSpeed
from lab.ratings import RatingTable


@dataclass
class RoundResult:
    """One measured round: what each level played with, what it measured, the verdict, and the
    corrected table written for the next round (None when the round passed), and each anchor's
    speed in the round's games beside the speed it was rated at (`speeds`)."""

    number: int
    folder: Path
    levels: list[int]
    params: dict[int, dict[str, float]]
    table_played: Path | None
    measured: pd.DataFrame
    ratings: RatingTable
    """The fit of the round's anchor games, which places the levels (`measure.RoundFits`)."""
    verdict: Verdict
    correction: Correction | None = None
    corrected: Path | None = None
    speeds: list[AnchorSpeed] = field(default_factory=list)
    with_ladder: RatingTable | None = None
    """The fit with the ladder's games too: its head-to-head scores judge E, its ratings are a
    diagnostic (None without a ladder)."""

    def ladder_scores(self) -> pd.DataFrame:
        """Head-to-head scores (%) and games by (player, opponent) from `with_ladder` (empty
        without a ladder): the ladder pairs' results."""
        played = (self.with_ladder.head_to_head if self.with_ladder is not None
                  else pd.DataFrame(columns=["player", "opponent", "score", "games"]))
        return played.set_index(["player", "opponent"])


@dataclass(frozen=True)
class AnchorRating:
    """One anchor after the anchor round robin: the rating the file declares, the one measured
    among the anchors (NaN when not measured), its 95 % half-width (NaN for the pinned anchor,
    whose rating is the scale's fixed point), games and score (%), and why it is unmeasured
    when it is ("bound": a perfect score; "apart": no results both ways with the pinned
    anchor's group)."""

    name: str
    declared: float
    measured: float
    halfwidth: float
    games: int
    score: float
    pinned: bool
    unmeasured: str = ""
    nps: float = math.nan
    """The median nodes per second it reported over its moves in the anchor stages (NaN when it
    reported none): a clock-playing anchor is as strong as it is fast, so the scale holds at
    these speeds."""


@dataclass(frozen=True)
class FullStrength:
    """Full strength (the calibrated engine without its limit) rated against the anchors: the
    declared top of the range (NaN for an engine that declares none), the rating (NaN for a
    perfect score, whose Ordo bound is `bound`, '>1790'), its 95 % half-width, games, score (%)
    and the anchors it played; `nps`, the median nodes per second it searched at (NaN when its
    moves report none): full strength's rating holds at that speed only."""

    declared: float
    measured: float
    halfwidth: float
    bound: str
    games: int
    score: float
    anchors: tuple[str, ...]
    nps: float = math.nan


@dataclass
class CalibrationOutcome:
    """All rounds, the table to use, and whether it was measured to pass."""

    anchors: list[AnchorRating] = field(default_factory=list)
    full_strength: FullStrength | None = None
    rounds: list[RoundResult] = field(default_factory=list)
    final: Path | None = None
    passed: bool = False
    problem: str = ""
    files: list[Path] = field(default_factory=list)


def anchor_range(cal: Calibration) -> tuple[float, float]:
    """The lowest and the highest rating of the anchors the levels play."""
    values = list(cal.opponent_ratings.values())
    return min(values), max(values)


def extrapolated_targets(cal: Calibration, correction: Correction) -> list[int]:
    """Rows of a correction whose target lies outside the anchors' range ± the margin."""
    low, high = anchor_range(cal)
    margin = cal.thresholds.anchor_margin
    return [t for t in sorted(correction.rows) if not low - margin <= t <= high + margin]


def ends_at_full_strength(full: FullStrength | None, cal: Calibration
                          ) -> TypeGuard[FullStrength]:
    """Whether the correction's curve ends at full strength: for our engine, once stage U has
    rated it (a perfect score gives only a bound, not a point)."""
    return cal.uses_table and full is not None and math.isfinite(full.measured)
