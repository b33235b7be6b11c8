"""Stockfish's iteration-boundary stop for an iterative search: the manager's budget (the optimum)
scaled by the falling-eval, best-move-stability and best-move-instability factors.

A property of the time manager, not of the search (`TimeManager.iteration_factors`, spec key
`iteration-factors=0/1`): on for `stockfish`, whose allocation they belong to; off for `smooth`
and the others, which keep the plain soft limit (timecontrol.common) so that the trees per move
stay of equal size.

Stockfish src/search.cpp, Search::Worker::iterative_deepening (the master of the reference
snapshot, docs/reference/smooth_time_manager.md section 9), after each completed iteration:

* fallingEval = (16.93 + 2.73 (bestPreviousAverageScore - bestValue)
  + 0.8 (iterValue[iterIdx] - bestValue)) / 100, clamped to [0.610, 1.860]; `iterValue[iterIdx]`
  is the score of four iterations before (a ring of 4, filled at the start of the move with the
  previous move's score, or 0 on the first move of a game);
* timeReduction = interpolate(rootDepth - lastBestMoveDepth, 8, 17, 0.670, 1.440), clamped;
* reduction = (2.100 + previousTimeReduction) / (2.480 timeReduction);
* bestMoveInstability = 0.960 + 1.630 totBestMoveChanges (one thread); `totBestMoveChanges` is
  halved before every iteration and gains the iteration's best-move changes after it;
* the search stops once elapsed > min(optimum * fallingEval * reduction * bestMoveInstability,
  maximum).

Stockfish's thread.cpp (ThreadPool::clear) starts a game with bestPreviousAverageScore =
VALUE_INFINITE (fallingEval at its upper clamp on the first move) and previousTimeReduction 0.85.
Its fifth factor, highBestMoveEffort (the best move's share of the nodes), is not modelled.

Adaptations, all in `StopParams`: scores are centipawns, converted to Stockfish's internal units
(`UNITS_PER_CP`); a new iteration starts only before `SOFT_FRACTION` of the scaled limit, as
with the plain budget (timecontrol.common); and the plies of stability are scaled by
`depth_scale` (Stockfish's window of 8..17 plies was tuned at depths our Python search does not
reach).

Runs on Python 3.9 (PyPy): no 3.10+ syntax at run time.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from timecontrol.common import SOFT_FRACTION

FALLING_BASE = 16.93
FALLING_PREVIOUS = 2.73
FALLING_ITERATION = 0.8
FALLING_MIN = 0.610
FALLING_MAX = 1.860
STABLE_FROM = 8.0
STABLE_FULL = 17.0
REDUCTION_MIN = 0.670
REDUCTION_MAX = 1.440
PREVIOUS_REDUCTION_WEIGHT = 2.100
REDUCTION_DIVISOR = 2.480
INSTABILITY_BASE = 0.960
INSTABILITY_PER_CHANGE = 1.630
FIRST_TIME_REDUCTION = 0.85
"""Stockfish's previousTimeReduction at the start of a game (thread.cpp, ThreadPool::clear)."""
SEARCH_TIME_REDUCTION = 1.0
"""Stockfish's timeReduction before any iteration was judged (iterative_deepening's local): what
a search without a planned budget leaves to the next move."""
UNITS_PER_CP = 3.56
"""Stockfish's internal score units per centipawn: NormalizeToPawnValue = 356 (Stockfish 16.1-17
src/uci.cpp; 100 cp is the score with a 50 % chance to win in self-play)."""
ITER_VALUES = 4
"""Stockfish's `iterValue` ring: fallingEval compares with the score of four iterations before."""


@dataclass(frozen=True)
class StopParams:
    """The adaptations of Stockfish's factors to another search (module docstring)."""

    depth_scale: float = 1.0
    units_per_cp: float = UNITS_PER_CP


@dataclass
class PreviousSearch:
    """What Stockfish keeps from one search to the next (bestPreviousAverageScore,
    bestPreviousScore, previousTimeReduction); a new game starts from the defaults."""

    average_score: float | None = None
    """The best move's average score (cp); None: no previous move (Stockfish's VALUE_INFINITE)."""
    score: int | None = None
    """The last score (cp); fills the ring of iteration scores at the start of the next move."""
    time_reduction: float = FIRST_TIME_REDUCTION


@dataclass(frozen=True)
class IterationFacts:
    """The search's figures at the end of one completed iteration; scores in cp, from the side to
    move's view."""

    elapsed_ms: float
    optimum_ms: float
    hard_ms: float
    completed_depth: int
    last_best_change_depth: int
    best_move_changes: float
    score: int
    score_iterations_before: int
    previous_average_score: float | None
    previous_time_reduction: float


@dataclass(frozen=True)
class IterationDecision:
    """The factors used, the scaled soft limit, and why to stop (None: start another iteration)."""

    falling_eval: float
    time_reduction: float
    reduction: float
    instability: float
    scaled_soft_ms: float
    reason: str | None

    def telemetry(self) -> dict[str, object]:
        """The factors for the `info string tm` record."""
        return {
            "falling_eval": round(self.falling_eval, 4),
            "time_reduction": round(self.time_reduction, 4),
            "reduction": round(self.reduction, 4),
            "bm_instability": round(self.instability, 4),
            "scaled_soft_ms": int(self.scaled_soft_ms),
        }


def clamp(value: float, low: float, high: float) -> float:
    """`value` within [low, high] (std::clamp)."""
    return max(low, min(high, value))


