"""The two rating models: Ordo's logistic model and BayesElo's Bradley–Terry model with draws.

Each model gives, per pairing row, the log-likelihood of White's results as a function of
Δ = R_white − R_black + advantage (and, for BayesElo, of the draw parameter), with its first and
second derivatives, and the win/draw/loss probabilities that simulations draw from.

"reference §5.x" is §5.x of docs/reference/harness_and_stats.md (Ordo §5.1, BayesElo §5.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.stats import find_root

#: Ordo's default scale: 202 rating points for a 76 % expectancy (reference §5.1).
ORDO_SCALE = 202.0
#: BayesElo's default draw parameter and white advantage (`CBradleyTerry.cpp`, reference §5.2).
BAYESELO_DRAWELO = 97.3
BAYESELO_ADVANTAGE = 32.8
#: Ordo's default pool average (reference §5.1); BayesElo centres its ratings on 0.
ORDO_AVERAGE = 2300.0
#: ln 10 / 400: BayesElo's logistic L(x) = 1/(1 + 10^(−x/400)) as expit(C·x).
C_ELO = math.log(10.0) / 400.0


@dataclass
class Terms:
    """Per-row log-likelihood and its derivatives in Δ and in the draw parameter d."""

    loglik: np.ndarray
    d_delta: np.ndarray
    dd_delta: np.ndarray
    d_draw: np.ndarray | None = None
    dd_delta_draw: np.ndarray | None = None
    dd_draw: np.ndarray | None = None


MODEL_NAMES = ("ordo", "bayeselo")


class OrdoModel:
    """Ordo's model (reference §5.1): expectancy f = 1/(1 + e^(−βΔ)), a draw counts ½ point.

    β = ln(0.76/0.24)/scale so that `scale` points give 76 % (202 → β = 1/175.25, Ordo's
    default). The likelihood is Σ P ln f + (n − P) ln(1 − f) with P White's points: its
    stationary point is Ordo's "expected points equal actual points". Draws do not move the
    ratings; Ordo's draw model (`draw_probability`) only serves simulations and error bars.
    """

    name = "ordo"
    has_draw_param = False
    #: The pool average without anchors, and the white advantage unless one is asked for.
    default_average = ORDO_AVERAGE
    default_white: float | None = 0.0
    #: Where the fit starts a fitted white advantage.
    start_white = 0.0

    def __init__(self, scale: float = ORDO_SCALE):
        if not scale > 0:
            raise ValueError(f"the rating scale (Elo for 76 %) must be positive: {scale}")
        self.scale = scale
        self.beta = math.log(0.76 / 0.24) / scale

    def expectancy(self, delta: np.ndarray) -> np.ndarray:
        from scipy.special import expit

        return expit(self.beta * delta)

    def terms(self, delta, draw, wins, draws, losses) -> Terms:
        from scipy.special import expit, log_expit

        n, points = wins + draws + losses, wins + draws / 2
        x = self.beta * delta
        f = expit(x)
        return Terms(
            points * log_expit(x) + (n - points) * log_expit(-x),
            self.beta * (points - n * f),
            -self.beta**2 * n * f * (1.0 - f),
        )

    def probabilities(self, delta: np.ndarray, draw: float) -> np.ndarray:
        """[White wins, draws, loses] per row, from f and Ordo's draw model at rate `draw`."""
        f = self.expectancy(delta)
        d = draw_probability(f, draw)
        return np.stack([f - d / 2, d, 1.0 - f - d / 2], axis=-1).clip(0.0, 1.0)

    def score_variance(self, delta: np.ndarray, draw: float) -> np.ndarray:
        """Variance of one game's score for White: f(1 − f) − D/4 (draws lower it)."""
        f = self.expectancy(delta)
        return f * (1.0 - f) - draw_probability(f, draw) / 4

    def draw_parameter(self, rate: float) -> float:
        """The model's draw parameter for a draw rate between equal opponents: D_eq itself."""
        return rate

    def prior_draws(self, prior: float) -> float:
        """Virtual draws per player: none (Ordo has no prior)."""
        return 0.0

    def check_units(self, units: float | str, anchors: int, loose: bool) -> None:
        """Ordo's ratings are in its own scale already: any `bayeselo_units` is ignored."""

    def output_scale(self, draw: float, units: float | str) -> float:
        """Ordo's ratings are printed as fitted."""
        return 1.0

    def draw_after_fit(self, delta: np.ndarray, games: np.ndarray, drawn: float) -> float:
        """D_eq from the draws observed (Ordo's `-D`): the ratings ignore draws, so it is fitted
        after them."""
        return fit_draw_rate(self.expectancy(delta), games, drawn)

    def information_weights(self, delta: np.ndarray, draw: float,
                            games: np.ndarray) -> np.ndarray | None:
        """Per-row weights of the score's information, for the sandwich covariance H⁻¹JH⁻¹: the
        half-point likelihood counts f(1 − f) per game where the score's variance is
        f(1 − f) − D/4."""
        return self.beta**2 * games * self.score_variance(delta, draw)

    def draw_is_fitted(self, requested: bool, fitted: bool) -> bool:
        """D_eq is estimated (after the ratings) whenever it is not given."""
        return requested

    def report_draw(self, draw: float, error: float
                    ) -> tuple[tuple[float, float] | None, tuple[float, float]]:
        """(drawelo, draw rate between equal opponents), each with its error: no drawelo."""
        return None, (draw, error)


