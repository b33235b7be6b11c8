"""`tempo bench elo`: a short ladder of our engine's UCI_Elo levels, and where the NPS limit stops
mattering.

The ladder is a round-robin of a few limited levels and full strength (paired openings from the
shipped balanced book, a fast control) played through the lab's harness like any experiment, so
our engine runs as processes. It prints the score matrix, then per level the NPS limit (read
from the engine's own `debug on` dump, as lab.calibration.probe reads it: the lab never
recomputes the engine's formulas) beside the NPS each level reached in the ladder, and the
engine's unthrottled NPS under PyPy and CPython (its `bench`). The NPS limit grows like a 4th
power of the Elo (docs/reference/elo_limit.md §0) while a Python search runs at a few thousand to
tens of thousands of nodes per second, so above some Elo the limit no longer binds and the
levels differ only by move errors and knowledge (§6: "a pure-Python search will not reach
MadChess's 2M NPS"): that saturation Elo, the lowest whose limit is at least the unthrottled
NPS, is found by bisection over the engine's dumps.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lab.bench.engine import INTERPRETERS, BenchError, run_engine_bench
from lab.calibration.probe import ProbeError
from lab.experiment import BUILTIN_ENGINES, DEFAULT_BOOK, Experiment, ExperimentError, load_book_for
from lab.experiment_file import parse_experiment
from lab.records import EngineSpec
from lab.runner import run_experiment
from lab.store import open_store

LEVELS = (800, 1200, 1600)
FULL = "full"
#: The UCI_Elo range our engine declares (engine/strength/range.py); it refuses other values.
ELO_MIN, ELO_MAX = 600, 1720
#: The highest limited level: the range's top is full strength, which dumps no parameters.
LIMITED_MAX = ELO_MAX - 1
_NPS = re.compile(r"NPS = (\d+), MoveError")


#: Every engine keeps 100 ms per move for the harness and a busy machine, as the calibration
#: experiments do, so that the ladder measures play, not time forfeits.
OVERHEAD = {"Move Overhead": 100}


def level_name(elo: int) -> str:
    return f"L{elo}"


def ladder_experiment(levels: list[int], games: int, tc: str, interpreter: str, out: Path,
                      concurrency: int | None, seed: int = 1) -> Experiment:
    """The round-robin: each limited level and full strength, `games` per pairing (even: each
    opening with both colours), no resignation (weak levels often fail to convert, §5 step 2)."""
    engines = [{"name": level_name(elo), "builtin": "tempo", "interpreter": interpreter,
                "options": {"UCI_LimitStrength": True, "UCI_Elo": elo, **OVERHEAD}}
               for elo in levels]
    engines.append({"name": FULL, "builtin": "tempo", "interpreter": interpreter,
                    "options": dict(OVERHEAD)})
    data = {
        "name": "bench-elo",
        "tc": tc,
        "schedule": {"type": "round-robin", "rounds": games // 2},
        "openings": {"file": str(DEFAULT_BOOK), "order": "random", "seed": seed,
                     "paired": True},
        "margin_ms": 200,
        "adjudication": {"max_moves": 150},
        "engines": engines,
        "out": str(out),
    }
    if concurrency is not None:
        data["concurrency"] = concurrency
    experiment = parse_experiment(data, "tempo bench elo", Path.cwd())
    experiment.book = load_book_for(experiment)
    return experiment


POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def score_matrix(games: pd.DataFrame, players: list[str]) -> pd.DataFrame:
    """Points of the row player against the column player, as "points/games" strings, and
    each row's total score in percent."""
    points = {(a, b): 0.0 for a in players for b in players}
    played = {(a, b): 0 for a in players for b in players}
    for white, black, result in games[["white", "black", "result"]].itertuples(index=False):
        if result not in POINTS:
            continue
        white_points, black_points = POINTS[result]
        points[(white, black)] += white_points
        points[(black, white)] += black_points
        played[(white, black)] += 1
        played[(black, white)] += 1
    rows = {}
    for a in players:
        row = {b: (f"{points[(a, b)]:g}/{played[(a, b)]}" if played[(a, b)] else "-")
               for b in players}
        total = sum(played[(a, b)] for b in players)
        row["score %"] = (f"{100 * sum(points[(a, b)] for b in players) / total:.0f}"
                          if total else "-")
        rows[a] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def reached_nps(moves: pd.DataFrame) -> dict[str, int]:
    """Nodes per second each engine searched in the games (its telemetry: nodes / used time)."""
    if moves.empty or "tm_nodes" not in moves or "tm_used_ms" not in moves:
        return {}
    rows = moves.dropna(subset=["tm_nodes", "tm_used_ms"])
    totals = rows.groupby("engine")[["tm_nodes", "tm_used_ms"]].sum()
    return {engine: int(row.tm_nodes * 1000 / row.tm_used_ms)
            for engine, row in totals.iterrows() if row.tm_used_ms > 0}


