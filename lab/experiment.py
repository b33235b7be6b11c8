"""Experiments: a TOML file (or a few command-line words) turned into a checked `Experiment`.

`load_experiment` reads and checks everything that needs no engine process: unknown keys (named,
with the file), types, time controls, the schedule, SPRT settings and the opening book (file and
line). `probe_engines` then starts each engine once (python-chess handshake through the game
module's `probe_engine`): a missing binary, a failed `uci`/`isready`, an unknown option or an
XBoard engine without `setboard` stops the experiment before any game and before any file is
written. `Experiment.identity()` is what must match to resume into a used results folder.

The file (every table but `[[engines]]` is optional)::

    name = "demo"                      # results go to results/<name> unless `out` is set
    tc = "10+0.1"                      # cutechess syntax; engines may override it
    concurrency = 2                    # games at once (default: number of cores)
    margin_ms = 100                    # time a move may overrun before it forfeits

    [schedule]
    type = "gauntlet"                  # or "round-robin"
    challengers = ["new"]              # gauntlet: these play every other engine
    rounds = 10                        # or: games = 40 (total, in schedule order)

    [openings]
    file = "books/openings_8ply.epd"   # EPD or PGN, relative to this file
    order = "random"                   # or "sequential"
    seed = 1
    plies = 8                          # PGN: book moves taken from each game
    paired = true                      # each opening twice, colours reversed

    [adjudication]                     # lab.records.Adjudication fields
    resign_move_count = 3
    resign_score_cp = 600

    [sprt]                             # stops a one-challenger gauntlet when it decides
    elo0 = 0.0
    elo1 = 5.0

    [backend]                          # optional: play on a Dask cluster (docs/dask.md)
    kind = "dask"                      # or "local" (the default process pool)
    scheduler = "tls://host:8786"      # none: a LocalCluster on this machine (loopback only)

    [[engines]]
    name = "new"
    builtin = "tempo"                  # our engine; interpreter = "pypy" | "cpython"
    options = { TimeManager = "smooth" }
    # revision = "75609c1"             # our engine at a commit (lab.revisions exports its tree)

    [[engines]]
    name = "stockfish"
    cmd = ["/usr/games/stockfish"]
    protocol = "uci"                   # or "xboard"
    options = { "Skill Level" = 3 }
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from lab.backends.config import BackendError, DaskSettings
from lab.openings import BookError, Opening, book_format, load_book, order_book
from lab.records import Adjudication, EngineSpec
from lab.revisions import RevisionError, revision_environment, revision_tree
from timecontrol.control import TimeControlError, parse_time_control

#: Our engine's launcher, run as its own process (it picks PyPy when `.venv-pypy` exists and
#: then replaces itself by the engine). `engine.launcher` has no `__main__` block, so its `main`
#: is called explicitly.
BUILTIN_ENGINES = {
    "tempo": [sys.executable, "-c", "import sys; from engine.launcher import main; "
              "sys.exit(main())"],
}
#: `interpreter` key of a builtin engine -> value of TEMPO_ENGINE_PYTHON.
INTERPRETERS = ("pypy", "cpython")
#: The balanced book shipped with the repository: `tempo match`'s default openings.
DEFAULT_BOOK = Path(__file__).resolve().parents[1] / "experiments" / "books" / "openings_8ply.epd"
SCHEDULES = ("gauntlet", "round-robin")
#: Characters kept out of the names `tempo match` makes up (they become folder names).
UNSAFE_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9._=+,-]+")
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
    tc: str
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
    book: list[Opening] = field(default_factory=list, repr=False)

    def engine(self, name: str) -> EngineSpec:
        """The engine called `name`."""
        for spec in self.engines:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def config(self) -> dict[str, Any]:
        """Everything as plain data (for the store and for display)."""
        data = dataclasses.asdict(self)
        data.pop("book")
        data["out"] = str(self.out)
        return data

    def identity(self) -> dict[str, Any]:
        """What fixes the games: a used folder only resumes an experiment with the same identity.

        Left out: the number of games or rounds (a run may be extended; game ids are positions in
        the schedule), concurrency, SPRT settings and the output folder. Where things live is
        left out too, so a moved checkout or another virtualenv still resumes: our engine is
        `builtin:tempo` (`builtin:tempo@<commit>` at a revision) rather than its interpreter's path
        and tree, and the book is its file name and the SHA-256 of its content.
        """
        data = self.config()
        for key in ("rounds", "games", "concurrency", "sprt", "out", "source", "backend"):
            data.pop(key)
        builtins = {tuple(cmd): name for name, cmd in BUILTIN_ENGINES.items()}
        for engine in data["engines"]:
            if tuple(engine["cmd"]) in builtins:
                engine["cmd"] = [f"builtin:{builtins[tuple(engine['cmd'])]}"]
            revision = engine.pop("revision")  # absent unless set: older folders still resume
            if revision is not None:  # the commit names the tree and its interpreter
                engine.update(cmd=[f"{engine['cmd'][0]}@{revision}"], cwd=None)
                engine["env"].pop("TEMPO_PYPY", None)
        book = data["openings"]
        if book["file"] is not None:
            path = Path(book["file"])
            book["file"] = path.name
            book["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        return data


@dataclass
class Overrides:
    """Command-line values that replace the file's (`--games`, `--concurrency`, `--tc`, `--out`).

    `tc` replaces the experiment's time control and every per-engine one.
    """

    games: int | None = None
    rounds: int | None = None
    concurrency: int | None = None
    tc: str | None = None
    out: str | None = None


# --- Reading TOML with unknown-key checks -------------------------------------------------------


class _Table:
    """One TOML table being read: pops known keys, then complains about whatever is left."""

    def __init__(self, data: Any, where: str, source: str) -> None:
        if not isinstance(data, dict):
            raise ExperimentError(f"{source}: {where} must be a table, got {data!r}")
        self.data = dict(data)
        self.where = where
        self.source = source

    def error(self, message: str) -> ExperimentError:
        return ExperimentError(f"{self.source}: {self.where}: {message}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = self.data.pop(key, default)
        if value is None or value is default:
            return value
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            names = " or ".join(k.__name__ for k in kinds)
            raise self.error(f"key '{key}' must be {names}, got {value!r}")
        return value

    def positive(self, key: str, default: int | None = None) -> int | None:
        value = self.get(key, int, default)
        if value is not None and value <= 0:
            raise self.error(f"key '{key}' must be a positive integer, got {value}")
        return value

    def table(self, key: str) -> _Table:
        return _Table(self.data.pop(key, {}), f"[{key}]" if self.where == "top level"
                      else f"{self.where}.{key}", self.source)

    def done(self) -> None:
        if self.data:
            keys = ", ".join(f"'{k}'" for k in sorted(self.data))
            raise self.error(f"unknown key{'s' if len(self.data) > 1 else ''} {keys}")


def _check_tc(text: str, where: str) -> str:
    try:
        return str(parse_time_control(text))
    except TimeControlError as exc:
        raise ExperimentError(f"{where}: bad time control: {exc}") from None


def _engine(table: _Table, base: Path) -> EngineSpec:
    builtin = table.get("builtin", str)
    cmd = table.get("cmd", (list, str))
    interpreter = table.get("interpreter", str)
    if (builtin is None) == (cmd is None):
        raise table.error("give exactly one of 'builtin' (our engine) or 'cmd' (a command)")
    env = {str(k): str(v) for k, v in table.get("env", dict, {}).items()}
    if builtin is not None:
        if builtin not in BUILTIN_ENGINES:
            raise table.error(f"unknown builtin engine {builtin!r}; known: "
                              + ", ".join(BUILTIN_ENGINES))
        command = list(BUILTIN_ENGINES[builtin])
        if interpreter is not None:
            if interpreter not in INTERPRETERS:
                raise table.error(f"key 'interpreter' must be one of {INTERPRETERS}, "
                                  f"got {interpreter!r}")
            env["TEMPO_ENGINE_PYTHON"] = interpreter
        default_name = builtin
    else:
        if interpreter is not None:
            raise table.error("key 'interpreter' only applies to builtin engines")
        command = [cmd] if isinstance(cmd, str) else cmd
        if not command or not all(isinstance(part, str) for part in command):
            raise table.error(f"key 'cmd' must be a non-empty list of strings, got {cmd!r}")
        default_name = Path(command[0]).stem
    cwd = table.get("cwd", str)
    if cwd is not None:
        cwd_path = (base / cwd).resolve()
        if not cwd_path.is_dir():
            raise table.error(f"working directory {cwd_path} does not exist")
        cwd = str(cwd_path)
    revision = table.get("revision", str)
    if revision is not None:
        if builtin is None or cwd is not None:
            raise table.error("key 'revision' needs 'builtin' and no 'cwd'")
        try:
            revision, tree = revision_tree(revision)
        except RevisionError as exc:
            raise table.error(str(exc)) from None
        cwd, env, default_name = str(tree), {**revision_environment(), **env}, revision[:7]
    if builtin is None:
        command = [_resolve_binary(command[0], base, cwd)] + command[1:]
    protocol = table.get("protocol", str, "uci")
    if protocol not in ("uci", "xboard"):
        raise table.error(f"key 'protocol' must be 'uci' or 'xboard', got {protocol!r}")
    options = table.get("options", dict, {})
    for key, value in options.items():
        if not isinstance(value, (str, int, float, bool)):
            raise table.error(f"option {key!r} must be a string, number or boolean, got {value!r}")
    tc = table.get("tc", str)
    spec = EngineSpec(
        name=table.get("name", str, default_name),
        cmd=command,
        protocol=protocol,
        options=dict(options),
        cwd=cwd,
        env=env,
        startup_timeout_s=float(table.get("startup_timeout", (int, float), 10.0)),
        tc=_check_tc(tc, f"{table.source}: {table.where}") if tc is not None else None,
        revision=revision,
    )
    table.done()
    return spec


def _resolve_binary(program: str, base: Path, cwd: str | None) -> str:
    """An engine's program as given when it is a bare name on PATH, else as an absolute path.

    A relative path is taken from the engine's working directory, else from the experiment file.
    Symbolic links are kept: a virtualenv's `bin/python` links to the base interpreter, and only
    when started by its own path does it see the virtualenv's packages. A program that is nowhere
    is left as written: the engine probe reports it as missing.
    """
    if os.sep not in program:
        return program
    path = Path(program)
    if not path.is_absolute():
        path = (Path(cwd) if cwd else base) / path
    return os.path.abspath(path) if path.exists() else program


def _adjudication(table: _Table) -> Adjudication:
    values = {}
    for f in dataclasses.fields(Adjudication):
        if f.name == "resign_two_sided":
            values[f.name] = table.get(f.name, bool, False)
        else:
            values[f.name] = table.positive(f.name)
    table.done()
    return Adjudication(**values)


def _sprt(table: _Table) -> SprtConfig:
    try:
        elo0 = float(table.data.pop("elo0"))
        elo1 = float(table.data.pop("elo1"))
    except KeyError as exc:
        raise table.error(f"missing key {exc}") from None
    except (TypeError, ValueError):
        raise table.error("elo0 and elo1 must be numbers") from None
    sprt = SprtConfig(elo0, elo1, float(table.get("alpha", float, 0.05)),
                      float(table.get("beta", float, 0.05)),
                      table.get("model", str, "normalized"))
    table.done()
    if not sprt.elo0 < sprt.elo1:
        raise table.error(f"elo0 must be below elo1 (elo0={sprt.elo0}, elo1={sprt.elo1})")
    if not (0 < sprt.alpha < 1 and 0 < sprt.beta < 1 and sprt.alpha + sprt.beta < 1):
        raise table.error("alpha and beta must lie in (0, 1) with alpha + beta < 1")
    if sprt.model not in SPRT_MODELS:
        raise table.error(f"model must be one of {SPRT_MODELS}, got {sprt.model!r}")
    return sprt


def _book(table: _Table, base: Path) -> BookConfig:
    file = table.get("file", str)
    book = BookConfig(
        file=str((base / file).resolve()) if file is not None else None,
        format=table.get("format", str),
        order=table.get("order", str, "sequential"),
        seed=table.get("seed", int, 0),
        plies=table.positive("plies"),
        paired=table.get("paired", bool, True),
    )
    table.done()
    if book.order not in ("sequential", "random"):
        raise table.error(f"key 'order' must be 'sequential' or 'random', got {book.order!r}")
    if book.format not in (None, "epd", "pgn"):
        raise table.error(f"key 'format' must be 'epd' or 'pgn', got {book.format!r}")
    return book


def parse_experiment(data: dict[str, Any], source: str, base: Path,
                     overrides: Overrides | None = None) -> Experiment:
    """Build and check an experiment from TOML data; `base` anchors relative paths."""
    overrides = overrides or Overrides()
    top = _Table(data, "top level", source)
    name = top.get("name", str)
    if not name:
        raise top.error("key 'name' is missing")
    tc = top.get("tc", str)
    concurrency = top.positive("concurrency", os.cpu_count() or 1)
    margin_ms = top.get("margin_ms", int, 0)
    out = top.get("out", str)
    schedule = top.table("schedule")
    kind = schedule.get("type", str, "gauntlet")
    challengers = schedule.get("challengers", list, [])
    rounds = schedule.positive("rounds")
    games = schedule.positive("games")
    schedule.done()
    book = _book(top.table("openings"), base)
    adjudication = _adjudication(top.table("adjudication"))
    sprt_table = top.data.get("sprt")
    sprt = _sprt(top.table("sprt")) if sprt_table is not None else None
    backend_table = top.data.pop("backend", None)
    try:
        backend = (DaskSettings.from_table(backend_table, source, base)
                   if backend_table is not None else None)
    except BackendError as exc:
        raise ExperimentError(str(exc)) from None
    raw_engines = top.data.pop("engines", None)
    if not isinstance(raw_engines, list) or not raw_engines:
        raise top.error("no engines: add [[engines]] tables")
    engines = [_engine(_Table(e, f"[[engines]] #{i + 1}", source), base)
               for i, e in enumerate(raw_engines)]
    top.done()

    if overrides.tc is not None:
        tc = overrides.tc
        for spec in engines:
            spec.tc = None
    experiment = Experiment(
        name=name, engines=engines, tc="", schedule=kind, challengers=challengers,
        rounds=overrides.rounds if overrides.rounds is not None else rounds,
        games=overrides.games if overrides.games is not None else games,
        openings=book, concurrency=overrides.concurrency or concurrency,
        adjudication=adjudication, sprt=sprt, margin_ms=margin_ms,
        out=Path(overrides.out or out or Path("results") / name), source=source,
        backend=backend,
    )
    if overrides.rounds is not None and overrides.games is None:
        experiment.games = None
    if overrides.games is not None:
        experiment.rounds = None
    if tc is None:
        if any(spec.tc is None for spec in engines):
            raise top.error("key 'tc' is missing (or give every engine its own 'tc')")
        experiment.tc = engines[0].tc or ""
    else:
        experiment.tc = _check_tc(tc, source)
    _check_structure(experiment, top, overrides)
    return experiment


def _check_structure(exp: Experiment, top: _Table, overrides: Overrides | None = None) -> None:
    names = [spec.name for spec in exp.engines]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise top.error(f"engine names must be unique: {', '.join(duplicates)} used twice")
    if len(names) < 2:
        raise top.error("an experiment needs at least two engines")
    if exp.schedule not in SCHEDULES:
        raise top.error(f"[schedule] type must be one of {SCHEDULES}, got {exp.schedule!r}")
    if exp.schedule == "gauntlet":
        if not exp.challengers:
            exp.challengers = [names[0]]
        unknown = [c for c in exp.challengers if c not in names]
        if unknown:
            raise top.error(f"[schedule] challengers {unknown} are not engines "
                            f"(engines: {', '.join(names)})")
        if len(set(exp.challengers)) == len(names):
            raise top.error("[schedule] a gauntlet needs an opponent that is not a challenger")
    elif exp.challengers:
        raise top.error("[schedule] challengers only apply to a gauntlet")
    for key in ("games", "rounds", "concurrency"):
        value = getattr(exp, key)
        if value is not None and value <= 0:
            raise top.error(f"{key} must be a positive integer, got {value}")
    if exp.rounds is not None and exp.games is not None:
        raise top.error("[schedule] give 'rounds' or 'games', not both")
    if exp.rounds is None and exp.games is None:
        exp.rounds = 1
    if exp.openings.paired and exp.games is not None and exp.games % 2:
        if overrides is not None and overrides.games is not None:
            raise ExperimentError(f"--games {exp.games}: must be even with paired openings "
                                  "(each opening is played twice, colours reversed)")
        raise top.error(f"[schedule] games = {exp.games} must be even with paired openings")
    if exp.sprt is not None and exp.schedule == "gauntlet" and len(exp.challengers) != 1:
        raise top.error("[sprt] needs a gauntlet with exactly one challenger")
    if exp.sprt is not None and exp.schedule == "round-robin" and len(names) != 2:
        raise top.error("[sprt] needs a gauntlet with one challenger or a two-engine match")
    if exp.margin_ms < 0:
        raise top.error("key 'margin_ms' must not be negative")


def load_book_for(exp: Experiment) -> list[Opening]:
    """The experiment's openings in play order (an empty book means the start position)."""
    cfg = exp.openings
    if cfg.file is None:
        return []
    try:
        fmt = cfg.format or book_format(cfg.file)
        return order_book(load_book(cfg.file, fmt, cfg.plies), cfg.order, cfg.seed)
    except BookError as exc:
        raise ExperimentError(f"{exp.source}: [openings]: {exc}") from None


