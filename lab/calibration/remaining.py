"""How much of a calibration is left, for its interim report (`tempo calibrate --report`).

A calibration runs for hours and is resumed across interruptions; its stages are only known once
they are reached (a round's levels, and the anchors each plays, follow from the round before).
The games of the stages not reached yet are counted from the file (`unreached_games`), the pace
from every game the calibration has finished, its pauses left out (`running_pace`), so that the
report can say how many games and about how long remain, as a match's progress line does. The
pace of the whole run, not of its last games: stages run at 5-12 games a minute by opponent
(a phalanx stage is quick, a Stockfish UCI_Elo stage slow), and the rest is a mix of them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lab.calibration.checks import variants
from lab.calibration.config import Calibration, ReportOnly
from lab.calibration.separation import spread_pairs
from lab.store import DB_NAME, read_store

#: A gap between two finished games longer than this (minutes) is a pause: the run was stopped.
PAUSE_MINUTES = 5.0


def unreached_games(cal: Calibration, reached: list[str]) -> int:
    """The games the file plans in the stages not in `reached` (stage names as
    `measure.play_stage` gives them): a round's levels and ladder for each round not begun, and
    after the last round the robustness variants, the pairs `[spread] gap` apart and the top
    match. An upper bound but for top-ups (`[levels] topup_games`), which only a round's widths
    decide: a round whose table covers fewer levels plays fewer."""
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


def running_pace(finished: pd.Series, pause_minutes: float = PAUSE_MINUTES
                 ) -> tuple[float, int] | None:
    """Games a minute while the calibration ran, and how many games that is from: the finish
    times (timestamps, any order) sorted, each gap between consecutive games over
    `pause_minutes` left out as a pause. None with fewer than two games or no time running."""
    times = pd.to_datetime(finished, utc=True, format="ISO8601").dropna().sort_values()
    gaps = times.diff().dt.total_seconds().iloc[1:] / 60.0
    running = gaps[gaps <= pause_minutes]
    minutes = float(running.sum())
    if running.empty or minutes <= 0:
        return None
    return len(running) / minutes, len(times)


def finish_times(out: Path) -> pd.Series:
    """When every game in the calibration's stores finished, read only (interim/ left out)."""
    frames = []
    for path in sorted(out.rglob(DB_NAME)):
        if "interim" in path.relative_to(out).parts:
            continue
        with read_store(path.parent) as store:
            frames.append(store.games()["finished_at"])
    return pd.concat(frames, ignore_index=True) if frames else pd.Series(dtype=object)


def games_left(cal: Calibration, progress: ReportOnly) -> tuple[int, int, int]:
    """(games the file plans in all, of them in stages not reached yet, games left to play):
    none left means every planned game is played, and the calibration ends when run."""
    unreached = unreached_games(cal, [stage for stage, _, _ in progress.stages])
    total = progress.planned + unreached
    return total, unreached, max(0, total - progress.held)


def all_played(cal: Calibration, progress: ReportOnly) -> bool:
    """Whether an interim report finds every game the file plans played."""
    return games_left(cal, progress)[2] == 0


def remaining_line(cal: Calibration, progress: ReportOnly) -> str:
    """The interim report's line on what is left: games planned in all, played, and the time
    the rest takes at the calibration's running pace."""
    total, unreached, left = games_left(cal, progress)
    line = (f"In all the file plans about {total} games ({unreached} in stages not "
            f"reached yet, counted from the file); {left} remain.")
    pace = running_pace(finish_times(cal.out))
    if left and pace is not None:
        rate, games = pace
        minutes = left / rate
        took = f"{minutes / 60:.1f} hours" if minutes >= 60 else f"{max(1, round(minutes))} min"
        line += (f" At the calibration's pace so far ({rate:.1f} games a minute over {games} "
                 f"games, pauses over {PAUSE_MINUTES:g} min left out) that is about {took}.")
    return line
