"""Opening books: start positions from EPD, PGN or Polyglot files, Chess960 and DFRC start
positions, and building a balanced EPD book.

An `Opening` is a start position (FEN) plus book moves played from it. EPD lines give a position
and no moves; PGN games give their start position and their first `plies` moves; a Polyglot
`.bin` book gives lines walked from the start position (`read_polyglot`). A malformed file raises
`BookError` naming the file and the line, in our words rather than python-chess's objects. The
FEN keeps the EPD's en-passant square and drops its opcodes (fastchess #248, #559 in
docs/reference/harness_and_stats.md §7.2). `start_at` is fastchess's `-openings start=N`.
A book read for a Chess960 or DFRC experiment (`chess960=True`) takes its FENs' castling as
X-FEN or Shredder-FEN and its moves in either castling notation.
"""

from __future__ import annotations

import bisect
import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot

from lab.variants import Variant

#: Lines drawn from a Polyglot book when it is read (the schedule wraps around them).
POLYGLOT_LINES = 1000
#: How a Polyglot book's move is chosen: in proportion to the entries' weights (cutechess-cli's
#: `OpeningBook::move`), or always the heaviest entry.
POLYGLOT_PICKS = ("weighted", "best")


class BookError(ValueError):
    """A book file that cannot be read; the message names the file and, when known, the line."""


@dataclass(frozen=True)
class Opening:
    """A start position and the book moves (UCI) played from it; `source` is 'file:line'."""

    fen: str
    moves: tuple[str, ...] = ()
    source: str = ""
    chess960: bool = False

    def board(self) -> chess.Board:
        """The position after the book moves."""
        board = chess.Board(self.fen, chess960=self.chess960)
        for uci in self.moves:
            board.push_uci(uci)
        return board


def book_format(path: str | Path) -> str:
    """'epd', 'pgn' or 'polyglot' from the file's suffix; other suffixes are an error."""
    suffix = Path(path).suffix.lower()
    if suffix in (".epd", ".fen"):
        return "epd"
    if suffix == ".pgn":
        return "pgn"
    if suffix == ".bin":
        return "polyglot"
    raise BookError(f"{path}: unknown opening-book format {suffix!r}; use .epd, .pgn or .bin "
                    "(Polyglot)")


#: The start positions drawn for a Chess960 or DFRC experiment without a book file.
VARIANT_STARTS = 960


