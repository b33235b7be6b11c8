"""Strength parameters for one UCI_Elo: search speed, move errors, blunders, knowledge, material.

The formulas are MadChess 3.2 beta's (commit 1d7e535, PR #41), which reproduce every row of the
table in MadChess "The UCI_LimitStrength Algorithm" and its 1075 Elo `debug on` example; they are
restated in
docs/reference/elo_limit.md §0 (speed and errors), §1.5 (knowledge) and §1.6 (material). MadChess
truncates rather than rounds (§1.2, "Pitfalls"), and so do we.

Material scale. MadChess's (middlegame, endgame) defaults (pawn 100/127, knight 300/519, bishop
330/545, rook 500/858, queen 975/1671) are not ours: `base_material()` is Tempo's evaluation's
own as it stands when called (engine/evaluate.py, PIECE_VALUES and ENDGAME_PIECE_VALUES, which a
weights file may change), built in: pawn 100/125, knight 320/300, bishop
330/330, rook 500/540, queen 900/950 centipawns. The seed's distortions below 1000 Elo are defined
relative to each piece's own default (pawns from 0 to full value over 600..799, rook from 0.67x and
queen from 1.33x to full value over 600..999, the dearer minor piece from the cheaper one's value
to its own), so we carry the *rules* over to our base values, phase by phase, rather than rescaling
the seed's numbers. At 600 Elo the seed's middlegame values P 0, N 300, B 300, R 335, Q 1296 become
P 0, N 320, B 320, R 335, Q 1197 on our scale (endgame: P 0, N 300, B 300, R 361, Q 1263); from
1000 Elo on (the seed's 1075 example) both scales show their undistorted defaults.
`madchess_material` keeps the seed-scale values for the `debug on` dump, which reproduces the seed
verbatim.

Knowledge. Each positional term is multiplied by a fraction that rises linearly from 0 at 600 Elo
to 1 at the term's top rating (§1.5); `knowledge_per128` is the seed's integer form
trunc(128 x fraction), which the evaluation should apply as `value * per128 // 128`. The terms
"material", "piece_ratio" and "center_control" are not in MadChess's schedule: the reference
scales material only through the distortions above and has no piece-ratio or centre-control
term, so those three stay at 1.0 (128/128) at every Elo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import chess

from engine.evaluate import ENDGAME_PIECE_VALUES, PIECE_VALUES, TERMS
from engine.strength.throttle import depth_cap, level_nodes

ELO_MIN = 600
ELO_MAX = 2600


#: Elo at which each scaled term reaches full knowledge (reference §1.5, 3.2 beta column).
KNOWLEDGE_MAX_ELO = {
    "passed_pawns": 1200,
    "king_safety": 1400,
    "piece_location": 1600,
    "mobility": 1800,
    "pawn_structure": 2000,
    "threats": 2200,
    "minor_pieces": 2300,
    "major_pieces": 2300,
    "endgame_scaling": 2400,
}

#: Terms kept at full knowledge at every Elo (not in the reference's schedule).
FIXED_TERMS = ("material", "piece_ratio", "center_control")


def base_material() -> dict[int, tuple[int, int]]:
    """Tempo's (middlegame, endgame) material in centipawns: the values the evaluation uses now
    (read at each call, so levels follow a weights file's material as the evaluator does)."""
    return {piece: (PIECE_VALUES[piece], ENDGAME_PIECE_VALUES[piece]) for piece in PIECE_VALUES}


#: MadChess 3.2 beta's (middlegame, endgame) defaults (reference §1.6), for the seed's dump only.
MADCHESS_MATERIAL = {
    chess.PAWN: (100, 127),
    chess.KNIGHT: (300, 519),
    chess.BISHOP: (330, 545),
    chess.ROOK: (500, 858),
    chess.QUEEN: (975, 1671),
}

PAWN_FULL_ELO = 800
MATERIAL_FULL_ELO = 1000


def percent_of_128(per128: int) -> int:
    """100 x per128 / 128 rounded half up, as the seed's percentage columns show (§1.2)."""
    return (200 * per128 + 128) // 256


def _check_elo(elo: int) -> None:
    if not ELO_MIN <= elo <= ELO_MAX:
        raise ValueError(f"Elo {elo} outside {ELO_MIN}..{ELO_MAX} (the formulas' range)")


def nps_for_elo(elo: int) -> int:
    """NPS = trunc(200 a^4) + 500 with a = (E - 600)/200 (reference §0, MadChess 3.2 beta)."""
    _check_elo(elo)
    a = (elo - ELO_MIN) / 200
    return math.trunc(200 * a**4) + 500


def elo_for_nps(nps: int) -> int:
    """The formula Elo whose NPS is `nps`: `nps_for_elo` inverted,
    E = 600 + 200 ((NPS - 500)/200)^(1/4), rounded half up and clamped to 600..2600 (every NPS
    up to 500 is the bottom's).

    A calibrated table's row gives a search speed measured to play at the row's Elo; the
    material distortions and the depth cap that go with that much search are the formula's at
    this Elo, as they were when the row's parameters were measured.
    """
    if nps < 1:
        raise ValueError(f"NPS must be at least 1, got {nps}")
    a = (max(0, nps - 500) / 200) ** 0.25
    return min(ELO_MAX, math.floor(ELO_MIN + 200 * a + 0.5))


def move_error_for_elo(elo: int) -> int:
    """MoveError = trunc(0.45 b^2) + 5 cp with b = (2600 - E)/200 (reference §0)."""
    _check_elo(elo)
    b = (ELO_MAX - elo) / 200
    return math.trunc(0.45 * b**2) + 5


def blunder_error_for_elo(elo: int) -> int:
    """BlunderError = trunc(1.75 b^2.5) + 50 cp with b = (2600 - E)/200 (reference §0)."""
    _check_elo(elo)
    b = (ELO_MAX - elo) / 200
    return math.trunc(1.75 * b**2.5) + 50


def blunder_per128_for_elo(elo: int) -> int:
    """BlunderPer128 = trunc(b) + 6 with b = (2600 - E)/200 (reference §0)."""
    _check_elo(elo)
    return (ELO_MAX - elo) // 200 + 6


def knowledge_for_elo(elo: int) -> dict[str, float]:
    """Fraction of each term: linear from 0 at 600 Elo to 1 at the term's top Elo (§1.5)."""
    _check_elo(elo)
    fractions = {}
    for term in TERMS:
        top = KNOWLEDGE_MAX_ELO.get(term)
        if top is None:
            fractions[term] = 1.0
        else:
            fractions[term] = min(1.0, (elo - ELO_MIN) / (top - ELO_MIN))
    return fractions


def knowledge_per128_for_elo(elo: int) -> dict[str, int]:
    """The seed's integers trunc(128 x fraction), in exact integer arithmetic (§1.5 table)."""
    _check_elo(elo)
    per128 = {}
    for term in TERMS:
        top = KNOWLEDGE_MAX_ELO.get(term)
        if top is None:
            per128[term] = 128
        else:
            per128[term] = min(128, 128 * (elo - ELO_MIN) // (top - ELO_MIN))
    return per128


def per128_of(fraction: float) -> int:
    """trunc(128 x fraction); the 1e-9 absorbs binary rounding so that, e.g., 0.375 gives 48."""
    return min(128, math.trunc(128 * fraction + 1e-9))


def _beta_lerp(low: int, high: int, elo: int, elo_low: int, elo_high: int) -> int:
    """MadChess 3.2 beta's interpolation (reference §1.1): clamp, trunc, clamp to the ends."""
    e = min(max(elo, elo_low), elo_high)
    value = math.trunc(low + (e - elo_low) / (elo_high - elo_low) * (high - low))
    return min(max(value, min(low, high)), max(low, high))


def _distorted(piece: int, default: int, elo: int, other_minor: int) -> int:
    """One piece value in one phase by the 3.2 beta rules (reference §1.6).

    `other_minor` is the other minor piece's default in the same phase (the bishop's for a
    knight, the knight's for a bishop): the dearer of the two starts from the cheaper's value.
    """
    if piece == chess.PAWN:
        if elo < PAWN_FULL_ELO:
            return _beta_lerp(0, default, elo, ELO_MIN, PAWN_FULL_ELO - 1)
        return default
    if elo >= MATERIAL_FULL_ELO:
        return default
    last = MATERIAL_FULL_ELO - 1
    if piece == chess.ROOK:
        return _beta_lerp(math.trunc(0.67 * default), default, elo, ELO_MIN, last)
    if piece == chess.QUEEN:
        return _beta_lerp(math.trunc(1.33 * default), default, elo, ELO_MIN, last)
    if piece in (chess.KNIGHT, chess.BISHOP) and default > other_minor:
        return _beta_lerp(other_minor, default, elo, ELO_MIN, last)
    return default


def _distort_all(base: dict[int, tuple[int, int]], elo: int) -> dict[int, tuple[int, int]]:
    _check_elo(elo)
    other = {chess.KNIGHT: base[chess.BISHOP], chess.BISHOP: base[chess.KNIGHT]}
    values = {}
    for piece, (mg, eg) in base.items():
        other_mg, other_eg = other.get(piece, (0, 0))
        values[piece] = (
            _distorted(piece, mg, elo, other_mg),
            _distorted(piece, eg, elo, other_eg),
        )
    return values


def material_for_elo(elo: int) -> dict[int, tuple[int, int]]:
    """Tempo-scale (middlegame, endgame) piece values at this Elo, keyed by piece type."""
    return _distort_all(base_material(), elo)


def madchess_material(elo: int) -> dict[int, tuple[int, int]]:
    """MadChess-scale (middlegame, endgame) values at this Elo, as the seed's dump prints them."""
    return _distort_all(MADCHESS_MATERIAL, elo)


def _check_knowledge(name: str, values: dict, low: float, high: float) -> None:
    if set(values) != set(TERMS):
        missing = sorted(set(TERMS) - set(values))
        extra = sorted(set(values) - set(TERMS))
        raise ValueError(f"{name}: missing terms {missing}, unknown terms {extra}")
    for term, value in values.items():
        if not low <= value <= high:
            raise ValueError(f"{name}[{term!r}] = {value} outside {low}..{high}")


@dataclass(frozen=True)
class StrengthParams:
    """Everything that limits playing strength at one Elo (MadChess "The UCI_LimitStrength
    Algorithm", reference §0, §1.5, §1.6).

    `nps` is MadChess's search-speed limit (the seed's scale; `nodes` is the node budget per move
    and `depth_cap` the deepest iteration on our engine's scale, `throttle`). `effort_elo` is the
    formula Elo of that search effort, `elo` itself on the formulas and `elo_for_nps(nps)` in a
    calibrated table; the depth cap and the material follow it. `move_error` and
    `blunder_error` the error budgets in centipawns, `blunder_per128` the chance out of 128 that
    a move's budget is the blunder error.
    `knowledge` maps every name in `TERMS` to the fraction of that evaluation term the engine
    keeps, `knowledge_per128` to the same as the seed's integer per 128 (apply it as
    `value * per128 // 128`). For "endgame_scaling" the 3.2 beta moves the endgame scale factor
    from "no scaling" toward the real one by that fraction, and only when the real scale is not
    0 (reference §1.5). `material` holds the Tempo-scale (middlegame, endgame) piece values
    keyed by python-chess piece type, which replace the evaluation's defaults (`material_mg`
    and `material_eg` give them as two dicts).
    """

    elo: int
    effort_elo: int
    nps: int
    move_error: int
    blunder_error: int
    blunder_per128: int
    knowledge: dict[str, float] = field(hash=False)
    knowledge_per128: dict[str, int] = field(hash=False)
    material: dict[int, tuple[int, int]] = field(hash=False)

    def __post_init__(self) -> None:
        _check_elo(self.elo)
        _check_elo(self.effort_elo)
        if self.nps < 1:
            raise ValueError(f"NPS must be at least 1, got {self.nps}")
        for name in ("move_error", "blunder_error"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        if not 0 <= self.blunder_per128 <= 128:
            raise ValueError(f"blunder_per128 must be in 0..128, got {self.blunder_per128}")
        _check_knowledge("knowledge", self.knowledge, 0.0, 1.0)
        _check_knowledge("knowledge_per128", self.knowledge_per128, 0, 128)
        if set(self.material) != set(MADCHESS_MATERIAL):
            raise ValueError(f"material must hold pawn..queen, got keys {sorted(self.material)}")

    @property
    def nodes(self) -> int:
        """The node budget per move on our engine's scale (`throttle.level_nodes`)."""
        return level_nodes(self.nps)

    @property
    def depth_cap(self) -> int:
        """The deepest iteration this level completes (`throttle.depth_cap`)."""
        return depth_cap(self.effort_elo, ELO_MIN)

    @property
    def material_mg(self) -> dict[int, int]:
        """Middlegame piece values, pawn to queen."""
        return {piece: mg for piece, (mg, _) in self.material.items()}

    @property
    def material_eg(self) -> dict[int, int]:
        """Endgame piece values, pawn to queen."""
        return {piece: eg for piece, (_, eg) in self.material.items()}

    @property
    def blunder_percent(self) -> int:
        """The seed table's Blunder Percent column: 100 x BlunderPer128/128, half up (§1.2)."""
        return percent_of_128(self.blunder_per128)

    @property
    def makes_errors(self) -> bool:
        """True when a move can be chosen below the best, so every root move needs a score."""
        return self.move_error > 0 or (self.blunder_error > 0 and self.blunder_per128 > 0)


def params_for_elo(elo: int) -> StrengthParams:
    """The formula parameters at one Elo in 600..2600 (MadChess "The UCI_LimitStrength Algorithm"'s
    table, reference §0)."""
    return StrengthParams(
        elo=elo,
        effort_elo=elo,
        nps=nps_for_elo(elo),
        move_error=move_error_for_elo(elo),
        blunder_error=blunder_error_for_elo(elo),
        blunder_per128=blunder_per128_for_elo(elo),
        knowledge=knowledge_for_elo(elo),
        knowledge_per128=knowledge_per128_for_elo(elo),
        material=material_for_elo(elo),
    )
