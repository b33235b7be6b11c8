"""The one stop check of every search mode: the stopper chain, UCI `stop`, the wrap-up margin,
and the strength limiter's throttle.

A search fills a `SearchStats` and calls `StopCheck.ask`; the answer is the reason to stop or
None. Hard limits (`StopperHints.remaining_ms`) end a search where it is, less `WRAP_UP_MS` (and
the caller's `margin_ms`, the length of one more step) so that the `bestmove` meets the limit.
Soft limits (`soft_remaining_ms`) only matter to an iterative search between iterations
(`soft_limit_passed`, or scaled by Stockfish's factors when the hints ask for them:
engine.search.alphabeta `iteration_stop`); a search without iterations (MCTS) stops at them. A
search begun by `go ponder` measures the soft limit from `ponderhit` (`timecontrol.ponder`).
"""

from __future__ import annotations

import math

from engine.search.context import SearchContext
from timecontrol.common import SOFT_FRACTION
from timecontrol.stopper import SearchStats, StopperHints

WRAP_UP_MS = 8.0
"""The search ends when the stoppers report less time left than this: the time it takes to send
the move, so that a time limit is met by the `bestmove`, not just by the last check."""
CHECK_WINDOW_MS = 5.0
"""Most time between two checks at the speed measured so far (a check costs a few µs)."""


class StopCheck:
    """Asks the stopper of one `go`; `iterative` searches read soft limits at iteration ends."""

    def __init__(self, ctx: SearchContext, iterative: bool) -> None:
        self.stopper = ctx.stopper
        self.stop_event = ctx.stop_event
        self.throttle = ctx.throttle
        self.iterative = iterative
        self.ponder = ctx.ponder
        self.hints = StopperHints()

    def ask(self, stats: SearchStats, margin_ms: float = 0.0) -> str | None:
        """One check: the reason to stop now, or None; the hints stay in `self.hints`."""
        hints = self.hints
        hints.reset()
        reason = self.stopper.should_stop(stats, hints)
        if reason is None and self.stop_event.is_set():
            reason = "stop"
        if reason is None and hints.remaining_ms < WRAP_UP_MS + margin_ms:
            reason = "deadline"
        if reason is None and not self.iterative and hints.soft_remaining_ms <= margin_ms:
            reason = "budget"
        if self.throttle is not None:
            self.throttle(stats)
        return reason

    def move_ms(self, elapsed_ms: float) -> float:
        """The move's time `elapsed_ms` into the search: all of it, or for a search begun by
        `go ponder` the time since `ponderhit`, which the soft limit counts from."""
        return elapsed_ms if self.ponder is None else self.ponder.since_hit_ms(elapsed_ms)

    def soft_limit_passed(self, elapsed_ms: float) -> bool:
        """Between iterations: whether `SOFT_FRACTION` of the soft limit has passed, so that no
        new iteration should start (timecontrol.common); `elapsed_ms` of the move (`move_ms`)."""
        soft = self.hints.soft_remaining_ms
        return soft != math.inf and elapsed_ms >= SOFT_FRACTION * (elapsed_ms + soft)
