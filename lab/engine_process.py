"""Engine processes over UCI or XBoard, driven through python-chess's asyncio API, timed honestly.

Timing (docs/reference/harness_and_stats.md sections 3.1, 6.1 and 8): python-chess keeps no clock,
so the
protocol classes here take two monotonic timestamps themselves. `send_line` stamps the moment just
before the `go` line is written to the engine's stdin, and `pipe_data_received` stamps every chunk
the event loop reads from stdout, so the `bestmove` (UCI) or `move` (XBoard) line carries the time
its bytes arrived, before python-chess or we parse anything. Between the two stamps the harness does
nothing but append the raw `info` lines to a list (python-chess's own parsing is off: `INFO_NONE`);
they are parsed after the move, off the clock (`lab.search_info`). The `ucinewgame`/`isready`,
`setoption` and `position` traffic happens before the `go` stamp, so it is never charged.

Pondering (`EngineSpec.ponder`, cutechess's `ponder`) is python-chess's `play(ponder=True)`: after
`bestmove X ponder Y` the engine gets `position ... X Y` and `go ponder`, with the clocks the
harness will hold after X (`ponder_limit`: the mover's charged clock and increment, the
opponent's as it stands, as cutechess's `UciEngine::startPondering` sends them); a ponder move
that is illegal or ends the game is dropped first, as cutechess's `setPonderMove` does. At the
next move the same position gets `ponderhit`, which is stamped as `go` is (the ponder time is
free: cutechess starts the clock in `ChessPlayer::go`, where it sends `ponderhit`); another one
gets `stop`, its `bestmove` is read and dropped before `position` and `go` (uncharged: cutechess
starts the clock only once the engine is ready again). At the end of a game a pondering engine
is stopped and drained (`end_game`). XBoard engines get python-chess's `hard` or `easy`: they
ponder by themselves, python-chess sends `easy`, `force`, the moves and `go` at the next move (so
pondering only warms their tables), and their moves are timed as always (CECP has no
`ponderhit`).

Faults are outcomes, not exceptions: a search ends `ok`, `illegal` (bestmove not legal or not a
move), `crashed` (the process died or closed its pipes), `stalled` (no answer by the deadline and
none after `stop` either; the process is then killed), `late` (answered only after `stop`),
`resigned` (XBoard `resign`) or `error` (the engine broke the protocol).

Each process's stderr is read (python-chess would only log it) into a `lab.engine_log`
transcript, which also logs every line both ways when asked: a crash's exit status and stderr tail
go into the search outcome, a failed handshake's error, and so the game's reason. An engine that
answers `uci` as an XBoard engine does (phalanx: "Illegal move: uci") is told so at once.

An `EnginePool` owns one event loop and keeps idle engine processes between games (one worker, one
pool); a process that faulted is killed and a fresh one is started for the next game.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

import chess
import chess.engine

from lab.engine_log import EngineLogs, EngineTranscript, exit_description
from lab.records import EngineSpec
from lab.variants import Variant

T = TypeVar("T")

#: Replies of an XBoard engine to `uci` (phalanx: "Illegal move: uci", "tellics ..."; CECP's
#: "Error (unknown command): uci" and "feature ..." lines).
XBOARD_REPLY = re.compile(r"^\s*(Illegal move|Error \(|feature\s|tellics|telluser)")
XBOARD_HINT = ('is this an XBoard engine? set protocol = "xboard" (tempo match: '
               'xboard=PROGRAM)')

QUIT_TIMEOUT_S = 2.0
"""How long a `quit` may take before the process is killed."""


class EngineError(Exception):
    """An engine that cannot be used as configured; the message names the engine and the problem."""


@dataclass
class EngineIdentity:
    """What an engine says about itself in the handshake, and where its binary is."""

    name: str
    author: str | None
    version: str | None
    protocol: str
    options: dict[str, dict[str, Any]]
    path: str


@dataclass
class MoveTiming:
    """What the protocol saw during one search: the two stamps and the raw lines in between."""

    go_sent: asyncio.Future[None]
    answered: asyncio.Future[None]
    go_at: float | None = None
    answer_at: float | None = None
    answer_line: str | None = None
    lines: list[str] = field(default_factory=list)
    ponderhit: bool = False

    @property
    def elapsed_ms(self) -> float | None:
        """Measured search time: `go` written to answer read, in ms."""
        if self.go_at is None or self.answer_at is None:
            return None
        return (self.answer_at - self.go_at) * 1000.0


class _TimedProtocol:
    """Mixin over python-chess's protocols: stamp `go` and the answer line; keep the raw lines."""

    answer_tokens: frozenset[str] = frozenset({"bestmove"})

    def _timing_init(self) -> None:
        self.timing: MoveTiming | None = None
        self._chunk_at = 0.0
        self.transcript = EngineTranscript()
        self.lines_seen = 0
        self.error_strings: list[str] | None = None
        """`info string error...` lines received while options are checked (None otherwise):
        how an engine (ours among them) refuses an option value it declared valid, such as a
        `UCI_Elo` outside its loaded table's range."""
        self.xboard_reply: asyncio.Future[str] | None = None

    def watch_for_xboard(self) -> asyncio.Future[str]:
        """A future set to the first stdout line that looks like an XBoard engine's."""
        self.xboard_reply = asyncio.get_running_loop().create_future()
        return self.xboard_reply

    def arm(self) -> MoveTiming:
        """Start watching for the next `go` and its answer."""
        loop = asyncio.get_running_loop()
        self.timing = MoveTiming(go_sent=loop.create_future(), answered=loop.create_future())
        return self.timing

    def send_line(self, line: str) -> None:
        timing = self.timing
        word = line.split(" ", 1)[0]
        if timing is not None and timing.go_at is None and word in ("go", "ponderhit"):
            timing.go_at = time.monotonic()
            timing.ponderhit = word == "ponderhit"
            super().send_line(line)  # type: ignore[misc]
            timing.go_sent.set_result(None)
        else:
            super().send_line(line)  # type: ignore[misc]
        self.transcript.sent(line)

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self._chunk_at = time.monotonic()
        super().pipe_data_received(fd, data)  # type: ignore[misc]

    def _line_received(self, line: str) -> None:
        timing = self.timing
        if timing is not None and timing.go_at is not None and timing.answer_at is None:
            if line.strip().split(" ", 1)[0] in self.answer_tokens:
                timing.answer_at = self._chunk_at
                timing.answer_line = line
                timing.answered.set_result(None)
            else:
                timing.lines.append(line)
        self.transcript.received(line)
        self.lines_seen += 1
        if self.error_strings is not None and line.startswith("info string error"):
            self.error_strings.append(line[len("info string "):])
        watch = self.xboard_reply
        if watch is not None and not watch.done() and XBOARD_REPLY.match(line):
            watch.set_result(line)
        super()._line_received(self.for_library(line))  # type: ignore[misc]

    def for_library(self, line: str) -> str:
        """The line as python-chess should read it (the transcript keeps it as sent)."""
        return line

    def error_line_received(self, line: str) -> None:
        """A stderr line: kept by the transcript (python-chess would log it as a warning)."""
        self.transcript.stderr(line)


