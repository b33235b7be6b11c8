"""The `tempo` command line: one subcommand per module in `lab.commands`.

Parsing comes first and imports only the module of the command that runs: `tempo --help` and
`tempo sprt --penta ...` pay for argparse and that command, not for SciPy, pandas and matplotlib,
which the other commands load. `lab.commands.SUMMARIES` lists the commands with their one-line
help; each module defines `register(subparsers)`, which adds its parser and sets `func` on it;
`func` takes the parsed arguments and returns the exit status. `tempo bench NAME` dispatches the
same way over `lab.bench`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping

from lab.commands import SUMMARIES


def build_parser(prog: str, description: str, package: str, summaries: Mapping[str, str],
                 argv: list[str]) -> argparse.ArgumentParser:
    """A parser whose subcommands are the modules of `package`. Only the module named by
    `argv[0]` is imported and registers its full parser; the others appear by their summary."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in summaries.items():
        if argv and argv[0] == name:
            importlib.import_module(f"{package}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def dispatch(prog: str, description: str, package: str, summaries: Mapping[str, str],
             argv: list[str]) -> int:
    """Parse `argv` for the subcommands of `package` and run the chosen one."""
    parser = build_parser(prog, description, package, summaries, argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    """Run `tempo` with `argv` (default: the process arguments); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return dispatch("tempo", "Tempo: a chess engine-testing and time-management lab.",
                        "lab.commands", SUMMARIES, argv)
    except BrokenPipeError:
        # The reader went away (`tempo ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
