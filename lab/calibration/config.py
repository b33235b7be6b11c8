"""A calibration file: the engine to calibrate, its nominal levels, the anchors, and the budget.

    name = "calibrate_ladder"
    tc = "5+0.05"                      # every game (cutechess syntax, or nodes=N)
    concurrency = 2
    margin_ms = 100
    out = "results/calibration/ladder" # default results/<name>

    [levels]
    values = [1000, 1400, 1800]        # or: start = 600, stop = 2600, step = 200
    targets = [1000, 1200, 1400]       # Elo rows of the corrected table (default: the levels)
    games = 40                         # games per level against anchors, per round (even)
    ladder_games = 20                  # games between adjacent levels, per round (0: none)
    rounds = 2                         # measure, correct, measure the correction, ...
    passes = 2                         # 2: re-choose anchors from a first fit halfway; 1: don't
    topup_games = 0                    # more games, once, for a level whose 95 % half-width
                                       # after the passes exceeds A's limit (0: none; even)
    score_window = [0.25, 0.75]        # anchors a level plays: expected score in this window
    max_anchors = 3
    pin_top = false                    # our engine: the top level plays full strength's row
                                       # (full strength's effort, no error) in every round, and
                                       # a correction keeps that row at its target

    [engine]                           # an [[engines]] table (no name): who is calibrated
    builtin = "tempo"
    options = { TimeManager = "smooth" }
    table = "my_table.csv"             # optional starting EloTable (our engine only)
    # for any other engine: the option that sets its level, and the switch that enables it
    # level_option = "UCI_Elo"; limit_option = "UCI_LimitStrength" ("" for none)

    [[anchors]]                        # an [[engines]] table plus the rating it is pinned at
    name = "sf-skill0"
    cmd = ["/usr/games/stockfish"]
    options = { "Skill Level" = 0, Threads = 1, Hash = 16 }
    rating = 1320
    # plays_levels = false             # rated in the round robin only, never a level's opponent
    # or one of our own levels already calibrated (any name but L<Elo>):
    # builtin = "tempo", options = { UCI_LimitStrength = true, UCI_Elo = 1200,
    #                                EloTable = "calibrated.csv" }, rating = 1200

    [anchor_round_robin]               # rate the anchors among themselves first (issue #18)
    games = 40                         # games per anchor pair (even; 0: trust the ratings given)
    pin = "sf-elo1350"                 # the anchor whose rating is kept: the scale's one point
    added = ["weak-one"]               # anchors added after the round robin began: each plays
                                       # the round robin's anchors and those added before it
    window = 500                       # an added anchor plays only those whose ratings (as
                                       # given) lie within 500 of its own (0: all of them)

    [robustness]                       # the last round's levels measured again (criterion F)
    levels = [1000, 1400]              # some of the levels
    tcs = ["5+0.05", "20+0.2"]         # half and double the time control
    seeds = [1]                        # our engine's Seed (another random stream per game)
    loads = [2]                        # busy processes beside the level (another machine load)
    games = 40                         # games per level and variant (even)

    [spread]                           # levels this far apart, head to head (criterion S)
    gap = 400                          # every two of the last round's levels `gap` apart
    games = 100                        # games per pair (even)
    min_score = 0.85                   # the stronger's least score (issue #18: 85 %)

    [top]                              # full strength against the top level (criterion T)
    games = 100                        # (even)
    window = [0.40, 0.60]              # full strength's score must lie in it

    [full_strength]                    # full strength rated against the anchors (criterion U)
    games = 40                         # per anchor (even); the anchors its declared top
                                       # should score in score_window against, at most
                                       # max_anchors (the nearest ones if none is in it)
    estimate = 1770                    # Elo that picks those anchors instead of the declared
                                       # top: keep the one the stage was played with, so its
                                       # folder resumes after the top moves to the measurement

    [openings]                         # as in an experiment; order is random per stage
    [adjudication]                     # as in an experiment (no resign at low levels, §5.2)
    [criteria]                         # lab.calibration.criteria.Thresholds fields, and
    head_to_head = "anchors"           # E's scale: the anchors' ("anchors"), one fitted to the
                                       # ladder's pairs ("fitted") or the anchors' as a floor
                                       # ("floor": only a pair below it fails;
                                       # criteria.transitivity_line)

Our engine (`builtin = "tempo"`) is calibrated through its Elo table: each level plays with
`UCI_LimitStrength`, `UCI_Elo` = level and `EloTable` (empty in round 1 without `table`: the
formulas, not whatever table the engine loads by default), and the correction writes a table in
the engine's CSV format. Any other engine is calibrated through the value of its level option:
the correction writes, for each target Elo, the option value that produces it. Engine and
anchor tables are checked exactly as an experiment's `[[engines]]`
(`lab.experiment_file.parse_experiment`), so errors name this file and the key.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.calibration.criteria import HEAD_TO_HEAD, Thresholds
from lab.experiment import BUILTIN_ENGINES, Experiment, ExperimentError, load_book_for
from lab.experiment_file import parse_experiment
from lab.toml_table import TomlTable, read_toml

#: The UCI_Elo range our engine declares (engine/strength/range.py: LADDER_MIN_ELO and
#: FULL_STRENGTH_ELO; lab does not import engine, a test keeps the two equal): its levels and
#: the corrected table's rows must lie in it, since the engine refuses any other UCI_Elo.
TEMPO_ELO_RANGE = (600, 1740)


class CalibrationError(ValueError):
    """A calibration that cannot run; the message names the file and the key."""


@dataclass
class Anchor:
    """An engine pinned at a rating: its `[[engines]]` table and the rating. One with
    `plays_levels` false is rated in the round robin only: no level (nor full strength) plays
    it."""

    name: str
    rating: float
    table: dict[str, Any]
    plays_levels: bool = True


@dataclass
class ReportOnly:
    """`tempo calibrate --report`: no game is played; each stage the calibration reaches is
    read from its store as it stands and noted here as (stage, games held, games planned)."""

    stages: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def held(self) -> int:
        """Games the stages reached so far hold."""
        return sum(games for _, games, _ in self.stages)

    @property
    def planned(self) -> int:
        """Games the stages reached so far plan."""
        return sum(games for _, _, games in self.stages)


@dataclass
class Calibration:
    """A checked calibration file."""

    name: str
    tc: str
    levels: list[int]
    engine: dict[str, Any]
    anchors: list[Anchor]
    targets: list[int] = field(default_factory=list)
    games: int = 40
    ladder_games: int = 20
    rounds: int = 1
    passes: int = 2
    topup_games: int = 0
    score_window: tuple[float, float] = (0.25, 0.75)
    max_anchors: int = 3
    concurrency: int = 2
    margin_ms: int = 0
    openings: dict[str, Any] = field(default_factory=dict)
    adjudication: dict[str, Any] = field(default_factory=dict)
    thresholds: Thresholds = field(default_factory=Thresholds)
    level_option: str = "UCI_Elo"
    limit_option: str = "UCI_LimitStrength"
    table: Path | None = None
    anchor_games: int = 0
    anchor_pin: str = ""
    anchors_added: list[str] = field(default_factory=list)
    added_window: float = 0.0
    robust_levels: list[int] = field(default_factory=list)
    robust_tcs: list[str] = field(default_factory=list)
    robust_seeds: list[int] = field(default_factory=list)
    robust_loads: list[int] = field(default_factory=list)
    robust_games: int = 0
    spread_gap: int = 0
    spread_games: int = 0
    spread_min_score: float = 0.85
    top_games: int = 0
    top_window: tuple[float, float] = (0.40, 0.60)
    head_to_head: str = "anchors"
    pin_top: bool = False
    full_games: int = 0
    full_estimate: float = math.nan
    out: Path = Path("results")
    source: str = "<calibration>"
    base: Path = Path(".")
    report_only: ReportOnly | None = None  # set by `tempo calibrate --report`: play nothing
    anchor_cov: dict[tuple[str, str], float] = field(default_factory=dict)
    """The measured anchors' rating covariance (Elo², by pair of names) from their round robin,
    set with their ratings (`with_ratings`); empty when the ratings are declared, taken as exact."""

    @property
    def uses_table(self) -> bool:
        """True for our engine: levels are set through UCI_Elo and an EloTable."""
        return self.engine.get("builtin") in BUILTIN_ENGINES

    @property
    def full_strength_engine(self) -> dict[str, Any]:
        """The calibrated engine's table without its limit: full strength (stages T and U)."""
        return dict(self.engine, options=dict(self.engine.get("options", {})))

    @property
    def declared_top(self) -> float:
        """The top of the range the calibrated engine declares: our engine's UCI_Elo maximum,
        its full strength (NaN for another engine: it declares none)."""
        return float(TEMPO_ELO_RANGE[1]) if self.uses_table else math.nan

    @property
    def full_strength_estimate(self) -> float:
        """The Elo that picks full strength's anchors: `[full_strength] estimate`, else the
        declared top, else (another engine) the highest level."""
        if math.isfinite(self.full_estimate):
            return self.full_estimate
        return self.declared_top if math.isfinite(self.declared_top) else float(max(self.levels))

    @property
    def ratings(self) -> dict[str, float]:
        return {a.name: a.rating for a in self.anchors}

    @property
    def opponent_ratings(self) -> dict[str, float]:
        """The ratings of the anchors the levels and full strength may play (`plays_levels`)."""
        return {a.name: a.rating for a in self.anchors if a.plays_levels}

    def level_name(self, level: int) -> str:
        return f"L{level}"

    def level_options(self, level: int, value: float | None = None,
                      table: Path | None = None) -> dict[str, Any]:
        """The options one level plays with (our engine: Elo and table; others: the value).

        Our engine's levels name their table even without one: `EloTable` empty plays the
        formulas, so round 1 measures them whatever table the engine loads by default. The
        table comes first (options are sent in this order): the engine accepts only the Elos of
        the table it has loaded, from its first row up.
        """
        options = dict(self.engine.get("options", {}))
        if self.limit_option:
            options[self.limit_option] = True
        if self.uses_table:
            options["EloTable"] = "" if table is None else str(table)
            options["UCI_Elo"] = level
        else:
            options[self.level_option] = int(round(level if value is None else value))
        return options

    def with_ratings(self, ratings: dict[str, float],
                     cov: dict[tuple[str, str], float] | None = None) -> Calibration:
        """This calibration with the anchors' ratings replaced (those named in `ratings`) and,
        given, their covariance."""
        anchors = [dataclasses.replace(a, rating=ratings.get(a.name, a.rating))
                   for a in self.anchors]
        return dataclasses.replace(self, anchors=anchors,
                                   anchor_cov=self.anchor_cov if cov is None else cov)

    def experiment(self, stage: str, players: list[tuple[str, dict[str, Any]]],
                   challengers: list[str], games: int, out: Path, seed: int,
                   tc: str | None = None, concurrency: int | None = None) -> Experiment:
        """One stage as an experiment: `players` are (name, [[engines]] table) pairs; with no
        `challengers`, a round robin of `games` games per pair; `tc` and `concurrency` replace
        the file's."""
        openings = dict(self.openings)
        openings.update(order="random", seed=int(openings.get("seed", 0)) + seed, paired=True)
        schedule: dict[str, Any] = (
            {"type": "gauntlet", "challengers": challengers, "games": games} if challengers
            else {"type": "round-robin", "rounds": games // 2})
        data = {
            "name": f"{self.name}-{stage}",
            "tc": tc or self.tc,
            "concurrency": concurrency or self.concurrency,
            "margin_ms": self.margin_ms,
            "out": str(out),
            "schedule": schedule,
            "openings": openings,
            "adjudication": dict(self.adjudication),
            "engines": [dict(copy.deepcopy(table), name=name) for name, table in players],
        }
        try:
            exp = parse_experiment(data, f"{self.source} [{stage}]", self.base)
        except ExperimentError as exc:
            raise CalibrationError(str(exc)) from None
        exp.book = load_book_for(exp)
        return exp


def _error(source: str, where: str, message: str) -> CalibrationError:
    return CalibrationError(f"{source}: {where}: {message}")


def _table(data: Any, where: str, source: str, known: Sequence[str] = ()) -> TomlTable:
    return TomlTable(data, where, source, CalibrationError, known)


def _levels(table: TomlTable) -> list[int]:
    values = table.get("values", list)
    start = table.get("start", int)
    stop = table.get("stop", int)
    step = table.get("step", int)
    return _grid(values, start, stop, step, table.source, table.where, "levels")


def _grid(values: list | None, start: int | None, stop: int | None, step: int | None,
          source: str, where: str, what: str) -> list[int]:
    if values is not None:
        if any(x is not None for x in (start, stop, step)):
            raise _error(source, where, "give 'values' or 'start'/'stop'/'step', not both")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise _error(source, where, f"'values' must be integers, got {values!r}")
    else:
        if start is None or stop is None or step is None or step <= 0 or stop < start:
            raise _error(source, where, "give 'values', or 'start', 'stop' and a positive "
                         "'step' with start <= stop")
        values = list(range(start, stop + 1, step))
    if len(values) < 2 or sorted(set(values)) != list(values):
        raise _error(source, where, f"{what} must be at least two, strictly increasing: {values}")
    return values


def parse_calibration(data: dict[str, Any], source: str, base: Path) -> Calibration:
    """Build and check a calibration from TOML data; `base` anchors relative paths."""
    top = _table(copy.deepcopy(data), "top level", source)
    name = top.get("name", str)
    if not name:
        raise top.error("key 'name' is missing")
    tc = top.get("tc", str)
    if not tc:
        raise top.error("key 'tc' is missing")
    levels_table = top.table("levels")
    levels = _levels(levels_table)
    cal = Calibration(name=name, tc=tc, levels=levels, engine={}, anchors=[], source=source,
                      base=base)
    where = levels_table.where
    targets = levels_table.get("targets", (list, dict))
    if isinstance(targets, dict):
        grid_table = _table(targets, f"{where}.targets", source)
        grid = [grid_table.get(key, int) for key in ("start", "stop", "step")]
        grid_table.done()
        cal.targets = _grid(None, *grid, source, grid_table.where, "targets")
    else:
        cal.targets = _grid(targets, None, None, None, source, where, "targets") \
            if targets is not None else list(levels)
    cal.games = levels_table.get("games", int, cal.games)
    cal.ladder_games = levels_table.get("ladder_games", int, cal.ladder_games)
    cal.rounds = levels_table.get("rounds", int, cal.rounds)
    cal.passes = levels_table.get("passes", int, cal.passes)
    cal.topup_games = levels_table.get("topup_games", int, cal.topup_games)
    window = levels_table.get("score_window", list, list(cal.score_window))
    cal.max_anchors = levels_table.get("max_anchors", int, cal.max_anchors)
    cal.pin_top = levels_table.get("pin_top", bool, cal.pin_top)
    levels_table.done()
    if cal.games <= 0 or cal.games % 2 or cal.ladder_games < 0 or cal.ladder_games % 2:
        raise _error(source, where, "'games' must be positive and even, 'ladder_games' even "
                     f"(games are paired); got {cal.games} and {cal.ladder_games}")
    if cal.topup_games < 0 or cal.topup_games % 2:
        raise _error(source, where, "'topup_games' must be 0 or positive and even (games are "
                     f"paired); got {cal.topup_games}")
    if cal.rounds < 1 or cal.max_anchors < 1:
        raise _error(source, where, "'rounds' and 'max_anchors' must be at least 1")
    if cal.passes not in (1, 2):
        raise _error(source, where, f"'passes' must be 1 or 2, got {cal.passes}")
    if (len(window) != 2 or not all(isinstance(w, (int, float)) for w in window)
            or not 0 < window[0] < 0.5 < window[1] < 1):
        raise _error(source, where, f"'score_window' must be [low, high] with 0 < low < 0.5 < "
                     f"high < 1, got {window!r}")
    cal.score_window = (float(window[0]), float(window[1]))

    cal.concurrency = top.get("concurrency", int, cal.concurrency)
    cal.margin_ms = top.get("margin_ms", int, cal.margin_ms)
    out = top.get("out", str)
    cal.out = Path(out) if out else Path("results") / name
    cal.openings = top.get("openings", dict, {})
    cal.adjudication = top.get("adjudication", dict, {})
    known = sorted(f.name for f in dataclasses.fields(Thresholds))
    criteria = top.table("criteria", [*known, "head_to_head"])
    cal.head_to_head = criteria.get("head_to_head", str, cal.head_to_head)
    if cal.head_to_head not in HEAD_TO_HEAD:
        raise criteria.error(f"'head_to_head' must be one of {', '.join(HEAD_TO_HEAD)}, got "
                             f"{cal.head_to_head!r}")
    given = {key: criteria.get(key, float) for key in known if key in criteria.data}
    criteria.done()
    cal.thresholds = Thresholds(**{k: float(v) for k, v in given.items()})

    if "engine" not in top.data:
        raise top.error("no [engine] table: which engine is calibrated?")
    engine = top.table("engine")
    if "name" in engine.data:
        raise engine.error("no 'name' here: levels are named L<Elo>")
    cal.level_option = engine.get("level_option", str, cal.level_option)
    cal.limit_option = engine.get("limit_option", str, cal.limit_option)
    table = engine.get("table", str)
    cal.engine = engine.data
    if table is not None:
        if not cal.uses_table:
            raise engine.error("'table' (an EloTable) applies to our engine only")
        cal.table = (base / table).resolve()
        if not cal.table.is_file():
            raise engine.error(f"table {cal.table} does not exist")
    if cal.pin_top and not cal.uses_table:
        raise _error(source, "[levels]", "'pin_top' (full strength's row) applies to our "
                     "engine only")
    if cal.pin_top and levels[-1] not in cal.targets:
        raise _error(source, "[levels]", f"'pin_top': the top level {levels[-1]} must be one "
                     f"of the targets, {cal.targets[0]}..{cal.targets[-1]}")
    if cal.uses_table:
        low, high = TEMPO_ELO_RANGE
        if levels[0] < low or levels[-1] > high or cal.targets[0] < low or cal.targets[-1] > high:
            raise _error(source, "[levels]", f"our engine's levels and targets must lie in "
                         f"{low}..{high}")

    _anchor_round_robin(cal, top.table("anchor_round_robin"))
    _robustness(cal, top.table("robustness"))
    _spread(cal, top.table("spread"))
    _top(cal, top.table("top"))
    cal.full_games, cal.full_estimate = _full_strength(top.table("full_strength"))

    raw = top.get("anchors", list, [])
    if not raw:
        raise top.error("no anchors: add [[anchors]] tables with a 'rating'")
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise _error(source, f"[[anchors]] #{i}", "must be a table")
        anchor = _table(item, f"[[anchors]] #{i}", source)
        anchor_name = anchor.get("name", str)
        rating = anchor.get("rating", (int, float))
        if not anchor_name or rating is None:
            raise anchor.error("needs a 'name' and a 'rating'")
        if anchor_name in {cal.level_name(level) for level in levels}:
            raise anchor.error(f"name {anchor_name!r} is taken by a level")
        plays_levels = anchor.get("plays_levels", bool, True)
        cal.anchors.append(Anchor(anchor_name, float(rating), anchor.data, plays_levels))
    names = [a.name for a in cal.anchors]
    if len(set(names)) != len(names):
        raise _error(source, "[[anchors]]", "anchor names must be unique")
    if not cal.opponent_ratings:
        raise _error(source, "[[anchors]]", "every anchor has plays_levels = false: the levels "
                     "have no opponent")
    if cal.anchor_games and not cal.anchor_pin:
        cal.anchor_pin = names[0]
    if cal.anchor_games and cal.anchor_pin not in names:
        raise _error(source, "[anchor_round_robin]", f"pin {cal.anchor_pin!r} is not an anchor "
                     f"(anchors: {', '.join(names)})")
    unknown = [name for name in cal.anchors_added if name not in names]
    if unknown:
        raise _error(source, "[anchor_round_robin]", f"added {', '.join(map(repr, unknown))} "
                     f"not an anchor (anchors: {', '.join(names)})")
    if len(set(cal.anchors_added)) != len(cal.anchors_added):
        raise _error(source, "[anchor_round_robin]", "'added' names an anchor twice")
    if cal.anchors_added and len(names) - len(cal.anchors_added) < 2:
        raise _error(source, "[anchor_round_robin]", "'added' leaves fewer than two anchors "
                     "for the round robin")
    top.done()
    # Check every engine table, the time control, openings and adjudication now, not mid-run.
    players = [(cal.level_name(levels[0]), dict(cal.engine, options=cal.level_options(
        levels[0], table=cal.table)))] + [(a.name, a.table) for a in cal.anchors]
    cal.experiment("check", players, [players[0][0]], 2, cal.out / "check", 0)
    return cal


def _even_games(table: TomlTable, games: int) -> None:
    """A stage's `games`: even (paired openings) and not negative (0: no stage)."""
    if games < 0 or games % 2:
        raise table.error(f"'games' must be even and >= 0 (games are paired), got {games}")


def _anchor_round_robin(cal: Calibration, table: TomlTable) -> None:
    """`[anchor_round_robin]`: games per anchor pair, the pinned anchor, the anchors added
    later and the rating window of their opponents."""
    cal.anchor_games = table.get("games", int, 0)
    cal.anchor_pin = table.get("pin", str, "")
    cal.anchors_added = table.get("added", list, [])
    cal.added_window = float(table.get("window", (int, float), 0))
    table.done()
    _even_games(table, cal.anchor_games)
    if cal.added_window < 0:
        raise table.error(f"'window' must be >= 0 Elo (0: no window), got {cal.added_window:g}")
    if not all(isinstance(name, str) for name in cal.anchors_added):
        raise table.error(f"'added' must be a list of anchor names, got {cal.anchors_added!r}")


def _robustness(cal: Calibration, table: TomlTable) -> None:
    """`[robustness]`: which levels are measured again under which variants, how many games."""
    cal.robust_levels = table.get("levels", list, [])
    cal.robust_tcs = table.get("tcs", list, [])
    cal.robust_seeds = table.get("seeds", list, [])
    cal.robust_loads = table.get("loads", list, [])
    cal.robust_games = table.get("games", int, 0)
    table.done()
    if not (cal.robust_levels or cal.robust_tcs or cal.robust_seeds or cal.robust_loads
            or cal.robust_games):
        return
    unknown = [lv for lv in cal.robust_levels if lv not in cal.levels]
    if not cal.robust_levels or unknown:
        raise table.error(f"'levels' must name some of [levels]' values, got "
                          f"{cal.robust_levels!r}")
    if not all(isinstance(tc, str) for tc in cal.robust_tcs):
        raise table.error(f"'tcs' must be time-control strings, got {cal.robust_tcs!r}")
    if not all(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0
               for seed in cal.robust_seeds):
        raise table.error(f"'seeds' must be integers >= 0, got {cal.robust_seeds!r}")
    if cal.robust_seeds and not cal.uses_table:
        raise table.error("'seeds' sets our engine's Seed option: our engine only")
    if not all(isinstance(load, int) and not isinstance(load, bool) and load >= 1
               for load in cal.robust_loads):
        raise table.error(f"'loads' must be numbers of busy processes >= 1, got "
                          f"{cal.robust_loads!r}")
    if not (cal.robust_tcs or cal.robust_seeds or cal.robust_loads):
        raise table.error("give 'tcs', 'seeds' or 'loads' (the variants to measure)")
    if cal.robust_games <= 0 or cal.robust_games % 2:
        raise table.error(f"'games' must be positive and even, got {cal.robust_games}")


def _spread(cal: Calibration, table: TomlTable) -> None:
    """`[spread]`: the gap between the levels that play each other, games, the least score."""
    cal.spread_gap = table.get("gap", int, 0)
    cal.spread_games = table.get("games", int, 0)
    cal.spread_min_score = float(table.get("min_score", (int, float), 0.85))
    table.done()
    _even_games(table, cal.spread_games)
    if not cal.spread_games:
        return
    if cal.spread_gap <= 0:
        raise table.error(f"'gap' must be a positive Elo difference, got {cal.spread_gap}")
    if not 0.5 < cal.spread_min_score <= 1.0:
        raise table.error(f"'min_score' must lie in (0.5, 1], got {cal.spread_min_score}")
    present = set(cal.levels)
    if not any(level + cal.spread_gap in present for level in present):
        raise table.error(f"no two of [levels]' values {cal.levels} are {cal.spread_gap} apart")


def _top(cal: Calibration, table: TomlTable) -> None:
    """`[top]`: games between full strength and the top level, and the score window."""
    cal.top_games = table.get("games", int, 0)
    window = table.get("window", list, [0.40, 0.60])
    table.done()
    _even_games(table, cal.top_games)
    if (len(window) != 2 or not all(isinstance(v, (int, float)) for v in window)
            or not 0.0 <= window[0] < window[1] <= 1.0):
        raise table.error(f"'window' must be [low, high] score fractions, got {window!r}")
    cal.top_window = (float(window[0]), float(window[1]))


def _full_strength(table: TomlTable) -> tuple[int, float]:
    """`[full_strength]`: games of full strength against each anchor it plays, and the Elo
    that picks those anchors (NaN: the declared top)."""
    games = table.get("games", int, 0)
    estimate = table.get("estimate", (int, float), math.nan)
    table.done()
    _even_games(table, games)
    if not math.isnan(estimate) and estimate <= 0:
        raise table.error(f"'estimate' must be a positive Elo, got {estimate}")
    return games, float(estimate)


def load_calibration(path: str | Path, out: str | None = None) -> Calibration:
    """Read and check a calibration file (no engine runs); `out` replaces its folder."""
    path = Path(path)
    data = read_toml(path, "calibration file", CalibrationError)
    cal = parse_calibration(data, str(path), path.parent.resolve())
    if out is not None:
        cal.out = Path(out)
    return cal
