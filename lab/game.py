"""One game between two engine processes: the harness keeps the clocks, the rules and the record.

Per move (docs/reference/harness_and_stats.md sections 2.2, 3.1 and 8): the mover gets
`position [startpos|fen F] moves <book moves and game moves>` and `go wtime btime winc binc
[movestogo]` (or `movetime`/`nodes`/`depth` for `st=`/`nodes=`/`depth=` controls), from the two
`timecontrol.clock.Clock`s, one per side (`EngineSpec.tc` overrides `GameTask.tc`: time odds). The
search is timed by `lab.engine_process` from `go` written to `bestmove` read and charged to the
mover's clock; a move slower than the time left plus `GameTask.margin_ms` loses on time. The raw
search output is parsed only after the move. An engine with `EngineSpec.ponder` ponders on the
opponent's time (`lab.engine_process`): its `go ponder` carries the clocks as they will stand
after its move (`_Game.ponder_limit`), and a `ponderhit` move is charged from the `ponderhit`.

How a game ends, in the order checked (PGN Termination, reason):

* the board (python-chess): mate, stalemate, insufficient material, and threefold repetition and
  the fifty-move rule applied automatically as in cutechess (`Board.is_repetition(3)`,
  `Board.is_fifty_moves()`; `outcome(claim_draw=True)` would also end a game one move *before* a
  repetition, when a move could claim it) -> `normal`;
* an XBoard engine that resigns -> `normal` ("White resigns");
* an engine that dies or closes its pipes -> `abandoned` ("White disconnected (exit code 139;
  stderr: ...)": its exit status and the last lines of its stderr, `lab.engine_log`);
* one that does not answer by the time its clock is out (plus margin and a little slack), nor
  after `stop` -> `stalled connection` ("White's connection stalled"; it is killed);
* an illegal, malformed or missing move -> `rules infraction` ("illegal move e2e5 by White"; the
  text goes to `GameRecord.illegal_move`, never into the moves);
* a move over the time left plus the margin -> `time forfeit` ("White loses on time (N ms
  overrun)");
* the Syzygy tables, then the adjudication rules (`lab.adjudication`) -> `adjudication`.

An engine that lost by any of these faults is killed, and the pool starts a fresh process for the
next game (fastchess's and cutechess's `-recover`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import NamedTuple

import chess
import chess.engine

from lab.adjudication import Adjudicator
from lab.engine_process import (
    EngineError,
    EnginePool,
    EngineProcess,
    SearchOutcome,
    SearchStatus,
)
from lab.records import GameRecord, GameTask, MoveRecord, Outcome, Termination
from lab.search_info import parse_search_lines
from lab.variants import variant_board
from timecontrol.clock import Clock
from timecontrol.control import TimeControl
from timecontrol.go import GoParams, go_params

LOGGER = logging.getLogger(__name__)

COLOR_NAMES = {chess.WHITE: "White", chess.BLACK: "Black"}
COLORS = (chess.WHITE, chess.BLACK)


class GameSetupError(ValueError):
    """A game task that cannot be played as given (bad FEN, book move or time control)."""


@dataclass
class Timeouts:
    """How long the harness waits for an engine outside its clock.

    `ready_s`: new game, options and position before `go` (cutechess pings for 15 s).
    `slack_ms`: past time left + margin before the engine is told to stop (cutechess's watchdog
    fires 200 ms late); the flag itself is decided from the measured time, not from this.
    `stop_grace_s`: after `stop`, how long an engine may take to answer before it counts as
    stalled and is killed. `unclocked_s`: the deadline of a `nodes=`/`depth=` search.
    """

    ready_s: float = 15.0
    slack_ms: int = 200
    stop_grace_s: float = 2.0
    unclocked_s: float = 300.0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def start_board(task: GameTask) -> chess.Board:
    """The position the engines start from: the opening FEN with the book moves played, on a
    board of the task's variant (python-chess then sends Chess960 engines `UCI_Chess960` or
    `variant fischerandom` and reads their castling as king takes rook)."""
    try:
        board = variant_board(task.opening_fen, task.variant)
    except ValueError as err:
        raise GameSetupError(f"game {task.game_id}: bad opening FEN {task.opening_fen!r}: "
                             f"{err}") from err
    for text in task.opening_moves:
        try:
            board.push_uci(text)
        except ValueError as err:
            raise GameSetupError(f"game {task.game_id}: book move {text!r} is not legal in "
                                 f"{board.fen()!r}") from err
    return board


def side_control(task: GameTask, color: chess.Color) -> TimeControl:
    """The time control of one side: its engine's own `tc`, else the game's."""
    spec = task.white if color == chess.WHITE else task.black
    control = spec.tc or task.tc
    if control.infinite:
        raise GameSetupError(f"game {task.game_id}, engine {spec.name!r}: time control "
                             f"'{control}' never ends a search; a game needs a limit")
    return control


class NaturalEnd(NamedTuple):
    """The end of a game by the rules of chess: its result and the reason in words."""

    result: str
    reason: str

    def outcome(self) -> Outcome:
        return Outcome(self.result, Termination.NORMAL, self.reason)


def natural_end(board: chess.Board) -> NaturalEnd | None:
    """The result and reason when the rules end the game in `board`, else None."""
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        if board.is_repetition(3):
            return NaturalEnd("1/2-1/2", "Draw by 3-fold repetition")
        if board.is_fifty_moves():
            return NaturalEnd("1/2-1/2", "Draw by fifty moves rule")
        return None
    termination = outcome.termination
    if termination == chess.Termination.CHECKMATE:
        return NaturalEnd(outcome.result(), f"{COLOR_NAMES[not board.turn]} mates")
    reasons = {
        chess.Termination.STALEMATE: "Draw by stalemate",
        chess.Termination.INSUFFICIENT_MATERIAL: "Draw by insufficient mating material",
        chess.Termination.FIVEFOLD_REPETITION: "Draw by 3-fold repetition",
        chess.Termination.SEVENTYFIVE_MOVES: "Draw by fifty moves rule",
    }
    return NaturalEnd(outcome.result(), reasons.get(termination, termination.name.lower()))


def limit_for(go: GoParams) -> chess.engine.Limit:
    """python-chess's `Limit` for our `go` fields (it sends them back in whole ms)."""

    def seconds(ms: int | None) -> float | None:
        return None if ms is None else ms / 1000.0

    return chess.engine.Limit(
        white_clock=seconds(go.wtime), black_clock=seconds(go.btime),
        white_inc=seconds(go.winc), black_inc=seconds(go.binc),
        remaining_moves=go.movestogo, time=seconds(go.movetime), nodes=go.nodes,
        depth=go.depth)


