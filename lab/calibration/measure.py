"""Measuring one round of a calibration: its stages played through the harness, fitted at once.

Each stage is an ordinary experiment (`lab.runner.run_experiment`) in its own folder, so an
interrupted round resumes like a gauntlet. Pass 1 plays each level against the anchors its
nominal Elo should score 25–75 % against, or its nearest one (and adjacent levels against each
other, the ladder); a fit of pass 1 re-chooses each level's anchors for pass 2; a level still
wider than criterion A allows plays `topup_games` more (`top_up`). The round's anchor
games are fitted at once with the anchors fixed (Ordo's model, docs/reference/elo_limit.md §5
step 3) and turned into one row per level (`measured_frame`), with Ordo's bound for a level that
lost or won every anchor game.

Levels are placed by their anchor games alone: the ladder's games measure levels of one engine
against each other, which separate further than the anchors place them (final-v6's round 1:
L1710 scored 97.8 % against L1510, 208 Elo apart on the anchors), so fitted together they pull
the levels off the anchors' scale. The ladder judges transitivity (E); the fit with its games is
kept beside the placement as a diagnostic (`RoundFits.with_ladder`).
"""

from __future__ import annotations

import hashlib
import math
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from lab.calibration.anchors import choose_anchors, performance
from lab.calibration.config import Calibration, CalibrationError
from lab.calibration.criteria import Measurement
from lab.experiment import Experiment
from lab.ratings import DisconnectedPoolError, RatingTable, fit_ratings
from lab.runner import run_experiment
from lab.schedule import total_games
from lab.store import DB_NAME, read_store

#: The folder under a round's stages that holds the ladder's (`<round>/ladder/<A>-<B>`).
LADDER_FOLDER = "ladder"
TOPUP_FOLDER = "pass3"


#: A level without a measurement: no games, only a bound, or not tied to the anchors.
MISSING = Measurement(math.nan, math.nan)


class NothingPlayed(CalibrationError):
    """A round without a decided anchor game: an error when its stages were played, the point
    where an interim report (`tempo calibrate --report`) ends when they are not begun."""


def stage_seed(stage: str) -> int:
    """A fixed opening-order seed per stage, so stages use different openings reproducibly."""
    return zlib.crc32(stage.encode()) % 100_000


def play_stage(cal: Calibration, stage: str, players: list[tuple[str, dict[str, Any]]],
               challengers: list[str], games: int, folder: Path, stream: TextIO | None,
               tc: str | None = None, concurrency: int | None = None) -> Path:
    """Play (or resume) one stage in `folder`: a gauntlet of `challengers`, or with none a round
    robin of `games` per pair; `tc` and `concurrency` replace the calibration's. With
    `cal.report_only`, play nothing: note the games the stage's store holds."""
    exp = cal.experiment(stage, players, challengers, games, folder, stage_seed(stage), tc,
                         concurrency)
    others = ", ".join(n for n, _ in players if n not in challengers)
    what = f"{' '.join(challengers)} vs {others}" if challengers else f"round robin of {others}"
    if cal.report_only is not None:
        held, planned = held_games(exp, folder), total_games(exp)
        cal.report_only.stages.append((stage, held, planned))
        print(f"[{cal.name}] {stage}: {what}, {held} of {planned} games played (report only: "
              "none is played now)", file=stream or sys.stdout, flush=True)
        return folder
    print(f"[{cal.name}] {stage}: {what}, {games} games{' per pair' if not challengers else ''}",
          file=stream or sys.stdout, flush=True)
    outcome = run_experiment(exp, stream=stream, live=False)
    if outcome.tournament.failed:
        raise CalibrationError(f"{cal.source}: stage {stage} stopped: "
                               f"{outcome.tournament.stop_reason}")
    return folder


def held_games(exp: Experiment, folder: Path) -> int:
    """The games a stage's store holds, read only (0 for a stage not begun). A store holding
    other settings is refused, as resuming it would be: a report must not mix the two."""
    if not (folder / DB_NAME).is_file():
        return 0
    with read_store(folder) as store:
        changed = store.settings_changed(exp.identity(), exp.earlier_identities())
        if changed:
            raise CalibrationError(f"{folder}: holds games played with other settings "
                                   f"({'; '.join(changed[:5])}) than {exp.source}'s")
        return store.game_count()


