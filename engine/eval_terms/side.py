"""One side's share of the positional terms, computed in White's orientation.

:func:`side_terms` scores "us" (moving up the board) against "them": our piece placement,
passed pawns, pawn structure, mobility, the pressure we put on their king and pieces, our
minor and major pieces, our centre control, and our own pawn shield. The evaluation calls it
once for White and once for Black on flipped bitboards and subtracts.
"""

from __future__ import annotations

import chess

from engine.attack_tables import (
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KNIGHT_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
    SQUARES,
)
from engine.eval_terms import weights as W
from engine.eval_terms.bits import (
    CENTER,
    DARK_SQUARES,
    DISTANCE,
    ENEMY_KING_ZONE,
    KING_FILES,
    LIGHT_SQUARES,
    SHIELD_FAR,
    SHIELD_NEAR,
    popcount,
)
from engine.eval_terms.pawns import pawn_entry

_FILES = chess.BB_FILES
_RANK_7 = chess.BB_RANK_7
_RANK_8 = chess.BB_RANK_8
_RANKS_4_TO_7 = chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6 | chess.BB_RANK_7

_PST_N = W.PST[chess.KNIGHT]
_PST_B = W.PST[chess.BISHOP]
_PST_R = W.PST[chess.ROOK]
_PST_Q = W.PST[chess.QUEEN]
_PST_K = W.PST[chess.KING]
_MOB_N = W.MOBILITY[chess.KNIGHT]
_MOB_B = W.MOBILITY[chess.BISHOP]
_MOB_R = W.MOBILITY[chess.ROOK]
_MOB_Q = W.MOBILITY[chess.QUEEN]
_UNITS_N = W.KING_ATTACK_UNITS[chess.KNIGHT]
_UNITS_B = W.KING_ATTACK_UNITS[chess.BISHOP]
_UNITS_R = W.KING_ATTACK_UNITS[chess.ROOK]
_UNITS_Q = W.KING_ATTACK_UNITS[chess.QUEEN]