def _status_words(status: chess.Status) -> str:
    """python-chess's position status flags in words ('no white king, too many kings')."""
    return ", ".join(flag.name.lower().replace("_", " ") for flag in chess.Status
                     if flag and flag.name and flag in status)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BookError(f"{path}: opening book not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BookError(f"{path}: cannot read the opening book: {exc}") from None


def read_epd(path: str | Path, chess960: bool = False) -> list[Opening]:
    """One opening per non-blank, non-comment line; a bad line raises `BookError` (file:line).
    With `chess960` the positions are read under the Chess960 castling rules."""
    path = Path(path)
    openings = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board, _ = chess.Board.from_epd(text, chess960=chess960)
        except ValueError as exc:
            raise BookError(f"{path}:{number}: not a valid EPD position ({exc}): "
                            f"{text!r}") from None
        status = board.status()
        if status != chess.STATUS_VALID:
            raise BookError(f"{path}:{number}: illegal position ({_status_words(status)}): "
                            f"{text!r}")
        if board.is_game_over():
            raise BookError(f"{path}:{number}: the game is already over in {text!r}")
        openings.append(Opening(board.fen(), (), f"{path}:{number}", chess960=chess960))
    if not openings:
        raise BookError(f"{path}: no positions in the opening book")
    return openings


_SAN = (r"(?:[NBKRQ]?[a-h]?[1-8]?[\-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?|[PNBRQK]?@[a-h][1-8]|--|Z0"
        r"|0000|@@@@|O-O(?:-O)?|0-0(?:-0)?)")
#: A movetext token python-chess understands: an optional move number, a move (SAN as its
#: tokenizer takes it, then check and annotation marks), a NAG, a result or a parenthesis.
_MOVETEXT_TOKEN = re.compile(
    rf"(?:\d+\.*)?(?:{_SAN}[+#]?)?[?!]{{0,2}}|\$\d+|\*|1-0|0-1|1/2-1/2|[()]")


class _BookGameBuilder(chess.pgn.GameBuilder):
    """python-chess's game builder keeping the first error with the line it was met on, instead
    of logging the error with the game object's repr."""

    def __init__(self, handle: io.StringIO, line_at: Callable[[int], int]) -> None:
        super().__init__()
        self.handle = handle
        self.line_at = line_at
        self.first_error: tuple[int, Exception] | None = None

    def handle_error(self, error: Exception) -> None:
        if self.first_error is None:
            # the parser has read the line holding the error: the last character read is on it
            self.first_error = (self.line_at(max(0, self.handle.tell() - 1)), error)


def _movetext_problem(text: str) -> tuple[int, str] | None:
    """The first line whose movetext python-chess would skip silently, with the problem: a `{`
    comment never closed or running into the next game's tags (python-chess reads a comment up
    to the next `}`, wherever it is, swallowing the games between), or a token that is not a
    move, move number, result, NAG or parenthesis (python-chess drops such a token and reads on).
    Tag lines, `%` escape lines and `;` comments are skipped as PGN defines.
    """
    opened = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if opened:
            if line.lstrip().startswith("[Event "):
                return opened, (f"a '{{' comment is not closed before the next game's tags at "
                                f"line {number}")
            if "}" not in line:
                continue
            line = line[line.index("}") + 1:]
            opened = 0
        elif line.lstrip().startswith(("[", "%")):
            continue
        plain = []
        while line:
            brace, semicolon = line.find("{"), line.find(";")
            if 0 <= semicolon and (brace < 0 or semicolon < brace):
                plain.append(line[:semicolon])
                break
            if brace < 0:
                plain.append(line)
                break
            plain.append(line[:brace])
            closing = line.find("}", brace)
            if closing < 0:
                opened = number
                break
            line = line[closing + 1:]
        for token in " ".join(plain).replace("(", " ( ").replace(")", " ) ").split():
            if not _MOVETEXT_TOKEN.fullmatch(token):
                return number, (f"{token!r} is not a move, move number, result or annotation "
                                "(python-chess would skip it)")
    if opened:
        return opened, "a '{' comment is never closed (the games after it would be lost)"
    return None


def read_pgn(path: str | Path, plies: int | None = None,
             chess960: bool = False) -> list[Opening]:
    """The start position and first `plies` moves (all when None) of each game in a PGN file.

    python-chess reads leniently; a move that cannot be read or is illegal, a game with no moves
    or a `{` comment left open raises `BookError` with the line of the problem. A game python-chess
    reads as Chess960 (its `Variant` tag, or Chess960 castling rights in its FEN) is refused
    unless `chess960`; with `chess960` every game is played on a Chess960 board and its moves are
    kept in Chess960 notation (castling as king takes rook).
    """
    path = Path(path)
    text = _read_text(path)
    problem = _movetext_problem(text)
    if problem is not None:
        raise BookError(f"{path}:{problem[0]}: {problem[1]}")
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    handle = io.StringIO(text)
    openings = []
    while True:
        start = handle.tell()
        builder = _BookGameBuilder(handle, lambda position: _line_containing(offsets, position))
        game = chess.pgn.read_game(handle, Visitor=lambda made=builder: made)
        if game is None:
            break
        number = _line_of(offsets, start, text)
        if builder.first_error is not None:
            line, error = builder.first_error
            raise BookError(f"{path}:{number}: bad PGN game: {error} (at line {line})")
        board = game.board()
        if board.chess960 and not chess960:
            raise BookError(f"{path}:{number}: a Chess960 game in a standard-chess experiment "
                            "(set variant = \"chess960\")")
        board = chess.Board(board.fen(), chess960=chess960)
        fen = board.fen()
        moves = []
        for move in game.mainline_moves():
            if plies is not None and len(moves) >= plies:
                break
            moves.append(board.uci(move))
            board.push(move)
        if not moves and board.is_game_over():
            raise BookError(f"{path}:{number}: the game is already over at its start")
        if board.is_game_over():
            raise BookError(f"{path}:{number}: the book line ends the game ({board.result()})")
        openings.append(Opening(fen, tuple(moves), f"{path}:{number}", chess960=chess960))
    if not openings:
        raise BookError(f"{path}: no games in the opening book")
    return openings


def read_polyglot(path: str | Path, plies: int | None = None, pick: str = "weighted",
                  seed: int = 0, count: int = POLYGLOT_LINES) -> list[Opening]:
    """Lines walked through a Polyglot book from the start position, as cutechess-cli plays one.

    Each line follows the book until it has `plies` moves (no limit when None, as cutechess's
    `bookdepth`) or the position is not in the book; a move is drawn in proportion to the
    entries' weights (`pick = "weighted"`, seeded: line i uses its own generator, so the lines do
    not depend on `count`) or is the heaviest entry (`"best"`: one line). Lines may repeat, as
    they do in cutechess. Entries of weight 0 are never played.
    """
    path = Path(path)
    if pick not in POLYGLOT_PICKS:
        raise BookError(f"{path}: unknown Polyglot pick {pick!r}; use 'weighted' or 'best'")
    try:
        reader = chess.polyglot.open_reader(path)
    except FileNotFoundError:
        raise BookError(f"{path}: opening book not found") from None
    except (OSError, ValueError) as exc:
        raise BookError(f"{path}: not a Polyglot book ({exc})") from None
    with reader:
        if len(reader) == 0:
            raise BookError(f"{path}: the Polyglot book is empty")
        openings = []
        for index in range(1 if pick == "best" else count):
            rng = random.Random(f"{seed}:{index}")
            board = chess.Board()
            while plies is None or len(board.move_stack) < plies:
                try:
                    entry = (reader.find(board) if pick == "best"
                             else reader.weighted_choice(board, random=rng))
                except IndexError:
                    break
                board.push(entry.move)
                if board.is_game_over():
                    board.pop()
                    break
            if not board.move_stack:
                raise BookError(f"{path}: the Polyglot book has no move for the start position")
            openings.append(Opening(chess.STARTING_FEN,
                                    tuple(move.uci() for move in board.move_stack),
                                    f"{path}:line{index + 1}"))
    return openings


def chess960_openings(indices: list[int] | None = None) -> list[Opening]:
    """Chess960 start positions by their Scharnagl index (0-959; 518 is the standard position),
    all 960 in index order when `indices` is None."""
    chosen = range(960) if indices is None else indices
    openings = []
    for index in chosen:
        if not 0 <= index < 960:
            raise BookError(f"Chess960 position {index} does not exist (0 to 959)")
        board = chess.Board.from_chess960_pos(index)
        openings.append(Opening(board.fen(), (), f"chess960:{index}", chess960=True))
    return openings


def dfrc_openings(count: int = VARIANT_STARTS, seed: int = 0) -> list[Opening]:
    """`count` double Fischer random start positions drawn by a seeded generator (same seed, same
    positions): White's back rank is Chess960 position W and Black's Chess960 position B, each
    (W, B) pair at most once; `source` is 'dfrc:W-B'. Castling is X-FEN `KQkq`: in a 960 back rank
    the king stands between its two rooks, so each side's outer rooks are its castling rooks."""
    if not 1 <= count <= 960 * 960:
        raise BookError(f"DFRC start positions: {count} asked for, 1 to {960 * 960} exist")
    pairs = random.Random(f"dfrc:{seed}").sample(range(960 * 960), count)
    openings = []
    for white, black in (divmod(pair, 960) for pair in pairs):
        white_rank = chess.Board.from_chess960_pos(white).board_fen().split("/")[-1]
        black_rank = chess.Board.from_chess960_pos(black).board_fen().split("/")[0]
        board = chess.Board(f"{black_rank}/pppppppp/8/8/8/8/PPPPPPPP/{white_rank} w KQkq - 0 1",
                            chess960=True)
        openings.append(Opening(board.fen(), (), f"dfrc:{white}-{black}", chess960=True))
    return openings


def variant_starts(variant: Variant, seed: int = 0) -> list[Opening]:
    """The start positions of an experiment without a book file: none for standard chess (the
    standard start), all 960 Chess960 positions in an order shuffled by `seed`, or
    `VARIANT_STARTS` DFRC positions drawn by `seed`."""
    if variant is Variant.CHESS960:
        return order_book(chess960_openings(), "random", seed)
    if variant is Variant.DFRC:
        return dfrc_openings(VARIANT_STARTS, seed)
    return []


def _line_of(offsets: list[int], position: int, text: str) -> int:
    """1-based line of the first non-blank character at or after character `position`."""
    while position < len(text) and text[position].isspace():
        position += 1
    return _line_containing(offsets, position)


def _line_containing(offsets: list[int], position: int) -> int:
    """1-based line holding character `position` (`offsets`: where each line starts)."""
    return bisect.bisect_right(offsets, position, hi=len(offsets) - 1)


def load_book(path: str | Path, fmt: str | None = None, plies: int | None = None,
              pick: str = "weighted", seed: int = 0, chess960: bool = False) -> list[Opening]:
    """Read an EPD, PGN or Polyglot book (format from the suffix unless `fmt` is given); `pick`
    and `seed` choose a Polyglot book's lines. With `chess960` an EPD or PGN book is read under
    the Chess960 rules; a Polyglot book (standard-chess lines from the start position) is refused.
    """
    fmt = fmt or book_format(path)
    if fmt == "epd":
        return read_epd(path, chess960)
    if fmt == "pgn":
        return read_pgn(path, plies, chess960)
    if fmt == "polyglot":
        if chess960:
            raise BookError(f"{path}: a Polyglot book holds standard-chess lines; a Chess960 "
                            "or DFRC experiment needs an EPD or PGN book, or none")
        return read_polyglot(path, plies, pick, seed)
    raise BookError(f"{path}: unknown opening-book format {fmt!r}; use 'epd', 'pgn' or "
                    "'polyglot'")


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


def start_at(openings: list[Opening], start: int) -> list[Opening]:
    """The book in play order beginning at its `start`-th opening (1-based, after ordering, as
    fastchess's `-openings start=N`); the ones before it come last."""
    if not 1 <= start <= len(openings):
        raise BookError(f"opening start {start} is outside the book (1 to {len(openings)})")
    return openings[start - 1:] + openings[:start - 1]


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
