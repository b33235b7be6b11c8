"""`tempo bench page`: how long writing report.html takes for a large results folder.

The folder is synthetic but has the shape of a real run: a round-robin of three engines with
paired openings, games of random legal moves from the start position (60 to 160 plies, decided
or drawn), every move with its time, clocks, depth, score, nodes and NPS, and the telemetry of a
smooth time manager for two of the engines, and its `games.pgn` as a run leaves it. It is built
once (into `--folder`, default a temporary one) and the page written `--repeat` times; the
figures are the seconds per write, wall-clock and CPU, and the page's size.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import chess

from lab.commands.gauntlet import positive_int
from lab.export import PGN_NAME, write_pgn
from lab.page.write import write_run_page
from lab.records import GameRecord, MoveRecord, SearchInfo
from lab.store import DB_NAME, open_store
from timecontrol.control import parse_time_control

ENGINES = ("smooth", "fraction", "stockfish")
RESULTS = ("1-0", "0-1", "1/2-1/2")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("page", description="Time writing report.html for a "
                                   "synthetic 1000-game, 3-engine results folder.")
    parser.add_argument("--games", type=positive_int, default=1000, help="games (default 1000)")
    parser.add_argument("--repeat", type=positive_int, default=3,
                        help="writes to time (default 3)")
    parser.add_argument("--folder", type=Path, help="build the folder here (kept) instead of "
                        "in a temporary folder; an existing one is reused")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(func=run)


def _moves(rng: random.Random, plies: int, telemetry: dict[str, bool]) -> tuple[
        list[MoveRecord], str]:
    board = chess.Board()
    clocks = {chess.WHITE: 10_000.0, chess.BLACK: 10_000.0}
    moves = []
    for ply in range(1, plies + 1):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        side = board.turn
        used = rng.uniform(20.0, 400.0)
        before = clocks[side]
        clocks[side] = max(before - used, 0.0) + 100.0
        nodes = int(used * rng.uniform(8.0, 20.0))
        tm = {}
        if telemetry["white" if side == chess.WHITE else "black"]:
            tm = {"tm": "smooth", "ply": ply, "budget_ms": used * rng.uniform(0.8, 1.2),
                  "hard_ms": used * 3.0, "used_ms": used, "nodes": nodes,
                  "reused_nodes": nodes // 4, "moves_left": max(60.0 - ply / 2, 10.0),
                  "nps_est": 15_000.0, "tree_reuse": 0.3, "timeuse": 0.7,
                  "stop_reason": "deadline"}
        moves.append(MoveRecord(
            ply=ply, move=move.uci(), san=board.san(move), elapsed_ms=used,
            clock_before_ms=before, clock_after_ms=clocks[side],
            search=SearchInfo(depth=rng.randint(2, 12), seldepth=rng.randint(8, 20),
                              score_cp=rng.randint(-300, 300), nodes=nodes,
                              nps=int(nodes / used * 1000), pv=move.uci(),
                              reported_ms=used - 1.0, telemetry=tm)))
        board.push(move)
    return moves, board.fen()


def build_folder(folder: Path, games: int, seed: int) -> None:
    """A results folder of `games` synthetic games (see the module docstring)."""
    rng = random.Random(seed)
    pairs = [(a, b) for i, a in enumerate(ENGINES) for b in ENGINES[i + 1:]]
    config = {
        "name": "bench-page", "tc": "10+0.1", "schedule": "round-robin", "challengers": [],
        "rounds": None, "games": games, "concurrency": 1, "margin_ms": 0,
        "openings": {"file": None, "format": None, "order": "sequential", "seed": 0,
                     "plies": None, "paired": True},
        "adjudication": {}, "sprt": {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05,
                                     "model": "normalized"},
        "engines": [{"name": name, "cmd": ["/usr/games/stockfish"], "options": {},
                     "protocol": "uci", "env": {}, "tc": None} for name in ENGINES],
    }
    with open_store(folder) as store:
        store.bind_experiment("bench-page", {"bench": seed}, config)
        for k in range(games):
            pair_index, game = divmod(k, 2)
            first, second = pairs[pair_index % len(pairs)]
            white, black = (first, second) if game == 0 else (second, first)
            telemetry = {"white": white != "stockfish", "black": black != "stockfish"}
            moves, fen = _moves(rng, rng.randint(60, 160), telemetry)
            store.add_game(GameRecord(
                game_id=f"r{pair_index + 1:04d}-g{game}", white=white, black=black,
                result=rng.choice(RESULTS), termination="normal", reason="synthetic",
                opening_fen=chess.STARTING_FEN, moves=moves,
                started_at=f"2026-01-01T00:{k // 60 % 60:02d}:{k % 60:02d}+00:00",
                finished_at=f"2026-01-01T01:{k // 60 % 60:02d}:{k % 60:02d}+00:00",
                tc=parse_time_control("10+0.1"), round=pair_index + 1,
                pair_id=f"r{pair_index + 1:04d}",
                final_fen=fen, worker={"host": "bench"}))
        write_pgn(store, folder / PGN_NAME, "bench-page")


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp) / "bench-page"
        if not (folder / DB_NAME).is_file():
            started = time.perf_counter()
            build_folder(folder, args.games, args.seed)
            print(f"built {args.games} games, {len(ENGINES)} engines in {folder} "
                  f"({time.perf_counter() - started:.1f} s)", flush=True)
        for k in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            path = write_run_page(folder)
            print(f"write {k + 1}: {time.perf_counter() - wall:.2f} s wall-clock "
                  f"({time.process_time() - cpu:.2f} s CPU), {path.stat().st_size / 1e6:.1f} MB",
                  flush=True)
    return 0
