"""The `smooth` preset: the seed's smooth time manager (Lc0 PR 1195) with Lc0's time-loss fixes.

Sources: the seed (Lc0 "PR1195: Time management update") for
the design and the nine parameters with their defaults; docs/reference/smooth_time_manager.md for
the
merged formulas (v1, Lc0 e0b6ef38 with the #1243 NPS fix c697680a), plus the #1476 clamp
(abed0c53: new-node target >= 0), the #1528 clamp (45418855: allocation <= clock - overhead) and,
because a zero allocation is then possible, the #1527 guard (9fa7bfac: time-use sample 1.0 when
the allocation was 0). Worked examples: reference section 12 (S1-S6 and the estimator updates).

Idea: every move should end with a tree of the same total size. Plan the remaining game in nodes,
divide by the moves left, scale up for the part of the tree the next move will reuse, subtract
what is already reused, convert to time with the NPS estimate, and stretch by the share of its
budget a search really uses (smart pruning stops early). NPS, tree reuse and time use are running
averages, updated in units of "average move times" so that instant moves barely count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from timecontrol.budget import has_clock
from timecontrol.go import GoParams
from timecontrol.manager import TimeManager
from timecontrol.moves_left import LegacyMovesLeft
from timecontrol.options import SpecOptions, read_flag, read_moves_left
from timecontrol.stopper import SearchStats, Stopper, StopperHints


def exponential_decay(start: float, target: float, step: float, value: float) -> float:
    """Move from `start` towards `target`, halfway per `step` of `value`:
    target - (target - start) * 0.5^(value/step) (seed, "Exponential decay"; reference §3)."""
    return target - (target - start) * 0.5 ** (value / step)


def move_weight(actual_ms: float, avg_ms: float) -> float:
    """How many "average move times" a search of `actual_ms` counts for: actual/avg, 0 when the
    average is not positive (seed, "What is an average move time?"; reference §4)."""
    return actual_ms / avg_ms if avg_ms > 0 else 0.0


def update_tree_reuse(reuse: float, sample: float, weight: float, rate: float,
                      max_reuse: float) -> float:
    """Running tree reuse after one sample (reused nodes / previous final nodes), decayed by
    `weight` average move times with half-life `rate`, clamped above only (reference §4.1)."""
    return min(exponential_decay(reuse, sample, rate, weight), max_reuse)


def update_timeuse(timeuse: float, sample: float, weight: float, rate: float,
                   min_timeuse: float) -> float:
    """Running time use after one sample (time used / time allocated), clamped below only
    (reference §4.2)."""
    return max(exponential_decay(timeuse, sample, rate, weight), min_timeuse)


def raw_nps(time_since_first_eval_ms: float, nodes: int) -> float:
    """Nodes per second of this search so far (reference §3)."""
    return 1000.0 * nodes / time_since_first_eval_ms


MIN_NPS_SAMPLE_MS = 1.0
"""Lc0 times its searches in whole milliseconds, so a check a fraction of a millisecond after the
first evaluation is no NPS sample there: one playout in 0.004 ms would read as 250k NPS where the
search makes 450, and smart pruning would then never fire (issue 16)."""


@dataclass(frozen=True)
class SmoothParams:
    """The seed's parameter table with its defaults (seed, "Parameter list"), and mle-legacy at
    Lc0 v1's (51.5, 7.0)."""

    init_tree_reuse: float = 0.5
    max_tree_reuse: float = 0.7
    tree_reuse_update_rate: float = 4.0
    init_nps: float = 20000.0
    nps_update_rate: float = 5.0
    init_timeuse: float = 0.7
    min_timeuse: float = 0.3
    timeuse_update_rate: float = 10.0
    max_move_budget: float = 0.3
    moves_left: LegacyMovesLeft = field(default_factory=LegacyMovesLeft)
    overhead_per_move: bool = True
    """Keep the overhead back once per expected move (`game_overhead_ms`); 0 is Lc0's once."""
    plan_period: bool = True
    """With `movestogo`, plan for exactly the moves of the period; 0 is Lc0's cap."""

    @classmethod
    def from_options(cls, options: SpecOptions) -> SmoothParams:
        """Read the keys of `smooth(...)`; each range keeps the formulas finite."""
        d = cls()
        positive, fraction = options.positive, options.fraction
        return cls(
            init_tree_reuse=fraction("init-tree-reuse", d.init_tree_reuse, open_top=True),
            max_tree_reuse=fraction("max-tree-reuse", d.max_tree_reuse, open_top=True),
            tree_reuse_update_rate=positive("tree-reuse-update-rate", d.tree_reuse_update_rate),
            init_nps=positive("init-nps", d.init_nps),
            nps_update_rate=positive("nps-update-rate", d.nps_update_rate),
            init_timeuse=positive("init-timeuse", d.init_timeuse),
            min_timeuse=positive("min-timeuse", d.min_timeuse),
            timeuse_update_rate=positive("timeuse-update-rate", d.timeuse_update_rate),
            max_move_budget=options.number("max-move-budget", d.max_move_budget, minimum=0.0,
                                           maximum=1.0, min_open=True),
            moves_left=read_moves_left(options, d.moves_left),
            overhead_per_move=read_flag(options, "overhead-per-move", d.overhead_per_move),
            plan_period=read_flag(options, "plan-period", d.plan_period),
        )


