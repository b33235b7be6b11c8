"""A whole run: probe the engines, bind the results folder, play the tournament, write the report.

The policy (what to play next, standings, when to stop) is `lab.tournament.Tournament`; where the
games are played is a backend (`lab.backends.local.run_local`, or `lab.backends.dask.run_dask`
chosen by `choose_backend`). This module only wires them together for one experiment, after
`probe_engines` has started each engine once, side by side (the handshake through
`lab.engine_process.probe_engines_at_once`): a missing binary, a failed `uci`/`isready`, an
unknown option or an XBoard engine without `setboard` stops the experiment before any game and
before any file is written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lab.backends.local import run_local
from lab.backends.settings import BackendError, DaskSettings
from lab.engine_log import EngineLogs
from lab.engine_process import EngineError, probe_engines_at_once
from lab.experiment import Experiment, ExperimentError
from lab.export import PGN_NAME, append_output_files, append_pgn, write_pgn
from lab.page.live import LivePage
from lab.progress import Progress
from lab.records import GameRecord
from lab.schedule import build_schedule
from lab.store import open_store
from lab.tournament import Backend, Tournament

if TYPE_CHECKING:
    from lab.report import Report


def probe_engines(exp: Experiment) -> dict[str, Any]:
    """Start each engine once and check it (handshake, options); name -> its identity. The
    engines are started side by side; with an I/O log folder (`[log] dir`) the probe's traffic
    is logged too.

    Problems come from the engine module's `probe_engines_at_once` as `EngineError` (missing
    binary, failed or timed-out handshake, unknown option, XBoard engine without `setboard`, an
    engine that does not declare Chess960 in a Chess960 or DFRC experiment) and
    the first, in the experiment's engine order, is raised again as `ExperimentError` naming the
    experiment file.
    """
    logs = EngineLogs(io_dir=exp.log.dir)  # I/O log only: no results folder yet
    found = probe_engines_at_once(exp.engines, logs, exp.variant)
    for result in found:
        if isinstance(result, EngineError):
            raise ExperimentError(f"{exp.source}: {result}") from None
    return {spec.name: identity for spec, identity in zip(exp.engines, found)}


def choose_backend(settings: DaskSettings | None) -> Backend:
    """`run_experiment`'s backend: the local pool for None, else Dask with these settings.

    Dask is an optional extra, so its backend is imported only when asked for.
    """
    if settings is None:
        return run_local
    try:
        from lab.backends.dask import run_dask
    except ImportError as exc:
        raise BackendError(f"the Dask backend needs the optional extra: pip install "
                           f"'tempo-lab[dask]' ({exc})") from None
    return functools.partial(run_dask, settings=settings)


@dataclass
class RunOutcome:
    """How a run ended: the tournament (standings, stop reason) and the report written."""

    tournament: Tournament
    report: Report

    @property
    def exit_code(self) -> int:
        """0 when complete or stopped by the SPRT, 1 when stopped by failures."""
        return 1 if self.tournament.failed else 0


def run_experiment(exp: Experiment, overwrite: bool = False, stream: Any = None,
                   live: bool | None = None, backend: Backend = run_local) -> RunOutcome:
    """Check the engines, then play (or resume) the experiment into its folder and report.

    Nothing is written before every engine has passed its probe. A folder holding another
    experiment is refused (`StoreError`) unless `overwrite`. The report (PGN, moves, ratings,
    plot) is written at the end, also after a stop or Ctrl-C; games.pgn is rewritten from the
    store at the start and grows by one game as each is stored.
    """
    identities = probe_engines(exp)
    schedule = build_schedule(exp)
    with open_store(exp.out) as store:
        store.lock_for_run()
        store.bind_experiment(exp.name, exp.identity(), exp.config(), overwrite=overwrite,
                              earlier=exp.earlier_identities())
        store.save_engines(exp.engines, identities)
        tournament = Tournament(exp, store, schedule)
        progress = Progress(tournament, stream, live)
        pgn = write_pgn(store, exp.out / PGN_NAME, exp.name)
        page = LivePage(exp.out)

        def on_game(record: GameRecord) -> None:
            append_pgn(pgn, record, exp.name)
            append_output_files(record, exp.output.pgn, exp.output.epd, exp.name,
                                exp.output.pgn_minimal, exp.output.pgn_final_fen)
            progress.game(record)
            page.refresh()

        tournament.observe(on_game)
        progress.begin()
        try:
            backend(tournament, exp.concurrency)
        finally:
            progress.close()
            page.close()
            from lab.report import write_report  # pandas, matplotlib: after the games

            report = write_report(store, exp.out, exp.name)
    return RunOutcome(tournament, report)
