"""A gauntlet's score over time: the challenger's running score with its 95 % interval.

The running estimate after each finished game is `lab.stats.elo_estimate` of the trinomial
counts so far (docs/reference/harness_and_stats.md §4.2: μ̂ ± 1.96·σ̂/√N, mapped to Elo), drawn
as a score with a second axis in Elo. Against several opponents, thin lines show the running
score against each.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lab.plots.figures import new_figure, require_columns, save_figure
from lab.stats import elo_estimate, logistic_score, player_scores, score_to_elo, trinomial

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def gauntlet_challenger(games: pd.DataFrame) -> str:
    """The player in every game (the gauntlet's challenger); between two players, the first
    game's White. A ValueError if no player is in every game."""
    require_columns(games, ["white", "black"], "games")
    if games.empty:
        raise ValueError("no games to find the challenger in")
    players = set(games["white"]) | set(games["black"])
    everywhere = sorted(
        p for p in players if ((games["white"] == p) | (games["black"] == p)).all()
    )
    if not everywhere:
        raise ValueError(
            f"no player is in every game (players: {', '.join(sorted(players))}); name one"
        )
    if len(everywhere) == 1:
        return everywhere[0]
    return str(games["white"].iloc[0])


def running_score(games: pd.DataFrame, challenger: str) -> pd.DataFrame:
    """Per decided game of `challenger`, in finishing order: its opponent, its score, and the
    running score with the 95 % interval (as scores and as Elo) over the games so far."""
    require_columns(games, ["white", "black", "result"], "games")
    order = [c for c in ("finished_at", "game_id") if c in games.columns]
    ordered = (games.sort_values(order, kind="stable") if order else games).reset_index(drop=True)
    scores = player_scores(ordered, challenger)
    if scores.empty:
        raise ValueError(f"no decided games of {challenger!r} to plot")
    rows = ordered.loc[scores.index]
    opponent = rows["black"].where(rows["white"] == challenger, rows["white"])
    running = [elo_estimate(trinomial(scores.iloc[: k + 1])) for k in range(len(scores))]
    return pd.DataFrame(
        {
            "game": np.arange(1, len(scores) + 1),
            "opponent": opponent.astype(str).to_numpy(),
            "points": scores.to_numpy(),
            "score": scores.expanding().mean().to_numpy(),
            "score_lower": [logistic_score(e.lower) for e in running],
            "score_upper": [logistic_score(e.upper) for e in running],
            "elo": [e.elo for e in running],
            "elo_lower": [e.lower for e in running],
            "elo_upper": [e.upper for e in running],
        }
    )


def score_over_time_figure(games: pd.DataFrame, challenger: str) -> Figure:
    """The challenger's running score over its games (see the module docstring) as a Figure."""
    table = running_score(games, challenger)
    fig = new_figure(11, 6)
    ax = fig.subplots()
    ax.axhline(0.5, color="0.5", linewidth=1, linestyle="--", label="even score")
    ax.fill_between(table["game"], table["score_lower"], table["score_upper"], color="C0",
                    alpha=0.2, label="95 % interval")
    ax.plot(table["game"], table["score"], "-o", color="C0", linewidth=2, markersize=3,
            label=f"{challenger}: running score")
    opponents = sorted(table["opponent"].unique())
    if len(opponents) > 1:
        for i, opponent in enumerate(opponents, start=1):
            mine = table[table["opponent"] == opponent]
            ax.plot(mine["game"], mine["points"].expanding().mean(), color=f"C{i % 10}",
                    linewidth=1, alpha=0.8, label=f"vs {opponent}")
    ax.set_xlim(0.5, len(table) + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"games played by {challenger}")
    ax.set_ylabel("score (points per game)")
    elo_axis = ax.secondary_yaxis(
        "right", functions=(np.vectorize(score_to_elo), np.vectorize(logistic_score))
    )
    elo_axis.set_yticks([-400, -200, -100, 0, 100, 200, 400])
    elo_axis.set_ylabel("Elo difference")
    # + 0.0 turns −0.0 into 0.0 for printing
    score, elo, lower, upper = table[["score", "elo", "elo_lower", "elo_upper"]].iloc[-1] + 0.0
    ax.set_title(
        f"{challenger}: score over time, {len(table)} games; now {score:.3f} "
        f"({elo:+.0f} Elo, 95 % {lower:+.0f} … {upper:+.0f})"
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return fig


def plot_score_over_time(games: pd.DataFrame, challenger: str, path: str | Path) -> Path:
    """Write the challenger's score-over-time plot to `path` (.png or .svg); returns the path."""
    return save_figure(score_over_time_figure(games, challenger), path)