@dataclass
class SmoothState:
    """What the manager carries from move to move (reference §1c); a new game starts afresh."""

    tree_reuse: float
    nps: float
    timeuse: float
    nps_reliable: bool = False
    avg_ms: float = 0.0
    alloc_ms: float = 0.0
    last_final_nodes: int = 0
    last_time_ms: float = 0.0

    @classmethod
    def fresh(cls, params: SmoothParams) -> SmoothState:
        return cls(tree_reuse=params.init_tree_reuse, nps=params.init_nps,
                   timeuse=params.init_timeuse)


@dataclass(frozen=True)
class SmoothBudget:
    """Every intermediate of one move's budget (reference §2 and the columns of §12)."""

    moves_left: float
    game_time_ms: float
    avg_ms: float
    target_total_nodes: float
    new_nodes: float
    expected_ms: float
    alloc_ms: float


def game_overhead_ms(move_overhead_ms: int, moves: float, per_move: bool) -> float:
    """The overhead the plan keeps back from the game time: O once (Lc0, reference §2), or O for
    each of the M expected moves (`per_move`, as Stockfish's timeLeft reserves overhead*(2+mtg),
    reference §9): latency is paid at every move, and without a per-move reserve a sudden-death
    game with 25-30 ms of real latency under a 50 ms overhead flags near move 75 (issue 16)."""
    return move_overhead_ms * (max(1.0, moves) if per_move else 1.0)


def smooth_budget(params: SmoothParams, state: SmoothState, time_ms: int, inc_ms: int,
                  movestogo: int | None, ply: int, reused_nodes: int,
                  move_overhead_ms: int, *, overhead_per_move: bool = False,
                  plan_period: bool = False) -> SmoothBudget:
    """One move's allocation (reference §2, v1 column, with the #1476 and #1528 clamps):

    M = MLE(ply) capped by movestogo; T = max(0, time + inc*(M-1) - O); avg_ms = T/M;
    target_total = (T*nps/1000/M) / (1 - r); new = max(0, target_total - N0);
    expected = new/nps*1000; alloc = min(expected/u, max_move_budget*time, max(0, time - O)).
    With `overhead_per_move`, T keeps back O*M instead of O (`game_overhead_ms`); with
    `plan_period`, M is movestogo when given (`LegacyMovesLeft.moves_left`).
    """
    moves = params.moves_left.moves_left(ply, movestogo, plan_period)
    inc = max(0, inc_ms)
    reserve = game_overhead_ms(move_overhead_ms, moves, overhead_per_move)
    game_time = max(0.0, time_ms + inc * (moves - 1) - reserve)
    avg_new_nodes = game_time * state.nps / 1000.0 / moves
    target_total = avg_new_nodes / (1.0 - state.tree_reuse)
    new_nodes = max(0.0, target_total - reused_nodes)
    expected = new_nodes / state.nps * 1000.0
    alloc = expected / state.timeuse
    alloc = min(alloc, time_ms * params.max_move_budget)
    alloc = min(alloc, max(0.0, float(time_ms - move_overhead_ms)))
    return SmoothBudget(moves, game_time, game_time / moves, target_total, new_nodes, expected,
                        alloc)


