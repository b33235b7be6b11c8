"""Match statistics: trinomial and pentanomial counts, Elo with error bars, nElo, LOS and the GSPRT.

Pure arithmetic on results. Formulas follow fishtest (`server/fishtest/stats/LLRcalc.py`,
`stat_util.py`) and fastchess (`elo_wdl.cpp`, `elo_pentanomial.cpp`, `sprt.cpp`) as restated in
docs/reference/harness_and_stats.md §4; the section is cited next to each formula.

A trinomial sample is one game (score 0, ½, 1); a pentanomial sample is one game pair (same
opening, colours swapped) whose per-game average score is 0, ¼, ½, ¾ or 1. Counts are lists in
fastchess/fishtest order: trinomial [losses, draws, wins], pentanomial [LL, LD, WL+DD, WD, WW].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from lab.records import RESULT_POINTS

if TYPE_CHECKING:
    import pandas as pd

#: 800/ln 10: nElo per unit of t = (score − ½)/σ_game (§4.3).
NELO_PER_T = 800.0 / math.log(10.0)
#: Zero counts become this before a GSPRT (fishtest `LLRcalc.regularize`, §4.1).
REGULARIZE_EPS = 1e-3
#: Scores are clamped to [ε, 1 − ε] before the Elo transform (fishtest `get_elo`, §4.2).
SCORE_CLAMP = 1e-3
#: Two-sided 95 % normal quantile.
Z95 = NormalDist().inv_cdf(0.975)

def logistic_score(elo: float) -> float:
    """Expected score of a logistic Elo difference: L(x) = 1/(1 + 10^(−x/400)) (§4.1)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Inverse of `logistic_score`: −400·log10(1/μ − 1), μ clamped to [1e-3, 1 − 1e-3] (§4.2)."""
    mu = min(max(score, SCORE_CLAMP), 1.0 - SCORE_CLAMP)
    return 400.0 * math.log10(mu / (1.0 - mu)) + 0.0  # + 0.0: no "-0.00" at an even score


def trinomial(scores: Iterable[float]) -> list[int]:
    """[losses, draws, wins] from per-game scores 0, 0.5 or 1."""
    counts = [0, 0, 0]
    for s in scores:
        k = 2.0 * float(s)
        if k not in (0.0, 1.0, 2.0):
            raise ValueError(f"game score {s!r} is not 0, 0.5 or 1")
        counts[int(k)] += 1
    return counts


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """[LL, LD, WL+DD, WD, WW] from the challenger's total points per game pair (0 … 2 by ½).

    fastchess `scoreboard.hpp` (§2.5): WW = 2 points, WD = 1.5, WL or DD = 1, LD = 0.5, LL = 0.
    """
    counts = [0, 0, 0, 0, 0]
    for s in pair_scores:
        k = 2.0 * float(s)
        if k not in (0.0, 1.0, 2.0, 3.0, 4.0):
            raise ValueError(f"pair score {s!r} is not one of 0, 0.5, 1, 1.5, 2")
        counts[int(k)] += 1
    return counts


def _support(counts: list[float]) -> np.ndarray:
    """Per-game scores of each class: 3 classes → 0, ½, 1; 5 classes → 0, ¼, ½, ¾, 1."""
    if len(counts) not in (3, 5):
        raise ValueError(f"counts must have 3 (trinomial) or 5 (pentanomial) entries: {counts!r}")
    if any(c < 0 for c in counts):
        raise ValueError(f"counts must not be negative: {counts!r}")
    return np.linspace(0.0, 1.0, len(counts))


@dataclass(frozen=True)
class EloEstimate:
    """A logistic Elo difference with its 95 % interval, LOS, draw ratio and normalized Elo.

    `score` is the mean per-game score. `games` counts games; `pairs` counts game pairs (None for
    trinomial counts). For pentanomial counts, `draw_ratio` is the share of pairs in the WL+DD
    class (the counts cannot tell WL from DD), as fastchess reports it.
    """

    elo: float
    lower: float
    upper: float
    los: float
    draw_ratio: float
    nelo: float
    nelo_lower: float
    nelo_upper: float
    score: float
    games: int
    pairs: int | None

    @property
    def error(self) -> float:
        """Half-width of the 95 % Elo interval, as fastchess prints it (§4.2)."""
        return (self.upper - self.lower) / 2.0

    def __str__(self) -> str:
        return (
            f"Elo {self.elo:+.2f} ± {self.error:.2f} (95 %), nElo {self.nelo:+.2f} "
            f"± {(self.nelo_upper - self.nelo_lower) / 2:.2f}, LOS {100 * self.los:.2f} %, "
            f"DrawRatio {100 * self.draw_ratio:.2f} %, games {self.games}"
            + (f", pairs {self.pairs}" if self.pairs is not None else "")
        )


def _moments(a: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    mu = float(np.dot(p, a))
    return mu, float(np.dot(p, (a - mu) ** 2))


def elo_estimate(counts: Iterable[int]) -> EloEstimate:
    """Elo, 95 % interval, LOS, draw ratio and nElo from trinomial or pentanomial counts.

    Elo interval and LOS (§4.2, fastchess/fishtest): μ̂ ± 1.96·σ̂/√N over N samples (games or
    pairs) with σ̂ the per-sample deviation, mapped through Elo(μ); LOS = Φ((μ̂ − ½)/(σ̂/√N)).
    nElo (§4.3): t = (μ̂ − ½)/σ_game with σ_game = σ̂ (trinomial) or √2·σ̂ (pentanomial), scaled by
    800/ln 10; its interval is fishtest's delta method, Var(t̂) ≈ [1 − tγ₁ + t²(γ₂ + 2)/4]/N, with
    t, γ₁ (skewness) and γ₂ (excess kurtosis) of the per-sample distribution.
    Zero cells count as 1e-3 (fishtest `stat_util.get_elo` regularises before estimating), so a
    one-sided or all-draws sample still has a finite interval; no counts give NaN everywhere.
    """
    n = [int(c) for c in counts]
    a = _support(n)
    total = sum(n)
    penta = len(n) == 5
    games = 2 * total if penta else total
    pairs = total if penta else None
    draw_ratio = (n[2] / total if penta else n[1] / total) if total else math.nan
    if total == 0:
        nan = math.nan
        return EloEstimate(nan, nan, nan, nan, nan, nan, nan, nan, nan, 0, pairs)
    reg = np.array([c if c > 0 else REGULARIZE_EPS for c in n])
    size = float(reg.sum())
    p = reg / size
    mu, var = _moments(a, p)
    sigma = math.sqrt(var)
    half = Z95 * sigma / math.sqrt(size)
    elo = score_to_elo(mu)
    lower, upper = score_to_elo(mu - half), score_to_elo(mu + half)
    los = float(NormalDist().cdf((mu - 0.5) / (sigma / math.sqrt(size))))
    t = (mu - 0.5) / sigma  # per sample
    z = (a - mu) / sigma
    skew = float(np.dot(p, z**3))
    exkurt = float(np.dot(p, z**4)) - 3.0
    var_t = max(1.0 - t * skew + t * t * (exkurt + 2.0) / 4.0, 0.0) / size
    per_game = math.sqrt(2.0) if penta else 1.0
    nelo = t / per_game * NELO_PER_T
    nelo_half = Z95 * NELO_PER_T / per_game * math.sqrt(var_t)
    return EloEstimate(
        elo, lower, upper, los, draw_ratio, nelo, nelo - nelo_half, nelo + nelo_half, mu,
        games, pairs,
    )


# --- GSPRT (fishtest LLRcalc, §4.4) -------------------------------------------------------------


def find_root(f: Callable[[float], float], lo: float, hi: float, xtol: float = 2e-12) -> float:
    """A zero of f between lo and hi, where f changes sign: the Illinois variant of false
    position, which keeps the root bracketed like bisection and converges superlinearly.

    fishtest keeps a root finder of its own for its statistics (`server/fishtest/stats/
    brentq.py`) rather than import SciPy; this one keeps `tempo sprt` and `tempo ratings` free
    of scipy.optimize's start-up cost. `xtol` is scipy's `brentq` default.
    """
    f_lo, f_hi = f(lo), f(hi)
    if f_lo == 0.0:
        return lo
    if f_hi == 0.0:
        return hi
    if (f_lo > 0.0) == (f_hi > 0.0):
        raise ValueError(f"no sign change between {lo} and {hi}")
    side = 0
    x = lo
    for _ in range(200):
        x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        if not lo < x < hi:  # rounding at the ends of a tiny bracket
            x = 0.5 * (lo + hi)
        f_x = f(x)
        if f_x == 0.0 or hi - lo <= xtol + 4e-16 * abs(x):
            return x
        if (f_x > 0.0) == (f_lo > 0.0):
            lo, f_lo = x, f_x
            if side == -1:
                f_hi /= 2.0
            side = -1
        else:
            hi, f_hi = x, f_x
            if side == 1:
                f_lo /= 2.0
            side = 1
    return x


def _secular_root(v: np.ndarray, p: np.ndarray) -> float:
    """The θ with Σ p_k v_k/(1 + θ v_k) = 0 on the interval where every 1 + θ v_k > 0.

    The maximum-likelihood distribution closest to p̂ under one linear constraint Σ p_k v_k = 0 is
    p̂_k/(1 + θ v_k) (Lagrange multiplier θ, §4.4); the sum is decreasing in θ.
    """
    lo, hi = float(v.min()), float(v.max())
    if not lo < 0.0 < hi:
        raise ValueError("the hypothesis lies outside the range of the outcomes")
    eps = 1e-9
    terms = list(zip(p.tolist(), v.tolist()))

    def secular(x: float) -> float:
        # Python floats, summed in order as np.sum does below 8 terms: on 3 or 5 values a numpy
        # call costs ten times the arithmetic, and the LLR curve of a page solves thousands.
        total = 0.0
        for pk, vk in terms:
            total += pk * vk / (1.0 + x * vk)
        return total

    return find_root(secular, -1.0 / hi + eps, -1.0 / lo - eps)


def _mle_logistic(a: np.ndarray, p: np.ndarray, score: float) -> np.ndarray:
    """The ML distribution on support `a` nearest p̂ with mean `score` (fishtest `MLE_expected`)."""
    v = a - score
    return p / (1.0 + _secular_root(v, p) * v)


def _mle_normalized(a: np.ndarray, p: np.ndarray, t: float) -> np.ndarray:
    """The ML distribution nearest p̂ with (μ − ½)/σ = t (fishtest `MLE_t_value`, §4.4).

    A fixed point of at most 10 steps from the uniform distribution: each step linearises the
    constraint around the current μ, σ as v_k = a_k − ½ − t·σ·(1 + ((a_k − μ)/σ)²)/2 and solves
    the secular equation for it.
    """
    q = np.full_like(p, 1.0 / len(p))
    for _ in range(10):
        mu, var = _moments(a, q)
        sigma = math.sqrt(var)
        v = a - 0.5 - t * sigma * (1.0 + ((a - mu) / sigma) ** 2) / 2.0
        new = p / (1.0 + _secular_root(v, p) * v)
        done = float(np.max(np.abs(new - q))) < 1e-9
        q = new
        if done:
            break
    return q


def llr(counts: Iterable[float], elo0: float, elo1: float, model: str = "normalized") -> float:
    """fishtest's generalized log-likelihood ratio of H1 (elo1) against H0 (elo0) (§4.4).

    LLR = N·Σ p̂_k ln(p1_k/p0_k), with zero counts set to 1e-3 and N the regularised total;
    p0, p1 are the ML distributions under each hypothesis. `model="logistic"`: elo_j are logistic
    Elo, the constraint is a mean score of L(elo_j). `model="normalized"`: elo_j are nElo, the
    constraint is t = elo_j/(800/ln 10), times √2 per pair for pentanomial counts.
    """
    n = [float(c) for c in counts]
    a = _support(n)
    reg = np.array([c if c > 0 else REGULARIZE_EPS for c in n])
    total = float(reg.sum())
    p = reg / total
    if model == "logistic":
        p0, p1 = (_mle_logistic(a, p, logistic_score(e)) for e in (elo0, elo1))
    elif model == "normalized":
        scale = math.sqrt(2.0) if len(n) == 5 else 1.0
        p0, p1 = (_mle_normalized(a, p, scale * e / NELO_PER_T) for e in (elo0, elo1))
    else:
        raise ValueError(f"unknown SPRT model {model!r}: use 'normalized' or 'logistic'")
    return total * float(np.sum(p * (np.log(p1) - np.log(p0))))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds (§4.4): A = ln(β/(1−α)), B = ln((1−β)/α)."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"alpha and beta must lie in (0, 1) with alpha + beta < 1 (else the "
                         f"lower bound is not below the upper): alpha={alpha}, beta={beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SprtResult:
    """A GSPRT state: the LLR, Wald's bounds and the decision ("H0", "H1" or None to go on)."""

    llr: float
    lower_bound: float
    upper_bound: float
    decision: str | None
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str

    def __str__(self) -> str:
        unit = "nElo" if self.model == "normalized" else "Elo"
        verdict = {"H0": "H0 accepted", "H1": "H1 accepted", None: "continue"}[self.decision]
        return (
            f"SPRT [{self.elo0:g}, {self.elo1:g}] {unit}: LLR {self.llr:.2f} "
            f"({self.lower_bound:.2f}, {self.upper_bound:.2f}) {verdict}"
        )


