"""engine.checks.king_attacked answers as python-chess's `is_check` and `was_into_check`: over
random games (pseudo-legal moves, so kings left in check too), Chess960 starts and positions
with checks by every kind of piece, a promoted king and no king at all."""

from __future__ import annotations

import random

import chess

from engine.checks import king_attacked
from tests.engine.test_make import starts

CHECKS = [  # one checker of each kind, and positions a king walked into
    "4k3/8/8/8/8/5n2/8/4K3 w - - 0 1",    # knight
    "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",    # pawn
    "4k3/8/8/8/8/8/8/r3K3 w - - 0 1",     # rook on the rank
    "4k3/8/8/8/4r3/8/8/4K3 w - - 0 1",    # rook on the file
    "4k3/8/8/b7/8/8/8/4K3 w - - 0 1",     # bishop
    "4k3/8/8/8/8/8/5q2/4K3 w - - 0 1",    # queen, diagonally adjacent
    "4k3/8/8/8/8/8/4Kk2/8 w - - 0 1",     # a king next to the king (illegal, pseudo-legal play)
    "4k3/8/8/8/4r3/4P3/8/4K3 w - - 0 1",  # a rook blocked: no check
    "8/8/8/8/8/8/8/8 w - - 0 1",          # no kings
]


def compare(board: chess.Board) -> None:
    assert king_attacked(board, board.turn) == board.is_check(), board.fen()
    assert king_attacked(board, not board.turn) == board.was_into_check(), board.fen()


def test_king_attacked_is_is_check_and_was_into_check():
    rng = random.Random(3)
    attacked = compared = 0
    for board in starts(rng) + [chess.Board(fen) for fen in CHECKS]:
        compare(board)
        for _ in range(rng.randint(20, 80)):
            moves = list(board.pseudo_legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            compare(board)
            compared += 1
            attacked += board.was_into_check() or board.is_check()
            if board.was_into_check() or board.is_game_over():
                break
    assert compared > 500 and attacked > 40


def test_checks_by_each_kind_of_piece():
    expected = [True, True, True, True, True, True, True, False, False]
    assert [king_attacked(chess.Board(fen), chess.WHITE) for fen in CHECKS] == expected
    for fen in CHECKS:
        compare(chess.Board(fen))


def test_a_promoted_king_is_no_king():
    """python-chess's `king` leaves out promoted kings (variants): so does king_attacked."""
    board = chess.Board("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1")
    board.promoted = chess.BB_E1
    assert not king_attacked(board, chess.WHITE) and not board.is_check()
