"""`tempo bench harness`: what the harness itself costs, and how fast it plays games.

Five figures (issues 6 and 17; docs/reference/harness_and_stats.md sections 3.1, 7.2 and 8):

1. Latency, with the instant-move engine (`lab.bench._instant_engine`) playing itself in one
   process: the harness's turnaround from a `bestmove` read to the next `go` written (median and
   99th percentile), the measured `go`-to-`bestmove` time, and measured minus engine-reported
   time. For the timed games the engine's own account is both its last `info ... time` (which
   an engine may send well before it stops) and, for our engine, the telemetry's `used_ms`.
2. Games per hour at 10+0.1 with concurrency 2, our engine against itself (`--engine stockfish`
   for Stockfish), on the local backend's worker pool.
3. Time losses at 1+0.01 with concurrency = CPU cores.
4. Milliseconds per ply, Stockfish against itself at `nodes=1` (100 games, concurrency 1), the
   figure fastchess and cutechess are compared on: while playing (games in this process) and for
   the whole `tempo match` command (start-up, workers, store and exports included).
5. Command to first `go`: from starting `tempo match` to the first `go` an engine reads.

Games start from the 8-ply book in experiments/books and use fishtest's adjudication
(resign 3 moves at 600 cp, draw after move 34 for 8 moves within 20 cp; reference section 4.4).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import numpy as np

from lab.backends.local import LocalPool
from lab.engine_process import EnginePool
from lab.game import play_game
from lab.openings import read_epd
from lab.records import Adjudication, EngineSpec, GameRecord, GameTask, Termination
from timecontrol.control import TimeControl

BOOK = Path(__file__).resolve().parents[2] / "experiments" / "books" / "openings_8ply.epd"
FISHTEST_ADJUDICATION = Adjudication(draw_move_number=34, draw_move_count=8, draw_score_cp=20,
                                     resign_move_count=3, resign_score_cp=600)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("harness")
    parser.add_argument("--latency-games", type=int, default=10,
                        help="instant-engine games for the latency figures (default 10)")
    parser.add_argument("--games", type=int, default=8,
                        help="games at 10+0.1, concurrency 2 (default 8; 0 skips)")
    parser.add_argument("--forfeit-games", type=int, default=20,
                        help="games at 1+0.01, concurrency = cores (default 20; 0 skips)")
    parser.add_argument("--engine", choices=("tempo", "stockfish"), default="tempo",
                        help="the engine that plays itself in the timed games (default tempo)")
    parser.add_argument("--ply-games", type=int, default=100,
                        help="Stockfish nodes=1 games for the ms-per-ply figures (default 100)")
    parser.add_argument("--margin-ms", type=int, default=0,
                        help="time margin of the timed games, ms (default 0, as fastchess)")
    parser.set_defaults(func=run)


def engine_spec(which: str) -> EngineSpec:
    """Our engine through its launcher, or Debian's Stockfish (one thread, 16 MB)."""
    if which == "stockfish":
        return EngineSpec("stockfish", ["/usr/games/stockfish"], options={"Threads": 1,
                                                                           "Hash": 16})
    return EngineSpec("tempo", [str(Path(sys.executable).parent / "tempo-engine")])


def instant_spec(seed: int) -> EngineSpec:
    return EngineSpec(f"instant-{seed}", [sys.executable, "-m", "lab.bench._instant_engine",
                                          f"--seed={seed}"])


