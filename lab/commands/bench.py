"""`tempo bench NAME`: speed figures, printed; one benchmark per module in `lab.bench`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import lab.bench


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print its figures")
    benches = parser.add_subparsers(dest="bench", metavar="NAME", required=True)
    for info in sorted(pkgutil.iter_modules(lab.bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        importlib.import_module(f"lab.bench.{info.name}").register(benches)
