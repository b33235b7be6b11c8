"""The result of a rating fit: a ratings frame, LOS and head-to-head tables, Ordo-like text."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass
class RatingTable:
    """Ratings with their intervals, and what the fit found about colours and draws.

    `frame` has one row per player, best first: rank, player, rating, error (half-width of the
    `confidence` interval; NaN for the anchor and for bounds), lower, upper, bound (">" a floor
    for a perfect winner, "<" a ceiling for a perfect loser, "" otherwise), points, played,
    score (%), draws (%), cfs_next (%, likelihood that the player is better than the next one).
    `los` is the likelihood-of-superiority matrix (row better than column), `head_to_head` one row
    per player and opponent that met. `white` and `draw` are (value, error) pairs: the white
    advantage in rating points and the draw rate between equal opponents; `drawelo` is BayesElo's
    draw parameter (None for Ordo's model).
    """

    frame: pd.DataFrame
    los: pd.DataFrame
    head_to_head: pd.DataFrame
    model: str
    white: tuple[float, float]
    draw: tuple[float, float]
    confidence: float
    error_source: str
    relative_to: str
    groups: list[list[str]] = field(default_factory=list)
    drawelo: tuple[float, float] | None = None
    notes: list[str] = field(default_factory=list)

    def to_csv(self, path: str | Path) -> None:
        """Write `frame` as CSV (one row per player)."""
        self.frame.to_csv(path, index=False, float_format="%.2f")

    def rating(self, player: str) -> float:
        """One player's rating."""
        return float(self.frame.set_index("player").loc[player, "rating"])

    def __str__(self) -> str:
        width = max([len("PLAYER")] + [len(p) for p in self.frame["player"]])
        pct = round(100 * self.confidence)
        lines = [
            f"   # {'PLAYER':<{width}} :  RATING  ERROR   POINTS  PLAYED    (%)   D(%)  CFS(%)",
        ]
        for row in self.frame.itertuples(index=False):
            rating = f"{row.bound or ' '}{row.rating:7.1f}"
            error = "   ----" if math.isnan(row.error) else f"{row.error:7.1f}"
            cfs = "    ---" if math.isnan(row.cfs_next) else f"{row.cfs_next:7.0f}"
            lines.append(
                f"{row.rank:4d} {row.player:<{width}} : {rating} {error} {row.points:8.1f} "
                f"{row.played:7d} {row.score:6.1f} {row.draws:6.1f} {cfs}"
            )
        white, white_err = self.white
        draw, draw_err = self.draw
        lines += [
            "",
            f"White advantage = {white:.2f} +/- {_num(white_err)}",
            f"Draw rate (equal opponents) = {100 * draw:.2f} % +/- {_num(100 * draw_err)}",
        ]
        if self.drawelo is not None:
            lines.append(f"drawelo = {self.drawelo[0]:.2f} +/- {_num(self.drawelo[1])}")
        lines.append(
            f"Errors: {pct} % intervals from the {self.error_source}, relative to the "
            f"{self.relative_to}; '>' and '<' mark bounds for perfect scores."
        )
        lines += self.notes
        return "\n".join(lines)


def _num(value: float) -> str:
    return "----" if math.isnan(value) else f"{value:.2f}"
