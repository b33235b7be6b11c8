"""The stopper of a search begun by UCI `go ponder`: no stop until `ponderhit`, then the move's.

UCI (section "go", "ponder" and "ponderhit"): under `go ponder` the engine searches the position
after its expected reply without a limit and answers only after `ponderhit` or `stop`; at
`ponderhit` "the engine should continue searching but switch from pondering to normal search".
A harness charges the move's time from `ponderhit` (cutechess: the clock starts at
`ChessPlayer::go`, which sends `ponderhit`), so the move's stopper sees the search as if it began
there: its time and nodes count from the hit, and the tree grown while pondering counts as reused
(the smooth managers' tree reuse; Lc0 likewise starts its ponderhit search on the ponder tree).

The stopper is made at the first check after the hit, on the search's own thread (`make` is
given the nodes searched so far), with the `go` the ponder search was given: its clock.

An iterative search that pondered longer than the move may spend has its answer at the hit:
Stockfish sets `stopOnPonderhit` at an iteration's end when the time since `go ponder` passes
its total time, and its `MainThread::check_time` stops at the first check after `ponderhit`
(src/search.cpp). Here, at the first check after the hit, a search that completed an iteration
and pondered at least `SOFT_FRACTION` of the move's soft limit stops ("ponderhit"): otherwise the
iteration running at the hit, begun without a limit, would usually run on to the hard limit.
Only a soft limit can be passed so: a manager that plans a tree size instead (`equal_trees`, as
the smooth manager in alpha-beta) has the search grow that tree from the hit, as Lc0 does.

Runs on Python 3.9 (PyPy): no 3.10+ syntax at run time.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

from timecontrol.common import SOFT_FRACTION
from timecontrol.stopper import SearchStats, Stopper, StopperHints

PONDERED_ENOUGH = "ponderhit"
"""The stop reason of a search that had pondered past the move's soft limit at the hit."""


class PonderStopper(Stopper):
    """Never stops before `hit`; afterwards asks the stopper `make(total_nodes)` gives, with the
    statistics rebased to the hit, and stops an `iterative` search that pondered enough at once
    (see the module docstring). Its telemetry carries `"ponder": true`."""

    def __init__(self, make: Callable[[int], Stopper], iterative: bool = False) -> None:
        self.make = make
        self.iterative = iterative
        self.hit_ms: float | None = None
        self.own: Stopper | None = None
        self.base: SearchStats | None = None

    @property
    def pondering(self) -> bool:
        """Whether `ponderhit` has not come yet."""
        return self.hit_ms is None

    def hit(self, elapsed_ms: float) -> None:
        """`ponderhit`, `elapsed_ms` after the search began (the move's time starts there)."""
        if self.hit_ms is None:
            self.hit_ms = elapsed_ms

    def since_hit_ms(self, elapsed_ms: float) -> float:
        """The move's time at `elapsed_ms` of the search (all of it while still pondering)."""
        return elapsed_ms if self.hit_ms is None else max(0.0, elapsed_ms - self.hit_ms)

    def rebased(self, stats: SearchStats) -> SearchStats:
        """`stats` as the move's stopper sees them: from the hit, the ponder tree reused."""
        base = self.base
        if base is None or self.hit_ms is None:
            return stats
        return dataclasses.replace(
            stats,
            time_since_movestart_ms=self.since_hit_ms(stats.time_since_movestart_ms),
            time_since_first_eval_ms=max(0.0, stats.time_since_first_eval_ms - self.hit_ms),
            nodes_since_movestart=stats.nodes_since_movestart - base.nodes_since_movestart,
            reused_nodes=base.total_nodes,
        )

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        if self.hit_ms is None:
            return None
        first = self.own is None
        if first:
            self.base = dataclasses.replace(stats)
            self.own = self.make(stats.total_nodes)
        rebased = self.rebased(stats)
        reason = self.own.should_stop(rebased, hints)
        if reason is None and first and self.pondered_enough(rebased, hints):
            reason = PONDERED_ENOUGH
        return reason

    def pondered_enough(self, stats: SearchStats, hints: StopperHints) -> bool:
        """Whether an iterative search with a completed iteration pondered at least
        `SOFT_FRACTION` of the move's soft limit (`stats` rebased to the hit)."""
        soft = hints.soft_remaining_ms
        if not self.iterative or stats.depth < 1 or self.hit_ms is None or soft == math.inf:
            return False
        return self.hit_ms >= SOFT_FRACTION * (stats.time_since_movestart_ms + soft)

    def on_search_done(self, stats: SearchStats) -> None:
        if self.own is not None:
            self.own.on_search_done(self.rebased(stats))

    def telemetry(self) -> dict[str, object]:
        own = self.own.telemetry() if self.own is not None else {}
        return {**own, "ponder": True}
