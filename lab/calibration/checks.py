"""The criteria that need more than one fit (issue #18): replication (R), transitivity (E) and
robustness (F), each turned into a verdict line by `criteria`.

* R: a level's anchor games split into two independent halves (odd and even schedule rounds,
  `measure.split_halves`), each fitted with the anchors fixed: its two measurements must agree.
* E: the levels as placed (by their anchor games alone) predict each adjacent pair's
  head-to-head score; the ladder games between them must match it. The prediction's error
  includes the anchors' own (their round robin's covariance, `Calibration.anchor_cov`) where
  the two levels lean on different anchors (`level_shares`, `criteria.anchor_gap_se`).
* F: some levels measured again at other time controls, with another `Seed` and under another
  machine load, against the anchors their measurement says they score 25-75 % against, in
  stages of their own under `<out>/round<N>/robustness/` (resumable like every stage). The load
  falls on the level alone (`load_cpus`): busy processes (`lab.busy_load`) share its CPU, one
  game at a time, while its anchors run on the others, as unloaded as when they were rated. A
  load on every process weakens the anchors too, and the level, held to its node budget, would
  look stronger for it: in the first calibration's stage with one busy process beside two games
  (results/calibration/final/round2/robustness/load-1/L1450), Stockfish at UCI_Elo
  1350 and 1500 searched 0.91M and 0.79M nodes/s to depth 14.9 and 14.8 over the first 30
  moves, against 1.47M and 1.34M to 20.9 and 19.5 with no load (seed-7/L1450).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from lab.busy_load import busy_load
from lab.calibration.anchors import choose_anchors
from lab.calibration.config import Calibration, CalibrationError
from lab.calibration.criteria import (
    LadderPair,
    Measurement,
    agree,
    anchor_gap_se,
    anchor_shares,
    replication_line,
    robustness_line,
    transitivity_line,
)
from lab.calibration.measure import (
    MISSING,
    anchor_stages,
    decided_games,
    fit_folders,
    fitted_measurements,
    play_stage,
    split_halves,
)
from lab.calibration.outcome import RoundResult
from lab.ratings import RatingTable
from lab.ratings.models import OrdoModel


def level_measurements(cal: Calibration, games: pd.DataFrame,
                       levels: list[int]) -> list[Measurement]:
    """Each level's rating and 95 % half-width from `games` alone, anchors fixed (missing for a
    level without games, with only a bound, or not tied to the anchors)."""
    try:
        fitted = None if games.empty else fit_folders(cal, [], games, force=True)
    except CalibrationError:
        fitted = None
    return [MISSING for _ in levels] if fitted is None else fitted_measurements(cal, fitted, levels)


def replication(cal: Calibration, levels: list[int], folders: list[Path],
                extrapolated: list[str]) -> tuple[tuple[str, bool, str], list[bool]]:
    """(R) from the two halves of the round's anchor games: the verdict line over the levels not
    `extrapolated` (criterion G: those are judged by nothing), and per level whether its two
    measurements agree (a level that does not, does not count; an extrapolated one is True)."""
    first, second = (level_measurements(cal, half, levels)
                     for half in split_halves(anchor_stages(folders)))
    k = cal.thresholds.agreement_se
    agreed = [bool(out) or agree(a, b, k)
              for a, b, out in zip(first, second, extrapolated, strict=True)]
    judged = [i for i, out in enumerate(extrapolated) if not out]
    line = replication_line([levels[i] for i in judged], [first[i] for i in judged],
                            [second[i] for i in judged], k)
    return line, agreed


def level_shares(cal: Calibration, placed: RatingTable, level: int) -> dict[str, float]:
    """How the level's placement moves with each anchor's rating (`criteria.anchor_shares`),
    from its games against the anchors in the placement fit (Ordo's expectancy, the model
    `fit_folders` fits)."""
    h2h = placed.head_to_head
    met = h2h[(h2h["player"] == cal.level_name(level)) & h2h["opponent"].isin(list(cal.ratings))]
    expected = OrdoModel().expectancy(met["diff"].to_numpy(dtype=float))
    return anchor_shares(list(zip(met["opponent"], expected, met["games"], strict=True)))


def transitivity(cal: Calibration, result: RoundResult) -> tuple[str, bool, str]:
    """(E) from the levels' placement (`result.ratings`, their anchor games) and the ladder's
    head-to-head scores (`result.with_ladder`: no pair without a ladder); each pair's gap
    carries the anchors' own rating errors (`cal.anchor_cov`) as far as the two levels lean
    on different anchors."""
    rated = dict(zip(result.levels, fitted_measurements(cal, result.ratings, result.levels),
                     strict=True))
    shares = {level: level_shares(cal, result.ratings, level) for level in result.levels}
    h2h = result.ladder_scores()
    pairs = []
    for low, high in zip(result.levels[:-1], result.levels[1:], strict=True):
        key = (cal.level_name(high), cal.level_name(low))
        if key in h2h.index:
            row = h2h.loc[key]
            gap_se = anchor_gap_se(shares[low], shares[high], cal.anchor_cov)
            pairs.append(LadderPair(f"{key[0]}-{key[1]}", rated[low], rated[high],
                                    float(row["score"]) / 100.0, int(row["games"]), gap_se))
    return transitivity_line(pairs, cal.thresholds.agreement_se, cal.head_to_head)


@dataclass(frozen=True)
class Variant:
    """One robustness variant: another time control, another `Seed` or a busy load (the
    calibration's own where None or 0)."""

    name: str
    tc: str | None = None
    seed: int | None = None
    load: int = 0


def variants(cal: Calibration) -> list[Variant]:
    """The robustness variants, in the order they are played."""
    return ([Variant(f"tc-{tc}", tc=tc) for tc in cal.robust_tcs]
            + [Variant(f"seed-{seed}", seed=seed) for seed in cal.robust_seeds]
            + [Variant(f"load-{load}", load=load) for load in cal.robust_loads])


def load_cpus() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The CPUs of a load variant: the first this process may use for the level and the busy
    processes, the others for the anchors. `CalibrationError` with one CPU: the load could not
    then fall on the level alone."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        raise CalibrationError(f"the robustness 'loads' need two CPUs (one for the level and "
                               f"the busy processes, one for its anchors); this process may "
                               f"run on CPU {usable} only")
    return (usable[0],), tuple(usable[1:])


def robustness(cal: Calibration, result: RoundResult, level_tables: dict[int, dict[str, Any]],
               stream: TextIO | None = None) -> tuple[str, bool, str]:
    """(F): play the robustness stages of this round's levels and compare their fits."""
    measured = result.measured.set_index("nominal")
    levels = [lv for lv in cal.robust_levels if lv in result.levels
              and math.isfinite(measured.loc[lv, "measured"])]
    if cal.robust_levels and not levels:
        return ("F robustness", False, f"robustness levels {cal.robust_levels} have no "
                f"measurement in round {result.number}: nothing to compare")
    checks = []
    tables = {a.name: a.table for a in cal.anchors}
    for variant in variants(cal):
        folders = []
        for level in levels:
            base = float(measured.loc[level, "measured"])
            opponents = choose_anchors([base], cal.opponent_ratings, *cal.score_window,
                                       cal.max_anchors)[0]
            table = dict(level_tables[level])
            if variant.seed is not None:
                table["options"] = dict(table.get("options", {}), Seed=variant.seed)
            players = [(cal.level_name(level), table)] + [(o, tables[o]) for o in opponents]
            ours: tuple[int, ...] = ()
            concurrency = None
            if variant.load:
                ours, theirs = load_cpus()
                players = [(name, dict(t, cpus=list(ours if i == 0 else theirs)))
                           for i, (name, t) in enumerate(players)]
                concurrency = 1
            folder = result.folder / "robustness" / variant.name / cal.level_name(level)
            with busy_load(variant.load, ours):
                folders.append(play_stage(
                    cal, f"r{result.number}-{variant.name}-{cal.level_name(level)}", players,
                    [cal.level_name(level)], cal.robust_games, folder, stream, variant.tc,
                    concurrency))
        again = level_measurements(cal, decided_games(folders), levels)
        for level, other in zip(levels, again, strict=True):
            base = Measurement(float(measured.loc[level, "measured"]),
                               float(measured.loc[level, "halfwidth"]))
            checks.append((variant.name, float(level), base, other))
    return robustness_line(checks, cal.thresholds.agreement_se)
