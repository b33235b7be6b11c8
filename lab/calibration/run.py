"""Running a calibration: round after round, measure the levels, judge them, correct the table.

Each round measures every level: pass 1 plays each level against the anchors its nominal Elo
(or, from round 2, its target) should score 25–75 % against (its nearest one if none), and
adjacent levels against each other (the ladder); a fit of pass 1's anchor games then re-chooses
each level's anchors from its estimate, and pass 2 plays the remaining games against those. The
round's anchor games are fitted at once with the anchors fixed (Ordo's model,
`lab.ratings.fit_ratings`; docs/reference/elo_limit.md §5 step 3), which places the levels (the
ladder's games judge transitivity only, `lab.calibration.measure`), the levels are judged against
the §5 criteria, and if they fail, the parameters are corrected (`correct.correct_table`) and the
next round measures the corrected table, until the criteria hold or the rounds are spent.

Every stage is an ordinary experiment (`lab.calibration.measure`) in its own folder under
`<out>/round<N>/`, so an interrupted calibration resumes like a gauntlet: finished stages are
complete stores (nothing is replayed), the fits that choose later stages are recomputed from the
same games and give the same choices, and the stage that was cut short resumes game by game.
The same walk with `cal.report_only` (`tempo calibrate --report`) plays nothing: it reads each
stage as it stands, stops at the first round not begun (or not yet corrected), and writes an
interim report beside the results, no table.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from lab.calibration.anchor_round_robin import rate_anchors
from lab.calibration.checks import replication, robustness, transitivity
from lab.calibration.config import Calibration, CalibrationError
from lab.calibration.correct import Correction, correct_table
from lab.calibration.criteria import judge
from lab.calibration.full_strength import (
    curve_end,
    curve_end_text,
    full_strength_line,
    rate_full_strength,
)
from lab.calibration.measure import (
    NothingPlayed,
    anchor_stages,
    decided_games,
    measure_round,
    measured_frame,
    search_speeds,
    stage_root,
)
from lab.calibration.outcome import (
    CalibrationOutcome,
    FullStrength,
    RoundResult,
    anchor_range,
    ends_at_full_strength,
    extrapolated_targets,
)
from lab.calibration.page import write_calibration_page
from lab.calibration.pinned_top import level_names, level_targets, pinned_top_target
from lab.calibration.probe import level_parameters
from lab.calibration.report import INTERIM_FOLDER, write_report
from lab.calibration.separation import spread, top
from lab.calibration.speeds import anchor_speeds
from lab.calibration.tables import (
    FULL_STRENGTH_NPS,
    LEVEL_MAP_NAME,
    TABLE_NAME,
    full_strength_row,
    param_columns,
    read_elo_table,
    write_final_table,
    write_round_table,
)

MEASURED_NAME = "measured.csv"
#: The error given to a perfect score's bound when it enters the correction (Elo, 95 %).
BOUND_ERROR = 400.0


def pooled_points(cal: Calibration, rounds: list[RoundResult]
                  ) -> tuple[list[float], dict[str, list[float]], list[float]]:
    """Every (parameters, measured Elo) point of the rounds so far, ordered by strength setting.

    Points are ordered by the first parameter column (our engine's NPS, another engine's level
    option), which grows with strength; a setting measured in several rounds is merged into one
    point, its measurements averaged with inverse-variance weights. A level with a perfect score
    has only a bound (the rating it would have with one draw, as Ordo reports it): that bound is
    used with a wide error, so it bends the curve little but keeps the level's place.
    """
    points: dict[tuple[float, ...], list[tuple[float, float]]] = {}
    columns = param_columns(cal, rounds[0].params)
    for result in rounds:
        for row in result.measured.itertuples(index=False):
            value, error = row.measured, row.halfwidth
            if not math.isfinite(value):
                value, error = row.bound_rating, BOUND_ERROR
            if not math.isfinite(value):
                continue
            key = tuple(float(result.params[int(row.nominal)][c]) for c in columns)
            error = error if math.isfinite(error) else BOUND_ERROR
            points.setdefault(key, []).append((float(value), max(float(error), 1.0)))
    measured, errors, params = [], [], {c: [] for c in columns}
    for key in sorted(points):
        weights = [1.0 / e**2 for _, e in points[key]]
        measured.append(sum(w * m for w, (m, _) in zip(weights, points[key], strict=True))
                        / sum(weights))
        errors.append(1.0 / math.sqrt(sum(weights)))
        for column, value in zip(columns, key, strict=True):
            params[column].append(value)
    return measured, params, errors


def correct_round(cal: Calibration, rounds: list[RoundResult],
                  full: FullStrength | None = None) -> Correction:
    """The correction from all measurements so far (see `pooled_points`).

    For our engine, full strength (`full`, stage U) is the curve's last point, at
    `tables.full_strength_row`: the strongest level still makes move errors and blunders, and
    without that point every target between its rating and full strength's would be left out
    of the table, and `UCI_Elo` up to the top would play the strongest level. The point's Elo
    is `full_strength.curve_end`: the declared top when criterion U accepts the measurement,
    else the measured rating; its error is the measurement's. With `pin_top` the top level's
    row is full strength's whatever the curve gives there (it plays full strength's effort by
    definition; criterion A judges where that lies).
    """
    measured, params, errors = pooled_points(cal, rounds)
    end = curve_end(cal, full)
    if end is not None and full is not None:
        measured.append(end)
        errors.append(max(full.halfwidth, 1.0))
        for column, value in full_strength_row(list(params)).items():
            params[column].append(value)
    real = sum(int(r.measured["measured"].notna().sum()) for r in rounds)
    if len(measured) < 2 or real < 2:
        raise CalibrationError(f"{cal.source}: fewer than two levels were measured on the "
                               "anchors' scale (the rest have only bounds); nothing to correct: "
                               "give the levels anchors they can score against")
    try:
        correction = correct_table(measured, params, cal.targets, errors=errors)
    except ValueError as exc:
        raise CalibrationError(f"{cal.source}: cannot correct: {exc}") from None
    if cal.pin_top:
        top = cal.levels[-1]
        correction.rows[top] = full_strength_row(list(params))
        correction.rows = dict(sorted(correction.rows.items()))
        correction.above = [t for t in correction.above if t != top]
    return correction


def curve_top_row(cal: Calibration, outcome: CalibrationOutcome) -> dict[str, float] | None:
    """With `pin_top` and full strength rated, the row the correction's curve through every
    measurement gives the top level without the pin (what `UCI_Elo` at the level's nominal Elo
    should play once the pinned row moves to full strength's rating); None otherwise."""
    if pinned_top_target(cal, outcome.full_strength) is None or not outcome.rounds:
        return None
    try:
        free = correct_round(dataclasses.replace(cal, pin_top=False), outcome.rounds,
                             outcome.full_strength)
    except CalibrationError:
        return None
    return free.rows.get(cal.levels[-1])


def check_pinned_top(cal: Calibration, params: dict[int, dict[str, float]],
                     table: Path | None) -> None:
    """With `pin_top`, the top level must play full strength's row (as the engine reads its
    table): refuse a start table whose top differs, naming the table, the level and the row."""
    top = cal.levels[-1]
    if not cal.pin_top or top not in params:
        return
    wanted = full_strength_row(list(params[top]))
    if any(float(params[top][c]) != v for c, v in wanted.items()):
        raise CalibrationError(
            f"{cal.source}: [levels] pin_top: L{top} plays "
            f"{', '.join(f'{c}={params[top][c]:g}' for c in wanted)} from "
            f"{table or 'the formulas'}, not full strength's row "
            f"({', '.join(f'{c}={v:g}' for c, v in wanted.items())})")


def played_with(cal: Calibration, number: int, table: Path) -> bool:
    """Whether round `number` has begun playing with `table` as it stands. Such a table is
    never rewritten: its bytes name the round's folder and are in its games' identity, so a
    rewrite with the same rows (say, its comment naming full strength's rating after stage U
    gained games) would start the round again in a new folder."""
    return table.is_file() and stage_root(cal, number, table).is_dir()


def _round_setup(cal: Calibration, number: int, previous: RoundResult | None
                 ) -> tuple[list[int], dict[int, dict[str, float]], Path | None]:
    """Levels, their parameters and the table they play with, for round `number`.

    Round 1 plays the nominal levels with the engine's own levels (or the file's `table`); a
    later round plays the levels that lie inside the previous correction's range with that
    correction (levels outside it are extrapolations: the table cannot produce them), or, when
    fewer than two do, as many of the correction's own rows, evenly spread.
    """
    if previous is None:
        levels, table = list(cal.levels), cal.table
    else:
        table = previous.corrected
        assert table is not None
        rows = read_elo_table(table) if cal.uses_table else \
            pd.read_csv(table, comment="#").set_index("Elo")
        low, high = int(rows.index.min()), int(rows.index.max())
        levels = [lv for lv in cal.levels if low <= lv <= high]
        if len(levels) < 2:  # the table covers too few levels: measure its own rows instead
            picks = np.linspace(0, len(rows) - 1, min(len(rows), len(cal.levels)))
            levels = sorted({int(rows.index[int(round(i))]) for i in picks})
        if not cal.uses_table:
            values = rows[cal.level_option].to_numpy(float)
            return levels, {lv: {cal.level_option: float(np.interp(lv, rows.index, values))}
                            for lv in levels}, table
    if not levels or (cal.report_only is not None
                      and not stage_root(cal, number, table).is_dir()):
        return [], {}, table  # nothing to measure, or (report only) a round not begun
    if cal.uses_table:
        params = _engine_params(cal, levels, table, stage_root(cal, number, table))
        check_pinned_top(cal, params, table)
        return levels, params, table
    return levels, {lv: {cal.level_option: float(lv)} for lv in levels}, table


def _engine_params(cal: Calibration, levels: list[int], table: Path | None,
                   folder: Path) -> dict[int, dict[str, float]]:
    """Our engine's parameters per level, asked once and kept beside the round (for resume)."""
    path = folder / "parameters.csv"
    if path.is_file():
        frame = pd.read_csv(path).set_index("Elo")
        if sorted(int(e) for e in frame.index) == sorted(levels):
            return {int(e): {c: float(v) for c, v in row.items()} for e, row in frame.iterrows()}
    spec_exp = cal.experiment("probe", [(cal.level_name(levels[0]), cal.engine),
                                        (cal.anchors[0].name, cal.anchors[0].table)],
                              [cal.level_name(levels[0])], 2, folder, 0)
    spec = spec_exp.engines[0]
    params = level_parameters(spec, {lv: cal.level_options(lv, table=table) for lv in levels})
    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame.from_dict(params, orient="index")
    frame.index.name = "Elo"
    frame.to_csv(path)
    return params


def run_calibration(cal: Calibration, stream: TextIO | None = None,
                    command: str | None = None) -> CalibrationOutcome:
    """Rate the anchors among themselves (`[anchor_round_robin]`) and full strength against
    them (`[full_strength]`), then measure, judge and correct for up to `cal.rounds` rounds;
    write tables, report, plot."""
    cal, anchor_table = rate_anchors(cal, stream)
    outcome = CalibrationOutcome(anchors=anchor_table,
                                 full_strength=rate_full_strength(cal, stream))
    previous: RoundResult | None = None
    for number in range(1, cal.rounds + 1):
        levels, params, table = _round_setup(cal, number, previous)
        if not levels:
            break
        level_tables = {
            lv: dict(cal.engine, options=cal.level_options(
                lv, value=params[lv].get(cal.level_option), table=table))
            for lv in levels
        }
        try:
            fits = measure_round(cal, number, levels, level_tables, stream, table)
        except NothingPlayed:
            if cal.report_only is None:
                raise
            break  # report only: the round has no decided anchor game yet
        folders = fits.folders
        measured = measured_frame(cal, levels, params, fits.placed,
                                  decided_games(anchor_stages(folders)))
        measured["target"] = level_targets(cal, levels, outcome.full_strength)
        verdict = judge(list(measured["target"]), list(measured["measured"]),
                        list(measured["halfwidth"]), anchor_range(cal), cal.thresholds,
                        list(measured["bound_rating"]),
                        level_names(levels, list(measured["target"])))
        replicated, agreed = replication(cal, levels, folders,
                                         [lv.extrapolated for lv in verdict.levels])
        for level, same in zip(verdict.levels, agreed, strict=True):
            level.passed = level.passed and same  # a level counts only when replicated
        measured["extrapolated"] = [lv.extrapolated for lv in verdict.levels]
        measured["replicated"] = agreed
        measured["passed"] = [lv.passed for lv in verdict.levels]
        folder = cal.out / f"round{number}"
        if cal.report_only is None:  # report only: the interim report's levels.csv has them
            measured.to_csv(folder / MEASURED_NAME, index=False, float_format="%.1f")
        result = RoundResult(number, folder, levels, params, table, measured, fits.placed,
                             verdict, speeds=anchor_speeds({a.name: a.nps for a in outcome.anchors},
                                                           search_speeds(folders)),
                             with_ladder=fits.with_ladder)
        verdict.lines += [replicated, transitivity(cal, result)]
        if verdict.passed or number == cal.rounds:  # the round that ends the calibration
            verdict.lines.append(robustness(cal, result, level_tables, stream))
            if cal.spread_games:
                verdict.lines.append(spread(cal, result, level_tables, stream))
            if cal.top_games:
                rated = outcome.full_strength.nps if outcome.full_strength else math.nan
                verdict.lines.append(top(cal, result, level_tables, stream, rated))
            if outcome.full_strength is not None:
                check = full_strength_line(cal, outcome.full_strength)
                if check is not None:
                    verdict.lines.append(check)
        outcome.rounds.append(result)
        if verdict.passed:
            outcome.passed = True
            break
        name = TABLE_NAME if cal.uses_table else LEVEL_MAP_NAME
        corrected = folder / f"corrected_{name}"
        if cal.report_only is not None and not corrected.is_file():
            break  # report only: the round is not over, so it has no correction yet
        try:
            result.correction = correct_round(cal, outcome.rounds, outcome.full_strength)
        except CalibrationError as exc:
            outcome.problem = str(exc)
            break
        if cal.report_only is not None or played_with(cal, number + 1, corrected):
            result.corrected, previous = corrected, result  # as the run wrote it
            continue
        left_out = [f"targets {', '.join(map(str, result.correction.below))} are below the "
                    "weakest measured level: not in this table"] if result.correction.below else []
        if result.correction.above:
            left_out.append(f"targets {', '.join(map(str, result.correction.above))} are above "
                            "the curve's strongest point: not in this table")
        full = outcome.full_strength
        if ends_at_full_strength(full, cal):
            left_out.append(f"the curve ends at full strength, {curve_end_text(cal, full)} "
                            f"(stage U), as the row NPS {FULL_STRENGTH_NPS}, no move error, "
                            "no blunder")
        outside = extrapolated_targets(cal, result.correction)
        if outside:
            left_out.append(f"EXTRAPOLATED rows {', '.join(map(str, outside))}: outside the "
                            "anchors' range ± 200 (reference §5 G), not measured on their scale")
        rows = result.correction.rows
        if not rows:
            raise CalibrationError(f"{cal.source}: round {number}: no target level lies inside "
                                   "the measured range; nothing to correct")
        result.corrected = write_round_table(cal, number, rows, corrected,
                                             "corrected from this round's measurements", left_out)
        previous = result
    if cal.report_only is not None:  # no table: the calibration has not ended
        outcome.files = write_report(cal, outcome, command, cal.out / INTERIM_FOLDER)
        return outcome
    final = write_final_table(cal, outcome, curve_top_row(cal, outcome))
    files = [*write_report(cal, outcome, command), write_calibration_page(cal, outcome, command)]
    outcome.files = [final, *files] if final is not None else files
    return outcome
