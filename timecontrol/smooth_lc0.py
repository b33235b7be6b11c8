"""The `smooth-lc0` preset: Lc0's current smooth manager (v2, HEAD 909a4082, functionally d1237b82).

Source: docs/reference/smooth_time_manager.md sections 1-6 and 8, worked examples in section 10. On
top of the v1 plan (`timecontrol.smooth`) it keeps a piggybank of saved time (#1310, clamps #1530),
clamps the new-node target and the allocation (#1476, #1528), guards a zero allocation (#1527),
smooths NPS with a linear window (#1596), and lets a move dip into the bank when the search asks
for more time, when a second move is catching up with the best (visits-trend watcher, #1762), and
during the first second after the first evaluation (forced bank use, #1762). Defaults are HEAD's
(#1622). Quirks kept on purpose (reference section 8): the NPS snaps to the raw value when two
checks come in the same millisecond; the watcher measures rates between its two latest samples;
time use has no upper clamp and tree reuse no lower clamp. Lc0 computes in float32; this in double
precision, with its integer truncations at the same points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from timecontrol.budget import has_clock
from timecontrol.go import GoParams
from timecontrol.moves_left import LegacyMovesLeft
from timecontrol.options import SpecOptions, read_flag, read_moves_left
from timecontrol.smooth import (
    MIN_NPS_SAMPLE_MS,
    SmoothManager,
    SmoothState,
    SmoothStopper,
    game_overhead_ms,
    move_weight,
    plan_figures,
    raw_nps,
    update_timeuse,
)
from timecontrol.stopper import SearchStats, Stopper, StopperHints


def linear_decay(current: float, target: float, t_ms: float, dt_ms: float,
                 window_ms: float) -> float:
    """Lc0 HEAD's NPS smoothing (reference §3, #1596): rises are taken at once; a fall is
    interpolated linearly so that the estimate reaches `target` at `t_ms = window_ms`:
    current + (target - current) * dt / (window - t_prev)."""
    if current <= target:
        return target
    if dt_ms <= 0:
        return current
    if t_ms >= window_ms:
        return target
    t_prev = t_ms - dt_ms
    return current + (target - current) * dt_ms / (window_ms - t_prev)


@dataclass(frozen=True)
class SmoothLc0Params:
    """HEAD's keys and defaults (reference §1a). `init_nps` is not an option in Lc0 (a fixed
    20000), so the spec refuses `init-nps`; the two `-ms` keys are integers."""

    init_tree_reuse: float = 0.52
    max_tree_reuse: float = 0.73
    tree_reuse_update_rate: float = 3.39
    nps_update_period: float = 20.0
    init_timeuse: float = 0.7
    min_timeuse: float = 0.34
    timeuse_update_rate: float = 5.51
    max_move_budget: float = 0.42
    init_piggybank: float = 0.09
    per_move_piggybank: float = 0.12
    max_piggybank_use: float = 0.94
    max_piggybank_moves: float = 36.5
    trend_nps_update_period_ms: int = 3000
    bestmove_optimism: float = 0.2
    overtaker_optimism: float = 4.0
    force_piggybank_ms: int = 1000
    moves_left: LegacyMovesLeft = field(default_factory=lambda: LegacyMovesLeft(45.2, 5.93))
    init_nps: float = 20000.0
    overhead_per_move: bool = True
    """Keep the overhead back once per expected move (`game_overhead_ms`); 0 is Lc0's once."""
    plan_period: bool = True
    """With `movestogo`, plan for exactly the moves of the period; 0 is Lc0's cap."""

    @classmethod
    def from_options(cls, options: SpecOptions) -> SmoothLc0Params:
        """Read the keys of `smooth-lc0(...)`; each range keeps the formulas finite."""
        d = cls()
        positive, fraction = options.positive, options.fraction

        def count_ms(key: str, default: int) -> int:
            return int(options.number(key, default, minimum=0, integer=True))

        return cls(
            init_tree_reuse=fraction("init-tree-reuse", d.init_tree_reuse, open_top=True),
            max_tree_reuse=fraction("max-tree-reuse", d.max_tree_reuse, open_top=True),
            tree_reuse_update_rate=positive("tree-reuse-update-rate", d.tree_reuse_update_rate),
            nps_update_period=positive("nps-update-period", d.nps_update_period),
            init_timeuse=positive("init-timeuse", d.init_timeuse),
            min_timeuse=positive("min-timeuse", d.min_timeuse),
            timeuse_update_rate=positive("timeuse-update-rate", d.timeuse_update_rate),
            max_move_budget=options.number("max-move-budget", d.max_move_budget, minimum=0.0,
                                           maximum=1.0, min_open=True),
            init_piggybank=fraction("init-piggybank", d.init_piggybank),
            per_move_piggybank=fraction("per-move-piggybank", d.per_move_piggybank),
            max_piggybank_use=fraction("max-piggybank-use", d.max_piggybank_use),
            max_piggybank_moves=options.number("max-piggybank-moves", d.max_piggybank_moves,
                                               minimum=0.0),
            trend_nps_update_period_ms=count_ms("trend-nps-update-period-ms",
                                                d.trend_nps_update_period_ms),
            bestmove_optimism=options.number("bestmove-optimism", d.bestmove_optimism,
                                             minimum=0.0),
            overtaker_optimism=options.number("overtaker-optimism", d.overtaker_optimism,
                                              minimum=0.0),
            force_piggybank_ms=count_ms("force-piggybank-ms", d.force_piggybank_ms),
            moves_left=read_moves_left(options, d.moves_left),
            overhead_per_move=read_flag(options, "overhead-per-move", d.overhead_per_move),
            plan_period=read_flag(options, "plan-period", d.plan_period),
        )


