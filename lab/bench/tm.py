"""`tempo bench tm`: how each time manager spends the clock in self-play.

For every manager, our engine plays itself (both sides with that manager) a short series at a
fast control through the lab's harness. Printed per manager, after the seed's two principles
(Lc0 "PR1195: Time management update", "Design principles"): the time forfeits; the mean fraction of
the available time used by the end of the game, over all game sides and over those of 50+ moves
(all time should be used); the median ratio of time used to the manager's (soft) budget; the
spread of the nodes searched per move, as the coefficient of variation over the first 40 moves
of each game side, median over sides (the tree should be the same size at every move), with the
mean nodes per move beside it; and the mean depth per move.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pandas as pd

from lab.experiment import DEFAULT_BOOK, Experiment, load_book_for
from lab.experiment_file import parse_experiment
from lab.plots.time_usage import fraction_of_time_used, nodes_spread
from lab.records import Termination
from lab.runner import run_experiment
from lab.store import open_store

MANAGERS = ("smooth", "smooth-lc0", "fraction", "stockfish")


def self_play_experiment(manager: str, games: int, tc: str, out: Path, interpreter: str | None,
                         concurrency: int | None, overhead_ms: int) -> Experiment:
    """Our engine against itself, both sides with `manager`, paired openings from the book."""
    options = {"TimeManager": manager, "Move Overhead": overhead_ms}
    engines = []
    for side in ("a", "b"):
        engine = {"name": f"{manager}/{side}", "builtin": "tempo", "options": dict(options)}
        if interpreter:
            engine["interpreter"] = interpreter
        engines.append(engine)
    data = {
        "name": f"bench-tm-{manager}",
        "tc": tc,
        "schedule": {"type": "gauntlet", "challengers": [engines[0]["name"]], "games": games},
        "openings": {"file": str(DEFAULT_BOOK), "order": "random", "seed": 1, "paired": True},
        "adjudication": {"max_moves": 150},
        "engines": engines,
        "out": str(out),
    }
    if concurrency is not None:
        data["concurrency"] = concurrency
    experiment = parse_experiment(data, "tempo bench tm", Path.cwd())
    experiment.book = load_book_for(experiment)
    return experiment


LONG_SIDE_MOVES = 50
"""Game sides of at least this many moves count for "used % 50+" (a short game ends with time
left whatever the manager)."""
def _round(value: float, digits: int) -> float | None:
    return None if pd.isna(value) else round(float(value), digits)


def manager_figures(manager: str, games: pd.DataFrame, moves: pd.DataFrame) -> dict[str, object]:
    """One row of the table: games, forfeits, time used (all sides, sides of 50+ moves), used
    time over budget, nodes per move and their spread, depth per move."""
    empty = pd.DataFrame(columns=["game_id", "side", "fraction"])
    fractions = fraction_of_time_used(moves) if not moves.empty else empty
    side_moves = moves.groupby(["game_id", "side"]).size() if not moves.empty else pd.Series()
    long_sides = side_moves[side_moves >= LONG_SIDE_MOVES].index
    long_fractions = fractions.set_index(["game_id", "side"])["fraction"].reindex(long_sides)
    used = pd.to_numeric(moves.get("tm_used_ms", pd.Series(dtype=float)), errors="coerce")
    budget = pd.to_numeric(moves.get("tm_budget_ms", pd.Series(dtype=float)), errors="coerce")
    ratio = (used / budget)[budget > 0]
    nodes = pd.to_numeric(moves.get("nodes", pd.Series(dtype=float)), errors="coerce")
    depth = pd.to_numeric(moves.get("depth", pd.Series(dtype=float)), errors="coerce")
    return {
        "manager": manager,
        "games": len(games),
        "time forfeits": (int((games["termination"] == Termination.TIME_FORFEIT).sum())
                          if len(games) else 0),
        "used %": _round(100 * fractions["fraction"].mean(), 1),
        "used % 50+": _round(100 * long_fractions.mean(), 1),
        "used/budget": _round(ratio.median(), 2),
        "nodes/move": None if nodes.dropna().empty else int(nodes.mean()),
        "nodes CV": _round(nodes_spread(moves)["cv"].median(), 2) if not moves.empty else None,
        "depth": _round(depth.mean(), 1),
    }


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tm", description=__doc__.splitlines()[0])
    parser.add_argument("--managers", default=",".join(MANAGERS),
                        help="comma-separated TimeManager specs (default: %(default)s)")
    parser.add_argument("--games", type=int, default=4, help="games per manager (even)")
    parser.add_argument("--tc", default="5+0.05", help="time control (default: %(default)s)")
    parser.add_argument("--overhead", type=int, default=10,
                        help="the engine's Move Overhead in ms (default: %(default)s)")
    parser.add_argument("--interpreter", choices=("pypy", "cpython"),
                        help="our engine's interpreter (default: CPython)")
    parser.add_argument("--concurrency", type=int, help="games at once (default: cores)")
    parser.add_argument("--out", help="keep the results folders here (default: a temporary one)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    managers = [m.strip() for m in args.managers.split(",") if m.strip()]
    with tempfile.TemporaryDirectory(prefix="tempo-bench-tm-") as scratch:
        root = Path(args.out) if args.out else Path(scratch)
        rows = []
        for index, manager in enumerate(managers):
            out = root / f"{index:02d}"
            experiment = self_play_experiment(manager, args.games, args.tc, out,
                                              args.interpreter, args.concurrency, args.overhead)
            run_experiment(experiment, overwrite=True, live=False)
            with open_store(out) as store:
                rows.append(manager_figures(manager, store.games(), store.moves()))
    table = pd.DataFrame(rows).set_index("manager")
    print(f"time managers in self-play at {args.tc}, {args.games} games each, "
          f"Move Overhead {args.overhead} ms")
    print(table.to_string())
    return 0
