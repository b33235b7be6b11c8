"""engine.make.push makes the board python-chess's `Board.push` makes, and `Board.pop` undoes it:
over random games from the start, from Chess960 starts and from positions with castling, en
passant and promotions at hand, including pseudo-legal moves that leave the king in check."""

from __future__ import annotations

import random

import chess

from engine.make import push
from tests.engine.test_captures import PROMOTING
from tests.engine.test_ordering import SPECIAL


def state(board: chess.Board) -> tuple:
    """Every field `Board.push` and `Board.pop` touch."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied, tuple(board.occupied_co), board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number,
        list(board.move_stack), len(board._stack), board.fen(),
    )


def starts(rng: random.Random) -> list[chess.Board]:
    boards = [chess.Board(fen) for fen in SPECIAL + PROMOTING]
    boards += [chess.Board() for _ in range(10)]
    boards += [chess.Board.from_chess960_pos(rng.randrange(960)) for _ in range(10)]
    return boards


def test_push_is_board_push_and_pop_undoes_it():
    rng = random.Random(5)
    compared = fast = 0
    for board in starts(rng):
        for _ in range(rng.randint(20, 80)):
            moves = list(board.pseudo_legal_moves)
            if not moves or board.is_game_over():
                break
            for move in rng.sample(moves, min(3, len(moves))):
                before = state(board)
                expected = board.copy()
                expected.push(move)
                push(board, move)
                assert state(board) == state(expected), (board.fen(), move.uci())
                fast += board.move_stack[-1] is move  # Board.push stacks a copy
                board.pop()
                assert state(board) == before, move.uci()
                compared += 1
            board.push(rng.choice(list(board.legal_moves)))
    assert compared > 2000 and fast > 1000 and compared - fast > 300
