"""Playing a `Tournament` on a Dask cluster: one game per task, results stream back to the store.

`run_dask` has `lab.backends.local.run_local`'s contract. It connects to the scheduler in the
settings (or starts a `LocalCluster` bound to 127.0.0.1), registers the run's `EngineHost`
plugin, and sends a probe task pinned to each worker: if any engine does not start on any worker,
it raises `WorkerEngineError` naming the worker and the engine before any game is submitted.
Then it keeps as many games in flight as the cluster has worker threads (a LocalCluster:
`concurrency` one-thread workers) and hands each finished game to the tournament, which alone
writes the store (idempotent by game id). A game whose worker died is rerun by the scheduler;
one that still fails (`KilledWorker`, an exception) is given back to the tournament and
submitted again under a new key, until the tournament's crash policy (`Tournament.worker_failed`,
the same as locally) stops the run. When the tournament stops (SPRT decision, repeated engine
faults) the outstanding games are cancelled; a game already running on a worker finishes there
and is dropped.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from distributed import Client, Future, LocalCluster, Security, as_completed

from lab.backends.settings import BackendError, DaskSettings, exposure_warning
from lab.backends.worker import (
    EngineHost,
    WorkerEngineError,
    WorkerReport,
    play_on_worker,
    probe_worker,
    refusal,
)
from lab.records import EngineSpec, GameRecord, GameTask
from lab.tournament import Tournament
from lab.variants import Variant

#: How long to wait for the scheduler to answer and for a first worker to join.
CONNECT_TIMEOUT_S = 30.0
WORKERS_TIMEOUT_S = 60.0
#: The probe's deadline on top of each engine's own startup timeout.
PROBE_SLACK_S = 30.0


def security_for(settings: DaskSettings) -> Security | None:
    """Dask `Security` using the settings' CA, certificate and key for every role; None without."""
    if not settings.tls:
        return None
    roles = {}
    for role in ("client", "scheduler", "worker"):
        roles[f"tls_{role}_cert"] = settings.cert_file
        roles[f"tls_{role}_key"] = settings.key_file
    return Security(tls_ca_file=settings.ca_file, require_encryption=True, **roles)


def local_cluster(settings: DaskSettings, n_workers: int) -> LocalCluster:
    """A LocalCluster of one-thread worker processes listening on 127.0.0.1 only, on free ports.

    No dashboard (the scheduler's HTTP routes stay on loopback too). With TLS files in the
    settings it speaks tls:// with them.
    """
    security = security_for(settings)
    return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                        host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        protocol="tls://" if security else "tcp://",
                        security=security or Security(), silence_logs=logging.ERROR)


