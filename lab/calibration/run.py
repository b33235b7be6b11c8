"""Running a calibration: stages of games through the harness, one fit per round, a correction.

Each round measures every level: pass 1 plays each level against the anchors its nominal Elo
(or, from round 2, its target) should score 25–75 % against, and adjacent levels against each
other (the ladder, which ties levels below the lowest anchor to the rest); a fit of everything so
far then re-chooses each level's anchors from its estimate, and pass 2 plays the remaining games
against those. All games of the round are fitted at once with the anchors fixed (Ordo's model,
`lab.ratings.fit_ratings`; docs/reference/elo_limit.md §5 step 3), the levels are judged against the
§5 criteria, and if they fail, the parameters are corrected (`correct.correct_table`) and the
next round measures the corrected table, until the criteria hold or the rounds are spent.

Every stage is an ordinary experiment (`lab.runner.run_experiment`) in its own folder under
`<out>/round<N>/`, so an interrupted calibration resumes like a gauntlet: finished stages are
complete stores (nothing is replayed), the fits that choose later stages are recomputed from the
same games and give the same choices, and the stage that was cut short resumes game by game.
"""

from __future__ import annotations

import hashlib
import math
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from lab.calibration.anchors import choose_anchors, performance
from lab.calibration.config import Calibration, CalibrationError
from lab.calibration.correct import Correction, correct_table
from lab.calibration.criteria import Verdict, judge
from lab.calibration.tables import (
    INT_COLUMNS,
    KNOWLEDGE_COLUMNS,
    read_elo_table,
    write_elo_table,
    write_level_map,
)
from lab.ratings import DisconnectedPoolError, RatingTable, fit_ratings

TABLE_NAME = "elo_table.csv"
LEVEL_MAP_NAME = "level_map.csv"
MEASURED_NAME = "measured.csv"
#: The error given to a perfect score's bound when it enters the correction (Elo, 95 %).
BOUND_ERROR = 400.0


@dataclass
class RoundResult:
    """One measured round: what each level played with, what it measured, the verdict, and the
    corrected table written for the next round (None when the round passed)."""

    number: int
    folder: Path
    levels: list[int]
    params: dict[int, dict[str, float]]
    table_played: Path | None
    measured: pd.DataFrame
    ratings: RatingTable
    verdict: Verdict
    correction: Correction | None = None
    corrected: Path | None = None


@dataclass
class CalibrationOutcome:
    """All rounds, the table to use, and whether it was measured to pass."""

    rounds: list[RoundResult] = field(default_factory=list)
    final: Path | None = None
    passed: bool = False
    problem: str = ""
    files: list[Path] = field(default_factory=list)


def stage_seed(stage: str) -> int:
    """A fixed opening-order seed per stage, so stages use different openings reproducibly."""
    return zlib.crc32(stage.encode()) % 100_000


def _play(cal: Calibration, stage: str, players: list[tuple[str, dict[str, Any]]],
          challengers: list[str], games: int, folder: Path, stream: TextIO | None) -> Path:
    from lab.runner import run_experiment

    exp = cal.experiment(stage, players, challengers, games, folder, stage_seed(stage))
    print(f"[{cal.name}] {stage}: {' '.join(challengers)} vs "
          f"{', '.join(n for n, _ in players if n not in challengers)}, {games} games",
          file=stream or sys.stdout, flush=True)
    outcome = run_experiment(exp, stream=stream, live=False)
    if outcome.tournament.failed:
        raise CalibrationError(f"{cal.source}: stage {stage} stopped: "
                               f"{outcome.tournament.stop_reason}")
    return folder


def _games(folders: list[Path]) -> pd.DataFrame:
    from lab.store import open_store

    frames = []
    for folder in folders:
        with open_store(folder) as store:
            frames.append(store.games())
    games = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if games.empty:
        return games
    return games[games["result"].isin(["1-0", "0-1", "1/2-1/2"])]


def _fit(cal: Calibration, folders: list[Path], games: pd.DataFrame | None = None,
         force: bool = False) -> RatingTable | None:
    """All games of `folders` fitted at once with the anchors fixed (None without anchor games).

    A pool not tied to the anchors (a group of levels that lost, or won, every game against
    them) raises CalibrationError, unless `force`: then each group is fitted apart and
    `unanchored` tells which levels have no rating on the anchors' scale.
    """
    games = _games(folders) if games is None else games
    if games.empty:
        return None
    present = set(games["white"]) | set(games["black"])
    anchors = {a.name: a.rating for a in cal.anchors if a.name in present}
    if not anchors:
        return None
    try:
        with np.errstate(divide="ignore", invalid="ignore"):  # all-bound pools in early passes
            return fit_ratings(games, anchors=anchors, force=force)
    except DisconnectedPoolError as exc:
        raise CalibrationError(f"{cal.source}: the levels are not tied to the anchors: {exc}"
                               ) from None


