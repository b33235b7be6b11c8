"""What a rating fit is asked for, checked once: the model and how ratings, colours and draws are
pinned, the error bars and their reference.

`FitOptions.check` turns `fit_ratings`' keyword arguments into one typed value, refusing bad ones
with a message naming the argument, before any game is looked at. What needs the games (anchors
that played) is checked by the fit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lab.ratings.models import MODEL_NAMES, ORDO_SCALE, BayesEloModel, OrdoModel

RELATIVE_TO = ("anchor", "pool")


@dataclass(frozen=True)
class FitOptions:
    """A checked rating fit request (see `lab.ratings.fit_ratings` for each field's meaning).

    `white` and `draw` are None when fitted; `draw` is in the model's own parameter (Ordo:
    D_eq, BayesElo: drawelo); `prior` is the virtual draws per player the model uses.
    """

    model: OrdoModel | BayesEloModel
    anchors: dict[str, float]
    loose_anchors: dict[str, tuple[float, float]]
    average: float
    white: float | None
    draw: float | None
    prior: float
    bayeselo_units: float | str
    simulations: int
    confidence: float
    relative_to: str
    force: bool
    seed: int | None

    @classmethod
    def check(cls, model: str = "ordo", *, anchors: Mapping[str, float] | None = None,
              loose_anchors: Mapping[str, tuple[float, float]] | None = None,
              average: float | None = None, scale: float = ORDO_SCALE,
              white: float | str | None = None, draw: float | str = "auto",
              prior: float = 2.0, bayeselo_units: float | str = "auto", simulations: int = 0,
              confidence: float = 0.95, relative_to: str = "anchor", force: bool = False,
              seed: int | None = None) -> FitOptions:
        """The options of `fit_ratings`, checked; `ValueError` names the first bad one."""
        fixed = {str(k): float(v) for k, v in (anchors or {}).items()}
        loose = {str(k): (float(m), float(s)) for k, (m, s) in (loose_anchors or {}).items()}
        if any(s <= 0 for _, s in loose.values()):
            raise ValueError("loose anchors need a positive standard deviation")
        if set(fixed) & set(loose):
            raise ValueError("a player cannot be both a fixed and a loose anchor")
        if average is not None and (fixed or loose):
            raise ValueError("give either anchors or a pool average, not both")
        if model not in MODEL_NAMES:
            raise ValueError(f"unknown rating model {model!r}: use 'ordo' or 'bayeselo'")
        the_model = OrdoModel(scale) if model == "ordo" else BayesEloModel()
        if relative_to not in RELATIVE_TO:
            raise ValueError(f"relative_to must be 'anchor' or 'pool', not {relative_to!r}")
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must lie in (0, 1): {confidence}")
        if simulations < 0 or simulations == 1:
            raise ValueError(f"simulations must be 0 (curvature) or at least 2: {simulations}")
        white_value = the_model.default_white if white is None else white
        if isinstance(white_value, str) and white_value != "auto":
            raise ValueError(f"white advantage must be 'auto' or a number, not {white_value!r}")
        the_model.check_units(bayeselo_units, len(fixed), bool(loose))
        return cls(
            the_model, fixed, loose,
            the_model.default_average if average is None else float(average),
            None if white_value is None or white_value == "auto" else float(white_value),
            _draw_parameter(draw, the_model), the_model.prior_draws(prior), bayeselo_units,
            simulations, confidence, relative_to, force, seed,
        )


def _draw_parameter(draw: float | str, model: OrdoModel | BayesEloModel) -> float | None:
    """None to fit; else the model's parameter for that draw rate between equal opponents."""
    if draw == "auto":
        return None
    try:
        rate = float(draw)
    except (TypeError, ValueError):
        raise ValueError(f"draw must be 'auto' or a rate in (0, 1), not {draw!r}") from None
    if not 0 < rate < 1:
        raise ValueError(f"the draw rate between equal opponents must lie in (0, 1): {rate}")
    return model.draw_parameter(rate)
