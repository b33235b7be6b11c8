"""Opening books beyond EPD and PGN basics: broken PGN named in our words (file and line, no
python-chess objects, no game silently lost), Polyglot `.bin` books, the opening start index and
Chess960 start positions; a Polyglot book through a Stockfish run."""

from __future__ import annotations

import io
import logging
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest

from lab.experiment import ExperimentError
from lab.experiment_file import load_experiment
from lab.openings import (
    BookError,
    chess960_openings,
    load_book,
    order_book,
    read_epd,
    read_pgn,
    read_polyglot,
    start_at,
)

BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"
STOCKFISH = "/usr/games/stockfish"


# --- Broken PGN ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # the comment swallows games b and c in python-chess, silently
        ('[Event "a"]\n\n1. e4 { unclosed e5 2. Nf3 *\n\n[Event "b"]\n\n1. d4 d5 *\n\n'
         '[Event "c"]\n\n1. c4 c5 *\n',
         ":3: a '{' comment is not closed before the next game's tags at line 5"),
        ('[Event "a"]\n\n1. d4 d5 *\n\n[Event "b"]\n\n1. e4 e5 {never closed\n',
         ":7: a '{' comment is never closed (the games after it would be lost)"),
        # python-chess drops a token it cannot read and plays on
        ('[Event "a"]\n\n1. e4 e5\n2. Nf9 Nc6 *\n',
         ":4: 'Nf9' is not a move, move number, result or annotation"),
        ('[Event "a"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. Bxf7 *\n',
         ":1: bad PGN game: illegal san: 'Bxf7' in "),
        ('[Event "a"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Ke3 *\n',
         ":1: bad PGN game: illegal san: 'Ke3' in "
         "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 (at line 5)"),
    ],
)
def test_broken_pgn_is_named_by_file_and_line_in_our_words(tmp_path, caplog, content, expected):
    path = tmp_path / "book.pgn"
    path.write_text(content)
    with caplog.at_level(logging.DEBUG, logger="chess.pgn"), pytest.raises(BookError) as info:
        read_pgn(path)
    message = str(info.value)
    assert message.startswith(f"{path}:") and expected in message
    assert "<Game at" not in message and not caplog.records  # nothing logged by python-chess


def test_comments_annotations_and_variations_are_not_mistaken_for_errors(tmp_path) -> None:
    path = tmp_path / "ok.pgn"
    path.write_text('[Event "x {y}"]\n[Annotator "a; b"]\n\n1.e4 {good} e5!? 2. Nf3+? $1 (2. f4 '
                    'exf4) Nc6 ; a rest-of-line {comment\n3. O-O-O?? 1-0\n\n'
                    '[Event "y"]\n\n1. d4 {multi\nline} d5 2. c4 2... c6 1/2-1/2\n')
    with pytest.raises(BookError, match=r":1: bad PGN game: illegal san: 'O-O-O' .*\(at line 5\)"):
        read_pgn(path)
    path.write_text(path.read_text().replace("3. O-O-O?? ", "3. Bc4 "))
    first, second = read_pgn(path)
    assert first.moves == ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")
    assert second.moves[:2] == ("d2d4", "d7d5")


def test_bad_epd_status_is_in_words(tmp_path) -> None:
    path = tmp_path / "b.epd"
    path.write_text("8/8/8/8/8/8/8/K6k w KQ -\n")
    with pytest.raises(BookError) as info:
        read_epd(path)
    assert str(info.value) == (f"{path}:1: illegal position (bad castling rights): "
                               "'8/8/8/8/8/8/8/K6k w KQ -'")


# --- Polyglot -----------------------------------------------------------------------------------


def polyglot_move(move: chess.Move, board: chess.Board) -> int:
    """A move as Polyglot encodes it: to file, to row, from file, from row, promotion in 3-bit
    fields from the low end; castling as the king taking its own rook."""
    to = move.to_square
    if board.is_castling(move):
        to = chess.square(7 if chess.square_file(move.to_square) == 6 else 0,
                          chess.square_rank(move.from_square))
    promotion = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}
    return (chess.square_file(to) | chess.square_rank(to) << 3
            | chess.square_file(move.from_square) << 6 | chess.square_rank(move.from_square) << 9
            | promotion[move.promotion] << 12)


def write_polyglot(path: Path, lines: dict[tuple[str, ...], int]) -> None:
    """A Polyglot book (16-byte big-endian entries sorted by key: Zobrist key, move, weight,
    learn) with, for each line of UCI moves, its last move from the position before it."""
    entries = []
    for moves, weight in lines.items():
        board = chess.Board()
        for uci in moves[:-1]:
            board.push_uci(uci)
        move = chess.Move.from_uci(moves[-1])
        entries.append((chess.polyglot.zobrist_hash(board), polyglot_move(move, board), weight))
    path.write_bytes(b"".join(struct.pack(">QHHI", key, move, weight, 0)
                              for key, move, weight in sorted(entries)))


BIN_LINES = {
    ("e2e4",): 3, ("d2d4",): 1, ("g1f3",): 0,  # weight 0: never played
    ("e2e4", "e7e5"): 1, ("d2d4", "d7d5"): 2, ("d2d4", "g8f6"): 2,
    ("e2e4", "e7e5", "g1f3"): 1, ("e2e4", "e7e5", "g1f3", "b8c6"): 1,
    ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4"): 1,
    ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"): 1,
    ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"): 1,
}