class SmoothManager(TimeManager):
    """The `smooth` preset: state across the moves of one game, one `SmoothStopper` per move."""

    name = "smooth"
    equal_trees = True

    def __init__(self, params: SmoothParams | None = None) -> None:
        self.params = params or SmoothParams()
        self.state = self._fresh_state()
        self.generation = 0

    def _fresh_state(self) -> SmoothState:
        return SmoothState.fresh(self.params)

    def new_game(self) -> None:
        self.state = self._fresh_state()
        self.generation += 1

    def _update_tree_reuse(self, reused_nodes: int | None) -> int:
        """Deferred tree-reuse update at the start of the next budget (reference §4.1): the
        sample is N0 / last final nodes, weighted by the last search time over the old avg_ms.
        A search that keeps no tree (`reused_nodes` None, alpha-beta) has tree reuse 0 from the
        start: the initial 0.5 would double its early budgets (issue 16). Returns N0."""
        state = self.state
        if reused_nodes is None:
            state.tree_reuse = 0.0
            state.last_time_ms = 0.0
            return 0
        if state.last_final_nodes != 0 and state.last_time_ms != 0:
            sample = reused_nodes / state.last_final_nodes
            weight = move_weight(state.last_time_ms, state.avg_ms)
            state.tree_reuse = update_tree_reuse(state.tree_reuse, sample, weight,
                                                 self.params.tree_reuse_update_rate,
                                                 self.params.max_tree_reuse)
        state.last_time_ms = 0.0
        return reused_nodes

    def update_nps(self, time_since_first_eval_ms: float, nodes: int) -> float:
        """v1 NPS smoothing after the #1243 fix (reference §3): exponential decay towards the
        raw NPS with half-life nps-update-rate seconds of search; the raw value itself on the
        first search of the game. Checks within the first millisecond (`MIN_NPS_SAMPLE_MS`)
        after the first evaluation, or with no nodes, change nothing."""
        state = self.state
        t = time_since_first_eval_ms
        if t < MIN_NPS_SAMPLE_MS or nodes <= 0:
            return state.nps
        raw = raw_nps(t, nodes)
        if state.nps_reliable and t >= state.last_time_ms:
            seconds = (t - state.last_time_ms) / 1000.0
            state.nps = exponential_decay(state.nps, raw, self.params.nps_update_rate, seconds)
        else:
            state.nps = raw
        state.last_time_ms = t
        return state.nps

    def search_done(self, elapsed_ms: float, total_nodes: int) -> None:
        """End-of-move update (reference §4.2): time-use sample elapsed/alloc (1.0 after a zero
        allocation, #1527), weighted by elapsed/avg_ms; NPS becomes reliable."""
        state = self.state
        state.nps_reliable = True
        weight = move_weight(elapsed_ms, state.avg_ms)
        sample = elapsed_ms / state.alloc_ms if state.alloc_ms > 0 else 1.0
        state.timeuse = update_timeuse(state.timeuse, sample, weight,
                                       self.params.timeuse_update_rate, self.params.min_timeuse)
        state.last_final_nodes = total_nodes

    def make_stopper(self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
                     move_overhead_ms: int) -> Stopper | None:
        if not has_clock(go, white):
            return None
        reused_nodes = self._update_tree_reuse(reused_nodes)
        state = self.state
        budget = smooth_budget(self.params, state, int(go.clock(white) or 0),
                               go.increment(white), go.movestogo, ply, reused_nodes,
                               move_overhead_ms,
                               overhead_per_move=self.params.overhead_per_move,
                               plan_period=self.params.plan_period)
        state.avg_ms = budget.avg_ms
        state.alloc_ms = budget.alloc_ms
        figures = {"tm": self.name, "budget_ms": int(budget.alloc_ms),
                   "hard_ms": int(budget.alloc_ms), **plan_figures(budget, state)}
        return SmoothStopper(self, budget.alloc_ms, figures, budget.new_nodes)


def plan_figures(budget: SmoothBudget, state: SmoothState) -> dict[str, object]:
    """The telemetry of a smooth plan: moves left, planned game time, target tree size and the
    estimators it used, rounded to what they mean (moves_left printed 51.000000000000114)."""
    return {"moves_left": round(budget.moves_left, 4),
            "game_time_ms": int(budget.game_time_ms),
            "target_nodes": int(budget.target_total_nodes),
            "nps_est": round(state.nps, 1), "tree_reuse": round(state.tree_reuse, 6),
            "timeuse": round(state.timeuse, 6)}


@dataclass
class SmoothStopper(Stopper):
    """Stop at the allocation; on every check update the manager's NPS and publish it with the
    time left (reference §2 "v1": a plain time-limit stopper with the NPS hint)."""

    manager: SmoothManager
    alloc_ms: float
    figures: dict[str, object]
    new_nodes: float
    """The nodes the plan asks this move to add to the tree it kept (reference §2)."""
    generation: int = field(init=False, default=-1)
    done: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.generation = self.manager.generation

    def _current(self) -> bool:
        """False once the manager started a new game: a late report must not leak into it."""
        return self.generation == self.manager.generation

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        if self._current():
            hints.estimated_nps = self.manager.update_nps(stats.time_since_first_eval_ms,
                                                          stats.nodes_since_movestart)
        hints.update_remaining_ms(self.alloc_ms - stats.time_since_movestart_ms)
        return "budget" if stats.time_since_movestart_ms >= self.alloc_ms else None

    def on_search_done(self, stats: SearchStats) -> None:
        if self._current():
            self.manager.search_done(stats.time_since_movestart_ms, stats.total_nodes)
            self.done = True

    def planned_nodes(self) -> float | None:
        return self.new_nodes

    def telemetry(self) -> dict[str, object]:
        """The plan's figures and, once the move is made, the estimators after its update."""
        figures = dict(self.figures)
        if self.done:
            state = self.manager.state
            figures.update(nps_after=round(state.nps, 1), timeuse_after=round(state.timeuse, 6))
        return figures