@dataclass
class SmoothLc0State(SmoothState):
    """v1's state plus the piggybank (whole ms) and the first-move flag (reference §1c)."""

    bank_ms: int = 0
    first_move: bool = True


@dataclass(frozen=True)
class SmoothLc0Budget:
    """Every intermediate of one move's budget (reference §2, HEAD steps 1-24)."""

    moves_left: float
    bank_max_ms: float
    game_time_ms: float
    avg_ms: float
    target_total_nodes: float
    new_nodes: float
    brutto_ms: float
    to_bank_ms: float
    netto_ms: float
    alloc_ms: float
    deadline_ms: int
    allowed_ms: int
    bank_ms: int


def _trunc(value: float) -> int:
    """C++ float-to-int conversion: toward zero."""
    return int(value)


def smooth_lc0_budget(params: SmoothLc0Params, state: SmoothLc0State, time_ms: int,
                      inc_ms: int, movestogo: int | None, ply: int, reused_nodes: int,
                      move_overhead_ms: int, *,
                      overhead_per_move: bool = False,
                      plan_period: bool = False) -> SmoothLc0Budget:
    """HEAD's budget, steps 1 and 4-23 of reference §2 (step 2, tree reuse, is the caller's);
    with `overhead_per_move` the game times keep back O*M instead of O (`game_overhead_ms`), and
    with `plan_period` M is movestogo when given.

    Mutates `state.bank_ms` and `state.first_move` (the bank's initialisation, clamp and
    deposit); the caller stores avg_ms and alloc_ms.
    """
    if state.first_move:
        state.bank_ms = _trunc(time_ms * params.init_piggybank)
        state.first_move = False
    moves = params.moves_left.moves_left(ply, movestogo, plan_period)
    inc = max(0, inc_ms)
    reserve = game_overhead_ms(move_overhead_ms, moves, overhead_per_move)
    gross_game_time = max(0.0, time_ms + inc * (moves - 1) - reserve)
    bank_max = params.max_piggybank_moves * gross_game_time / moves
    if state.bank_ms > bank_max:
        state.bank_ms = _trunc(bank_max)
    game_time = max(0.0, time_ms - state.bank_ms + inc * (moves - 1) - reserve)
    avg_new_nodes = game_time * state.nps / 1000.0 / moves
    avg_ms = game_time / moves
    target_total = avg_new_nodes / (1.0 - state.tree_reuse)
    new_nodes = max(0.0, target_total - reused_nodes)
    brutto = new_nodes / state.nps * 1000.0
    to_bank = min(bank_max - state.bank_ms, brutto * params.per_move_piggybank)
    netto = brutto - to_bank
    allowed = _trunc(state.bank_ms * params.max_piggybank_use)
    alloc = netto / state.timeuse
    alloc = min(alloc, time_ms * params.max_move_budget)
    if alloc > time_ms - move_overhead_ms:
        alloc = max(0.0, float(time_ms - move_overhead_ms))
    if allowed > time_ms - move_overhead_ms - alloc:
        allowed = _trunc(time_ms - move_overhead_ms - alloc)
    state.bank_ms = _trunc(state.bank_ms + to_bank)
    return SmoothLc0Budget(moves, bank_max, game_time, avg_ms, target_total, new_nodes, brutto,
                           to_bank, netto, alloc, _trunc(alloc), allowed, state.bank_ms)