def _loss_for(color: chess.Color) -> str:
    return "0-1" if color == chess.WHITE else "1-0"


class _Game:
    """The state of one game in progress."""

    def __init__(self, task: GameTask, pool: EnginePool, timeouts: Timeouts) -> None:
        self.task = task
        self.pool = pool
        self.timeouts = timeouts
        self.board = start_board(task)
        self.controls = {color: side_control(task, color) for color in (chess.WHITE, chess.BLACK)}
        self.clocks = {color: Clock(control) for color, control in self.controls.items()}
        self.adjudicator = Adjudicator(task.adjudication)
        self.engines: dict[chess.Color, EngineProcess] = {}
        self.token = object()
        self.record = GameRecord(
            game_id=task.game_id, white=task.white.name, black=task.black.name, result="*",
            termination=Termination.NORMAL, reason="", opening_fen=task.opening_fen,
            opening_moves=list(task.opening_moves), started_at=_now(), tc=task.tc,
            round=task.round, pair_id=task.pair_id,
            worker={"host": socket.gethostname(), "pid": os.getpid()},
            white_tc=self.controls[chess.WHITE], black_tc=self.controls[chess.BLACK],
            variant=task.variant)

    def finish(self, outcome: Outcome) -> GameRecord:
        record = self.record
        record.result, record.termination, record.reason = (outcome.result, outcome.termination,
                                                             outcome.reason)
        record.final_fen = self.board.fen()
        record.finished_at = _now()
        return record

    async def play(self) -> GameRecord:
        try:
            failed = await self._start_engines()
            if failed is not None:
                return failed
            return await self._moves()
        except BaseException:
            for engine in self.engines.values():
                engine.faulted = True
            raise
        finally:
            record = self.record
            for engine in self.engines.values():
                await engine.end_game(self.board, record.result, record.reason,
                                      self.timeouts.ready_s)
                await self.pool.release(engine)

    async def _start_engines(self) -> GameRecord | None:
        """Both engines, started side by side (a new game waits for the slower, not for both);
        the finished game when one fails to start (it loses), else None."""
        specs = {chess.WHITE: self.task.white, chess.BLACK: self.task.black}
        started = await asyncio.gather(
            *(self.pool.acquire(specs[color], self.task.logs) for color in COLORS),
            return_exceptions=True)
        for color, engine in zip(COLORS, started):
            if isinstance(engine, EngineProcess):
                self.engines[color] = engine
                self.record.worker[f"{COLOR_NAMES[color].lower()}_id"] = engine.identity.name
        for color, engine in zip(COLORS, started):
            if isinstance(engine, EngineError):
                return self.finish(Outcome(_loss_for(color), Termination.ABANDONED,
                                           f"{COLOR_NAMES[color]} failed to start: {engine}"))
            if isinstance(engine, BaseException):
                raise engine
        return None

    async def _moves(self) -> GameRecord:
        board, task, timeouts = self.board, self.task, self.timeouts
        last_answer_at: float | None = None
        ended = natural_end(board)
        while ended is None:
            color = board.turn
            clock = self.clocks[color]
            engine = self.engines[color]
            before = clock.remaining_ms
            if before is None:
                deadline_s = timeouts.unclocked_s
            else:
                deadline_s = (before + task.margin_for(engine.spec) + timeouts.slack_ms) / 1000.0
            go = go_params(self.clocks[chess.WHITE], self.clocks[chess.BLACK],
                           color == chess.WHITE)
            outcome = await engine.search(
                board, limit_for(go), game=self.token, answer_timeout_s=deadline_s,
                ready_timeout_s=timeouts.ready_s, stop_grace_s=timeouts.stop_grace_s,
                ponder_limit=lambda elapsed_ms, color=color: self.ponder_limit(color, elapsed_ms))
            verdict = self._fault(color, clock, outcome)
            if verdict is not None:
                # Whatever it did (but resign), the next game gets a fresh process.
                engine.faulted = outcome.status != SearchStatus.RESIGNED
                return self.finish(verdict)
            assert outcome.move is not None and outcome.elapsed_ms is not None
            info = parse_search_lines(outcome.lines, board, engine.spec.protocol)
            if info.telemetry_error:
                LOGGER.warning("game %s, %s: %s", task.game_id, engine.spec.name,
                               info.telemetry_error)
            san = board.san(outcome.move)
            board.push(outcome.move)
            turnaround = None
            if last_answer_at is not None and outcome.go_at is not None:
                turnaround = (outcome.go_at - last_answer_at) * 1000.0
            last_answer_at = outcome.answer_at
            self.record.moves.append(MoveRecord(
                ply=len(board.move_stack), move=outcome.move.uci(), san=san,
                elapsed_ms=outcome.elapsed_ms, clock_before_ms=before,
                clock_after_ms=clock.remaining_ms if self.controls[color].has_clock else None,
                search=info, turnaround_ms=turnaround, ponderhit=outcome.ponderhit))
            ended = natural_end(board)
            if ended is not None:
                break
            adjudged = self.adjudicator.probe(board) or self.adjudicator.update(
                color, info.score_cp, info.score_mate, plies=len(board.move_stack),
                irreversible=board.halfmove_clock == 0)
            if adjudged is not None:
                return self.finish(Outcome(adjudged.result, Termination.ADJUDICATION,
                                           adjudged.reason))
        return self.finish(ended.outcome())

    def ponder_limit(self, color: chess.Color, elapsed_ms: float) -> chess.engine.Limit | None:
        """The `go ponder` limits of `color` after a move that took `elapsed_ms`: its clock
        charged and refilled as the move will be, the opponent's as it stands (cutechess sends
        both sides' time left when pondering starts); None if the move flags."""
        clocks = {side: copy.copy(clock) for side, clock in self.clocks.items()}
        spec = self.task.white if color == chess.WHITE else self.task.black
        if not clocks[color].charge(round(elapsed_ms), self.task.margin_for(spec)):
            return None
        return limit_for(go_params(clocks[chess.WHITE], clocks[chess.BLACK],
                                   color == chess.WHITE))

    def _fault(self, color: chess.Color, clock: Clock, outcome: SearchOutcome) -> Outcome | None:
        """How the game ends when the search did not give a legal move in time; a legal move in
        time is charged to the clock and gives None."""
        name, loss = COLOR_NAMES[color], _loss_for(color)
        status = outcome.status
        if status == SearchStatus.RESIGNED:
            return Outcome(loss, Termination.NORMAL, f"{name} resigns")
        if status == SearchStatus.CRASHED:
            note = f" ({outcome.detail})" if outcome.detail else ""
            return Outcome(loss, Termination.ABANDONED, f"{name} disconnected{note}")
        if status == SearchStatus.ERROR:
            return Outcome(loss, Termination.ABANDONED,
                           f"{name} broke the protocol: {outcome.detail}")
        if status == SearchStatus.STALLED or (status == SearchStatus.LATE
                                              and clock.remaining_ms is None):
            return Outcome(loss, Termination.STALLED_CONNECTION, f"{name}'s connection stalled")
        if status == SearchStatus.ILLEGAL:
            self.record.illegal_move = outcome.move_text
            return Outcome(loss, Termination.RULES_INFRACTION,
                           f"illegal move {outcome.move_text} by {name}")
        assert outcome.elapsed_ms is not None
        spec = self.task.white if color == chess.WHITE else self.task.black
        if (not clock.charge(round(outcome.elapsed_ms), self.task.margin_for(spec))
                or status == SearchStatus.LATE):
            overrun = clock.overrun_ms if clock.flagged else round(outcome.elapsed_ms)
            return Outcome(loss, Termination.TIME_FORFEIT,
                           f"{name} loses on time ({overrun} ms overrun)")
        return None


def play_game(task: GameTask, pool: EnginePool | None = None,
              timeouts: Timeouts | None = None) -> GameRecord:
    """Play one game and return its record; engine faults become results, never exceptions.

    The task's `wait_ms` is spent first, between the worker's games. With a `pool` the engines
    stay up for the worker's next game; without one they are started
    and stopped here. `GameSetupError` is raised for a task that cannot be played (bad FEN, book
    move or time control).
    """
    timeouts = timeouts or Timeouts()
    time.sleep(task.wait_ms / 1000)
    if pool is None:
        with EnginePool(max_idle=2) as own:
            return own.run(_Game(task, own, timeouts).play())
    return pool.run(_Game(task, pool, timeouts).play())
