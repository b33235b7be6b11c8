"""engine.make.push makes the board python-chess's `Board.push` makes, and `Board.pop` undoes it:
over random games from the start, from Chess960 starts and from positions with castling, en
passant and promotions at hand, including pseudo-legal moves that leave the king in check."""

from __future__ import annotations

import random

import chess

from engine.make import push, push_null
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
    compared = fast = king_steps = 0
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
                king_steps += board.move_stack[-1] is move and expected.kings != before[5]
                board.pop()
                assert state(board) == before, move.uci()
                compared += 1
            board.push(rng.choice(list(board.legal_moves)))
    assert compared > 2000 and fast > 1000 and compared - fast > 300
    assert king_steps > 100  # king moves (not castling) take the short way too


def test_push_null_is_board_push_of_the_null_move():
    """The null move from positions with castling rights, an en passant square, either side to
    move; `Board.pop` undoes it and the next move is made as after python-chess's own pass."""
    rng = random.Random(11)
    compared = 0
    for board in starts(rng):
        for _ in range(rng.randint(10, 40)):
            if board.is_game_over():
                break
            before = state(board)
            expected = board.copy()
            expected.push(chess.Move.null())
            push_null(board)
            assert state(board) == state(expected), board.fen()
            follow = list(board.pseudo_legal_moves)
            if follow:
                move = rng.choice(follow)
                push(board, move)
                expected.push(move)
                assert state(board)[:-3] == state(expected)[:-3], (board.fen(), move.uci())
                board.pop()
            board.pop()
            assert state(board) == before
            compared += 1
            board.push(rng.choice(list(board.legal_moves)))
    assert compared > 300
