"""Calibrated Elo tables: load, validate, interpolate and write the `EloTable` CSV.

The formulas in `params` are MadChess's first guess; its author never calibrated them
(docs/reference/elo_limit.md §1.7), and §6 says to treat them only as the starting point. The lab's
calibration measures what each level really plays like and writes a corrected table in this
format; the engine loads it through the `EloTable` UCI option.

CSV format (lab writes it itself, as lab may not import engine):

* UTF-8 text, comma-separated, no quoting needed. Blank lines and lines whose first non-blank
  character is `#` are ignored wherever they appear (use them for provenance: scale, anchors,
  time control, date).
* The first other line is the header. Required columns, in any order, exactly these names:
  `Elo`, `NPS`, `MoveError`, `BlunderError`, `BlunderPer128`. Every value is a decimal integer:
  Elo in 600..2600 and strictly increasing from row to row; NPS >= 1 (nodes per second on
  MadChess's scale, as the formulas give it; the engine turns it into its node budget per move
  and throttle speed with `throttle.rescaled_nps`);
  MoveError and BlunderError >= 0 (centipawns); BlunderPer128 in 0..128 (chance of a blunder
  per move, out of 128).
* Optional knowledge columns, named exactly after the scaled evaluation terms: `passed_pawns`,
  `king_safety`, `piece_location`, `mobility`, `pawn_structure`, `threats`, `minor_pieces`,
  `major_pieces`, `endgame_scaling`. A present column needs a decimal fraction in 0..1 on every
  row; terms without a column follow the formula (`params.knowledge_for_elo`). No other columns
  are allowed, so that a misspelt term is an error rather than silently ignored.
* Example::

      # Tempo Elo table; scale: SF 15.1 skill ladder, 120+1, calibrated 2026-11-21
      Elo,NPS,MoveError,BlunderError,BlunderPer128,passed_pawns
      600,400,60,650,18,0.0
      1000,3000,35,380,14,0.5
      2600,2000500,5,50,6,1.0

Between rows, `params_for_elo` interpolates monotonically: NPS geometrically (the formula's NPS
grows like a 4th power, Rodent's node count doubles every 100 Elo, reference §3), the error and
blunder columns linearly, rounded down (as NPS is: integers, as MadChess's are, §1.2), and the
knowledge fractions linearly. An Elo outside the table's range takes the nearest end row. What
the columns do not give follows the search effort rather than the requested Elo: material
(`params.material_for_elo`), the depth cap and knowledge terms without a column are the
formula's at `params.elo_for_nps(NPS)`, the Elo whose formula searches as fast. A calibration's
rows are read off levels that played the formulas, so a row at 650 that searches like the
formulas' 900 plays their 900's material and depth cap, as the level it was measured from did,
not the 650's pawnless material.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.strength.params import (
    ELO_MAX,
    ELO_MIN,
    KNOWLEDGE_MAX_ELO,
    StrengthParams,
    elo_for_nps,
    knowledge_for_elo,
    material_for_elo,
    per128_of,
)

#: Required integer columns and the `TableRow` field each fills.
INT_COLUMNS = {
    "Elo": "elo",
    "NPS": "nps",
    "MoveError": "move_error",
    "BlunderError": "blunder_error",
    "BlunderPer128": "blunder_per128",
}

#: Allowed knowledge override columns.
KNOWLEDGE_COLUMNS = tuple(KNOWLEDGE_MAX_ELO)


class EloTableError(ValueError):
    """A table that cannot be used; the message names the file (or source) and line."""


@dataclass(frozen=True)
class TableRow:
    """One calibrated level: the four search parameters and optional knowledge fractions."""

    elo: int
    nps: int
    move_error: int
    blunder_error: int
    blunder_per128: int
    knowledge: dict[str, float] = field(default_factory=dict, hash=False)


def _row_problem(row: TableRow, previous: TableRow | None) -> str | None:
    """What is wrong with `row` (following `previous`), or None."""
    if not ELO_MIN <= row.elo <= ELO_MAX:
        return f"Elo {row.elo} outside {ELO_MIN}..{ELO_MAX}"
    if previous is not None and row.elo <= previous.elo:
        return f"Elo {row.elo} does not increase (previous row is {previous.elo})"
    if row.nps < 1:
        return f"NPS {row.nps} must be at least 1"
    if row.move_error < 0 or row.blunder_error < 0:
        return f"MoveError {row.move_error} and BlunderError {row.blunder_error} must be >= 0"
    if not 0 <= row.blunder_per128 <= 128:
        return f"BlunderPer128 {row.blunder_per128} outside 0..128"
    for term, value in row.knowledge.items():
        if term not in KNOWLEDGE_COLUMNS:
            return f"unknown knowledge term {term!r} (allowed: {', '.join(KNOWLEDGE_COLUMNS)})"
        if not 0.0 <= value <= 1.0:
            return f"{term} = {value} outside 0..1"
    if previous is not None and set(row.knowledge) != set(previous.knowledge):
        return "every row must override the same knowledge terms"
    return None


def _parse_row(header: list[str], cells: list[str]) -> TableRow:
    """Turn one CSV record into a row; raises ValueError naming the bad cell."""
    if len(cells) != len(header):
        raise ValueError(f"{len(cells)} fields, the header has {len(header)}")
    ints = {}
    knowledge = {}
    for name, text in zip(header, cells):
        text = text.strip()
        if name in INT_COLUMNS:
            try:
                ints[INT_COLUMNS[name]] = int(text)
            except ValueError:
                raise ValueError(f"{name} {text!r} is not an integer") from None
        else:
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{name} {text!r} is not a number") from None
            if not math.isfinite(value):
                raise ValueError(f"{name} {text!r} is not a finite number")
            knowledge[name] = value
    return TableRow(knowledge=knowledge, **ints)


def _parse_header(cells: list[str]) -> list[str]:
    header = [cell.strip() for cell in cells]
    seen = set()
    for name in header:
        if name in seen:
            raise ValueError(f"column {name!r} appears twice")
        seen.add(name)
        if name not in INT_COLUMNS and name not in KNOWLEDGE_COLUMNS:
            allowed = ", ".join(list(INT_COLUMNS) + list(KNOWLEDGE_COLUMNS))
            raise ValueError(f"unknown column {name!r} (allowed: {allowed})")
    missing = [name for name in INT_COLUMNS if name not in seen]
    if missing:
        raise ValueError(f"missing column(s) {', '.join(missing)}")
    return header


class EloTable:
    """A validated, calibrated Elo table and interpolation between its rows."""

    def __init__(self, rows: Sequence[TableRow], source: str = "<rows>") -> None:
        if not rows:
            raise EloTableError(f"{source}: the table has no rows")
        previous = None
        for row in rows:
            problem = _row_problem(row, previous)
            if problem:
                raise EloTableError(f"{source}: row for Elo {row.elo}: {problem}")
            previous = row
        self.rows = tuple(rows)
        self.source = source

    @classmethod
    def load(cls, path: str) -> EloTable:
        """Read and validate a table file; errors name the file and the line."""
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                lines = handle.read().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise EloTableError(f"{path}: cannot read the Elo table: {error}") from None
        header = None
        rows: list[TableRow] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = next(csv.reader([line]))
            try:
                if header is None:
                    header = _parse_header(cells)
                    continue
                row = _parse_row(header, cells)
            except ValueError as error:
                raise EloTableError(f"{path}:{number}: {error}") from None
            problem = _row_problem(row, rows[-1] if rows else None)
            if problem:
                raise EloTableError(f"{path}:{number}: {problem}")
            rows.append(row)
        if header is None:
            raise EloTableError(f"{path}: no header line (expected {', '.join(INT_COLUMNS)})")
        return cls(rows, source=path)

    def params_for_elo(self, elo: int) -> StrengthParams:
        """Parameters at `elo` (600..2600), interpolated between rows, clamped at the ends."""
        rows = self.rows
        if elo <= rows[0].elo:
            low = high = rows[0]
        elif elo >= rows[-1].elo:
            low = high = rows[-1]
        else:
            index = next(i for i, row in enumerate(rows) if row.elo > elo)
            low, high = rows[index - 1], rows[index]
        if low is high or elo == low.elo:
            step, span, nps = 0, 1, low.nps
        else:
            step, span = elo - low.elo, high.elo - low.elo
            nps = max(1, math.trunc(low.nps * (high.nps / low.nps) ** (step / span)))

        def linear(attr: str) -> int:
            start, end = getattr(low, attr), getattr(high, attr)
            return start + step * (end - start) // span

        effort = elo_for_nps(nps)
        knowledge = knowledge_for_elo(effort)
        for term, value in low.knowledge.items():
            mixed = value + step / span * (high.knowledge[term] - value)
            knowledge[term] = min(1.0, max(0.0, mixed))  # no binary overshoot past 0..1
        return StrengthParams(
            elo=elo,
            effort_elo=effort,
            nps=nps,
            move_error=linear("move_error"),
            blunder_error=linear("blunder_error"),
            blunder_per128=linear("blunder_per128"),
            knowledge=knowledge,
            knowledge_per128={term: per128_of(value) for term, value in knowledge.items()},
            material=material_for_elo(effort),
        )


def write_table(path: str, rows: Iterable[TableRow], comments: Sequence[str] = ()) -> None:
    """Validate `rows` and write them in the module's CSV format, `comments` as `# ` lines first."""
    table = EloTable(list(rows), source=path)
    terms = [term for term in KNOWLEDGE_COLUMNS if term in table.rows[0].knowledge]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for comment in comments:
            handle.write(f"# {comment}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(list(INT_COLUMNS) + terms)
        for row in table.rows:
            ints = [getattr(row, attr) for attr in INT_COLUMNS.values()]
            writer.writerow(ints + [repr(row.knowledge[term]) for term in terms])
