"""lab.stats: counts, Elo/nElo/LOS by hand, the GSPRT's LLR against an independent derivation.

Numbers come from the formulas of docs/reference/harness_and_stats.md §4, worked by hand here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

from lab.stats import (
    elo_estimate,
    llr,
    logistic_score,
    pair_scores,
    pentanomial,
    player_scores,
    sprt,
    sprt_bounds,
    trinomial,
)

NELO = 800 / math.log(10)  # 347.43...


def elo_of(score: float) -> float:
    return 400 * math.log10(score / (1 - score))


# --- counts -------------------------------------------------------------------------------------


def test_counts_in_fastchess_order() -> None:
    assert trinomial([1, 0.5, 0.5, 0, 1, 1]) == [1, 2, 3]
    # pair points: 0 = LL, 0.5 = LD, 1 = WL or DD, 1.5 = WD, 2 = WW
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]


@pytest.mark.parametrize("bad", [0.25, 3, -0.5])
def test_counts_reject_impossible_scores(bad: float) -> None:
    with pytest.raises(ValueError, match="pair score"):
        pentanomial([1, bad])
    with pytest.raises(ValueError, match="game score"):
        trinomial([bad if bad != 3 else 2])


def test_pairs_from_a_games_frame() -> None:
    games = pd.DataFrame({
        "pair_id": ["p1", "p1", "p2", "p2", "p3", "p4", "p4"],
        "white": ["A", "B", "A", "B", "A", "A", "B"],
        "black": ["B", "A", "B", "A", "B", "B", "A"],
        "result": ["1-0", "1-0", "1/2-1/2", "0-1", "1-0", "1-0", "*"],
    })
    # p1: A wins, B wins as White → 1 point (WL); p2: draw + A wins as Black → 1.5 (WD);
    # p3 has one game and p4 an unfinished one: neither counts.
    assert sorted(pair_scores(games, "A")) == [1.0, 1.5]
    assert pentanomial(pair_scores(games, "B")) == [0, 1, 1, 0, 0]
    assert player_scores(games, "B").tolist() == [0.0, 1.0, 0.5, 0.0, 0.0, 0.0]  # "*" dropped


# --- Elo, LOS, nElo by hand ---------------------------------------------------------------------


def test_trinomial_estimate_by_hand() -> None:
    # [L, D, W] = [10, 20, 30]: μ = 40/60 = 2/3 → Elo = 400·log10(2) = 120.41.
    # σ² = (20·¼ + 30)/60 − 4/9 = 5/36, σ = √5/6; half-width of μ: 1.96·σ/√60.
    est = elo_estimate([10, 20, 30])
    half = norm.ppf(0.975) * math.sqrt(5) / 6 / math.sqrt(60)
    assert est.elo == pytest.approx(400 * math.log10(2))
    assert est.lower == pytest.approx(elo_of(2 / 3 - half))
    assert est.upper == pytest.approx(elo_of(2 / 3 + half))
    assert (est.lower, est.upper) == pytest.approx((50.64, 201.16), abs=0.01)
    # LOS = Φ((1/6)/(σ/√60)) = Φ(√12); nElo: t = (1/6)/(√5/6) = 1/√5.
    assert est.los == pytest.approx(norm.cdf(math.sqrt(12)))
    assert est.nelo == pytest.approx(NELO / math.sqrt(5))
    assert est.draw_ratio == pytest.approx(1 / 3)
    assert (est.games, est.pairs, est.score) == (60, None, pytest.approx(2 / 3))


def test_pentanomial_estimate_by_hand() -> None:
    # Two WL/DD pairs and two WW pairs: pair averages ½, ½, 1, 1 → μ ≈ ¾, Elo ≈ 400·log10 3;
    # σ² ≈ (¼ + ¼ + 1 + 1)/4 − 9/16 = 1/16, σ ≈ ¼ over N ≈ 4 pairs. Exactly: the three empty
    # cells count 1e-3 each (fishtest's regularisation), so N = 4.003.
    counts = np.array([1e-3, 1e-3, 2, 1e-3, 2])
    a = np.linspace(0, 1, 5)
    size = counts.sum()
    p = counts / size
    mu = p @ a
    sd = math.sqrt(p @ (a - mu) ** 2)
    est = elo_estimate([0, 0, 2, 0, 2])
    half = norm.ppf(0.975) * sd / math.sqrt(size)
    assert est.elo == pytest.approx(400 * math.log10(3), abs=1.0)
    assert est.elo == pytest.approx(elo_of(mu))
    assert (est.lower, est.upper) == pytest.approx((elo_of(mu - half), elo_of(mu + half)))
    assert est.los == pytest.approx(norm.cdf((mu - 0.5) / (sd / math.sqrt(size))))
    assert est.los == pytest.approx(norm.cdf(2.0), abs=1e-3)
    # per-game σ = √2·σ_pair: t ≈ ¼/(√2·¼) = 1/√2
    assert est.nelo == pytest.approx((mu - 0.5) / sd / math.sqrt(2) * NELO)
    assert est.nelo == pytest.approx(NELO / math.sqrt(2), rel=1e-2)
    assert (est.games, est.pairs) == (8, 4)


def test_pentanomial_nelo_interval_is_the_delta_method() -> None:
    counts = np.array([3, 20, 50, 22, 5])
    a = np.linspace(0, 1, 5)
    p = counts / counts.sum()
    mu = p @ a
    sd = math.sqrt(p @ (a - mu) ** 2)
    t = (mu - 0.5) / sd
    skew = p @ ((a - mu) / sd) ** 3
    kurt = p @ ((a - mu) / sd) ** 4 - 3
    var_t = (1 - t * skew + t * t * (kurt + 2) / 4) / counts.sum()
    est = elo_estimate(counts)
    half = norm.ppf(0.975) * NELO / math.sqrt(2) * math.sqrt(var_t)
    assert est.nelo == pytest.approx(t / math.sqrt(2) * NELO)
    assert est.nelo_upper - est.nelo == pytest.approx(half)


def test_degenerate_estimates_do_not_crash() -> None:
    empty = elo_estimate([0, 0, 0, 0, 0])
    assert empty.games == 0 and math.isnan(empty.elo)
    with pytest.raises(ValueError, match="3 .* or 5"):
        elo_estimate([1, 2, 3, 4])


#: fishtest `stat_util.get_elo` (official-stockfish/fishtest, server/fishtest/stats/stat_util.py
#: at 1054c5aa), run on these counts: Elo, half-width of the 95 % interval, LOS. Zero cells are
#: regularised to 1e-3, so one-sided and all-draws samples get finite intervals.
FISHTEST_GET_ELO = [
    ([0, 0, 7], 1199.826195, 201.741062, 1.000000),
    ([0, 10, 0], 0.0, 3.044820, 0.5),
    ([3, 0, 0], -1199.826195, 276.478505, 0.0),
    ([1, 5, 9], 206.651918, 176.926884, 0.999583),
    ([0, 0, 5, 0, 0], 0.0, 6.805039, 0.5),
    ([0, 0, 0, 0, 6], 1199.826195, 233.745829, 1.0),
    ([1, 3, 8, 5, 3], 52.511566, 83.752907, 0.898567),
]


@pytest.mark.parametrize(("counts", "elo", "error", "los"), FISHTEST_GET_ELO)
def test_estimates_reproduce_fishtest_including_zero_cells(counts, elo, error, los) -> None:
    est = elo_estimate(counts)
    assert est.elo == pytest.approx(elo, abs=1e-5)
    assert est.error == pytest.approx(error, abs=1e-5)
    assert est.los == pytest.approx(los, abs=1e-6)
    assert math.isfinite(est.nelo) and math.isfinite(est.nelo_lower)
    assert est.nelo_lower < est.nelo < est.nelo_upper
    assert "nan" not in str(est) and "inf" not in str(est) and "± 0.00" not in str(est)


# --- GSPRT --------------------------------------------------------------------------------------


def constrained_mle(counts, constraint) -> np.ndarray:
    """The distribution on the outcomes that maximises Σ n_k ln p_k under `constraint(p) = 0`.

    This is the definition of fishtest's p0/p1 (reference §4.4), solved here by a general
    constrained optimiser (SLSQP) instead of the secular equation: an independent route.
    Stationarity of Σ n_k ln p_k − λ(Σp − 1) − θ·g(p) gives p_k = p̂_k/(1 + θ·∂g/∂p_k), which is
    what lab.stats solves with Brent; SLSQP does not know that form.
    """
    counts = np.asarray(counts, float)
    p_hat = counts / counts.sum()
    result = minimize(
        lambda p: -np.sum(p_hat * np.log(p)), p_hat, method="SLSQP",
        bounds=[(1e-9, 1)] * len(p_hat),
        constraints=[{"type": "eq", "fun": lambda p: np.sum(p) - 1},
                     {"type": "eq", "fun": constraint}],
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    assert result.success, result.message
    return result.x


def independent_llr(counts, elo0, elo1, model):
    counts = np.array([c if c > 0 else 1e-3 for c in counts], float)  # fishtest regularize
    a = np.linspace(0, 1, len(counts))
    per_pair = math.sqrt(2) if len(counts) == 5 else 1.0

    def hypothesis(elo):
        if model == "logistic":
            return lambda p: p @ a - logistic_score(elo)

        def normalized(p):
            mu = p @ a
            return (mu - 0.5) - per_pair * elo / NELO * math.sqrt(p @ (a - mu) ** 2)

        return normalized

    p0 = constrained_mle(counts, hypothesis(elo0))
    p1 = constrained_mle(counts, hypothesis(elo1))
    return counts.sum() * np.sum(counts / counts.sum() * np.log(p1 / p0))


@pytest.mark.parametrize("counts", [[30, 200, 500, 210, 40], [0, 12, 40, 9, 3], [60, 90, 130]])
@pytest.mark.parametrize("model,elo0,elo1", [("logistic", 0, 5), ("normalized", 0, 5),
                                             ("normalized", -3, 1), ("logistic", -10, 10)])
def test_llr_matches_the_constrained_mle(counts, model, elo0, elo1) -> None:
    assert llr(counts, elo0, elo1, model) == pytest.approx(
        independent_llr(counts, elo0, elo1, model), rel=1e-4, abs=1e-5
    )


def test_llr_close_to_fishtests_approximations_for_small_differences() -> None:
    counts = np.array([200, 1000, 3000, 1200, 400])
    a = np.linspace(0, 1, 5)
    p = counts / counts.sum()
    mu = p @ a
    var = p @ (a - mu) ** 2
    n = counts.sum()
    # LLR_alt2: N (s1 − s0)(2μ − s0 − s1)/(2σ²), logistic Elo bounds
    s0, s1 = logistic_score(0), logistic_score(5)
    alt2 = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert llr(counts, 0, 5, "logistic") == pytest.approx(alt2, rel=0.02)
    # LLR_normalized_alt: (games/2)·ln[(1 + (t − t0)²)/(1 + (t − t1)²)], per-game t
    t = (mu - 0.5) / math.sqrt(2 * var)
    t0, t1 = -0.5 / NELO, 2.5 / NELO
    alt = n * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
    assert llr(counts, -0.5, 2.5) == pytest.approx(alt, rel=0.02)


def test_sprt_bounds_and_decisions() -> None:
    assert sprt_bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert sprt_bounds(0.05, 0.05)[1] == pytest.approx(2.944, abs=1e-3)
    strong = sprt([200, 1000, 3000, 1200, 400], -0.5, 2.5)
    assert strong.decision == "H1" and strong.llr > strong.upper_bound
    weak = sprt([400, 1200, 3000, 1000, 200], -0.5, 2.5)
    assert weak.decision == "H0" and weak.llr < weak.lower_bound
    none = sprt([0, 0, 0, 0, 0], 0, 2)
    assert none.llr == 0.0 and none.decision is None
    with pytest.raises(ValueError, match="elo0 must be below"):
        sprt([1, 2, 3, 2, 1], 5, 0)
    for alpha, beta in ((0.5, 0.5), (0.7, 0.4)):
        with pytest.raises(ValueError, match="alpha \\+ beta < 1"):
            sprt_bounds(alpha, beta)
    with pytest.raises(ValueError, match="unknown SPRT model"):
        sprt([1, 2, 3, 2, 1], 0, 5, model="bayesian")


# --- SPRT error rates by Monte Carlo ------------------------------------------------------------

BASE = np.array([0.04, 0.21, 0.50, 0.21, 0.04])  # a realistic pair distribution at zero Elo


def tilted(nelo: float | None = None, elo: float | None = None) -> np.ndarray:
    """BASE tilted (p_k ∝ BASE_k·e^(λ a_k)) to a given normalized or logistic Elo."""
    a = np.linspace(0, 1, 5)

    def dist(lam):
        p = BASE * np.exp(lam * a)
        return p / p.sum()

    def gap(lam):
        p = dist(lam)
        mu = p @ a
        if elo is not None:
            return mu - logistic_score(elo)
        return (mu - 0.5) / math.sqrt(2 * (p @ (a - mu) ** 2)) * NELO - nelo

    from scipy.optimize import brentq

    return dist(brentq(gap, -20, 20))


def sprt_outcomes(p, runs, elo0, elo1, model, seed, batch=8, max_pairs=40000):
    """Run `runs` SPRTs on pairs drawn from `p`, checking every `batch` pairs as fishtest does."""
    rng = np.random.default_rng(seed)
    decisions = []
    for _ in range(runs):
        counts = np.zeros(5, dtype=int)
        decision = None
        while decision is None and counts.sum() < max_pairs:
            counts += rng.multinomial(batch, p)
            decision = sprt(counts, elo0, elo1, model=model).decision
        decisions.append(decision)
    return decisions


def check_rates(decisions, expected_h, nominal, runs) -> None:
    rate = sum(d == expected_h for d in decisions) / runs
    sd = math.sqrt(nominal * (1 - nominal) / runs)
    # Wald's bounds make the true error rate at most about the nominal one, a little below it
    # with batched checks (overshoot, here up to 2 points); far off either way would mean a wrong
    # LLR scale. With 1000 runs the window is about 0.93 … 0.99.
    assert nominal - 3.5 * sd <= rate <= nominal + 0.02 + 3.5 * sd, rate
    assert None not in decisions


@pytest.mark.parametrize("truth,expected", [("elo0", "H0"), ("elo1", "H1")])
def test_sprt_error_rates_fast(truth, expected) -> None:
    elo0, elo1 = 0.0, 40.0
    p = tilted(nelo=elo0 if truth == "elo0" else elo1)
    runs = 200
    decisions = sprt_outcomes(p, runs, elo0, elo1, "normalized", seed=7 if truth == "elo0" else 8)
    check_rates(decisions, expected, 0.95, runs)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["normalized", "logistic"])
@pytest.mark.parametrize("truth,expected", [("elo0", "H0"), ("elo1", "H1")])
def test_sprt_error_rates_slow(model, truth, expected) -> None:
    elo0, elo1 = 0.0, 20.0
    value = elo0 if truth == "elo0" else elo1
    p = tilted(nelo=value) if model == "normalized" else tilted(elo=value)
    runs = 1000
    decisions = sprt_outcomes(p, runs, elo0, elo1, model, seed=11, batch=16)
    check_rates(decisions, expected, 0.95, runs)


def test_find_root_brackets_and_converges() -> None:
    from lab.stats import find_root

    calls = []

    def cubic(x: float) -> float:
        calls.append(x)
        return x**3 - 2.0

    assert find_root(cubic, 0.0, 5.0) == pytest.approx(2.0 ** (1 / 3), abs=1e-11)
    assert len(calls) < 40  # superlinear: bisection would take ~45 steps
    assert find_root(lambda x: 1.0 - x, 0.0, 3.0) == pytest.approx(1.0, abs=1e-11)  # decreasing
    assert find_root(lambda x: x, 0.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="no sign change"):
        find_root(lambda x: x * x + 1.0, -1.0, 1.0)
