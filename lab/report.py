"""What a finished (or stopped) run leaves beside its store: PGN, moves, ratings, plots, page.

Everything here is derived from the store alone, so it can be rewritten at any time (after a
resume, after a crash) and always agrees with it: `games.pgn` holds exactly the stored games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lab.export import PGN_NAME, write_games_pgn, write_moves_table
from lab.page.write import write_run_page
from lab.plots.time_usage import plot_time_usage
from lab.ratings import DisconnectedPoolError, fit_ratings
from lab.store import Store

RATINGS_NAME = "ratings.csv"
TIME_PLOT_NAME = "time_usage.png"


@dataclass
class Report:
    """The files written, the ratings table's text (empty when there were no games) and notes
    on what could not be written (a rating fit that fails on a tiny or disconnected pool must
    not cost the run its PGN and moves, which are written first)."""

    files: list[Path] = field(default_factory=list)
    ratings: str = ""
    notes: list[str] = field(default_factory=list)


def write_report(store: Store, folder: str | Path, event: str) -> Report:
    """Write games.pgn, moves.csv (+ .parquet), ratings.csv, the time-usage plot and the page
    (report.html, `lab.page`), reading the store's games and moves once."""
    folder = Path(folder)
    report = Report()
    games, moves = store.games(), store.moves()
    report.files.append(write_games_pgn(folder / PGN_NAME, games, moves, event))
    report.files += write_moves_table(folder, moves)
    try:
        report.files.append(write_run_page(folder))
    except (ArithmeticError, ValueError, OSError) as exc:
        report.notes.append(f"report.html not written: {exc}")
    decided = games[games["result"].isin(["1-0", "0-1", "1/2-1/2"])]
    if decided.empty:
        return report
    try:
        table = fit_ratings(decided)
    except (ArithmeticError, ValueError, DisconnectedPoolError) as exc:
        report.notes.append(f"ratings.csv not written: the rating fit failed: {exc!r}")
    else:
        table.to_csv(folder / RATINGS_NAME)
        report.files.append(folder / RATINGS_NAME)
        report.ratings = str(table)
    if not moves.empty:
        try:
            report.files.append(plot_time_usage(moves, games, folder / TIME_PLOT_NAME))
        except ValueError as exc:
            report.notes.append(f"{TIME_PLOT_NAME} not written: {exc}")
    return report
