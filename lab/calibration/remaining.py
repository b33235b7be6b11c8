"""How much of a calibration is left, for its interim report (`tempo calibrate --report`).

A calibration runs for hours and is resumed across interruptions; its stages are only known once
they are reached (a round's levels, and the anchors each plays, follow from the round before).
The games of the stages not reached yet are counted from the file (`unreached_games`), the pace
from the last games finished in any stage (`recent_pace`), so that the report can say how many
games and about how long remain, as a match's progress line does.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lab.calibration.checks import variants
from lab.calibration.config import Calibration, ReportOnly
from lab.calibration.separation import spread_pairs
from lab.store import DB_NAME, read_store

#: How many of the last finished games set the pace.
PACE_GAMES = 200


def unreached_games(cal: Calibration, reached: list[str]) -> int:
    """The games the file plans in the stages not in `reached` (stage names as
    `measure.play_stage` gives them): a round's levels and ladder for each round not begun, and
    after the last round the robustness variants, the pairs `[spread] gap` apart and the top
    match. An upper bound: a round whose table covers fewer levels plays fewer."""
    def begun(prefix: str) -> bool:
        return any(stage.startswith(prefix) for stage in reached)

    levels = len(cal.levels)
    per_round = levels * cal.games + (levels - 1) * cal.ladder_games
    total = sum(per_round for number in range(1, cal.rounds + 1)
                if not begun(f"r{number}-p") and not begun(f"r{number}-ladder"))
    last = f"r{cal.rounds}-"
    for variant in variants(cal):
        if not begun(f"{last}{variant.name}-"):
            total += len(cal.robust_levels) * cal.robust_games
    if cal.spread_games and not begun(f"{last}spread-"):
        total += len(spread_pairs(list(cal.levels), cal.spread_gap)) * cal.spread_games
    if cal.top_games and not begun(f"{last}top-"):
        total += cal.top_games
    return total


def recent_pace(finished: pd.Series, games: int = PACE_GAMES) -> float | None:
    """Games a minute over the last `games` finish times (timestamps), or None with fewer than
    two or no time between them."""
    times = pd.to_datetime(finished, utc=True, format="ISO8601").dropna().sort_values()
    times = times.iloc[-games:]
    if len(times) < 2:
        return None
    minutes = (times.iloc[-1] - times.iloc[0]).total_seconds() / 60.0
    return (len(times) - 1) / minutes if minutes > 0 else None


def finish_times(out: Path) -> pd.Series:
    """When every game in the calibration's stores finished, read only (interim/ left out)."""
    frames = []
    for path in sorted(out.rglob(DB_NAME)):
        if "interim" in path.relative_to(out).parts:
            continue
        with read_store(path.parent) as store:
            frames.append(store.games()["finished_at"])
    return pd.concat(frames, ignore_index=True) if frames else pd.Series(dtype=object)


def remaining_line(cal: Calibration, progress: ReportOnly) -> str:
    """The interim report's line on what is left: games planned in all, played, and the time
    the rest takes at the recent pace."""
    unreached = unreached_games(cal, [stage for stage, _, _ in progress.stages])
    total = progress.planned + unreached
    left = max(0, total - progress.held)
    line = (f"In all the file plans about {total} games ({unreached} in stages not "
            f"reached yet, counted from the file); {left} remain.")
    pace = recent_pace(finish_times(cal.out))
    if left and pace is not None:
        minutes = left / pace
        took = f"{minutes / 60:.1f} hours" if minutes >= 60 else f"{max(1, round(minutes))} min"
        line += f" At the pace of the last games ({pace:.1f} a minute) that is about {took}."
    return line
