"""The Elo estimate of a sequential test: fishtest's bias-corrected Elo, interval and LOS.

A test that stops when its LLR crosses a bound stops early on a lucky run more often than on an
unlucky one, so the plain estimate of a stopped SPRT overstates the effect. fishtest reports
instead the median-unbiased estimate of the sequential test (`server/fishtest/stats/sprt.py`,
`sprt.analytics`, and `stat_util.SPRT_elo`): the LLR is modelled as a Brownian motion with drift
between Wald's bounds (`server/fishtest/stats/brownian.py`; drift and variance from
`LLRcalc.LLR_drift_variance_alt2`, after H. van den Bergh, "GSPRT approximation",
cantate.be/Fishtest), and the estimate is the Elo for which the observed outcome (where and when
the LLR stopped) is the median outcome; the interval's ends are its 2.5 % and 97.5 % points.
Pure arithmetic; the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist

from lab.stats import NELO_PER_T, REGULARIZE_EPS, find_root, logistic_score, sprt_bounds

_PHI = NormalDist().cdf


@dataclass(frozen=True)
class SequentialEstimate:
    """Logistic Elo with its interval and LOS, corrected for the sequential stop."""

    elo: float
    lower: float
    upper: float
    los: float
    confidence: float

    def __str__(self) -> str:
        return (f"Elo {self.elo:+.2f} [{self.lower:+.2f}, {self.upper:+.2f}] "
                f"({100 * self.confidence:g} %, SPRT-corrected as fishtest), "
                f"LOS {100 * self.los:.2f} %")


@dataclass(frozen=True)
class _Brownian:
    """Brownian motion from 0 with drift `mu` and variance `sigma2` per unit time, absorbed at
    `a` < 0 < `b` (fishtest `brownian.py`)."""

    a: float
    b: float
    mu: float
    sigma2: float

    def outcome_cdf(self, t: float, y: float) -> float:
        """P(the path ends "worse" than stopping at (t, y)): it leaves through `a`, or is still
        below y at time t without having reached `b` before it (fishtest `outcome_cdf`)."""
        gamma = self.mu / self.sigma2
        width = self.b - self.a
        if self.sigma2 * t / width**2 < 1e-2 or abs(gamma * width) > 15:
            return self._siegmund(t, y)
        return self._series(t, y)

    def _series(self, t: float, y: float) -> float:
        """The exact eigenfunction series, for paths that have had time to meet both bounds."""
        width, sigma2, mu = self.b - self.a, self.sigma2, self.mu
        x, y = -self.a, y - self.a
        gamma = mu / sigma2
        lam1 = (math.pi / width) ** 2 * sigma2 / 2 + mu**2 / sigma2 / 2
        t0 = math.exp(-lam1 * t - x * gamma + y * gamma)
        total, n = 0.0, 1
        while True:
            lam_n = (n * math.pi / width) ** 2 * sigma2 / 2 + mu**2 / sigma2 / 2
            t1 = math.exp(-(lam_n - lam1) * t)
            k = n * math.pi / width
            t3 = (2 * width * gamma * math.sin(k * y) - 2 * math.pi * n * math.cos(k * y)) / (
                width**2 * gamma**2 + math.pi**2 * n**2)
            total += t1 * t3 * math.sin(k * x)
            if abs(t0 * t1 * t3) <= 1e-9:
                break
            n += 1
        if gamma * width > 30:
            pre = math.exp(-2 * gamma * x)
        elif abs(gamma * width) < 1e-8:
            pre = (width - x) / width
        else:
            pre = (1 - math.exp(2 * gamma * (width - x))) / (1 - math.exp(2 * gamma * width))
        return pre + t0 * total

    def _siegmund(self, t: float, y: float) -> float:
        """Siegmund's approximation, with the normal tail's asymptotic form for large exponents."""
        denom = math.sqrt(t * self.sigma2)
        offset = self.mu * t
        gamma = self.mu / self.sigma2

        def reflected(bound: float, z: float) -> float:
            if gamma * bound >= 5:
                return (-math.exp(-(z**2) / 2 + 2 * gamma * bound) / math.sqrt(2 * math.pi)
                        * (1 / z - 1 / z**3))
            return math.exp(2 * gamma * bound) * _PHI(z)

        z = (y - offset) / denom
        return (_PHI(z) + reflected(self.a, (-y + offset + 2 * self.a) / denom)
                - reflected(self.b, (y - offset - 2 * self.b) / denom))


def sequential_estimate(counts: Iterable[int], elo0: float, elo1: float, alpha: float = 0.05,
                        beta: float = 0.05, model: str = "normalized",
                        confidence: float = 0.95) -> SequentialEstimate:
    """fishtest's Elo estimate of an SPRT on these trinomial or pentanomial counts.

    `elo0`/`elo1` are in the test's model (nElo for "normalized", logistic Elo otherwise), as
    `lab.stats.sprt` takes them; the estimate is in logistic Elo, as fishtest reports it.
    """
    n = [float(c) if c > 0 else REGULARIZE_EPS for c in counts]
    if len(n) not in (3, 5):
        raise ValueError(f"counts must have 3 (trinomial) or 5 (pentanomial) entries: {n!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    lower_bound, upper_bound = sprt_bounds(alpha, beta)
    total = sum(n)
    support = [i / (len(n) - 1) for i in range(len(n))]
    p = [c / total for c in n]
    mean = sum(pk * ak for pk, ak in zip(p, support))
    var = sum(pk * (ak - mean) ** 2 for pk, ak in zip(p, support))
    if model == "normalized":
        sigma_per_game = math.sqrt(2 * var if len(n) == 5 else var)
        s0, s1 = (e / NELO_PER_T * sigma_per_game + 0.5 for e in (elo0, elo1))
    elif model == "logistic":
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
    else:
        raise ValueError(f"unknown SPRT model {model!r}: use 'normalized' or 'logistic'")

    def drift_variance(s: float) -> tuple[float, float]:
        """Per-sample LLR drift and variance when the true score is s (`LLR_drift_variance_alt2`,
        the variance's MLE at s)."""
        v = var + (s - mean) ** 2
        return (s - (s0 + s1) / 2) * (s1 - s0) / v, (s1 - s0) ** 2 / v

    slope = drift_variance(mean)[0]
    llr, t = total * slope, total
    if llr < lower_bound:
        llr, t = lower_bound, lower_bound / slope
    elif llr > upper_bound:
        llr, t = upper_bound, upper_bound / slope

    def outcome_prob(elo: float) -> float:
        mu, sigma2 = drift_variance(logistic_score(elo))
        return _Brownian(lower_bound, upper_bound, mu, sigma2).outcome_cdf(t, llr)

    def quantile(q: float) -> float:
        """The largest Elo at which this outcome is at most as likely as q (fishtest `lower_cb`)."""
        middle, delta, reach = (elo0 + elo1) / 2, elo1 - elo0, 30
        while True:
            lo, hi = max(middle - reach * delta, -1000.0), min(middle + reach * delta, 1000.0)
            f_lo, f_hi = outcome_prob(lo) - (1 - q), outcome_prob(hi) - (1 - q)
            if (f_lo > 0) != (f_hi > 0):
                return find_root(lambda e: outcome_prob(e) - (1 - q), lo, hi)
            if lo > -1000.0 or hi < 1000.0:
                reach *= 2
                continue
            return hi if f_lo > 0 else lo

    tail = (1 - confidence) / 2
    return SequentialEstimate(quantile(0.5), quantile(tail), quantile(1 - tail),
                              outcome_prob(0.0), confidence)
