"""What the page of a results folder shows, gathered from the store in one read-only pass.

`read_folder` reads the store once (experiment, engines, games, moves); `summarize` is a pure
function of those frames that computes every table the page shows with the lab's own arithmetic:
the standings from `lab.ratings.fit_ratings` (Ordo's model with the defaults of `tempo ratings`),
the SPRT from `lab.sprt_counts`, `lab.stats` and `lab.sprt_estimate` (as `tempo sprt` counts),
per-pairing W/D/L and pentanomial counts from `lab.stats`. Nothing here writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from lab import stats
from lab.experiment import BookConfig, Experiment
from lab.page.games import MOVE_COLUMNS as VIEW_COLUMNS
from lab.ratings import RatingTable, fit_ratings
from lab.records import EngineSpec
from lab.schedule import total_games
from lab.sprt_counts import FolderCounts, count_games, is_paired
from lab.sprt_estimate import SequentialEstimate, sequential_estimate
from lab.store import read_store
from timecontrol.control import TimeControlError, parse_time_control

#: Terminations in the order the page lists them; others found in the store follow.
TERMINATIONS = ("normal", "adjudication", "time forfeit", "rules infraction", "abandoned",
                "stalled connection")
#: Games finished most recently that set the pace for the ETA.
PACE_GAMES = 20
#: Points at most on the LLR curve (each is one GSPRT evaluation).
LLR_POINTS = 150


@dataclass
class Folder:
    """Everything the store of a results folder holds, as read once."""

    path: Path
    config: dict[str, Any]
    engines: pd.DataFrame
    games: pd.DataFrame
    moves: pd.DataFrame


#: The moves columns the page uses: the game views' columns, what `lab.export.pgn_text` and the
#: time-usage figure read, and the time manager's name that labels the figure's lines.
MOVE_COLUMNS = list(dict.fromkeys([
    "game_id", "side", "engine", "ply", "move", "san", "elapsed_ms", "clock_after_ms", "depth",
    "nodes", "score_cp", "score_mate", "tm_tm", *(column for _, column, _, _ in VIEW_COLUMNS)]))


def read_folder(folder: str | Path) -> Folder:
    """The store of `folder`, read read-only in one pass (`StoreError` when it is not one); of
    the moves only the columns the page shows or draws (`MOVE_COLUMNS`)."""
    with read_store(folder) as store:
        return Folder(Path(folder), store.experiment() or {}, store.engines(), store.games(),
                      store.moves(columns=MOVE_COLUMNS))


@dataclass
class EngineInfo:
    """One engine as the page describes it."""

    name: str
    command: str
    protocol: str
    options: dict[str, Any]
    interpreter: str
    identity: str
    tc: str


@dataclass
class Pairing:
    """Two players' results against each other, from the first one's side."""

    first: str
    second: str
    wdl: list[int]  # [losses, draws, wins] of `first`
    penta: list[int] | None  # [LL, LD, WL+DD, WD, WW] of `first` over completed pairs


@dataclass
class SprtState:
    """The experiment's SPRT on the folder: counts, the test, its estimates, the LLR path."""

    counts: FolderCounts
    result: stats.SprtResult
    estimate: stats.EloEstimate
    corrected: SequentialEstimate
    curve: list[tuple[int, float]]  # (games played, LLR) after each counted sample


@dataclass
class Progress:
    """How far the run is: games played of scheduled, its time span and, while running, ETA."""

    played: int
    scheduled: int | None
    started: str
    finished: str
    running: bool
    eta_s: float | None


@dataclass
class RunSummary:
    """The whole page's content (see the module docstring)."""

    name: str
    folder: Path
    config: dict[str, Any]
    engines: list[EngineInfo]
    progress: Progress
    hosts: list[str]
    ratings: RatingTable | None
    ratings_note: str
    pairings: list[Pairing]
    sprt: SprtState | None
    sprt_note: str
    terminations: pd.DataFrame  # engine x termination: games that ended so
    faults: pd.DataFrame  # engine x termination: games it lost that way
    games: pd.DataFrame
    moves: pd.DataFrame