def paired_tasks(prefix: str, spec: EngineSpec, tc: TimeControl, games: int,
                 margin_ms: int = 0) -> list[GameTask]:
    """`games` self-play games (white and black are two processes of `spec`), paired openings."""
    openings = read_epd(BOOK)
    black = EngineSpec(**{**spec.__dict__, "name": f"{spec.name}-b"})
    tasks = []
    for index in range(games):
        opening = openings[index // 2 % len(openings)]
        white_spec, black_spec = (spec, black) if index % 2 == 0 else (black, spec)
        tasks.append(GameTask(f"{prefix}-{index}", index // 2 + 1, white_spec, black_spec, tc,
                              opening.fen, list(opening.moves), FISHTEST_ADJUDICATION,
                              margin_ms=margin_ms, pair_id=f"{prefix}-pair-{index // 2}"))
    return tasks


def play_concurrently(tasks: list[GameTask], concurrency: int) -> tuple[list[GameRecord], float]:
    """Play `tasks` on the local backend's worker pool; the records and the wall time (s)."""
    pool = LocalPool(concurrency)
    pending, records = list(tasks), []
    started = time.monotonic()
    try:
        while len(records) < len(tasks):
            for worker_id in pool.idle():
                if pending:
                    pool.submit(worker_id, pending.pop(0))
            message = pool.receive(timeout=1.0)
            if message is None:
                if pool.dead():
                    raise RuntimeError("a worker process died during the benchmark")
                continue
            kind, worker_id, payload = message
            pool.workers[worker_id].task = None
            if kind != "done":
                raise RuntimeError(f"a game failed in a worker:\n{payload}")
            records.append(payload)
    finally:
        pool.close()
    return records, time.monotonic() - started


def latency_figures(games: int) -> dict[str, np.ndarray]:
    """Per-move turnaround, measured time and measured - reported time of instant-engine games."""
    turnaround, measured, diff = [], [], []
    with EnginePool() as pool:
        for index in range(games):
            task = GameTask(f"latency-{index}", 1, instant_spec(2 * index + 1),
                            instant_spec(2 * index + 2), TimeControl(base_ms=600_000),
                            chess.STARTING_FEN, adjudication=Adjudication(max_moves=100))
            for move in play_game(task, pool).moves:
                measured.append(move.elapsed_ms)
                if move.turnaround_ms is not None:
                    turnaround.append(move.turnaround_ms)
                if move.search.reported_ms is not None:
                    diff.append(move.elapsed_ms - move.search.reported_ms)
    return {"turnaround": np.array(turnaround), "measured": np.array(measured),
            "diff": np.array(diff)}


def ms_per_ply_playing(games: int) -> float:
    """Stockfish against itself at nodes=1, games played in this process on one engine pool."""
    tasks = paired_tasks("ply", engine_spec("stockfish"), TimeControl(nodes=1), games)
    plies = 0
    with EnginePool() as pool:
        started = time.perf_counter()
        for task in tasks:
            plies += len(play_game(task, pool).moves)
        return 1000.0 * (time.perf_counter() - started) / max(plies, 1)


def ms_per_ply_command(games: int) -> float:
    """The same games through the whole `tempo match` command, start to exit."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "lab.cli", "match", "stockfish", "stockfish",
                        "--tc", "nodes=1", "--games", str(games), "--concurrency", "1",
                        "--out", folder], check=True, capture_output=True)
        wall = time.perf_counter() - started
        with sqlite3.connect(Path(folder) / "tempo.sqlite") as conn:
            plies = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    return 1000.0 * wall / max(plies, 1)


def command_to_first_go() -> float:
    """Seconds from starting `tempo match` (two instant engines, one game pair) to the first
    `go`."""
    with tempfile.TemporaryDirectory() as folder:
        stamp = Path(folder) / "first-go"
        engine = Path(folder) / "instant"  # `tempo match` takes a program, not a command line
        engine.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m "
                          f"lab.bench._instant_engine --first-go {shlex.quote(str(stamp))}\n")
        engine.chmod(0o755)
        started = time.time()
        subprocess.run([sys.executable, "-m", "lab.cli", "match", str(engine), str(engine), "--tc",
                        "nodes=1", "--games", "2", "--out", str(Path(folder) / "out")],
                       check=True, capture_output=True)
        return float(stamp.read_text()) - started


def _line(label: str, values: np.ndarray) -> str:
    return (f"  {label:<44} median {np.median(values):7.3f} ms   "
            f"p99 {np.percentile(values, 99):7.3f} ms   (n={values.size})")


def run(args: argparse.Namespace) -> int:
    cores = os.cpu_count() or 1
    print(f"tempo bench harness: python {sys.version.split()[0]}, {cores} cores")
    if args.latency_games > 0:
        figures = latency_figures(args.latency_games)
        print(f"latency, instant engine vs itself, {args.latency_games} games, one process:")
        print(_line("bestmove received -> next go sent", figures["turnaround"]))
        print(_line("go sent -> bestmove received (measured)", figures["measured"]))
        print(_line("measured - engine-reported time", figures["diff"]))
    if args.ply_games > 0:
        playing = ms_per_ply_playing(args.ply_games)
        whole = ms_per_ply_command(args.ply_games)
        print(f"stockfish vs itself at nodes=1, {args.ply_games} games, concurrency 1: "
              f"{playing:.3f} ms per ply while playing, {whole:.3f} ms per ply for the whole "
              "tempo match command (fastchess: 0.83-1.04 ms whole command on this kind of "
              "machine)")
        print(f"command to first go: {command_to_first_go():.3f} s")
    spec = engine_spec(args.engine)
    runs = [(TimeControl(base_ms=10_000, inc_ms=100), args.games, 2),
            (TimeControl(base_ms=1_000, inc_ms=10), args.forfeit_games, cores)]
    for tc, games, concurrency in runs:
        if games <= 0:
            continue
        tasks = paired_tasks(f"bench-{tc}", spec, tc, games, args.margin_ms)
        records, wall = play_concurrently(tasks, concurrency)
        forfeits = sum(record.termination == Termination.TIME_FORFEIT for record in records)
        overruns = [record.reason.rsplit("(", 1)[-1].split()[0] for record in records
                    if record.termination == Termination.TIME_FORFEIT]
        others = sorted({str(record.termination) for record in records} - {
            Termination.NORMAL, Termination.ADJUDICATION, Termination.TIME_FORFEIT})
        moves = [move for record in records for move in record.moves]
        diff = np.array([m.elapsed_ms - m.search.reported_ms for m in moves
                         if m.search.reported_ms is not None])
        used = np.array([m.elapsed_ms - m.search.telemetry["used_ms"] for m in moves
                         if "used_ms" in m.search.telemetry])
        print(f"{spec.name} vs itself at {tc}, concurrency {concurrency}, {games} games, "
              f"margin {args.margin_ms} ms:")
        print(f"  wall time {wall:.1f} s, {games / wall * 3600:.0f} games per hour, "
              f"{len(moves)} moves")
        print(f"  time losses {forfeits} of {games} ({100 * forfeits / games:.1f} %)"
              + (f", overruns (ms): {', '.join(overruns)}" if overruns else "")
              + (f"; other endings: {', '.join(others)}" if others else ""))
        if diff.size:
            print(_line("measured - last `info time`", diff))
        if used.size:
            print(_line("measured - telemetry used_ms", used))
    return 0
