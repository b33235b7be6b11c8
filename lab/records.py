"""The records that cross module boundaries in the lab: what a game needs and what it leaves.

A `GameTask` carries everything one game needs (so a worker process, or a Dask worker, can play it
alone); the game runner returns a `GameRecord` with one `MoveRecord` per move made, each holding
the `SearchInfo` its engine reported. The store
writes a finished `GameRecord` in one transaction; exports, ratings and plots read them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from lab.engine_log import EngineLogs
from lab.variants import Variant
from timecontrol.control import TimeControl

#: Points of each result string for White, as PGN writes them.
RESULT_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class Termination(StrEnum):
    """How a game ended, as PGN's Termination tag says it (the values are what the store and PGN
    hold, so old results folders read the same)."""

    NORMAL = "normal"
    TIME_FORFEIT = "time forfeit"
    ADJUDICATION = "adjudication"
    RULES_INFRACTION = "rules infraction"
    ABANDONED = "abandoned"
    STALLED_CONNECTION = "stalled connection"

    @property
    def is_fault(self) -> bool:
        """True when an engine failed (crashed, hung) rather than lost a game of chess."""
        return self in (Termination.ABANDONED, Termination.STALLED_CONNECTION)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the PGN result, the termination and the reason in words."""

    result: str
    termination: Termination
    reason: str


@dataclass
class EngineSpec:
    """One engine as a process: how to start it and what to set.

    `cmd` is the resolved command line (for `builtin = "tempo"` the experiment loader resolves it
    to our engine's launcher). `env` is added to the process environment (for our engine,
    `TEMPO_ENGINE_PYTHON=pypy|cpython` picks the interpreter). `tc` overrides the experiment's time
    control for this engine, `margin_ms` its time margin (None: the experiment's). `revision` is
    the commit our engine was taken from when the experiment named one (`cwd` is then that
    commit's exported tree, see `lab.revisions`). `ponder`: the engine thinks on the opponent's
    time (UCI `go ponder` on its expected reply, `lab.engine_process`; XBoard `hard`). `cpus`:
    the CPUs its process may run on (empty: any; fastchess's `-use-affinity`). `source`: for our
    engine run from a checkout, the digest of its sources there (`lab.engine_source`), which a
    Dask worker compares with its own copy's before it plays; empty for any other. `restart`:
    a new process for every game, the last one quit when its game ends (cutechess and fastchess
    `restart=on`), for an engine that carries state from game to game. `given`
    holds the program (`cmd`) and working directory (`cwd`) as the experiment file wrote them
    when it wrote them as relative paths: the experiment's identity keeps those, so a moved
    checkout still resumes its results folders.
    """

    name: str
    cmd: list[str]
    protocol: str = "uci"
    options: dict[str, Any] = field(default_factory=dict)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 10.0
    tc: TimeControl | None = None
    margin_ms: int | None = None
    revision: str | None = None
    ponder: bool = False
    cpus: tuple[int, ...] = ()
    source: str = ""
    restart: bool = False
    given: dict[str, str] = field(default_factory=dict)


@dataclass
class Adjudication:
    """cutechess-cli style adjudication; a rule is off while its fields are None.

    Draw: after full move `draw_move_number`, both sides' scores within ±`draw_score_cp` for
    `draw_move_count` consecutive moves. Resign: one side at or below −`resign_score_cp` for
    `resign_move_count` consecutive moves (its opponent agreeing when `resign_two_sided`).
    `max_moves`: the game is drawn after that many full moves. `syzygy`: a folder of Syzygy
    tables (several joined by the path separator) that end a game once it has at most
    `syzygy_pieces` pieces (default: the largest tables there).
    """

    draw_move_number: int | None = None
    draw_move_count: int | None = None
    draw_score_cp: int | None = None
    resign_move_count: int | None = None
    resign_score_cp: int | None = None
    resign_two_sided: bool = False
    max_moves: int | None = None
    syzygy: str | None = None
    syzygy_pieces: int | None = None