@contextlib.contextmanager
def connect(settings: DaskSettings, n_workers: int) -> Iterator[Client]:
    """A client of the settings' scheduler (waiting for a worker), or of a new LocalCluster."""
    if settings.scheduler is None:
        with local_cluster(settings, n_workers) as cluster, \
                Client(cluster, security=security_for(settings)) as client:
            yield client
        return
    try:
        client = Client(settings.scheduler, security=security_for(settings),
                        timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise BackendError(f"cannot reach the Dask scheduler at {settings.scheduler}: "
                           f"{exc}") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except TimeoutError:
            raise BackendError(f"no Dask worker joined the scheduler {settings.scheduler} "
                               f"within {WORKERS_TIMEOUT_S:g} s (start some: dask worker "
                               f"{settings.scheduler})") from None
        yield client


def check_workers(client: Client, specs: list[EngineSpec], plugin: str,
                  variant: Variant = Variant.STANDARD) -> list[WorkerReport]:
    """Run the engine probe for the run's `variant` on every worker; `WorkerEngineError` names
    each worker and engine that fails, and `BackendError` the workers that did not answer in
    time."""
    token = uuid.uuid4().hex[:8]
    futures = {address: client.submit(probe_worker, specs, plugin, variant, workers=[address],
                                      allow_other_workers=False, pure=False,
                                      key=f"tempo-probe-{token}-{index}")
               for index, address in enumerate(client.nthreads())}
    timeout = PROBE_SLACK_S + sum(spec.startup_timeout_s for spec in specs)
    with contextlib.suppress(TimeoutError):
        for _ in as_completed(list(futures.values()), loop=client.loop, timeout=timeout):
            pass
    silent = [address for address, future in futures.items() if future.status == "pending"]
    client.cancel([futures[address] for address in silent])
    failed = [f"  worker {address}: {future.exception()!r}"
              for address, future in futures.items() if future.status == "error"]
    if silent or failed:
        lines = [f"  worker {address}: no answer within {timeout:g} s" for address in silent]
        raise BackendError("the engine probe did not run on every Dask worker; no game was "
                           "started:\n" + "\n".join(lines + failed))
    reports = [future.result() for future in futures.values()]
    refused = [refusal(report) for report in reports if report.problems]
    if refused:
        raise WorkerEngineError("Dask workers cannot play: engines missing or broken (every "
                                "worker needs every engine at the same path); no game was "
                                "started:\n" + "\n".join(refused))
    return reports


def _describe(client: Client, reports: list[WorkerReport]) -> str:
    hosts = sorted({report.identity["host"] for report in reports})
    threads = sum(client.nthreads().values())
    return (f"Dask scheduler {client.scheduler.address}: {len(reports)} workers, {threads} "
            f"threads on {', '.join(hosts)}")


def run_dask(tournament: Tournament, concurrency: int,
             on_game: Callable[[GameRecord], None] | None = None, *,
             settings: DaskSettings, stream: Any = None) -> Tournament:
    """Play the tournament's pending games on Dask (same contract as `run_local`).

    `concurrency` sizes a LocalCluster (unless `settings.n_workers`); on a remote cluster the
    games in flight follow the worker threads. Messages (the cluster, the security warning) go to
    `stream` (default stderr). Raises `BackendError` when the cluster cannot be used and
    `WorkerEngineError` when an engine does not start on a worker, before any game.
    """
    stream = stream or sys.stderr
    if tournament.finished:
        return tournament
    warning = exposure_warning(settings)
    if warning:
        print(f"tempo: WARNING: {warning}", file=stream)
    n_workers = settings.n_workers or max(1, min(concurrency, len(tournament.pending)))
    specs = list(tournament.exp.engines)
    with connect(settings, n_workers) as client:
        plugin = f"tempo-engines-{uuid.uuid4().hex[:8]}"
        client.register_plugin(EngineHost(), name=plugin)
        try:
            reports = check_workers(client, specs, plugin, tournament.exp.variant)
            print(f"tempo: {_describe(client, reports)}", file=stream)
            _play(client, tournament, on_game, plugin)
        finally:
            with contextlib.suppress(Exception):
                client.unregister_worker_plugin(plugin)
    return tournament


def _play(client: Client, tournament: Tournament,
          on_game: Callable[[GameRecord], None] | None, plugin: str) -> None:
    """Submit games up to the cluster's threads, record results as they come, stop on demand."""
    run = uuid.uuid4().hex[:8]
    running: dict[str, tuple[Future, GameTask]] = {}
    attempts: Counter[str] = Counter()
    completed = as_completed(loop=client.loop)
    try:
        while not tournament.finished:
            if tournament.stop_reason is not None:
                break
            free = max(1, sum(client.nthreads().values())) - len(running)
            while free > 0:
                task = tournament.next_task()
                if task is None:
                    break
                attempts[task.game_id] += 1
                key = f"tempo-game-{run}-{task.game_id}-{attempts[task.game_id]}"
                future = client.submit(play_on_worker, task, plugin, key=key, pure=False)
                running[key] = (future, task)
                completed.add(future)
                free -= 1
            for future in completed.next_batch(block=True):
                entry = running.pop(future.key, None)
                if entry is None:
                    continue
                task = entry[1]
                if future.status == "finished":
                    record = future.result()
                    if tournament.record(record) and on_game is not None:
                        on_game(record)
                    continue
                error = future.exception() if future.status == "error" else None
                if isinstance(error, WorkerEngineError):
                    tournament.give_back(task)
                    tournament.stop(str(error), failed=True)
                    continue
                tournament.worker_failed(task, lambda n, task=task, error=error: (
                    f"games on Dask failed {n} times; last: game {task.game_id}: {error!r}"))
    finally:
        if running:
            client.cancel([future for future, _ in running.values()])
            for _, task in running.values():
                tournament.give_back(task)
