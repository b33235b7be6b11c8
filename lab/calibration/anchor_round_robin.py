"""The anchor round robin: the anchors rated among themselves before any level is placed.

Assumed anchor ratings were the committed calibration's weakest point (issue #18: three
Stockfish settings spanning 290 Elo whose ratings were assumed, not measured). Here the anchors
play a round robin (`[anchor_round_robin] games` per pair), one fit of all its games pins a single
anchor (`pin`) at its declared rating, the scale's one fixed point (Stockfish 15.1 `UCI_Elo`, for
example), and every other anchor takes its measured rating for the rest of the calibration. The
stage is an ordinary experiment in `<out>/anchors/`, so it resumes like any other.

An anchor added after the round robin began (`added`) would change that experiment, which a
results folder refuses to resume; instead each added anchor plays a gauntlet of its own in
`<out>/anchors-added/<name>/` against the round robin's anchors and those added before it, the
same games per pair, and one fit takes every folder's games. The round robin's games are kept.
With a `window`, an added anchor plays only the earlier anchors whose given ratings lie within
it of its own (the nearest one if none does): a game between anchors far apart is a near-certain
result that costs as much as any other and tells the fit almost nothing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lab.calibration.config import Calibration, CalibrationError
from lab.calibration.measure import decided_games, play_stage, search_speeds
from lab.calibration.outcome import AnchorRating
from lab.calibration.speeds import speed_text
from lab.ratings import DisconnectedPoolError, fit_ratings

if TYPE_CHECKING:
    import pandas as pd

ANCHOR_FOLDER = "anchors"
ADDED_FOLDER = "anchors-added"
#: The report's words for why an anchor is unmeasured (`AnchorRating.unmeasured`).
UNMEASURED = {"bound": "bound", "apart": "not tied to the pin"}


def declared_table(cal: Calibration) -> list[AnchorRating]:
    """The anchors as declared, unmeasured (no round robin)."""
    return [AnchorRating(a.name, a.rating, math.nan, math.nan, 0, math.nan, False)
            for a in cal.anchors]


def rate_anchors(cal: Calibration, stream: TextIO | None = None
                 ) -> tuple[Calibration, list[AnchorRating]]:
    """Play (or resume) the anchor round robin and fit it with the pin fixed.

    Returns the calibration with the measured anchor ratings (an anchor `fit_anchor_table`
    leaves unmeasured keeps its declared rating) and the anchor table, with the speed each
    anchor searched at in its stages.
    Without `[anchor_round_robin]` games, the calibration and the declared ratings unchanged.
    """
    if cal.anchor_games == 0:
        return cal, declared_table(cal)
    folders = play_anchor_stages(cal, stream)
    games = decided_games(folders)
    if games.empty and cal.report_only is not None:  # an interim report before any game
        return cal, declared_table(cal)
    speeds = search_speeds(folders)
    fitted, cov = fit_anchor_table(cal, games)
    table = [dataclasses.replace(r, nps=speeds.get(r.name, math.nan)) for r in fitted]
    measured = {r.name: r.measured for r in table if math.isfinite(r.measured)}
    return cal.with_ratings(measured, cov), table


def fit_anchor_table(cal: Calibration, games: pd.DataFrame
                     ) -> tuple[list[AnchorRating], dict[tuple[str, str], float]]:
    """One fit of the anchors' games (columns white, black, result) with the pin fixed: the
    table, and the measured anchors' rating covariance (Elo², by pair of names; the pinned and
    the unmeasured anchors have none), which criterion E carries into the gaps between levels
    placed on different anchors.

    An anchor with a perfect score has only a bound (Ordo's), and anchors with no results both
    ways with the pinned anchor's group (a group that lost every game against the rest, say)
    have no rating on the pinned scale at all: both are left unmeasured, and say why, rather
    than ending a calibration hours in.
    """
    pinned = cal.ratings[cal.anchor_pin]
    try:
        fitted = fit_ratings(games, anchors={cal.anchor_pin: pinned})
        apart: set[str] = set()
    except DisconnectedPoolError as exc:
        fitted = fit_ratings(games, anchors={cal.anchor_pin: pinned}, force=True)
        apart = {name for group in exc.groups if cal.anchor_pin not in group for name in group}
    frame = fitted.frame.set_index("player")
    table = []
    for anchor in cal.anchors:
        if anchor.name not in frame.index:
            raise CalibrationError(f"{cal.source}: anchor {anchor.name!r} has no decided game "
                                   "in the anchor round robin")
        row = frame.loc[anchor.name]
        pin = anchor.name == cal.anchor_pin
        why = "apart" if anchor.name in apart else "bound" if row["bound"] and not pin else ""
        measured = pinned if pin else math.nan if why else float(row["rating"])
        table.append(AnchorRating(anchor.name, anchor.rating, measured,
                                  math.nan if pin or why else float(row["error"]),
                                  int(row["played"]), float(row["score"]), pin, why))
    index = {name: i for i, name in enumerate(fitted.pool.players)}
    rated = [r.name for r in table if math.isfinite(r.halfwidth)]
    cov = {(a, b): float(fitted.cov[index[a], index[b]]) for a in rated for b in rated}
    return table, cov


def play_anchor_stages(cal: Calibration, stream: TextIO | None = None) -> list[Path]:
    """Play (or resume) the round robin of the anchors not `added`, then each added anchor's
    gauntlet against the anchors before it; the folders, round robin first."""
    added = set(cal.anchors_added)
    tables = {a.name: a.table for a in cal.anchors}
    earlier = [a.name for a in cal.anchors if a.name not in added]
    folders = [play_stage(cal, "anchors", [(n, tables[n]) for n in earlier], [],
                          cal.anchor_games, cal.out / ANCHOR_FOLDER, stream)]
    for name in cal.anchors_added:
        opponents = added_opponents(cal, name, earlier)
        players = [(name, tables[name]), *((n, tables[n]) for n in opponents)]
        folders.append(play_stage(cal, f"anchors-added-{name}", players, [name],
                                  cal.anchor_games * len(opponents),
                                  cal.out / ADDED_FOLDER / name, stream))
        earlier.append(name)
    return folders


def added_opponents(cal: Calibration, name: str, earlier: list[str]) -> list[str]:
    """The earlier anchors that added anchor `name` plays: all of them without a window, else
    those whose given ratings lie within it of `name`'s (the nearest one if none does)."""
    if not cal.added_window:
        return list(earlier)
    gap = {n: abs(cal.ratings[n] - cal.ratings[name]) for n in earlier}
    inside = [n for n in earlier if gap[n] <= cal.added_window]
    return inside or [min(earlier, key=gap.__getitem__)]


def anchor_lines(table: list[AnchorRating], rated_only: Collection[str] = ()) -> list[str]:
    """The anchor table as Markdown lines, for the report; the anchors in `rated_only` (no
    level plays them) are marked."""
    measured = any(r.games for r in table)
    lines = ["## Anchors", ""]
    if not measured:
        return lines + ["Not rated among themselves: the declared ratings are assumed.", ""]
    lines += ["Rated among themselves in a round robin, one fit, the pinned anchor fixed.", "",
              "| anchor | declared | measured | ± 95 % | games | score % | nodes/s |",
              "|---|---|---|---|---|---|---|"]
    for r in sorted(table, key=lambda r: r.measured if math.isfinite(r.measured) else r.declared):
        measured_cell = ("pinned " if r.pinned else "") + (
            f"{r.measured:.0f}" if math.isfinite(r.measured)
            else f"{UNMEASURED[r.unmeasured]}: kept declared")
        error = f"{r.halfwidth:.0f}" if math.isfinite(r.halfwidth) else "-"
        name = f"{r.name} (rated only)" if r.name in rated_only else r.name
        lines.append(f"| {name} | {r.declared:.0f} | {measured_cell} | {error} | {r.games} | "
                     f"{r.score:.1f} | {speed_text(r.nps)} |")
    lines += ["", "nodes/s: the median each anchor reported over its moves here (an anchor "
                  "that plays on the clock holds its rating at that speed)."]
    if rated_only:
        lines.append("Rated only: in the round robin, and no level plays it (`plays_levels = "
                     "false`).")
    return lines + [""]