def decided_games(folders: list[Path]) -> pd.DataFrame:
    """The decided games of the stages in `folders`, read only; a stage not begun (which
    `tempo calibrate --report` leaves so) holds none."""
    frames = []
    for folder in folders:
        if not (folder / DB_NAME).is_file():
            continue
        with read_store(folder) as store:
            frames.append(store.games())
    games = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if games.empty:
        return games
    return games[games["result"].isin(["1-0", "0-1", "1/2-1/2"])]


def search_speeds(folders: list[Path]) -> dict[str, float]:
    """The median nodes per second each engine reported over its moves in the stages in
    `folders` (an engine that reported none is left out): an engine that plays on the clock is
    as strong as it is fast, so its rating holds at the speed it was measured at."""
    frames = []
    for folder in folders:
        if not (folder / DB_NAME).is_file():
            continue
        with read_store(folder) as store:
            frames.append(store.moves(columns=["engine", "nps"]))
    moves = pd.concat(frames, ignore_index=True).dropna() if frames else pd.DataFrame()
    if moves.empty:
        return {}
    return {str(name): float(nps) for name, nps in moves.groupby("engine")["nps"].median().items()}


def anchor_stages(folders: list[Path]) -> list[Path]:
    """The stages of `folders` that play levels against anchors: all but the ladder's."""
    return [f for f in folders if f.parent.name != LADDER_FOLDER]


