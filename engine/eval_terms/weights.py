"""Evaluation weights: our own piece-square tables and term weights, in centipawns.

Every weight is a (middlegame, endgame) pair packed into one int by :func:`S`, so that a
term is accumulated with one addition and tapered once at the end (the packing trick is
standard engine practice; the numbers are ours). Tables are given for White and are
left-right symmetric; Black uses them on flipped bitboards.

Greenblatt et al. 1967 counts in units of 1/128 pawn (pawn 128,
knight 416, bishop 445, rook 640, queen 1248); Tempo counts in centipawns with the material
values of engine.evaluate, and converts Greenblatt's weights where it uses them.

The piece-square tables are generated from simple rules (distance to the centre, rank),
written out below, rather than typed in, so that each number has a stated reason.
"""

from __future__ import annotations

import chess

HALF = 1 << 15


def S(mg: int, eg: int) -> int:
    """Pack a (middlegame, endgame) pair; valid while both halves stay within +-32767.

    Sums of packed scores are packed sums. To unpack: eg = (score + HALF) >> 16 and
    mg = score - (eg << 16).
    """
    return (eg << 16) + mg


def _centre_distance(sq: int) -> int:
    """Manhattan distance to the four centre squares: 0 on d4..e5, 6 in the corners."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return (abs(2 * f - 7) + abs(2 * r - 7)) // 2 - 1


_PAWN_RANK_MG = [0, 0, -3, 3, 10, 18, 28, 0]
_PAWN_FILE_MG = [-5, 0, 3, 8, 8, 3, 0, -5]
_PAWN_RANK_EG = [0, -5, 0, 5, 12, 25, 40, 0]
_KING_FILE_MG = [15, 20, 10, 0, 0, 10, 20, 15]


def _pawn(sq: int) -> int:
    """Pawns: advance and occupy the centre; d/e pawns at home are slightly worse."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    if r in (0, 7):
        return 0
    mg = _PAWN_RANK_MG[r] + _PAWN_FILE_MG[f] * min(r - 1, 2)
    if r == 1 and f in (3, 4):
        mg -= 10
    return S(mg, _PAWN_RANK_EG[r])


def _knight(sq: int) -> int:
    """Knights: strongly centralising; a knight on the rim is dim."""
    d = _centre_distance(sq)
    return S(24 - 8 * d, 16 - 6 * d)


def _bishop(sq: int) -> int:
    """Bishops: mildly centralising, and leave the back rank."""
    d = _centre_distance(sq)
    back = -10 if chess.square_rank(sq) == 0 else 0
    return S(12 - 4 * d + back, 10 - 4 * d)


def _rook(sq: int) -> int:
    """Rooks: central files in the middlegame, the seventh rank (open files: major term)."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    mg = 5 if f in (3, 4) else 0
    return S(mg + (10 if r == 6 else 0), 5 if r == 6 else 0)


def _queen(sq: int) -> int:
    """Queens: nearly indifferent in the middlegame, central in the endgame."""
    d = _centre_distance(sq)
    return S(4 - 2 * d, 12 - 4 * d)


def _king(sq: int) -> int:
    """King: castled corners and the back rank in the middlegame, the centre in the endgame."""
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return S(_KING_FILE_MG[f] - 25 * min(r, 3), 30 - 10 * _centre_distance(sq))


PST = {
    chess.PAWN: [_pawn(sq) for sq in chess.SQUARES],
    chess.KNIGHT: [_knight(sq) for sq in chess.SQUARES],
    chess.BISHOP: [_bishop(sq) for sq in chess.SQUARES],
    chess.ROOK: [_rook(sq) for sq in chess.SQUARES],
    chess.QUEEN: [_queen(sq) for sq in chess.SQUARES],
    chess.KING: [_king(sq) for sq in chess.SQUARES],
}


def _mobility(mg_per_square: int, eg_per_square: int, average: int, most: int) -> list[int]:
    """Linear mobility bonus around an average number of safe squares."""
    return [
        S(mg_per_square * (n - average), eg_per_square * (n - average)) for n in range(most + 1)
    ]


MOBILITY = {
    chess.KNIGHT: _mobility(4, 4, 4, 8),
    chess.BISHOP: _mobility(4, 5, 6, 13),
    chess.ROOK: _mobility(2, 4, 6, 14),
    chess.QUEEN: _mobility(1, 2, 12, 27),
}

# Passed pawns by rank (index = rank 0..7 from the owner's side).
PASSED_RANK = [S(0, 0), S(0, 0), S(5, 10), S(10, 20), S(20, 40), S(40, 70), S(70, 120), S(0, 0)]
# A passed pawn whose stop square holds an enemy piece keeps half of its rank bonus.
PASSED_BLOCKED = [-(s >> 1) if s else 0 for s in PASSED_RANK]
PASSED_KING_THEM = S(0, 5)  # per square of enemy king distance to the stop square, per rank
PASSED_KING_US = S(0, 2)  # per square of own king distance, per rank

ISOLATED = S(-10, -15)
DOUBLED = S(-10, -20)  # per pawn beyond the first on a file
DOUBLED_ISOLATED = S(-10, -10)  # Greenblatt scores doubling only when isolated: extra here
BACKWARD = S(-8, -10)
BACKWARD_HALF_OPEN = S(-8, -4)  # Greenblatt: weaker on a file without enemy pawns
BACKWARD_MAJORS = S(-4, -4)  # Greenblatt: weaker while the opponent has rooks or queens

SHIELD_NEAR_PAWN = S(12, 0)
SHIELD_FAR_PAWN = S(6, 0)
KING_OPEN_FILE = S(-12, 0)  # per file at or beside the king without a friendly pawn
# Greenblatt K (Greenblatt et al. 1967): 8 units per rank the king has advanced while queens are
# on, with a
# pawn of 128 units: trunc(8 * 100 / 128) = 6 cp. Applied while the opponent has a queen.
KING_RANK = S(-6, 0)
KING_ATTACK_UNITS = {chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 5}
# Bonus for attacking the enemy king zone, by attack units (two attackers at least).
KING_ATTACK = [S(min(400, 3 * u * u // 2), 0) for u in range(40)]

PAWN_THREAT = S(50, 40)  # per enemy piece attacked by one of our pawns
MINOR_THREAT = S(35, 30)  # per enemy rook or queen attacked by one of our minor pieces

BISHOP_PAIR = S(30, 50)
KNIGHT_OUTPOST = S(20, 10)
BISHOP_OUTPOST = S(10, 5)

ROOK_OPEN_FILE = S(25, 10)
ROOK_HALF_OPEN_FILE = S(12, 6)
ROOK_SEVENTH = S(20, 30)
QUEEN_SEVENTH = S(10, 15)

# Greenblatt C (Greenblatt et al. 1967) is +-1 unit (1/128 pawn) for centre pawns while the
# opponent has none
# there; at under a centipawn it would vanish, so we weight it 10 cp.
CENTER_PAWNS = S(10, 0)
CENTER_SQUARE = S(4, 0)  # per centre square attacked by us
CENTER_PAWN_ATTACK = S(3, 0)  # per centre square attacked by our pawns (on top of the above)

# Greenblatt's piece-ratio change term, static form (see engine.eval_terms.scaling).
RATIO_WEIGHT = 0.1
RATIO_CAP = 3.0

# Game phase: knights and bishops count 1, rooks 2, queens 4; 24 with all pieces on.
PHASE_MAX = 24
