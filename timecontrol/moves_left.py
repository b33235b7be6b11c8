"""Moves-left estimators: how many more moves the side to move expects to play.

Only Lc0's "mle-legacy" curve exists (docs/reference/smooth_time_manager.md section 5; Lc0
src/search/classic/stoppers/legacy.cc, commit e0b6ef38 onwards).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LegacyMovesLeft:
    """Median residual game length of a log-logistic game-length model (Lc0's mle-legacy).

    `midpoint` is the median game length in moves, `steepness` the shape. Defaults are the seed's
    and Lc0 v1's (51.5, 7.0); Lc0 HEAD's smooth uses (45.2, 5.93) (reference section 1a).
    """

    midpoint: float = 51.5
    steepness: float = 7.0

    def __post_init__(self) -> None:
        if not self.midpoint > 0:
            raise ValueError(f"mle-legacy midpoint must be > 0, got {self.midpoint}")
        if not self.steepness > 0:
            raise ValueError(f"mle-legacy steepness must be > 0, got {self.steepness}")

    def estimate(self, ply: int) -> float:
        """M(ply) = midpoint*(1 + 2*(m/midpoint)^steepness)^(1/steepness) - m, m = ply/2
        (reference section 5, after Clark & El-Taha 2015 as cited in Lc0's legacy.cc)."""
        m = ply / 2.0
        ratio = (m / self.midpoint) ** self.steepness
        return self.midpoint * (1.0 + 2.0 * ratio) ** (1.0 / self.steepness) - m

    def moves_left(self, ply: int, movestogo: int | None = None,
                   plan_period: bool = False) -> float:
        """The estimate capped by `movestogo` if 0 < movestogo < estimate (Lc0, reference §2
        step 4); with `plan_period`, `movestogo` itself when given: the clock must last the
        period, and a cap alone planned for 8-14 moves while 20-40 remained (issue 16)."""
        if plan_period and movestogo is not None and movestogo > 0:
            return float(movestogo)
        estimate = self.estimate(ply)
        if movestogo is not None and 0 < movestogo < estimate:
            return float(movestogo)
        return estimate
