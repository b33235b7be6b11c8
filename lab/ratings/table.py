"""The result of a rating fit: plain standings columns, Ordo-like text, and the frames built from
them on first use (ratings, LOS, head to head), so printing a table never loads pandas."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lab.ratings.pool import Pool

if TYPE_CHECKING:
    import pandas as pd


def difference_sd(cov: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Standard deviation of R_i − R_j from the ratings' covariance (element-wise over i, j)."""
    return np.sqrt(np.maximum(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))


def superiority(ratings: np.ndarray, cov: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """LOS(i, j) = Φ((R_i − R_j)/sd(R_i − R_j)) (BayesElo's `los`, Ordo's CFS; reference §5 of
    docs/reference/harness_and_stats.md), element-wise over the index arrays i, j."""
    from scipy.special import ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        return ndtr((ratings[i] - ratings[j]) / difference_sd(cov, i, j))


@dataclass(eq=False)
class RatingTable:
    """Ratings with their intervals, and what the fit found about colours and draws.

    `standings` holds the columns (arrays and lists), one entry per player, best first: rank,
    player, rating, error (half-width of the `confidence` interval; NaN for the anchor and for
    bounds), lower, upper, bound (">" a floor for a perfect winner, "<" a ceiling for a perfect
    loser, "" otherwise), points, played, score (%), draws (%), cfs_next (%, likelihood that the
    player is better than the next one); `frame` is them as a DataFrame.
    `los` is the likelihood-of-superiority matrix (row better than column), `head_to_head` one row
    per player and opponent that met; the three frames are built on first access from `pool`,
    `ratings` (per pool player) and `cov` (their covariance). `white` and `draw` are
    (value, error) pairs: the white advantage in rating points and the draw rate between equal
    opponents; `drawelo` is BayesElo's draw parameter (None for Ordo's model).
    """

    standings: dict[str, np.ndarray | list]
    model: str
    white: tuple[float, float]
    draw: tuple[float, float]
    confidence: float
    error_source: str
    relative_to: str
    pool: Pool = field(repr=False)
    ratings: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    groups: list[list[str]] = field(default_factory=list)
    drawelo: tuple[float, float] | None = None
    notes: list[str] = field(default_factory=list)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The standings as a frame, one row per player, best first."""
        import pandas as pd

        return pd.DataFrame(self.standings)

    @cached_property
    def los(self) -> pd.DataFrame:
        """LOS(row player better than column player), NaN on the diagonal."""
        import pandas as pd

        every = np.arange(self.pool.n)
        los = superiority(self.ratings, self.cov, every[:, None], every[None, :])
        np.fill_diagonal(los, np.nan)
        return pd.DataFrame(los, index=self.pool.players, columns=self.pool.players)

    @cached_property
    def head_to_head(self) -> pd.DataFrame:
        """One row per player and opponent that met: results from the player's side, CFS."""
        import pandas as pd

        real = self.pool
        w, b = real.white, real.black
        frame = pd.DataFrame({
            "i": np.concatenate([w, b]), "j": np.concatenate([b, w]),
            "wins": np.concatenate([real.wins, real.losses]),
            "draws": np.concatenate([real.draws, real.draws]),
            "losses": np.concatenate([real.losses, real.wins]),
        }).groupby(["i", "j"], as_index=False).sum()
        i, j = frame["i"].to_numpy(), frame["j"].to_numpy()
        games = frame[["wins", "draws", "losses"]].sum(axis=1)
        names = np.array(real.players, dtype=object)
        return pd.DataFrame({
            "player": names[i], "opponent": names[j], "games": games.astype(int),
            "wins": frame["wins"].astype(int), "draws": frame["draws"].astype(int),
            "losses": frame["losses"].astype(int),
            "score": 100 * (frame["wins"] + frame["draws"] / 2) / games,
            "diff": self.ratings[i] - self.ratings[j], "diff_sd": difference_sd(self.cov, i, j),
            "cfs": 100 * superiority(self.ratings, self.cov, i, j),
        })

    def to_csv(self, path: str | Path) -> None:
        """Write `frame` as CSV (one row per player)."""
        self.frame.to_csv(path, index=False, float_format="%.2f")

    def rating(self, player: str) -> float:
        """One player's rating (KeyError for a player not in the table)."""
        players = list(self.standings["player"])
        if player not in players:
            raise KeyError(player)
        return float(self.standings["rating"][players.index(player)])

    def __str__(self) -> str:
        columns = self.standings
        width = max([len("PLAYER")] + [len(p) for p in columns["player"]])
        pct = round(100 * self.confidence)
        lines = [
            f"   # {'PLAYER':<{width}} :  RATING  ERROR   POINTS  PLAYED    (%)   D(%)  CFS(%)",
        ]
        rows = zip(*(columns[name] for name in ("rank", "player", "rating", "error", "bound",
                                                "points", "played", "score", "draws",
                                                "cfs_next")), strict=True)
        for rank, player, rating, error, bound, points, played, score, draws, cfs_next in rows:
            shown = f"{bound or ' '}{rating:7.1f}"
            err = "   ----" if math.isnan(error) else f"{error:7.1f}"
            cfs = "    ---" if math.isnan(cfs_next) else f"{cfs_next:7.0f}"
            lines.append(
                f"{rank:4d} {player:<{width}} : {shown} {err} {points:8.1f} "
                f"{played:7d} {score:6.1f} {draws:6.1f} {cfs}"
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
