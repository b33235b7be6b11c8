"""The `tempo` command line: one subcommand per module in `lab.commands`.

Each module there (but helpers named `_x`) defines `register(subparsers)`, which adds its parser and
sets `func` on it; `func` takes the parsed arguments and returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

import lab.commands


def build_parser() -> argparse.ArgumentParser:
    """The parser of `tempo`, with every subcommand found in `lab.commands`."""
    parser = argparse.ArgumentParser(
        prog="tempo",
        description="Tempo: a chess engine-testing and time-management lab.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(lab.commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"lab.commands.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `tempo` with `argv` (default: the process arguments); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader went away (`tempo ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
