"""`tempo plot time|ratings|score RESULTS`: draw a results folder's plots as PNG or SVG files.

- `time`: time used per move over all games, or with `--game ID` the one-game picture;
- `ratings`: the fitted ratings with their error bars;
- `score`: a gauntlet's running score (`--engine NAME`; default: the experiment's challenger,
  else the player in every game).

Each writes into the results folder unless `--out` says where, and prints the path written.
The plotting libraries are imported when a plot runs, so that `tempo --help` stays quick.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


class PlotError(Exception):
    """A plot that cannot be drawn from this folder; the message names the folder or id."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("plot")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)

    time = kinds.add_parser("time", help="time used per move (all games, or one with --game)")
    time.add_argument("--game", metavar="ID", help="plot this one game, move by move")
    ratings = kinds.add_parser("ratings", help="ratings with error bars")
    score = kinds.add_parser("score", help="a gauntlet's score over time")
    score.add_argument(
        "--engine", metavar="NAME",
        help="whose score (default: the experiment's challenger, else the player in every game)"
    )
    for sub, func in ((time, _time), (ratings, _ratings), (score, _score)):
        sub.add_argument("results", type=Path, metavar="RESULTS", help="the results folder")
        sub.add_argument("--format", choices=("png", "svg"), default="png",
                         help="image format (default png; ignored when --out has a suffix)")
        sub.add_argument("--out", type=Path, metavar="PATH", help="file to write")
        sub.set_defaults(func=_run(func))


def _run(plot: Callable[[argparse.Namespace], Path]) -> Callable[[argparse.Namespace], int]:
    """Wrap a plot so that expected failures print one line naming the problem, status 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            path = plot(args)
        except (PlotError, ValueError) as exc:
            print(f"tempo plot {args.kind}: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"tempo plot {args.kind}: cannot write {exc.filename or args.out}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return 1
        print(path)
        return 0

    return run


def _read(folder: Path, moves: bool = True) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(games, moves (empty unless asked), experiment config) of the store in `folder`.

    A PlotError if the folder has no store or no games; plotting never creates a store.
    """
    import pandas as pd

    from lab.store import DB_NAME, StoreError, read_store

    if not (folder / DB_NAME).is_file():
        raise PlotError(f"no results store in {folder} (expected {folder / DB_NAME})")
    try:
        with read_store(folder) as store:
            games = store.games()
            frame = store.moves() if moves else pd.DataFrame()
            config = store.experiment() or {}
    except StoreError as exc:
        raise PlotError(str(exc)) from None
    if games.empty:
        raise PlotError(f"no games recorded in {folder}")
    return games, frame, config


def _out(args: argparse.Namespace, stem: str) -> Path:
    if args.out is None:
        return args.results / f"{stem}.{args.format}"
    return args.out if args.out.suffix else args.out.with_suffix(f".{args.format}")


def _time(args: argparse.Namespace) -> Path:
    from lab.plots import plot_game_time, plot_time_usage

    games, moves, _ = _read(args.results)
    if moves.empty:
        raise PlotError(f"no moves recorded in {args.results}")
    if args.game is None:
        return plot_time_usage(moves, games, _out(args, "time_usage"))
    if args.game not in set(moves["game_id"]):
        raise PlotError(f"no game {args.game!r} with moves in {args.results}")
    return plot_game_time(moves, args.game, _out(args, f"time_{args.game}"), games)


def _ratings(args: argparse.Namespace) -> Path:
    from lab.plots import plot_ratings
    from lab.ratings import fit_ratings

    games, _, _ = _read(args.results, moves=False)
    table = fit_ratings(games)
    title = (
        f"Ratings: {round(100 * table.confidence)} % intervals from the {table.error_source}, "
        f"relative to the {table.relative_to}"
    )
    return plot_ratings(table.frame, _out(args, "ratings"), title=title)


def _score(args: argparse.Namespace) -> Path:
    from lab.plots import plot_score_over_time
    from lab.plots.score import gauntlet_challenger

    games, _, config = _read(args.results, moves=False)
    players = set(games["white"]) | set(games["black"])
    engine = args.engine
    if engine is None:
        challengers = config.get("challengers") or []
        if len(challengers) > 1:
            raise PlotError(f"{args.results} has several challengers "
                            f"({', '.join(challengers)}): name one with --engine")
        engine = challengers[0] if challengers else gauntlet_challenger(games)
    if engine not in players:
        raise PlotError(
            f"no engine {engine!r} in {args.results} (players: {', '.join(sorted(players))})"
        )
    return plot_score_over_time(games, engine, _out(args, f"score_{engine}"))
