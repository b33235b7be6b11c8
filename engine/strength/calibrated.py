"""The Elo table shipped with the engine, which `EloTable`'s default, `<calibrated>`, loads.

`elo_table.csv` beside this module is a copy of the final calibration's table
(results/calibration/README.md says which one and what it measured), so that `UCI_Elo N` plays
like N on the declared scale without any option; a test checks the copy against its source. The
default's name follows Lc0's `<autodiscover>` for its weights: a value no file is called.
`EloTable` empty plays MadChess's formulas (`range.formula_elo`, not calibrated); any other value
is a table file's path.
"""

from __future__ import annotations

from pathlib import Path

from engine.strength.table import EloTable

#: `EloTable`'s default: the table shipped beside this module.
CALIBRATED = "<calibrated>"
#: The shipped table.
SHIPPED_TABLE = Path(__file__).with_name("elo_table.csv")


def load_elo_table(value: str) -> EloTable | None:
    """The table an `EloTable` value names: None for "" (the formulas), the shipped table for
    `CALIBRATED`, else the file at that path (`EloTableError` names the file and the line)."""
    if not value:
        return None
    return EloTable.load(str(SHIPPED_TABLE) if value == CALIBRATED else value)