def draw_probability(f: np.ndarray, draw_eq: float) -> np.ndarray:
    """Ordo's draw model (reference §5.1): D² = ν²·W·L with ν = 2·D_eq/(1 − D_eq).

    With W = f − D/2 and L = 1 − f − D/2 this is the quadratic
    (1 − ν²/4)·D² + (ν²/2)·D − ν²·f(1 − f) = 0, solved in its cancellation-free form.
    """
    if draw_eq <= 0.0:
        return np.zeros_like(f)
    if draw_eq >= 1.0:
        return 2.0 * np.minimum(f, 1.0 - f)
    nu2 = (2.0 * draw_eq / (1.0 - draw_eq)) ** 2
    a, b, c = 1.0 - nu2 / 4.0, nu2 / 2.0, nu2 * f * (1.0 - f)
    return 2.0 * c / (b + np.sqrt(b * b + 4.0 * a * c))


def fit_draw_rate(f: np.ndarray, games: np.ndarray, observed: float) -> float:
    """The D_eq whose expected number of draws equals the observed number (Ordo's `-D`).

    Half a virtual draw and half a virtual decisive game are added (a Jeffreys-like prior), so
    that a sample of only draws, or of none, does not claim a certain rate: that rate feeds the
    error bars and the simulations, which would otherwise collapse to zero width.
    """
    total = float(np.sum(games))
    if total == 0.0:
        return 0.0
    target = (observed + 0.5) * total / (total + 1.0)
    expected_max = 2.0 * float(np.sum(games * np.minimum(f, 1.0 - f)))
    if target >= expected_max:
        return 1.0
    return find_root(lambda q: float(np.sum(games * draw_probability(f, q))) - target, 0.0, 1.0)


