"""`tempo bench elo`: a short ladder of our engine's UCI_Elo levels, and where the search-effort
limit stops mattering.

The ladder is a round-robin of a few limited levels and full strength (paired openings from the
shipped balanced book, a fast control) played through the lab's harness like any experiment, so
our engine runs as processes. It prints the score matrix, then per level its search effort as
the engine's own `debug on` dump gives it (as lab.calibration.probe reads it: the lab never
recomputes the engine's formulas): MadChess's NPS, the node budget per move and depth cap of
`LimitMode nodes` (the default, the mode the ladder plays) and the throttle NPS of `LimitMode
nps`, beside the nodes per move and NPS each player reached in the ladder.

The effort grows like a 4th power of the Elo (docs/reference/elo_limit.md §0) while a Python
search is far slower than MadChess (§6: "a pure-Python search will not reach MadChess's 2M
NPS"), so above some Elo the limit no longer binds and levels differ only by move errors,
knowledge and the depth cap. That saturation Elo, found by bisection over the engine's dumps, is
printed for each mode: for `nodes`, the lowest level whose budget reaches the nodes per move
full strength searched in these games (so it depends on the time control); for `nps`, the lowest
whose throttle NPS reaches the engine's unthrottled NPS under CPython and PyPy (its `bench`).
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
from lab.calibration.probe import ProbeError, option_text
from lab.experiment import BUILTIN_ENGINES, DEFAULT_BOOK, Experiment, ExperimentError, load_book_for
from lab.experiment_file import parse_experiment
from lab.records import EngineSpec
from lab.runner import run_experiment
from lab.store import open_store

LEVELS = (800, 1200, 1600)
FULL = "full"
_ELO_OPTION = re.compile(r"option name UCI_Elo type spin default -?\d+ min (-?\d+) max (-?\d+)")
_TABLE_RANGE = re.compile(r"plays EloTable .* \(its range (-?\d+)\.\.(-?\d+)\)")
_NPS = re.compile(r"NPS = (\d+), MoveError")
_EFFORT = re.compile(r"Nodes = (\d+), DepthCap = (\d+), ThrottleNPS = (\d+)")


def level_name(elo: int) -> str:
    return f"L{elo}"


def ladder_experiment(levels: list[int], games: int, tc: str, interpreter: str, out: Path,
                      concurrency: int | None, seed: int = 1) -> Experiment:
    """The round-robin: each limited level and full strength, `games` per pairing (even: each
    opening with both colours), no resignation (weak levels often fail to convert, §5 step 2).
    The engines keep their default Move Overhead: the smooth manager keeps it back for every
    planned move (100 ms left full strength about 17 ms a move at 4+0.04); the harness's margin
    absorbs a late answer, so the ladder measures play, not time forfeits."""
    engines = [{"name": level_name(elo), "builtin": "tempo", "interpreter": interpreter,
                "options": {"UCI_LimitStrength": True, "UCI_Elo": elo}}
               for elo in levels]
    engines.append({"name": FULL, "builtin": "tempo", "interpreter": interpreter})
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


def nodes_per_move(moves: pd.DataFrame) -> dict[str, int]:
    """Median nodes each engine searched per move in the games."""
    if moves.empty or "nodes" not in moves:
        return {}
    medians = moves.dropna(subset=["nodes"]).groupby("engine")["nodes"].median()
    return {engine: int(value) for engine, value in medians.items()}


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
    """One engine process with the spec's options, `debug on` and UCI_LimitStrength, answering
    "which NPS limit at this Elo" from the parameter dump each `setoption name UCI_Elo` prints
    (the format of lab.calibration.probe); one process for all the probes a bisection needs."""

    def __init__(self, spec: EngineSpec | None = None) -> None:
        spec = spec or probe_spec()
        self.name = spec.name
        self.process = subprocess.Popen(
            spec.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, cwd=spec.cwd, env={**os.environ, **spec.env})
        lines = self.converse(["uci", *(f"setoption name {k} value {option_text(v)}"
                                         for k, v in spec.options.items()),
                               "debug on", "setoption name UCI_LimitStrength value true"])
        declared = next((m for m in map(_ELO_OPTION.search, lines) if m), None)
        if declared is None:
            self.close()
            raise ProbeError(f"engine {self.name} declares no UCI_Elo range: {lines[:3]}")
        declared = next((m for m in map(_TABLE_RANGE.search, lines) if m), declared)
        self.elo_range = (int(declared.group(1)), int(declared.group(2)))
        """The `UCI_Elo` range the engine accepts (it refuses other values): the one it declares,
        or the loaded table's, which starts at its first row; its top is full strength, which
        dumps no parameters."""

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

    def effort(self, elo: int) -> LevelEffort:
        """The search effort the engine dumps for `elo`."""
        lines = [line for line in self.converse([f"setoption name UCI_Elo value {elo}"])
                 if line.startswith("info string ")]
        nps = next((m for m in map(_NPS.search, lines) if m), None)
        effort = next((m for m in map(_EFFORT.search, lines) if m), None)
        if nps is None or effort is None:
            raise ProbeError(f"engine {self.name} printed no search effort for UCI_Elo {elo}: "
                             f"{lines[:3]}")
        return LevelEffort(int(nps.group(1)), *(int(group) for group in effort.groups()))

    def nps(self, elo: int) -> int:
        """MadChess's NPS the engine dumps for `elo`."""
        return self.effort(elo).nps

    def nodes(self, elo: int) -> int:
        """The node budget per move of `elo` (`LimitMode nodes`)."""
        return self.effort(elo).nodes

    def throttle_nps(self, elo: int) -> int:
        """The NPS `LimitMode nps` holds `elo` to."""
        return self.effort(elo).throttle_nps

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


