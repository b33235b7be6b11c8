"""Pawn-structure masks in White's orientation: Greenblatt's backward pawns.

Source: Greenblatt, Eastlake, Crocker 1967 (/work/shared/seeds/003_6566fcddc03baa47.txt),
"Evaluation of the board", criteria for a backward pawn, applied here to all pawns at once
with bitboard shifts instead of one pawn at a time.
"""

from __future__ import annotations

import chess

from engine.eval_terms.bits import (
    BB_ALL,
    FILES_OF,
    NOT_FILE_A,
    NOT_FILE_H,
    file_byte,
    fill_down,
    up_attacks,
)


def backward_pawns(ours: int, theirs: int, enemy: int, adjacent: int) -> int:
    """Our backward pawns (we move up), following Greenblatt's criteria in order.

    ``ours``/``theirs`` are the pawns, ``enemy`` all enemy pieces, ``adjacent`` our pawns that
    have a friendly pawn on an adjacent file (isolated pawns are scored as isolated instead).

    1. A pawn defended by a pawn is not backward.
    2. A pawn that a pawn push can defend in one move is not backward (pushes may pass
       through friendly pieces), unless the only such push is a double step that an enemy
       pawn could capture en passant.
    3. If a defending push is blocked by an enemy piece, or the pawn itself is blocked by an
       enemy piece, it is backward; otherwise, if a pawn on an adjacent file is blocked, it is
       not backward.
    4. Otherwise it is backward if it would become defended by advancing far enough, that is,
       if a friendly pawn stands ahead of it on an adjacent file (strictly ahead: the
       members of a pawn duo are not backward).
    """
    undefended = ours & ~up_attacks(ours)
    # Single pushes: destinations, open unless an enemy piece stands there.
    single = (ours << 8) & BB_ALL
    single_open = single & ~enemy
    single_blocked = single & enemy
    # Double steps from the second rank need both squares free of enemy pieces.
    start = ours & chess.BB_RANK_2
    middle = start << 8
    double = middle << 8
    double_open = ((middle & ~enemy) << 8) & ~enemy
    double_blocked = double & ~double_open
    en_passant_exposed = double & (((theirs << 1) & NOT_FILE_A) | ((theirs >> 1) & NOT_FILE_H))
    defending_squares = single_open | (double_open & ~en_passant_exposed)
    can_defend = up_attacks(defending_squares)
    candidates = undefended & adjacent & ~can_defend
    if not candidates:
        return 0
    blocked_defence = up_attacks(single_blocked | double_blocked)
    blocked = ours & (enemy >> 8)
    backward = candidates & (blocked_defence | blocked)
    rest = candidates & ~backward
    if rest:
        blocked_files = FILES_OF[file_byte(blocked)]
        beside_blocked = ((blocked_files << 1) & NOT_FILE_A) | ((blocked_files >> 1) & NOT_FILE_H)
        # Squares at least one rank behind a square a friendly pawn attacks: a pawn there
        # meets that defence by advancing (a pawn beside its neighbour, a duo, does not).
        would_be_defended = fill_down(up_attacks(ours) >> 16)
        backward |= rest & ~beside_blocked & would_be_defended
    return backward