def interpolate(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    """The straight line through (x0, y0) and (x1, y1) at x (Stockfish's misc.h `interpolate`)."""
    return y0 + (x - x0) * (y1 - y0) / (x1 - x0)


def falling_eval(score: int, score_iterations_before: int, previous_average: float | None,
                 params: StopParams = StopParams()) -> float:
    """Stockfish's fallingEval: above 1 when the score fell against the previous move's average
    and against four iterations before, at FALLING_MAX on the first move of a game."""
    if previous_average is None:
        return FALLING_MAX
    units = params.units_per_cp
    value = (FALLING_BASE + FALLING_PREVIOUS * (previous_average - score) * units
             + FALLING_ITERATION * (score_iterations_before - score) * units) / 100.0
    return clamp(value, FALLING_MIN, FALLING_MAX)


def time_reduction(completed_depth: int, last_best_change_depth: int,
                   params: StopParams = StopParams()) -> float:
    """Stockfish's timeReduction: from REDUCTION_MIN (best move new within STABLE_FROM plies) to
    REDUCTION_MAX (unchanged for STABLE_FULL plies), plies scaled by `params.depth_scale`."""
    stable = (completed_depth - last_best_change_depth) / params.depth_scale
    value = interpolate(stable, STABLE_FROM, STABLE_FULL, REDUCTION_MIN, REDUCTION_MAX)
    return clamp(value, REDUCTION_MIN, REDUCTION_MAX)


def reduction(current: float, previous: float) -> float:
    """Stockfish's reduction factor: the time reduction now, tempered by the previous move's."""
    return (PREVIOUS_REDUCTION_WEIGHT + previous) / (REDUCTION_DIVISOR * current)


def best_move_instability(best_move_changes: float) -> float:
    """Stockfish's bestMoveInstability of one thread from the decayed count of changes."""
    return INSTABILITY_BASE + INSTABILITY_PER_CHANGE * best_move_changes


def decide(facts: IterationFacts, params: StopParams = StopParams()) -> IterationDecision:
    """The scaled soft limit, optimum * the factors, never above the hard limit; stop once
    `SOFT_FRACTION` of it has passed: "budget" when the factors lengthened the move (or left it),
    "stable" when they cut it short of the plain budget's stop."""
    falling = falling_eval(facts.score, facts.score_iterations_before,
                           facts.previous_average_score, params)
    reduced = time_reduction(facts.completed_depth, facts.last_best_change_depth, params)
    scale = reduction(reduced, facts.previous_time_reduction)
    unstable = best_move_instability(facts.best_move_changes)
    scaled = min(facts.optimum_ms * falling * scale * unstable, facts.hard_ms)
    reason = None
    if facts.elapsed_ms >= SOFT_FRACTION * scaled:
        reason = "budget" if facts.elapsed_ms >= SOFT_FRACTION * facts.optimum_ms else "stable"
    return IterationDecision(falling, reduced, scale, unstable, scaled, reason)


@dataclass
class IterationHistory:
    """The per-search bookkeeping behind `IterationFacts`: decayed best-move changes, the depth
    of the last best-move change, the ring of iteration scores and each best move's average."""

    previous: PreviousSearch
    best_move_changes: float = 0.0
    last_best_change_depth: int = 0
    last_best: object = None
    iter_values: deque = field(default_factory=deque)
    averages: dict = field(default_factory=dict)
    time_reduction: float = SEARCH_TIME_REDUCTION

    def __post_init__(self) -> None:
        start = 0 if self.previous.score is None else self.previous.score
        self.iter_values = deque([start] * ITER_VALUES, maxlen=ITER_VALUES)

    def start_iteration(self) -> None:
        """Stockfish ages the changes before every iteration (totBestMoveChanges /= 2)."""
        self.best_move_changes /= 2

    def end_iteration(self, depth: int, best: object, score: int, changes: int) -> None:
        """Record a completed iteration: its best move, score and best-move changes; the best
        move's average is Stockfish's RootMove::averageScore, (score + average) / 2."""
        self.best_move_changes += changes
        if best != self.last_best:
            self.last_best = best
            self.last_best_change_depth = depth
        average = self.averages.get(best)
        self.averages[best] = score if average is None else (score + average) / 2

    def facts(self, elapsed_ms: float, optimum_ms: float, hard_ms: float, depth: int,
              score: int) -> IterationFacts:
        """The facts of the iteration just recorded, for `decide`."""
        return IterationFacts(
            elapsed_ms=elapsed_ms, optimum_ms=optimum_ms, hard_ms=hard_ms,
            completed_depth=depth, last_best_change_depth=self.last_best_change_depth,
            best_move_changes=self.best_move_changes, score=score,
            score_iterations_before=self.iter_values[0],
            previous_average_score=self.previous.average_score,
            previous_time_reduction=self.previous.time_reduction,
        )

    def after_check(self, score: int, decision: IterationDecision | None) -> None:
        """After the iteration's stop check: the score joins the ring, and the time reduction
        used is kept for the next move."""
        self.iter_values.append(score)
        if decision is not None:
            self.time_reduction = decision.time_reduction

    def finish(self, score: int) -> None:
        """At the end of the search: what the next move's search starts from."""
        if self.last_best is not None:
            self.previous.average_score = self.averages[self.last_best]
            self.previous.score = score
        self.previous.time_reduction = self.time_reduction
