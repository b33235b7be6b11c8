"""Score representation: integer centipawns from the side to move's view, with disjoint mate scores.

After the Chess Programming Wiki page "Score": a mate at the root
is worth MATE_VALUE, a mate N plies from the root MATE_VALUE - N (so shorter mates are preferred
and longer losses sought); heuristic evaluations saturate at +-EVAL_LIMIT, far inside the mate
range; mate scores are made relative to the node when stored in the transposition table and
relative to the root again when read back; scores fit a 16-bit signed field ("with centipawn
resolution a 15-bit signed integer type is appropriate", the page says; we keep the sign bit).
"""

from __future__ import annotations

MATE_VALUE = 32000
"""Score of mating at the root; mate in N plies is MATE_VALUE - N."""

MATE_BOUND = 31000
"""Any |score| >= MATE_BOUND is a mate score (mates up to 1000 plies away)."""

EVAL_LIMIT = 20000
"""Heuristic evaluations saturate at +-EVAL_LIMIT, disjoint from the mate range."""

INFINITE = MATE_VALUE + 1
"""A bound no real score reaches (the initial alpha-beta window)."""

DRAW = 0
"""The draw score before contempt."""

INT16_MIN = -(1 << 15)
INT16_MAX = (1 << 15) - 1


def mate_in(ply: int) -> int:
    """Score of giving mate `ply` plies from the root."""
    return MATE_VALUE - ply


def mated_in(ply: int) -> int:
    """Score of being mated `ply` plies from the root (the worst score at a node that deep)."""
    return -MATE_VALUE + ply


def is_mate(score: int) -> bool:
    """Whether `score` is a mate score (for either side)."""
    return score >= MATE_BOUND or score <= -MATE_BOUND


def clamp_eval(value: int) -> int:
    """Saturate a heuristic evaluation to +-EVAL_LIMIT."""
    if value > EVAL_LIMIT:
        return EVAL_LIMIT
    if value < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return value


def draw_score(contempt: int, root_to_move: bool) -> int:
    """The draw score at a node, from its side to move's view.

    Contempt is given from the root side's point of view (CPW "Score", contempt factor): with a
    positive contempt the root side values a draw at -contempt (it avoids draws), so the opponent,
    to move at the other nodes, values it at +contempt.
    """
    return -contempt if root_to_move else contempt


def to_tt(score: int, ply: int) -> int:
    """Make a mate score relative to the node `ply` plies from the root, to store it."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def from_tt(score: int, ply: int) -> int:
    """Make a stored node-relative mate score relative to the root again (inverse of `to_tt`)."""
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


def pack16(score: int) -> int:
    """Encode a score as an unsigned 16-bit field (two's complement); ValueError if out of range."""
    if not INT16_MIN <= score <= INT16_MAX:
        raise ValueError(f"score {score} does not fit a 16-bit signed field")
    return score & 0xFFFF


def unpack16(field: int) -> int:
    """Decode a 16-bit two's complement field back to a signed score (inverse of `pack16`)."""
    field &= 0xFFFF
    return field - 0x10000 if field & 0x8000 else field


def mate_moves(score: int) -> int:
    """Mate distance in moves for UCI `score mate N`: positive when mating, negative when mated."""
    if score > 0:
        return (MATE_VALUE - score + 1) // 2
    return -((MATE_VALUE + score) // 2)


def to_uci(score: int, bound: str | None = None) -> str:
    """UCI `score` text: `cp X` or `mate N`, followed by `lowerbound`/`upperbound` if given."""
    text = f"mate {mate_moves(score)}" if is_mate(score) else f"cp {score}"
    if bound is not None:
        if bound not in ("lowerbound", "upperbound"):
            raise ValueError(f"unknown score bound {bound!r}")
        text += " " + bound
    return text
