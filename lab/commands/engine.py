"""`tempo engine`: run Tempo's UCI engine on standard input and output (as `tempo-engine`)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "engine", help="run the UCI engine (PyPy when installed)", add_help=False
    )
    parser.add_argument("engine_args", nargs=argparse.REMAINDER)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.launcher import main

    return main(args.engine_args)
