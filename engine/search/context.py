"""What every search mode receives (`SearchContext`) and returns (`SearchResult`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from engine.tt import TranspositionTable
from timecontrol.iteration_stop import PreviousSearch
from timecontrol.ponder import PonderStopper
from timecontrol.stopper import ChainedStopper, SearchStats, Stopper

if TYPE_CHECKING:
    from engine.search.mcts_keeper import TreeKeeper


@dataclass
class SearchContext:
    """One `go`: the position (with its game history), limits, tables and output.

    `stopper` is consulted at iteration boundaries and every few hundred nodes; `stop_event` is
    set by the UCI `stop` command; `send` writes one protocol line; `throttle`, if given, is called
    with the current statistics at every periodic check (the strength limiter's NPS throttle).
    """

    board: chess.Board
    evaluator: object
    tt: TranspositionTable
    stopper: Stopper = field(default_factory=ChainedStopper)
    send: Callable[[str], None] = print
    stop_event: threading.Event = field(default_factory=threading.Event)
    multipv: int = 1
    contempt: int = 0
    max_depth: int = 64
    start_time: float = field(default_factory=time.perf_counter)
    throttle: Callable[[SearchStats], None] | None = None
    searchmoves: list[chess.Move] = field(default_factory=list)
    """Root moves to consider (UCI `go searchmoves`); empty means all legal moves."""
    check_nodes: int | None = None
    """Most nodes between two periodic checks, if set (the NPS throttle's granularity)."""
    steady_checks: bool = False
    """Alpha-beta: check every CHECK_INTERVAL nodes (or `check_nodes`) whatever the speed, so
    that a search whose limits are not in time (the bench) executes the same instructions in
    every run; otherwise checks also come every CHECK_WINDOW_MS at the speed so far."""
    value_scale: int = 400
    """MCTS: centipawns of the logistic mapping of evaluations to values (option ValueScale)."""
    tree_keeper: TreeKeeper | None = None
    """MCTS: where the tree is kept between moves (the engine's); None starts every search fresh."""
    previous_search: PreviousSearch = field(default_factory=PreviousSearch)
    """Alpha-beta: what the previous move's search left for the iteration stop (the engine's,
    kept for one game); a fresh one plays every search as a game's first move."""
    ponder: PonderStopper | None = None
    """A search begun by `go ponder`: its stopper (in the chain), which tells the move's time."""
    choice_margin: int | None = None
    """Alpha-beta with a line for every root move: a root move scoring more than this many
    centipawns below the best can never be chosen (the error budget the strength limiter drew for
    this move), and one reaching the floor is eligible whatever its score, so every root move but
    the best is only placed against the floor and the best (`RootLine.bound`); None scores every
    move exactly."""


@dataclass
class RootLine:
    """One scored root move (one MultiPV line), score from the root side's view; `bound` as
    UCI says it when the score is only a bound: "upperbound" for a move proven below the choice
    margin's floor, None when exact (every move that reaches the floor is)."""

    move: chess.Move
    score: int
    pv: list[chess.Move]
    bound: str | None = None


@dataclass
class SearchResult:
    """The outcome of one search."""

    best_move: chess.Move | None
    score: int
    depth: int
    seldepth: int
    nodes: int
    time_ms: float
    stop_reason: str
    pv: list[chess.Move] = field(default_factory=list)
    lines: list[RootLine] = field(default_factory=list)
    reused_nodes: int = 0
    stop_figures: dict[str, object] = field(default_factory=dict)
    """The iteration stop's factors at the last iteration boundary
    (`timecontrol.iteration_stop.IterationDecision.telemetry`); empty when no manager planned the
    move or the manager did not ask for the factors."""

    @property
    def ponder(self) -> chess.Move | None:
        """The expected reply (second PV move), if any."""
        return self.pv[1] if len(self.pv) > 1 else None