def side_terms(
    P: int, N: int, B: int, R: int, Q: int, K: int,
    p: int, n: int, b: int, r: int, q: int, k: int,
    us: int, them: int,
) -> tuple[int, int, int, int, int, int, int, int, int]:
    """Packed (mg, eg) scores for us: piece location, passed pawns, king safety, mobility,
    pawn structure, threats, minor pieces, major pieces, centre control (in that order).

    Upper-case bitboards are our pieces, lower-case theirs; ``us``/``them`` are occupancies.
    """
    occ = us | them
    (
        pawn_pst, passed_bonus, passed_bb, structure, backward_count,
        our_pawn_attacks, their_pawn_attacks, files, outposts,
    ) = pawn_entry(P, p, them)
    safe = ~us & ~their_pawn_attacks
    zone = ENEMY_KING_ZONE[k.bit_length() - 1] if k else 0
    our_king = K.bit_length() - 1
    their_king = k.bit_length() - 1

    pst = 0
    mobility = 0
    major = 0
    attacked = our_pawn_attacks
    minor_attacks = 0
    units = 0
    attackers = 0

    # Knights.
    bb = N
    while bb:
        sq = bb.bit_length() - 1
        bb ^= SQUARES[sq]
        a = KNIGHT_ATTACKS[sq]
        pst += _PST_N[sq]
        mobility += _MOB_N[popcount(a & safe)]
        minor_attacks |= a
        if a & zone:
            units += _UNITS_N
            attackers += 1
    # Bishops.
    bb = B
    while bb:
        sq = bb.bit_length() - 1
        bb ^= SQUARES[sq]
        a = DIAG_ATTACKS[sq][DIAG_MASKS[sq] & occ]
        pst += _PST_B[sq]
        mobility += _MOB_B[popcount(a & safe)]
        minor_attacks |= a
        if a & zone:
            units += _UNITS_B
            attackers += 1
    attacked |= minor_attacks
    # Rooks: open and half-open files, the seventh rank.
    all_pawns = P | p
    seventh = bool(k & _RANK_8 or p & _RANK_7)
    bb = R
    while bb:
        sq = bb.bit_length() - 1
        bb ^= SQUARES[sq]
        a = RANK_ATTACKS[sq][RANK_MASKS[sq] & occ] | FILE_ATTACKS[sq][FILE_MASKS[sq] & occ]
        pst += _PST_R[sq]
        mobility += _MOB_R[popcount(a & safe)]
        attacked |= a
        if a & zone:
            units += _UNITS_R
            attackers += 1
        file = _FILES[sq & 7]
        if not file & all_pawns:
            major += W.ROOK_OPEN_FILE
        elif not file & P:
            major += W.ROOK_HALF_OPEN_FILE
        if seventh and sq >> 3 == 6:
            major += W.ROOK_SEVENTH
    # Queens.
    bb = Q
    while bb:
        sq = bb.bit_length() - 1
        bb ^= SQUARES[sq]
        a = (
            DIAG_ATTACKS[sq][DIAG_MASKS[sq] & occ]
            | RANK_ATTACKS[sq][RANK_MASKS[sq] & occ]
            | FILE_ATTACKS[sq][FILE_MASKS[sq] & occ]
        )
        pst += _PST_Q[sq]
        mobility += _MOB_Q[popcount(a & safe)]
        attacked |= a
        if a & zone:
            units += _UNITS_Q
            attackers += 1
        if seventh and sq >> 3 == 6:
            major += W.QUEEN_SEVENTH

    # Pawns: location and passed pawns (the king-distance part needs the kings: not cached).
    pst += pawn_pst
    passed = passed_bonus
    if passed_bb and our_king >= 0 and their_king >= 0:
        bb = passed_bb & _RANKS_4_TO_7
        while bb:
            sq = bb.bit_length() - 1
            bb ^= SQUARES[sq]
            stop = sq + 8
            passed += (
                W.PASSED_KING_THEM * DISTANCE[their_king][stop]
                - W.PASSED_KING_US * DISTANCE[our_king][stop]
            ) * ((sq >> 3) - 2)

    # King: location, shield, Greenblatt's rank term, and our pressure on their king.
    king = 0
    if K:
        pst += _PST_K[our_king]
        king += popcount(SHIELD_NEAR[our_king] & P) * W.SHIELD_NEAR_PAWN
        king += popcount(SHIELD_FAR[our_king] & P) * W.SHIELD_FAR_PAWN
        king += popcount(KING_FILES[our_king] & ~files) * W.KING_OPEN_FILE
        if q:
            king += (our_king >> 3) * W.KING_RANK
    if attackers >= 2:
        king += W.KING_ATTACK[min(units, 39)]

    # Pawn structure: isolated, doubled, Greenblatt-backward (worse against rooks, queens).
    if backward_count and (r or q):
        structure += backward_count * W.BACKWARD_MAJORS

    # Threats: our pawns attacking pieces, our minor pieces attacking rooks and queens.
    threats = (
        popcount(our_pawn_attacks & (n | b | r | q)) * W.PAWN_THREAT
        + popcount(minor_attacks & (r | q)) * W.MINOR_THREAT
    )

    # Minor pieces: bishop pair, outposts (defended by a pawn, out of reach of enemy pawns).
    minor = 0
    if B & LIGHT_SQUARES and B & DARK_SQUARES:
        minor += W.BISHOP_PAIR
    if outposts:
        minor += popcount(N & outposts) * W.KNIGHT_OUTPOST
        minor += popcount(B & outposts) * W.BISHOP_OUTPOST

    # Centre control: Greenblatt's C plus the centre squares we attack.
    center = popcount(attacked & CENTER) * W.CENTER_SQUARE
    center += popcount(our_pawn_attacks & CENTER) * W.CENTER_PAWN_ATTACK
    if P & CENTER and not p & CENTER:
        center += W.CENTER_PAWNS

    return pst, passed, king, mobility, structure, threats, minor, major, center