def saturation_elo(reached: float, limit_of: Callable[[int], int],
                   elo_range: tuple[int, int]) -> int | None:
    """The lowest Elo of `elo_range` whose limit (`limit_of`: node budget or NPS) is at least
    `reached`, the effort the unlimited engine spends (the limit no longer binds from there on),
    by bisection: the limit grows with the Elo. The range's top is full strength, so the highest
    limited level is one below it. None when even that level binds."""
    low, high = elo_range[0], elo_range[1] - 1
    if limit_of(high) < reached:
        return None
    if limit_of(low) >= reached:
        return low
    while high - low > 1:
        middle = (low + high) // 2
        if limit_of(middle) >= reached:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class LevelEffort:
    """A level's search effort from the engine's dump: MadChess's NPS, then `LimitMode nodes`'
    budget per move and depth cap and `LimitMode nps`' throttle."""

    nps: int
    nodes: int
    depth_cap: int
    throttle_nps: int


@dataclass
class SpeedRow:
    """One interpreter's unthrottled speed (engine bench) and the Elo where `LimitMode nps`'
    throttle stops binding at that speed."""

    interpreter: str
    nps: int
    cpu_nps: int | None
    saturation: int | None


def measure_speeds(depth: int, throttle_of: Callable[[int], int],
                   elo_range: tuple[int, int]) -> list[SpeedRow | str]:
    """Each interpreter's `bench` speed and the saturation Elo of `throttle_of` (an Elo's
    throttle NPS) at that speed."""
    rows: list[SpeedRow | str] = []
    for interpreter in INTERPRETERS:
        try:
            run = run_engine_bench("alphabeta", interpreter, depth)
        except BenchError as error:
            rows.append(f"{interpreter}: {error}")
            continue
        speed = run.cpu_nps or run.nps
        rows.append(SpeedRow(interpreter, run.nps, run.cpu_nps,
                             saturation_elo(speed, throttle_of, elo_range)))
    return rows


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "elo", description="Round-robin of UCI_Elo levels and full strength with paired openings, "
        "then each level's search effort (node budget, depth cap, throttle NPS) beside the nodes "
        "per move and NPS it reached, and the Elo above which each limit mode no longer binds: "
        "node budgets against full strength's nodes per move in the games, the throttle against "
        "the engine's unthrottled NPS under CPython and PyPy.")
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)),
                        help="comma-separated UCI_Elo levels (default "
                        f"{','.join(map(str, LEVELS))})")
    parser.add_argument("--games", type=int, default=2,
                        help="games per pairing, even (default 2: one opening, both colours)")
    parser.add_argument("--tc", default="4+0.04", help="time control (default 4+0.04)")
    parser.add_argument("--interpreter", choices=INTERPRETERS, default="cpython",
                        help="interpreter of the ladder's engines (default cpython, the "
                        "engine's own default)")
    parser.add_argument("--concurrency", type=int, help="games at once (default: cores)")
    parser.add_argument("--seed", type=int, default=1, help="opening order seed (default 1)")
    parser.add_argument("--bench-depth", type=int, default=4,
                        help="depth of the engine bench that measures unthrottled NPS")
    parser.add_argument("--out", help="results folder (default: a new temporary folder)")
    parser.set_defaults(func=run)


