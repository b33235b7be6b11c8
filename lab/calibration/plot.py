"""The calibration plot: measured against nominal Elo with 95 % intervals and the y = x line.

One series per measured round (round 1 "before correction", later rounds "after"), levels outside
the anchors' range ± 200 drawn hollow (extrapolations, docs/reference/elo_limit.md §5 G), levels
with
only a bound (a perfect score against the anchors) as a triangle pointing the way the truth lies,
and the anchors' ratings as a shaded band.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lab.plots.figures import new_figure, save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = ("tab:red", "tab:blue", "tab:green", "tab:purple", "tab:orange")


def _targets(frame: pd.DataFrame) -> np.ndarray:
    """A round's x values: its `target` column, else (a frame written before it) `nominal`."""
    return frame["target" if "target" in frame else "nominal"].to_numpy(float)


def calibration_figure(rounds: Sequence[tuple[str, pd.DataFrame]],
                       anchors: Sequence[tuple[str, float]],
                       title: str = "Elo calibration") -> Figure:
    """Target (x) against measured (y) per round; frames need nominal, measured, halfwidth and
    (optionally) target and extrapolated columns, as `measured.csv` has them. The target is the
    nominal Elo unless the frame's `target` says otherwise (a pinned top level's)."""
    if not rounds:
        raise ValueError("no measured rounds to plot")
    fig = new_figure(7.5, 6.0)
    ax = fig.add_subplot()
    every = pd.concat([frame for _, frame in rounds])
    bounds = every["bound_rating"].dropna().to_numpy(float) if "bound_rating" in every else []
    targets = np.concatenate([_targets(frame) for _, frame in rounds])
    values = np.r_[targets, every["measured"].dropna().to_numpy(float), bounds,
                   [r for _, r in anchors]]
    low, high = float(np.nanmin(values)) - 100, float(np.nanmax(values)) + 100
    ax.plot([low, high], [low, high], color="grey", linestyle="--", linewidth=1, label="y = x")
    if anchors:
        ratings = [r for _, r in anchors]
        ax.axhspan(min(ratings) - 200, max(ratings) + 200, color="0.92", zorder=0,
                   label="anchors ± 200 (measured range)")
        for name, rating in anchors:
            ax.axhline(rating, color="0.75", linewidth=0.8, zorder=0)
            ax.annotate(name, (high, rating), fontsize=7, color="0.4", va="bottom", ha="right")
    for i, (label, frame) in enumerate(rounds):
        colour = COLOURS[i % len(COLOURS)]
        shift = 8 * (i - (len(rounds) - 1) / 2)  # side by side when rounds share levels
        x = _targets(frame) + shift
        y = frame["measured"].to_numpy(float)
        err = frame["halfwidth"].fillna(0).to_numpy(float)
        outside = (frame["extrapolated"].fillna("").astype(str) != "").to_numpy() \
            if "extrapolated" in frame else np.zeros(len(frame), bool)
        ax.errorbar(x, y, yerr=err, fmt="none", ecolor=colour, capsize=3, linewidth=1)
        ax.plot(x, y, color=colour, linewidth=0.8, alpha=0.6)
        if (~outside).any():
            ax.scatter(x[~outside], y[~outside], color=colour, zorder=3, label=label)
        if outside.any():
            ax.scatter(x[outside], y[outside], facecolors="white", edgecolors=colour, zorder=3,
                       label=f"{label}: extrapolated")
        if "bound_rating" in frame and "bound" in frame:
            marks = frame["bound"].fillna("").astype(str).str[:1].to_numpy()
            bounds = frame["bound_rating"].to_numpy(float)
            for mark, marker, word in (("<", "v", "at most"), (">", "^", "at least")):
                show = (marks == mark) & np.isnan(y) & np.isfinite(bounds)
                if show.any():
                    ax.scatter(x[show], bounds[show], marker=marker, color=colour, zorder=3,
                               label=f"{label}: bound ({word})")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal")
    ax.set_xlabel("target Elo (the level's name; a pinned top: full strength's rating)")
    ax.set_ylabel("measured Elo (95 % interval)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", framealpha=0.9)
    return fig


def plot_calibration(rounds: Sequence[tuple[str, pd.DataFrame]],
                     anchors: Sequence[tuple[str, float]], path: str | Path,
                     title: str = "Elo calibration") -> Path:
    """Write the calibration plot to `path` (PNG or SVG) and return it."""
    return save_figure(calibration_figure(rounds, anchors, title), path)
