"""A minimal UCI engine that answers `go` at once with a random legal move (for harness benches).

Run as `python -m lab.bench._instant_engine [--seed N] [--first-go FILE]`; with `--first-go` it
writes the wall-clock time (`time.time()`) at which it read its first `go` to FILE, for the
command-to-first-go figure. It spends no time searching, so whatever
time the harness measures for its moves is pipe and harness latency. It reports, in an `info`
line before `bestmove`, its own time from reading `go` to writing the answer (`time`, whole ms,
and `string elapsed_us`), so measured minus reported time is the harness's share.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import chess


def _position(tokens: list[str]) -> chess.Board:
    """The board of a `position [startpos | fen F] [moves ...]` command (tokens after it)."""
    if "moves" in tokens:
        index = tokens.index("moves")
        head, moves = tokens[:index], tokens[index + 1:]
    else:
        head, moves = tokens, []
    board = chess.Board() if head[:1] == ["startpos"] else chess.Board(" ".join(head[1:]))
    for move in moves:
        board.push_uci(move)
    return board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first-go", metavar="FILE", help="write the time of the first go here")
    args = parser.parse_args(argv)
    first_go = args.first_go
    rng = random.Random(args.seed)
    board = chess.Board()
    out = sys.stdout
    for line in sys.stdin:
        started = time.perf_counter()
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "uci":
            out.write("id name Instant\nid author Tempo\nuciok\n")
        elif command == "isready":
            out.write("readyok\n")
        elif command == "ucinewgame":
            board = chess.Board()
        elif command == "position":
            board = _position(tokens[1:])
        elif command == "go":
            if first_go is not None:
                with open(first_go, "w") as stamp:
                    stamp.write(repr(time.time()))
                first_go = None
            moves = list(board.legal_moves)
            best = rng.choice(moves).uci() if moves else "(none)"
            used_us = (time.perf_counter() - started) * 1e6
            out.write(f"info depth 1 score cp 0 nodes 1 time {int(used_us // 1000)} pv {best}\n"
                      f"info string elapsed_us {used_us:.0f}\nbestmove {best}\n")
        elif command == "quit":
            break
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