def sprt(
    penta: Iterable[int],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: str = "normalized",
) -> SprtResult:
    """The GSPRT of H0: Elo = elo0 against H1: Elo = elo1 on pentanomial (or trinomial) counts.

    Accept H0 when LLR ≤ A, H1 when LLR ≥ B (§4.4); with no completed samples the LLR is 0.
    """
    counts = [int(c) for c in penta]
    _support(counts)
    if not elo0 < elo1:
        raise ValueError(f"elo0 must be below elo1: elo0={elo0}, elo1={elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    value = llr(counts, elo0, elo1, model) if sum(counts) else 0.0
    decision = "H0" if value <= lower else "H1" if value >= upper else None
    return SprtResult(value, lower, upper, decision, elo0, elo1, alpha, beta, model)


# --- From a games frame -------------------------------------------------------------------------


def player_scores(games: pd.DataFrame, player: str) -> pd.Series:
    """`player`'s score in each decided game (1/0.5/0) where it plays; other rows are dropped."""
    points = games["result"].map(RESULT_POINTS)
    as_white = games["white"] == player
    as_black = games["black"] == player
    score = points.where(as_white, 1.0 - points)
    return score[(as_white | as_black) & points.notna()]


def pair_scores(games: pd.DataFrame, player: str) -> list[float]:
    """`player`'s points in each completed pair: the rows sharing a `pair_id`, two decided games.

    Unfinished pairs (one game, or an undecided result such as "*") are left out, as fastchess
    counts pairs (§2.5).
    """
    if "pair_id" not in games.columns:
        raise ValueError("the games frame has no 'pair_id' column to pair games by")
    scores = player_scores(games, player)
    pair_ids = games.loc[scores.index, "pair_id"]
    grouped = scores.groupby(pair_ids.to_numpy()).agg(["sum", "count"])
    return grouped.loc[grouped["count"] == 2, "sum"].tolist()
