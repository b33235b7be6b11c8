"""engine.checks.king_attacked answers as python-chess's `is_check` and `was_into_check`, and
square_attacked as its `is_attacked_by`: over random games (pseudo-legal moves, so kings left in
check too), Chess960 starts and positions with checks by every kind of piece, a promoted king
and no king at all."""

from __future__ import annotations

import random

import chess

from engine.checks import exposure, king_attacked, square_attacked
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


def test_square_attacked_is_is_attacked_by():
    """Every square, by either side, along random games and in the check positions."""
    rng = random.Random(5)
    compared = attacked = 0
    for board in starts(rng) + [chess.Board(fen) for fen in CHECKS]:
        for _ in range(rng.randint(10, 60)):
            for square in chess.SQUARES:
                for by in chess.COLORS:
                    expected = board.is_attacked_by(by, square)
                    assert square_attacked(board, square, by) == expected, (board.fen(), square)
                    compared += 1
                    attacked += expected
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
    assert compared > 20000 and attacked > 5000


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


def test_exposure_names_every_move_that_can_leave_the_king_attacked():
    """Every pseudo-legal move of a side not in check that leaves its king attacked starts on a
    square `exposure` names, so the search may skip the test for the others; the test still
    runs for some legal moves (the king's lines are wider than its pins)."""
    rng = random.Random(4)
    illegal = skipped = 0
    for board in starts(rng) + [chess.Board(fen) for fen in CHECKS[:-1]]:
        for _ in range(rng.randint(20, 80)):
            if board.is_check() or board.is_game_over():
                break
            exposed = exposure(board)
            for move in board.pseudo_legal_moves:
                board.push(move)
                into_check = board.was_into_check()
                board.pop()
                named = bool(exposed & chess.BB_SQUARES[move.from_square])
                assert named or not into_check, (board.fen(), move.uci())
                illegal += into_check
                skipped += not named
            board.push(rng.choice(list(board.legal_moves)))
    assert illegal > 100 and skipped > 5000


def test_an_en_passant_capture_that_uncovers_the_king_is_named():
    """The captured pawn was the blocker: the capturing pawn's square is on no line through the
    king, yet the capture is illegal (king a1, enemy bishop h8, pawns d5 and e5)."""
    board = chess.Board("k6b/8/8/3Pp3/8/8/8/K7 w - e6 0 2")
    move = chess.Move.from_uci("d5e6")
    assert board.is_pseudo_legal(move) and not board.is_legal(move)
    assert exposure(board) & chess.BB_SQUARES[chess.D5]
