"""Issue #18's two match targets, played on the last round's levels and judged as criteria.

* S: every pair of levels `[spread] gap` nominal Elo apart plays `games` games head to head, and
  the stronger must score at least `min_score` (the issue: 85 % in 100 games for 400 Elo).
* T: full strength (the calibrated engine without its limit) plays the top level `[top] games`
  games and must score inside `window` (the issue: 40-60 %), so the range has no jump at its top.

Each match is a stage of its own under `<out>/round<N>/spread/` or `<out>/round<N>/top/`,
resumable like every stage.
"""

from __future__ import annotations

import math
from typing import Any, TextIO

from lab.calibration.config import Calibration
from lab.calibration.criteria import spread_line, top_line
from lab.calibration.measure import decided_games, play_stage, search_speeds
from lab.calibration.outcome import RoundResult
from lab.calibration.speeds import speed_text
from lab.stats import player_scores

#: The name full strength plays under in the top stage.
FULL_STRENGTH = "full"
#: The top stage's folder, inside the round's.
TOP_FOLDER = "top"


def spread_pairs(levels: list[int], gap: int) -> list[tuple[int, int]]:
    """(weaker, stronger) for every two of `levels` exactly `gap` nominal Elo apart."""
    present = set(levels)
    return [(low, low + gap) for low in sorted(present) if low + gap in present]


def _score(cal: Calibration, stage: str, players: list[tuple[str, dict[str, Any]]],
           games: int, folder_name: str, result: RoundResult,
           stream: TextIO | None) -> tuple[float, int]:
    """Play (or resume) a head-to-head stage; the first player's score fraction and games."""
    folder = result.folder / folder_name
    play_stage(cal, stage, players, [players[0][0]], games, folder, stream)
    decided = decided_games([folder])
    if decided.empty:  # not begun (`tempo calibrate --report`) or no game decided
        return 0.0, 0
    scores = player_scores(decided, players[0][0])
    return (float(scores.mean()) if len(scores) else 0.0), len(scores)


def spread(cal: Calibration, result: RoundResult, level_tables: dict[int, dict[str, Any]],
           stream: TextIO | None = None) -> tuple[str, bool, str]:
    """(S): play every pair of this round's levels `cal.spread_gap` apart; judge the scores."""
    pairs = []
    for low, high in spread_pairs(result.levels, cal.spread_gap):
        weak, strong = cal.level_name(low), cal.level_name(high)
        score, games = _score(cal, f"r{result.number}-spread-{strong}-{weak}",
                              [(strong, level_tables[high]), (weak, level_tables[low])],
                              cal.spread_games, f"spread/{strong}-{weak}", result, stream)
        pairs.append((f"{strong}-{weak}", score, games))
    return spread_line(pairs, cal.spread_gap, cal.spread_min_score)


def top(cal: Calibration, result: RoundResult, level_tables: dict[int, dict[str, Any]],
        stream: TextIO | None = None, rated_nps: float = math.nan) -> tuple[str, bool, str]:
    """(T): full strength against this round's strongest level. Full strength plays on the
    clock, so the line gives its speed in these games beside `rated_nps`, the speed it was rated
    at against the anchors (U), when both are known."""
    level = max(result.levels)
    score, games = _score(cal, f"r{result.number}-top-{cal.level_name(level)}",
                          [(FULL_STRENGTH, cal.full_strength_engine),
                           (cal.level_name(level), level_tables[level])],
                          cal.top_games, TOP_FOLDER, result, stream)
    name, ok, detail = top_line(level, score, games, cal.top_window)
    here = search_speeds([result.folder / TOP_FOLDER]).get(FULL_STRENGTH, math.nan)
    if math.isfinite(here) and math.isfinite(rated_nps):
        detail += (f"; full strength searched {speed_text(here)} nodes/s here, "
                   f"{speed_text(rated_nps)} when rated against the anchors")
    return name, ok, detail
