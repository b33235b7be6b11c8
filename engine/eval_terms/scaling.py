"""Whole-board terms from material alone: endgame scaling and the piece-ratio change term."""

from __future__ import annotations

from engine.eval_terms.weights import RATIO_CAP, RATIO_WEIGHT

# Scale factors in 64ths (64 = no scaling).
SCALE_NONE = 64
SCALE_DRAW = 0  # a lone minor piece (KBK, KNK) or two knights cannot force mate
SCALE_HARD = 16  # no pawns and at most a minor piece up (KRKB, KRKN, KQKR, ...)
SCALE_OPPOSITE_BISHOPS = 32  # opposite-coloured bishops, nothing but pawns besides
SCALE_OPPOSITE_BISHOPS_PIECES = 52  # opposite-coloured bishops with other pieces


def endgame_scale(
    strong_has_pawns: bool,
    strong_pieces: int,
    weak_pieces: int,
    strong_two_knights_only: bool,
    minor_value: int,
    opposite_bishops: bool,
    only_bishops_and_pawns: bool,
) -> int:
    """How much of the stronger side's advantage survives, in 64ths (MadChess's endgame
    scaling: drawish material scales toward zero, MadChess "The UCI_LimitStrength Algorithm").

    ``strong_pieces``/``weak_pieces`` are non-pawn material values, ``minor_value`` the larger
    of a knight's and a bishop's.
    """
    if not strong_has_pawns:
        if strong_pieces <= minor_value or (strong_two_knights_only and not weak_pieces):
            return SCALE_DRAW
        if strong_pieces - weak_pieces <= minor_value:
            return SCALE_HARD
    if opposite_bishops:
        return SCALE_OPPOSITE_BISHOPS if only_bishops_and_pawns else SCALE_OPPOSITE_BISHOPS_PIECES
    return SCALE_NONE


def scale_with_knowledge(raw: int, fraction: float) -> float:
    """The share of the advantage kept when only `fraction` of the endgame-scaling knowledge is
    used: 1 - fraction x (1 - raw / SCALE_NONE), moving from no scaling toward the real scale.

    A drawn ending (SCALE_DRAW: no mating material) stays a draw at any fraction: MadChess's 3.2
    beta interpolates the scale only when it is non-zero (docs/reference/elo_limit.md §1.5), so a
    weak level does not score king and knight against king as a win (issue #18: +396 cp at 600).
    """
    if raw == SCALE_DRAW:
        return 0.0
    return 1.0 - fraction * (1.0 - raw / SCALE_NONE)


def piece_ratio(ours: int, theirs: int, start_total: int) -> float:
    """Greenblatt's piece-ratio change term in a static form, from our point of view.

    Greenblatt et al. 1967 ("Evaluation of the board") rewards the side
    ahead for trades by comparing the material ratio at a node with the ratio at the root.
    A static evaluation has no root, so the reference here is the starting material: with the
    material difference d = ours - theirs and the total t = ours + theirs, the term is
    RATIO_WEIGHT * d * min(start_total / t - 1, RATIO_CAP). It is zero with all material on
    the board and grows for the side ahead as pieces come off, so even trades score for it.
    """
    total = ours + theirs
    if total <= 0 or ours == theirs:
        return 0.0
    factor = min(start_total / total - 1.0, RATIO_CAP)
    if factor <= 0.0:
        return 0.0
    return RATIO_WEIGHT * (ours - theirs) * factor
