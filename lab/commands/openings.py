"""`tempo openings OUT.epd --engine stockfish --count 500 --plies 8 --max-cp 50`: a balanced book.

Lines are random (or drawn, move by move, with the frequencies of the games in `--from` PGN), and
kept when the engine's evaluation at a fixed depth is within ±max-cp of equality, as the shared
book `openings_8ply.epd` was made (Stockfish, depth 12, 50 cp).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from lab.experiment import ExperimentError
from lab.openings import BookError, build_book, write_epd
from lab.quick_match import engine_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "openings", description=__doc__.split("\n\n")[1] if __doc__ else None)
    parser.add_argument("out", help="the EPD file to write")
    parser.add_argument("--engine", default="stockfish",
                        help="UCI engine that evaluates (default stockfish; options after ':')")
    parser.add_argument("--count", type=int, default=500, help="positions wanted (default 500)")
    parser.add_argument("--plies", type=int, default=8, help="plies per line (default 8)")
    parser.add_argument("--max-cp", type=int, default=50,
                        help="keep lines evaluated within ±this many centipawns (default 50)")
    parser.add_argument("--depth", type=int, default=12, help="evaluation depth (default 12)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--from", dest="source", metavar="PGN",
                        help="draw lines with the move frequencies of these games (book-weighted)")
    parser.set_defaults(func=run)


def _source_games(path: str) -> list[list[chess.Move]]:
    games = []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise BookError(f"{path}: cannot read: {exc}") from None
    with handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.errors:
                raise BookError(f"{path}: game {len(games) + 1}: {game.errors[0]}")
            if game.board().fen() == chess.STARTING_FEN:
                games.append(list(game.mainline_moves()))
    if not games:
        raise BookError(f"{path}: no games from the start position")
    return games


def run(args: argparse.Namespace) -> int:
    if args.count <= 0 or args.plies <= 0 or args.max_cp < 0 or args.depth <= 0:
        print("tempo openings: --count, --plies and --depth must be positive, --max-cp >= 0",
              file=sys.stderr)
        return 2
    try:
        table = engine_table(args.engine)
        source = _source_games(args.source) if args.source else None
    except (ExperimentError, BookError) as exc:
        print(f"tempo openings: {exc}", file=sys.stderr)
        return 2
    if "builtin" in table:
        from lab.experiment import BUILTIN_ENGINES

        command = BUILTIN_ENGINES[table["builtin"]]
    else:
        command = table["cmd"]
    try:
        engine = chess.engine.SimpleEngine.popen_uci(command)
    except (OSError, chess.engine.EngineError) as exc:
        print(f"tempo openings: cannot start engine {args.engine!r}: {exc}", file=sys.stderr)
        return 2
    try:
        engine.configure(table.get("options", {}))

        def evaluate(board: chess.Board) -> int | None:
            info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
            return info["score"].relative.score()

        build = build_book(evaluate, args.count, args.plies, args.max_cp, seed=args.seed,
                           source_games=source)
    finally:
        engine.quit()
    write_epd(Path(args.out), build.lines)
    print(f"{args.out}: {len(build.lines)} positions from {build.tried} lines "
          f"({build.rejected_eval} outside ±{args.max_cp} cp, {build.duplicates} duplicates)")
    return 0 if len(build.lines) == args.count else 1
