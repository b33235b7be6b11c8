"""The top of the range: full strength rated on the anchors' scale (criterion U).

Issue #18 asks that `UCI_Elo`'s maximum be the engine's measured full strength. After the anchor
round robin, full strength (the calibrated engine without its limit, as in the `[top]` stage)
plays the anchors its declared top (or `[full_strength] estimate`) should score inside the
score window against (at most `max_anchors`; the nearest ones when none lies in the window),
`[full_strength] games` against each, and one fit with the anchors fixed gives its rating. The
stage is an experiment in `<out>/full_strength/`, resumable like every stage, and needs no level,
so it can run (with `tempo calibrate --full-strength`) before the levels' range is settled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TextIO

from lab.calibration.anchors import anchors_for
from lab.calibration.config import Calibration
from lab.calibration.criteria import Measurement, range_top_line
from lab.calibration.measure import fit_folders, play_stage, search_speeds
from lab.calibration.outcome import FullStrength, ends_at_full_strength
from lab.calibration.separation import FULL_STRENGTH
from lab.calibration.speeds import speed_text

FOLDER = "full_strength"


def full_strength_anchors(estimate: float, anchors: Mapping[str, float],
                          window: tuple[float, float], most: int) -> list[str]:
    """The anchors full strength plays: those a player rated `estimate` should score inside
    `window` against, nearest first, at most `most`; if none is, the `most` nearest."""
    inside = anchors_for(estimate, anchors, window[0], window[1], most)
    if inside:
        return inside
    return sorted(anchors, key=lambda name: (abs(anchors[name] - estimate), name))[:most]


def rate_full_strength(cal: Calibration, stream: TextIO | None = None) -> FullStrength | None:
    """Play (or resume) full strength against its anchors and fit it with the anchors fixed at
    `cal`'s ratings (after the round robin: the measured ones). None without the stage."""
    if not cal.full_games:
        return None
    declared = cal.declared_top
    chosen = full_strength_anchors(cal.full_strength_estimate, cal.opponent_ratings,
                                   cal.score_window, cal.max_anchors)
    tables = {a.name: a.table for a in cal.anchors}
    players = [(FULL_STRENGTH, cal.full_strength_engine),
               *((name, tables[name]) for name in chosen)]
    folder = cal.out / FOLDER
    play_stage(cal, "full-strength", players, [FULL_STRENGTH], cal.full_games * len(chosen),
               folder, stream)
    ratings = fit_folders(cal, [folder])
    if ratings is None:
        return FullStrength(declared, math.nan, math.nan, "", 0, math.nan, tuple(chosen))
    row = ratings.frame.set_index("player").loc[FULL_STRENGTH]
    bound = f"{row['bound']}{row['rating']:.0f}" if row["bound"] else ""
    return FullStrength(declared, math.nan if bound else float(row["rating"]),
                        math.nan if bound else float(row["error"]), bound, int(row["played"]),
                        float(row["score"]), tuple(chosen),
                        search_speeds([folder]).get(FULL_STRENGTH, math.nan))


def rating_text(result: FullStrength) -> str:
    """'1650 ± 48', Ordo's bound for a perfect score ('>1790'), or 'not measured'."""
    if result.bound:
        return result.bound
    if math.isfinite(result.measured):
        return f"{result.measured:.0f} ± {result.halfwidth:.0f}"
    return "not measured"


def full_strength_line(cal: Calibration, result: FullStrength) -> tuple[str, bool, str] | None:
    """Criterion U for an engine that declares its top (None for one that declares none)."""
    if not math.isfinite(result.declared):
        return None
    return range_top_line(result.declared, Measurement(result.measured, result.halfwidth),
                          result.bound, result.games, cal.thresholds.agreement_se)


def curve_end(cal: Calibration, result: FullStrength | None) -> float | None:
    """The Elo the correction's curve ends at, as full strength (None when it ends at no
    rating: another engine, no stage U, or a perfect score): the declared top when criterion U
    accepts the measurement, since the engine plays its top as full strength, else the measured
    rating. With full strength at 1685 ± 55 against a declared 1720 (U passes, 1.2 SE), the
    curve ends at 1720, so the 1700 target is in the table rather than above its end. With
    `pin_top` it is the measured rating: the pinned top level plays full strength's row and
    is judged against that rating (`pinned_top.pinned_top_target`), and the curve ends
    where it does."""
    if not ends_at_full_strength(result, cal):
        return None
    check = full_strength_line(cal, result)
    accepted = check is not None and check[1] and not cal.pin_top
    return result.declared if accepted else result.measured


def curve_end_text(cal: Calibration, result: FullStrength) -> str:
    """Where the curve ends, for the report and the table's header: '1720, the declared top
    (U accepts full strength's 1685 ± 55)' or '1500 ± 40, full strength's rating'."""
    end = curve_end(cal, result)
    if end is not None and end == result.declared and end != result.measured:
        return (f"{end:.0f}, the declared top (U accepts full strength's "
                f"{rating_text(result)})")
    return f"{rating_text(result)}, full strength's rating"


def full_strength_lines(cal: Calibration, result: FullStrength) -> list[str]:
    """The report's section: full strength's rating on the anchors' scale and criterion U."""
    lines = ["## Full strength", "",
             f"Rated against {', '.join(result.anchors)} ({result.games} games, score "
             f"{result.score:.1f} %), anchors fixed: **{rating_text(result)}**."]
    if math.isfinite(result.nps):
        lines.append(f"It searched a median {speed_text(result.nps)} nodes/s over its moves: at "
                     "another speed it plays at another strength, while the levels, held to node "
                     "budgets, do not.")
    if math.isfinite(result.declared):
        lines.append(f"The engine declares {result.declared:.0f} as its range's top.")
    check = full_strength_line(cal, result)
    if check is not None:
        name, ok, detail = check
        lines += ["", f"- {'PASS' if ok else 'FAIL'} {name}: {detail}"]
    return lines + [""]
