"""Ratings with their error bars, one row per player, best at the top."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lab.plots.figures import new_figure, numeric, require_columns, save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def rating_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """player, rating, and the distances below and above it to the interval ends, best first.

    The interval is `lower`..`upper` when the table has them, else ± `error`; a table with
    neither, or a row without finite ones (the anchor), gets no bars (zero distances). `bound`
    is carried over (">" a floor for a perfect winner, "<" a ceiling for a perfect loser).
    """
    require_columns(frame, ["player", "rating"], "ratings")
    if frame.empty:
        raise ValueError("the ratings table is empty")
    rating = numeric(frame, "rating")
    if {"lower", "upper"} <= set(frame.columns):
        below, above = rating - numeric(frame, "lower"), numeric(frame, "upper") - rating
    elif "error" in frame.columns:
        below = above = numeric(frame, "error")
    else:
        below = above = pd.Series(0.0, index=frame.index)
    out = pd.DataFrame(
        {
            "player": frame["player"].astype(str),
            "rating": rating,
            "below": below.where(np.isfinite(below), 0.0).clip(lower=0.0),
            "above": above.where(np.isfinite(above), 0.0).clip(lower=0.0),
            "bound": frame["bound"].fillna("").astype(str) if "bound" in frame.columns else "",
        }
    )
    return out.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


def ratings_figure(frame: pd.DataFrame, title: str = "Ratings with error bars") -> Figure:
    """Horizontal error-bar chart of a rating table (columns player, rating, lower/upper or error).

    Each row is labelled with its rating and the interval's half-widths, so the figure reads
    without the table. A rating that is only a bound (perfect score) gets an arrow marker
    pointing the way the true rating lies. Players without a finite rating (a fit that found
    none, as for a pool of perfect scores) are listed as "no rating"; a ValueError if no player
    has one.
    """
    table = rating_intervals(frame)
    rated = np.isfinite(table["rating"]).to_numpy()
    if not rated.any():
        raise ValueError(
            "no player has a finite rating (perfect scores give only bounds): play more games"
        )
    fig = new_figure(10, 1.6 + 0.45 * len(table))
    ax = fig.subplots()
    y = np.arange(len(table))[::-1]
    finite = table[rated]
    ax.errorbar(
        finite["rating"], y[rated], xerr=[finite["below"], finite["above"]], fmt="o",
        color="C0", ecolor="C0", capsize=4, markersize=6, label="rating with interval",
    )
    for marker, bound in ((">", ">"), ("<", "<")):
        rows = (finite["bound"] == bound).to_numpy()
        if rows.any():
            ax.plot(finite["rating"][rows], y[rated][rows], marker, color="C3",
                    markersize=10, linestyle="none", label=f"bound ({bound} rating)")
    low = (finite["rating"] - finite["below"]).min()
    high = (finite["rating"] + finite["above"]).max()
    for yi, row in zip(y, table.itertuples(), strict=True):
        if not np.isfinite(row.rating):
            ax.annotate("no rating", (low, yi), va="center", fontsize="small", color="0.4")
            continue
        text = f"{row.bound}{row.rating:.0f}"
        if row.below or row.above:
            text += f" (−{row.below:.0f}/+{row.above:.0f})"
        ax.annotate(text, (row.rating + row.above, yi), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize="small")
    ax.set_yticks(y, table["player"])
    ax.set_ylim(-0.7, len(table) - 0.3)
    span = high - low
    ax.set_xlim(low - 0.08 * span - 10, high + 0.3 * span + 40)
    ax.set_xlabel("rating (Elo)")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3, axis="x")
    return fig


def plot_ratings(
    rating_frame: pd.DataFrame, path: str | Path, title: str = "Ratings with error bars"
) -> Path:
    """Write the ratings chart of `rating_frame` to `path` (.png or .svg); returns the path."""
    return save_figure(ratings_figure(rating_frame, title), path)
