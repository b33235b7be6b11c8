"""An experiment: who plays whom, how often, from which openings, with which clocks, where to.

The checked value built by the file reader (`lab.experiment_file`) and by `tempo match`
(`lab.quick_match`), and used by the schedule, the tournament and the store.
`Experiment.identity()` is what must match to resume into a used results folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.backends.settings import DaskSettings
from lab.openings import (
    BookError,
    Opening,
    book_format,
    load_book,
    order_book,
    start_at,
    variant_starts,
)
from lab.records import Adjudication, EngineSpec
from lab.variants import Variant
from timecontrol.control import TimeControl

#: The checkout this lab runs from: `builtin = "tempo"` is the engine of this checkout.
LAB_ROOT = Path(__file__).resolve().parents[1]
_LAUNCH = ("import sys; sys.path.insert(0, {root!r}); from engine.launcher import main; "
           "sys.exit(main())")
_LAUNCH_PATTERN = re.compile(re.escape(_LAUNCH).replace(re.escape("{root!r}"), "'([^']*)'"))


def builtin_command(root: Path = LAB_ROOT) -> list[str]:
    """Our engine's launcher in the checkout `root`, run as its own process (it picks the
    interpreter, CPython unless TEMPO_ENGINE_PYTHON says otherwise, and then replaces itself by
    the engine). The root goes first on the path, so the engine is that checkout's whatever the
    working directory or the installed package: a harness run from one checkout (or with one
    virtualenv for several worktrees) once played another's engine as the working tree.
    `engine.launcher` has no `__main__` block, so its `main` is called explicitly."""
    return [sys.executable, "-c", _LAUNCH.format(root=str(root))]


def builtin_root(cmd: list[str]) -> Path | None:
    """The checkout a `builtin_command` runs, from the command alone (whatever interpreter it
    names); None for any other command."""
    if len(cmd) == 3 and cmd[1] == "-c":
        match = _LAUNCH_PATTERN.fullmatch(cmd[2])
        if match is not None:
            return Path(match.group(1))
    return None


def is_builtin_command(cmd: list[str]) -> bool:
    """Whether `cmd` is `builtin_command` of some checkout run by this interpreter (for an
    experiment's identity)."""
    return builtin_root(cmd) is not None and cmd[0] == sys.executable


BUILTIN_ENGINES = {"tempo": builtin_command()}
#: `interpreter` key of a builtin engine -> value of TEMPO_ENGINE_PYTHON.
INTERPRETERS = ("pypy", "cpython")
#: The balanced book shipped with the repository: `tempo match`'s default openings.
DEFAULT_BOOK = Path(__file__).resolve().parents[1] / "experiments" / "books" / "openings_8ply.epd"
SCHEDULES = ("gauntlet", "round-robin")
SPRT_MODELS = ("normalized", "logistic")


class ExperimentError(ValueError):
    """An experiment that cannot run; the message names the file and the key or engine."""


@dataclass
class BookConfig:
    """Where the openings come from and how they are used."""

    file: str | None = None
    format: str | None = None
    order: str = "sequential"
    seed: int = 0
    plies: int | None = None
    paired: bool = True
    pick: str = "weighted"
    start: int = 1


#: Keys added after results folders were first written, left out of an experiment's identity
#: while at their defaults so that those folders still resume: (table, key, default).
LATER_KEYS = (("openings", "pick", "weighted"), ("openings", "start", 1),
              ("adjudication", "syzygy", None), ("adjudication", "syzygy_pieces", None))


@dataclass
class LogConfig:
    """Engine logs: the I/O log folder (None: no I/O log) and the stderr kept per process."""

    dir: str | None = None
    stderr: bool = True
    stderr_kb: int = 256


@dataclass
class OutputFiles:
    """Game files kept beside the results folder, appended game by game: a PGN file (`minimal`:
    Seven Tag Roster and no comments; `final_fen`: the final FEN as the last comment) and an
    EPD file of final positions, as cutechess's `-pgnout FILE [min] [fi]` and `-epdout FILE`."""

    pgn: str | None = None
    pgn_minimal: bool = False
    pgn_final_fen: bool = False
    epd: str | None = None


@dataclass
class SprtConfig:
    """GSPRT bounds (nElo for the normalized model, Elo for logistic) and error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"


@dataclass
class Experiment:
    """A checked experiment: who plays whom, how often, from which openings, into which folder."""

    name: str
    engines: list[EngineSpec]
    tc: TimeControl
    schedule: str = "gauntlet"
    challengers: list[str] = field(default_factory=list)
    rounds: int | None = None
    games: int | None = None
    openings: BookConfig = field(default_factory=BookConfig)
    concurrency: int = 1
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: SprtConfig | None = None
    margin_ms: int = 0
    out: Path = Path("results")
    source: str = "<command line>"
    backend: DaskSettings | None = None
    log: LogConfig = field(default_factory=LogConfig)
    wait_ms: int = 0
    output: OutputFiles = field(default_factory=OutputFiles)
    variant: Variant = Variant.STANDARD
    book: list[Opening] = field(default_factory=list, repr=False)

    def engine(self, name: str) -> EngineSpec:
        """The engine called `name`."""
        for spec in self.engines:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def config(self) -> dict[str, Any]:
        """Everything as plain data (for the store and for display); time controls as their
        canonical text, as results folders have always held them."""
        data = dataclasses.asdict(self)
        data.pop("book")
        data["out"] = str(self.out)
        data["tc"] = str(self.tc)
        for engine, spec in zip(data["engines"], self.engines):
            engine["tc"] = None if spec.tc is None else str(spec.tc)
        return data

    def identity(self) -> dict[str, Any]:
        """What fixes the games: a used folder only resumes an experiment with the same identity.

        Left out: the number of games or rounds (a run may be extended; game ids are positions in
        the schedule), concurrency, the engines' CPUs and restarts, SPRT settings, the wait
        between games and the output files.
        Where things live is left out too, so a moved checkout or another virtualenv still
        resumes: our engine is `builtin:tempo` (`builtin:tempo@<commit>` at a revision) rather
        than its interpreter's path and tree, another engine's program and working directory are
        the relative paths the file gave (`EngineSpec.given`) where it gave relative ones, and
        the book, as our engine's `EloTable` file, is its file name and the SHA-256 of its
        content (`table_identity`).
        """
        return self._identity(as_given=True)

    def earlier_identities(self) -> list[dict[str, Any]]:
        """The identity as older versions wrote it: such a folder still resumes where it is.

        Before `EngineSpec.given`, every program and working directory was an absolute path;
        before calibrations named the formulas (`EloTable` empty) for our engine's levels,
        they left the option out, when empty was the engine's default; before
        `table_identity`, our engine's `EloTable` file was its path as given.
        """
        return [self._identity(as_given=False, table_hashed=False),
                self._identity(as_given=True, table_named=False, table_hashed=False),
                self._identity(as_given=True, table_hashed=False)]

    def _identity(self, as_given: bool, table_named: bool = True,
                  table_hashed: bool = True) -> dict[str, Any]:
        data = self.config()
        for key in ("rounds", "games", "concurrency", "sprt", "out", "source", "backend", "log",
                    "wait_ms", "output"):
            data.pop(key)
        for engine, spec in zip(data["engines"], self.engines):
            given = engine.pop("given")
            if as_given:
                engine["cmd"][:1] = [given.get("cmd", engine["cmd"][0])]
                engine["cwd"] = given.get("cwd", engine["cwd"])
            if engine["margin_ms"] is None:
                engine.pop("margin_ms")
            if not engine["ponder"]:  # absent unless set: older folders still resume
                engine.pop("ponder")
            engine.pop("cpus")  # where the games run, as concurrency, not what they are
            engine.pop("source")  # checked on Dask workers; a changed engine still resumes
            engine.pop("restart")  # how its processes are managed, as concurrency
            if is_builtin_command(engine["cmd"]):
                engine["cmd"] = ["builtin:tempo"]
                if not table_named and engine["options"].get("EloTable") == "":
                    del engine["options"]["EloTable"]
                if table_hashed and "EloTable" in engine["options"]:
                    engine["options"]["EloTable"] = table_identity(
                        engine["options"]["EloTable"], spec.cwd)
            revision = engine.pop("revision")  # absent unless set: older folders still resume
            if revision is not None:  # the commit names the tree and its interpreter
                engine.update(cmd=[f"{engine['cmd'][0]}@{revision}"], cwd=None)
                engine["env"].pop("TEMPO_PYPY", None)
        for table, key, default in LATER_KEYS:
            if data[table].get(key, default) == default:
                data[table].pop(key, None)
        if self.variant is Variant.STANDARD:  # a later key too: older folders still resume
            data.pop("variant")
        book = data["openings"]
        if book["file"] is not None:
            path = Path(book["file"])
            book["file"] = path.name
            book["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        return data


def table_identity(value: Any, cwd: str | None = None) -> Any:
    """Our engine's `EloTable` value as an experiment's identity holds it: a file (the path
    taken from the engine's working directory `cwd`, as the engine takes it) becomes its name
    and the SHA-256 of its content, as the book does, so a table moved with the same content
    still resumes its folder and one whose content changed does not. Any other value (empty:
    the formulas; `<calibrated>`: the shipped table; a path to no file) stays as it is."""
    if not isinstance(value, str) or not value:
        return value
    path = Path(cwd or ".") / value
    if not path.is_file():
        return value
    return {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


@dataclass
class Overrides:
    """Command-line values that replace the file's (`--games`, `--concurrency`, `--tc`, `--out`,
    `--log`, `--margin`, `--engines`, `--each`, `--wait`, `--pgn-out`, `--epd-out`,
    `--variant`).

    `tc` replaces the experiment's time control and every per-engine one (the loader parses it,
    as it parses the file's); `margin_ms` likewise. `each` holds `--each KEY=VALUE` words, laid
    over every engine; `pgn_out` is `--pgn-out FILE [min] [fi]`.
    """

    games: int | None = None
    rounds: int | None = None
    concurrency: int | None = None
    tc: str | None = None
    out: str | None = None
    log: str | None = None
    margin_ms: int | None = None
    engines_file: str | None = None
    each: list[str] = field(default_factory=list)
    wait_ms: int | None = None
    pgn_out: list[str] | None = None
    epd_out: str | None = None
    variant: str | None = None


def load_book_for(exp: Experiment) -> list[Opening]:
    """The experiment's openings in play order (an empty book means the start position).

    Without a book file a Chess960 or DFRC experiment plays its variant's start positions
    (`lab.openings.variant_starts`, drawn by the book's seed)."""
    cfg = exp.openings
    try:
        if cfg.file is None:
            starts = variant_starts(exp.variant, cfg.seed)
            return start_at(starts, cfg.start) if starts else []
        fmt = cfg.format or book_format(cfg.file)
        book = load_book(cfg.file, fmt, cfg.plies, cfg.pick, cfg.seed, exp.variant.chess960)
        return start_at(order_book(book, cfg.order, cfg.seed), cfg.start)
    except BookError as exc:
        raise ExperimentError(f"{exp.source}: [openings]: {exc}") from None