class TimedUciProtocol(_TimedProtocol, chess.engine.UciProtocol):
    """python-chess's UCI protocol with honest move timing, and the harness's clocks and
    cutechess's ponder-move checks for pondering.

    `ponder_limit`, given the measured time of the move just answered, returns the limit of the
    `go ponder` that follows it (None: python-chess's own estimate).
    """

    def __init__(self) -> None:
        super().__init__()
        self._timing_init()
        self.ponder_limit: Callable[[float], chess.engine.Limit | None] | None = None
        self.multipv: object | None = None
        """The engine's `MultiPV` as the experiment gives it (None: the engine's default)."""

    def _setoption(self, name: str, value: Any) -> None:
        """python-chess sets `MultiPV` to the engine's default before every `go` of a game
        (it manages the option for its own analysis); the experiment's value is sent instead,
        as cutechess and fastchess pass `MultiPV` on like any other option."""
        if name == "MultiPV" and self.multipv is not None:
            value = self.multipv
        super()._setoption(name, value)

    def for_library(self, line: str) -> str:
        """A `bestmove X ponder Y` without the ponder move when Y is not legal after X or ends
        the game (nothing to ponder on; cutechess `UciEngine::setPonderMove`)."""
        if not line.startswith("bestmove"):  # every info line passes here: no split for them
            return line
        tokens = line.split()
        if len(tokens) < 4 or tokens[0] != "bestmove" or tokens[2] != "ponder":
            return line
        board = self.board.copy(stack=False)
        try:
            board.push(board.parse_uci(tokens[1]))
            board.push(board.parse_uci(tokens[3]))
        except ValueError:
            return f"bestmove {tokens[1]}"
        return f"bestmove {tokens[1]}" if board.is_game_over() else line

    def _go(self, limit: chess.engine.Limit, **kwargs: Any) -> None:
        timing = self.timing
        if (kwargs.get("ponder") and self.ponder_limit is not None and timing is not None
                and timing.elapsed_ms is not None):
            limit = self.ponder_limit(timing.elapsed_ms) or limit
        super()._go(limit, **kwargs)


