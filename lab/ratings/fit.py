"""Maximum-likelihood ratings with anchors, bounds for perfect scores and error bars.

Newton's method on the log-likelihood summed over condensed pairings (one row per ordered
pairing, not per game), so the cost depends on the number of pairings and players, not games.
Anchoring, the perfect-score purge, the connectivity check, the simulated error bars and CFS
follow Ordo (reference §5.1); the virtual-draw prior and the draw band follow BayesElo (§5.2).

"reference §5.x" is §5.x of docs/reference/harness_and_stats.md (Ordo §5.1, BayesElo §5.2).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lab.ratings.models import (
    BAYESELO_DRAWELO,
    ORDO_SCALE,
    BayesEloModel,
    OrdoModel,
    draw_probability,
)
from lab.ratings.options import FitOptions
from lab.ratings.pool import (
    Pool,
    condense,
    last_purged,
    purge_perfect,
    score_groups,
    soften_perfect,
    with_bayeselo_prior,
)
from lab.ratings.table import RatingTable, superiority

if TYPE_CHECKING:
    import pandas as pd

#: A fitted parameter this far (rating points) from the others means the maximum is at infinity.
RUNAWAY = 10_000.0


class DisconnectedPoolError(ValueError):
    """The results do not tie all players together; `groups` lists the separate groups."""

    def __init__(self, groups: list[list[str]]):
        self.groups = groups
        listing = "; ".join(f"group {k + 1}: {', '.join(g)}" for k, g in enumerate(groups))
        super().__init__(
            f"the pool is not connected: {len(groups)} groups have no results both ways between "
            f"them, so their relative ratings are undetermined ({listing}). Add games between "
            "the groups, or force the fit (each group then gets its own average)."
        )


@dataclass
class FitSpec:
    """What to fit: the model and how ratings, colours and draws are pinned (see `fit_ratings`)."""

    model: OrdoModel | BayesEloModel
    fixed: dict[int, float]
    loose: dict[int, tuple[float, float]]
    average: float
    white: float | None  # None: fitted
    draw: float | None  # None: fitted (Ordo: D_eq; BayesElo: drawelo)
    prior: float
    force: bool


@dataclass
class CoreFit:
    """One fit in the model's own units: ratings (NaN when unrated) and the curvature covariance."""

    ratings: np.ndarray
    bound: list[str]
    white: float
    draw: float  # Ordo: D_eq; BayesElo: drawelo
    cov: np.ndarray  # over players, then white, then draw; zero where fixed
    groups: list[list[int]]
    draw_fitted: bool


# --- Likelihood and its derivatives -------------------------------------------------------------


def _outer(pool: Pool, h_tt, h_td=None, h_dd=None) -> np.ndarray:
    """Σ_rows h_tt·a aᵀ (+ the draw terms), a = e_white − e_black + e_adv, as a dense matrix."""
    n = pool.n
    size = n + 2
    w, b = pool.white, pool.black
    adv, dr = np.full(len(w), n), np.full(len(w), n + 1)
    rows = [w, b, adv, w, b, w, adv, b, adv]
    cols = [w, b, adv, b, w, adv, w, adv, b]
    signs = [1, 1, 1, -1, -1, 1, 1, -1, -1]
    vals = [s * h_tt for s in signs]
    if h_td is not None:
        rows += [w, dr, b, dr, adv, dr, dr[:1]]
        cols += [dr, w, dr, b, dr, adv, dr[:1]]
        vals += [h_td, h_td, -h_td, -h_td, h_td, h_td, np.array([np.sum(h_dd)])]
    flat = np.concatenate(rows) * size + np.concatenate(cols)
    total = np.bincount(flat, np.concatenate(vals), size * size)
    return total.astype(float).reshape(size, size)  # bincount gives ints when there are no rows


