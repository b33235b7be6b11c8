"""The strength limiter: what `UCI_LimitStrength` and its options do to one engine's searches.

It turns the options (`UCI_LimitStrength`, `UCI_Elo`, `EloTable`, `LimitMode`, `Seed`) into the
parameters of `engine.strength` (MadChess "The UCI_LimitStrength Algorithm",
docs/reference/elo_limit.md §0) and
applies them around each search, so that the UCI loop only forwards options and hands over its
context and result:

* `UCI_Elo` outside the range (`engine.strength.range`) is refused with an `info string error`
  naming the range; the previous value stays; the top of the range is the engine's measured
  full strength, so `UCI_Elo` at the top plays unlimited, and its bottom is the loaded table's
  first row (the formulas' 600 with `EloTable` empty): a table plays no level below it. A
  table that starts above the current `UCI_Elo` moves it up to its first row, and says so;
* parameters: the `EloTable`'s row for `UCI_Elo` (by default the calibrated table shipped with
  the engine, `engine.strength.calibrated`), or with `EloTable` empty the formulas at
  `formula_elo(UCI_Elo)`, the declared range mapped onto MadChess's (`engine.strength.range`);
* evaluation: knowledge fractions and distorted material (§1.5, §1.6), a new `Evaluator` built
  when an option (or the evaluation's weights) changes, not per move;
* search effort, `LimitMode nodes` (the default): the level's node budget per move and depth
  cap (`throttle.level_nodes`, `throttle.depth_cap`), whatever the `go` command, the machine or
  the clock; the time manager and `go`'s own limits still stop the search earlier ("the clock
  only caps"); the first iteration is never cut, so every root move has a score (§1.3, §6);
* search speed, `LimitMode nps`: MadChess's stall (§1.3) at the rescaled NPS: from the second
  iteration on, every periodic check waits until nodes / elapsed is back within the limit,
  sleeping in `SLEEP_SLICE_S` slices so `stop` ends the wait at once (MadChess issue #67), and
  giving up at the move's planned time, after which the search stops ("throttle"); it depends
  on the machine's speed, so it is kept for comparison with MadChess, not for calibration;
* move choice: the move's error budget drawn before the search (`draw_budget`, §1.4 step 2),
  every root move scored (MultiPV = all legal moves), exactly unless it lies more than that
  budget below the best (it cannot be chosen, and a null-window search proves it: MadChess
  scores every move with the full window, which costs a level much of its depth), then
  `choose_move` with one random stream per game (`GameStream`, §1.4); a king and a queen or
  rook against a lone king is played at full strength (MadChess's winning-side guard, §1.4
  step 3, which its evaluation triggers by scoring these endings as `SimpleEndgame`; ours does
  not).
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable

import chess
import chess.polyglot

from engine.evaluate import Evaluator, MaterialValues
from engine.options import OptionError, Options
from engine.score import to_uci
from engine.search.context import SearchContext, SearchResult
from engine.strength import (
    ELO_MAX,
    ELO_MIN,
    FULL_STRENGTH_ELO,
    LADDER_MIN_ELO,
    SLEEP_SLICE_S,
    EloTable,
    EloTableError,
    StrengthParams,
    check_interval,
    choose_move,
    draw_budget,
    dump_lines,
    formula_elo,
    load_elo_table,
    params_for_elo,
    range_bottom,
    refusal,
    rescaled_nps,
    throttle_delay,
)
from timecontrol.go import GoParams
from timecontrol.stopper import (
    ChainedStopper,
    DepthStopper,
    SearchStats,
    Stopper,
    StopperHints,
)

#: The options the limiter handles (canonical names, as `engine.options` declares them).
LIMITER_OPTIONS = ("UCI_LimitStrength", "UCI_Elo", "EloTable", "LimitMode", "Seed")
#: The options after which `debug on` shows the parameters (the seed's "Precise Values").
DUMPED_OPTIONS = ("UCI_LimitStrength", "UCI_Elo", "EloTable")


def planned_move_ms(telemetry: dict[str, object], go: GoParams, overhead_ms: int) -> float | None:
    """The time planned for this move: the manager's `budget_ms` and the `movetime` less the move
    overhead (as the movetime stopper has it), whichever is smaller; None when neither is given."""
    candidates = []
    budget = telemetry.get("budget_ms")
    if isinstance(budget, (int, float)):
        candidates.append(float(budget))
    if go.movetime is not None:
        candidates.append(float(max(0, go.movetime - overhead_ms)))
    return min(candidates) if candidates else None


def simple_won_ending(board: chess.Board) -> bool:
    """The side to move has a queen or a rook and the opponent only its king: the endings
    MadChess's winning-side guard always converts (reference §1.4 step 3)."""
    them = board.occupied_co[not board.turn]
    ours = board.occupied_co[board.turn]
    return them == board.kings & them and bool((board.queens | board.rooks) & ours)


