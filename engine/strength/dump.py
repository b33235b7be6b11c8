"""The `debug on` parameter dump in the format of MadChess "The UCI_LimitStrength Algorithm",
"Precise Values".

The lines come without the leading "info string ", which the UCI layer adds. The first block is
the seed's dump line for line: the limit, the four search parameters, MadChess-scale middlegame
and endgame material (docs/reference/elo_limit.md §1.6) and the nine knowledge integers per 128
(§1.5), so that our limit can be checked against the seed by eye. The `EvalMg*Material` and
`EvalEg*Material` lines that follow are the Tempo-scale values our evaluation actually uses (see
`params` for the mapping), then the search effort on our engine's scale (`throttle`): the
node budget per move, the depth cap and the NPS the throttle of `LimitMode nps` holds.
"""

from __future__ import annotations

import chess

from engine.strength.params import StrengthParams, madchess_material
from engine.strength.throttle import rescaled_nps

#: The seed's knowledge line names, in its order, for our term keys.
KNOWLEDGE_DUMP_NAMES = (
    ("passed_pawns", "LsPassedPawnsPer128"),
    ("king_safety", "LsKingSafetyPer128"),
    ("piece_location", "LsPieceLocationPer128"),
    ("mobility", "LsPieceMobilityPer128"),
    ("pawn_structure", "LsPawnStructurePer128"),
    ("threats", "LsThreatsPer128"),
    ("minor_pieces", "LsMinorPiecesPer128"),
    ("major_pieces", "LsMajorPiecesPer128"),
    ("endgame_scaling", "LsEndgameScalePer128"),
)


def _piece_name(piece: int) -> str:
    return chess.piece_name(piece).capitalize()


def dump_lines(params: StrengthParams) -> list[str]:
    """The parameter dump for `params`, one string per `info string` line."""
    lines = [
        f"LimitStrength = True, ELO = {params.elo}.",
        f"NPS = {params.nps}, MoveError = {params.move_error}, "
        f"BlunderError = {params.blunder_error}, BlunderPer128 = {params.blunder_per128}.",
    ]
    for piece, (mg, eg) in madchess_material(params.effort_elo).items():
        name = _piece_name(piece)
        lines.append(f"Mg{name}Material = {mg}")
        lines.append(f"Eg{name}Material = {eg}")
    for term, name in KNOWLEDGE_DUMP_NAMES:
        lines.append(f"{name} = {params.knowledge_per128[term]}")
    for piece, (mg, eg) in params.material.items():
        name = _piece_name(piece)
        lines.append(f"EvalMg{name}Material = {mg}")
        lines.append(f"EvalEg{name}Material = {eg}")
    lines.append(f"Nodes = {params.nodes}, DepthCap = {params.depth_cap}, "
                 f"ThrottleNPS = {rescaled_nps(params.nps)}.")
    return lines
