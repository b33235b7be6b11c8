"""Plots of a results folder, written as PNG (default) or SVG: pure functions of DataFrames.

Each plot has a `*_figure` builder that returns the matplotlib Figure (for tests and notebooks)
and a `plot_*` function that writes it to a path and returns the path. Modules:

- `time_usage`: many games, time used and nodes per move, fraction of the clock used;
- `game`: one game, budget against time used, clocks, the smooth manager's estimates;
- `ratings`: a rating table with error bars;
- `score`: a gauntlet's running score with its interval;
- `figures`: the Agg figure, saving, and labels shared by the above.

The calibration plot (measured against nominal Elo) lives with the calibration, in
`lab.calibration.plot`, and uses `figures` from here.
"""

from lab.plots.game import game_time_figure, plot_game_time
from lab.plots.ratings import plot_ratings, ratings_figure
from lab.plots.score import plot_score_over_time, score_over_time_figure
from lab.plots.time_usage import plot_time_usage, time_usage_figure

__all__ = [
    "game_time_figure",
    "plot_game_time",
    "plot_ratings",
    "plot_score_over_time",
    "plot_time_usage",
    "ratings_figure",
    "score_over_time_figure",
    "time_usage_figure",
]