@dataclass
class VisitsTrendWatcher:
    """Lc0's visits-trend watcher (#1762, reference §6.2): three (time, visits) snapshots.

    The shift condition `cur.ts + period >= ts` is Lc0's as written: rates come from the two
    latest samples, and once samples are more than a period apart, `prev` freezes.
    """

    period_ms: float
    prev: tuple[float, tuple[int, ...]] | None = None
    cur: tuple[float, tuple[int, ...]] | None = None
    last: tuple[float, tuple[int, ...]] | None = None

    def update(self, ts_ms: float, visits: Sequence[int]) -> None:
        if self.last is not None and ts_ms <= self.last[0]:
            return
        sample = (ts_ms, tuple(visits))
        if self.prev is None:
            self.prev = self.cur = sample
        self.last = sample
        if self.cur is not None and self.cur[0] + self.period_ms >= ts_ms:
            self.prev, self.cur = self.cur, self.last

    def overtaken(self, by_ms: float, bestmove_optimism: float,
                  overtaker_optimism: float) -> bool:
        """Whether, at the current visit rates, another move would pass the most-visited one by
        `by_ms` (the best move's rate scaled by `bestmove_optimism`, the others' by
        `overtaker_optimism`)."""
        if self.prev is None or self.last is None:
            return False
        (prev_ts, prev_v), (last_ts, last_v) = self.prev, self.last
        if prev_ts >= last_ts or by_ms <= last_ts or len(prev_v) != len(last_v) or not last_v:
            return False
        span, ahead = last_ts - prev_ts, by_ms - last_ts
        rates = [(now - before) / span for now, before in zip(last_v, prev_v)]
        best = max(range(len(last_v)), key=lambda i: (last_v[i], -i))
        best_plan = last_v[best] + bestmove_optimism * rates[best] * ahead
        return any(last_v[i] + overtaker_optimism * rates[i] * ahead > best_plan
                   for i in range(len(last_v)) if i != best)


