"""Time controls scaled to a worker's speed, so a slow machine plays the games a fast one would.

As fishtest and OpenBench do (docs/reference/harness_and_stats.md, "Worker side"), each machine
gets a factor = reference speed / its measured speed (fishtest: 628000 / Stockfish bench nodes
per second per thread, measured with every core busy), and every clock on it is multiplied by
that factor (`TimeControl.scaled`): base time, increment and `st=` move time. `nodes=` and
`depth=` limits do not depend on speed and stay as they are. A Dask worker takes its factor from
the environment variable `TEMPO_TC_FACTOR` (see docs/dask.md); the store records it with each
game.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from lab.records import GameTask

#: Environment variable of a worker: its time-control factor (default 1).
FACTOR_VARIABLE = "TEMPO_TC_FACTOR"


class FactorError(ValueError):
    """A time-control factor that is not a positive finite number."""


def read_factor(environ: Mapping[str, str]) -> float:
    """The factor in `TEMPO_TC_FACTOR` (1.0 when unset); `FactorError` for a bad value."""
    text = environ.get(FACTOR_VARIABLE)
    if text is None or not text.strip():
        return 1.0
    try:
        factor = float(text)
    except ValueError:
        factor = math.nan
    if not (math.isfinite(factor) and factor > 0):
        raise FactorError(f"{FACTOR_VARIABLE}={text!r} is not a positive number")
    return factor


def scale_task(task: GameTask, factor: float) -> GameTask:
    """The game with the game's and each engine's own time control scaled by `factor`."""
    if factor == 1.0:
        return task

    white, black = (dataclasses.replace(spec, tc=spec.tc.scaled(factor) if spec.tc else None)
                    for spec in (task.white, task.black))
    return dataclasses.replace(task, tc=task.tc.scaled(factor), white=white, black=black)
