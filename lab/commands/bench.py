"""`tempo bench NAME`: speed figures, printed; one benchmark per module in `lab.bench`."""

from __future__ import annotations

import argparse

from lab.bench import SUMMARIES
from lab.cli import dispatch


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench", usage="tempo bench [-h] NAME ...",
        description="Benchmarks: " + "; ".join(f"{k} ({v})" for k, v in SUMMARIES.items()))
    parser.add_argument("name", choices=SUMMARIES, metavar="NAME", help=", ".join(SUMMARIES))
    parser.add_argument("bench_args", nargs=argparse.REMAINDER, help="the benchmark's options")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return dispatch("tempo bench", "Run a benchmark and print its figures.", "lab.bench",
                    SUMMARIES, [args.name, *args.bench_args])
