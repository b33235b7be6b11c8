"""Pieces every manager shares: a fixed-budget stopper and whether a move is planned at all."""

from __future__ import annotations

from dataclasses import dataclass, field

from timecontrol.go import GoParams
from timecontrol.stopper import SearchStats, Stopper, StopperHints


@dataclass
class BudgetStopper(Stopper):
    """Stop once `budget_ms` has passed since the move started; publish the time left.

    `figures` is the manager's telemetry for this move, returned as given.
    """

    budget_ms: float
    figures: dict[str, object] = field(default_factory=dict)

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        hints.update_remaining_ms(self.budget_ms - stats.time_since_movestart_ms)
        return "budget" if stats.time_since_movestart_ms >= self.budget_ms else None

    def telemetry(self) -> dict[str, object]:
        return dict(self.figures)


def has_clock(go: GoParams, white: bool) -> bool:
    """Whether a manager plans this move: a clock for the side to move and not `go infinite`."""
    return not go.infinite and go.clock(white) is not None

