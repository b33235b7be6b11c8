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
import re
import sys
from collections.abc import Mapping

from lab.commands import SUMMARIES
from lab.interrupt import stop_on_sigterm


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


#: A negative number or a list of numbers starting with one ("-1", "-0.5", "-1,4,10").
NEGATIVE_VALUE = re.compile(r"^-\d[\d.,]*$")


def attach_negative_values(argv: list[str]) -> list[str]:
    """`--opt -1,2` as `--opt=-1,2`: argparse takes "-1,2" for an option and reports the option
    before it as missing its value; attached, the value reaches the command's own check."""
    out: list[str] = []
    for word in argv:
        if out and NEGATIVE_VALUE.match(word) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def dispatch(prog: str, description: str, package: str, summaries: Mapping[str, str],
             argv: list[str]) -> int:
    """Parse `argv` for the subcommands of `package` and run the chosen one."""
    parser = build_parser(prog, description, package, summaries, argv)
    args = parser.parse_args(attach_negative_values(argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    """Run `tempo` with `argv` (default: the process arguments); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    stop_on_sigterm()
    try:
        return dispatch("tempo", "Tempo: a chess engine-testing and time-management lab.",
                        "lab.commands", SUMMARIES, argv)
    except BrokenPipeError:
        # The reader went away (`tempo ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