def probe_spec() -> EngineSpec:
    """Our engine under CPython (quick to start) for reading a level's parameters."""
    return EngineSpec("tempo", list(BUILTIN_ENGINES["tempo"]),
                      env={"TEMPO_ENGINE_PYTHON": "cpython"})


class LimitProbe:
    """One engine process with `debug on` and UCI_LimitStrength, answering "which NPS limit at
    this Elo" from the parameter dump each `setoption name UCI_Elo` prints (the format of
    lab.calibration.probe); one process for all the probes a bisection needs."""

    def __init__(self, spec: EngineSpec | None = None) -> None:
        spec = spec or probe_spec()
        self.name = spec.name
        self.process = subprocess.Popen(
            spec.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, cwd=spec.cwd, env={**os.environ, **spec.env})
        self.converse(["uci", "debug on", "setoption name UCI_LimitStrength value true"])

    def converse(self, commands: list[str]) -> list[str]:
        """Send `commands` and `isready`; the lines before `readyok`."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("".join(f"{command}\n" for command in [*commands, "isready"]))
        self.process.stdin.flush()
        lines = []
        for raw in self.process.stdout:
            if raw.strip() == "readyok":
                return lines
            lines.append(raw.strip())
        raise ProbeError(f"engine {self.name} exited while probing (last output: {lines[-3:]})")

    def nps(self, elo: int) -> int:
        """The NPS limit the engine dumps for `elo`."""
        lines = self.converse([f"setoption name UCI_Elo value {elo}"])
        for line in lines:
            match = _NPS.search(line)
            if line.startswith("info string ") and match:
                return int(match.group(1))
        raise ProbeError(f"engine {self.name} printed no NPS for UCI_Elo {elo}: {lines[:3]}")

    def close(self) -> None:
        try:
            self.process.communicate("quit\n", timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> LimitProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def saturation_elo(nps: float, limit_of: Callable[[int], int]) -> int | None:
    """The lowest Elo whose NPS limit is at least `nps` (the limit no longer binds from there
    on), by bisection: the limit grows with the Elo. None when even the top limited level
    binds."""
    if limit_of(LIMITED_MAX) < nps:
        return None
    low, high = ELO_MIN, LIMITED_MAX
    if limit_of(low) >= nps:
        return low
    while high - low > 1:
        middle = (low + high) // 2
        if limit_of(middle) >= nps:
            high = middle
        else:
            low = middle
    return high


@dataclass
class SpeedRow:
    """One interpreter's unthrottled speed (engine bench) and the Elo where the limit stops
    binding at that speed."""

    interpreter: str
    nps: int
    cpu_nps: int | None
    saturation: int | None


def measure_speeds(depth: int, limit_of: Callable[[int], int]) -> list[SpeedRow | str]:
    rows: list[SpeedRow | str] = []
    for interpreter in INTERPRETERS:
        try:
            run = run_engine_bench("alphabeta", interpreter, depth)
        except BenchError as error:
            rows.append(f"{interpreter}: {error}")
            continue
        speed = run.cpu_nps or run.nps
        rows.append(SpeedRow(interpreter, run.nps, run.cpu_nps, saturation_elo(speed, limit_of)))
    return rows


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "elo", description="Round-robin of UCI_Elo levels and full strength with paired openings, "
        "then the NPS limit of each level beside the NPS it reached and the engine's "
        "unthrottled NPS under PyPy and CPython, and the Elo above which the limit no longer "
        "binds.")
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)),
                        help="comma-separated UCI_Elo levels (default 800,1400,2000)")
    parser.add_argument("--games", type=int, default=2,
                        help="games per pairing, even (default 2: one opening, both colours)")
    parser.add_argument("--tc", default="4+0.04", help="time control (default 4+0.04)")
    parser.add_argument("--interpreter", choices=INTERPRETERS, default="pypy",
                        help="interpreter of the ladder's engines (default pypy)")
    parser.add_argument("--concurrency", type=int, help="games at once (default: cores)")
    parser.add_argument("--seed", type=int, default=1, help="opening order seed (default 1)")
    parser.add_argument("--bench-depth", type=int, default=4,
                        help="depth of the engine bench that measures unthrottled NPS")
    parser.add_argument("--out", help="results folder (default: a new temporary folder)")
    parser.set_defaults(func=run)


def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--levels {text!r}: give comma-separated integers") from None
    bad = [elo for elo in levels if not ELO_MIN <= elo <= ELO_MAX]
    if not levels or bad or len(set(levels)) != len(levels):
        raise ValueError(f"--levels {text!r}: distinct Elos in {ELO_MIN}..{ELO_MAX} needed")
    return sorted(levels)


def run(args: argparse.Namespace) -> int:
    try:
        levels = parse_levels(args.levels)
        if args.games < 2 or args.games % 2:
            raise ValueError(f"--games {args.games}: an even number >= 2 is needed")
        out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="tempo-bench-elo-"))
        experiment = ladder_experiment(levels, args.games, args.tc, args.interpreter, out,
                                       args.concurrency, args.seed)
        with LimitProbe() as probe:
            limits = {level_name(elo): probe.nps(elo) for elo in levels}
        outcome = run_experiment(experiment, overwrite=True, live=False)
    except (ValueError, ExperimentError, ProbeError) as error:
        print(f"tempo bench elo: {error}", file=sys.stderr)
        return 2
    with open_store(out) as store:
        games, moves = store.games(), store.moves()
    players = [level_name(elo) for elo in levels] + [FULL]
    print(f"Score matrix ({args.tc}, {args.games} games per pairing, {args.interpreter}; "
          f"row's points against column):")
    print(score_matrix(games, players).to_string())
    reached = reached_nps(moves)
    print(f"\n{'level':<8} {'NPS limit':>10} {'NPS in games':>13}")
    for name in players:
        limit = f"{limits[name]:>10}" if name in limits else f"{'none':>10}"
        print(f"{name:<8} {limit} {reached.get(name, '-'):>13}")
    print("\nUnthrottled NPS (engine bench, alphabeta) and the saturation Elo (the lowest whose "
          "NPS limit is at least that speed, by the CPU-time NPS):")
    with LimitProbe() as probe:
        speeds = measure_speeds(args.bench_depth, probe.nps)
    for row in speeds:
        if isinstance(row, str):
            print(f"  {row}")
            continue
        cpu = "-" if row.cpu_nps is None else row.cpu_nps
        where = (f"saturates from UCI_Elo {row.saturation}" if row.saturation is not None
                 else "the limit binds at every Elo")
        print(f"  {row.interpreter:<8} NPS {row.nps} (CPU {cpu}): {where}")
    print(f"results: {out}")
    return outcome.exit_code
