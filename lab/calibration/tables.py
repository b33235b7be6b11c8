"""The files a calibration writes for engines: our engine's `EloTable` CSV, others' level maps.

The EloTable format is the one engine/strength/table.py documents and loads (the lab writes it
itself: it never imports the engine): `#` comment lines for provenance, then the header `Elo,
NPS,MoveError,BlunderError,BlunderPer128` and optional knowledge columns named after the
evaluation terms, one row per level with strictly increasing Elo in 600..2600, integers for the
five required columns and fractions in 0..1 for knowledge. A level map (any other engine) is
`Elo,<option>`: the option value that plays at each Elo.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

#: The engine table's required integer columns, in order.
INT_COLUMNS = ("NPS", "MoveError", "BlunderError", "BlunderPer128")
#: Knowledge columns the engine accepts (its scaled evaluation terms), in its order.
KNOWLEDGE_COLUMNS = ("passed_pawns", "king_safety", "piece_location", "mobility",
                     "pawn_structure", "threats", "minor_pieces", "major_pieces",
                     "endgame_scaling")
ELO_RANGE = (600, 2600)


def table_row(values: Mapping[str, float]) -> dict[str, float]:
    """One table row from interpolated values: integers rounded, knowledge clipped to 0..1."""
    row: dict[str, float] = {}
    for column in INT_COLUMNS:
        value = int(round(values[column]))
        row[column] = max(1, value) if column == "NPS" else max(0, value)
    row["BlunderPer128"] = min(128, row["BlunderPer128"])
    for column in KNOWLEDGE_COLUMNS:
        if column in values:
            row[column] = round(min(1.0, max(0.0, float(values[column]))), 4)
    return row


def write_elo_table(path: str | Path, rows: Mapping[int, Mapping[str, float]],
                    comments: Sequence[str] = ()) -> Path:
    """Write `rows` (Elo -> column values) as an EloTable CSV; checks what the engine checks."""
    path = Path(path)
    if not rows:
        raise ValueError(f"{path}: no rows to write (no target Elo was reachable)")
    elos = sorted(rows)
    knowledge = [c for c in KNOWLEDGE_COLUMNS if c in rows[elos[0]]]
    for elo in elos:
        if not ELO_RANGE[0] <= elo <= ELO_RANGE[1]:
            raise ValueError(f"{path}: Elo {elo} outside {ELO_RANGE[0]}..{ELO_RANGE[1]}")
        if [c for c in KNOWLEDGE_COLUMNS if c in rows[elo]] != knowledge:
            raise ValueError(f"{path}: row {elo} has other knowledge columns than row {elos[0]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for comment in comments:
            handle.write(f"# {comment}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["Elo", *INT_COLUMNS, *knowledge])
        for elo in elos:
            row = table_row(rows[elo])
            writer.writerow([elo, *(row[c] for c in INT_COLUMNS),
                             *(f"{row[c]:.4f}" for c in knowledge)])
    return path


def read_elo_table(path: str | Path) -> pd.DataFrame:
    """A table written by `write_elo_table` (or by hand) as a frame indexed by Elo."""
    frame = pd.read_csv(path, comment="#", skip_blank_lines=True)
    missing = [c for c in ("Elo", *INT_COLUMNS) if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)}")
    return frame.set_index("Elo")


def write_level_map(path: str | Path, option: str, rows: Mapping[int, float],
                    comments: Sequence[str] = ()) -> Path:
    """Write `Elo,<option>`: the (rounded) option value that plays at each target Elo."""
    path = Path(path)
    if not rows:
        raise ValueError(f"{path}: no rows to write (no target Elo was reachable)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for comment in comments:
            handle.write(f"# {comment}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["Elo", option])
        for elo in sorted(rows):
            value = rows[elo]
            writer.writerow([elo, int(round(value)) if math.isfinite(value) else ""])
    return path
