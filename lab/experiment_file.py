"""An experiment file: TOML turned into a checked `Experiment`.

`load_experiment` reads and checks everything that needs no engine process: unknown keys (named,
with the file), types, time controls, the schedule, SPRT settings and the opening book (file and
line). The engines themselves are checked by `lab.runner.probe_engines` before anything is
written.

Every key, with an example, is in docs/experiments.md, which
tests/lab/test_experiments_doc.py checks against this reader (a key read here and not documented
there, or documented and not read, fails it).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from lab.adjudication import SyzygyError, largest_tables, syzygy_folders
from lab.backends.settings import BackendError, DaskSettings
from lab.engine_source import source_digest
from lab.engines_file import EnginesFileError, each_words, load_engines_file, merged
from lab.experiment import (
    BUILTIN_ENGINES,
    INTERPRETERS,
    LAB_ROOT,
    SCHEDULES,
    SPRT_MODELS,
    BookConfig,
    Experiment,
    ExperimentError,
    LogConfig,
    OutputFiles,
    Overrides,
    SprtConfig,
    builtin_command,
    load_book_for,
)
from lab.openings import POLYGLOT_PICKS
from lab.records import Adjudication, EngineSpec
from lab.revisions import RevisionError, revision_environment, revision_tree
from lab.toml_table import TomlTable, read_toml
from lab.variants import Variant
from timecontrol.control import TimeControl, TimeControlError, parse_time_control

#: The margin (ms) of `st=` controls when none is given. Measured here (docs/experiments.md,
#: "Clocks"): Stockfish at st=0.1 on a loaded 2-core machine answered 96% of 992 moves late,
#: by 8 ms at the median, 47 ms at the 99th percentile and 189 ms at most.
ST_MARGIN_MS = 500

#: The moves a Stockfish-style manager plans for at most: mtg is movestogo capped at 50, and
#: timeLeft keeps back the overhead for mtg + 2 of them (docs/reference/smooth_time_manager.md §9).
PLANNED_MOVES = 50


def _check_tc(text: str, where: str) -> TimeControl:
    """The time control `text` names (where it enters the lab: parsed once, carried as a value)."""
    try:
        return parse_time_control(text)
    except TimeControlError as exc:
        raise ExperimentError(f"{where}: bad time control: {exc}") from None


def _engine(table: TomlTable, base: Path) -> EngineSpec:
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
        source = source_digest(LAB_ROOT)
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
        source = ""
    cwd = table.get("cwd", str)
    given = {}
    if cwd is not None:
        if not Path(cwd).is_absolute():
            given["cwd"] = cwd
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
        command = builtin_command(tree)
        source = ""  # an exported commit's tree, never modified (lab.revisions)
    if builtin is None:
        if os.sep in command[0] and not Path(command[0]).is_absolute():
            given["cmd"] = command[0]
        command = [_resolve_binary(command[0], base, cwd)] + command[1:]
    protocol = table.get("protocol", str, "uci")
    if protocol not in ("uci", "xboard"):
        raise table.error(f"key 'protocol' must be 'uci' or 'xboard', got {protocol!r}")
    options = table.get("options", dict, {})
    for key, value in options.items():
        if not isinstance(value, (str, int, float, bool)):
            raise table.error(f"option {key!r} must be a string, number or boolean, got {value!r}")
    tc = table.get("tc", str)
    margin_ms = table.get("margin_ms", int)
    if margin_ms is not None and margin_ms < 0:
        raise table.error("key 'margin_ms' must not be negative")
    cpus = table.get("cpus", list, [])
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in cpus) \
            or len(set(cpus)) != len(cpus):
        raise table.error(f"key 'cpus' must list distinct CPU numbers >= 0, got {cpus!r}")
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
        margin_ms=margin_ms,
        ponder=table.get("ponder", bool, False),
        cpus=tuple(cpus),
        source=source,
        restart=table.get("restart", bool, False),
        given=given,
    )
    table.done()
    return spec


def _engines(top: TomlTable, base: Path, overrides: Overrides) -> list[EngineSpec]:
    """The `[[engines]]` entries, each laid over its engines-file definition (`conf`) and the
    shared settings (`[each]`, `--each`) as `lab.engines_file` says."""
    file = top.get("engines_file", str)
    path = (Path(overrides.engines_file).resolve() if overrides.engines_file is not None
            else base / file if file is not None else None)
    each = top.get("each", dict, {})
    raw_engines = top.get("engines", list)
    if not raw_engines:
        raise top.error("no engines: add [[engines]] tables")
    try:
        definitions = load_engines_file(path) if path is not None else {}
        each_cli = each_words(overrides.each)
    except EnginesFileError as exc:
        raise ExperimentError(f"{top.source}: {exc}") from None
    engines = []
    for i, entry in enumerate(raw_engines):
        where = f"[[engines]] #{i + 1}"
        own = TomlTable(entry, where, top.source, ExperimentError)
        conf = own.get("conf", str)
        definition: dict[str, Any] = {}
        if conf is not None:
            if path is None:
                raise own.error("key 'conf' names an engine of an engines file; give one "
                                "(engines_file = \"FILE\" or --engines FILE)")
            if conf not in definitions:
                raise own.error(f"key 'conf': no engine {conf!r} in {path} (it has: "
                                f"{', '.join(definitions)})")
            definition = {"name": conf, **definitions[conf]}
            where += f" (conf {conf!r} from {path})"
        table = merged(definition, each, own.data, each_cli)
        engines.append(_engine(TomlTable(table, where, top.source, ExperimentError), base))
    return engines


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


def _adjudication(table: TomlTable, base: Path) -> Adjudication:
    values: dict[str, Any] = {}
    for f in dataclasses.fields(Adjudication):
        if f.name == "resign_two_sided":
            values[f.name] = table.get(f.name, bool, False)
        elif f.name == "syzygy":
            path = table.get(f.name, str)
            values[f.name] = path if path is None else os.pathsep.join(
                str((base / folder).resolve()) for folder in syzygy_folders(path))
        else:
            values[f.name] = table.positive(f.name)
    table.done()
    adjudication = Adjudication(**values)
    if adjudication.syzygy is not None:
        try:
            largest_tables(adjudication.syzygy)
        except SyzygyError as exc:
            raise table.error(f"key 'syzygy': {exc}") from None
    elif adjudication.syzygy_pieces is not None:
        raise table.error("key 'syzygy_pieces' needs 'syzygy' (the tables' folder)")
    return adjudication


def _sprt(table: TomlTable) -> SprtConfig:
    elo0, elo1 = table.get("elo0", float), table.get("elo1", float)
    if elo0 is None or elo1 is None:
        raise table.error(f"missing key {'elo0' if elo0 is None else 'elo1'!r}")
    sprt = SprtConfig(float(elo0), float(elo1), float(table.get("alpha", float, 0.05)),
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


def _book(table: TomlTable, base: Path) -> BookConfig:
    file = table.get("file", str)
    book = BookConfig(
        file=str((base / file).resolve()) if file is not None else None,
        format=table.get("format", str),
        order=table.get("order", str, "sequential"),
        seed=table.get("seed", int, 0),
        plies=table.positive("plies"),
        paired=table.get("paired", bool, True),
        pick=table.get("pick", str, "weighted"),
        start=table.positive("start", 1) or 1,
    )
    table.done()
    if book.order not in ("sequential", "random"):
        raise table.error(f"key 'order' must be 'sequential' or 'random', got {book.order!r}")
    if book.format not in (None, "epd", "pgn", "polyglot"):
        raise table.error(f"key 'format' must be 'epd', 'pgn' or 'polyglot', got {book.format!r}")
    if book.pick not in POLYGLOT_PICKS:
        raise table.error(f"key 'pick' must be one of {POLYGLOT_PICKS}, got {book.pick!r}")
    return book


def _log(table: TomlTable, base: Path) -> LogConfig:
    folder = table.get("dir", str)
    log = LogConfig(str((base / folder).resolve()) if folder is not None else None,
                    table.get("stderr", bool, True), table.positive("stderr_kb", 256) or 256)
    table.done()
    return log


def _output(table: TomlTable, base: Path, overrides: Overrides) -> OutputFiles:
    pgn, epd = table.get("pgn", str), table.get("epd", str)
    output = OutputFiles(_writable(pgn, base, table, "pgn") if pgn is not None else None,
                         table.get("pgn_minimal", bool, False),
                         table.get("pgn_final_fen", bool, False),
                         _writable(epd, base, table, "epd") if epd is not None else None)
    table.done()
    if overrides.pgn_out:
        path, *words = overrides.pgn_out
        unknown = [w for w in words if w not in ("min", "fi")]
        if unknown:
            raise ExperimentError(f"--pgn-out {' '.join(overrides.pgn_out)}: unknown "
                                  f"{unknown[0]!r} (after FILE: 'min', 'fi')")
        output.pgn = _writable(path, Path.cwd(), None, "--pgn-out")
        output.pgn_minimal, output.pgn_final_fen = "min" in words, "fi" in words
    if overrides.epd_out is not None:
        output.epd = _writable(overrides.epd_out, Path.cwd(), None, "--epd-out")
    return output


def _writable(text: str, base: Path, table: TomlTable | None, key: str) -> str:
    """An output file's absolute path, refused (naming it) when it cannot be written."""
    path = (base / text).resolve()
    problem = ("is a folder" if path.is_dir()
               else "is in a folder that does not exist" if not path.parent.is_dir()
               else "cannot be written" if not os.access(path if path.exists() else path.parent,
                                                         os.W_OK)
               else None)
    if problem is None:
        return str(path)
    message = f"{path} {problem}"
    if table is None:
        raise ExperimentError(f"{key}: {message}")
    raise table.error(f"key '{key}': {message}")


