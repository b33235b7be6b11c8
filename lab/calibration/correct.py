"""The correction step: from measured levels to the parameters that produce each target Elo.

Pure arithmetic. A calibration measures, for each nominal level, the Elo it really plays at
(`measured`) and knows the parameters it played with (`params`, one value per column and level).
Read backwards, that is a curve "measured Elo -> parameters": the parameters that produce a target
Elo T are that curve evaluated at T. The curve is interpolated monotonically in measured-Elo space
(docs/reference/elo_limit.md §6: "treat any formula only as the initial guess ... the lab produces
the
table"): first the measurements are made non-decreasing in the nominal level by weighted isotonic
regression (noise can swap two close levels), levels that come out tied are merged, then each
parameter is interpolated with scipy's PCHIP, which keeps a monotone column monotone and never
overshoots between points. Search speed (NPS) spans orders of magnitude and is interpolated in
log space, as the engine's own table interpolation does (engine/strength/table.py).

Targets outside the measured range cannot be produced by these parameters: they are returned as
extrapolated (below the weakest or above the strongest measured level), not invented.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.interpolate import PchipInterpolator
from scipy.optimize import isotonic_regression

#: Parameter columns interpolated in log space (they grow geometrically with strength).
LOG_COLUMNS = frozenset({"NPS"})


@dataclass
class Correction:
    """The corrected parameters at each reachable target, and the targets left out.

    `rows` maps a target Elo to its parameters (column -> value, floats; callers round integer
    columns). `below` and `above` list targets outside the measured range (weaker than the
    weakest level can play, stronger than the strongest). `monotone` holds the measurements after
    isotonic regression, in level order, and `adjusted` is True when that changed anything.
    """

    rows: dict[int, dict[str, float]] = field(default_factory=dict)
    below: list[int] = field(default_factory=list)
    above: list[int] = field(default_factory=list)
    monotone: list[float] = field(default_factory=list)
    adjusted: bool = False


def monotone_measurements(measured: Sequence[float], weights: Sequence[float] | None = None
                          ) -> np.ndarray:
    """Measured Elo made non-decreasing in level order (weighted isotonic regression).

    With errors e_i, weights 1/e_i^2 let a precise measurement move less than a noisy one.
    """
    y = np.asarray(measured, dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)
    return np.asarray(isotonic_regression(y, weights=w, increasing=True).x)


def correct_table(
    measured: Sequence[float],
    params: Mapping[str, Sequence[float]],
    targets: Sequence[int],
    errors: Sequence[float] | None = None,
) -> Correction:
    """Parameters for each target Elo, by monotone interpolation in measured-Elo space.

    `measured[i]` is level i's measured Elo (levels in increasing nominal order) and
    `params[column][i]` the value of `column` it played with; `errors` (95 % half-widths, or
    any consistent scale) weight the isotonic step. A target inside the measured range gets
    each column interpolated with PCHIP through (measured Elo, value) points; levels that share
    a measured value after the isotonic step are merged (their values averaged, in log space
    for `LOG_COLUMNS`).
    """
    n = len(measured)
    if n < 2:
        raise ValueError("a correction needs at least two measured levels")
    for column, values in params.items():
        if len(values) != n:
            raise ValueError(f"column {column!r} has {len(values)} values for {n} levels")
        if column in LOG_COLUMNS and min(values) <= 0:
            raise ValueError(f"column {column!r} must be positive (interpolated in log space)")
    if not all(math.isfinite(m) for m in measured):
        raise ValueError("measured Elo values must be finite")
    weights = None
    if errors is not None:
        if len(errors) != n:
            raise ValueError(f"{len(errors)} errors for {n} levels")
        weights = [1.0 / max(float(e), 1.0) ** 2 if math.isfinite(e) else 1e-6 for e in errors]
    mono = monotone_measurements(measured, weights)
    result = Correction(monotone=[float(m) for m in mono],
                        adjusted=bool(np.any(np.abs(mono - np.asarray(measured)) > 1e-9)))

    xs, groups = np.unique(np.round(mono, 9), return_inverse=True)
    if len(xs) < 2:
        raise ValueError("every level measured the same Elo: nothing to interpolate")
    curves = {}
    for column, values in params.items():
        v = np.asarray(values, dtype=float)
        if column in LOG_COLUMNS:
            v = np.log(v)
        merged = np.array([v[groups == g].mean() for g in range(len(xs))])
        curves[column] = PchipInterpolator(xs, merged, extrapolate=False)

    for target in targets:
        if target < xs[0] - 1e-9:
            result.below.append(int(target))
        elif target > xs[-1] + 1e-9:
            result.above.append(int(target))
        else:
            t = float(np.clip(target, xs[0], xs[-1]))
            row = {}
            for column, curve in curves.items():
                value = float(curve(t))
                row[column] = math.exp(value) if column in LOG_COLUMNS else value
            result.rows[int(target)] = row
    return result
