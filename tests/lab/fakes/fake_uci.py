"""A small misbehaving UCI engine for fault tests; run with sys.executable.

It plays the first legal move in UCI order after sleeping `--sleep-ms`, reporting `--score`
(centipawns, its own point of view) and its own time. At its `--at`-th `go` (counted in this
process) it commits the `--fault`:

* `crash`: exits at once with status 3;
* `segfault`: writes a stack trace to stderr and exits with status 139 (as a shell reports a
  segmentation fault);
* `hang`: never answers again, not even `stop` or `isready`;
* `illegal`: answers `bestmove a1b4`, well formed but never legal;
* `malformed`: answers `bestmove zz99`;
* `nullmove`: answers `bestmove 0000` (a null move: well formed UCI, never a legal move);
* `san`: answers its move in SAN (`bestmove Nf3`), the wrong notation;
* `slow`: sleeps `--slow-ms` before answering (it ignores `stop` while sleeping);
* `nouciok`: (at start-up, `--at` ignored) never finishes the `uci` handshake;
* `deaf`: hangs at its `--at`-th `isready` (counted instead of `go`), never answering.

`--ponder` names the ponder move it adds to `bestmove`: `first` (the reply this fake would play),
`second` (another legal reply), `illegal` (`a1a1`) or `none` (no ponder move, the default); with
one it declares the `Ponder` option and answers `go ponder` only after `ponderhit` (as a `go`,
sleeping `--sleep-ms`) or `stop` (at once).

`--log FILE` appends every command received to FILE (created at start-up). `--uciok-after FILE`
holds back `uciok` until FILE exists (so two fakes can wait for each other's start). With
`--once FILE` the fault happens only if FILE does not exist yet (it is created), so a restarted
process behaves.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import chess


def first_legal(board: chess.Board) -> str:
    """The move this fake plays: the first legal one in UCI order."""
    return min(board.legal_moves, key=lambda m: m.uci()).uci()


def ponder_text(board: chess.Board, move: str, kind: str) -> str:
    """The ` ponder Y` part of `bestmove` (`--ponder`), empty when there is none to give."""
    if kind == "none":
        return ""
    if kind == "illegal":
        return " ponder a1a1"
    after = board.copy()
    after.push_uci(move)
    replies = sorted(m.uci() for m in after.legal_moves)
    index = 0 if kind == "first" else 1
    return f" ponder {replies[index]}" if len(replies) > index else ""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", default="none")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--once", default=None)
    parser.add_argument("--sleep-ms", type=float, default=0.0)
    parser.add_argument("--slow-ms", type=float, default=0.0)
    parser.add_argument("--score", type=int, default=0)
    parser.add_argument("--name", default="Fake")
    parser.add_argument("--ponder", default="none", choices=("none", "first", "second", "illegal"))
    parser.add_argument("--log", default=None, help="append every command received to this file")
    parser.add_argument("--uciok-after", default=None, help="answer uciok once this file exists")
    args = parser.parse_args()
    fault = args.fault
    if args.once is not None:
        if os.path.exists(args.once):
            fault = "none"
        else:
            open(args.once, "w").close()
    board = chess.Board()
    searches = 0
    pings = 0
    pondering = False
    ponder_option = "" if args.ponder == "none" else "option name Ponder type check default false\n"
    out = sys.stdout
    log = open(args.log, "a") if args.log else None
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "uci":
            if fault == "nouciok":
                continue
            while args.uciok_after and not os.path.exists(args.uciok_after):
                time.sleep(0.01)
            out.write(f"id name {args.name} 1.0\nid author Tests\n"
                      f"option name Hash type spin default 16 min 1 max 128\n{ponder_option}"
                      "uciok\n")
        elif command == "isready":
            pings += 1
            if fault == "deaf" and pings >= args.at:
                while True:
                    time.sleep(60)
            out.write("readyok\n")
        elif command == "position":
            if "moves" in tokens:
                index = tokens.index("moves")
                head, moves = tokens[1:index], tokens[index + 1:]
            else:
                head, moves = tokens[1:], []
            board = chess.Board() if head[:1] == ["startpos"] else chess.Board(" ".join(head[1:]))
            for move in moves:
                board.push_uci(move)
        elif command == "go" and "ponder" in tokens:
            pondering = True
        elif command == "stop" and pondering:
            pondering = False
            out.write(f"bestmove {first_legal(board)}\n")
        elif command == "go" or (command == "ponderhit" and pondering):
            pondering = False
            started = time.perf_counter()
            searches += 1
            now = searches == args.at
            if now and fault == "crash":
                os._exit(3)
            if now and fault == "segfault":
                sys.stderr.write("fake: search started\nfake: stack trace:\n"
                                 "  #0 search() at search.c:42\n  #1 main() at main.c:7\n"
                                 "fake: segmentation fault\n")
                sys.stderr.flush()
                os._exit(139)
            if now and fault == "hang":
                while True:
                    time.sleep(60)
            if args.sleep_ms:
                time.sleep(args.sleep_ms / 1000)
            if now and fault == "slow":
                time.sleep(args.slow_ms / 1000)
            move = first_legal(board)
            if now and fault == "illegal":
                move = "a1b4"  # no piece ever moves so (not a line, not a knight jump)
            if now and fault == "malformed":
                move = "zz99"
            if now and fault == "nullmove":
                move = "0000"
            if now and fault == "san":
                move = board.san(chess.Move.from_uci(move))
            used = int((time.perf_counter() - started) * 1000)
            out.write(f"info depth 1 seldepth 1 score cp {args.score} nodes 1 time {used} "
                      f"pv {move}\nbestmove {move}{ponder_text(board, move, args.ponder)}\n")
        elif command == "quit":
            break
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