def _evaluate(pool: Pool, spec: FitSpec, theta: np.ndarray, hessian: bool = True):
    """Objective (log-likelihood + log-prior), gradient and Hessian at θ = (ratings, adv, draw)."""
    n = pool.n
    r, adv, draw = theta[:n], theta[n], theta[n + 1]
    delta = r[pool.white] - r[pool.black] + adv
    t = spec.model.terms(delta, draw, pool.wins, pool.draws, pool.losses)
    value = float(np.sum(t.loglik))
    grad = np.zeros(n + 2)
    grad[:n] = np.bincount(pool.white, t.d_delta, n) - np.bincount(pool.black, t.d_delta, n)
    grad[n] = np.sum(t.d_delta)
    if t.d_draw is not None:
        grad[n + 1] = np.sum(t.d_draw)
    for i, (mean, sd) in spec.loose.items():
        value -= (r[i] - mean) ** 2 / (2 * sd * sd)
        grad[i] -= (r[i] - mean) / (sd * sd)
    if not hessian:
        return value, grad, None
    hess = _outer(pool, t.dd_delta, t.dd_delta_draw, t.dd_draw)
    for i, (_, sd) in spec.loose.items():
        hess[i, i] -= 1.0 / (sd * sd)
    return value, grad, hess


def _maximise(pool: Pool, spec: FitSpec, theta: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Newton's method with a backtracking line search on the free entries of θ.

    Both log-likelihoods are concave in (ratings, advantage[, drawelo]), so this converges from
    any start where the objective is finite, unless the maximum lies at infinity: then a
    parameter runs past `RUNAWAY` points and a ValueError says so.
    """
    from scipy.linalg import LinAlgError, LinAlgWarning, solve

    idx = np.flatnonzero(free)
    if len(idx) == 0:
        return theta
    value, grad, hess = _evaluate(pool, spec, theta)
    for _ in range(200):
        g = grad[idx]
        neg_h = -hess[np.ix_(idx, idx)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", LinAlgWarning)
                step = solve(neg_h, g, assume_a="pos")
        except (LinAlgError, LinAlgWarning, ValueError):
            step = np.linalg.lstsq(neg_h, g, rcond=None)[0]
        decrement = float(g @ step)  # Newton decrement²: twice the expected gain
        if decrement <= 0.0:
            break
        size = 1.0
        while size > 1e-12:
            trial = theta.copy()
            trial[idx] += size * step
            ok = not (free[pool.n + 1] and trial[pool.n + 1] <= 0)  # drawelo > 0
            new = _evaluate(pool, spec, trial, hessian=False)[0] if ok else -math.inf
            if new >= value + 1e-4 * size * decrement:
                break
            size /= 2
        else:
            break  # no ascent left along Newton's direction: at the maximum to rounding
        theta = trial
        ratings = theta[idx[idx < pool.n]]
        spread = float(np.ptp(ratings)) if len(ratings) else 0.0
        if max(spread, abs(theta[pool.n]), abs(theta[pool.n + 1])) > RUNAWAY:
            raise ValueError(
                f"the {spec.model.name} fit has no finite maximum on these results (a rating, "
                "the white advantage or drawelo runs off): fix the draw rate or the white "
                "advantage, or add games"
            )
        if decrement < 1e-14:
            break  # that full Newton step landed on the maximum (quadratic convergence)
        value, grad, hess = _evaluate(pool, spec, theta)
    return theta


# --- One fit ------------------------------------------------------------------------------------


def _free_params(spec: FitSpec) -> tuple[bool, bool]:
    fit_white = spec.white is None
    fit_draw = spec.draw is None and spec.model.has_draw_param
    return fit_white, fit_draw


def _fit_core(real: Pool, spec: FitSpec) -> CoreFit:
    """Purge perfect scores, check connectivity, fit, bound the purged, and take the curvature."""
    n = real.n
    model = spec.model
    pool = with_bayeselo_prior(real, spec.prior) if spec.prior > 0 and n > 1 else real
    pinned = np.zeros(n, dtype=bool)
    pinned[list(spec.fixed) + list(spec.loose)] = True
    played = real.played() > 0
    purged = purge_perfect(pool, pinned | ~played)
    core = played.copy()
    core[[i for i, _, _ in purged]] = False
    # Where the purge empties a part of the pool, nobody is left to bound against: the last
    # players purged there are fitted together on Ordo's bound rule (one win or loss each a draw)
    # and centred like any group; the earlier purged are bounded against them in turn.
    seeds = last_purged(pool, core, purged)
    base = soften_perfect(pool, seeds) if seeds else pool
    core[seeds] = True
    groups = score_groups(base, core, pinned)
    if len(groups) > 1 and not spec.force:
        raise DisconnectedPoolError([[real.players[i] for i in g] for g in groups])
    group_of = np.full(n, -1)
    for k, g in enumerate(groups):
        group_of[g] = k
    inside = (group_of[pool.white] >= 0) & (group_of[pool.white] == group_of[pool.black])
    fit_pool = base.subset(inside)
    drawn = float(pool.draws[inside].sum())  # the softened games are no evidence of draws

    fit_white, fit_draw = _free_params(spec)
    if fit_draw and fit_pool.wins.sum() + fit_pool.losses.sum() == 0:
        raise ValueError("BayesElo's drawelo cannot be fitted without a decisive game: "
                         "give the draw rate")
    if fit_draw and drawn == 0:
        fit_draw = False  # without draws the likelihood is highest at drawelo = 0
        if purged:
            raise ValueError(
                "BayesElo bounds a perfect score by the rating it would have had one win (loss) "
                "been a draw, and drawelo = 0 (no draw in the results) makes a draw impossible: "
                "give the draw rate, or keep the virtual-draw prior"
            )
    start = np.mean(list(spec.fixed.values()) + [m for m, _ in spec.loose.values()] or [0.0])
    theta = np.full(n + 2, float(start))
    theta[n] = model.start_white if fit_white else spec.white or 0.0
    theta[n + 1] = BAYESELO_DRAWELO if fit_draw else (spec.draw or 0.0)
    for i, value in spec.fixed.items():
        theta[i] = value
    for i, (mean, _) in spec.loose.items():
        theta[i] = mean
    free = np.zeros(n + 2, dtype=bool)
    free[:n] = core & ~np.isin(np.arange(n), list(spec.fixed))
    gauge = [g[0] for g in groups if not pinned[g].any()]
    free[gauge] = False
    free[n], free[n + 1] = fit_white, fit_draw
    theta = _maximise(fit_pool, spec, theta, free)

    delta = theta[fit_pool.white] - theta[fit_pool.black] + theta[n]
    if spec.draw is None:
        after = model.draw_after_fit(delta, fit_pool.games, drawn)
        if after is not None:
            theta[n + 1] = after
    # Curvature: cov = H⁻¹ J H⁻¹ (sandwich), J from the model's information weights (None: J = H).
    _, _, hess = _evaluate(fit_pool, spec, theta)
    idx = np.flatnonzero(free)
    cov = np.zeros((n + 2, n + 2))
    if len(idx):
        neg_h = -hess[np.ix_(idx, idx)]
        if np.linalg.cond(neg_h) > 1e12:
            raise ValueError(
                "the white advantage or drawelo cannot be determined from these results (colours "
                "unbalanced, or too few decisive games): give its value instead of fitting it"
            )
        h_inv = np.linalg.inv(neg_h)
        weights = model.information_weights(delta, theta[n + 1], fit_pool.games)
        if weights is None:
            cov[np.ix_(idx, idx)] = h_inv
        else:
            info = _outer(fit_pool, weights)
            for i, (_, sd) in spec.loose.items():
                info[i, i] += 1.0 / (sd * sd)
            cov[np.ix_(idx, idx)] = h_inv @ info[np.ix_(idx, idx)] @ h_inv

    ratings = np.full(n, np.nan)
    ratings[core] = theta[:n][core]
    # Unpinned groups: centre each on the pool average (centring the covariance alike).
    for g in groups:
        if pinned[g].any():
            continue
        ratings[g] += spec.average - ratings[g].mean()
        centre = np.eye(n + 2)
        centre[np.ix_(g, g)] -= 1.0 / len(g)
        cov = centre @ cov @ centre.T
    bound = [""] * n
    for i, mark, _ in reversed(purged):
        if i not in seeds:
            ratings[i] = _bound(pool, spec, theta, ratings, i, mark)
        bound[i] = mark
    return CoreFit(ratings, bound, float(theta[n]), float(theta[n + 1]), cov, groups,
                   model.draw_is_fitted(spec.draw is None, fit_draw))


def _bound(pool: Pool, spec: FitSpec, theta, ratings, player: int, mark: str) -> float:
    """Ordo's bound for a perfect score: the rating if one win (loss) had been a draw."""
    n = pool.n
    other = np.where(pool.white == player, pool.black, pool.white)
    rows = ((pool.white == player) | (pool.black == player)) & ~np.isnan(ratings[other])
    if not rows.any():
        return math.nan
    sub = pool.subset(rows)
    wins, draws, losses = sub.wins.copy(), sub.draws.copy(), sub.losses.copy()
    as_white = sub.white == player
    mine_won = np.where(as_white, wins, losses) if mark == ">" else np.where(as_white, losses, wins)
    k = int(np.argmax(mine_won))
    target = wins if as_white[k] == (mark == ">") else losses
    target[k] -= 1
    draws[k] += 1
    sub = Pool(pool.players, sub.white, sub.black, wins, draws, losses)
    trial = theta.copy()
    trial[:n] = np.nan_to_num(ratings)
    trial[player] = float(np.nanmean(ratings[np.unique(other[rows])]))
    free = np.zeros(n + 2, dtype=bool)
    free[player] = True
    loose = {i: v for i, v in spec.loose.items() if i == player}
    solo = FitSpec(spec.model, {}, loose, spec.average, spec.white, spec.draw, 0.0, True)
    return float(_maximise(sub, solo, trial, free)[player])


# --- Units, simulations, tables -----------------------------------------------------------------


def _scaled(fit: CoreFit, spec: FitSpec, k: float) -> np.ndarray:
    """Ratings in output units: differences from the reference (anchor or average) times k."""
    if k == 1.0:
        return fit.ratings
    ref = next(iter(spec.fixed.values()), spec.average)
    return ref + k * (fit.ratings - ref)


def _simulate(real: Pool, spec: FitSpec, fit: CoreFit, runs: int, rng, units) -> np.ndarray:
    """Ordo's `-s`: redraw every game from the fitted model, refit; ratings per run (+ adv, draw).

    Loose anchors are redrawn from their own distributions too. A run whose results cannot be
    fitted (say, no decisive game for BayesElo's drawelo) stays NaN.
    """
    n = real.n
    rated = ~np.isnan(fit.ratings)
    rows = rated[real.white] & rated[real.black]
    pool = real.subset(rows)
    delta = fit.ratings[pool.white] - fit.ratings[pool.black] + fit.white
    probs = spec.model.probabilities(delta, fit.draw)
    probs /= probs.sum(axis=1, keepdims=True)
    out = np.full((runs, n + 2), np.nan)
    for run in range(runs):
        counts = rng.multinomial(pool.games.astype(np.int64), probs).astype(float)
        sample = Pool(real.players, pool.white, pool.black, counts[:, 0], counts[:, 1],
                      counts[:, 2])
        loose = {i: (rng.normal(m, s), s) for i, (m, s) in spec.loose.items()}
        sim_spec = FitSpec(spec.model, spec.fixed, loose, spec.average, spec.white, spec.draw,
                           spec.prior, True)
        try:
            sim = _fit_core(sample, sim_spec)
        except ValueError:
            continue
        out[run, :n] = _scaled(sim, sim_spec, spec.model.output_scale(sim.draw, units))
        out[run, n], out[run, n + 1] = sim.white, sim.draw
    return out


# --- The public entry point ---------------------------------------------------------------------


def fit_ratings(
    games: pd.DataFrame | Pool,
    model: str = "ordo",
    *,
    anchors: Mapping[str, float] | None = None,
    loose_anchors: Mapping[str, tuple[float, float]] | None = None,
    average: float | None = None,
    scale: float = ORDO_SCALE,
    white: float | str | None = None,
    draw: float | str = "auto",
    prior: float = 2.0,
    bayeselo_units: float | str = "auto",
    simulations: int = 0,
    confidence: float = 0.95,
    relative_to: str = "anchor",
    force: bool = False,
    seed: int | None = None,
) -> RatingTable:
    """Fit ratings to games (columns `white`, `black`, `result`) and return the table.

    `model`: "ordo" (logistic, draws as half points, `scale` Elo for 76 %) or "bayeselo"
    (Bradley–Terry with a draw band, `prior` virtual draws per player, ratings multiplied by
    BayesElo's scale unless `bayeselo_units` is a number, 1 for raw BayesElo units).
    Anchoring: `anchors` pins players (name → rating); `loose_anchors` gives name → (rating, sd)
    Gaussian priors (Ordo's `-y`); with neither, the pool average is `average` (default: Ordo's
    2300, BayesElo's 0). `white`: "auto" fits the white advantage, a number fixes it (default:
    Ordo 0, BayesElo fitted). `draw`: "auto" fits the draw rate between equal opponents, a number
    in (0, 1) fixes it. Errors: `confidence` intervals from the curvature of the likelihood, or
    from `simulations` refits on results redrawn from the fitted model; relative to the anchors
    (or pool average), or to the pool average with `relative_to="pool"`. A pool whose groups are
    not tied together raises `DisconnectedPoolError` unless `force`.
    """
    options = FitOptions.check(
        model, anchors=anchors, loose_anchors=loose_anchors, average=average, scale=scale,
        white=white, draw=draw, prior=prior, bayeselo_units=bayeselo_units,
        simulations=simulations, confidence=confidence, relative_to=relative_to, force=force,
        seed=seed)
    pool = games if isinstance(games, Pool) else condense(games)
    return fit_pool(pool, options)


def fit_pool(pool: Pool, options: FitOptions) -> RatingTable:
    """`fit_ratings` on condensed results with checked options."""
    if pool.n == 0:
        raise ValueError("no decided games (1-0, 0-1, 1/2-1/2) to fit")
    index = {name: i for i, name in enumerate(pool.players)}

    def player(name: str) -> int:
        if name not in index:
            raise ValueError(f"anchor {name!r} has no decided game in the input")
        return index[name]

    fixed = {player(k): v for k, v in options.anchors.items()}
    loose = {player(k): v for k, v in options.loose_anchors.items()}
    spec = FitSpec(options.model, fixed, loose, options.average, options.white, options.draw,
                   options.prior, options.force)
    bayeselo_units, simulations = options.bayeselo_units, options.simulations
    relative_to, confidence = options.relative_to, options.confidence
    fit = _fit_core(pool, spec)
    k = spec.model.output_scale(fit.draw, bayeselo_units)
    ratings = _scaled(fit, spec, k)
    n = pool.n
    cov = fit.cov * np.outer(np.r_[np.full(n, k), 1.0, 1.0], np.r_[np.full(n, k), 1.0, 1.0])
    rng = np.random.default_rng(options.seed)
    if simulations > 1:
        sims = _simulate(pool, spec, fit, simulations, rng, bayeselo_units)
        import pandas as pd

        cov = pd.DataFrame(sims).cov().to_numpy(copy=True)  # pairwise: runs that rated both
        source = f"spread of {simulations} simulations"
    else:
        source = "curvature of the likelihood"
    rated = np.r_[~np.isnan(ratings) & np.array([b == "" for b in fit.bound]), True, True]
    if (relative_to == "pool" or not (fixed or loose)) and rated[:n].any():
        centre = np.eye(n + 2)
        centre[np.ix_(rated[:n], rated[:n])] -= 1.0 / rated[:n].sum()
        cov = centre @ cov @ centre.T
    cov[~rated, :] = np.nan
    cov[:, ~rated] = np.nan
    errors = _Errors(cov, confidence, source, relative_to, simulated=simulations > 1)
    return _table(pool, spec, fit, ratings, errors, k)


@dataclass
class _Errors:
    """The covariance of (ratings, advantage, draw) and how it was obtained."""

    cov: np.ndarray
    confidence: float
    source: str
    relative_to: str
    simulated: bool


def _table(pool: Pool, spec: FitSpec, fit: CoreFit, ratings: np.ndarray, errors: _Errors,
           k: float) -> RatingTable:
    from scipy.special import ndtri

    n = pool.n
    cov, confidence, relative_to = errors.cov, errors.confidence, errors.relative_to
    z = float(ndtri(0.5 + confidence / 2))
    sd = np.sqrt(np.maximum(np.diag(cov)[:n], 0.0))
    anchored = np.isin(np.arange(n), list(spec.fixed))
    error = np.where(anchored & (relative_to == "anchor"), np.nan, z * sd)
    played, points, drawn = pool.played(), pool.points(), pool.drawn()
    order = np.lexsort((np.array(pool.players), -np.nan_to_num(ratings, nan=-np.inf)))
    cfs_next = list(100 * superiority(ratings, cov[:n, :n], order[:-1], order[1:]))
    cfs_next.append(math.nan)
    standings = {
        "rank": np.arange(1, n + 1),
        "player": [pool.players[i] for i in order],
        "rating": ratings[order],
        "error": error[order],
        "lower": (ratings - error)[order],
        "upper": (ratings + error)[order],
        "bound": [fit.bound[i] for i in order],
        "points": points[order],
        "played": played[order].astype(int),
        "score": 100 * points[order] / played[order],
        "draws": 100 * drawn[order] / played[order],
        "cfs_next": cfs_next,
    }
    var_w, var_d = cov[n, n], cov[n + 1, n + 1]
    white = (fit.white, z * math.sqrt(var_w) if spec.white is None else math.nan)
    if spec.model.has_draw_param:  # drawelo is a parameter of the likelihood
        draw_error = z * math.sqrt(var_d) if fit.draw_fitted else math.nan
    else:  # D_eq is estimated after the ratings, from the draws
        draw_error = z * math.sqrt(var_d) if errors.simulated else _draw_error(pool, spec, fit, z)
    drawelo, draw = spec.model.report_draw(fit.draw, draw_error)
    notes = []
    if k != 1.0:
        notes.append(f"BayesElo ratings multiplied by its scale {k:.4f}; advantage and drawelo "
                     "in BayesElo units.")
    if len(fit.groups) > 1:
        for g_no, g in enumerate(fit.groups, 1):
            notes.append(f"group {g_no} (fitted apart): {', '.join(pool.players[i] for i in g)}")
    groups = [[pool.players[i] for i in g] for g in fit.groups]
    return RatingTable(
        standings, spec.model.name, white, draw, confidence, errors.source,
        "pool average" if relative_to == "pool" or not (spec.fixed or spec.loose) else "anchors",
        pool, ratings, cov[:n, :n], groups, drawelo, notes,
    )


def _draw_error(pool: Pool, spec: FitSpec, fit: CoreFit, z: float) -> float:
    """Error of Ordo's fitted D_eq from its moment equation: sd(draws)/(d E[draws]/d D_eq)."""
    if spec.draw is not None or not 0 < fit.draw < 1:
        return math.nan
    rated = ~np.isnan(fit.ratings)
    sub = pool.subset(rated[pool.white] & rated[pool.black])
    f = spec.model.expectancy(fit.ratings[sub.white] - fit.ratings[sub.black] + fit.white)
    d = draw_probability(f, fit.draw)
    eps = 1e-5 * min(fit.draw, 1 - fit.draw)
    slope = (draw_probability(f, fit.draw + eps) - draw_probability(f, fit.draw - eps)) / (2 * eps)
    return z * math.sqrt(float(np.sum(sub.games * d * (1 - d)))) / float(np.sum(sub.games * slope))
