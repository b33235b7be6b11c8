"""Baseline managers to compare the smooth manager against: fraction, stockfish, movetime.

None of them learns across moves (Stockfish keeps one per-game factor, `adj`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from timecontrol.budget import BudgetStopper, has_clock
from timecontrol.go import GoParams
from timecontrol.manager import TimeManager
from timecontrol.options import SpecOptions
from timecontrol.stopper import SearchStats, Stopper, StopperHints


@dataclass(frozen=True)
class FractionParams:
    """`fraction(moves=30.0,inc-use=0.8,max-move-budget=0.5)`.

    `moves`: moves assumed left when `movestogo` is absent; `inc-use`: share of the increment
    spent on each move; `max-move-budget`: hard cap as a share of the clock.
    """

    moves: float = 30.0
    inc_use: float = 0.8
    max_move_budget: float = 0.5

    @classmethod
    def from_options(cls, options: SpecOptions) -> FractionParams:
        return cls(
            moves=options.number("moves", cls.moves, minimum=1.0),
            inc_use=options.number("inc-use", cls.inc_use, minimum=0.0, maximum=1.0),
            max_move_budget=options.number("max-move-budget", cls.max_move_budget,
                                           minimum=0.0, maximum=1.0, min_open=True),
        )


def fraction_budget(params: FractionParams, time_ms: int, inc_ms: int,
                    movestogo: int | None, move_overhead_ms: int) -> tuple[float, float]:
    """(moves left, budget ms): time/M + inc_use*inc, capped at max_move_budget*time and at
    time - overhead, never below 0; M = min(moves, movestogo). The textbook rule (Chessprogramming
    wiki, "Time Management", Sudden Death: programs assume 25..40 more moves and divide the
    remaining time by that; with regular controls, by the moves to go)."""
    moves = params.moves
    if movestogo is not None and 0 < movestogo < moves:
        moves = float(movestogo)
    budget = time_ms / moves + params.inc_use * inc_ms
    budget = min(budget, params.max_move_budget * time_ms, time_ms - move_overhead_ms)
    return moves, max(0.0, budget)


class FractionManager(TimeManager):
    """A fixed fraction of the clock plus most of the increment, stopping hard at the budget."""

    name = "fraction"

    def __init__(self, params: FractionParams | None = None) -> None:
        self.params = params or FractionParams()

    def make_stopper(self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
                     move_overhead_ms: int) -> Stopper | None:
        if not has_clock(go, white):
            return None
        moves, budget = fraction_budget(self.params, int(go.clock(white) or 0),
                                        go.increment(white), go.movestogo, move_overhead_ms)
        figures = {"tm": self.name, "budget_ms": int(budget), "moves_left": round(moves, 4)}
        return BudgetStopper(budget, figures)


@dataclass(frozen=True)
class MovetimeParams:
    """`movetime(ms=1000)`: think `ms` per move, never more than the clock less the overhead."""

    ms: float = 1000.0

    @classmethod
    def from_options(cls, options: SpecOptions) -> MovetimeParams:
        return cls(ms=options.number("ms", cls.ms, minimum=0.0))


class MovetimeManager(TimeManager):
    """A fixed time per move, capped at clock - overhead so that it cannot lose on time."""

    name = "movetime"

    def __init__(self, params: MovetimeParams | None = None) -> None:
        self.params = params or MovetimeParams()

    def make_stopper(self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
                     move_overhead_ms: int) -> Stopper | None:
        if not has_clock(go, white):
            return None
        time_ms = int(go.clock(white) or 0)
        budget = max(0.0, min(self.params.ms, time_ms - move_overhead_ms))
        figures = {"tm": self.name, "budget_ms": int(budget)}
        return BudgetStopper(budget, figures)


@dataclass(frozen=True)
class StockfishBudget:
    """Stockfish's optimum and maximum think time for one move, with the moves-to-go used."""

    moves_to_go: int
    time_left: float
    optimum_ms: int
    maximum_ms: int
    adj: float | None