@dataclass
class GameTask:
    """One scheduled game: players, colours, opening and clocks, with a deterministic id; `logs`
    says where its engine processes keep their traffic and stderr; the worker rests `wait_ms`
    before playing it (cutechess `-wait`); `variant` says which rules its board follows."""

    game_id: str
    round: int
    white: EngineSpec
    black: EngineSpec
    tc: TimeControl
    opening_fen: str
    opening_moves: list[str] = field(default_factory=list)
    adjudication: Adjudication = field(default_factory=Adjudication)
    margin_ms: int = 0
    pair_id: str | None = None
    logs: EngineLogs = field(default_factory=EngineLogs)
    wait_ms: int = 0
    variant: Variant = Variant.STANDARD

    def margin_for(self, spec: EngineSpec) -> int:
        """How far a move of `spec` may overrun its clock: its own margin, else the game's."""
        return self.margin_ms if spec.margin_ms is None else spec.margin_ms


@dataclass
class SearchInfo:
    """What an engine reported about one search (`lab.search_info` parses it from its lines).

    Depth, seldepth, score and PV (UCI move text) are those of its main line, the score from the
    mover's point of view (centipawns or mate in N, never both); `nodes`, `nps` and `reported_ms`
    (its own `info time`) are its last figures. `telemetry` holds the fields of our engine's
    `info string tm` JSON (empty for other engines) and `telemetry_error` says why a telemetry
    line could not be read. Figures the engine did not report are None.
    """

    depth: int | None = None
    seldepth: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    nodes: int | None = None
    nps: int | None = None
    pv: str | None = None
    reported_ms: float | None = None
    telemetry: dict[str, Any] = field(default_factory=dict)
    telemetry_error: str | None = None


@dataclass
class MoveRecord:
    """One move as the harness saw it: measured time, clocks, and what the engine reported.

    `elapsed_ms` is measured by the harness from `go` sent to `bestmove` received. Clocks are the
    mover's, before and after the move (increment included). `search` is the engine's own account
    of its search (depth, score, nodes, PV, its reported time, telemetry). `ply` counts from the
    task's opening FEN, book moves included (after an 8-ply book the first engine move is ply 9).
    `turnaround_ms` is the harness's own time between the previous move's answer and this move's
    `go` (None for the first engine move). `ponderhit` is True for a move that the engine began
    pondering and was told `ponderhit`: its time counts from then (as cutechess charges it).
    """

    ply: int
    move: str
    san: str
    elapsed_ms: float
    clock_before_ms: float | None = None
    clock_after_ms: float | None = None
    search: SearchInfo = field(default_factory=SearchInfo)
    turnaround_ms: float | None = None
    ponderhit: bool = False


@dataclass
class GameRecord:
    """A finished game: result, how it ended, and every move made.

    `termination` is a `Termination` (PGN's Termination values); `reason` says it in words
    ("White mates", "Black's connection stalled", "illegal move e2e5 by White").
    `tc` is the game's time control and `white_tc`/`black_tc` each side's (they differ under time
    odds; None: the game's), `final_fen` the last position, and `illegal_move` the text of an
    illegal or malformed move that ended the game (for a comment: it is never in `moves`).
    `variant` gives the rules the moves are read by (Chess960 and DFRC: castling as king takes
    rook).
    """

    game_id: str
    white: str
    black: str
    result: str
    termination: Termination
    reason: str
    opening_fen: str
    opening_moves: list[str] = field(default_factory=list)
    moves: list[MoveRecord] = field(default_factory=list)
    started_at: str = ""
    finished_at: str = ""
    tc: TimeControl | None = None
    round: int = 0
    pair_id: str | None = None
    worker: dict[str, Any] = field(default_factory=dict)
    white_tc: TimeControl | None = None
    black_tc: TimeControl | None = None
    final_fen: str = ""
    illegal_move: str | None = None
    variant: Variant = Variant.STANDARD

    def __post_init__(self) -> None:
        self.termination = Termination(self.termination)
        self.variant = Variant(self.variant)

    @property
    def outcome(self) -> Outcome:
        """Result, termination and reason as one value."""
        return Outcome(self.result, self.termination, self.reason)

    def summary(self) -> GameSummary:
        """Who played, and how the game ended (what standings count)."""
        return GameSummary(self.white, self.black, self.result, self.termination, self.reason,
                           self.pair_id)


@dataclass(frozen=True)
class GameSummary:
    """A finished game as standings see it: players, result, how it ended, its opening pair."""

    white: str
    black: str
    result: str
    termination: str
    reason: str
    pair_id: str | None = None
