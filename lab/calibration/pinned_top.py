"""The pinned top level (`[levels] pin_top`): full strength made a level, and where it belongs.

The pinned level plays full strength's row (the top search effort, no move error, no blunder), so
it is full strength counted in nodes, and the range's top is what full strength measures on the
machine the levels play on (stage U), not the level's nominal Elo: final-v5's L1710 measured
1772 ± 36 in round 1, against full strength's 1771 ± 53 re-rated beside it, where the store
copied from another session had said 1718 ± 53 (results/calibration/README.md, "The fifth run").
So the level is judged against full strength's rating (`level_targets`), and the table a
calibration ends with keys the pinned row at that rating (`ship_rows`), so that `UCI_Elo` at the
level's nominal Elo plays the curve's row there, not the top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lab.calibration.config import Calibration
from lab.calibration.outcome import FullStrength, ends_at_full_strength

Row = Mapping[str, float]


def pinned_top_target(cal: Calibration, result: FullStrength | None) -> float | None:
    """The Elo a pinned top level is judged against: full strength's rating measured in this
    run (stage U), or None (no pin, or no measurement: a bound or no stage)."""
    if not cal.pin_top or not ends_at_full_strength(result, cal):
        return None
    return result.measured


def level_targets(cal: Calibration, levels: Sequence[int],
                  result: FullStrength | None) -> list[float]:
    """The Elo each level is judged against: its nominal Elo, except the pinned top level,
    judged against full strength's rating (`pinned_top_target`) once stage U has one."""
    top = pinned_top_target(cal, result)
    return [top if top is not None and level == cal.levels[-1] else float(level)
            for level in levels]


def level_names(levels: Sequence[int], targets: Sequence[float]) -> list[str]:
    """How the criteria name each level: its nominal Elo, and for a level judged against another
    target (the pinned top) both, "1710 pinned at 1771", so a failing line names the level."""
    return [f"{level}" if target == level else f"{level} pinned at {target:.0f}"
            for level, target in zip(levels, targets, strict=True)]


def top_key(target: float) -> int:
    """The table row full strength's rating gives the pinned row: the rating to the nearest 10,
    as the engine's declared top is rounded (engine/strength/range.py)."""
    return int(round(target / 10.0)) * 10


def ship_rows(rows: Mapping[int, Row], top_level: int, target: float,
              curve_row: Row | None) -> tuple[dict[int, Row], list[str]]:
    """The table to ship from `rows`, whose `top_level` row is the pinned one: that row keyed at
    full strength's rating `target` (`top_key`) and, below it, the curve's own row at
    `top_level` (`curve_row`: the correction through every measurement without the pin; left out
    when None). Rows at or above the new key are dropped (targets above full strength are above
    the range). Returns the rows and the table's notes; unchanged when the key is the level's."""
    key = top_key(target)
    if key == top_level:
        return dict(rows), []
    shipped: dict[int, Row] = {e: r for e, r in rows.items() if e < min(key, top_level)}
    notes = [f"the pinned top level L{top_level} (full strength's row) is keyed at {key}, full "
             f"strength's rating {target:.0f} here (stage U), not at {top_level}"]
    if key > top_level:
        if curve_row is not None:
            shipped[top_level] = curve_row
            notes.append(f"row {top_level}: the correction's curve through every measurement "
                         "without the pin, not measured")
        else:
            notes.append(f"no row at {top_level}: the curve does not reach it")
    else:
        dropped = sorted(e for e in rows if key <= e < top_level)
        if dropped:
            notes.append(f"targets {', '.join(map(str, dropped))} are at or above full "
                         "strength's rating: not in this table")
    shipped[key] = rows[top_level]
    return dict(sorted(shipped.items())), notes
