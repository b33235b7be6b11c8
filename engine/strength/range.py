"""The `UCI_Elo` range the engine declares, and the refusal of values outside it.

The MadChess formulas (`params`) are defined on 600..2600 (`params.ELO_MIN`..`params.ELO_MAX`),
but a range is only honest if the engine can play its ends: the top of the declared range is the
engine's measured full strength, the bottom the weakest level the ladder reaches (issue #18).
The calibration (`tempo calibrate`, results/calibration/README.md) updates `FULL_STRENGTH_ELO`
and `LADDER_MIN_ELO` when it measures them.

Scale: Stockfish 15.1's `UCI_Elo` (docs/reference/elo_limit.md §0), one thread, 10+0.1.
"""

from __future__ import annotations

#: Full strength (no limit) on the declared scale: 1680 +- 54, measured by the final
#: calibration's full-strength stage (results/calibration/final/full_strength: 180 games at
#: 10+0.1 against Stockfish 15.1 at UCI_Elo 1700, 1800 and 1900, themselves measured at 1626,
#: 1763 and 1925 on the scale; 58.3, 34.2 and 23.3 %). The top of the range, where the limiter
#: plays at full strength: the MadChess formulas at that Elo are far weaker (at 1720: 551 nodes a
#: move and move errors; full strength won 10 of 10 games against it at 5+0.05).
FULL_STRENGTH_ELO = 1680

#: The weakest level the ladder reaches: MadChess's minimum until the calibration measures it.
LADDER_MIN_ELO = 600

#: `UCI_Elo`'s default, inside the range (the value a GUI shows before the user picks one).
UCI_ELO_DEFAULT = 1200


def refusal(elo: int) -> str | None:
    """Why `UCI_Elo elo` is refused (naming the range), or None when it is inside it."""
    if LADDER_MIN_ELO <= elo <= FULL_STRENGTH_ELO:
        return None
    return (f"UCI_Elo {elo} is outside the range {LADDER_MIN_ELO}..{FULL_STRENGTH_ELO} "
            f"(Stockfish 15.1 UCI_Elo scale at 10+0.1; the top is full strength)")