class SmoothLc0Manager(SmoothManager):
    """The `smooth-lc0` preset (Lc0 v2); state across the moves of one game."""

    name = "smooth-lc0"
    equal_trees = False
    """Lc0's stop in time, as it is in Lc0 (`equal-trees=1` makes the trees equal)."""
    params: SmoothLc0Params
    state: SmoothLc0State

    def __init__(self, params: SmoothLc0Params | None = None) -> None:
        super().__init__(params or SmoothLc0Params())

    def _fresh_state(self) -> SmoothLc0State:
        return SmoothLc0State(tree_reuse=self.params.init_tree_reuse,
                              nps=self.params.init_nps, timeuse=self.params.init_timeuse)

    def update_nps(self, time_since_first_eval_ms: float, nodes: int) -> float:
        """HEAD NPS update (reference §3): linear window of nps-update-period seconds; the raw
        value on the first search of the game and, as in Lc0, when two checks fall in the
        same millisecond. Checks within the first millisecond (`MIN_NPS_SAMPLE_MS`)
        after the first evaluation, or with no nodes, change nothing."""
        state = self.state
        t = time_since_first_eval_ms
        if t < MIN_NPS_SAMPLE_MS or nodes <= 0:
            return state.nps
        raw = raw_nps(t, nodes)
        if state.nps_reliable and t > state.last_time_ms:
            state.nps = linear_decay(state.nps, raw, t, t - state.last_time_ms,
                                     1000.0 * self.params.nps_update_period)
        else:
            state.nps = raw
        state.last_time_ms = t
        return state.nps

    def search_done(self, elapsed_ms: float, total_nodes: int, used_bank: bool = False,
                    deadline_ms: int = 0) -> None:
        """End-of-move update (reference §4.2, HEAD): a bank move pays its overrun past the
        deadline from the bank and counts as full time use (sample 1.0, since #1762)."""
        state = self.state
        state.nps_reliable = True
        weight = move_weight(elapsed_ms, state.avg_ms)
        sample = elapsed_ms / state.alloc_ms if state.alloc_ms > 0 else 1.0
        if used_bank:
            state.bank_ms = _trunc(state.bank_ms - max(0.0, elapsed_ms - deadline_ms))
            sample = 1.0
        state.timeuse = update_timeuse(state.timeuse, sample, weight,
                                       self.params.timeuse_update_rate, self.params.min_timeuse)
        state.last_final_nodes = total_nodes

    def make_stopper(self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
                     move_overhead_ms: int) -> Stopper | None:
        if not has_clock(go, white):
            return None
        state = self.state
        reused_nodes = self._update_tree_reuse(reused_nodes)
        budget = smooth_lc0_budget(self.params, state, int(go.clock(white) or 0),
                                   go.increment(white), go.movestogo, ply, reused_nodes,
                                   move_overhead_ms,
                                   overhead_per_move=self.params.overhead_per_move,
                                   plan_period=self.params.plan_period)
        state.avg_ms = budget.avg_ms
        state.alloc_ms = budget.alloc_ms
        figures = {"tm": self.name, "budget_ms": budget.deadline_ms,
                   "hard_ms": budget.deadline_ms + budget.allowed_ms,
                   **plan_figures(budget, state), "bank_ms": budget.bank_ms}
        stopper = SmoothLc0Stopper(self, float(budget.deadline_ms), figures, budget.new_nodes,
                                   allowed_ms=budget.allowed_ms)
        return stopper


@dataclass
class SmoothLc0Stopper(SmoothStopper):
    """HEAD's smooth stopper (reference §6.2): deadline D, bank allowance A, used when the
    search needs more time, a move threatens to overtake the best, or within the forced period.
    """

    allowed_ms: int = 0
    used_bank: bool = False
    watcher: VisitsTrendWatcher = field(init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.watcher = VisitsTrendWatcher(self.manager.params.trend_nps_update_period_ms)

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        manager = self.manager
        params = manager.params
        elapsed = stats.time_since_movestart_ms
        if self._current():
            hints.estimated_nps = manager.update_nps(stats.time_since_first_eval_ms,
                                                     stats.nodes_since_movestart)
        watcher = self.watcher
        if stats.root_visits:
            watcher.update(elapsed, stats.root_visits)
        deadline = self.alloc_ms
        with_bank = deadline + self.allowed_ms
        forced = stats.time_since_first_eval_ms <= params.force_piggybank_ms
        use_bank = (stats.need_more_time or forced
                    or watcher.overtaken(with_bank, params.bestmove_optimism,
                                         params.overtaker_optimism))
        limit = with_bank if use_bank else deadline
        hints.update_remaining_ms(limit - elapsed)
        if use_bank and elapsed >= deadline:
            self.used_bank = True
        return "budget" if elapsed >= limit else None

    def on_search_done(self, stats: SearchStats) -> None:
        if self._current():
            self.manager.search_done(stats.time_since_movestart_ms, stats.total_nodes,
                                     self.used_bank, int(self.alloc_ms))
            self.done = True

    def telemetry(self) -> dict[str, object]:
        return {**super().telemetry(), "used_bank": self.used_bank}
