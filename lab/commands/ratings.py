"""`tempo ratings INPUT...`: fit ratings to results folders and PGN files, print an Ordo-like table.

Anchors follow Ordo: `--anchor NAME=ELO` (repeatable; `--anchors FILE` for a CSV of name,rating
like Ordo's `-m`), `--loose NAME=ELO:SD` (repeatable; `--loose-anchors FILE` of name,rating,sd
like `-y`), or the pool average `--average`. A disconnected pool exits with status 3, listing
its groups, unless `--force`. Other bad input exits with status 1 and names the problem.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ratings", description="Fit maximum-likelihood ratings to results folders and PGN files.",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="a results folder (with tempo.sqlite) or a PGN file")
    parser.add_argument("--model", choices=("ordo", "bayeselo"), default="ordo")
    parser.add_argument("--anchor", action="append", default=[], metavar="NAME=ELO",
                        help="pin a player's rating (repeatable)")
    parser.add_argument("--anchors", type=Path, metavar="FILE",
                        help="CSV of fixed anchors: name,rating per line")
    parser.add_argument("--loose", action="append", default=[], metavar="NAME=ELO:SD",
                        help="a loose anchor: a Gaussian prior on the player's rating")
    parser.add_argument("--loose-anchors", type=Path, metavar="FILE",
                        help="CSV of loose anchors: name,rating,sd per line")
    parser.add_argument("--average", type=float, metavar="ELO",
                        help="pool average without anchors (default: Ordo 2300, BayesElo 0)")
    parser.add_argument("--scale", type=float, default=202.0, metavar="ELO76",
                        help="Ordo model: rating points for a 76%% expectancy (default 202)")
    parser.add_argument("--white", metavar="auto|ELO",
                        help="white advantage: auto fits it (default: Ordo 0, BayesElo auto)")
    parser.add_argument("--draw", default="auto", metavar="auto|PCT",
                        help="draw rate between equal opponents in %%, or auto (default)")
    parser.add_argument("--prior", type=float, default=2.0, metavar="N",
                        help="BayesElo: virtual draws per player (default 2)")
    parser.add_argument("--bayeselo-units", default="auto", metavar="auto|K",
                        help="BayesElo: multiply ratings by its scale (auto) or by K (1: raw)")
    parser.add_argument("--simulations", type=int, default=0, metavar="N",
                        help="error bars from N refits of simulated results (Ordo's -s)")
    parser.add_argument("--confidence", type=percentage, default=95.0, metavar="PCT",
                        help="confidence of the error bars in percent (default 95)")
    parser.add_argument("--relative-to", choices=("anchor", "pool"), default="anchor",
                        help="errors relative to the anchors (default) or the pool average")
    parser.add_argument("--force", action="store_true", help="fit a disconnected pool by groups")
    parser.add_argument("--seed", type=int, help="random seed of the simulations")
    parser.add_argument("--csv", type=Path, metavar="OUT", help="also write the table as CSV")
    parser.add_argument("--los", action="store_true", help="print the LOS matrix (%%)")
    parser.add_argument("--head-to-head", action="store_true", help="print the head-to-head table")
    parser.set_defaults(func=run)


def _split(text: str, sep: str, what: str) -> tuple[str, str]:
    name, found, value = text.rpartition(sep)
    if not found or not name:
        raise ValueError(f"{what} {text!r}: expected NAME{sep}VALUE")
    return name, value


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a number") from None


def _anchor_rows(path: Path, width: int) -> list[list[str]]:
    """Rows of an Ordo-style anchor CSV (quoted names allowed), each checked for `width` fields."""
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        for line_no, row in enumerate(csv.reader(handle), 1):
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if len(row) != width:
                raise ValueError(f"{path}: line {line_no}: expected {width} fields, got {row!r}")
            rows.append([row[0].strip()] + [f.strip() for f in row[1:]] + [f"{path}:{line_no}"])
    return rows


def anchors_from_args(args: argparse.Namespace) -> tuple[dict, dict]:
    """Fixed and loose anchors from the options and files, with errors naming the bad item."""
    fixed: dict[str, float] = {}
    loose: dict[str, tuple[float, float]] = {}
    for item in args.anchor:
        name, value = _split(item, "=", "--anchor")
        fixed[name] = _number(value, f"--anchor {item}")
    if args.anchors:
        for name, value, where in _anchor_rows(args.anchors, 2):
            fixed[name] = _number(value, where)
    for item in args.loose:
        name, value = _split(item, "=", "--loose")
        rating, sd = _split(value, ":", f"--loose {item}")
        loose[name] = (_number(rating, f"--loose {item}"), _number(sd, f"--loose {item}"))
    if args.loose_anchors:
        for name, rating, sd, where in _anchor_rows(args.loose_anchors, 3):
            loose[name] = (_number(rating, where), _number(sd, where))
    return fixed, loose


def percentage(text: str) -> float:
    """A confidence level in percent, strictly between 1 and 100: 0.95 is refused rather than
    read as 0.95 %, the mistake it always is."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1.0 < value < 100.0:
        raise argparse.ArgumentTypeError(
            f"{text} is not a percentage between 1 and 100 (95 means 95 %)")
    return value


def run(args: argparse.Namespace) -> int:
    from lab.ratings import DisconnectedPoolError, fit_ratings
    from lab.ratings.inputs import read_inputs
    from lab.ratings.pool import condense_rows
    from lab.store import StoreError

    try:
        fixed, loose = anchors_from_args(args)
        white = args.white if args.white in (None, "auto") else _number(args.white, "--white")
        draw = "auto" if args.draw == "auto" else _number(args.draw, "--draw") / 100.0
        units = (args.bayeselo_units if args.bayeselo_units == "auto"
                 else _number(args.bayeselo_units, "--bayeselo-units"))
        games = condense_rows(row for item in read_inputs(args.inputs) for row in item.rows)
        table = fit_ratings(
            games, args.model, anchors=fixed, loose_anchors=loose, average=args.average,
            scale=args.scale, white=white, draw=draw, prior=args.prior, bayeselo_units=units,
            simulations=args.simulations, confidence=args.confidence / 100.0,
            relative_to=args.relative_to, force=args.force, seed=args.seed,
        )
    except DisconnectedPoolError as exc:
        print(f"tempo ratings: {exc}", file=sys.stderr)
        return 3
    except (ValueError, OSError, StoreError) as exc:
        print(f"tempo ratings: {exc}", file=sys.stderr)
        return 1
    print(table)
    if args.los:
        print("\nLOS (%, row better than column):")
        print((100 * table.los).round(1).to_string(na_rep="-"))
    if args.head_to_head:
        print("\nHead to head:")
        print(table.head_to_head.round(1).to_string(index=False))
    if args.csv:
        try:
            table.to_csv(args.csv)
        except OSError as exc:
            print(f"tempo ratings: cannot write {args.csv}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 1
    return 0
