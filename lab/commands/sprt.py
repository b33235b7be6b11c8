"""`tempo sprt`: Elo, nElo, LOS and the GSPRT decision for a results folder or for given counts.

For a results folder the games are paired by `pair_id` (the two games of a pair share it) from the
challenger's side (`--engine`, default the first player of the first game); only completed pairs
count. Without pair ids, or with `--trinomial`, single games are counted instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sprt", description="fishtest's generalized SPRT on pentanomial (or trinomial) counts.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("results", nargs="?", type=Path, metavar="RESULTS",
                        help="a results folder (with tempo.sqlite)")
    source.add_argument("--penta", metavar="LL,LD,WL+DD,WD,WW", help="pentanomial counts")
    source.add_argument("--wdl", metavar="L,D,W", help="trinomial counts: losses, draws, wins")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0 (default 0)")
    parser.add_argument("--elo1", type=float, default=2.0, help="H1 (default 2)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--model", choices=("normalized", "logistic"), default="normalized",
                        help="bounds in normalized Elo (default) or logistic Elo")
    parser.add_argument("--engine", metavar="NAME",
                        help="the challenger (default: the first player of the first game)")
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


def counts_from_folder(folder: Path, engine: str | None, trinomial: bool) -> tuple[str, list[int]]:
    """The challenger and its pentanomial (or trinomial) counts in a results folder; the store
    (and with it pandas) is loaded only here, so counts given on the command line stay fast."""
    from lab.stats import pair_scores, pentanomial, player_scores
    from lab.stats import trinomial as wdl
    from lab.store import DB_NAME, StoreError, open_store

    if not (folder / DB_NAME).is_file():
        raise ValueError(f"{folder}: no {DB_NAME} here, not a results folder")
    try:
        with open_store(folder) as store:
            games = store.games()
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    if games.empty:
        raise ValueError(f"{folder}: no games recorded")
    engine = engine or str(games["white"].iloc[0])
    players = set(games["white"]) | set(games["black"])
    if engine not in players:
        raise ValueError(f"{folder}: no engine {engine!r} (players: {', '.join(sorted(players))})")
    paired = "pair_id" in games.columns and games["pair_id"].notna().any()
    if paired and not trinomial:
        return engine, pentanomial(pair_scores(games, engine))
    return engine, wdl(player_scores(games, engine))


def run(args: argparse.Namespace) -> int:
    from lab.stats import elo_estimate, sprt

    try:
        if args.penta:
            who, counts = "", _counts(args.penta, 5, "--penta")
        elif args.wdl:
            who, counts = "", _counts(args.wdl, 3, "--wdl")
        else:
            who, counts = counts_from_folder(args.results, args.engine, args.trinomial)
        result = sprt(counts, args.elo0, args.elo1, args.alpha, args.beta, args.model)
    except (ValueError, OSError) as exc:
        print(f"tempo sprt: {exc}", file=sys.stderr)
        return 1
    label = "Ptnml(0-2)" if len(counts) == 5 else "LDW"
    if who:
        print(f"Engine: {who}")
    print(f"{label}: {counts}")
    print(elo_estimate(counts))
    print(result)
    return 0
