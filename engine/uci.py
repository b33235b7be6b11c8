"""The UCI loop: reads commands on the input thread, searches on a worker thread.

Commands and options follow the design's UCI contract (docs/design.md); `stop` and `isready`
are answered while the engine thinks, and malformed input is answered with
`info string error: ...` instead of ending the process. With `UCI_Chess960` on, positions (X-FEN or
Shredder-FEN castling) and moves are read, and moves written, in Chess960 notation: castling is
the king taking its own rook (UCI protocol, section "Chess960"; python-chess's
`Board(chess960=True)` does both). Per `go`, a stopper comes from the game's
time manager (`timecontrol.factory.create_manager`, option `TimeManager`) when a clock is given,
otherwise from the plain limits of `go`; one `info string tm {json}` telemetry line precedes
`bestmove`.

`go ponder` searches the position after the expected reply with no limit and answers only after
`stop` (at once) or `ponderhit`, where the move's stopper is made with the clock of that `go` and
the move's time starts (`timecontrol.ponder`); the search, its table and its tree go on. UCI: "the
engine should continue searching but switch from pondering to normal search".
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import chess

from engine import eval_weights, features, search
from engine.bench import BENCH_DEPTH, run_bench
from engine.evaluate import Evaluator
from engine.limiter import StrengthLimiter
from engine.options import DEFAULT_TIME_MANAGER, OPTIONS, OptionError, Options
from engine.search.context import SearchContext, SearchResult
from engine.search.mcts_keeper import TreeKeeper
from engine.tt import TranspositionTable
from timecontrol.common import move_stopper
from timecontrol.factory import create_manager
from timecontrol.go import GoParams
from timecontrol.iteration_stop import PreviousSearch
from timecontrol.ponder import PonderStopper
from timecontrol.stopper import Stopper

ENGINE_NAME = "Tempo 0.1"
ENGINE_AUTHOR = "the Tempo authors"
CPYTHON = platform.python_implementation() == "CPython"
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "nodes", "depth", "mate")
GO_WORDS = (*GO_NUMBERS, "infinite", "ponder", "searchmoves")


#: The depth searched for a `go` whose parameters cannot be used.
FALLBACK_DEPTH = 1


class UciError(ValueError):
    """Malformed or unusable input; the message is sent as `info string error: ...`."""


def parse_go(args: list[str], board: chess.Board) -> tuple[GoParams, list[chess.Move]]:
    """The limits of a `go` command and its `searchmoves` (legal in `board`; empty: all moves).

    Negative times count as 0; `ponder` sets `GoParams.ponder`.
    """
    go = GoParams()
    searchmoves: list[chess.Move] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in GO_NUMBERS:
            if index + 1 >= len(args):
                raise UciError(f"go: {word} needs a number")
            try:
                value = int(args[index + 1])
            except ValueError:
                raise UciError(f"go: {word} {args[index + 1]!r} is not an integer") from None
            if word in ("movestogo", "depth", "mate", "nodes") and value <= 0:
                raise UciError(f"go: {word} must be positive, got {value}")
            setattr(go, word, max(value, 0))
            index += 2
        elif word == "infinite":
            go.infinite = True
            index += 1
        elif word == "ponder":
            go.ponder = True
            index += 1
        elif word == "searchmoves":
            index += 1
            while index < len(args) and args[index] not in GO_WORDS:
                try:
                    move = board.parse_uci(args[index])
                except ValueError:
                    raise UciError(f"go: searchmoves {args[index]!r} is not a legal move") from None
                searchmoves.append(move)
                index += 1
        else:
            raise UciError(f"go: unknown parameter {word!r}")
    return go, searchmoves


def parse_factor(text: str) -> float:
    """The `SmartPruningFactor` option: a number >= 0 (0 turns smart pruning off)."""
    try:
        factor = float(text)
    except ValueError:
        raise UciError(f"option SmartPruningFactor: {text!r} is not a number") from None
    if not factor >= 0 or factor == float("inf"):
        raise UciError(f"option SmartPruningFactor: {text!r} must be a finite number >= 0")
    return factor


@dataclass
class Pondering:
    """A search begun by `go ponder`: its stopper, the event `ponderhit` or `stop` sets (no
    `bestmove` before it), and the wall and search-thread CPU times the move began at (the
    search's start until `ponderhit`)."""

    stopper: PonderStopper
    over: threading.Event
    started: float
    cpu_started: float | None = None


@dataclass
class Position:
    """A parsed `position` command: the start FEN, the legal moves played from it and the board
    after them, and what was wrong with the rest of the move list (None when nothing was)."""

    fen: str
    moves: list[str]
    board: chess.Board
    error: str | None = None


def parse_position(args: list[str], chess960: bool = False) -> Position:
    """A `position` command; a bad start raises UciError, and an illegal move ends the move list
    there: the position is the legal prefix (as Stockfish does) and `error` names the move.
    With `chess960` the board follows the Chess960 castling rules and notation."""
    if not args:
        raise UciError("position: expected startpos or fen")
    if args[0] == "startpos":
        fen = chess.STARTING_FEN
        rest = args[1:]
    elif args[0] == "fen":
        end = args.index("moves") if "moves" in args else len(args)
        fen = " ".join(args[1:end])
        rest = args[end:]
    else:
        raise UciError(f"position: expected startpos or fen, got {args[0]!r}")
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as error:
        raise UciError(f"position: bad fen {fen!r}: {error}") from None
    if board.status() != chess.STATUS_VALID:
        raise UciError(f"position: fen {fen!r} is not a legal position ({board.status()!r})")
    if rest and rest[0] != "moves":
        raise UciError(f"position: expected moves, got {rest[0]!r}")
    played: list[str] = []
    for text in rest[1:]:
        try:
            board.push_uci(text)
        except ValueError:
            return Position(fen, played, board, f"position: illegal move {text!r} in "
                            f"{board.fen()}; the position is the one before it")
        played.append(text)
    return Position(fen, played, board)


class UciEngine:
    """The engine's state between commands: options, position, tables, the game's manager."""

    def __init__(self, write: Callable[[str], None] | None = None) -> None:
        self._write = write or self._stdout
        self.out_lock = threading.Lock()
        self.options = Options()
        self.limiter = StrengthLimiter(self.options)
        self.tt = TranspositionTable(self.options["Hash"])
        self.tree_keeper = TreeKeeper()
        self.manager = create_manager(DEFAULT_TIME_MANAGER)
        self.previous_search = PreviousSearch()
        self.evaluator = Evaluator()
        self.start_fen = chess.STARTING_FEN
        self.moves: list[str] = []
        self.board = chess.Board()
        self.debug = False
        self.thread: threading.Thread | None = None
        self.stop_event = threading.Event()
        self.answered = threading.Event()
        self.pondering: Pondering | None = None
        self.ponder_position = False
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "uci": self.cmd_uci,
            "isready": lambda args: self.send("readyok"),
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": lambda args: self.stop_search(),
            "ponderhit": self.cmd_ponderhit,
            "setoption": self.cmd_setoption,
            "debug": self.cmd_debug,
            "bench": self.cmd_bench,
            "eval": self.cmd_eval,
            "d": self.cmd_d,
        }

    # -- output ---------------------------------------------------------------------------------

    @staticmethod
    def _stdout(line: str) -> None:
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            os._exit(0)  # the GUI closed our output: nobody is left to answer

    def send(self, line: str) -> None:
        """Write one protocol line (thread-safe)."""
        with self.out_lock:
            self._write(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # -- the loop -------------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Process one input line; False after `quit`. Never raises."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            self.finish_search()
            return False
        handler = self.commands.get(command)
        if handler is None:
            self.error(f"unknown command {command!r}")
            return True
        try:
            handler(args)
        except (UciError, OptionError) as error:
            self.error(str(error))
        except Exception as error:  # noqa: BLE001 - the loop must survive any bad input
            self.error(f"{command}: {type(error).__name__}: {error}")
        return True

    def searching(self) -> bool:
        """Whether a search has not yet come to its `bestmove` (its thread then only sends it and
        collects garbage; a new `go`, which may arrive as soon as the GUI reads the `bestmove`,
        waits for that instead of being refused)."""
        return self.thread is not None and self.thread.is_alive() and not self.answered.is_set()

    def stop_search(self) -> None:
        """`stop`: end the running search (a ponder search too) so that it answers."""
        self.stop_event.set()
        if self.pondering is not None:
            self.pondering.over.set()

    def finish_search(self) -> None:
        """Stop a running search and wait for its `bestmove`."""
        if self.thread is not None:
            self.stop_search()
            self.thread.join()
            self.thread = None

    # -- commands -------------------------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            self.send(option.declaration())
        self.send("uciok")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.finish_search()
        gc.collect()
        self.tt.clear()
        self.manager.new_game()
        self.previous_search = PreviousSearch()
        self.tree_keeper.new_game()
        self.limiter.new_game()
        self.start_fen, self.moves = chess.STARTING_FEN, []
        self.board = chess.Board(chess960=self.options["UCI_Chess960"])

    def cmd_position(self, args: list[str]) -> None:
        self.finish_search()
        position = parse_position(args, self.options["UCI_Chess960"])
        fen, moves = position.fen, position.moves
        # After `go ponder` the last move was only the expected reply: a miss still continues.
        known = self.moves[:-1] if self.ponder_position else self.moves
        self.ponder_position = False
        continues = fen == self.start_fen and moves[: len(known)] == known
        if not continues:
            self.manager.new_game()
            self.previous_search = PreviousSearch()
            self.limiter.new_game()
        self.start_fen, self.moves, self.board = fen, moves, position.board
        if position.error is not None:
            self.error(position.error)

    def cmd_setoption(self, args: list[str]) -> None:
        self.finish_search()
        if not args or args[0] != "name":
            raise UciError("setoption: expected 'name <option> [value <value>]'")
        if "value" in args:
            split = args.index("value")
            name, value = " ".join(args[1:split]), " ".join(args[split + 1 :])
        else:
            name, value = " ".join(args[1:]), ""
        if self.limiter.handles(name):
            for line in self.limiter.set_option(name, value, self.debug):
                self.send(line)
            self.evaluator = self.limiter.evaluator
            return
        name, parsed = self.options.parse(name, value)
        if name == "Hash":
            self.tt.resize(parsed)
        elif name == "Clear Hash":
            self.tt.clear()
        elif name == "SmartPruningFactor":
            parsed = parse_factor(parsed)
        elif name == "TimeManager":
            try:
                self.manager = create_manager(parsed or DEFAULT_TIME_MANAGER)
            except ValueError as error:
                raise UciError(f"setoption TimeManager: {error}") from None
        elif name == "EvalFile":
            self.load_weights(parsed)
        self.options.set(name, parsed)
        if name == "UCI_Chess960" and parsed != self.board.chess960:
            self.replay_position()

    def replay_position(self) -> None:
        """The current position read again under the `UCI_Chess960` now set (a GUI sends the
        option before `position`, but one sent after it must not leave the old rules)."""
        position = parse_position(["fen", self.start_fen, "moves", *self.moves],
                                  self.options["UCI_Chess960"])
        self.moves, self.board = position.moves, position.board
        if position.error is not None:
            self.error(position.error)

    def load_weights(self, path: str) -> None:
        """Evaluate with the weights file at `path` (empty: the built-in weights) from now on;
        the hash table is cleared, since its scores came from the old weights."""
        try:
            values = eval_weights.read_weights_file(path) if path else eval_weights.DEFAULTS
        except eval_weights.WeightsError as error:
            raise UciError(f"setoption EvalFile: {error}") from None
        eval_weights.install(values)
        self.limiter.refresh()
        self.evaluator = self.limiter.evaluator
        self.tt.clear()

    def cmd_debug(self, args: list[str]) -> None:
        if args not in (["on"], ["off"]):
            raise UciError("debug: expected on or off")
        self.debug = args[0] == "on"

    def cmd_bench(self, args: list[str]) -> None:
        self.finish_search()
        depth = BENCH_DEPTH
        if args:
            try:
                depth = int(args[0])
            except ValueError:
                raise UciError(f"bench: depth {args[0]!r} is not an integer") from None
            if not 1 <= depth <= 20:
                raise UciError(f"bench: depth {depth} is out of range 1..20")
        run_bench(self.options["SearchMode"], depth, self.send, self.options["Hash"])

    def cmd_eval(self, args: list[str]) -> None:
        terms = self.evaluator.terms(self.board)
        for name, value in terms.items():
            self.send(f"{name:>16} : {value:+6d}")
        total = self.evaluator.evaluate(self.board)
        white = total if self.board.turn == chess.WHITE else -total
        self.send(f"Final evaluation: {white:+d} cp (white side), {total:+d} cp (side to move)")

    def cmd_d(self, args: list[str]) -> None:
        for row in str(self.board).splitlines():
            self.send(row)
        self.send(f"Fen: {self.board.fen()}")

    def cmd_go(self, args: list[str]) -> None:
        started = time.perf_counter()
        if self.searching():
            raise UciError("go: a search is already running")
        self.finish_search()
        try:
            go, searchmoves = parse_go(args, self.board)
        except UciError as error:
            # A GUI waits for `bestmove` after any `go`: answer from a one-ply search.
            self.error(f"{error}; searching depth {FALLBACK_DEPTH} instead")
            go, searchmoves = GoParams(depth=FALLBACK_DEPTH), []
        self.stop_event = threading.Event()
        self.answered = threading.Event()
        board = self.board.copy()
        reused = search.prepare(self.options["SearchMode"], board, self.tree_keeper)
        self.pondering = self.ponder_search(go, board, reused, started) if go.ponder else None
        self.ponder_position = go.ponder
        stopper = (self.pondering.stopper if self.pondering is not None
                   else self.make_stopper(go, board, reused))
        ctx = SearchContext(
            board=board,
            evaluator=self.evaluator,
            tt=self.tt,
            stopper=stopper,
            send=self.send,
            stop_event=self.stop_event,
            multipv=self.options["MultiPV"],
            contempt=self.options["Contempt"],
            start_time=started,
            searchmoves=searchmoves,
            value_scale=self.options["ValueScale"],
            tree_keeper=self.tree_keeper,
            previous_search=self.previous_search,
            ponder=None if self.pondering is None else self.pondering.stopper,
        )
        self.limiter.prepare(ctx, go, self.options["Move Overhead"])
        mode = self.options["SearchMode"]
        self.thread = threading.Thread(target=self.think, args=(ctx, go, mode, self.pondering),
                                       daemon=True)
        self.thread.start()

    def cmd_ponderhit(self, args: list[str]) -> None:
        """The expected reply was played: the ponder search becomes the move's search, its time
        starting now."""
        pondering = self.pondering
        if pondering is None or not self.searching() or pondering.over.is_set():
            raise UciError("ponderhit: no search is pondering")
        now = time.perf_counter()
        pondering.stopper.hit((now - pondering.started) * 1000)
        pondering.started = now
        self.ponder_position = False
        pondering.over.set()

    # -- one search -----------------------------------------------------------------------------

    def ponder_search(self, go: GoParams, board: chess.Board, reused: int | None,
                      started: float) -> Pondering:
        """The state of a `go ponder` search: its stopper makes the move's stopper at the first
        check after `ponderhit` on the search thread, with the nodes searched by then as the
        reused tree in the modes that keep one, and notes that thread's CPU time there."""
        root = board.copy(stack=False)  # the search's board is then somewhere in its tree

        def make(total_nodes: int) -> Stopper:
            pondering.cpu_started = time.thread_time()
            return self.make_stopper(go, root, None if reused is None else total_nodes)

        pondering = Pondering(PonderStopper(make, search.iterative(self.options["SearchMode"])),
                              threading.Event(), started)
        return pondering

    def make_stopper(self, go: GoParams, board: chess.Board, reused: int | None) -> Stopper:
        """The manager's stopper (when it plans this move) with the limits every move has
        (`timecontrol.common.move_stopper`): soft and hard limits in an iterative search (the
        soft one scaled by Stockfish's factors if the manager asks), smart pruning last in mcts
        mode (docs/reference/smooth_time_manager.md §6.1)."""
        overhead = self.options["Move Overhead"]
        mode = self.options["SearchMode"]
        white = board.turn == chess.WHITE
        own = self.manager.make_stopper(go, board.ply(), white, reused, overhead)
        factor = parse_factor(self.options["SmartPruningFactor"]) if mode == "mcts" else None
        return move_stopper(own, go, white, overhead, iterative=search.iterative(mode),
                            smart_pruning_factor=factor,
                            iteration_factors=self.manager.iteration_factors,
                            equal_trees=self.manager.equal_trees)

    def think(self, ctx: SearchContext, go: GoParams, mode: str,
              pondering: Pondering | None) -> None:
        """The worker thread: search, wait for `stop` under `go infinite` and for `ponderhit` or
        `stop` under `go ponder`, report the move."""
        cpu_began = time.thread_time()
        try:
            result = search.run(mode, ctx)
        except Exception as error:  # noqa: BLE001 - a move must be given whatever happened
            self.error(f"search failed: {type(error).__name__}: {error}")
            legal = list(ctx.board.legal_moves)
            result = SearchResult(legal[0] if legal else None, 0, 0, 0, 0, 0.0, "error")
        result = self.limiter.choose(ctx, result)
        if pondering is not None:
            pondering.over.wait()
            if pondering.cpu_started is not None:
                cpu_began = pondering.cpu_started
        cpu_ms = round((time.thread_time() - cpu_began) * 1000)
        if go.infinite:
            ctx.stop_event.wait()
        if self.options["Telemetry"]:
            started = ctx.start_time if pondering is None else pondering.started
            record = json.dumps(self.telemetry(ctx, go, result, cpu_ms, started),
                                separators=(",", ":"))
            self.send(f"info string tm {record}")
        move = result.best_move.uci() if result.best_move is not None else "0000"
        ponder = f" ponder {result.ponder.uci()}" if result.ponder is not None else ""
        self.answered.set()
        self.send(f"bestmove {move}{ponder}")
        if CPYTHON:
            # The search's garbage only (see `main`); the tables and caches, old by now, wait for
            # the full collection at `ucinewgame`. A full one here costs 15-30 ms of our clock.
            gc.collect(1)

    def telemetry(self, ctx: SearchContext, go: GoParams, result: SearchResult,
                  cpu_ms: int, started: float) -> dict[str, object]:
        """The stopper's per-move figures with the clock of `go` (absent when not given) and the
        search's own (design: Telemetry contract);
        `cpu_ms`, the search thread's CPU time, tells time spent searching from time the
        process was not run (a busy machine). `used_ms` counts from `started`, the `go` or
        the `ponderhit` (`"ponder": true` then comes from the ponder stopper)."""
        record = dict(ctx.stopper.telemetry())
        record.update(result.stop_figures)
        white = ctx.board.turn == chess.WHITE
        clock = {"clock_ms": go.clock(white), "inc_ms": go.winc if white else go.binc,
                 "movestogo": go.movestogo}
        record.update({key: value for key, value in clock.items() if value is not None})
        record.update(
            ply=ctx.board.ply(),
            used_ms=round((time.perf_counter() - started) * 1000),
            nodes=result.nodes,
            reused_nodes=result.reused_nodes,
            depth=result.depth,
            stop_reason=result.stop_reason,
            cpu_ms=cpu_ms,
        )
        return record


def main(argv: list[str] | None = None) -> int:
    """`python -m engine`: the UCI loop on standard input/output until `quit` or end of input;
    `python -m engine bench [--mode M] [--depth D]`: the bench, then exit;
    `python -m engine features [--eval-file F]`: evaluation features of FENs (engine.features)."""
    args = sys.argv[1:] if argv is None else argv
    # CPython's full cyclic collection pauses the search for tens of ms (the tables and caches
    # hold many objects), enough to overrun a hard time limit: it runs between moves and games
    # instead. PyPy's collector is incremental and stays on.
    if CPYTHON:
        gc.disable()
    if args and args[0] == "bench":
        parser = argparse.ArgumentParser(prog="tempo-engine bench")
        parser.add_argument("--mode", default="alphabeta", choices=search.MODES)
        parser.add_argument("--depth", type=int, default=BENCH_DEPTH)
        parser.add_argument("--hash", type=int, default=16, help="table size in MB")
        options = parser.parse_args(args[1:])
        run_bench(options.mode, options.depth, UciEngine._stdout, options.hash)
        return 0
    if args and args[0] == "features":
        return features.main(args[1:])
    if args and args[0] in ("-h", "--help"):
        print("usage: tempo-engine [bench [--mode M] [--depth D] [--hash MB] | "
              "features [--eval-file FILE]]\n"
              "Without arguments: the UCI protocol on standard input and output.")
        return 0
    if args:
        print(f"tempo-engine: unknown arguments {' '.join(args)!r}; try 'bench' or "
              "'features'", file=sys.stderr)
        return 2
    engine = UciEngine()
    for raw in sys.stdin.buffer:
        if not engine.handle(raw.decode("utf-8", "replace")):
            return 0
    engine.finish_search()
    return 0
