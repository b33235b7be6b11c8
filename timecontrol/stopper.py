"""What a search tells a stopper, what the stopper answers, and the stoppers of `go`'s limits.

After Lc0's stoppers (src/search/classic/stoppers/stoppers.h): a time manager lives for a game and
hands out one `Stopper` per move; the search calls `should_stop` with a `SearchStats` snapshot at
iteration boundaries and every few thousand nodes, and reads back the `StopperHints` the stoppers
filled (estimated NPS, remaining time and nodes). When the move is made, `on_search_done` is called
once. Everything here is arithmetic on the records: no clocks, no threads, no I/O.

Runs on Python 3.9 (PyPy): no 3.10+ syntax at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from timecontrol.go import GoParams


@dataclass
class SearchStats:
    """A snapshot of the search at one stopper check (Lc0's IterationStats).

    Alpha-beta fills `depth` with the last completed iteration and leaves `root_visits` empty;
    MCTS fills `root_visits` (visits per root move) and counts `nodes` as visits, and sets
    `need_more_time` when the most-visited root move is not the best by value (Lc0's
    kNeedMoreTime hint, read by the smooth-lc0 stopper).
    """

    time_since_movestart_ms: float = 0.0
    time_since_first_eval_ms: float = 0.0
    nodes_since_movestart: int = 0
    total_nodes: int = 0
    reused_nodes: int = 0
    depth: int = 0
    num_root_moves: int = 0
    root_visits: Sequence[int] = ()
    mate_found: int | None = None
    need_more_time: bool = False


@dataclass
class StopperHints:
    """What the stoppers tell the search back; reset before every check (Lc0's StoppersHints).

    `remaining_ms` is the time to the hard limit, where a search stops wherever it is;
    `soft_remaining_ms` the time to the soft limit (Stockfish's optimum), after which an
    iterative search starts no new iteration and any other search stops; `iteration_factors`
    that the manager asks an iterative search to scale the soft limit by Stockfish's
    iteration-boundary factors (timecontrol.iteration_stop) instead of reading it as it is.
    """

    estimated_nps: float | None = None
    remaining_ms: float = math.inf
    remaining_nodes: float = math.inf
    soft_remaining_ms: float = math.inf
    iteration_factors: bool = False

    def reset(self) -> None:
        """Forget the previous check's hints."""
        self.estimated_nps = None
        self.remaining_ms = math.inf
        self.remaining_nodes = math.inf
        self.soft_remaining_ms = math.inf
        self.iteration_factors = False

    def update_remaining_ms(self, ms: float) -> None:
        """Keep the smallest remaining time any stopper reports."""
        self.remaining_ms = min(self.remaining_ms, ms)

    def update_soft_ms(self, ms: float) -> None:
        """Keep the smallest time to a soft limit any stopper reports."""
        self.soft_remaining_ms = min(self.soft_remaining_ms, ms)

    def update_remaining_nodes(self, nodes: float) -> None:
        """Keep the smallest remaining node count any stopper reports."""
        self.remaining_nodes = min(self.remaining_nodes, nodes)


class Stopper:
    """Decides, check by check, whether the search of one move should end; never, by default."""

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        """Return the reason to stop now (for example "budget" or "nodes"), or None to go on."""
        return None

    def on_search_done(self, stats: SearchStats) -> None:
        """Called once when the move is made, whichever stopper ended the search."""

    def planned_nodes(self) -> float | None:
        """The tree size the manager plans for this move when it plans in nodes (the smooth
        manager's target), None when it plans in time only; an iterative search of a manager
        with `equal_trees` stops there (timecontrol.common)."""
        return None

    def telemetry(self) -> dict[str, object]:
        """Per-move figures for the `info string tm` line; keys it does not have are absent."""
        return {}


@dataclass
class NodesStopper(Stopper):
    """`go nodes N`: stop once N nodes (visits) were searched for this move."""

    limit: int

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        hints.update_remaining_nodes(self.limit - stats.nodes_since_movestart)
        return "nodes" if stats.nodes_since_movestart >= self.limit else None


@dataclass
class TimeLimitStopper(Stopper):
    """A hard wall-clock limit in ms (`go movetime` less the move overhead)."""

    limit_ms: float
    reason: str = "movetime"

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        hints.update_remaining_ms(self.limit_ms - stats.time_since_movestart_ms)
        return self.reason if stats.time_since_movestart_ms >= self.limit_ms else None


@dataclass
class DepthStopper(Stopper):
    """`go depth D`: stop once iteration D has completed."""

    limit: int

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        return "depth" if stats.depth >= self.limit else None


@dataclass
class MateStopper(Stopper):
    """`go mate N`: stop once a mate in at most N moves was found."""

    moves: int

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        found = stats.mate_found
        return "mate" if found is not None and 0 < found <= self.moves else None


@dataclass
class ChainedStopper(Stopper):
    """Several stoppers checked in order; the first that says stop ends the check (Lc0's chain)."""

    stoppers: list[Stopper] = field(default_factory=list)

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        for stopper in self.stoppers:
            reason = stopper.should_stop(stats, hints)
            if reason is not None:
                return reason
        return None

    def on_search_done(self, stats: SearchStats) -> None:
        for stopper in self.stoppers:
            stopper.on_search_done(stats)

    def telemetry(self) -> dict[str, object]:
        merged: dict[str, object] = {}
        for stopper in self.stoppers:
            merged.update(stopper.telemetry())
        return merged


def limit_stoppers(go: GoParams, move_overhead_ms: int = 0) -> list[Stopper]:
    """The plain limits of `go` (nodes, movetime, depth, mate) as stoppers, in Lc0's chain order."""
    chain: list[Stopper] = []
    if go.nodes is not None:
        chain.append(NodesStopper(go.nodes))
    if go.movetime is not None:
        chain.append(TimeLimitStopper(max(0, go.movetime - move_overhead_ms)))
    if go.depth is not None:
        chain.append(DepthStopper(go.depth))
    if go.mate is not None:
        chain.append(MateStopper(go.mate))
    return chain
