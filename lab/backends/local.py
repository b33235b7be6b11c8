"""The local backend: a pool of worker processes on this machine playing a tournament's games.

Each worker (`lab.backends.local_worker`) plays one game at a time and keeps its engine processes
alive across games. `run_local` only submits and collects: the tournament decides what to play,
stores results and owns the crash policy (`Tournament.worker_failed`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lab.backends.local_worker import worker_main
from lab.records import GameRecord, GameTask
from lab.tournament import Tournament


@dataclass
class _Worker:
    process: Any
    inbox: Any
    task: GameTask | None = None


class LocalPool:
    """`concurrency` worker processes, each playing one game at a time.

    Workers are forked, not spawned: a forked worker has the run's modules already and reads its
    first task within milliseconds, where a spawned one starts an interpreter and imports them
    again (0.2-0.5 s before the first `go` on this kind of machine, `tempo bench harness`). The
    run has no threads when it forks, and a worker never touches the store it inherits: it only
    plays games and hands back records.
    """

    def __init__(self, concurrency: int) -> None:
        self.ctx = mp.get_context("fork")
        self.outbox = self.ctx.Queue()
        self.workers: dict[int, _Worker] = {}
        self.next_id = 0
        for _ in range(concurrency):
            self._start()

    def _start(self) -> None:
        inbox = self.ctx.Queue()
        worker_id = self.next_id
        self.next_id += 1
        process = self.ctx.Process(target=worker_main, args=(worker_id, inbox, self.outbox),
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
                    tournament.worker_failed(task, lambda n, code=code: (
                        f"worker processes died {n} times (last exit code {code}); stopping"))
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
                tournament.worker_failed(task, lambda n, error=payload: (
                    f"playing a game failed {n} times; last error:\n{error}"))
    finally:
        pool.close()
    return tournament
