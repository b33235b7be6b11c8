"""`bench`: search fixed positions to a fixed depth and print the node count and speed.

As Stockfish's bench: the node count depends only on the search and the evaluation (fresh tables
for every position, no time limits), so it is the engine's signature; nodes per second measure
the interpreter and the machine. The searches check their limits at steady node counts rather
than by the clock ("Checks : steady"), so runs execute the same instructions but for the printed
times' digits (`tempo bench instructions` counts them under callgrind).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import chess

from engine import search
from engine.evaluate import Evaluator
from engine.search.context import SearchContext
from engine.tt import TranspositionTable
from timecontrol.stopper import ChainedStopper, DepthStopper

BENCH_DEPTH = 5
BENCH_POSITIONS = (
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 2 9",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
)


@dataclass
class BenchResult:
    """Total nodes and wall time of a bench run."""

    nodes: int
    time_ms: float

    @property
    def nps(self) -> int:
        return int(self.nodes * 1000 / self.time_ms) if self.time_ms > 0 else 0


def run_bench(
    mode: str = "alphabeta",
    depth: int = BENCH_DEPTH,
    send: Callable[[str], None] = print,
    hash_mb: int = 16,
) -> BenchResult:
    """Search every bench position to `depth` with `mode`; print Stockfish-style totals (plus
    nodes per CPU second, the steadier figure on a shared machine)."""
    nodes = 0
    send(f"Interpreter: {platform.python_implementation()} {platform.python_version()}")
    began = time.perf_counter()
    cpu_began = time.process_time()
    for index, fen in enumerate(BENCH_POSITIONS, 1):
        send(f"Position: {index}/{len(BENCH_POSITIONS)} {fen}")
        ctx = SearchContext(
            board=chess.Board(fen),
            evaluator=Evaluator(),
            tt=TranspositionTable(hash_mb),
            stopper=ChainedStopper([DepthStopper(depth)]),
            send=send,
            steady_checks=True,
        )
        nodes += search.run(mode, ctx).nodes
    result = BenchResult(nodes, (time.perf_counter() - began) * 1000)
    cpu_ms = (time.process_time() - cpu_began) * 1000
    send("===========================")
    send(f"Total time (ms) : {int(result.time_ms)}")
    send(f"Nodes searched  : {result.nodes}")
    send(f"Nodes/second    : {result.nps}")
    send(f"CPU nodes/second: {int(nodes * 1000 / cpu_ms) if cpu_ms > 0 else 0}")
    send("Checks          : steady")
    return result
