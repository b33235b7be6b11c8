"""`tempo bench engine`: the engine's `bench` under CPython and PyPy, side by side, per mode.

Each run is a separate engine process (`tempo-engine bench`, interpreter forced with
`TEMPO_ENGINE_PYTHON`), so the lab never imports the engine. The node count must agree between
runs of one interpreter (it is the engine's signature); nodes per second is the figure to compare.
Then, for the default search mode, the time to `--search-depth` and the depth reached in each of
`--seconds` on the bench positions (`lab.bench._engine_depth`).
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

from lab.bench._engine_depth import bench_positions, depth_figures, format_depth_table

MODES = ("alphabeta", "greenblatt", "mcts")
INTERPRETERS = ("cpython", "pypy")


@dataclass
class BenchRun:
    """One engine bench: totals as the engine printed them."""

    mode: str
    interpreter: str
    nodes: int
    time_ms: int
    nps: int
    cpu_nps: int | None = None


class BenchError(RuntimeError):
    """The engine process failed or printed no totals."""


def engine_launcher() -> str:
    """The `tempo-engine` console script next to this interpreter, or on PATH."""
    beside = Path(sys.executable).parent / "tempo-engine"
    if beside.exists():
        return str(beside)
    found = shutil.which("tempo-engine")
    if found is None:
        raise BenchError("tempo-engine not found: install the project (pip install -e .)")
    return found


def parse_totals(text: str) -> tuple[int, int, int]:
    """(nodes, time ms, nodes/s) from the Stockfish-style totals of a bench."""
    fields = {}
    for label, key in (("Nodes searched", "nodes"), ("Total time \\(ms\\)", "ms"),
                       ("Nodes/second", "nps")):
        match = re.search(rf"^{label}\s*:\s*(\d+)\s*$", text, re.MULTILINE)
        if match is None:
            raise BenchError(f"engine bench output has no '{label}' line:\n{text[-500:]}")
        fields[key] = int(match.group(1))
    return fields["nodes"], fields["ms"], fields["nps"]


def parse_cpu_nps(text: str) -> int | None:
    """Nodes per CPU second, if the engine printed it (steadier than wall time under load)."""
    match = re.search(r"^CPU nodes/second\s*:\s*(\d+)\s*$", text, re.MULTILINE)
    return int(match.group(1)) if match else None


def run_engine_bench(mode: str, interpreter: str, depth: int | None) -> BenchRun:
    """Run `tempo-engine bench` once under `interpreter` and read its totals."""
    command = [engine_launcher(), "bench", "--mode", mode]
    if depth is not None:
        command += ["--depth", str(depth)]
    env = dict(os.environ, TEMPO_ENGINE_PYTHON=interpreter)
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise BenchError(
            f"tempo-engine bench ({mode}, {interpreter}) exited {done.returncode}: "
            f"{done.stderr.strip()[-500:]}"
        )
    nodes, time_ms, nps = parse_totals(done.stdout)
    return BenchRun(mode, interpreter, nodes, time_ms, nps, parse_cpu_nps(done.stdout))


def format_table(runs: dict[tuple[str, str], BenchRun | str]) -> str:
    """Modes as rows, interpreters side by side (a string entry is an error to show)."""
    header = f"{'mode':<11}" + "".join(
        f" | {name + ' nodes':>14} {'time ms':>8} {'NPS':>7} {'CPU NPS':>7}"
        for name in INTERPRETERS
    )
    lines = [header, "-" * len(header)]
    for mode in dict.fromkeys(mode for mode, _ in runs):
        row = f"{mode:<11}"
        for name in INTERPRETERS:
            run = runs.get((mode, name))
            if isinstance(run, BenchRun):
                cpu = "-" if run.cpu_nps is None else str(run.cpu_nps)
                row += f" | {run.nodes:>14} {run.time_ms:>8} {run.nps:>7} {cpu:>7}"
            elif run is not None:
                row += f" | {run:>39}"
        lines.append(row)
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("engine")
    parser.add_argument("--depth", type=int, default=None, help="bench depth (engine default)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated search modes")
    parser.add_argument("--search-depth", type=int, default=8,
                        help="time each bench position to this depth (0: skip)")
    parser.add_argument("--seconds", default="1,10",
                        help="comma-separated search times for 'depth in N s' ('': skip)")
    parser.set_defaults(func=run)


def parse_seconds(text: str) -> list[float]:
    """The `--seconds` list; ValueError naming the bad entry."""
    values = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"--seconds: {part.strip()!r} is not a number") from None
        if not value > 0:
            raise ValueError(f"--seconds: {part.strip()!r} must be above 0")
        values.append(value)
    return values


def print_depth_figures(depth: int, seconds: list[float]) -> bool:
    """The depth table for every interpreter (PyPy shown as not available when missing);
    False if CPython failed."""
    launcher = engine_launcher()
    results: list = []
    ok = True
    for interpreter in INTERPRETERS:
        try:
            fens = bench_positions(launcher, interpreter)
            results.append(depth_figures(launcher, interpreter, fens, depth, seconds))
        except (RuntimeError, *chess_errors()) as error:
            results.append("not available" if interpreter == "pypy" else "failed")
            print(f"tempo bench engine: {interpreter}: {error}", file=sys.stderr)
            ok = ok and interpreter == "pypy"
    print()
    print("alphabeta search on the bench positions, one engine process per interpreter:")
    print(format_depth_table(results, list(INTERPRETERS)))
    return ok


def chess_errors() -> tuple[type[BaseException], ...]:
    """What a failing engine process raises through python-chess."""
    import chess.engine

    return (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError, OSError)


def run(args: argparse.Namespace) -> int:
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown:
        print(f"tempo bench engine: unknown mode(s) {', '.join(unknown)}; known: "
              f"{', '.join(MODES)}", file=sys.stderr)
        return 2
    try:
        seconds = parse_seconds(args.seconds)
    except ValueError as error:
        print(f"tempo bench engine: {error}", file=sys.stderr)
        return 2
    if args.search_depth < 0:
        print("tempo bench engine: --search-depth must be 0 (skip) or more", file=sys.stderr)
        return 2
    runs: dict[tuple[str, str], BenchRun | str] = {}
    failed = False
    for mode in modes:
        for interpreter in INTERPRETERS:
            try:
                runs[(mode, interpreter)] = run_engine_bench(mode, interpreter, args.depth)
            except BenchError as error:
                runs[(mode, interpreter)] = "not available" if interpreter == "pypy" else "failed"
                print(f"tempo bench engine: {error}", file=sys.stderr)
                failed = failed or interpreter == "cpython"
    print(format_table(runs))
    if (args.search_depth or seconds) and not print_depth_figures(args.search_depth, seconds):
        failed = True
    return 1 if failed else 0
