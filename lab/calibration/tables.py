"""The files a calibration writes for engines: our engine's `EloTable` CSV, others' level maps.

The EloTable format is the one engine/strength/table.py documents and loads (the lab writes it
itself: it never imports the engine): `#` comment lines for provenance, then the header `Elo,
NPS,MoveError,BlunderError,BlunderPer128` and optional knowledge columns named after the
evaluation terms, one row per level with strictly increasing Elo in 600..2600, integers for the
five required columns and fractions in 0..1 for knowledge. A level map (any other engine) is
`Elo,<option>`: the option value that plays at each Elo. A calibration writes one such table per
corrected round and the final one (`write_round_table`, `write_final_table`); rows outside the
anchors' range ± 200 are marked as extrapolated ("reference §5 G": docs/reference/elo_limit.md §5,
criterion G).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from lab.calibration.config import Calibration
from lab.calibration.outcome import CalibrationOutcome, extrapolated_targets
from lab.calibration.pinned_top import pinned_top_target, ship_rows, top_key

TABLE_NAME = "elo_table.csv"
LEVEL_MAP_NAME = "level_map.csv"

#: The engine table's required integer columns, in order.
INT_COLUMNS = ("NPS", "MoveError", "BlunderError", "BlunderPer128")
#: Knowledge columns the engine accepts (its scaled evaluation terms), in its order.
KNOWLEDGE_COLUMNS = ("passed_pawns", "king_safety", "piece_location", "mobility",
                     "pawn_structure", "threats", "minor_pieces", "major_pieces",
                     "endgame_scaling")
ELO_RANGE = (600, 2600)
#: Full strength's search effort on the table's NPS scale: MadChess's top level, the NPS formula
#: at 2600, trunc(200 x 10^4) + 500 (docs/reference/elo_limit.md §0). The engine turns it into
#: a node budget of full strength's average move at the calibration's time control.
FULL_STRENGTH_NPS = 2_000_500


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


def full_strength_row(columns: Sequence[str]) -> dict[str, float]:
    """Full strength as a row of our engine's table, in `columns`: the top search effort
    (`FULL_STRENGTH_NPS`), no move error, no blunder, every knowledge term whole."""
    return {c: float(FULL_STRENGTH_NPS) if c == "NPS" else 0.0 if c in INT_COLUMNS else 1.0
            for c in columns}


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


def param_columns(cal: Calibration, params: dict[int, dict[str, float]]) -> list[str]:
    """The columns a correction interpolates: the table's, or the level option."""
    if not cal.uses_table:
        return [cal.level_option]
    first = next(iter(params.values()))
    return [*INT_COLUMNS, *(c for c in KNOWLEDGE_COLUMNS if c in first)]


def _provenance(cal: Calibration, number: int, what: str) -> list[str]:
    anchors = ", ".join(f"{a.name}={a.rating:g}" for a in cal.anchors)
    return [
        f"Tempo calibration '{cal.name}', round {number}: {what}",
        f"scale: anchors {anchors}; tc {cal.tc}; Ordo logistic fit, anchors fixed",
    ]


def write_round_table(cal: Calibration, number: int, rows: dict[int, dict[str, float]],
                      path: Path, what: str, left_out: Sequence[str] = ()) -> Path:
    """Write a round's table (our engine: EloTable CSV; others: level map)."""
    comments = _provenance(cal, number, what) + list(left_out)
    if cal.uses_table:
        return write_elo_table(path, rows, comments)
    return write_level_map(path, cal.level_option,
                           {e: r[cal.level_option] for e, r in rows.items()}, comments)


def write_final_table(cal: Calibration, outcome: CalibrationOutcome,
                      curve_top: Mapping[str, float] | None = None) -> Path | None:
    """Write the table a calibration ends with into its folder and set `outcome.final` to it.

    The table measured in the last round when it passed, else the last round's correction (not
    yet measured); None when the last round neither passed nor could be corrected. With
    `pin_top` and full strength rated, the pinned row is keyed at full strength's rating and
    `curve_top` (the curve's own row at the top level, `run.curve_top_row`) takes the level's
    place (`pinned_top.ship_rows`).
    """
    last = outcome.rounds[-1]
    name = TABLE_NAME if cal.uses_table else LEVEL_MAP_NAME
    target = pinned_top_target(cal, outcome.full_strength)
    moved = target is not None and top_key(target) != cal.levels[-1]
    if not outcome.passed and last.correction is None:
        outcome.final = None
    elif outcome.passed and last.table_played is not None and not moved:
        text = Path(last.table_played).read_text(encoding="utf-8")
        outcome.final = cal.out / name
        outcome.final.write_text(f"# measured in round {last.number} and passing the criteria\n"
                                 + text, encoding="utf-8")
    else:
        rows: Mapping[int, Mapping[str, float]]
        if outcome.passed:
            rows, what = last.params, "measured and passing the criteria"
            if last.table_played is not None:
                frame = read_elo_table(last.table_played)
                rows = {int(e): {c: float(v) for c, v in row.items()}
                        for e, row in frame.iterrows()}
        else:
            assert last.correction is not None
            rows, what = last.correction.rows, "corrected from the last round, not yet measured"
        notes: list[str] = []
        if moved:
            assert target is not None
            rows, notes = ship_rows(rows, cal.levels[-1], target, curve_top)
        outside = [e for e in extrapolated_targets(cal, last.correction)
                   if e in rows] if last.correction is not None else []
        if outside:
            notes.append(f"EXTRAPOLATED rows {', '.join(map(str, outside))}: outside the "
                         "anchors' range ± 200 (reference §5 G), not measured on their scale")
        outcome.final = write_round_table(cal, last.number, dict(rows), cal.out / name, what,
                                          notes)
    return outcome.final