def split_halves(folders: list[Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The decided games of `folders` in two independent halves: odd and even schedule rounds
    (a pair id is `r<round>-e<encounter>`, `lab.schedule`), so both halves hold every encounter
    with both colours, on different openings."""
    games = decided_games(folders)
    if games.empty:
        return games, games
    odd = games["pair_id"].astype(str).str.extract(r"^r(\d+)", expand=False).astype(int) % 2
    return games[odd == 1], games[odd == 0]


def fit_folders(cal: Calibration, folders: list[Path], games: pd.DataFrame | None = None,
         force: bool = False) -> RatingTable | None:
    """All games of `folders` fitted at once with the anchors fixed (None without anchor games).

    A pool not tied to the anchors (a group of levels that lost, or won, every game against
    them) raises CalibrationError, unless `force`: then each group is fitted apart and
    `unanchored` tells which levels have no rating on the anchors' scale.
    """
    games = decided_games(folders) if games is None else games
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

    From a fit of pass 1's anchor games (`folders`) when they tie the levels to the anchors;
    otherwise (a level that lost or won everything against its anchors) from its performance
    against the anchors (`anchors.performance`), and the nominal Elo for a level that met none.
    """
    games = decided_games(folders)
    if games.empty:
        return [float(level) for level in levels]
    names = {level: cal.level_name(level) for level in levels}
    try:
        fitted = fit_folders(cal, folders, games)
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


@dataclass(frozen=True)
class RoundFits:
    """A round's fits: `placed`, its anchor games alone (what places the levels); `with_ladder`,
    every game including the ladder's (its head-to-head scores judge E; its ratings are a
    diagnostic; None without a decided ladder game); `folders`, every stage of the round."""

    placed: RatingTable
    with_ladder: RatingTable | None
    folders: list[Path]


def measure_round(cal: Calibration, number: int, levels: list[int],
                  level_tables: dict[int, dict[str, Any]], stream: TextIO | None = None,
                  table: Path | None = None) -> RoundFits:
    """Play one round's stages (resuming any finished ones) and fit its games."""
    folder = stage_root(cal, number, table)
    names = {level: cal.level_name(level) for level in levels}
    ratings = cal.opponent_ratings
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
            estimates = first_estimates(cal, levels, anchor_stages(folders))
        chosen = choose_anchors(estimates, ratings, low, high, cal.max_anchors)
        for level, opponents in zip(levels, chosen, strict=True):
            stage = f"r{number}-p{pass_number}-{names[level]}"
            players = [(names[level], level_tables[level])]
            players += [(name, tables[name]) for name in opponents]
            folders.append(play_stage(cal, stage, players, [names[level]], games,
                                 folder / f"pass{pass_number}" / names[level], stream))
        if pass_number == 1 or first == 0:
            for a, b in zip(levels[:-1], levels[1:], strict=True):
                if not ladder:
                    break
                stage = f"r{number}-ladder-{names[a]}-{names[b]}"
                players = [(names[a], level_tables[a]), (names[b], level_tables[b])]
                folders.append(play_stage(cal, stage, players, [names[a]], cal.ladder_games,
                                     folder / LADDER_FOLDER / f"{names[a]}-{names[b]}", stream))
    placed = fit_folders(cal, anchor_stages(folders), force=True)
    if placed is None:
        raise NothingPlayed(f"{cal.source}: round {number} has no decided game against an "
                            "anchor to fit")
    if cal.topup_games and not closed(cal, number, folder):
        added = top_up(cal, number, levels, level_tables, placed, folder, stream)
        if added:
            folders += added
            placed = fit_folders(cal, anchor_stages(folders), force=True)
    ladder_games = decided_games([f for f in folders if f.parent.name == LADDER_FOLDER])
    with_ladder = None if ladder_games.empty else fit_folders(cal, folders, force=True)
    return RoundFits(placed, with_ladder, folders)


def fitted_measurements(cal: Calibration, fitted: RatingTable,
                        levels: list[int]) -> list[Measurement]:
    """Each level's rating and 95 % half-width in `fitted`; `MISSING` for a level without games,
    with only a bound, or not tied to the anchors."""
    frame = fitted.frame.set_index("player")
    loose = unanchored(cal, fitted)
    out = []
    for level in levels:
        name = cal.level_name(level)
        if name in frame.index and name not in loose and not frame.loc[name, "bound"]:
            out.append(Measurement(float(frame.loc[name, "rating"]),
                                   float(frame.loc[name, "error"])))
        else:
            out.append(MISSING)
    return out


def wide_levels(cal: Calibration, levels: list[int], fitted: RatingTable) -> list[int]:
    """The levels whose 95 % half-width in `fitted` exceeds criterion A's limit: they need more
    games to be judged. A level without a measurement (a bound, not tied) is not among them:
    more games against the same anchors would not tie it."""
    return [level for level, m in zip(levels, fitted_measurements(cal, fitted, levels),
                                      strict=True)
            if math.isfinite(m.halfwidth) and m.halfwidth > cal.thresholds.level_halfwidth]


def closed(cal: Calibration, number: int, folder: Path) -> bool:
    """Whether round `number` (its stages in `folder`) was followed by the next round without a
    top-up: its correction is the table the next round plays, so a top-up added now (a
    `topup_games` set after it was judged) would change that table and void the next round's
    games. A top-up begun before the next round is always resumed."""
    return (cal.out / f"round{number + 1}").exists() and not (folder / TOPUP_FOLDER).exists()


def top_up(cal: Calibration, number: int, levels: list[int],
           level_tables: dict[int, dict[str, Any]], passes: RatingTable, folder: Path,
           stream: TextIO | None) -> list[Path]:
    """After the passes (fitted in `passes`), once: each level whose half-width exceeds A's
    limit (`wide_levels`) plays `cal.topup_games` more against anchors chosen from its rating
    so far, in a stage `pass3/<level>` of its own. The trigger is the width of the passes' games
    alone, never the error, so the added games cannot steer a level towards passing, and a
    resumed run decides the same way."""
    wide = wide_levels(cal, levels, passes)
    rating = passes.frame.set_index("player")["rating"]
    low, high = cal.score_window
    chosen = choose_anchors([float(rating[cal.level_name(level)]) for level in wide],
                            cal.opponent_ratings, low, high, cal.max_anchors)
    tables = {a.name: a.table for a in cal.anchors}
    out = []
    for level, opponents in zip(wide, chosen, strict=True):
        name = cal.level_name(level)
        players = [(name, level_tables[level])] + [(a, tables[a]) for a in opponents]
        out.append(play_stage(cal, f"r{number}-p3-{name}", players, [name], cal.topup_games,
                              folder / TOPUP_FOLDER / name, stream))
    return out


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