class TimedXBoardProtocol(_TimedProtocol, chess.engine.XBoardProtocol):
    """python-chess's XBoard (CECP) protocol with honest move timing; the answer is `move X`,
    or a resignation or result claim instead of a move."""

    answer_tokens = frozenset({"move", "resign", "1-0", "0-1", "1/2-1/2"})

    def __init__(self) -> None:
        super().__init__()
        self._timing_init()


_PROTOCOLS: dict[str, type[_TimedProtocol]] = {
    "uci": TimedUciProtocol, "xboard": TimedXBoardProtocol}


class SearchStatus(StrEnum):
    """How one search ended, seen from the harness."""

    OK = "ok"  # a legal move (the clock then judges its time)
    LATE = "late"  # no move by the deadline, one after `stop`
    RESIGNED = "resigned"  # an XBoard engine resigned
    ILLEGAL = "illegal"  # an illegal, malformed or missing move
    CRASHED = "crashed"  # the process died or closed its pipes
    ERROR = "error"  # the engine broke the protocol
    STALLED = "stalled"  # no answer, not even after `stop` (killed)


@dataclass
class SearchOutcome:
    """How one search ended. `move_text` is what the engine sent as its move, legal or not."""

    status: SearchStatus
    move: chess.Move | None = None
    move_text: str | None = None
    elapsed_ms: float | None = None
    lines: list[str] = field(default_factory=list)
    detail: str = ""
    go_at: float | None = None
    answer_at: float | None = None
    ponderhit: bool = False


def launch_command(spec: EngineSpec) -> list[str]:
    """The command that starts the engine: `spec.cmd`, under util-linux's `taskset` when the
    engine has `cpus`, so that the process and every thread it starts run on those CPUs only
    (pinned before the program runs, not after: Stockfish starts its search thread at once).
    `EngineError` when a CPU is not one this process may use or `taskset` is missing."""
    if not spec.cpus:
        return spec.cmd
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    missing = sorted(set(spec.cpus) - usable)
    if missing:
        raise EngineError(f"engine {spec.name!r}: key 'cpus' names CPU {missing} but this "
                          f"process may run on {sorted(usable)} only")
    taskset = shutil.which("taskset")
    if taskset is None:
        raise EngineError(f"engine {spec.name!r}: key 'cpus' needs the taskset program "
                          "(Debian's util-linux)")
    return [taskset, "--cpu-list", ",".join(map(str, spec.cpus)), *spec.cmd]


def resolve_binary(spec: EngineSpec) -> str:
    """The absolute path of the engine's binary; `EngineError` when it is missing."""
    if not spec.cmd:
        raise EngineError(f"engine {spec.name!r}: empty command")
    program = spec.cmd[0]
    if os.sep in program:
        path = os.path.join(spec.cwd or os.getcwd(), os.path.expanduser(program))
        found = path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    else:
        search_path = spec.env.get("PATH", os.environ.get("PATH"))
        found = shutil.which(program, path=search_path)
    if found is None:
        raise EngineError(f"engine {spec.name!r}: binary {program!r} not found or not executable")
    return os.path.realpath(found)


