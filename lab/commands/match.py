"""`tempo match ENGINE ENGINE --tc 10+0.1 --games 20`: a quick match without a file."""

from __future__ import annotations

import argparse

from lab.commands.gauntlet import add_run_options, execute, positive_int, run_overrides
from lab.quick_match import quick_experiment


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "match",
        description="Play ENGINE1 against ENGINE2 with paired openings. An engine is 'tempo' "
        "(ours), a program (stockfish, /path/to/engine), xboard=PROGRAM or a name defined in "
        "--engines FILE; options follow a colon: tempo:TimeManager=fraction, "
        "'stockfish:Skill Level=3'; name=NAME among them names the engine "
        "(tempo:name=L1400,UCI_LimitStrength=true,UCI_Elo=1400).")
    parser.add_argument("engines", nargs=2, metavar="ENGINE")
    parser.add_argument("--tc", default="10+0.1", help="time control (default 10+0.1)")
    parser.add_argument("--games", type=positive_int, default=20,
                        help="games (default 20, even)")
    parser.add_argument("--book", help="opening book, EPD, PGN or Polyglot .bin (default: the "
                        "shipped experiments/books/openings_8ply.epd, random order)")
    parser.add_argument("--name", help="experiment name (default: match-A-vs-B)")
    add_run_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return execute(lambda: quick_experiment(
        args.engines, args.tc, args.games, name=args.name, book=args.book,
        concurrency=args.concurrency, out=args.out, log=args.log,
        overrides=run_overrides(args)), args)
