"""Strength limiting after MadChess's UCI_LimitStrength (MadChess "The UCI_LimitStrength
Algorithm").

Pure parts only: the parameters for an Elo (`params`), a calibrated table (`table`) and the
one shipped with the engine, `EloTable`'s default (`calibrated`), the
`debug on` dump (`dump`), the move choice with errors (`choice`) and the NPS throttle and node
budget arithmetic on our engine's scale (`throttle`), the declared `UCI_Elo` range
(`range`). The UCI layer and the search call them; nothing here reads a
clock, sleeps or starts a thread.
"""

from __future__ import annotations

from engine.strength.calibrated import CALIBRATED, SHIPPED_TABLE, load_elo_table
from engine.strength.choice import DECISIVE_CP, MoveChoice, choose_move, draw_budget
from engine.strength.dump import dump_lines
from engine.strength.params import (
    ELO_MAX,
    ELO_MIN,
    TERMS,
    StrengthParams,
    base_material,
    params_for_elo,
)
from engine.strength.range import (
    FULL_STRENGTH_ELO,
    LADDER_MIN_ELO,
    UCI_ELO_DEFAULT,
    formula_elo,
    range_bottom,
    refusal,
)
from engine.strength.table import EloTable, EloTableError, TableRow, write_table
from engine.strength.throttle import (
    SLEEP_SLICE_S,
    check_interval,
    rescaled_nps,
    throttle_delay,
)

__all__ = [
    "CALIBRATED",
    "DECISIVE_CP",
    "ELO_MAX",
    "ELO_MIN",
    "FULL_STRENGTH_ELO",
    "LADDER_MIN_ELO",
    "SHIPPED_TABLE",
    "SLEEP_SLICE_S",
    "TERMS",
    "UCI_ELO_DEFAULT",
    "EloTable",
    "EloTableError",
    "MoveChoice",
    "StrengthParams",
    "TableRow",
    "base_material",
    "check_interval",
    "choose_move",
    "draw_budget",
    "dump_lines",
    "formula_elo",
    "load_elo_table",
    "params_for_elo",
    "range_bottom",
    "refusal",
    "rescaled_nps",
    "throttle_delay",
    "write_table",
]