def unanchored(cal: Calibration, ratings: RatingTable) -> set[str]:
    """Players in groups of a forced fit that hold no anchor (their ratings mean nothing)."""
    if len(ratings.groups) < 2:
        return set()
    names = set(cal.ratings)
    return {p for group in ratings.groups if not names & set(group) for p in group}


def anchor_results(cal: Calibration, games: pd.DataFrame, name: str
                   ) -> list[tuple[float, float, int]]:
    """(anchor rating, score fraction, games) of player `name` against each anchor it met."""
    results = []
    for anchor, rating in cal.ratings.items():
        mine = games[((games["white"] == name) & (games["black"] == anchor))
                     | ((games["black"] == name) & (games["white"] == anchor))]
        if len(mine):
            points = sum(0.5 if r == "1/2-1/2" else float((r == "1-0") == (w == name))
                         for r, w in zip(mine["result"], mine["white"], strict=True))
            results.append((rating, points / len(mine), len(mine)))
    return results


def outside_bound(results: list[tuple[float, float, int]]) -> tuple[str, float]:
    """A ceiling ("<") or floor (">") for a level that lost or won every anchor game.

    As Ordo bounds a perfect score (reference harness_and_stats.md §5.1): the rating it would
    have if one of its n games had been a draw, score 0.5/n (or 1 − 0.5/n), against the
    games-weighted mean rating of the anchors it met.
    """
    n = sum(g for _, _, g in results)
    points = sum(s * g for _, s, g in results)
    mean = sum(r * g for r, _, g in results) / n
    if points == 0:
        s, mark = 0.5 / n, "<"
    elif points == n:
        s, mark = 1 - 0.5 / n, ">"
    else:
        raise ValueError("only a perfect score against the anchors has a bound")
    return mark, mean + 400.0 * math.log10(s / (1.0 - s))


