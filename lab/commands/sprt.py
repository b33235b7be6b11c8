"""`tempo sprt`: Elo, nElo, LOS and the GSPRT decision for a results folder or for given counts.

For a results folder the games are paired by `pair_id` (the two games of a pair share it) from the
challenger's side (`--engine`, default the experiment's one challenger, else the first player of
the first game); only completed pairs count. Without pair ids, or with `--trinomial`, single
games are counted instead. The test's bounds, error rates and model are the experiment's own
`[sprt]` when it has one, each replaced by any given on the command line, and the output says
which were used. Beside the plain estimate it prints fishtest's estimate corrected for the
sequential stop (`lab.sprt_estimate`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lab.sprt_counts import FolderCounts

#: The test when neither the command line nor the experiment says otherwise.
DEFAULTS = {"elo0": 0.0, "elo1": 2.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sprt", description="fishtest's generalized SPRT on pentanomial (or trinomial) counts. "
        "For a results folder the experiment's [sprt] settings apply unless given here.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("results", nargs="?", type=Path, metavar="RESULTS",
                        help="a results folder (with tempo.sqlite)")
    source.add_argument("--penta", metavar="LL,LD,WL+DD,WD,WW", help="pentanomial counts")
    source.add_argument("--wdl", metavar="L,D,W", help="trinomial counts: losses, draws, wins")
    parser.add_argument("--elo0", type=float, help="H0 (default: the experiment's, else 0)")
    parser.add_argument("--elo1", type=float, help="H1 (default: the experiment's, else 2)")
    parser.add_argument("--alpha", type=float, help="false-positive rate (default 0.05)")
    parser.add_argument("--beta", type=float, help="false-negative rate (default 0.05)")
    parser.add_argument("--model", choices=("normalized", "logistic"),
                        help="bounds in normalized Elo (default) or logistic Elo")
    parser.add_argument("--engine", metavar="NAME",
                        help="the challenger (default: the experiment's challenger, else the "
                        "first player of the first game)")
    parser.add_argument("--trinomial", action="store_true",
                        help="count single games even when pairs are recorded")
    parser.set_defaults(func=run)


def _counts(text: str, size: int, option: str) -> list[int]:
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    try:
        counts = [int(p) for p in parts]
    except ValueError:
        counts = []
    if len(counts) != size or min(counts) < 0:
        raise ValueError(f"{option} {text!r}: expected {size} non-negative integers")
    return counts


def counts_from_folder(folder: Path, engine: str | None, trinomial: bool) -> FolderCounts:
    """The challenger and its pentanomial (or trinomial) counts in a results folder; the store
    (and with it pandas) is loaded only here, so counts given on the command line stay fast."""
    from lab.sprt_counts import count_games
    from lab.store import DB_NAME, StoreError, read_store

    if not (folder / DB_NAME).is_file():
        raise ValueError(f"{folder}: no {DB_NAME} here, not a results folder")
    try:
        with read_store(folder) as store:
            games = store.games()
            config = store.experiment() or {}
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    try:
        return count_games(games, config, engine, trinomial)
    except ValueError as exc:
        raise ValueError(f"{folder}: {exc}") from None


def test_settings(args: argparse.Namespace, stored: dict[str, Any] | None) -> tuple[dict, str]:
    """The SPRT settings (command line over the experiment's [sprt] over the defaults) and a
    sentence saying where they came from."""
    given = {key: getattr(args, key) for key in DEFAULTS if getattr(args, key) is not None}
    settings = {**DEFAULTS, **(stored or {}), **given}
    if stored and given:
        source = f"the experiment's [sprt], with {', '.join(sorted(given))} from the command line"
    elif stored:
        source = "the experiment's [sprt]"
    elif given:
        source = "the command line" + (", defaults for the rest" if len(given) < 5 else "")
    else:
        source = "the defaults"
    return settings, source


def run(args: argparse.Namespace) -> int:
    from lab.sprt_estimate import sequential_estimate
    from lab.stats import elo_estimate, sprt

    try:
        who, stored = "", None
        if args.penta:
            counts = _counts(args.penta, 5, "--penta")
        elif args.wdl:
            counts = _counts(args.wdl, 3, "--wdl")
        else:
            found = counts_from_folder(args.results, args.engine, args.trinomial)
            who, counts, stored = found.engine, found.counts, found.config.get("sprt")
        settings, source = test_settings(args, stored)
        result = sprt(counts, settings["elo0"], settings["elo1"], settings["alpha"],
                      settings["beta"], settings["model"])
        corrected = sequential_estimate(counts, settings["elo0"], settings["elo1"],
                                        settings["alpha"], settings["beta"], settings["model"])
    except (ValueError, OSError) as exc:
        print(f"tempo sprt: {exc}", file=sys.stderr)
        return 1
    label = "Ptnml(0-2)" if len(counts) == 5 else "LDW"
    if who:
        print(f"Engine: {who}")
    print(f"{label}: {counts}")
    print(elo_estimate(counts))
    print(result)
    print(f"Settings: {source} (alpha {settings['alpha']:g}, beta {settings['beta']:g})")
    print(corrected)
    return 0