def engine_infos(config: dict[str, Any], engines: pd.DataFrame) -> list[EngineInfo]:
    """Each engine of the experiment with its command, options, interpreter and identity (as
    probed). Our engine is told by its launcher in the command, wherever the run's Python was."""
    probed = {row["name"]: row for _, row in engines.iterrows()} if not engines.empty else {}
    default_tc = str(config.get("tc") or "")
    infos = []
    for spec in config.get("engines") or []:
        name = str(spec.get("name"))
        row = probed.get(name)
        cmd = [str(part) for part in spec.get("cmd") or []]
        builtin = any("engine.launcher" in part for part in cmd)
        env = spec.get("env") or {}
        if builtin:
            interpreter = env.get("TEMPO_ENGINE_PYTHON", "launcher default")
            command = "tempo (builtin)"
        else:
            interpreter = "native" if cmd and not cmd[0].endswith(("python", "python3")) \
                else "CPython"
            command = " ".join(cmd)
        identity = str(row.get("id_name") or "") if row is not None else ""
        if row is not None and row.get("author"):
            identity += f" by {row['author']}"
        infos.append(EngineInfo(name, command, str(spec.get("protocol") or "uci"),
                                dict(spec.get("options") or {}), interpreter, identity,
                                str(spec.get("tc") or default_tc)))
    return infos


def scheduled_games(config: dict[str, Any]) -> int | None:
    """Games the experiment schedules (as `lab.schedule.total_games` counts them), if known."""
    try:
        book = BookConfig(**config["openings"])
        specs = [EngineSpec(e["name"], list(e.get("cmd") or [])) for e in config["engines"]]
        exp = Experiment(config["name"], specs, parse_time_control(str(config["tc"])),
                         config["schedule"],
                         list(config.get("challengers") or []), config.get("rounds"),
                         config.get("games"), book)
    except (KeyError, TypeError, TimeControlError):
        return None
    return total_games(exp)


