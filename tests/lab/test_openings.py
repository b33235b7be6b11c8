"""Opening books: EPD and PGN reading with file:line errors, and building a balanced book."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import pytest

from lab.cli import main
from lab.openings import (
    BookError,
    build_book,
    load_book,
    order_book,
    random_line,
    read_epd,
    read_pgn,
    weighted_line,
)

BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"
SHARED = Path(__file__).parents[3] / "shared" / "data" / "openings_8ply.epd"


def test_shared_book_reads_fully_and_keeps_castling_and_en_passant():
    openings = read_epd(BOOK)
    assert len(openings) == 400
    assert openings[0].fen == "r1bqkbnr/p1pp2pp/2n5/1p2pp2/4PP2/8/PPPP2PP/RNBQKBNR w KQkq - 0 1"
    assert openings[0].source.endswith("openings_8ply.epd:1")
    # EPD opcodes (ce, id) never leak into the FEN
    assert all(";" not in o.fen and " ce " not in o.fen for o in openings)
    if SHARED.exists():
        assert BOOK.read_text() == SHARED.read_text()


def test_en_passant_square_survives(tmp_path):
    epd = tmp_path / "ep.epd"
    epd.write_text("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 id \"x\";\n")
    (opening,) = read_epd(epd)
    assert opening.fen.split()[3] == "e3"
    assert chess.Move.from_uci("d4e3") in opening.board().legal_moves


@pytest.mark.parametrize(
    ("content", "line", "what"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n\nnot a fen\n", 3,
         "not a valid EPD position"),
        ("# comment\n8/8/8/8/8/8/8/8 w - -\n", 2, "illegal position"),
        ("7k/5QQ1/8/8/8/8/8/K7 b - -\n", 1, "already over"),
    ],
)
def test_bad_epd_lines_name_file_and_line(tmp_path, content, line, what):
    path = tmp_path / "b.epd"
    path.write_text(content)
    with pytest.raises(BookError) as info:
        read_epd(path)
    assert f"{path}:{line}:" in str(info.value) and what in str(info.value)


def test_empty_and_unknown_books(tmp_path):
    empty = tmp_path / "e.epd"
    empty.write_text("\n# nothing\n")
    with pytest.raises(BookError, match="no positions"):
        read_epd(empty)
    with pytest.raises(BookError, match="unknown opening-book format"):
        load_book(tmp_path / "x.txt")


def test_pgn_book_takes_plies_from_each_game(tmp_path):
    path = tmp_path / "b.pgn"
    path.write_text(
        '[Event "one"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n'
        '[Event "two"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 Kd7 *\n'
    )
    one, two = read_pgn(path, plies=4)
    assert one.fen == chess.STARTING_FEN and one.moves == ("e2e4", "e7e5", "g1f3", "b8c6")
    assert two.fen == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1" and two.moves == ("e2e4", "e8d7")
    assert two.source == f"{path}:5"
    assert len(read_pgn(path)[0].moves) == 6


def test_pgn_book_with_illegal_move_names_the_game_line(tmp_path):
    path = tmp_path / "b.pgn"
    path.write_text('[Event "ok"]\n\n1. d4 d5 *\n\n\n[Event "bad"]\n\n1. e4 e5 2. Qxf7 *\n')
    with pytest.raises(BookError) as info:
        read_pgn(path)
    assert f"{path}:6:" in str(info.value)


def test_order_book_is_a_seeded_shuffle():
    openings = read_epd(BOOK)
    assert order_book(openings) == openings
    shuffled = order_book(openings, "random", 5)
    assert shuffled != openings and sorted(o.fen for o in shuffled) == sorted(
        o.fen for o in openings)
    assert shuffled == order_book(openings, "random", 5)


def test_random_and_weighted_lines():
    rng = random.Random(1)
    board = random_line(rng, 8)
    assert board is not None and len(board.move_stack) == 8 and board.turn == chess.WHITE
    games = [[chess.Move.from_uci(m) for m in line.split()]
             for line in ["e2e4 e7e5 g1f3", "e2e4 c7c5 g1f3", "d2d4 d7d5 c2c4"]]
    firsts = [weighted_line(random.Random(s), games, 3).move_stack[0].uci() for s in range(300)]
    share = firsts.count("e2e4") / len(firsts)
    assert 0.55 < share < 0.78  # two games in three start 1. e4


def test_build_book_keeps_only_balanced_positions():
    # a real evaluation: material balance from the side to move
    values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
              chess.QUEEN: 900}

    def material(board: chess.Board) -> int:
        return sum(v * (len(board.pieces(p, board.turn)) - len(board.pieces(p, not board.turn)))
                   for p, v in values.items())

    build = build_book(material, count=30, plies=8, max_cp=50, seed=3)
    assert len(build.lines) == 30
    assert all(abs(material(board)) <= 50 for board, _ in build.lines)
    assert build.tried >= 30 + build.rejected_eval + build.duplicates
    assert build.rejected_eval > 0
    assert len({board.epd() for board, _ in build.lines}) == 30


def test_tempo_openings_with_stockfish(tmp_path, capsys):
    out = tmp_path / "book.epd"
    code = main(["openings", str(out), "--engine", "stockfish", "--count", "6", "--plies", "6",
                 "--max-cp", "60", "--depth", "6", "--seed", "4"])
    assert code == 0
    openings = read_epd(out)
    assert len(openings) == 6
    for line in out.read_text().splitlines():
        ce = int(line.split(" ce ")[1].split(";")[0])
        assert abs(ce) <= 60
    assert all(len(chess.Board(o.fen).piece_map()) >= 28 for o in openings)
    assert "6 positions" in capsys.readouterr().out


def test_tempo_openings_book_weighted_from_games(tmp_path):
    source = tmp_path / "games.pgn"
    source.write_text("1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n1. d4 d5 2. c4 e6 3. Nc3 *\n\n"
                      "1. e4 c5 2. Nf3 d6 3. d4 *\n")
    out = tmp_path / "book.epd"
    code = main(["openings", str(out), "--engine", "stockfish", "--count", "3", "--plies", "4",
                 "--max-cp", "300", "--depth", "4", "--from", str(source)])
    assert code == 0
    reachable = set()
    with open(source) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            for move in list(game.mainline_moves())[:4]:
                board.push(move)
            reachable.add(board.epd())
    # every line follows one of the games: all three 4-ply positions, nothing else
    assert {chess.Board(o.fen).epd() for o in read_epd(out)} == reachable
