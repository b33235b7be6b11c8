"""Tournament policy: what to play next, recording finished games, standings, when to stop.

`Tournament` is the backend-independent part of a run (as fastchess's tournament object): it
holds the schedule minus the games already in the store (so a rerun resumes), hands out the next
task, stores each finished game (one transaction, idempotent) and tells its observers, keeps the
standings, and decides to stop early when the SPRT decides (pentanomial on completed pairs,
docs/reference/harness_and_stats.md §2.5, §4.4), when an engine fails game after game, or when
games keep failing to be played (`worker_failed`, the one crash policy of every backend).
Backends (`lab.backends.local`, `lab.backends.dask`) only submit games and hand results back.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from lab.experiment import Experiment
from lab.interrupt import signals_held
from lab.records import RESULT_POINTS, GameRecord, GameSummary, GameTask, Termination
from lab.store import Store

if TYPE_CHECKING:
    from lab.sprt_estimate import SequentialEstimate
    from lab.stats import EloEstimate, SprtResult

#: An engine failing this many of its games in a row stops the run.
MAX_CONSECUTIVE_FAULTS = 3
#: Games failing to be played (a worker dying, an error outside the game) this many times stops
#: the run.
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
        import_numerics()
        from lab import stats

        return stats.pentanomial(sum(p) for p in self.pairs.values() if len(p) == 2)

    def estimate(self, paired: bool) -> EloEstimate:
        """Elo with its 95 % interval: pentanomial when openings are paired, else trinomial."""
        import_numerics()
        from lab import stats

        return stats.elo_estimate(self.pentanomial() if paired else self.trinomial())


def import_numerics() -> None:
    """Import the standings' numerical modules (numpy) where the standings first need them
    (after the first game, not before the first `go`), with Ctrl-C and SIGTERM held
    (`signals_held`): a stop that cuts numpy's import in half leaves the run unable to write
    its report."""
    if "lab.sprt_estimate" in sys.modules:
        return
    with signals_held():
        from lab import sprt_estimate, stats  # noqa: F401


def player_score(record: GameRecord | GameSummary, player: str) -> float | None:
    """`player`'s points in a finished game, None for an undecided result ('*')."""
    points = RESULT_POINTS.get(record.result)
    if points is None:
        return None
    return points if record.white == player else 1.0 - points


def faulty_engine(record: GameRecord) -> str | None:
    """The engine whose failure ended the game (the loser of a fault termination), else None."""
    if not record.termination.is_fault:
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
        self.worker_failures = 0
        self.stop_reason: str | None = None
        self.failed = False
        self.sprt_result: SprtResult | None = None
        self.sprt_estimate: SequentialEstimate | None = None
        self.in_flight: dict[str, GameTask] = {}
        self.observers: list[Callable[[GameRecord], None]] = []
        self.finished_ids = store.finished_ids()
        scheduled = {task.game_id for task in schedule}
        self.done = len(self.finished_ids & scheduled)
        self.resumed = self.done
        self.pending: deque[GameTask] = deque(
            t for t in schedule if t.game_id not in self.finished_ids)
        for record in store.summaries(scheduled):
            self._count(record)
        self._decide_sprt()

    @property
    def finished(self) -> bool:
        """True when nothing is in flight and nothing more will be handed out."""
        return not self.in_flight and (self.stop_reason is not None or not self.pending)

    def observe(self, observer: Callable[[GameRecord], None]) -> None:
        """Call `observer` with each game stored from now on (PGN, progress)."""
        self.observers.append(observer)

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
        """Store a finished game, update standings and stop rules, tell the observers; False if
        it was stored before."""
        self.in_flight.pop(record.game_id, None)
        if not self.store.add_game(record):
            return False
        self.finished_ids.add(record.game_id)
        self.done += 1
        self._count(record)
        self._check_faults(record)
        self._decide_sprt()
        for observer in self.observers:
            observer(record)
        return True

    def give_back(self, task: GameTask) -> None:
        """A game that was handed out but not played (its worker died): play it again later."""
        self.in_flight.pop(task.game_id, None)
        self.pending.appendleft(task)

    def worker_failed(self, task: GameTask | None, why: Callable[[int], str]) -> None:
        """A game failed to be played (its worker died, or raised): give its task back and stop
        the run at the `MAX_WORKER_CRASHES`-th failure, with `why(failures)` as the reason."""
        self.worker_failures += 1
        if task is not None:
            self.give_back(task)
        if self.worker_failures >= MAX_WORKER_CRASHES:
            self.stop(why(self.worker_failures), failed=True)

    def stop(self, reason: str, failed: bool = False) -> None:
        """Hand out no more games (games in flight are dropped by the backend)."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self.failed = failed

    def _count(self, record: GameRecord | GameSummary) -> None:
        for player in (record.white, record.black):
            standing = self.standings.get(player)
            score = player_score(record, player)
            if standing is None or score is None:
                continue
            if score == 1.0:
                standing.wins += 1
            elif score == 0.0:
                standing.losses += 1
                if record.termination == Termination.TIME_FORFEIT:
                    standing.forfeits += 1
            else:
                standing.draws += 1
            if record.pair_id:
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
        cfg = self.exp.sprt
        if cfg is None:
            return
        import_numerics()
        from lab import stats
        from lab.sprt_estimate import sequential_estimate

        standing = self.standings[self.focus[0]]
        counts = standing.pentanomial() if self.exp.openings.paired else standing.trinomial()
        self.sprt_result = stats.sprt(counts, cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta, cfg.model)
        self.sprt_estimate = sequential_estimate(counts, cfg.elo0, cfg.elo1, cfg.alpha, cfg.beta,
                                                 cfg.model)
        if self.sprt_result.decision is not None:
            self.stop(f"{self.sprt_result}")


class Backend(Protocol):
    """What plays a tournament: submits its tasks until it is finished, hands each result to
    `Tournament.record`, reports failed games to `Tournament.worker_failed`; `on_game` (if any)
    is called with each newly stored game."""

    def __call__(self, tournament: Tournament, concurrency: int,
                 on_game: Callable[[GameRecord], None] | None = None) -> Any: ...