def test_polyglot_lines_follow_the_weights(tmp_path) -> None:
    path = tmp_path / "book.bin"
    write_polyglot(path, BIN_LINES)
    lines = read_polyglot(path, plies=2, seed=3, count=2000)
    firsts = [line.moves[0] for line in lines]
    assert set(firsts) == {"e2e4", "d2d4"}  # g1f3 has weight 0
    # e4 with probability 3/4: 1500 expected, standard deviation sqrt(2000 * 3/4 * 1/4) = 19.4
    assert abs(firsts.count("e2e4") - 1500) < 4 * 19.4
    after_d4 = [line.moves[1] for line in lines if line.moves[0] == "d2d4"]
    assert abs(after_d4.count("d7d5") / len(after_d4) - 0.5) < 0.15
    assert all(len(line.moves) == 2 and line.fen == chess.STARTING_FEN for line in lines)
    # the lines do not depend on how many are drawn
    assert read_polyglot(path, plies=2, seed=3, count=10) == lines[:10]
    assert read_polyglot(path, plies=2, seed=4, count=10) != lines[:10]


def test_polyglot_best_move_and_the_depth_limit(tmp_path) -> None:
    path = tmp_path / "book.bin"
    write_polyglot(path, BIN_LINES)
    (best,) = read_polyglot(path, pick="best")
    # no depth limit: follows the book to its end, castling decoded from king-takes-rook
    assert best.moves == ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1")
    assert best.board().fen().startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1")
    (short,) = load_book(path, plies=3, pick="best")
    assert short.moves == ("e2e4", "e7e5", "g1f3")


def test_bad_polyglot_books_are_named(tmp_path) -> None:
    broken = tmp_path / "broken.bin"
    broken.write_bytes(b"\0" * 17)
    with pytest.raises(BookError, match=f"{broken}: not a Polyglot book"):
        read_polyglot(broken)
    elsewhere = tmp_path / "elsewhere.bin"
    write_polyglot(elsewhere, {("e2e4", "e7e5"): 1})  # no entry for the start position
    with pytest.raises(BookError, match="has no move for the start position"):
        read_polyglot(elsewhere)
    with pytest.raises(BookError, match="not found"):
        read_polyglot(tmp_path / "missing.bin")
    with pytest.raises(BookError, match="unknown Polyglot pick 'top'"):
        read_polyglot(elsewhere, pick="top")


def test_a_polyglot_book_in_a_stockfish_run(tmp_path) -> None:
    if not Path(STOCKFISH).exists():
        pytest.skip("Stockfish is not installed at /usr/games/stockfish")
    from lab.runner import run_experiment
    from lab.store import open_store

    write_polyglot(tmp_path / "book.bin", BIN_LINES)
    path = tmp_path / "exp.toml"
    path.write_text(f'name = "bin"\ntc = "nodes=800"\nconcurrency = 1\nout = "{tmp_path / "out"}"\n'
                    '[schedule]\ngames = 4\n[openings]\nfile = "book.bin"\nplies = 4\nseed = 2\n'
                    '[adjudication]\nmax_moves = 8\n'
                    f'[[engines]]\nname = "a"\ncmd = ["{STOCKFISH}"]\n'
                    f'[[engines]]\nname = "b"\ncmd = ["{STOCKFISH}"]\n')
    exp = load_experiment(path)
    assert exp.openings.pick == "weighted" and len(exp.book) == 1000
    run_experiment(exp, stream=io.StringIO(), live=False)
    with open_store(exp.out) as store:
        games = store.games()
    played = list(games["opening_moves"])
    assert played == [" ".join(exp.book[0].moves)] * 2 + [" ".join(exp.book[1].moves)] * 2
    assert all(len(moves.split()) == 4 for moves in played)


# --- Start index and Chess960 -------------------------------------------------------------------


def test_start_index_begins_the_ordered_book_there(tmp_path) -> None:
    book = order_book(read_epd(BOOK), "random", 7)
    assert start_at(book, 1) == book
    assert start_at(book, 3)[:2] == book[2:4] and start_at(book, 3)[-2:] == book[:2]
    with pytest.raises(BookError, match=f"opening start {len(book) + 1} is outside the book"):
        start_at(book, len(book) + 1)
    path = tmp_path / "exp.toml"
    path.write_text(f'name = "s"\ntc = "1+0"\n[openings]\nfile = "{BOOK}"\norder = "random"\n'
                    'seed = 7\nstart = 3\n[[engines]]\nbuiltin = "tempo"\n'
                    f'[[engines]]\ncmd = ["{STOCKFISH}"]\n')
    exp = load_experiment(path)
    assert exp.book[0] == book[2]
    assert exp.identity()["openings"]["start"] == 3
    path.write_text(path.read_text().replace("start = 3", "start = 0"))
    with pytest.raises(ExperimentError, match=r"\[openings\]: key 'start' must be a positive"):
        load_experiment(path)


def test_identity_leaves_out_later_keys_at_their_defaults(tmp_path) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(f'name = "s"\ntc = "1+0"\n[openings]\nfile = "{BOOK}"\n'
                    '[[engines]]\nbuiltin = "tempo"\n'
                    f'[[engines]]\ncmd = ["{STOCKFISH}"]\n')
    identity = load_experiment(path).identity()
    assert "start" not in identity["openings"] and "pick" not in identity["openings"]
    assert "syzygy" not in identity["adjudication"]


def test_all_960_start_positions() -> None:
    openings = chess960_openings()
    assert len(openings) == 960 and len({o.fen for o in openings}) == 960
    assert openings[518].fen == chess.STARTING_FEN  # Scharnagl's numbering: 518 is the standard
    assert openings[0].fen.startswith("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w")
    board = openings[0].board()
    assert board.chess960 and board.castling_rights == (chess.BB_F1 | chess.BB_H1 | chess.BB_F8
                                                        | chess.BB_H8)
    (third,) = chess960_openings([2])
    assert third == openings[2] and third.source == "chess960:2"
    with pytest.raises(BookError, match="Chess960 position 960 does not exist"):
        chess960_openings([960])
