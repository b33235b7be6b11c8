"""`king_attacked`: python-chess's `Board.is_check` and `Board.was_into_check` in one test that
stops at the first attacker found; `square_attacked`: that test for any square (python-chess's
`is_attacked_by`), which the capture generator also asks of its targets; `exposure`: the moves
the king test can find illegal at all.

Both ask python-chess's `attackers_mask` for every kind of attacker of the king's square at once
(`checkers_mask`, `is_attacked_by`), through two more calls (`king`, the mask itself). The
search asks one of them at every node and after every move it makes, and the answer is almost
always no, so every kind of attacker is looked at and each look is one table read and two ands.
Here the look-ups are inline, cheapest first, and the first hit ends the test; the answer is the
same (tests/engine/test_checks.py compares them over random games, Chess960 included).

A pseudo-legal move of a side not in check can leave its king attacked only if it is a king
move, uncovers a line to the king (it leaves a square on a rank, file or diagonal through the
king) or is an en passant capture (whose captured pawn may be the blocker): the search tests
the moves `exposure` names and makes the others without a test.
"""

from __future__ import annotations

import chess

from engine.attack_tables import (
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    LINES,
    PAWN_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
)


def king_attacked(board: chess.Board, color: chess.Color) -> bool:
    """Whether `color`'s king is attacked: `board.is_check()` for the side to move,
    `board.was_into_check()` for the other one. False without a king (python-chess's `king`:
    a promoted king is none, the highest square's king if there are several)."""
    king = board.kings & board.occupied_co[color] & ~board.promoted
    return bool(king) and square_attacked(board, king.bit_length() - 1, not color)


def square_attacked(board: chess.Board, square: chess.Square, by: chess.Color) -> bool:
    """`board.is_attacked_by(by, square)`, stopping at the first attacker found."""
    them = board.occupied_co[by]
    if KNIGHT_ATTACKS[square] & board.knights & them:
        return True
    if PAWN_ATTACKS[not by][square] & board.pawns & them:
        return True
    queens = board.queens & them
    occupied = board.occupied
    diagonal = board.bishops & them | queens
    if diagonal and DIAG_ATTACKS[square][DIAG_MASKS[square] & occupied] & diagonal:
        return True
    straight = board.rooks & them | queens
    if straight and (
        RANK_ATTACKS[square][RANK_MASKS[square] & occupied]
        | FILE_ATTACKS[square][FILE_MASKS[square] & occupied]
    ) & straight:
        return True
    return bool(KING_ATTACKS[square] & board.kings & them)


def exposure(board: chess.Board) -> int:
    """The squares a move of the side to move, not in check, must start from to be able to leave
    its king attacked: the king's square and its lines, and the pawns that may capture en
    passant; none without a king (`king_attacked` then says no)."""
    us = board.turn
    king = board.kings & board.occupied_co[us] & ~board.promoted
    if not king:
        return 0
    lines = LINES[king.bit_length() - 1]
    ep = board.ep_square
    if ep is not None:
        lines |= board.pawns & board.occupied_co[us] & PAWN_ATTACKS[not us][ep]
    return lines
