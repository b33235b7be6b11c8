"""Texel's tuning method: the sigmoid scale K first, then the weights.

CPW, "Texel's Tuning Method": with q_i the quiet evaluation of position i (White's view, in
centipawns) and R_i its game's result for White, minimise
E = 1/N * sum (R_i - Sigmoid(q_i))^2 with Sigmoid(q) = 1 / (1 + 10^(-K q / 400)). K is fitted
once on the current weights and then held, so the weights cannot trade scale with it. The
evaluation is linear in the weights (q = c + X w, `lab.tune.features`), so the gradient is
exact and vectorised: dE/dw = 2/N * X^T [(S - R) S (1 - S) K ln(10) / 400]; SciPy's L-BFGS-B
minimises it (Texel's original used a local search one weight at a time; a gradient method
over all weights at once is the usual faster variant). An optional ridge term
ridge * sum (w - w0)^2 keeps rarely seen weights near their start. Whole games can be held out
(`holdout_mask`): the error on their positions, before and after, says whether the fit carries
over to games it has not seen or only learnt the ones it was given.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from lab.tune.features import FeatureSet

WEIGHT_LIMIT = 5000
"""Largest weight half the engine reads from a weights file (`engine.eval_weights`)."""
SCALE_BOUNDS = (0.05, 10.0)
"""Where K is searched: K = 1 means an advantage of 400 cp scores 10:1."""


def sigmoid(values: np.ndarray, k: float) -> np.ndarray:
    """Expected score for White of evaluations `values` (centipawns, White's view)."""
    import numpy as np

    return 1.0 / (1.0 + np.power(10.0, -k * values / 400.0))


def mean_squared_error(values: np.ndarray, results: np.ndarray, k: float) -> float:
    """Texel's E: mean squared difference between results and expected scores."""
    import numpy as np

    return float(np.mean((results - sigmoid(values, k)) ** 2))


def fit_scale(values: np.ndarray, results: np.ndarray) -> float:
    """The K minimising E for fixed evaluations `values`."""
    from scipy.optimize import minimize_scalar

    found = minimize_scalar(lambda k: mean_squared_error(values, results, k),
                            bounds=SCALE_BOUNDS, method="bounded", options={"xatol": 1e-6})
    return float(found.x)


@dataclass
class Fit:
    """Fitted weights (in the feature set's column order) and how the fit went."""

    weights: np.ndarray
    k: float
    error_before: float
    error_after: float
    tuned: list[str]
    iterations: int
    message: str


def holdout_mask(game_ids: Sequence[str], fraction: float, seed: int = 1) -> np.ndarray:
    """True for the rows of the held-out games: round(`fraction` x games) whole games drawn at
    random (seeded). Whole games, since a game's positions share its result: a position held
    out beside its neighbours in the fit would not test anything."""
    import numpy as np

    games = sorted(set(game_ids))
    held = set(random.Random(seed).sample(games, round(fraction * len(games))))
    return np.array([game in held for game in game_ids], dtype=bool)


def tunable_columns(features: FeatureSet, min_positions: int) -> np.ndarray:
    """Indices of the weight halves that at least `min_positions` positions depend on."""
    import numpy as np

    counts = np.diff(features.matrix.tocsc().indptr)
    return np.flatnonzero(counts >= min_positions)


def fit_weights(features: FeatureSet, k: float | None = None, min_positions: int = 20,
                ridge: float = 0.0, only: Sequence[str] = ()) -> Fit:
    """Texel-fit the weights of `features` (K fitted first unless given), rounded to whole
    centipawns; `error_after` is that of the rounded weights. With `only` (shell patterns on the
    weight names, as `material.*`), the other weights stay as they are: fewer free weights need
    fewer games to fit without learning the games. The error changes by about 1e-6 per centipawn
    of a weight that only imbalanced positions use (material), so L-BFGS-B's default tolerances
    stopped such a fit after its first step; ftol 1e-14 and gtol 1e-10 let it converge."""
    import fnmatch

    import numpy as np
    from scipy.optimize import minimize

    start = features.weights
    results = features.results
    n = len(results)
    if n == 0:
        raise ValueError("no quiet positions to fit")
    k = fit_scale(features.values(start), results) if k is None else k
    free = tunable_columns(features, min_positions)
    if only:
        free = np.array([i for i in free if any(
            fnmatch.fnmatchcase(features.keys[i].rsplit(".", 1)[0], pattern) for pattern in only)],
            dtype=int)
    if not len(free):
        raise ValueError(f"no weight is used by {min_positions} positions or more"
                         + (f" among those matching {', '.join(only)}" if only else ""))
    matrix = features.matrix[:, free].tocsr()
    fixed = features.constant + features.matrix @ start - matrix @ start[free]
    slope = k * math.log(10.0) / 400.0

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        s = sigmoid(fixed + matrix @ x, k)
        residual = s - results
        change = x - start[free]
        error = float(residual @ residual) / n + ridge * float(change @ change)
        gradient = (2.0 / n) * (matrix.T @ (residual * s * (1.0 - s) * slope)) \
            + 2.0 * ridge * change
        return error, gradient

    bounds = [(1.0 if features.keys[i].startswith("material.") else -WEIGHT_LIMIT,
               WEIGHT_LIMIT) for i in free]
    found = minimize(objective, start[free].copy(), jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"maxiter": 2000, "ftol": 1e-14, "gtol": 1e-10})
    weights = start.copy()
    weights[free] = np.round(found.x)  # the engine's weights are whole centipawns
    return Fit(weights, k, mean_squared_error(features.values(start), results, k),
               mean_squared_error(features.values(weights), results, k),
               [features.keys[i] for i in free], int(found.nit), str(found.message))


def largest_changes(keys: Sequence[str], before: np.ndarray, after: np.ndarray,
                    count: int = 10) -> list[tuple[str, float, float]]:
    """The `count` weight halves that moved the most, as (key, before, after), largest first
    (ties in key order): what a fit changed, for a reader to judge at a glance."""
    import numpy as np

    moved = np.abs(np.asarray(after, dtype=float) - np.asarray(before, dtype=float))
    order = sorted((i for i in range(len(keys)) if moved[i] > 0),
                   key=lambda i: (-moved[i], keys[i]))
    return [(keys[i], float(before[i]), float(after[i])) for i in order[:count]]