def parse_levels(text: str, elo_range: tuple[int, int]) -> list[int]:
    """The --levels list, checked: distinct limited levels, below the range's top (full
    strength, which the ladder plays anyway)."""
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--levels {text!r}: give comma-separated integers") from None
    low, high = elo_range[0], elo_range[1] - 1
    bad = [elo for elo in levels if not low <= elo <= high]
    if not levels or bad or len(set(levels)) != len(levels):
        raise ValueError(f"--levels {text!r}: distinct Elos in {low}..{high} needed (the "
                         f"engine's UCI_Elo range is {low}..{elo_range[1]}, its top full "
                         "strength)")
    return sorted(levels)


def run(args: argparse.Namespace) -> int:
    try:
        if args.games < 2 or args.games % 2:
            raise ValueError(f"--games {args.games}: an even number >= 2 is needed")
        with LimitProbe() as probe:
            elo_range = probe.elo_range
            levels = parse_levels(args.levels, elo_range)
            efforts = {level_name(elo): probe.effort(elo) for elo in levels}
        out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="tempo-bench-elo-"))
        experiment = ladder_experiment(levels, args.games, args.tc, args.interpreter, out,
                                       args.concurrency, args.seed)
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
    reached, per_move = reached_nps(moves), nodes_per_move(moves)
    print(f"\n{'level':<8} {'MadChess NPS':>12} {'node budget':>11} {'depth cap':>9} "
          f"{'throttle NPS':>12} {'nodes/move':>10} {'NPS in games':>12}")
    for name in players:
        effort = efforts.get(name)
        limits = (f"{effort.nps:>12} {effort.nodes:>11} {effort.depth_cap:>9} "
                  f"{effort.throttle_nps:>12}" if effort else
                  f"{'none':>12} {'none':>11} {'none':>9} {'none':>12}")
        print(f"{name:<8} {limits} {per_move.get(name, '-'):>10} {reached.get(name, '-'):>12}")
    with LimitProbe() as probe:
        full_nodes = per_move.get(FULL)
        if full_nodes is not None:
            where = saturation_elo(full_nodes, probe.nodes, elo_range)
            print(f"\nLimitMode nodes (played here): full strength searched a median {full_nodes} "
                  f"nodes per move at {args.tc}; " + (
                      f"node budgets reach that from UCI_Elo {where}" if where is not None
                      else "every limited level's budget is below it"))
        print("\nLimitMode nps: unthrottled NPS (engine bench, alphabeta) and the saturation Elo "
              "(the lowest whose throttle NPS is at least that speed, by the CPU-time NPS):")
        speeds = measure_speeds(args.bench_depth, probe.throttle_nps, elo_range)
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