def _version_of(name: str) -> str | None:
    """The version token at the end of an `id name` ("Stockfish 15.1" -> "15.1"), if any."""
    match = re.search(r"\s(v?\d[\w.\-]*)\s*$", name)
    return match.group(1) if match else None


def _describe_options(options: Any) -> dict[str, dict[str, Any]]:
    described: dict[str, dict[str, Any]] = {}
    for option in options.values():
        entry: dict[str, Any] = {"type": option.type, "default": option.default}
        if option.min is not None:
            entry["min"], entry["max"] = option.min, option.max
        if option.var:
            entry["var"] = list(option.var)
        described[option.name] = entry
    return described


class EngineProcess:
    """One running engine: start it, let it search a position, end or kill it."""

    def __init__(self, spec: EngineSpec, transport: asyncio.SubprocessTransport,
                 protocol: _TimedProtocol, identity: EngineIdentity) -> None:
        self.spec = spec
        self.transport = transport
        self.protocol: Any = protocol
        self.identity = identity
        self.faulted = False

    @property
    def pid(self) -> int:
        return self.transport.get_pid()

    @property
    def alive(self) -> bool:
        return not self.protocol.returncode.done()

    def exit_note(self) -> str:
        """How the process ended and the tail of its stderr (for a game's reason or an error)."""
        returncode = self.protocol.returncode
        note = exit_description(returncode.result() if returncode.done() else None)
        tail = self.protocol.transcript.stderr_tail()
        return f"{note}; stderr: {tail}" if tail else note

    @classmethod
    async def start(cls, spec: EngineSpec, logs: EngineLogs | None = None) -> EngineProcess:
        """Start the engine, run the handshake and set its options; `EngineError` names problems.

        Its stderr is read (its tail goes into errors and game reasons) and, with `logs`, its
        traffic and stderr are kept in files (`lab.engine_log`).
        """
        name = spec.name
        protocol_class = _PROTOCOLS.get(spec.protocol)
        if protocol_class is None:
            raise EngineError(f"engine {name!r}: unknown protocol {spec.protocol!r} "
                              "(expected 'uci' or 'xboard')")
        path = resolve_binary(spec)
        command = launch_command(spec)
        env = {**os.environ, **spec.env} if spec.env else None
        try:
            # The engine stays in its parent's process group, so a worker killed with its group
            # (lab.backends.local) takes its engines with it.
            transport, protocol = await protocol_class.popen(  # type: ignore[attr-defined]
                command, cwd=spec.cwd, env=env, stderr=subprocess.PIPE)
        except OSError as err:
            raise EngineError(f"engine {name!r}: cannot start {command!r}: {err}") from err
        process = cls(spec, transport, protocol, EngineIdentity(name, None, None, spec.protocol,
                                                                {}, path))
        try:
            protocol.transcript.open(logs or EngineLogs(), name, transport.get_pid())
        except OSError as err:
            await process.kill()
            raise EngineError(f"engine {name!r}: cannot write its I/O log: {err}") from err
        try:
            await process._handshake()
        except BaseException:
            await process.kill()
            raise
        return process

    async def _handshake(self) -> None:
        spec, protocol = self.spec, self.protocol
        hello = "uci" if spec.protocol == "uci" else "xboard"
        timeout = spec.startup_timeout_s
        initialize = asyncio.ensure_future(protocol.initialize())
        waiting: set[asyncio.Future[Any]] = {initialize}
        if spec.protocol == "uci":
            waiting.add(protocol.watch_for_xboard())
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        protocol.xboard_reply = None
        if not initialize.done():
            initialize.cancel()
            await asyncio.wait({initialize}, timeout=0.1)
            xboard = [f for f in waiting if f is not initialize and f.done()]
            if xboard:
                raise EngineError(f"engine {spec.name!r} answered uci with "
                                  f"{xboard[0].result()!r}: {XBOARD_HINT}")
            hint = f"; {XBOARD_HINT}" if spec.protocol == "uci" and not protocol.lines_seen \
                else ""
            raise EngineError(f"engine {spec.name!r}: the {hello} handshake timed out after "
                              f"{timeout:g} s{hint}")
        err = initialize.exception()
        if isinstance(err, chess.engine.EngineError):
            if "setboard" in str(err):
                raise EngineError(self._no_setboard()) from err
            if isinstance(err, chess.engine.EngineTerminatedError):
                raise EngineError(f"engine {spec.name!r}: died during the {hello} handshake "
                                  f"({self.exit_note()})") from err
            raise EngineError(f"engine {spec.name!r}: the {hello} handshake failed: {err}") from err
        if err is not None:
            raise err
        try:
            await asyncio.wait_for(protocol.ping(), timeout)
        except asyncio.TimeoutError:
            what = "isready" if spec.protocol == "uci" else "ping"
            raise EngineError(f"engine {spec.name!r}: no answer to {what} within "
                              f"{timeout:g} s") from None
        except chess.engine.EngineError as err:
            raise EngineError(f"engine {spec.name!r}: the handshake failed: {err}") from err
        if spec.protocol == "xboard" and not protocol.features.get("setboard"):
            raise EngineError(self._no_setboard())
        for option in spec.options:
            if option not in protocol.options:
                known = ", ".join(sorted(protocol.options)) or "none"
                raise EngineError(f"engine {spec.name!r} has no option {option!r} "
                                  f"(its options: {known})")
        options = self._configurable_options(spec.options)
        protocol.error_strings = []
        try:
            await asyncio.wait_for(protocol.configure(options), timeout)
        except asyncio.TimeoutError:
            raise EngineError(f"engine {spec.name!r}: setting options timed out") from None
        except chess.engine.EngineError as err:
            raise EngineError(f"engine {spec.name!r}: bad option value: {err}") from err
        await self._check_options_taken(options, timeout)
        reported = protocol.id.get("name") or spec.name
        self.identity = EngineIdentity(
            name=reported, author=protocol.id.get("author"), version=_version_of(reported),
            protocol=spec.protocol, options=_describe_options(protocol.options),
            path=self.identity.path)

    async def _check_options_taken(self, options: dict[str, Any], timeout: float) -> None:
        """After the options, `isready`: a UCI engine answers it once every `setoption` is
        done, so an `info string error` it printed for one of them (`error_strings`, collected
        from just before the options were sent) is in by then, and the game does not start
        with a value the engine kept from before (an error naming the engine)."""
        protocol = self.protocol
        try:
            if self.spec.protocol != "uci" or not options:
                return
            try:
                await asyncio.wait_for(protocol.ping(), timeout)
            except asyncio.TimeoutError:
                raise EngineError(f"engine {self.spec.name!r}: no answer to isready within "
                                  f"{timeout:g} s after its options") from None
            if protocol.error_strings:
                raise EngineError(f"engine {self.spec.name!r} refused its options: "
                                  f"{'; '.join(protocol.error_strings)}")
        finally:
            protocol.error_strings = None

    def _configurable_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options python-chess lets `configure` set. A UCI engine's `MultiPV` is kept by the
        protocol and sent before every search; the other options python-chess manages are set by
        the harness from the experiment, and naming them is an error that says where."""
        rest = {}
        for name, value in options.items():
            if self.spec.protocol != "uci" or name.lower() not in chess.engine.MANAGED_OPTIONS:
                rest[name] = value
            elif name.lower() == "multipv":
                try:
                    self.protocol.multipv = self.protocol.options[name].parse(value)
                except chess.engine.EngineError as err:
                    raise EngineError(f"engine {self.spec.name!r}: bad option value: "
                                      f"{err}") from err
            else:
                where = ("the engine's `ponder` key" if name.lower() == "ponder"
                         else "the experiment's `variant`")
                raise EngineError(f"engine {self.spec.name!r}: option {name!r} is set by the "
                                  f"harness; use {where}")
        return rest

    def plays_chess960(self) -> bool:
        """Whether the engine declared Chess960 in its handshake: a UCI `UCI_Chess960` option
        (UCI protocol, "Chess960" section) or `fischerandom` in XBoard's `feature variants=`
        (CECP v2) - what python-chess needs to send it a Chess960 game."""
        if self.spec.protocol == "uci":
            return "UCI_Chess960" in self.protocol.options
        return "fischerandom" in str(self.protocol.features.get("variants", "")).split(",")

    def _no_setboard(self) -> str:
        return f"engine {self.spec.name!r} lacks the setboard feature python-chess needs"

    async def search(self, board: chess.Board, limit: chess.engine.Limit, *, game: object,
                     answer_timeout_s: float, ready_timeout_s: float, stop_grace_s: float,
                     ponder_limit: Callable[[float], chess.engine.Limit | None] | None = None
                     ) -> SearchOutcome:
        """Let the engine move in `board` under `limit`; the outcome says how it went.

        With `EngineSpec.ponder` the engine ponders after its move, under the limit
        `ponder_limit(elapsed_ms)` gives (UCI; see the module docstring); a search that began
        as that ponder answers `ponderhit` and is timed from it (`SearchOutcome.ponderhit`).

        `answer_timeout_s` counts from `go`; when it passes the engine is sent `stop` (UCI) or
        `?` (XBoard) and gets `stop_grace_s` to answer (`late`) before it is killed (`stalled`).
        The new-game and position traffic before `go` must finish within `ready_timeout_s`.
        The outcome carries the monotonic stamps of `go` and of the answer.
        """
        timing = self.protocol.arm()
        if self.spec.protocol == "uci":
            self.protocol.ponder_limit = ponder_limit
        outcome = await self._search(timing, board, limit, game, answer_timeout_s,
                                     ready_timeout_s, stop_grace_s)
        outcome.go_at, outcome.answer_at = timing.go_at, timing.answer_at
        outcome.ponderhit = timing.ponderhit
        return outcome

    async def _search(self, timing: MoveTiming, board: chess.Board, limit: chess.engine.Limit,
                      game: object, answer_timeout_s: float, ready_timeout_s: float,
                      stop_grace_s: float) -> SearchOutcome:
        # XBoard engines print their thinking only after `post`, which python-chess sends for any
        # info selection but none; UCI lines are parsed after the move, so none is asked for.
        uci = self.spec.protocol == "uci"
        selection = chess.engine.INFO_NONE if uci else chess.engine.INFO_BASIC
        play = asyncio.ensure_future(self.protocol.play(board, limit, game=game, info=selection,
                                                        ponder=self.spec.ponder))
        try:
            await asyncio.wait({play, timing.go_sent}, timeout=ready_timeout_s,
                               return_when=asyncio.FIRST_COMPLETED)
            if not timing.go_sent.done():
                if play.done():
                    return self._failed(play, timing)
                return await self._stalled(timing, f"no answer to the new game or position "
                                           f"within {ready_timeout_s:g} s")
            left = answer_timeout_s - (time.monotonic() - timing.go_at)
            await asyncio.wait({play, timing.answered}, timeout=max(0.0, left),
                               return_when=asyncio.FIRST_COMPLETED)
            if not timing.answered.done():
                if play.done():
                    return self._failed(play, timing)
                play.cancel()
                await asyncio.wait({timing.answered}, timeout=stop_grace_s)
                if not timing.answered.done():
                    return await self._stalled(timing, "no move by the deadline nor after stop")
                return SearchOutcome(SearchStatus.LATE, move_text=self._move_text(timing),
                                     elapsed_ms=timing.elapsed_ms, lines=timing.lines,
                                     detail="moved only after stop")
            await asyncio.wait({play}, timeout=ready_timeout_s)
            if not play.done():
                return await self._stalled(timing, "no answer to ping after its move")
            if play.exception() is not None:
                return self._failed(play, timing)
            result = play.result()
            if result.resigned:
                return SearchOutcome(SearchStatus.RESIGNED, elapsed_ms=timing.elapsed_ms,
                                     lines=timing.lines)
            if result.move is None:
                return SearchOutcome(SearchStatus.ILLEGAL, move_text=self._move_text(timing),
                                     elapsed_ms=timing.elapsed_ms, lines=timing.lines,
                                     detail="no move")
            if not board.is_legal(result.move):
                # python-chess parses `0000` as the null move, which is never a legal answer.
                return SearchOutcome(SearchStatus.ILLEGAL, move_text=self._move_text(timing),
                                     elapsed_ms=timing.elapsed_ms, lines=timing.lines,
                                     detail="not a legal move")
            return SearchOutcome(SearchStatus.OK, move=result.move, move_text=result.move.uci(),
                                 elapsed_ms=timing.elapsed_ms, lines=timing.lines)
        finally:
            self.protocol.timing = None
            if not play.done():
                play.cancel()
                await asyncio.wait({play}, timeout=0.1)
            if play.done() and not play.cancelled():
                play.exception()  # looked at above when it mattered; keep asyncio quiet

    def _move_text(self, timing: MoveTiming) -> str:
        tokens = (timing.answer_line or "").split()
        return tokens[1] if len(tokens) > 1 else "(none)"

    def _failed(self, play: asyncio.Future[Any], timing: MoveTiming) -> SearchOutcome:
        err = play.exception()
        if isinstance(err, chess.engine.EngineTerminatedError) or not self.alive:
            self.faulted = True
            return SearchOutcome(SearchStatus.CRASHED, elapsed_ms=timing.elapsed_ms,
                                 lines=timing.lines, detail=self.exit_note())
        if timing.answer_line is not None:
            return SearchOutcome(SearchStatus.ILLEGAL, move_text=self._move_text(timing),
                                 elapsed_ms=timing.elapsed_ms, lines=timing.lines,
                                 detail=str(err))
        self.faulted = True
        return SearchOutcome(SearchStatus.ERROR, elapsed_ms=timing.elapsed_ms, lines=timing.lines,
                             detail=str(err))

    async def _stalled(self, timing: MoveTiming, detail: str) -> SearchOutcome:
        self.faulted = True
        await self.kill()
        return SearchOutcome(SearchStatus.STALLED, lines=timing.lines, detail=detail)

    async def end_game(self, board: chess.Board, result: str, reason: str,
                       timeout_s: float) -> None:
        """Tell an XBoard engine the result (CECP `result`); a pondering UCI engine is stopped
        and its `bestmove` drained (python-chess sends `stop` for the ping), then pinged."""
        if not self.alive or self.faulted:
            return
        if self.spec.protocol != "xboard":
            if self.spec.ponder:
                try:
                    await asyncio.wait_for(self.protocol.ping(), timeout_s)
                except (asyncio.TimeoutError, chess.engine.EngineError):
                    self.faulted = True
            return
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(result)
        ending = re.sub(r"[{}\r\n]", " ", reason)
        try:
            await asyncio.wait_for(self.protocol.send_game_result(
                board, winner=winner, game_ending=ending), timeout_s)
        except (asyncio.TimeoutError, chess.engine.EngineError):
            self.faulted = True

    async def quit(self) -> None:
        """Ask the engine to quit; kill it if it does not within a moment."""
        if self.alive and not self.faulted:
            with contextlib.suppress(asyncio.TimeoutError, chess.engine.EngineError):
                await asyncio.wait_for(self.protocol.quit(), QUIT_TIMEOUT_S)
        await self.kill()

    async def kill(self) -> None:
        """Kill the engine process (SIGKILL) and reap it. A launcher must exec the engine."""
        if self.alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.protocol.returncode), QUIT_TIMEOUT_S)
        self.transport.close()
        self.protocol.transcript.close()


def _spec_key(spec: EngineSpec) -> tuple[Any, ...]:
    return (spec.name, tuple(spec.cmd), spec.protocol, repr(sorted(spec.options.items())),
            spec.cwd, tuple(sorted(spec.env.items())), spec.cpus)


class EnginePool:
    """Engine processes kept between the games of one worker, with the event loop they live on.

    `acquire` hands out an idle process of the same spec or starts one; `release` keeps a healthy
    process (UCI engines get `ucinewgame` at the next game, XBoard engines `new`) and kills a
    faulted one, so the next game gets a fresh process. At most `max_idle` idle processes are
    kept; `close` quits them all. Use it from one thread.
    """

    def __init__(self, max_idle: int = 4) -> None:
        self.loop = asyncio.new_event_loop()
        self.max_idle = max_idle
        self._idle: list[tuple[tuple[Any, ...], EngineProcess]] = []
        self.started = 0

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the pool's event loop."""
        return self.loop.run_until_complete(coro)

    async def acquire(self, spec: EngineSpec, logs: EngineLogs | None = None) -> EngineProcess:
        """An idle healthy process for `spec`, else a new one (`EngineError` if it fails); a new
        one keeps its traffic and stderr as `logs` says."""
        key = _spec_key(spec)
        for index, (idle_key, process) in enumerate(self._idle):
            if idle_key == key:
                del self._idle[index]
                if process.alive:
                    return process
                await process.kill()
                break
        process = await EngineProcess.start(spec, logs)
        self.started += 1
        return process

    async def release(self, process: EngineProcess) -> None:
        """Keep a healthy process for the next game; kill a faulted or dead one, quit one whose
        engine restarts for every game (`EngineSpec.restart`)."""
        if process.faulted or not process.alive:
            await process.kill()
            return
        if process.spec.restart:
            await process.quit()
            return
        self._idle.append((_spec_key(process.spec), process))
        while len(self._idle) > self.max_idle:
            _, oldest = self._idle.pop(0)
            await oldest.quit()

    def idle_pids(self) -> list[int]:
        """Process ids of the idle engines (for tests and diagnostics)."""
        return [process.pid for _, process in self._idle]

    def close(self) -> None:
        """Quit every idle engine and close the event loop."""
        if self.loop.is_closed():
            return
        idle, self._idle = self._idle, []
        for _, process in idle:
            self.run(process.quit())
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()

    def __enter__(self) -> EnginePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def probe_engine(spec: EngineSpec, logs: EngineLogs | None = None,
                 variant: Variant = Variant.STANDARD) -> EngineIdentity:
    """Start the engine, check its handshake, options and features, and quit it (its traffic
    kept as `logs` says).

    Raises `EngineError` naming the engine and the problem: binary missing, handshake failed or
    timed out, an option in `spec.options` that the engine lacks, an XBoard engine without
    `setboard`, an engine that does not declare Chess960 for a Chess960 or DFRC `variant`.
    """
    (found,) = probe_engines_at_once([spec], logs, variant)
    if isinstance(found, EngineError):
        raise found
    return found