def _pairs(games: int, passes: int) -> tuple[int, int]:
    """Anchor games of pass 1 and pass 2 (both even: games are paired)."""
    first = 2 * (games // 4) if passes == 2 else 0
    return first, games - first


def first_estimates(cal: Calibration, levels: list[int], folders: list[Path]) -> list[float]:
    """Each level's Elo after pass 1, to choose its pass-2 anchors.

    From a fit of pass 1's games when they tie the levels to the anchors; otherwise (a level
    that lost or won everything against its anchors) from its performance against the anchors
    (`anchors.performance`), and the nominal Elo for a level that met none.
    """
    games = _games(folders)
    if games.empty:
        return [float(level) for level in levels]
    names = {level: cal.level_name(level) for level in levels}
    try:
        fitted = _fit(cal, folders, games)
    except CalibrationError:
        fitted = None
    if fitted is not None:
        frame = fitted.frame.set_index("player")
        return [float(frame.loc[names[lv], "rating"]) if names[lv] in frame.index
                and math.isfinite(frame.loc[names[lv], "rating"]) else float(lv)
                for lv in levels]
    estimates = []
    for level in levels:
        results = anchor_results(cal, games, names[level])
        estimates.append(performance(results) if results else float(level))
    return estimates


def stage_root(cal: Calibration, number: int, table: Path | None) -> Path:
    """Where a round's stages live: under a digest of the table they play with, if any.

    A table's path alone does not fix the games (a round 1 extended with more games corrects
    the table differently, at the same path), so stages played with another table's contents
    never resume into these.
    """
    folder = cal.out / f"round{number}"
    if table is None:
        return folder
    digest = hashlib.sha256(Path(table).read_bytes()).hexdigest()[:10]
    return folder / f"table-{digest}"


def measure_round(cal: Calibration, number: int, levels: list[int],
                  level_tables: dict[int, dict[str, Any]], stream: TextIO | None = None,
                  table: Path | None = None) -> tuple[RatingTable, list[Path]]:
    """Play one round's stages (resuming any finished ones) and fit all its games."""
    folder = stage_root(cal, number, table)
    names = {level: cal.level_name(level) for level in levels}
    ratings = cal.ratings
    tables = {a.name: a.table for a in cal.anchors}
    low, high = cal.score_window
    ladder = cal.ladder_games > 0
    folders: list[Path] = []
    first, second = _pairs(cal.games, cal.passes)
    estimates = [float(level) for level in levels]
    for pass_number, games in ((1, first), (2, second)):
        if games == 0:
            continue
        if pass_number == 2:
            estimates = first_estimates(cal, levels, folders)
        chosen = choose_anchors(estimates, ratings, low, high, cal.max_anchors, ladder)
        for level, opponents in zip(levels, chosen, strict=True):
            if not opponents:
                continue
            stage = f"r{number}-p{pass_number}-{names[level]}"
            players = [(names[level], level_tables[level])]
            players += [(name, tables[name]) for name in opponents]
            folders.append(_play(cal, stage, players, [names[level]], games,
                                 folder / f"pass{pass_number}" / names[level], stream))
        if pass_number == 1 or first == 0:
            for a, b in zip(levels[:-1], levels[1:], strict=True):
                if not ladder:
                    break
                stage = f"r{number}-ladder-{names[a]}-{names[b]}"
                players = [(names[a], level_tables[a]), (names[b], level_tables[b])]
                folders.append(_play(cal, stage, players, [names[a]], cal.ladder_games,
                                     folder / "ladder" / f"{names[a]}-{names[b]}", stream))
    fitted = _fit(cal, folders, force=True)
    if fitted is None:
        raise CalibrationError(f"{cal.source}: round {number} has no decided game against an "
                               "anchor to fit")
    return fitted, folders


def measured_frame(cal: Calibration, levels: list[int], params: dict[int, dict[str, float]],
                   ratings: RatingTable, games: pd.DataFrame) -> pd.DataFrame:
    """One row per level: nominal, what it played with, measured Elo, interval, games, score.

    A level in a group not tied to the anchors has no measurement: it gets Ordo's bound from
    its anchor games if it lost (or won) them all, else nothing, and `tied` is False.
    """
    frame = ratings.frame.set_index("player")
    loose = unanchored(cal, ratings)
    rows = []
    for level in levels:
        name = cal.level_name(level)
        row: dict[str, Any] = {"level": name, "nominal": level}
        row.update(params[level])
        row["tied"] = name not in loose
        if name in loose:
            results = anchor_results(cal, games, name)
            perfect = results and {s for _, s, _ in results} in ({0.0}, {1.0})
            mark, bound = outside_bound(results) if perfect else ("", math.nan)
            fit = frame.loc[name] if name in frame.index else None
            row.update(measured=math.nan, halfwidth=math.nan, lower=math.nan, upper=math.nan,
                       bound=f"{mark}{bound:.0f}" if mark else "", bound_rating=bound,
                       games=int(fit["played"]) if fit is not None else 0,
                       score=float(fit["score"]) if fit is not None else math.nan)
        elif name in frame.index:
            fit = frame.loc[name]
            measured = float(fit["rating"]) if not fit["bound"] else math.nan
            row.update(measured=measured, halfwidth=float(fit["error"]),
                       lower=float(fit["lower"]), upper=float(fit["upper"]),
                       bound=f"{fit['bound']}{fit['rating']:.0f}" if fit["bound"] else "",
                       bound_rating=float(fit["rating"]) if fit["bound"] else math.nan,
                       games=int(fit["played"]), score=float(fit["score"]))
        else:
            row.update(measured=math.nan, halfwidth=math.nan, lower=math.nan, upper=math.nan,
                       bound="", bound_rating=math.nan, games=0, score=math.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def _anchor_range(cal: Calibration) -> tuple[float, float]:
    values = [a.rating for a in cal.anchors]
    return min(values), max(values)


def param_columns(cal: Calibration, params: dict[int, dict[str, float]]) -> list[str]:
    """The columns a correction interpolates: the table's, or the level option."""
    if not cal.uses_table:
        return [cal.level_option]
    first = next(iter(params.values()))
    return [*INT_COLUMNS, *(c for c in KNOWLEDGE_COLUMNS if c in first)]


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


def correct_round(cal: Calibration, rounds: list[RoundResult]) -> Correction:
    """The correction from all measurements so far (see `pooled_points`)."""
    measured, params, errors = pooled_points(cal, rounds)
    real = sum(int(r.measured["measured"].notna().sum()) for r in rounds)
    if len(measured) < 2 or real < 2:
        raise CalibrationError(f"{cal.source}: fewer than two levels were measured on the "
                               "anchors' scale (the rest have only bounds); nothing to correct: "
                               "give the levels anchors they can score against")
    try:
        return correct_table(measured, params, cal.targets, errors=errors)
    except ValueError as exc:
        raise CalibrationError(f"{cal.source}: cannot correct: {exc}") from None


def extrapolated_targets(cal: Calibration, correction: Correction) -> list[int]:
    """Rows of a correction whose target lies outside the anchors' range ± the margin."""
    low, high = _anchor_range(cal)
    margin = cal.thresholds.anchor_margin
    return [t for t in sorted(correction.rows) if not low - margin <= t <= high + margin]


def _provenance(cal: Calibration, number: int, what: str) -> list[str]:
    anchors = ", ".join(f"{a.name}={a.rating:g}" for a in cal.anchors)
    return [
        f"Tempo calibration '{cal.name}', round {number}: {what}",
        f"scale: anchors {anchors}; tc {cal.tc}; Ordo logistic fit, anchors fixed",
    ]


def write_round_table(cal: Calibration, number: int, rows: dict[int, dict[str, float]],
                      path: Path, what: str, left_out: list[str] = ()) -> Path:
    """Write a round's table (our engine: EloTable CSV; others: level map)."""
    comments = _provenance(cal, number, what) + list(left_out)
    if cal.uses_table:
        return write_elo_table(path, rows, comments)
    return write_level_map(path, cal.level_option,
                           {e: r[cal.level_option] for e, r in rows.items()}, comments)


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
    if not levels:
        return [], {}, table
    if cal.uses_table:
        return levels, _engine_params(cal, levels, table, stage_root(cal, number, table)), table
    return levels, {lv: {cal.level_option: float(lv)} for lv in levels}, table


def _engine_params(cal: Calibration, levels: list[int], table: Path | None,
                   folder: Path) -> dict[int, dict[str, float]]:
    """Our engine's parameters per level, asked once and kept beside the round (for resume)."""
    from lab.calibration.probe import level_parameters

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
    """Measure, judge and correct for up to `cal.rounds` rounds; write tables, report, plot."""
    from lab.calibration.report import write_outputs

    outcome = CalibrationOutcome()
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
        ratings, folders = measure_round(cal, number, levels, level_tables, stream, table)
        measured = measured_frame(cal, levels, params, ratings, _games(folders))
        verdict = judge(list(measured["nominal"]), list(measured["measured"]),
                        list(measured["halfwidth"]), _anchor_range(cal), cal.thresholds,
                        list(measured["bound_rating"]))
        measured["extrapolated"] = [lv.extrapolated for lv in verdict.levels]
        measured["passed"] = [lv.passed for lv in verdict.levels]
        folder = cal.out / f"round{number}"
        measured.to_csv(folder / MEASURED_NAME, index=False, float_format="%.1f")
        result = RoundResult(number, folder, levels, params, table, measured, ratings, verdict)
        outcome.rounds.append(result)
        if verdict.passed:
            outcome.passed = True
            break
        try:
            result.correction = correct_round(cal, outcome.rounds)
        except CalibrationError as exc:
            outcome.problem = str(exc)
            break
        left_out = [f"targets {', '.join(map(str, result.correction.below))} are below the "
                    "weakest measured level: not in this table"] if result.correction.below else []
        if result.correction.above:
            left_out.append(f"targets {', '.join(map(str, result.correction.above))} are above "
                            "the strongest measured level: not in this table")
        outside = extrapolated_targets(cal, result.correction)
        if outside:
            left_out.append(f"EXTRAPOLATED rows {', '.join(map(str, outside))}: outside the "
                            "anchors' range ± 200 (reference §5 G), not measured on their scale")
        name = TABLE_NAME if cal.uses_table else LEVEL_MAP_NAME
        rows = result.correction.rows
        if not rows:
            raise CalibrationError(f"{cal.source}: round {number}: no target level lies inside "
                                   "the measured range; nothing to correct")
        result.corrected = write_round_table(cal, number, rows, folder / f"corrected_{name}",
                                             "corrected from this round's measurements", left_out)
        previous = result
    outcome.files = write_outputs(cal, outcome, command)
    return outcome
