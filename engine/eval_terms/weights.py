"""Evaluation weights: piece-square tables and term weights, in centipawns.

Every weight is a (middlegame, endgame) pair packed into one int by :func:`S`, so that a
term is accumulated with one addition and tapered once at the end (the packing trick is
standard engine practice; the numbers are ours). Tables are given for White and are
left-right symmetric; Black uses them on flipped bitboards.

The numbers are a Texel fit (`tempo tune`, lab/tune/fit.py) on about 2800 of the project's own
games, started from hand-made rules (distance to the centre, rank; `git show
56cb0ac:engine/eval_terms/weights.py` has them with their reasons). The fit passed its SPRT
against the hand-made set (experiments/sprt_weights.toml, 5+0.05, [0, 10]): +54.8 +- 25.5 Elo,
LLR 2.96, 550 games. One weight keeps its source instead of the fit: KING_RANK, Greenblatt's K
(the fit had 7 cp against the paper's 6). The fit's record and command are in results/README.md.

Greenblatt et al. 1967 counts in units of 1/128 pawn (pawn 128, knight 416, bishop 445, rook
640, queen 1248); Tempo counts in centipawns with the material values of engine.evaluate, and
converts Greenblatt's weights where it uses them.
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


def _pairs(pairs: list[tuple[int, int]]) -> list[int]:
    """Packed values of (middlegame, endgame) pairs, in order."""
    return [S(mg, eg) for mg, eg in pairs]


def _mirrored(rows: list[list[tuple[int, int]]]) -> list[int]:
    """A table by square from eight rows (rank 8 first) of the a-d files' pairs; the e-h files
    mirror them."""
    table = [0] * 64
    for row, pairs in enumerate(rows):
        for file, (mg, eg) in enumerate(pairs):
            table[chess.square(file, 7 - row)] = table[chess.square(7 - file, 7 - row)] = S(mg, eg)
    return table


# Piece-square tables, a to d (e to h mirror them), rank 8 at the top as White sees the board.
PST = {
    chess.PAWN: _mirrored([
        [    (0, 0),     (0, 0),     (0, 0),     (0, 0)],  # 8
        [  (18, 40),   (28, 40),   (34, 40),   (44, 40)],  # 7
        [   (8, 25),   (17, 24),   (25, 26),   (34, 25)],  # 6
        [   (1, 13),   (10, 12),   (15, 10),   (26, 11)],  # 5
        [   (-4, 6),     (4, 6),    (10, 5),    (18, 4)],  # 4
        [   (-7, 1),   (-5, -2),     (1, 0),    (3, -3)],  # 3
        [  (-9, -9),   (-2, -7),   (-1, -4),  (-12, -5)],  # 2
        [    (0, 0),     (0, 0),     (0, 0),     (0, 0)],  # 1
    ]),
    chess.KNIGHT: _mirrored([
        [(-24, -20), (-16, -14),   (-8, -8),    (0, -2)],  # 8
        [(-16, -14),   (-8, -8),    (0, -2),     (8, 4)],  # 7
        [  (-8, -8),    (0, -2),     (8, 4),   (16, 10)],  # 6
        [   (0, -2),     (8, 4),   (17, 10),   (25, 17)],  # 5
        [   (0, -2),     (8, 4),   (17, 11),   (23, 16)],  # 4
        [  (-8, -8),    (0, -2),     (7, 4),   (16, 10)],  # 3
        [(-16, -14),   (-8, -8),    (0, -2),     (9, 4)],  # 2
        [(-24, -20), (-20, -15),   (-8, -8),    (1, -2)],  # 1
    ]),
    chess.BISHOP: _mirrored([
        [(-12, -14),  (-8, -10),   (-4, -6),    (0, -2)],  # 8
        [ (-8, -10),   (-4, -6),    (0, -2),     (4, 2)],  # 7
        [  (-5, -6),    (0, -2),     (4, 2),     (8, 6)],  # 6
        [   (0, -2),     (4, 2),     (8, 6),   (12, 10)],  # 5
        [   (0, -2),     (4, 2),     (8, 6),   (13, 11)],  # 4
        [  (-4, -6),    (0, -2),     (5, 2),     (6, 7)],  # 3
        [ (-8, -10),    (0, -5),    (0, -2),     (6, 2)],  # 2
        [(-22, -14), (-18, -10),  (-14, -6),  (-10, -2)],  # 1
    ]),
    chess.ROOK: _mirrored([
        [    (0, 0),     (0, 0),     (0, 0),     (5, 0)],  # 8
        [   (10, 5),    (10, 5),    (10, 5),    (15, 5)],  # 7
        [    (0, 0),     (0, 0),     (0, 0),     (5, 0)],  # 6
        [    (0, 0),     (0, 0),     (0, 0),     (5, 0)],  # 5
        [    (0, 0),     (0, 0),     (0, 0),     (5, 0)],  # 4
        [    (0, 0),     (0, 0),     (0, 0),     (5, 0)],  # 3
        [  (-1, -1),     (0, 0),    (0, -1),     (5, 0)],  # 2
        [  (-9, -2),     (1, 0),     (4, 1),     (6, 0)],  # 1
    ]),
    chess.QUEEN: _mirrored([
        [ (-8, -12),   (-6, -8),   (-4, -4),    (-2, 0)],  # 8
        [  (-6, -8),   (-4, -4),    (-2, 0),     (0, 4)],  # 7
        [  (-4, -4),    (-2, 0),     (0, 4),     (2, 8)],  # 6
        [   (-2, 0),     (0, 4),     (2, 8),    (4, 12)],  # 5
        [   (-2, 0),     (0, 4),     (2, 8),    (4, 12)],  # 4
        [  (-4, -4),     (0, 0),     (1, 4),     (1, 8)],  # 3
        [  (-6, -8),   (-4, -4),    (-2, 0),     (3, 4)],  # 2
        [ (-8, -12),   (-6, -8),   (-4, -4),    (-2, 0)],  # 1
    ]),
    chess.KING: _mirrored([
        [(-60, -30), (-55, -20), (-65, -10),   (-75, 0)],  # 8
        [(-60, -20), (-55, -10),   (-65, 0),  (-75, 10)],  # 7
        [(-60, -10),   (-55, 0),  (-65, 10),  (-75, 20)],  # 6
        [  (-60, 0),  (-55, 10),  (-65, 20),  (-75, 30)],  # 5
        [  (-60, 0),  (-55, 10),  (-65, 20),  (-75, 30)],  # 4
        [(-35, -10),   (-30, 1),  (-40, 11),  (-50, 20)],  # 3
        [(-10, -20),   (-5, -9),   (-15, 0),  (-24, 12)],  # 2
        [ (15, -30),  (22, -21),   (9, -11),   (-3, -2)],  # 1
    ]),
}

# Mobility by number of safe squares a piece reaches.
MOBILITY = {
    chess.KNIGHT: _pairs([
        (-17, -16), (-13, -12), (-7, -9), (-4, -5), (-1, 0), (5, 6), (9, 9), (12, 12), (16, 16)
    ]),
    chess.BISHOP: _pairs([
        (-26, -30), (-21, -26), (-14, -20), (-10, -15), (-6, -10), (-4, -5), (0, 1), (3, 5),
        (8, 10), (12, 16), (16, 20), (20, 25), (24, 30), (28, 35)
    ]),
    chess.ROOK: _pairs([
        (-16, -25), (-14, -21), (-10, -17), (-6, -13), (-4, -9), (-2, -4), (2, 0), (3, 4), (5, 8),
        (7, 13), (9, 16), (10, 20), (12, 24), (14, 28), (16, 32)
    ]),
    chess.QUEEN: _pairs([
        (-12, -24), (-11, -22), (-9, -20), (-10, -18), (-8, -16), (-7, -14), (-6, -12), (-5, -10),
        (-4, -8), (-2, -6), (-2, -4), (-1, -2), (0, 0), (1, 2), (2, 4), (3, 6), (4, 8), (5, 10),
        (6, 12), (7, 14), (8, 16), (9, 18), (10, 20), (11, 22), (12, 24), (13, 26), (14, 28),
        (15, 30)
    ]),
}

# Passed pawns by rank (index = rank 0..7 from the owner's side).
PASSED_RANK = _pairs([(0, 0), (-2, -1), (4, 9), (8, 18), (20, 39), (41, 70), (70, 121), (0, 0)])
# A passed pawn whose stop square holds an enemy piece: the hand-made rule kept half the rank bonus.
PASSED_BLOCKED = _pairs([
    (0, 0), (0, 0), (-2, -5), (-5, -10), (-10, -21), (-20, -35), (-35, -60), (0, 0),
])
PASSED_KING_THEM = S(-2, 13)  # per square of enemy king distance to the stop square, per rank
PASSED_KING_US = S(-1, 4)  # per square of own king distance, per rank

ISOLATED = S(-7, -15)
DOUBLED = S(-9, -20)  # per pawn beyond the first on a file
DOUBLED_ISOLATED = S(-11, -11)  # Greenblatt scores doubling only when isolated: extra here
BACKWARD = S(-4, -9)
BACKWARD_HALF_OPEN = S(-8, -4)  # Greenblatt: weaker on a file without enemy pawns
BACKWARD_MAJORS = S(0, -4)  # Greenblatt: weaker while the opponent has rooks or queens

SHIELD_NEAR_PAWN = S(12, -3)
SHIELD_FAR_PAWN = S(6, -1)
KING_OPEN_FILE = S(-12, 1)  # per file at or beside the king without a friendly pawn
# Greenblatt K (Greenblatt et al. 1967): 8 units per rank the king has advanced while queens are
# on, with a pawn of 128 units: trunc(8 * 100 / 128) = 6 cp. Applied while the opponent has a
# queen.
KING_RANK = S(-6, 0)
KING_ATTACK_UNITS = {chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 5}
# Bonus for attacking the enemy king zone, by attack units (two attackers at least); the
# hand-made rule was min(400, 3 u^2 / 2).
KING_ATTACK = _pairs([
    (0, 0), (1, 0), (6, 0), (13, 0), (24, 0), (37, -1), (54, 0), (71, 1),
    (96, 0), (121, 0), (150, 0), (181, 0), (216, 0), (253, 0), (294, 0), (337, 0),
    (384, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0),
    (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0),
    (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0), (400, 0),
])

PAWN_THREAT = S(50, 40)  # per enemy piece attacked by one of our pawns
MINOR_THREAT = S(36, 30)  # per enemy rook or queen attacked by one of our minor pieces

BISHOP_PAIR = S(32, 51)
KNIGHT_OUTPOST = S(20, 11)
BISHOP_OUTPOST = S(10, 5)

ROOK_OPEN_FILE = S(27, 11)
ROOK_HALF_OPEN_FILE = S(15, 7)
ROOK_SEVENTH = S(20, 30)
QUEEN_SEVENTH = S(10, 15)

# Greenblatt C (Greenblatt et al. 1967) is +-1 unit (1/128 pawn) for centre pawns while the
# opponent has none there; at under a centipawn it would vanish, so the hand-made set weighted it
# 10 cp and the fit moved it.
CENTER_PAWNS = S(8, -3)
CENTER_SQUARE = S(6, 2)  # per centre square attacked by us
CENTER_PAWN_ATTACK = S(1, -2)  # per centre square attacked by our pawns (on top of the above)

# Greenblatt's piece-ratio change term, static form (see engine.eval_terms.scaling).
RATIO_WEIGHT = 0.1
RATIO_CAP = 3.0

# Game phase: knights and bishops count 1, rooks 2, queens 4; 24 with all pieces on.
PHASE_MAX = 24