def _variant(text: str, where: str) -> Variant:
    """The variant `text` names; an unknown one is an error naming where it was given and the
    variants there are."""
    try:
        return Variant(text)
    except ValueError:
        known = ", ".join(repr(v.value) for v in Variant)
        raise ExperimentError(f"{where}: unknown variant {text!r}; use one of {known}") from None


def parse_experiment(data: dict[str, Any], source: str, base: Path,
                     overrides: Overrides | None = None) -> Experiment:
    """Build and check an experiment from TOML data; `base` anchors relative paths."""
    overrides = overrides or Overrides()
    top = TomlTable(data, "top level", source, ExperimentError)
    name = top.get("name", str)
    if not name:
        raise top.error("key 'name' is missing")
    tc = top.get("tc", str)
    concurrency = top.positive("concurrency", os.cpu_count() or 1)
    margin_ms = top.get("margin_ms", int)
    out = top.get("out", str)
    schedule = top.table("schedule")
    kind = schedule.get("type", str, "gauntlet")
    challengers = schedule.get("challengers", list, [])
    rounds = schedule.positive("rounds")
    games = schedule.positive("games")
    schedule.done()
    book = _book(top.table("openings"), base)
    adjudication = _adjudication(top.table("adjudication"), base)
    log = _log(top.table("log"), base)
    output = _output(top.table("output"), base, overrides)
    wait_ms = top.get("wait_ms", int, 0)
    variant = _variant(top.get("variant", str, Variant.STANDARD.value),
                       f"{source}: top level: key 'variant'")
    if overrides.variant is not None:
        variant = _variant(overrides.variant, "--variant")
    wait_ms = wait_ms if overrides.wait_ms is None else overrides.wait_ms
    if wait_ms < 0:
        raise top.error(f"key 'wait_ms' must not be negative, got {wait_ms}")
    if overrides.log is not None:
        log.dir = str(Path(overrides.log).resolve())
    sprt_table = top.data.get("sprt")
    sprt = _sprt(top.table("sprt")) if sprt_table is not None else None
    backend_table = top.data.pop("backend", None)
    try:
        backend = (DaskSettings.from_table(backend_table, source, base)
                   if backend_table is not None else None)
    except BackendError as exc:
        raise ExperimentError(str(exc)) from None
    engines = _engines(top, base, overrides)
    top.done()

    if overrides.tc is not None:
        tc = overrides.tc
        for spec in engines:
            spec.tc = None
    if overrides.margin_ms is not None:
        margin_ms = overrides.margin_ms
        for spec in engines:
            spec.margin_ms = None
    if tc is not None:
        control = _check_tc(tc, source)
    elif any(spec.tc is None for spec in engines):
        raise top.error("key 'tc' is missing (or give every engine its own 'tc')")
    else:
        control = engines[0].tc
    experiment = Experiment(
        name=name, engines=engines, tc=control, schedule=kind, challengers=challengers,
        rounds=overrides.rounds if overrides.rounds is not None else rounds,
        games=overrides.games if overrides.games is not None else games,
        openings=book, concurrency=overrides.concurrency or concurrency,
        adjudication=adjudication, sprt=sprt, margin_ms=margin_ms or 0,
        out=Path(overrides.out or out or Path("results") / name), source=source,
        backend=backend, log=log, wait_ms=wait_ms, output=output, variant=variant,
    )
    if overrides.rounds is not None and overrides.games is None:
        experiment.games = None
    if overrides.games is not None:
        experiment.rounds = None
    if margin_ms is None:
        _default_margins(experiment)
    _check_structure(experiment, top, overrides)
    _check_move_overhead(experiment)
    return experiment


