"""Strength limiting after MadChess's UCI_LimitStrength (MadChess "The UCI_LimitStrength
Algorithm").

Pure parts only: the parameters for an Elo (`params`), a calibrated table (`table`), the
`debug on` dump (`dump`), the move choice with errors (`choice`) and the NPS throttle and node
budget arithmetic (`throttle`). The UCI layer and the search call them; nothing here reads a
clock, sleeps or starts a thread.
"""

from __future__ import annotations

from engine.strength.choice import DECISIVE_CP, MoveChoice, choose_move
from engine.strength.dump import dump_lines
from engine.strength.params import (
    BASE_MATERIAL,
    ELO_MAX,
    ELO_MIN,
    TERMS,
    StrengthParams,
    clamp_elo,
    params_for_elo,
)
from engine.strength.table import EloTable, EloTableError, TableRow, write_table
from engine.strength.throttle import SLEEP_SLICE_S, check_interval, node_budget, throttle_delay

__all__ = [
    "BASE_MATERIAL",
    "DECISIVE_CP",
    "ELO_MAX",
    "ELO_MIN",
    "SLEEP_SLICE_S",
    "TERMS",
    "EloTable",
    "EloTableError",
    "MoveChoice",
    "StrengthParams",
    "TableRow",
    "check_interval",
    "choose_move",
    "clamp_elo",
    "dump_lines",
    "node_budget",
    "params_for_elo",
    "throttle_delay",
    "write_table",
]
