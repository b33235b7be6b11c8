"""How engines and time managers spend the clock over many games.

Four panels: time used per move number (mean line, interquartile band, and for time managers
with telemetry their mean budget, dashed), the fraction of the available time used by the end of
each game, nodes per move against move number, and the spread of nodes per move within each game
side (coefficient of variation over its first 40 moves: the smooth manager's seed asks for the
same tree size at every move). One line per engine, or per engine and time manager when the
engine reports its manager (`tm_tm`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lab.plots.figures import (
    log_scale_if_wide,
    move_numbers,
    new_figure,
    numeric,
    player_labels,
    require_columns,
    save_figure,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Quantiles drawn as the spread band around the mean.
SPREAD = (0.25, 0.75)

_MOVE_COLUMNS = ["game_id", "engine", "ply", "elapsed_ms"]
#: Where the panels sit in the 16 × 9 in figure (fractions of it): room for the title, the
#: axis labels and five-digit tick labels, as constrained layout placed them.
_MARGINS = {"left": 0.045, "right": 0.99, "bottom": 0.075, "top": 0.925, "wspace": 0.2,
            "hspace": 0.22}
#: The longest box-panel tick label (engine [manager]) the fixed margins hold: its slant must stay
#: above the figure's bottom edge. Labels also share a panel's ~4.6 in, ~0.07 in a character.
_FIXED_LABEL_CHARS = 22


def _fixed_layout_fits(labels: list[str]) -> bool:
    """Whether the box panels' tick labels fit `_MARGINS`; else the figure is laid out by
    constrained layout, which measures every text (about 0.3 s more for the report page)."""
    return max(map(len, labels)) <= min(_FIXED_LABEL_CHARS, 66 // len(labels))


def _labels(moves: pd.DataFrame) -> pd.Series:
    """Each move's line label: the `label` column `time_usage_figure` adds (labels are made once
    per figure: joining strings for 100k moves six times was a fifth of drawing it), else
    `player_labels`."""
    return moves["label"] if "label" in moves.columns else player_labels(moves)


def per_move_stats(moves: pd.DataFrame, column: str) -> pd.DataFrame:
    """Mean, quartiles and count of `column` per (label, move number), over all games.

    `moves` has a `move_number` column (`move_numbers`). Rows where `column` is missing are
    left out, so engines that do not report it vanish.
    """
    frame = pd.DataFrame(
        {
            "label": _labels(moves),
            "move": moves["move_number"],
            "value": numeric(moves, column),
        }
    ).dropna(subset=["value"])
    grouped = frame.groupby(["label", "move"])["value"]
    stats = grouped.agg(["mean", "count"])
    stats["low"] = grouped.quantile(SPREAD[0])
    stats["high"] = grouped.quantile(SPREAD[1])
    return stats.reset_index()


def fraction_of_time_used(moves: pd.DataFrame) -> pd.DataFrame:
    """Per game and side, the fraction of the time it had that it used by the end of the game.

    Time available = time used + clock left after its last move: this counts the starting clock
    and every increment or moves-to-go refill it received. Sides without clock data (fixed-nodes
    or fixed-time games) are left out.
    """
    frame = pd.DataFrame(
        {
            "game_id": moves["game_id"],
            "label": _labels(moves),
            "side": moves["side"] if "side" in moves.columns else moves["engine"],
            "ply": moves["ply"].astype(int),
            "used": numeric(moves, "elapsed_ms"),
            "left": numeric(moves, "clock_after_ms"),
        }
    ).sort_values(["game_id", "ply"])
    per_side = frame.groupby(["game_id", "side"]).agg(
        label=("label", "last"), used=("used", "sum"), left=("left", "last")
    )
    per_side = per_side.dropna(subset=["left"])
    available = per_side["used"] + per_side["left"].clip(lower=0.0)
    per_side["fraction"] = (per_side["used"] / available).where(available > 0)
    return per_side.dropna(subset=["fraction"]).reset_index()


CV_MOVES = 40
"""Moves of each game side whose node counts make the spread (issue 16's measure)."""


def nodes_spread(moves: pd.DataFrame, first: int = CV_MOVES) -> pd.DataFrame:
    """Per game side, the coefficient of variation (std/mean) of nodes per move over its first
    `first` moves: columns game_id, side, label, cv; sides without positive node counts are
    left out."""
    frame = pd.DataFrame(
        {
            "game_id": moves["game_id"],
            "side": moves["side"] if "side" in moves.columns else moves["engine"],
            "label": _labels(moves),
            "ply": pd.to_numeric(moves["ply"], errors="coerce"),
            "nodes": numeric(moves, "nodes"),
        }
    ).dropna(subset=["ply", "nodes"])
    frame = frame.sort_values("ply").groupby(["game_id", "side"]).head(first)
    per_side = frame.groupby(["game_id", "side"]).agg(
        label=("label", "last"), std=("nodes", "std"), mean=("nodes", "mean")
    )
    per_side = per_side[per_side["mean"] > 0]
    per_side["cv"] = per_side["std"] / per_side["mean"]
    return per_side.dropna(subset=["cv"]).reset_index()[["game_id", "side", "label", "cv"]]


def _colours(labels: list[str]) -> dict[str, str]:
    """One colour of matplotlib's default cycle per label, stable across the panels."""
    return {label: f"C{i % 10}" for i, label in enumerate(labels)}


def _band_lines(
    ax: Axes, stats: pd.DataFrame, colours: dict[str, str], scale: float, style: str = "-"
) -> None:
    for label, group in stats.groupby("label", sort=True):
        colour = colours[label]
        ax.plot(group["move"], group["mean"] * scale, style, color=colour, label=label)
        ax.fill_between(
            group["move"], group["low"] * scale, group["high"] * scale, color=colour, alpha=0.2
        )


def _no_data(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")


def time_usage_figure(moves: pd.DataFrame, games: pd.DataFrame | None = None) -> Figure:
    """The many-games time summary (see the module docstring) as a Figure.

    `games`, when given, places each game's moves by its opening FEN's move number and names the
    time controls in the title.
    """
    from matplotlib.ticker import MaxNLocator

    require_columns(moves, _MOVE_COLUMNS, "moves")
    if moves.empty:
        raise ValueError("no moves to plot")
    moves = moves.assign(move_number=move_numbers(moves, games), label=player_labels(moves))
    labels = sorted(moves["label"].unique())
    fixed = _fixed_layout_fits(labels)
    fig = new_figure(16, 9, constrained=not fixed)
    colours = _colours(labels)
    grid = fig.add_gridspec(2, 3, height_ratios=[1.2, 1], **(_MARGINS if fixed else {}))
    ax_time = fig.add_subplot(grid[0, :])
    ax_frac = fig.add_subplot(grid[1, 0])
    ax_nodes = fig.add_subplot(grid[1, 1])
    ax_spread = fig.add_subplot(grid[1, 2])

    low, high = (int(q * 100) for q in SPREAD)
    _band_lines(ax_time, per_move_stats(moves, "elapsed_ms"), colours, 1e-3)
    budget = per_move_stats(moves, "tm_budget_ms")
    for label, group in budget.groupby("label", sort=True):
        ax_time.plot(
            group["move"], group["mean"] * 1e-3, "--", color=colours[label],
            label=f"{label}: budget",
        )
    title = f"Time used per move (line: mean, band: {low}th–{high}th percentile"
    ax_time.set_title(title + ("; dashed: mean budget)" if not budget.empty else ")"))
    ax_time.set_xlabel("move number")
    ax_time.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_time.set_ylabel("time used (s)")
    ax_time.set_ylim(bottom=0)
    ax_time.grid(alpha=0.3)
    ax_time.legend(loc="upper right", fontsize="small")

    _per_side_boxes(ax_frac, fraction_of_time_used(moves), "fraction", labels, colours,
                    "no clock data (fixed nodes or fixed time per move)")
    ax_frac.set_title("Fraction of the available time used by the end of the game")
    ax_frac.set_ylabel("fraction of available time used")
    ax_frac.set_ylim(0, 1.05)

    nodes = per_move_stats(moves, "nodes")
    ax_nodes.set_title("Nodes per move (mean, interquartile band)")
    ax_nodes.set_xlabel("move number")
    ax_nodes.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_nodes.set_ylabel("nodes")
    if nodes.empty or not (nodes["mean"] > 0).any():
        _no_data(ax_nodes, "no node counts reported")
    else:
        _band_lines(ax_nodes, nodes, colours, 1.0)
        log_scale_if_wide(ax_nodes, nodes["mean"])
        ax_nodes.legend(loc="best", fontsize="small")
    ax_nodes.grid(alpha=0.3, which="both")

    _per_side_boxes(ax_spread, nodes_spread(moves), "cv", labels, colours,
                    "no node counts reported")
    ax_spread.set_title(f"Spread of nodes per move (first {CV_MOVES} moves of each side)")
    ax_spread.set_ylabel("coefficient of variation (std / mean)")
    ax_spread.set_ylim(bottom=0)

    fig.suptitle(_summary_title(moves, games), fontsize="x-large")
    return fig


def _per_side_boxes(ax: Axes, frame: pd.DataFrame, column: str, labels: list[str],
                    colours: dict[str, str], empty_text: str) -> None:
    """A box per label of `column` (one value per game side), with the values jittered over it."""
    if frame.empty:
        _no_data(ax, empty_text)
        return
    from lab.plots.dots import dots

    present = [lb for lb in labels if lb in set(frame["label"])]
    data = [frame.loc[frame["label"] == lb, column].to_numpy() for lb in present]
    ax.boxplot(data, tick_labels=present, widths=0.5, showfliers=False)
    rng = np.random.default_rng(0)
    for i, (label, values) in enumerate(zip(present, data, strict=True), start=1):
        jitter = rng.uniform(-0.12, 0.12, size=len(values))
        dots(ax, i + jitter, values, colours[label], 0.7, f"{label} ({_games(len(values))})")
    ax.tick_params(axis="x", labelrotation=15)
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3, axis="y")


def _summary_title(moves: pd.DataFrame, games: pd.DataFrame | None) -> str:
    title = f"Time usage over {_games(moves['game_id'].nunique())}"
    if games is not None and "tc" in games.columns:
        controls = sorted(str(tc) for tc in games["tc"].dropna().unique() if str(tc))
        if controls:
            title += f" (time control {', '.join(controls)})"
    return title


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def plot_time_usage(moves: pd.DataFrame, games: pd.DataFrame | None, path: str | Path) -> Path:
    """Write the many-games time summary to `path` (.png or .svg); returns the path."""
    return save_figure(time_usage_figure(moves, games), path)