class BayesEloModel:
    """BayesElo's model (`CBradleyTerry.cpp`, reference §5.2), in BayesElo's own units.

    P(White wins) = L(Δ − d), P(Black wins) = L(−Δ − d), P(draw) = the rest, with
    L(x) = 1/(1 + 10^(−x/400)) and d = drawelo > 0. A true trinomial likelihood: draws carry
    information, and its curvature gives the error bars.
    """

    name = "bayeselo"
    has_draw_param = True
    default_average = 0.0
    default_white: float | None = None  # fitted
    start_white = BAYESELO_ADVANTAGE

    def draw_parameter(self, rate: float) -> float:
        """The drawelo that gives `rate` draws between equal players.

        P(draw) = 1 − 2·L(−d) for equal players, so d = 400·log10((1 + D)/(1 − D)).
        """
        return 400.0 * math.log10((1 + rate) / (1 - rate))

    def prior_draws(self, prior: float) -> float:
        """Virtual draws per player (BayesElo's prior)."""
        return float(prior)

    def check_units(self, units: float | str, anchors: int, loose: bool) -> None:
        """BayesElo's scale (`units="auto"`) is defined for one anchor or the pool average."""
        if units == "auto" and (anchors > 1 or loose):
            raise ValueError(
                "BayesElo's rating scale needs one anchor or the pool average; with several or "
                "loose anchors pass bayeselo_units=1 (raw BayesElo units)"
            )

    def output_scale(self, draw: float, units: float | str) -> float:
        """The factor to printed ratings: BayesElo's `scale` at this drawelo, or `units`."""
        return bayeselo_scale(draw) if units == "auto" else float(units)

    def draw_after_fit(self, delta: np.ndarray, games: np.ndarray, drawn: float) -> None:
        """Nothing: drawelo is fitted with the ratings."""
        return None

    def information_weights(self, delta: np.ndarray, draw: float,
                            games: np.ndarray) -> np.ndarray | None:
        """None: the likelihood is the true trinomial one, so J = H and cov = H⁻¹."""
        return None

    def draw_is_fitted(self, requested: bool, fitted: bool) -> bool:
        """drawelo is estimated only when it was free in the fit (results without draws fix
        it at 0)."""
        return requested and fitted

    def report_draw(self, draw: float, error: float
                    ) -> tuple[tuple[float, float] | None, tuple[float, float]]:
        """(drawelo, draw rate between equal opponents), each with its error.

        D_eq = (10^(d/400) − 1)/(10^(d/400) + 1) = tanh(d·ln 10/800), its error by the chain rule.
        """
        rate = math.tanh(draw * math.log(10) / 800)
        return (draw, error), (rate, error * math.log(10) / 800 * (1 - rate**2))

    def terms(self, delta, draw, wins, draws, losses) -> Terms:
        from scipy.special import expit, log_expit

        c = C_ELO
        u, v = c * (delta - draw), c * (-delta - draw)
        su, sv = expit(u), expit(v)
        pu, pv = su * (1.0 - su), sv * (1.0 - sv)  # σ'(u), σ'(v)
        qu, qv = pu * (1.0 - 2.0 * su), pv * (1.0 - 2.0 * sv)  # σ''(u), σ''(v)
        # P(draw) = σ(−u) − σ(v), stably as σ(a) − σ(b) = σ(a)σ(−b)(1 − e^(b−a)), b − a = −2cd
        with np.errstate(divide="ignore"):
            log_pd = log_expit(-v) + log_expit(-u) + np.log(-np.expm1(-2.0 * c * draw))
        # rows without draws contribute nothing, even where P(draw) = 0 (drawelo = 0)
        has = draws > 0
        zero = np.zeros_like(log_pd)
        pd_ = np.exp(log_pd)
        per = np.divide(draws, pd_, out=zero.copy(), where=has)  # draws / P(draw)
        # derivatives of P(draw) = 1 − σ(u) − σ(v)
        pd_t = c * (pv - pu)
        pd_d = c * (pu + pv)
        pd_tt = -(c**2) * (qu + qv)
        pd_dd = -(c**2) * (qu + qv)
        pd_td = c**2 * (qu - qv)
        # d² ln P = P''/P − P'P'/P², times the draws
        per2 = np.divide(per, pd_, out=zero.copy(), where=has)
        loglik = wins * log_expit(u) + losses * log_expit(v)
        loglik += np.multiply(draws, log_pd, out=zero.copy(), where=has)
        d_delta = c * (wins * (1.0 - su) - losses * (1.0 - sv)) + per * pd_t
        d_draw = -c * (wins * (1.0 - su) + losses * (1.0 - sv)) + per * pd_d
        dd_delta = -(c**2) * (wins * pu + losses * pv) + per * pd_tt - per2 * pd_t**2
        dd_draw = -(c**2) * (wins * pu + losses * pv) + per * pd_dd - per2 * pd_d**2
        dd_mixed = c**2 * (wins * pu - losses * pv) + per * pd_td - per2 * pd_t * pd_d
        return Terms(loglik, d_delta, dd_delta, d_draw, dd_mixed, dd_draw)

    def probabilities(self, delta: np.ndarray, draw: float) -> np.ndarray:
        from scipy.special import expit

        win, loss = expit(C_ELO * (delta - draw)), expit(C_ELO * (-delta - draw))
        return np.stack([win, 1.0 - win - loss, loss], axis=-1).clip(0.0, 1.0)


def bayeselo_scale(drawelo: float) -> float:
    """BayesElo's rating scale after `mm` (reference §5.2): 4x/(1 + x)², x = 10^(−drawelo/400).

    It makes small BayesElo differences match logistic Elo differences.
    """
    x = 10.0 ** (-drawelo / 400.0)
    return 4.0 * x / (1.0 + x) ** 2