def probe_engines_at_once(specs: list[EngineSpec], logs: EngineLogs | None = None,
                          variant: Variant = Variant.STANDARD
                          ) -> list[EngineIdentity | EngineError]:
    """`probe_engine` for several engines started side by side (a run waits for the slowest
    handshake, not for their sum): each engine's identity, or the `EngineError` it failed with,
    in the order of `specs`. For a Chess960 or DFRC `variant`, an engine that does not declare
    Chess960 (`EngineProcess.plays_chess960`) fails."""

    async def probe(spec: EngineSpec) -> EngineIdentity:
        process = await EngineProcess.start(spec, logs)
        chess960 = process.plays_chess960()
        await process.quit()
        if variant.chess960 and not chess960:
            declaration = ("no UCI_Chess960 option" if spec.protocol == "uci"
                           else "no fischerandom in its feature variants")
            raise EngineError(f"engine {spec.name!r} cannot play variant {variant.value!r}: it "
                              f"declares {declaration}")
        return process.identity

    async def probe_all() -> list[Any]:
        return await asyncio.gather(*(probe(spec) for spec in specs), return_exceptions=True)

    with EnginePool(max_idle=0) as pool:
        found = pool.run(probe_all())
    for result in found:
        if isinstance(result, BaseException) and not isinstance(result, EngineError):
            raise result
    return found
