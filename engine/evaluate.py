"""Static evaluation: S = material + positional terms, tapered by game phase.

The board value follows Greenblatt et al. 1967's S = M + R + P + K + C (material, piece-ratio
change, pawn structure, king safety, centre control) widened to the terms MadChess's Elo limiter
scales one by one (MadChess "The UCI_LimitStrength Algorithm", docs/reference/elo_limit.md
sections 1.5-1.6). Each term is
multiplied by a knowledge fraction (1.0 = full knowledge), so a strength limiter can make the
engine misjudge passed pawns, king safety and the rest independently.

Speed: the evaluation runs at every quiescence node, so it works on python-chess bitboards
directly with tables precomputed at import (engine/eval_terms), see
docs/reference/engines.md section 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import sub

import chess

from engine.eval_terms.bits import LIGHT_SQUARES, popcount
from engine.eval_terms.scaling import (
    SCALE_NONE,
    endgame_scale,
    piece_ratio,
    scale_with_knowledge,
)
from engine.eval_terms.side import side_terms
from engine.eval_terms.weights import HALF, PHASE_MAX, S
from engine.score import EVAL_LIMIT

_from_bytes = int.from_bytes

TERMS = (
    "material",
    "piece_location",
    "passed_pawns",
    "king_safety",
    "mobility",
    "pawn_structure",
    "threats",
    "minor_pieces",
    "major_pieces",
    "endgame_scaling",
    "piece_ratio",
    "center_control",
)

#: Middlegame material in centipawns (the search orders captures with these); like the other
#: weights a Texel fit from hand-made values (100, 320, 330, 500, 900; engine.eval_terms.weights).
PIECE_VALUES: dict[chess.PieceType, int] = {
    chess.PAWN: 89,
    chess.KNIGHT: 320,
    chess.BISHOP: 332,
    chess.ROOK: 497,
    chess.QUEEN: 902,
}
#: Endgame material: pawns and rooks gain as the board empties, knights lose a little (hand-made:
#: 125, 300, 330, 540, 950).
ENDGAME_PIECE_VALUES: dict[chess.PieceType, int] = {
    chess.PAWN: 118,
    chess.KNIGHT: 301,
    chess.BISHOP: 331,
    chess.ROOK: 537,
    chess.QUEEN: 952,
}
_MATERIAL_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


@dataclass
class MaterialValues:
    """Middlegame and endgame value of each piece type (pawn to queen), in centipawns."""

    middlegame: dict[chess.PieceType, int] = field(default_factory=lambda: dict(PIECE_VALUES))
    endgame: dict[chess.PieceType, int] = field(
        default_factory=lambda: dict(ENDGAME_PIECE_VALUES)
    )

    @classmethod
    def from_middlegame(cls, middlegame: Mapping[chess.PieceType, int]) -> MaterialValues:
        """Values from middlegame ones alone (one value per piece, as the Elo limiter has):
        each endgame value keeps the default endgame/middlegame ratio of its piece type."""
        mg = {t: middlegame[t] for t in _MATERIAL_TYPES if t in middlegame}
        eg = {
            t: int(value * ENDGAME_PIECE_VALUES[t] / PIECE_VALUES[t]) for t, value in mg.items()
        }
        return cls(middlegame=mg, endgame=eg)

    def __post_init__(self) -> None:
        for name, values in (("middlegame", self.middlegame), ("endgame", self.endgame)):
            for piece_type in _MATERIAL_TYPES:
                if piece_type not in values:
                    raise ValueError(
                        f"MaterialValues.{name}: missing the {chess.piece_name(piece_type)} value"
                    )
                value = values[piece_type]
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ValueError(
                        f"MaterialValues.{name}: {chess.piece_name(piece_type)} needs an int "
                        f"centipawn value, got {value!r}"
                    )
                if not -30000 < value < 30000:
                    raise ValueError(
                        f"MaterialValues.{name}: {chess.piece_name(piece_type)} value {value} "
                        "is out of range"
                    )


def _knowledge_fractions(knowledge: Mapping[str, float] | None) -> tuple[float, ...]:
    """Fractions in TERMS order; unknown names and values outside [0, 1] are errors."""
    fractions = dict.fromkeys(TERMS, 1.0)
    for name, value in (knowledge or {}).items():
        if name not in fractions:
            raise ValueError(f"unknown evaluation term {name!r}; known terms: {', '.join(TERMS)}")
        fraction = float(value)
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"knowledge fraction for {name!r} must be in [0, 1], got {value!r}")
        fractions[name] = fraction
    return tuple(fractions[name] for name in TERMS)


class Evaluator:
    """Evaluates positions with given knowledge fractions and material values.

    Each term is a packed (middlegame, endgame) score blended by phase (PHASE_MAX = all
    pieces on, 0 = bare kings and pawns) and truncated toward zero, so that a position and its
    colour-flipped mirror get exactly opposite values.

    ``knowledge`` maps term names (see TERMS) to fractions in [0, 1]; missing terms get 1.0.
    Evaluations are remembered by piece placement (White's view: castling rights, en passant
    and the side to move do not enter the evaluation) in a table of at most ``cache_size``
    entries, emptied when full; 0 turns it off.
    For "endgame_scaling" a fraction f applies the scale factor partially
    (`scale_with_knowledge`), except that a drawn ending stays drawn. Knowledge and material
    are fixed at construction: build a new Evaluator to change them.
    """

    def __init__(
        self,
        knowledge: Mapping[str, float] | None = None,
        material: MaterialValues | None = None,
        cache_size: int = 1 << 16,
    ) -> None:
        if cache_size < 0:
            raise ValueError(f"cache_size must not be negative, got {cache_size}")
        self._cache: dict[tuple[int, ...], int] = {}
        self._material_cache: dict[tuple[Counts, Counts], MaterialEntry] = {}
        self._cache_size = cache_size
        self.material = material if material is not None else MaterialValues()
        self.knowledge = _knowledge_fractions(knowledge)
        self._full_knowledge = all(f == 1.0 for f in self.knowledge)
        mg, eg = self.material.middlegame, self.material.endgame
        self._packed = [S(mg[t], eg[t]) for t in _MATERIAL_TYPES]
        self._mg = [mg[t] for t in _MATERIAL_TYPES]
        self._start_total = 2 * (
            8 * mg[chess.PAWN] + 2 * (mg[chess.KNIGHT] + mg[chess.BISHOP] + mg[chess.ROOK])
            + mg[chess.QUEEN]
        )

    def evaluate(self, board: chess.Board) -> int:
        """Centipawns from the side to move's point of view, within +-EVAL_LIMIT."""
        key = (
            board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE],
        )
        value = self._cache.get(key)
        if value is None:
            value = sum(self._white_terms(board))
            if value > EVAL_LIMIT:
                value = EVAL_LIMIT
            elif value < -EVAL_LIMIT:
                value = -EVAL_LIMIT
            if self._cache_size:
                if len(self._cache) >= self._cache_size:
                    self._cache.clear()
                self._cache[key] = value
        return value if board.turn else -value

    def terms(self, board: chess.Board) -> dict[str, int]:
        """Each term from White's point of view after knowledge scaling; "endgame_scaling" is
        the change the scale factor makes, so the values sum to the evaluation from White's
        view (before saturation to +-EVAL_LIMIT)."""
        return dict(zip(TERMS, self._white_terms(board)))

    def _white_terms(self, board: chess.Board) -> list[int]:
        """All terms in TERMS order, from White's point of view."""
        white, black, counts_w, counts_b, wb, bb = board_sides(board)
        phase, material, ratio, scales = self._material_entry(counts_w, counts_b)
        middle, end = phase, PHASE_MAX - phase
        # mg * middle + eg * end with mg = score - (eg << 16), one shift fewer a term
        eg_weight = end - (middle << 16)
        # each term truncated towards zero as int(blend / PHASE_MAX) would, in integers (the
        # same while |blend| < 2 ** 48, where the float quotient cannot round to a whole number)
        tapered = []
        for score in map(sub, white, black):
            blend = score * middle + ((score + HALF) >> 16) * eg_weight
            tapered.append(blend // PHASE_MAX if blend >= 0 else -(-blend // PHASE_MAX))
        values = [material, *tapered[:8], 0, ratio, tapered[8]]  # 0: endgame scaling, below
        fractions = self.knowledge
        if not self._full_knowledge:
            for i in range(12):
                if fractions[i] != 1.0:
                    values[i] = int(values[i] * fractions[i])

        total = sum(values)
        if total:
            raw = scales[2 * (total > 0) + opposite_bishops(counts_w, counts_b, wb, bb)]
            if raw != SCALE_NONE:
                factor = scale_with_knowledge(raw, fractions[9])
                values[9] = int(total * factor) - total
        return values

    def _material_entry(self, counts_w: Counts, counts_b: Counts) -> MaterialEntry:
        """What depends on the piece counts alone, cached by them as an engine's material hash
        table is (CPW "Material Hash Table"): the counts change at captures only, so nearly every
        evaluation finds its entry."""
        key = (counts_w, counts_b)
        entry = self._material_cache.get(key)
        if entry is None:
            phase = game_phase(counts_w, counts_b)
            packed = self._packed
            score = 0
            for i in range(5):
                score += (counts_w[i] - counts_b[i]) * packed[i]
            eg = (score + HALF) >> 16
            material = int(((score - (eg << 16)) * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX)
            scales = tuple(
                self._scale(counts_w, counts_b, white_strong, opposite)
                for white_strong in (False, True) for opposite in (False, True)
            )
            entry = (phase, material, self.ratio_term(counts_w, counts_b), scales)
            if len(self._material_cache) >= MATERIAL_CACHE_SIZE:
                self._material_cache.clear()
            self._material_cache[key] = entry
        return entry

    def ratio_term(self, counts_w: Counts, counts_b: Counts) -> int:
        """Greenblatt's piece-ratio term for White, from the piece counts (pawn to queen)."""
        mg = self._mg
        mat_w = mat_b = 0
        for i in range(5):
            mat_w += counts_w[i] * mg[i]
            mat_b += counts_b[i] * mg[i]
        return int(piece_ratio(mat_w, mat_b, self._start_total))

    def scale(self, counts_w: Counts, counts_b: Counts, wb: int, bb: int,
              white_strong: bool) -> int:
        """Endgame scale factor in 64ths for the stronger side's advantage (SCALE_NONE: none).
        ``wb``/``bb`` are White's and Black's bishops."""
        return self._scale(counts_w, counts_b, white_strong,
                           opposite_bishops(counts_w, counts_b, wb, bb))

    def _scale(self, counts_w: Counts, counts_b: Counts, white_strong: bool,
               opposite: bool) -> int:
        """`scale` with whether the bishops are a single pair of opposite colours given."""
        strong, weak = (counts_w, counts_b) if white_strong else (counts_b, counts_w)
        if strong[0] and not opposite:
            return SCALE_NONE
        mg = self._mg
        return endgame_scale(
            bool(strong[0]),
            sum(strong[i] * mg[i] for i in range(1, 5)),
            sum(weak[i] * mg[i] for i in range(1, 5)),
            strong[1] == 2 and not (strong[2] or strong[3] or strong[4]),
            mg[1] if mg[1] > mg[2] else mg[2],
            opposite,
            not (counts_w[1] or counts_b[1] or counts_w[3] or counts_b[3]
                 or counts_w[4] or counts_b[4]),
        )


Counts = tuple[int, int, int, int, int]
"""Pieces of one side by type, pawn to queen."""


def board_sides(board: chess.Board) -> tuple[tuple, tuple, Counts, Counts, int, int]:
    """White's and Black's side terms (see `side_terms`), their piece counts and their bishops."""
    black_occ, white_occ = board.occupied_co
    pawns, knights, bishops = board.pawns, board.knights, board.bishops
    rooks, queens, kings = board.rooks, board.queens, board.kings

    wp, wn, wb = pawns & white_occ, knights & white_occ, bishops & white_occ
    wr, wq, wk = rooks & white_occ, queens & white_occ, kings & white_occ
    bp, bn, bb = pawns & black_occ, knights & black_occ, bishops & black_occ
    br, bq, bk = rooks & black_occ, queens & black_occ, kings & black_occ

    white = side_terms(wp, wn, wb, wr, wq, wk, bp, bn, bb, br, bq, bk, white_occ, black_occ)
    # Black's side in White's orientation: each bitboard mirrored vertically (rank 1 <-> 8) by
    # one byte swap, written out rather than called (eight calls an evaluation).
    f_white = _from_bytes(white_occ.to_bytes(8, "big"), "little")
    f_black = _from_bytes(black_occ.to_bytes(8, "big"), "little")
    f_pawns = _from_bytes(pawns.to_bytes(8, "big"), "little")
    f_knights = _from_bytes(knights.to_bytes(8, "big"), "little")
    f_bishops = _from_bytes(bishops.to_bytes(8, "big"), "little")
    f_rooks = _from_bytes(rooks.to_bytes(8, "big"), "little")
    f_queens = _from_bytes(queens.to_bytes(8, "big"), "little")
    f_kings = _from_bytes(kings.to_bytes(8, "big"), "little")
    black = side_terms(
        f_pawns & f_black, f_knights & f_black, f_bishops & f_black,
        f_rooks & f_black, f_queens & f_black, f_kings & f_black,
        f_pawns & f_white, f_knights & f_white, f_bishops & f_white,
        f_rooks & f_white, f_queens & f_white, f_kings & f_white,
        f_black, f_white,
    )
    counts_w = (popcount(wp), popcount(wn), popcount(wb), popcount(wr), popcount(wq))
    counts_b = (popcount(bp), popcount(bn), popcount(bb), popcount(br), popcount(bq))
    return white, black, counts_w, counts_b, wb, bb


MaterialEntry = tuple[int, int, int, tuple[int, int, int, int]]
"""Game phase, tapered material term, piece-ratio term, and the endgame scale factor indexed by
2 * (White is the stronger side) + (the bishops are a single pair of opposite colours)."""
MATERIAL_CACHE_SIZE = 1 << 14
"""Entries of an evaluator's material table before it is emptied (a game sees a few hundred)."""


def opposite_bishops(counts_w: Counts, counts_b: Counts, wb: int, bb: int) -> bool:
    """Whether each side has a single bishop and they run on squares of different colours."""
    return (counts_w[2] == 1 and counts_b[2] == 1
            and bool(wb & LIGHT_SQUARES) != bool(bb & LIGHT_SQUARES))


def game_phase(counts_w: Counts, counts_b: Counts) -> int:
    """PHASE_MAX with all pieces on, 0 with bare kings and pawns (minor 1, rook 2, queen 4)."""
    phase = (
        counts_w[1] + counts_w[2] + counts_b[1] + counts_b[2]
        + 2 * (counts_w[3] + counts_b[3]) + 4 * (counts_w[4] + counts_b[4])
    )
    return phase if phase < PHASE_MAX else PHASE_MAX


_DEFAULT = Evaluator()


def reset_default() -> None:
    """Rebuild the default evaluator (after the weights change: its cache holds old values)."""
    global _DEFAULT
    _DEFAULT = Evaluator()


def evaluate(board: chess.Board, knowledge: Mapping[str, float] | None = None) -> int:
    """Evaluate ``board`` for the side to move with the default material values."""
    if knowledge is None:
        return _DEFAULT.evaluate(board)
    return Evaluator(knowledge).evaluate(board)