def overhead_reserve_ms(overhead_ms: float, control: TimeControl) -> tuple[float, float] | None:
    """What a `Move Overhead` of `overhead_ms` keeps back from a clock, and the clock's time for
    the moves planned, as Stockfish plans them (docs/reference/smooth_time_manager.md §9): the
    overhead for each of mtg + 2 moves, against time + inc * (mtg - 1), mtg = min(movestogo, 50).
    Our smooth manager keeps it back for each move of its own plan (about 51 at the start,
    `timecontrol.smooth.game_overhead_ms`). None for a per-move limit (st, nodes, depth, inf)."""
    if not control.has_clock:
        return None
    planned = min(control.moves or PLANNED_MOVES, PLANNED_MOVES)
    return overhead_ms * (planned + 2), control.base_ms + control.inc_ms * (planned - 1)


def _check_move_overhead(exp: Experiment) -> None:
    """Refuse a `Move Overhead` that keeps back the whole clock: Stockfish (and engines that take
    its option name and formula, ours among them) then moves without searching. Two calibration
    files of ours set 300 ms at 10+0.1, and Stockfish at UCI_Elo 1500 answered in 8 ms at depth 1
    instead of 1183 ms at depth 16. The harness's `margin_ms` is what absorbs late answers."""
    for spec in exp.engines:
        value = next((v for k, v in spec.options.items() if k.lower() == "move overhead"), None)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        control = spec.tc or exp.tc
        figures = overhead_reserve_ms(value, control)
        if figures is not None and figures[0] >= figures[1]:
            raise ExperimentError(
                f"{exp.source}: engine {spec.name!r}: Move Overhead {value} ms keeps back "
                f"{figures[0] / 1000:g} s for the moves it plans at {control}, no less than the "
                f"{figures[1] / 1000:g} s the clock gives them, so it would move without "
                "searching; lower it (the experiment's margin_ms absorbs late answers)")


def _default_margins(exp: Experiment) -> None:
    """Without a `margin_ms` anywhere, a fixed time per move (`st=`) gets `ST_MARGIN_MS`.

    Stockfish answers `go movetime` a few ms late, so with no margin it forfeits every game.
    """
    if exp.tc.movetime_ms is not None:
        exp.margin_ms = ST_MARGIN_MS
    for spec in exp.engines:
        if spec.margin_ms is None and spec.tc is not None and spec.tc.movetime_ms is not None:
            spec.margin_ms = ST_MARGIN_MS


def _check_structure(exp: Experiment, top: TomlTable,
                     overrides: Overrides | None = None) -> None:
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


def load_experiment(path: str | Path, overrides: Overrides | None = None) -> Experiment:
    """Read, check and complete an experiment file, its opening book included (no engine runs)."""
    path = Path(path)
    data = read_toml(path, "experiment file", ExperimentError)
    experiment = parse_experiment(data, str(path), path.parent.resolve(), overrides)
    experiment.book = load_book_for(experiment)
    return experiment
