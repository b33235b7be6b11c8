"""Running an experiment: what to play next, recording finished games, when to stop; and a pool.

`Tournament` is the backend-independent part: it holds the schedule minus the games already in
the store (so a rerun resumes), hands out the next task, stores each finished game (one
transaction, idempotent), keeps the standings, and decides to stop early when the SPRT decides
(pentanomial on completed pairs, docs/reference/harness_and_stats.md §2.5, §4.4) or when an engine
fails game after game. `run_local` drives it with a local pool of worker processes, one game at a
time per worker, each worker keeping its engine processes alive across games; another backend
(Dask) drives the same `Tournament`.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing as mp
import os
import queue
import signal
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lab.records import GameRecord, GameTask

if TYPE_CHECKING:
    from lab import stats
    from lab.experiment import Experiment
    from lab.sprt_estimate import SequentialEstimate
    from lab.store import Store

# The statistics (numpy) and the store (pandas) are imported where they are used, not at
# the top: worker processes import this module to find `_worker_main`, and they start in about a
# tenth of the time without them.

#: Terminations that mean an engine failed (crash, hang), not that it lost a game of chess.
FAULTS = ("abandoned", "stalled connection")
#: An engine failing this many of its games in a row stops the run.
MAX_CONSECUTIVE_FAULTS = 3
#: Worker processes dying without a result this many times stops the run.
MAX_WORKER_CRASHES = 3


@dataclass
class Standing:
    """One player's results so far: W/L/D, time forfeits and per-pair points for pentanomial."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    forfeits: int = 0
    pairs: dict[str, list[float]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """Points per game (NaN before the first game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else float("nan")

    def trinomial(self) -> list[int]:
        return [self.losses, self.draws, self.wins]

    def pentanomial(self) -> list[int]:
        """[LL, LD, WL+DD, WD, WW] over completed pairs (unfinished pairs do not count, §2.5)."""
        from lab import stats

        return stats.pentanomial(sum(p) for p in self.pairs.values() if len(p) == 2)

    def estimate(self, paired: bool) -> stats.EloEstimate:
        """Elo with its 95 % interval: pentanomial when openings are paired, else trinomial."""
        from lab import stats

        return stats.elo_estimate(self.pentanomial() if paired else self.trinomial())


def player_score(record: GameRecord | Any, player: str) -> float | None:
    """`player`'s points in a finished game, None for an undecided result ('*')."""
    from lab.stats import RESULT_POINTS

    points = RESULT_POINTS.get(record.result)
    if points is None:
        return None
    return points if record.white == player else 1.0 - points


def faulty_engine(record: GameRecord) -> str | None:
    """The engine whose failure ended the game (the loser of a fault termination), else None."""
    if record.termination not in FAULTS:
        return None
    if record.result == "1-0":
        return record.black
    if record.result == "0-1":
        return record.white
    for colour, name in (("White", record.white), ("Black", record.black)):
        if record.reason.startswith(colour) or record.reason.startswith(name):
            return name
    return None


class Tournament:
    """The state of a run over a store: pending games, standings, and the stop decision."""

    def __init__(self, exp: Experiment, store: Store, schedule: list[GameTask],
                 max_faults: int = MAX_CONSECUTIVE_FAULTS) -> None:
        self.exp = exp
        self.store = store
        self.total = len(schedule)
        self.focus = exp.challengers if exp.schedule == "gauntlet" else [exp.engines[0].name]
        self.standings = {spec.name: Standing() for spec in exp.engines}
        self.max_faults = max_faults
        self.consecutive_faults = {spec.name: 0 for spec in exp.engines}
        self.stop_reason: str | None = None
        self.failed = False
        self.sprt_result: stats.SprtResult | None = None
        self.sprt_estimate: SequentialEstimate | None = None
        self.in_flight: dict[str, GameTask] = {}
        self.finished_ids = store.finished_ids()
        scheduled = {task.game_id for task in schedule}
        self.done = len(self.finished_ids & scheduled)
        self.resumed = self.done
        self.pending: deque[GameTask] = deque(
            t for t in schedule if t.game_id not in self.finished_ids)
        games = store.games()
        for row in games[games["game_id"].isin(scheduled)].itertuples(index=False):
            self._count(row)
        self._decide_sprt()

    @property
    def finished(self) -> bool:
        """True when nothing is in flight and nothing more will be handed out."""
        return not self.in_flight and (self.stop_reason is not None or not self.pending)

    def next_task(self) -> GameTask | None:
        """The next game to play, or None when stopping or when every game is handed out."""
        while self.stop_reason is None and self.pending:
            task = self.pending.popleft()
            if task.game_id in self.finished_ids:
                continue  # given back by a worker that died just after its game was stored
            self.in_flight[task.game_id] = task
            return task
        return None

    def record(self, record: GameRecord) -> bool:
        """Store a finished game, update standings and stop rules; False if it was stored before."""
        self.in_flight.pop(record.game_id, None)
        if not self.store.add_game(record):
            return False
        self.finished_ids.add(record.game_id)
        self.done += 1
        self._count(record)
        self._check_faults(record)
        self._decide_sprt()
        return True

    def give_back(self, task: GameTask) -> None:
        """A game that was handed out but not played (its worker died): play it again later."""
        self.in_flight.pop(task.game_id, None)
        self.pending.appendleft(task)

    def stop(self, reason: str, failed: bool = False) -> None:
        """Hand out no more games (games in flight are dropped by the backend)."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self.failed = failed

    def _count(self, record: Any) -> None:
        for player in (record.white, record.black):
            standing = self.standings.get(player)
            score = player_score(record, player)
            if standing is None or score is None:
                continue
            if score == 1.0:
                standing.wins += 1
            elif score == 0.0:
                standing.losses += 1
                if record.termination == "time forfeit":
                    standing.forfeits += 1
            else:
                standing.draws += 1
            if isinstance(record.pair_id, str) and record.pair_id:  # NULL may read back as NaN
                standing.pairs.setdefault(record.pair_id, []).append(score)

    def _check_faults(self, record: GameRecord) -> None:
        culprit = faulty_engine(record)
        for player in (record.white, record.black):
            if player in self.consecutive_faults:
                self.consecutive_faults[player] = (
                    self.consecutive_faults[player] + 1 if player == culprit else 0
                )
        if culprit is not None and self.consecutive_faults.get(culprit, 0) >= self.max_faults:
            self.stop(f"engine '{culprit}' failed {self.consecutive_faults[culprit]} games in a "
                      f"row (last: {record.termination}: {record.reason}); stopping", failed=True)

    def _decide_sprt(self) -> None:
        from lab import stats
        from lab.sprt_estimate import sequential_estimate

        cfg = self.exp.sprt
        if cfg is None:
            return
        standing = self.standings[self.focus[0]]
        counts = standing.pentanomial() if self.exp.openings.paired else standing.trinomial()
        self.sprt_result = stats.sprt(counts, cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta, cfg.model)
        self.sprt_estimate = sequential_estimate(counts, cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta,
                                                 cfg.model)
        if self.sprt_result.decision is not None:
            self.stop(f"{self.sprt_result}")


# --- The local process pool ---------------------------------------------------------------------


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the run's process dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(1)


def _worker_main(worker_id: int, inbox: Any, outbox: Any) -> None:
    """A worker process: play the games it is given, one at a time, keeping its engines."""
    _die_with_parent()
    os.setpgrp()  # its own group: Ctrl-C goes to the run, which stops workers and engines
    # XBoard engines chatter ("Unexpected engine output" warnings) over the progress display
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    from lab.engine_process import EnginePool
    from lab.game import play_game

    with EnginePool() as pool:
        while True:
            task = inbox.get()
            if task is None:
                break
            try:
                outbox.put(("done", worker_id, play_game(task, pool)))
            except BaseException:
                outbox.put(("error", worker_id, traceback.format_exc()))


@dataclass
class _Worker:
    process: Any
    inbox: Any
    task: GameTask | None = None


class LocalPool:
    """`concurrency` worker processes (spawned), each playing one game at a time."""

    def __init__(self, concurrency: int) -> None:
        self.ctx = mp.get_context("spawn")
        self.outbox = self.ctx.Queue()
        self.workers: dict[int, _Worker] = {}
        self.next_id = 0
        for _ in range(concurrency):
            self._start()

    def _start(self) -> None:
        inbox = self.ctx.Queue()
        worker_id = self.next_id
        self.next_id += 1
        process = self.ctx.Process(target=_worker_main, args=(worker_id, inbox, self.outbox),
                                   name=f"tempo-worker-{worker_id}", daemon=True)
        process.start()
        self.workers[worker_id] = _Worker(process, inbox)

    def idle(self) -> list[int]:
        return [wid for wid, w in self.workers.items() if w.task is None]

    def submit(self, worker_id: int, task: GameTask) -> None:
        worker = self.workers[worker_id]
        worker.task = task
        worker.inbox.put(task)

    def receive(self, timeout: float) -> tuple[str, int, Any] | None:
        try:
            return self.outbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def dead(self) -> list[tuple[int, GameTask | None, int | None]]:
        """Workers that died: (id, the task they had, exit code); they are replaced."""
        gone = []
        for wid, worker in list(self.workers.items()):
            if not worker.process.is_alive():
                gone.append((wid, worker.task, worker.process.exitcode))
                del self.workers[wid]
                self._start()
        return gone

    def kill(self, worker_id: int) -> None:
        """Kill a worker and its engines (its process group) at once."""
        worker = self.workers.pop(worker_id)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.join(5)

    def close(self) -> None:
        """Stop idle workers politely (their engines quit) and kill busy ones."""
        for wid, worker in list(self.workers.items()):
            if worker.task is None:
                worker.inbox.put(None)
            else:
                self.kill(wid)
        for worker in self.workers.values():
            worker.process.join(10)
            if worker.process.is_alive():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(worker.process.pid, signal.SIGKILL)
        self.workers.clear()


def run_local(tournament: Tournament, concurrency: int,
              on_game: Callable[[GameRecord], None] | None = None) -> Tournament:
    """Play the tournament's pending games on `concurrency` local worker processes.

    Returns when every game is played or the tournament stops (SPRT decision, repeated engine
    failure, worker crashes); games still in flight then are dropped, never half-written.
    Ctrl-C stops the workers and engines and re-raises KeyboardInterrupt.
    """
    if tournament.finished:
        return tournament
    pool = LocalPool(max(1, min(concurrency, len(tournament.pending))))
    crashes = 0
    try:
        while not tournament.finished:
            if tournament.stop_reason is not None:
                for wid, worker in list(pool.workers.items()):
                    if worker.task is not None:
                        tournament.give_back(worker.task)
                        pool.kill(wid)
                break
            for wid in pool.idle():
                task = tournament.next_task()
                if task is None:
                    break
                pool.submit(wid, task)
            message = pool.receive(timeout=0.5)
            for _wid, task, code in pool.dead():
                if task is not None:
                    crashes += 1
                    tournament.give_back(task)
                    if crashes >= MAX_WORKER_CRASHES:
                        tournament.stop(f"worker processes died {crashes} times (last exit "
                                        f"code {code}); stopping", failed=True)
            if message is None:
                continue
            kind, wid, payload = message
            worker = pool.workers.get(wid)
            task = worker.task if worker else None
            if worker:
                worker.task = None
            if kind == "done":
                if tournament.record(payload) and on_game is not None:
                    on_game(payload)
            else:
                crashes += 1
                if task is not None:
                    tournament.give_back(task)
                if crashes >= MAX_WORKER_CRASHES:
                    tournament.stop(f"playing a game failed {crashes} times; last error:\n"
                                    f"{payload}", failed=True)
    finally:
        pool.close()
    return tournament


# --- A whole run --------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    """How a run ended: the tournament (standings, stop reason) and the report written."""

    tournament: Tournament
    report: Any

    @property
    def exit_code(self) -> int:
        """0 when complete or stopped by the SPRT, 1 when stopped by failures."""
        return 1 if self.tournament.failed else 0


def run_experiment(exp: Experiment, overwrite: bool = False, stream: Any = None,
                   live: bool | None = None,
                   backend: Callable[..., Tournament] = run_local) -> RunOutcome:
    """Check the engines, then play (or resume) the experiment into its folder and report.

    Nothing is written before every engine has passed its probe. A folder holding another
    experiment is refused (`StoreError`) unless `overwrite`. The report (PGN, moves, ratings,
    plot) is written at the end, also after a stop or Ctrl-C; games.pgn is rewritten from the
    store at the start and grows by one game as each is stored.
    """
    from lab.experiment import probe_engines
    from lab.export import append_pgn, write_pgn
    from lab.page.live import LivePage
    from lab.progress import Progress
    from lab.report import PGN_NAME, write_report
    from lab.schedule import build_schedule
    from lab.store import open_store

    identities = probe_engines(exp)
    schedule = build_schedule(exp)
    with open_store(exp.out) as store:
        store.lock_for_run()
        store.bind_experiment(exp.name, exp.identity(), exp.config(), overwrite=overwrite)
        store.save_engines(exp.engines, identities)
        tournament = Tournament(exp, store, schedule)
        progress = Progress(tournament, stream, live)
        pgn = write_pgn(store, exp.out / PGN_NAME, exp.name)
        page = LivePage(exp.out)

        def on_game(record: GameRecord) -> None:
            append_pgn(store, pgn, record.game_id, exp.name)
            progress.game(record)
            page.refresh()

        progress.begin()
        try:
            backend(tournament, exp.concurrency, on_game)
        finally:
            progress.close()
            page.close()
            report = write_report(store, exp.out, exp.name)
    return RunOutcome(tournament, report)
