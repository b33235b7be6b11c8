"""What runs on a Dask worker: engine pools kept across games, the engine probe, one game.

The coordinator registers an `EngineHost` plugin (one per run, under a name unique to the run).
On each worker it keeps one `lab.engine_process.EnginePool` per worker thread, so engines stay up
from game to game as in the local pool, and quits them when the worker closes or the run ends
(the plugin is removed). A worker checks the run's engines (the `uci`/`xboard` handshake through
`probe_engine`) before its first game, or when the coordinator's probe task asks, and remembers
the answer; a worker lacking an engine raises `WorkerEngineError` instead of playing. Each game's
clocks are scaled by the worker's `TEMPO_TC_FACTOR` (`lab.backends.scaling`), and its record is
signed with the worker's identity (address, host, CPU model, factor).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from lab.backends.scaling import FACTOR_VARIABLE, FactorError, read_factor, scale_task
from lab.backends.settings import BackendError
from lab.engine_process import EngineError, EnginePool, probe_engine
from lab.engine_source import source_digest
from lab.experiment import builtin_root
from lab.game import play_game
from lab.records import EngineSpec, GameRecord, GameTask
from lab.variants import Variant


class WorkerEngineError(BackendError):
    """An engine that does not start on a worker (missing binary, failed handshake)."""


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what `platform` knows."""
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model"):
                    return value.strip()
    return platform.processor() or platform.machine()


def worker_identity(worker: Any) -> dict[str, Any]:
    """Who plays a game: Dask worker address and name, host, CPU model and count, threads."""
    return {"backend": "dask", "address": worker.address, "name": str(worker.name),
            "host": socket.gethostname(), "cpu": cpu_model(), "cpus": os.cpu_count(),
            "threads": worker.state.nthreads}


def source_problem(spec: EngineSpec) -> str | None:
    """Why our engine's checkout here is not the coordinator's (`EngineSpec.source`: its sources
    differ, or cannot be read), or None (the same, or an engine with no digest to compare)."""
    root = builtin_root(spec.cmd)
    if not spec.source or root is None:
        return None
    try:
        here = source_digest(root)
    except OSError as err:
        return f"engine {spec.name!r}: cannot read its sources in {root}: {err}"
    if here == spec.source:
        return None
    return (f"engine {spec.name!r}: the checkout {root} holds other engine sources here than on "
            f"the coordinator (SHA-256 {here[:12]} against {spec.source[:12]}): check out the "
            "coordinator's commit there")


def _spec_key(spec: EngineSpec) -> str:
    return repr((spec.name, spec.cmd, spec.protocol, sorted(spec.options.items()), spec.cwd,
                 sorted(spec.env.items()), spec.cpus, spec.source))


@dataclass
class WorkerReport:
    """A worker's answer to the probe: who it is and, per engine name, what is wrong."""

    identity: dict[str, Any]
    problems: dict[str, str] = field(default_factory=dict)


class EngineHost(WorkerPlugin):
    """Per-worker state of one run: engine pools by thread and the engines checked so far."""

    def setup(self, worker: Any) -> None:
        self.identity = worker_identity(worker)
        self.setup_problem: str | None = None
        try:
            self.tc_factor = read_factor(os.environ)
        except FactorError as err:
            self.tc_factor, self.setup_problem = 1.0, str(err)
        self.identity["tc_factor"] = self.tc_factor
        self.lock = threading.Lock()
        self.pools: dict[int, EnginePool] = {}
        self.busy: set[int] = set()
        self.checked: dict[str, str | None] = {}
        self.closed = False

    async def teardown(self, worker: Any) -> None:
        """Quit the idle engines off the event loop; busy pools close when their game ends."""
        with self.lock:
            self.closed = True
            idle = [tid for tid in self.pools if tid not in self.busy]
            pools = [self.pools.pop(tid) for tid in idle]
        for pool in pools:
            await asyncio.to_thread(pool.close)

    def problems(self, specs: list[EngineSpec],
                 variant: Variant = Variant.STANDARD) -> dict[str, str]:
        """Engine name -> why it does not start here or cannot play `variant`, probing each spec
        once per worker and variant (and `TEMPO_TC_FACTOR` -> what is wrong with it)."""
        found = {FACTOR_VARIABLE: self.setup_problem} if self.setup_problem else {}
        for spec in specs:
            key = f"{_spec_key(spec)} {variant.value}"
            if key not in self.checked:
                self.checked[key] = source_problem(spec)
                if self.checked[key] is None:
                    try:
                        probe_engine(spec, variant=variant)
                    except EngineError as err:
                        self.checked[key] = str(err)
            problem = self.checked[key]
            if problem is not None:
                found[spec.name] = problem
        return found

    @contextlib.contextmanager
    def pool(self) -> Iterator[EnginePool]:
        """This thread's engine pool, kept for its next game unless the run has ended."""
        tid = threading.get_ident()
        with self.lock:
            pool = self.pools.get(tid)
            if pool is None:
                pool = self.pools[tid] = EnginePool()
            self.busy.add(tid)
        try:
            yield pool
        finally:
            with self.lock:
                self.busy.discard(tid)
                done = self.closed
                if done:
                    self.pools.pop(tid, None)
            if done:
                pool.close()


def _host(plugin: str) -> EngineHost:
    worker = get_worker()
    host = worker.plugins.get(plugin)
    if not isinstance(host, EngineHost):
        raise BackendError(f"worker {worker.address}: the run's plugin {plugin!r} is not "
                           "registered (the run has ended)")
    return host


def probe_worker(specs: list[EngineSpec], plugin: str,
                 variant: Variant = Variant.STANDARD) -> WorkerReport:
    """The probe task, pinned to one worker: its identity and its engine problems for the run's
    `variant`."""
    host = _host(plugin)
    return WorkerReport(dict(host.identity), host.problems(specs, variant))


def refusal(report: WorkerReport) -> str:
    """One line per engine that does not start on the worker of `report`."""
    who = f"worker {report.identity['address']} (host {report.identity['host']})"
    return "\n".join(f"  {who}: {problem}" for problem in report.problems.values())


def play_on_worker(task: GameTask, plugin: str) -> GameRecord:
    """The game task: check the engines here (once), scale the clocks by this worker's factor,
    play on this thread's pool, and sign the record with the worker's identity."""
    host = _host(plugin)
    problems = host.problems([task.white, task.black], task.variant)
    if problems:
        report = WorkerReport(dict(host.identity), problems)
        raise WorkerEngineError(f"an engine does not start on a Dask worker:\n{refusal(report)}")
    with host.pool() as pool:
        record = play_game(scale_task(task, host.tc_factor), pool)
    record.worker.update(host.identity)
    return record
