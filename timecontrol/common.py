"""The limits every move has, added once whatever the manager (Lc0's CommonTimeManager).

After Lc0's src/search/classic/stoppers/common.cc: a manager returns only its own stopper, and
`move_stopper` chains it with the plain limits of `go` (nodes, movetime, depth, mate), the
one-legal-move stop, the hard limit of an iterative search and, in MCTS, smart pruning last
(docs/reference/smooth_time_manager.md section 6.1). The stops that judge the position (one
legal move, smart pruning) apply only to a move the manager plans: `go movetime`, `nodes` and
`depth` alone are exact, as UCI asks ("search exactly x mseconds").

An iterative search (alpha-beta, Greenblatt) reads a manager's budget as a soft limit, as
Stockfish reads its optimum (reference section 9; CPW "Time Management"): no iteration starts past
`SOFT_FRACTION` of it, and a hard limit of at most `HARD_FACTOR` times the budget, never past
`MAX_CLOCK_SHARE` of the clock less the overhead, ends an iteration in its middle. A manager that
asks for them (`TimeManager.iteration_factors`) has the soft limit scaled at every iteration end
by Stockfish's factors (timecontrol.iteration_stop), told to the search through
`StopperHints.iteration_factors`. A manager with `TimeManager.equal_trees` (smooth) ends an
iterative search at the node count it plans instead (`Stopper.planned_nodes`), with no soft time
limit and the same hard one, so that every move ends with a tree of the same size: the seed's
second principle, which iteration ends 4-6 times apart and a move-to-move NPS spread (CV 0.37 at
10+0.1) otherwise undo. MCTS has no iterations: the budget is where it stops.

Runs on Python 3.9 (PyPy): no 3.10+ syntax at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from timecontrol.smart_pruning import SmartPruningStopper
from timecontrol.stopper import (
    ChainedStopper,
    GoParams,
    SearchStats,
    Stopper,
    StopperHints,
    limit_stoppers,
)

SOFT_FRACTION = 0.7
"""An iterative search starts no iteration after this share of the soft limit."""
HARD_FACTOR = 1.3
"""The hard limit of an iterative search as a multiple of the soft limit.

With iterations growing by a factor b (4-6 here), a search stops at the first iteration end past
f*S (f = SOFT_FRACTION, S the soft limit), spread log-uniformly over [f, b*f]*S, or is cut at
h*S. Time (and tree size) per move then spans [f, h]*S: 0.5 and 2.0 (Stockfish-like: its
maximum is 3.4-6.9 times its optimum) gave a nodes-per-move CV of 0.77 for smooth at 10+0.1
(4 games, loaded machine); 0.7 and 1.3 keep the span under 2 so that the tree is about the same
size at every move, as the smooth manager's seed asks, and the time-use estimate learns the mean
(about 1.2)."""
MAX_CLOCK_SHARE = 0.8097
"""The hard limit never passes this share of the clock less the overhead (Stockfish's maximum,
reference section 9)."""


@dataclass
class OnlyMoveStopper(Stopper):
    """A move the manager plans, with one legal reply: answer once anything was searched (Lc0's
    smart pruning stops at once on one root move; Stockfish caps such a move at 500 ms)."""

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        if stats.num_root_moves == 1 and (stats.depth >= 1 or stats.nodes_since_movestart > 0):
            return "only-move"
        return None


def clock_cap_ms(time_ms: int, move_overhead_ms: int) -> float:
    """The latest a search may run on a clock of `time_ms`: MAX_CLOCK_SHARE*time - overhead,
    never below 0."""
    return max(0.0, MAX_CLOCK_SHARE * time_ms - move_overhead_ms)


def hard_limit_ms(soft_ms: float, cap_ms: float) -> float:
    """HARD_FACTOR times the soft limit, at most `cap_ms` (`clock_cap_ms`)."""
    return min(HARD_FACTOR * max(0.0, soft_ms), cap_ms)


@dataclass
class SoftLimitStopper(Stopper):
    """A manager's stopper as an iterative search sees it: its stop becomes the soft limit
    (published as `soft_remaining_ms`), and the search ends at `hard_limit_ms` of it.

    A stopper that publishes a soft limit itself (the `stockfish` baseline's optimum) has its own
    hard limit: its stop is kept, and only the clock cap is added. `iteration_factors` (the
    manager's) is passed on in the hints.
    """

    own: Stopper
    cap_ms: float
    iteration_factors: bool = False
    target_nodes: float | None = None
    """The tree size to stop at (`Stopper.planned_nodes` of an `equal_trees` manager), which
    replaces the soft limit; None: the soft limit in time."""
    hard_ms: float = 0.0

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        elapsed = stats.time_since_movestart_ms
        own = StopperHints()
        reason = self.own.should_stop(stats, own)
        if own.estimated_nps is not None:
            hints.estimated_nps = own.estimated_nps
        hints.update_remaining_nodes(own.remaining_nodes)
        hints.iteration_factors = hints.iteration_factors or self.iteration_factors
        if own.soft_remaining_ms != float("inf"):
            hints.update_soft_ms(own.soft_remaining_ms)
            self.hard_ms = min(elapsed + own.remaining_ms, self.cap_ms)
        else:
            self.hard_ms = hard_limit_ms(elapsed + own.remaining_ms, self.cap_ms)
            if self.target_nodes is None:
                hints.update_soft_ms(own.remaining_ms)
                reason = None
            else:
                reason = self.target_stop(self.target_nodes, stats, hints)
        hints.update_remaining_ms(self.hard_ms - elapsed)
        if reason is None and elapsed >= self.hard_ms:
            reason = "hard-limit"
        return reason

    @staticmethod
    def target_stop(target_nodes: float, stats: SearchStats, hints: StopperHints) -> str | None:
        """"target-nodes" once the planned tree is searched, with the nodes left as a hint so
        that the search checks on exactly that node."""
        left = target_nodes - stats.nodes_since_movestart
        hints.update_remaining_nodes(max(0.0, left))
        return "target-nodes" if left <= 0 else None

    def on_search_done(self, stats: SearchStats) -> None:
        self.own.on_search_done(stats)

    def telemetry(self) -> dict[str, object]:
        return {**self.own.telemetry(), "hard_ms": int(self.hard_ms)}


def move_stopper(own: Stopper | None, go: GoParams, white: bool, move_overhead_ms: int, *,
                 iterative: bool, smart_pruning_factor: float | None = None,
                 iteration_factors: bool = False, equal_trees: bool = False) -> ChainedStopper:
    """The full chain of one move: the manager's stopper (None when it does not plan this move),
    as a soft limit with a hard one in an iterative search, scaled by Stockfish's factors when
    `iteration_factors` (the manager's), or replaced by the planned node count when
    `equal_trees` (the manager's); the limits of `go`; when the manager plans, the one-move
    stop and smart pruning last (`smart_pruning_factor`, MCTS)."""
    chain: list[Stopper] = []
    if own is not None:
        if iterative:
            target = own.planned_nodes() if equal_trees else None
            own = SoftLimitStopper(own, clock_cap_ms(int(go.clock(white) or 0),
                                                     move_overhead_ms), iteration_factors,
                                   target)
        chain.append(own)
    chain.extend(limit_stoppers(go, move_overhead_ms))
    if own is not None:
        chain.append(OnlyMoveStopper())
        if smart_pruning_factor is not None:
            chain.append(SmartPruningStopper(smart_pruning_factor))
    return ChainedStopper(chain)
