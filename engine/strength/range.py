"""The `UCI_Elo` range the engine declares, the refusal of values outside it, and where a
declared Elo lies on the MadChess formulas' own range.

The MadChess formulas (`params`) are defined on 600..2600 (`params.ELO_MIN`..`params.ELO_MAX`),
but a range is only honest if the engine can play its ends: the top of the declared range is the
engine's measured full strength, the bottom the weakest level the ladder reaches (issue #18).
The calibration (`tempo calibrate`, results/calibration/README.md) updates `FULL_STRENGTH_ELO`
when it measures it; the bottom is a loaded table's first row (`range_bottom`), the weakest Elo
its calibration placed a level at.

Without a calibrated table the limiter plays the formulas at `formula_elo(UCI_Elo)`: the declared
range mapped linearly onto the formulas' range, so that each level keeps the share of full
strength's search effort, knowledge and error its place in MadChess's range gives it. The
formulas' own Elo would not do: MadChess's 2600 is its full strength, ours 1740; the formulas at
1650 give 693 nodes a move against full strength's about 9000, and at 1250 they played about
1000 (results/calibration/README.md), while `UCI_Elo 1740` plays unlimited.

Scale: Stockfish 15.1's `UCI_Elo` (docs/reference/elo_limit.md §0), one thread, 10+0.1.
"""

from __future__ import annotations

import math

from engine.strength.params import ELO_MAX, ELO_MIN

#: Full strength (no limit) on the declared scale: 1740 +- 29, measured by the sixth final
#: calibration's full-strength stage on 08b8750's search (results/calibration/final-v6/
#: full_strength: 600 games at 10+0.1 against Stockfish 15.1 at UCI_Elo 1700, 1800 and 1900,
#: themselves measured at 1626, 1763 and 1925 on the scale), rounded to 10. Earlier runs measured
#: 1680 +- 54 (final/, 15.1k nodes/s), 1718 +- 53 (final-v3/, 32.2k nodes/s) and 1771 +- 53
#: (final-v5/, 180 games, the top from 2026-12-07 until final-v6's 600 games); the intervals
#: overlap. A table's top row plays full strength's search effort by nodes (final-v6's round 2
#: measured it at 1706 +- 38 against this rating as target; results/calibration/README.md,
#: "U's 600 games"). The top of the range, where the limiter plays at full strength.
FULL_STRENGTH_ELO = 1740

#: The bottom of the range with `EloTable` empty (the formulas start at MadChess's minimum) and
#: the lowest `UCI_Elo` the option declares. A table's range starts at its first row instead
#: (`range_bottom`): the shipped table's at 710, the weakest Elo its calibration placed a row at
#: (results/calibration/README.md, "The table the engine loads now"), so while it is loaded
#: 600..709 are refused rather than played as its 710 row.
LADDER_MIN_ELO = 600

#: `UCI_Elo`'s default, inside the range (the value a GUI shows before the user picks one).
UCI_ELO_DEFAULT = 1200


def range_bottom(first_row_elo: int | None) -> int:
    """The lowest `UCI_Elo` accepted: a loaded table's first row (None: no table, the formulas'
    LADDER_MIN_ELO), never below LADDER_MIN_ELO. A table plays no level below its first row:
    an Elo there would take that row (`EloTable.params_for_elo`) and play stronger than asked."""
    return LADDER_MIN_ELO if first_row_elo is None else max(LADDER_MIN_ELO, first_row_elo)


def refusal(elo: int, bottom: int = LADDER_MIN_ELO, table: str | None = None) -> str | None:
    """Why `UCI_Elo elo` is refused (naming the range bottom..FULL_STRENGTH_ELO, and the table
    whose first row sets the bottom), or None when it is inside it."""
    if bottom <= elo <= FULL_STRENGTH_ELO:
        return None
    where = f" of EloTable {table}" if table else ""
    hint = "; another EloTable, set first, has its own bottom" if table else ""
    return (f"UCI_Elo {elo} is outside the range {bottom}..{FULL_STRENGTH_ELO}{where} "
            f"(Stockfish 15.1 UCI_Elo scale at 10+0.1; the top is full strength{hint})")


def formula_elo(elo: int) -> int:
    """The MadChess formulas' Elo for declared `elo`: LADDER_MIN_ELO..FULL_STRENGTH_ELO mapped
    linearly onto ELO_MIN..ELO_MAX, rounded half up (values outside the range are clamped to
    its ends)."""
    share = (elo - LADDER_MIN_ELO) / (FULL_STRENGTH_ELO - LADDER_MIN_ELO)
    return min(ELO_MAX, max(ELO_MIN, math.floor(ELO_MIN + share * (ELO_MAX - ELO_MIN) + 0.5)))