class NpsThrottle:
    """The `ctx.throttle` callback of one search: waits while the search is above the NPS limit.

    Skipped during the first iteration (stats.depth < 1), so a scored move always exists (§1.3).
    The wait recomputes the delay every slice and ends when the rate is back within the limit,
    when `stop` is set, or at `deadline_ms` after the move started; in the last case `expired`
    is set and `ThrottleStopper` ends the search at its next check.
    """

    def __init__(self, nps: int, stop_event: threading.Event, start_time: float,
                 deadline_ms: float | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.nps = nps
        self.stop_event = stop_event
        self.start_time = start_time
        self.deadline_ms = deadline_ms
        self.clock = clock
        self.expired = False

    def __call__(self, stats: SearchStats) -> None:
        if stats.depth < 1:
            return
        nodes = stats.nodes_since_movestart
        while not self.stop_event.is_set():
            elapsed_s = self.clock() - self.start_time
            slice_s = min(throttle_delay(nodes, elapsed_s, self.nps), SLEEP_SLICE_S)
            if self.deadline_ms is not None:
                left_s = self.deadline_ms / 1000 - elapsed_s
                if left_s <= 0 and slice_s > 0:
                    self.expired = True
                    return
                slice_s = min(slice_s, left_s)
            if slice_s <= 0:
                return
            self.stop_event.wait(slice_s)


@dataclasses.dataclass
class NodeBudgetStopper(Stopper):
    """`LimitMode nodes`: stop at the level's `limit` nodes, but never before the first iteration
    is done, so that every root move has a score, as the throttle spares it (§1.3)."""

    limit: int

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        if stats.depth < 1:
            return None
        hints.update_remaining_nodes(self.limit - stats.nodes_since_movestart)
        return "nodes" if stats.nodes_since_movestart >= self.limit else None


@dataclasses.dataclass
class ThrottleStopper(Stopper):
    """Ends the search once its throttle ran out of planned time while waiting (§1.3)."""

    throttle: NpsThrottle

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        return "throttle" if self.throttle.expired else None


class GameStream:
    """The random stream of one game: `Seed` mixed with the Zobrist key of the game's first
    searched position (python-chess's polyglot hash).

    A game is identified by the `Seed` and the position of its first `go` after `ucinewgame`, a
    new `Seed`, or a `position` that does not continue the previous one: two games from different
    openings (or with the engine on the other side of one opening) draw different streams, in one
    process or in two with the same `Seed`, while a rerun of a game, which starts from the same
    position with the same `Seed`, replays its stream and, with node budgets, its moves.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng: random.Random | None = None

    def for_position(self, board: chess.Board) -> random.Random:
        """The game's stream, started from `board` if this is the game's first search."""
        if self.rng is None:
            self.rng = random.Random((self.seed << 64) | chess.polyglot.zobrist_hash(board))
        return self.rng


class StrengthLimiter:
    """Options -> strength parameters, evaluator and random stream; applied to each search."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.table: EloTable | None = load_elo_table(options["EloTable"])
        self.params: StrengthParams = self._compute_params()
        self.evaluator = Evaluator()
        self.stream = GameStream(options["Seed"])
        self.drawn: tuple[int, bool] | None = None
        """The error budget drawn for the search under way (`prepare`), used by `choose`."""

    # -- options --------------------------------------------------------------------------------

    @property
    def limited(self) -> bool:
        """Whether searches are limited: `UCI_LimitStrength` on and `UCI_Elo` below the top of
        the range, which is full strength by definition (`engine.strength.range`)."""
        return (bool(self.options["UCI_LimitStrength"])
                and self.options["UCI_Elo"] < FULL_STRENGTH_ELO)

    @property
    def bottom(self) -> int:
        """The lowest `UCI_Elo` accepted: the loaded table's first row, else the formulas'."""
        return range_bottom(self.table.rows[0].elo if self.table else None)

    @staticmethod
    def handles(name: str) -> bool:
        """Whether `name` (any case, as UCI allows) is one of the limiter's options."""
        return name.strip().lower() in {option.lower() for option in LIMITER_OPTIONS}

    def set_option(self, name: str, value: str, debug: bool = False) -> list[str]:
        """Apply one `setoption` of a limiter option; the `info string` lines to send.

        An out-of-range `UCI_Elo` is refused (an error line naming the range) and the previous
        value kept; a table that does not load is reported (naming file and line) and the
        previous table is kept. Other bad values raise OptionError. With `debug` on and the
        limit on, the parameter dump follows.
        """
        lines: list[str] = []
        if name.strip().lower() == "uci_elo":
            name = "UCI_Elo"
            try:
                parsed = int(value.strip())
            except ValueError:
                raise OptionError(f"option UCI_Elo: {value.strip()!r} is not an integer") from None
            problem = refusal(parsed, self.bottom, self.options["EloTable"] if self.table else None)
            if problem:
                return [f"info string error: {problem}; UCI_Elo stays {self.options[name]}"]
        else:
            name, parsed = self.options.parse(name, value)
        if name == "EloTable":
            try:
                self.table = load_elo_table(parsed)
            except EloTableError as error:
                return [f"info string error: {error}"]
        self.options.set(name, parsed)
        bottom = self.bottom
        if name == "EloTable" and self.options["UCI_Elo"] < bottom:
            lines.append(f"info string UCI_Elo {self.options['UCI_Elo']} is below the range "
                         f"{bottom}..{FULL_STRENGTH_ELO} of EloTable {parsed}: UCI_Elo "
                         f"is now {bottom}")
            self.options.set("UCI_Elo", bottom)
        if name == "Seed":
            self.new_game()
            return lines
        if name == "LimitMode":
            return lines
        self.refresh()
        if debug and self.limited and name in DUMPED_OPTIONS:
            lines.extend(f"info string {line}" for line in dump_lines(self.params))
            if self.table:
                lines.append(f"info string UCI_Elo {self.options['UCI_Elo']} plays EloTable "
                             f"{self.options['EloTable']} (its range {self.bottom}.."
                             f"{FULL_STRENGTH_ELO})")
            else:
                lines.append(f"info string UCI_Elo {self.options['UCI_Elo']} plays the formulas' "
                             f"ELO {self.params.elo} (the range {LADDER_MIN_ELO}.."
                             f"{FULL_STRENGTH_ELO} mapped onto {ELO_MIN}..{ELO_MAX})")
        return lines

    def new_game(self) -> None:
        """A new game (or a new `Seed`): the next search starts a new stream (`GameStream`)."""
        self.stream = GameStream(self.options["Seed"])

    def refresh(self) -> None:
        """Recompute the parameters and the evaluator (after an option or the weights change:
        the levels' material is the evaluation's own, distorted)."""
        self.params = self._compute_params()
        self.evaluator = self.build_evaluator()

    def _compute_params(self) -> StrengthParams:
        elo = self.options["UCI_Elo"]
        return self.table.params_for_elo(elo) if self.table else params_for_elo(formula_elo(elo))

    def build_evaluator(self) -> Evaluator:
        """A fresh evaluator for the current strength (full strength: the current weights)."""
        if not self.limited:
            return Evaluator()
        material = MaterialValues(self.params.material_mg, self.params.material_eg)
        return Evaluator(knowledge=self.params.knowledge, material=material)

    # -- one search -----------------------------------------------------------------------------

    def multipv(self, user_multipv: int, board: chess.Board) -> int:
        """Lines to search: every legal move when the choice may fall below the best (§6)."""
        if self.limited and self.params.makes_errors and not simple_won_ending(board):
            return max(user_multipv, board.legal_moves.count())
        return user_multipv

    def prepare(self, ctx: SearchContext, go: GoParams, overhead_ms: int) -> None:
        """Fit a search's context to the limit: MultiPV, the game's random stream, and the node
        budget and depth cap or the throttle; none of them in a simple won ending, which is
        played at full strength (its guard, §1.4 step 3, needs the search to find the mate)."""
        if not self.limited or simple_won_ending(ctx.board):
            return
        ctx.multipv = self.multipv(ctx.multipv, ctx.board)
        rng = self.stream.for_position(ctx.board)
        self.drawn = draw_budget(self.params, rng) if self.params.makes_errors else None
        ctx.choice_margin = self.drawn[0] if self.drawn else None
        if self.options["LimitMode"] == "nodes":
            level = [NodeBudgetStopper(self.params.nodes), DepthStopper(self.params.depth_cap)]
            ctx.stopper = ChainedStopper([ctx.stopper, *level])
            return
        planned = planned_move_ms(ctx.stopper.telemetry(), go, overhead_ms)
        nps = rescaled_nps(self.params.nps)
        throttle = NpsThrottle(nps, ctx.stop_event, ctx.start_time, planned)
        ctx.throttle = throttle
        ctx.check_nodes = check_interval(nps)
        ctx.stopper = ChainedStopper([ctx.stopper, ThrottleStopper(throttle)])

    def choose(self, ctx: SearchContext, result: SearchResult) -> SearchResult:
        """The result with the move to play: `choose_move` over the root lines the search placed
        when limited (§1.4: every move that reaches the floor exact, every other an upper bound
        below it, which decides its eligibility as its exact score would); the chosen line is
        reported as the final `info` line."""
        if not (self.limited and self.params.makes_errors and result.lines):
            return result
        if simple_won_ending(ctx.board):
            return result
        scores = [(line.move, line.score) for line in result.lines]
        choice = choose_move(scores, self.params, self.stream.for_position(ctx.board),
                             drawn=self.drawn)
        line = next(line for line in result.lines if line.move == choice.move)
        best = max(score for _, score in scores)
        ctx.send(
            f"info string strength choice {line.move.uci()} score {line.score} best {best} "
            f"budget {choice.budget_cp} blunder {str(choice.blunder).lower()} "
            f"eligible {choice.eligible}"
        )
        if line.move != result.best_move:
            ctx.send(
                f"info depth {max(result.depth, 1)} seldepth {result.seldepth} multipv 1 "
                f"score {to_uci(line.score, line.bound)} nodes {result.nodes} "
                f"time {int(result.time_ms)} pv {' '.join(move.uci() for move in line.pv)}"
            )
        return dataclasses.replace(result, best_move=line.move, score=line.score,
                                   pv=list(line.pv))