def _time(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


def progress(games: pd.DataFrame, scheduled: int | None, running: bool) -> Progress:
    """Games played of scheduled, first start and last finish, and the ETA at the pace of the
    last `PACE_GAMES` games (while running and with games left)."""
    played = len(games)
    started = str(games["started_at"].min()) if played else ""
    finished = str(games["finished_at"].max()) if played else ""
    eta = None
    left = (scheduled - played) if scheduled is not None else 0
    if running and left > 0 and played >= 2:
        recent = [t for t in map(_time, games["finished_at"].tail(PACE_GAMES)) if t]
        span = (max(recent) - min(recent)).total_seconds() if len(recent) >= 2 else 0.0
        if span > 0:
            eta = left * span / (len(recent) - 1)
    return Progress(played, scheduled, started, finished, running, eta)


def pairings(games: pd.DataFrame, order: list[str]) -> list[Pairing]:
    """W/D/L and pentanomial counts of every pair of players that met, in the engines' order."""
    rank = {name: k for k, name in enumerate(order)}
    found: list[Pairing] = []
    players = sorted(set(games["white"]) | set(games["black"]), key=lambda n: (rank.get(n, 1e9), n))
    paired = is_paired(games)
    for i, first in enumerate(players):
        for second in players[i + 1:]:
            mask = ((games["white"] == first) & (games["black"] == second)) | (
                (games["white"] == second) & (games["black"] == first))
            subset = games[mask]
            if subset.empty:
                continue
            wdl = stats.trinomial(stats.player_scores(subset, first))
            penta = stats.pentanomial(stats.pair_scores(subset, first)) if paired else None
            found.append(Pairing(first, second, wdl, penta))
    return found


def llr_curve(games: pd.DataFrame, counts: FolderCounts, cfg: dict[str, Any],
              points: int = LLR_POINTS) -> list[tuple[int, float]]:
    """The LLR against games played, after every completed pair (or game) in finishing order,
    or after every k-th of them when there are more than `points` (the last one always)."""
    who = counts.engine
    scores = games["result"].map(stats.RESULT_POINTS)
    scores = scores.where(games["white"] == who, 1.0 - scores)
    plays = (games["white"] == who) | (games["black"] == who)
    pair_ids = games["pair_id"] if counts.paired else pd.Series(None, index=games.index)
    halves: dict[str, float] = {}
    samples: list[tuple[int, int]] = []  # (games played, count class)
    for k, (mine, value, pair_id) in enumerate(zip(plays, scores, pair_ids, strict=True), 1):
        if not mine or math.isnan(value):
            continue
        if not counts.paired:
            samples.append((k, int(round(2 * value))))
        elif pair_id in halves:
            samples.append((k, int(round(2 * (halves.pop(pair_id) + value)))))
        else:
            halves[pair_id] = value
    step = max(1, math.ceil(len(samples) / points))
    tally = [0] * len(counts.counts)
    curve: list[tuple[int, float]] = [(0, 0.0)]
    for n, (k, cls) in enumerate(samples, 1):
        tally[cls] += 1
        if n % step == 0 or n == len(samples):
            result = stats.sprt(tally, cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"],
                                cfg["model"])
            curve.append((k, result.llr))
    return curve


def sprt_state(games: pd.DataFrame, config: dict[str, Any]) -> SprtState:
    """The experiment's `[sprt]` on the folder's games, counted as `tempo sprt` counts them."""
    cfg = config["sprt"]
    counts = count_games(games, config)
    args = (cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"], cfg["model"])
    return SprtState(counts, stats.sprt(counts.counts, *args), stats.elo_estimate(counts.counts),
                     sequential_estimate(counts.counts, *args), llr_curve(games, counts, cfg))


def termination_tables(games: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per engine and termination: the games that ended so, and those of them it lost."""
    seen = [str(t) for t in games["termination"].dropna().unique()]
    columns = [t for t in TERMINATIONS if t in seen] + sorted(set(seen) - set(TERMINATIONS))
    points = games["result"].map(stats.RESULT_POINTS)
    ended = pd.DataFrame(0, index=order, columns=columns)
    lost = ended.copy()
    for side, losing in (("white", 0.0), ("black", 1.0)):
        frame = pd.DataFrame({"engine": games[side], "termination": games["termination"],
                              "lost": points == losing})
        frame = frame[frame["engine"].isin(order) & frame["termination"].isin(columns)]
        ended = ended.add(pd.crosstab(frame["engine"], frame["termination"]), fill_value=0)
        lost = lost.add(pd.crosstab(frame["engine"], frame["termination"],
                                    values=frame["lost"].astype(int), aggfunc="sum"),
                        fill_value=0)
    return ended.fillna(0).astype(int), lost.fillna(0).astype(int)


def summarize(folder: Folder, running: bool = False, local: tuple[str, str] | None = None
              ) -> RunSummary:
    """The page's content for a results folder read by `read_folder` (pure: no I/O). `local`
    is this computer's (host name, description): a host that played games and has that name is
    described."""
    config, games = folder.config, folder.games
    infos = engine_infos(config, folder.engines)
    order = [e.name for e in infos]
    players = sorted((set(games["white"]) | set(games["black"])) - set(order))
    order += players
    ratings, ratings_note = None, ""
    if not games.empty:
        try:
            ratings = fit_ratings(games[["white", "black", "result"]])
        except (ArithmeticError, ValueError) as exc:
            ratings_note = f"no ratings: the fit failed: {exc}"
    else:
        ratings_note = "no games yet"
    sprt, sprt_note = None, ""
    if config.get("sprt") and not games.empty:
        try:
            sprt = sprt_state(games, config)
        except ValueError as exc:
            sprt_note = f"no SPRT: {exc}"
    ended, lost = termination_tables(games, order) if not games.empty else (
        pd.DataFrame(), pd.DataFrame())
    hosts = sorted(str(h) for h in games.get("worker_host", pd.Series(dtype=str)).dropna()
                   .unique())
    if local is not None:
        hosts = [f"{h} ({local[1]})" if h == local[0] else h for h in hosts]
    return RunSummary(
        name=str(config.get("name") or folder.path.name), folder=folder.path, config=config,
        engines=infos, progress=progress(games, scheduled_games(config), running), hosts=hosts,
        ratings=ratings, ratings_note=ratings_note,
        pairings=pairings(games, order) if not games.empty else [], sprt=sprt,
        sprt_note=sprt_note, terminations=ended, faults=lost, games=games, moves=folder.moves,
    )

