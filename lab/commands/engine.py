"""`tempo engine`: run Tempo's UCI engine on standard input and output (as `tempo-engine`)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "engine", usage="tempo engine [-h] [bench [--mode M] [--depth D] [--hash MB]]",
        description="Run Tempo's UCI engine on standard input and output, under this "
        "interpreter (TEMPO_ENGINE_PYTHON=pypy|cpython|PATH chooses another). 'bench' searches "
        "the fixed bench positions to a fixed depth and prints the node count, then exits.")
    parser.add_argument("engine_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.launcher import main

    return main(args.engine_args)