def stockfish_budget(time_ms: int, inc_ms: int, movestogo: int | None, ply: int,
                     overhead_ms: float, adj: float | None) -> StockfishBudget:
    """Stockfish's TimeManagement::init (snapshot 762dd1da, reference section 9).

    `adj` is the per-game factor: computed from timeLeft at the first sudden-death move when
    None, and returned in the budget to be kept. Optimum and maximum are whole ms, truncated as
    Stockfish's TimePoint; mtg is at least 1 (a guard for clocks under 20 ms).
    """
    mtg = min(movestogo, 50) if movestogo else 50
    if time_ms < 1000:
        mtg = int(0.05 * time_ms)
    mtg = max(1, mtg)
    time_left = max(1.0, time_ms + inc_ms * (mtg - 1) - overhead_ms * (2 + mtg))
    if not movestogo:
        if adj is None:
            adj = 0.3272 * math.log10(time_left) - 0.4141
        log_time = math.log10(max(time_ms, 1) / 1000.0)
        opt_constant = min(0.0029869 + 0.00033554 * log_time, 0.004905)
        max_constant = max(3.3744 + 3.0608 * log_time, 3.1441)
        opt_scale = min(0.012112 + (ply + 3.22713) ** 0.46866 * opt_constant,
                        0.19404 * time_ms / time_left) * adj
        max_scale = min(6.873, max_constant + ply / 12.352)
    else:
        opt_scale = min((0.88 + ply / 116.4) / mtg, 0.88 * time_ms / time_left)
        max_scale = 1.3 + 0.11 * mtg
    optimum = max(1, int(opt_scale * time_left))
    maximum = max(optimum, int(min(0.8097 * time_ms - overhead_ms, max_scale * optimum)))
    return StockfishBudget(mtg, time_left, optimum, maximum, adj)


@dataclass
class StockfishStopper(Stopper):
    """Hard stop at the maximum; the optimum is published as the soft limit, which an iterative
    search scales by Stockfish's dynamic factors after each iteration when the manager asks for
    them (`StockfishManager.iteration_factors`, timecontrol.iteration_stop), and where MCTS
    stops."""

    budget: StockfishBudget
    figures: dict[str, object]

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        elapsed = stats.time_since_movestart_ms
        hints.update_soft_ms(self.budget.optimum_ms - elapsed)
        hints.update_remaining_ms(self.budget.maximum_ms - elapsed)
        return "budget" if elapsed >= self.budget.maximum_ms else None

    def telemetry(self) -> dict[str, object]:
        return dict(self.figures)


@dataclass(frozen=True)
class StockfishParams:
    """`stockfish(move-overhead=10)`: the overhead in Stockfish's formula, its default 10 ms.

    The formula reserves it per remaining move (overhead*(2+mtg)), so the engine's own Move
    Overhead (then 50 ms) there left 1 ms budgets below ~2.6 s of clock (issue 16); the
    engine's overhead still caps the maximum at clock - overhead.
    """

    move_overhead: float = 10.0

    @classmethod
    def from_options(cls, options: SpecOptions) -> StockfishParams:
        return cls(move_overhead=options.number("move-overhead", cls.move_overhead,
                                                minimum=0.0))


class StockfishManager(TimeManager):
    """Stockfish's optimum/maximum time manager (reference section 9) with Stockfish's own
    move overhead (`StockfishParams`); its optimum is scaled by Stockfish's iteration factors,
    as in Stockfish's iterative_deepening, unless the spec says `iteration-factors=0`."""

    name = "stockfish"
    iteration_factors = True

    def __init__(self, params: StockfishParams | None = None) -> None:
        self.params = params or StockfishParams()
        self.adj: float | None = None

    def new_game(self) -> None:
        """Stockfish resets its `originalTimeAdjust` on ucinewgame."""
        self.adj = None

    def make_stopper(self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
                     move_overhead_ms: int) -> Stopper | None:
        if not has_clock(go, white):
            return None
        time_ms = int(go.clock(white) or 0)
        budget = stockfish_budget(time_ms, go.increment(white), go.movestogo, ply,
                                  self.params.move_overhead, self.adj)
        self.adj = budget.adj
        cap = max(0, time_ms - move_overhead_ms)
        if budget.maximum_ms > cap:
            budget = replace(budget, optimum_ms=min(budget.optimum_ms, cap), maximum_ms=cap)
        figures = {"tm": self.name, "budget_ms": budget.optimum_ms,
                   "hard_ms": budget.maximum_ms, "moves_left": float(budget.moves_to_go)}
        return StockfishStopper(budget, figures)