def load_experiment(path: str | Path, overrides: Overrides | None = None) -> Experiment:
    """Read, check and complete an experiment file, its opening book included (no engine runs)."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ExperimentError(f"{path}: experiment file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: not valid TOML: {exc}") from None
    experiment = parse_experiment(data, str(path), path.parent.resolve(), overrides)
    experiment.book = load_book_for(experiment)
    return experiment


def probe_engines(exp: Experiment, probe: Callable[[EngineSpec], Any] | None = None
                  ) -> dict[str, Any]:
    """Start each engine once and check it (handshake, options); name -> its identity.

    Problems come from the engine module's `probe_engine` as `EngineError` (missing binary,
    failed or timed-out handshake, unknown option, XBoard engine without `setboard`) and are
    raised again as `ExperimentError` naming the experiment file.
    """
    from lab.engine_process import EngineError, probe_engine

    identities = {}
    for spec in exp.engines:
        try:
            identities[spec.name] = (probe or probe_engine)(spec)
        except EngineError as exc:
            raise ExperimentError(f"{exp.source}: {exc}") from None
    return identities


# --- The quick form: `tempo match ENGINE ENGINE` ------------------------------------------------


def _option_value(text: str) -> str | int | bool:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text.strip()


def engine_table(word: str) -> dict[str, Any]:
    """An `[[engines]]` table from a command-line word.

    `tempo` is our engine; anything else is a program (a name on PATH, in /usr/games, or a path),
    `xboard=PROGRAM` for an XBoard engine. Options follow a colon, comma-separated:
    `tempo:TimeManager=fraction`, `stockfish:Skill Level=3,Threads=1`.
    """
    head, _, tail = word.partition(":")
    table: dict[str, Any] = {}
    if head.startswith("xboard="):
        table["protocol"] = "xboard"
        head = head.removeprefix("xboard=")
    if head in BUILTIN_ENGINES and "protocol" not in table:
        table["builtin"] = head
    else:
        program = head
        if os.sep not in program and shutil.which(program) is None:
            games = Path("/usr/games") / program
            program = str(games) if games.exists() else program
        table["cmd"] = [program]
    options = {}
    for item in filter(None, (part.strip() for part in tail.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ExperimentError(f"engine {word!r}: option {item!r} needs NAME=VALUE")
        options[key.strip()] = _option_value(value)
    if options:
        table["options"] = options
    return table


def quick_experiment(words: list[str], tc: str, games: int, name: str | None = None,
                     book: str | None = None, concurrency: int | None = None,
                     out: str | None = None, paired: bool = True) -> Experiment:
    """A two-engine match from command-line words, checked like a file.

    Without `book`, the repository's balanced 8-ply book is used when it is there (in random
    order), so that paired games do not all start from the same position.
    """
    if paired and games % 2:
        raise ExperimentError(f"--games {games}: must be even with paired openings (each "
                              "opening is played twice, colours reversed)")
    tables = [engine_table(word) for word in words]
    seen: dict[str, int] = {}
    for table, word in zip(tables, words, strict=True):
        base = table.get("builtin") or Path(table["cmd"][0]).stem
        base = f"{base}-{word.partition(':')[2]}" if ":" in word else base
        base = UNSAFE_NAME_CHARACTERS.sub("_", base)
        seen[base] = seen.get(base, 0) + 1
        table["name"] = base if seen[base] == 1 else f"{base}_{seen[base]}"
    data: dict[str, Any] = {
        "name": name or "match-" + "-vs-".join(t["name"] for t in tables),
        "tc": tc,
        "schedule": {"type": "gauntlet", "challengers": [tables[0]["name"]], "games": games},
        "openings": {"paired": paired},
        "engines": tables,
    }
    if book is None and DEFAULT_BOOK.exists():
        book = str(DEFAULT_BOOK)
    if book is not None:
        data["openings"]["file"] = str(Path(book).resolve())
        data["openings"]["order"] = "random"
    if concurrency is not None:
        data["concurrency"] = concurrency
    if out is not None:
        data["out"] = out
    experiment = parse_experiment(data, "tempo match", Path.cwd())
    experiment.book = load_book_for(experiment)
    return experiment
