"""Opening books: start positions from EPD or PGN files, and building a balanced EPD book.

An `Opening` is a start position (FEN) plus book moves played from it. EPD lines give a position
and no moves; PGN games give their start position and their first `plies` moves. A malformed file
raises `BookError` naming the file and the line. The FEN keeps the EPD's en-passant square and
drops its opcodes (fastchess #248, #559 in docs/reference/harness_and_stats.md §7.2).
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn


class BookError(ValueError):
    """A book file that cannot be read; the message names the file and, when known, the line."""


@dataclass(frozen=True)
class Opening:
    """A start position and the book moves (UCI) played from it; `source` is 'file:line'."""

    fen: str
    moves: tuple[str, ...] = ()
    source: str = ""

    def board(self) -> chess.Board:
        """The position after the book moves."""
        board = chess.Board(self.fen)
        for uci in self.moves:
            board.push_uci(uci)
        return board


def book_format(path: str | Path) -> str:
    """'epd' or 'pgn' from the file's suffix; other suffixes are an error."""
    suffix = Path(path).suffix.lower()
    if suffix in (".epd", ".fen"):
        return "epd"
    if suffix == ".pgn":
        return "pgn"
    raise BookError(f"{path}: unknown opening-book format {suffix!r}; use .epd or .pgn")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BookError(f"{path}: opening book not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BookError(f"{path}: cannot read the opening book: {exc}") from None


def read_epd(path: str | Path) -> list[Opening]:
    """One opening per non-blank, non-comment line; a bad line raises `BookError` (file:line)."""
    path = Path(path)
    openings = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board, _ = chess.Board.from_epd(text)
        except ValueError as exc:
            raise BookError(f"{path}:{number}: not a valid EPD position ({exc}): "
                            f"{text!r}") from None
        status = board.status()
        if status != chess.STATUS_VALID:
            raise BookError(f"{path}:{number}: illegal position ({status!r}): {text!r}")
        if board.is_game_over():
            raise BookError(f"{path}:{number}: the game is already over in {text!r}")
        openings.append(Opening(board.fen(), (), f"{path}:{number}"))
    if not openings:
        raise BookError(f"{path}: no positions in the opening book")
    return openings


def read_pgn(path: str | Path, plies: int | None = None) -> list[Opening]:
    """The start position and first `plies` moves (all when None) of each game in a PGN file.

    python-chess reads leniently; a game with a parse error, an illegal move or no moves raises
    `BookError` with the line where that game starts.
    """
    path = Path(path)
    text = _read_text(path)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    handle = io.StringIO(text)
    openings = []
    while True:
        start = handle.tell()
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        number = _line_of(offsets, start, text)
        if game.errors:
            raise BookError(f"{path}:{number}: bad PGN game: {game.errors[0]}")
        board = game.board()
        fen = board.fen()
        moves = []
        for move in game.mainline_moves():
            if plies is not None and len(moves) >= plies:
                break
            moves.append(move.uci())
            board.push(move)
        if not moves and board.is_game_over():
            raise BookError(f"{path}:{number}: the game is already over at its start")
        if board.is_game_over():
            raise BookError(f"{path}:{number}: the book line ends the game ({board.result()})")
        openings.append(Opening(fen, tuple(moves), f"{path}:{number}"))
    if not openings:
        raise BookError(f"{path}: no games in the opening book")
    return openings


def _line_of(offsets: list[int], position: int, text: str) -> int:
    """1-based line of the first non-blank character at or after character `position`."""
    while position < len(text) and text[position].isspace():
        position += 1
    low, high = 0, len(offsets) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if offsets[mid] <= position:
            low = mid
        else:
            high = mid - 1
    return low + 1


def load_book(path: str | Path, fmt: str | None = None, plies: int | None = None) -> list[Opening]:
    """Read an EPD or PGN book (format from the suffix unless `fmt` is given)."""
    fmt = fmt or book_format(path)
    if fmt == "epd":
        return read_epd(path)
    if fmt == "pgn":
        return read_pgn(path, plies)
    raise BookError(f"{path}: unknown opening-book format {fmt!r}; use 'epd' or 'pgn'")


def order_book(openings: list[Opening], order: str = "sequential", seed: int = 0) -> list[Opening]:
    """The book in play order: as read, or shuffled by a seeded generator (same seed, same
    order)."""
    if order == "sequential":
        return list(openings)
    if order == "random":
        shuffled = list(openings)
        random.Random(seed).shuffle(shuffled)
        return shuffled
    raise BookError(f"unknown opening order {order!r}; use 'sequential' or 'random'")


# --- Building a balanced book (`tempo openings`) ------------------------------------------------


@dataclass
class BookBuild:
    """What `build_book` kept and how many candidates it looked at."""

    lines: list[tuple[chess.Board, int]] = field(default_factory=list)
    tried: int = 0
    rejected_eval: int = 0
    duplicates: int = 0


def random_line(rng: random.Random, plies: int) -> chess.Board | None:
    """A uniformly random legal line of `plies` plies from the start; None when the game ends."""
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return None
        board.push(rng.choice(moves))
    return None if board.is_game_over() else board


def weighted_line(rng: random.Random, games: list[list[chess.Move]], plies: int) -> chess.Board:
    """A line drawn from a set of games: each move chosen with the frequency it has there.

    Walks from the start; at each ply the continuations of the games that follow the line so far
    are counted and one is drawn in proportion (book-weighted); a random legal move finishes the
    line when no game goes on.
    """
    board = chess.Board()
    following = games
    for ply in range(plies):
        options = [g[ply] for g in following if len(g) > ply and board.is_legal(g[ply])]
        move = rng.choice(options) if options else rng.choice(list(board.legal_moves))
        following = [g for g in following if len(g) > ply and g[ply] == move]
        board.push(move)
        if board.is_game_over():
            break
    return board


def build_book(
    evaluate: Callable[[chess.Board], int | None],
    count: int,
    plies: int,
    max_cp: int,
    seed: int = 0,
    source_games: list[list[chess.Move]] | None = None,
    max_tries: int | None = None,
) -> BookBuild:
    """Draw lines (random, or book-weighted from `source_games`) and keep the balanced ones.

    `evaluate` gives the side-to-move's score in centipawns (None for a mate), so a line is kept
    when |score| ≤ `max_cp`; duplicate positions are skipped. Stops after `count` lines or
    `max_tries` candidates (default 50 × count).
    """
    rng = random.Random(seed)
    seen: set[str] = set()
    build = BookBuild()
    limit = max_tries if max_tries is not None else 50 * count
    while len(build.lines) < count and build.tried < limit:
        build.tried += 1
        if source_games:
            board = weighted_line(rng, source_games, plies)
        else:
            board = random_line(rng, plies)
        if board is None or board.is_game_over():
            continue
        key = board.epd()
        if key in seen:
            build.duplicates += 1
            continue
        seen.add(key)
        score = evaluate(board)
        if score is None or abs(score) > max_cp:
            build.rejected_eval += 1
            continue
        build.lines.append((board, score))
    return build


def write_epd(path: str | Path, lines: list[tuple[chess.Board, int]], prefix: str = "bal") -> None:
    """Write an EPD book: one position per line with its `ce` (side to move, as EPD defines it)
    and an `id`."""
    with open(path, "w", encoding="utf-8") as out:
        for index, (board, score) in enumerate(lines):
            out.write(board.epd(ce=score, id=f"{prefix}{index:04d}") + "\n")
