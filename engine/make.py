"""`push`: python-chess's `Board.push` for the moves a search makes most, without its generality.

`Board.push` normalises every move for Chess960 castling (twice), re-derives the moved and the
captured piece's types square by square and handles castling, en passant, double steps,
promotions and crazyhouse drops on every call. The common move (any piece but a castling king
moving or capturing anything but a king; not a promotion, en passant capture or double step; no
promoted piece on the board) needs only its bitboards moved, the clocks and castling rights
updated and python-chess's undo record (`_BoardState`) stacked, so that `Board.pop` undoes it
as it undoes its own pushes. Measured (CPython 3.11, 2000 random-game positions): a push and
pop 6.7 us with `Board.push`, 4.2 us with this one. Every other move goes to `Board.push`.
`push_null` is the null move's `Board.push` the same way (the null-move pruning's pass).

The resulting board is the one `Board.push` makes, field by field (tests/engine/test_make.py
checks it over random games, Chess960 included, so a python-chess release that changed its undo
record would fail there): the moved-piece update follows `Board.push` in python-chess 1.11
(chess/__init__.py).
"""

from __future__ import annotations

import chess

from engine.attack_tables import KING_ATTACKS, SQUARES

_RANK_1 = chess.BB_RANK_1
_RANK_8 = chess.BB_RANK_8
_NULL = chess.Move.null()
_BoardState = chess._BoardState


def push(board: chess.Board, move: chess.Move) -> None:
    """Make `move` (pseudo-legal, not a null move) on `board` exactly as `board.push(move)`."""
    from_sq = move.from_square
    to_sq = move.to_square
    from_bb = SQUARES[from_sq]
    to_bb = SQUARES[to_sq]
    pawns = board.pawns
    kings = board.kings
    turn = board.turn
    colours = board.occupied_co
    king_step = kings & from_bb and KING_ATTACKS[from_sq] & to_bb & ~(kings | colours[turn])
    if (
        move.promotion
        or (kings & (from_bb | to_bb) and not king_step)
        or board.promoted
        or (pawns & from_bb and (to_sq == board.ep_square or abs(to_sq - from_sq) == 16))
    ):
        board.push(move)
        return
    state = _BoardState(board)
    if not board._stack:  # `clean_castling_rights` filters only then, else returns them as they are
        board.castling_rights = board.clean_castling_rights()
    board.move_stack.append(move)
    board._stack.append(state)
    board.ep_square = None
    if not turn:
        board.fullmove_number += 1
    theirs = colours[not turn]
    if theirs & to_bb:
        board.halfmove_clock = 0
        if pawns & to_bb:
            board.pawns = pawns ^ to_bb
        elif board.knights & to_bb:
            board.knights ^= to_bb
        elif board.bishops & to_bb:
            board.bishops ^= to_bb
        elif board.rooks & to_bb:
            board.rooks ^= to_bb
        else:
            board.queens ^= to_bb
        colours[not turn] = theirs ^ to_bb
        board.occupied ^= to_bb
    elif pawns & from_bb:
        board.halfmove_clock = 0
    else:
        board.halfmove_clock += 1
    moved = from_bb | to_bb
    if board.pawns & from_bb:
        board.pawns ^= moved
    elif board.knights & from_bb:
        board.knights ^= moved
    elif board.bishops & from_bb:
        board.bishops ^= moved
    elif board.rooks & from_bb:
        board.rooks ^= moved
    elif king_step:
        board.kings = kings ^ moved
    else:
        board.queens ^= moved
    colours[turn] ^= moved
    board.occupied ^= moved
    board.castling_rights &= ~to_bb & ~from_bb
    if king_step:
        board.castling_rights &= ~(_RANK_1 if turn else _RANK_8)
    board.turn = not turn


def push_null(board: chess.Board) -> None:
    """Make the null move on `board` exactly as `board.push(chess.Move.null())`."""
    state = _BoardState(board)
    if not board._stack:  # `clean_castling_rights` filters only then, else returns them as they are
        board.castling_rights = board.clean_castling_rights()
    board.move_stack.append(_NULL)
    board._stack.append(state)
    board.ep_square = None
    board.halfmove_clock += 1
    turn = board.turn
    if not turn:
        board.fullmove_number += 1
    board.turn = not turn
