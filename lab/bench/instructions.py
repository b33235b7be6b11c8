"""`tempo bench instructions`: the engine's bench counted in instructions, here and at revisions.

Wall-clock speed on a shared machine varies by more than one change saves, so a change that keeps
the search's trees (the same bench node count) is measured as Stockfish developers measure theirs
with `perf stat`: in instructions executed. `valgrind --tool=callgrind` counts them whatever else
the machine does, and the count repeats (to a few hundred instructions, the printed times'
digits) for the same interpreter, tree and environment: hash
randomisation off (`PYTHONHASHSEED=0`), address randomisation off (`setarch -R`, where it works)
and a bench whose checks come at steady node counts (the engine prints "Checks : steady"; an older
revision's follow the clock, which made two runs of one tree differ by 2.5 %: its row says so).

Each tree runs the engine's `bench` in its own process under this interpreter; `--against REV`
exports REV with `lab.revisions`, as an experiment's `revision` does; both trees' modules are
compiled first. The figures include the interpreter's start-up and the imports (about 1.2G
instructions), nearly the same in every row.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lab.bench.engine import MODES, parse_totals
from lab.revisions import REPO_ROOT, RevisionError, revision_tree


@dataclass
class Count:
    """One tree's bench under callgrind."""

    label: str
    nodes: int
    instructions: int
    steady: bool


class InstructionsError(RuntimeError):
    """valgrind is missing, or the bench under it failed or printed no totals."""


def find_valgrind() -> str:
    """valgrind's path; InstructionsError naming the package when it is missing."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise InstructionsError("valgrind not found (Debian: apt-get install valgrind)")
    return valgrind


def bench_command(valgrind: str, tree: Path, mode: str, depth: int) -> list[str]:
    """The engine's bench from `tree` under callgrind (and `setarch -R` where available)."""
    start = (f"import sys; sys.path.insert(0, {str(tree)!r}); "
             "from engine.uci import main; sys.exit(main())")
    command = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
               "-c", start, "bench", "--mode", mode, "--depth", str(depth)]
    setarch = shutil.which("setarch")
    if setarch and subprocess.run([setarch, "-R", "true"], capture_output=True).returncode == 0:
        command = [setarch, "-R", *command]
    return command


def parse_instructions(stderr: str) -> int:
    """The total from callgrind's summary line `==PID== Collected : N`."""
    match = re.search(r"^==\d+== Collected : (\d+)\s*$", stderr, re.MULTILINE)
    if match is None:
        raise InstructionsError(f"callgrind printed no 'Collected' total:\n{stderr[-500:]}")
    return int(match.group(1))


def count(valgrind: str, label: str, tree: Path, mode: str, depth: int) -> Count:
    """Run the bench of `tree` once under callgrind, its modules compiled beforehand (a freshly
    exported revision has no bytecode yet, and compiling it would be counted: 0.27G)."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    compiled = subprocess.run([sys.executable, "-m", "compileall", "-q", "engine", "timecontrol"],
                              capture_output=True, text=True, env=env, cwd=tree, check=False)
    if compiled.returncode != 0:
        raise InstructionsError(f"{label}: compiling its modules failed: "
                                f"{compiled.stdout.strip()[-500:]}")
    done = subprocess.run(bench_command(valgrind, tree, mode, depth), capture_output=True,
                          text=True, env=env, cwd=tree, check=False)
    if done.returncode != 0:
        raise InstructionsError(f"{label}: bench under callgrind exited {done.returncode}: "
                                f"{done.stderr.strip()[-500:]}")
    nodes, _, _ = parse_totals(done.stdout)
    steady = re.search(r"^Checks\s*:\s*steady\s*$", done.stdout, re.MULTILINE) is not None
    return Count(label, nodes, parse_instructions(done.stderr), steady)


def format_counts(counts: list[Count]) -> str:
    """One row per tree: nodes, instructions, and the change against the first row."""
    base = counts[0].instructions
    lines = [f"{'tree':<24} {'nodes':>9} {'instructions':>15} {'vs first':>9}"]
    for row in counts:
        change = f"{100.0 * (row.instructions - base) / base:+.2f} %"
        note = "" if row.steady else "  (checks follow the clock: about +-2.5 %)"
        lines.append(f"{row.label:<24} {row.nodes:>9} {row.instructions:>15,} {change:>9}{note}")
    if len({row.nodes for row in counts}) > 1:
        lines.append("node counts differ: the trees search differently, so instructions per node "
                     "compare them better than totals")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.depth < 1:
        print("tempo bench instructions: --depth must be 1 or more", file=sys.stderr)
        return 2
    trees = [("this checkout", REPO_ROOT)]
    try:
        valgrind = find_valgrind()
        for revision in args.against:
            commit, tree = revision_tree(revision)
            trees.append((f"{revision} ({commit[:10]})", tree))
        counts = [count(valgrind, label, tree, args.mode, args.depth) for label, tree in trees]
    except (InstructionsError, RevisionError, ValueError) as error:
        print(f"tempo bench instructions: {error}", file=sys.stderr)
        return 1
    print(f"bench --mode {args.mode} --depth {args.depth} under callgrind, {sys.executable}:")
    print(format_counts(counts))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("instructions")
    parser.add_argument("--depth", type=int, default=7, help="bench depth (default 7)")
    parser.add_argument("--mode", default="alphabeta", choices=MODES, help="search mode")
    parser.add_argument("--against", action="append", default=[], metavar="REV",
                        help="also count the engine at this git revision (repeatable)")
    parser.set_defaults(func=run)
