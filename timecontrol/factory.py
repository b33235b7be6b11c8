"""Build a time manager from its spec string in Lc0's syntax (`timecontrol.options`).

`create_manager("smooth(max-move-budget=0.3,mle-legacy(midpoint=50.0))")`; the names are in
`MANAGERS`. Every key must be known to the named manager, and every error names the key.

Two keys every manager accepts are read here: `iteration-factors=0/1`, whether an iterative
search scales the manager's soft limit by Stockfish's iteration-boundary factors
(`TimeManager.iteration_factors`; on for `stockfish`, off for the others), and `equal-trees=0/1`,
whether an iterative search stops at the node count the manager plans
(`TimeManager.equal_trees`; on for `smooth`; no effect for a manager that plans in time only).
"""

from __future__ import annotations

from typing import Callable

from timecontrol.baselines import (
    FractionManager,
    FractionParams,
    MovetimeManager,
    MovetimeParams,
    StockfishManager,
    StockfishParams,
)
from timecontrol.manager import TimeManager
from timecontrol.options import SpecOptions, TimeManagerSpecError, parse_spec, read_flag
from timecontrol.smooth import SmoothManager, SmoothParams
from timecontrol.smooth_lc0 import SmoothLc0Manager, SmoothLc0Params

MANAGERS: dict[str, Callable[[SpecOptions], TimeManager]] = {
    "smooth": lambda options: SmoothManager(SmoothParams.from_options(options)),
    "smooth-lc0": lambda options: SmoothLc0Manager(SmoothLc0Params.from_options(options)),
    "fraction": lambda options: FractionManager(FractionParams.from_options(options)),
    "movetime": lambda options: MovetimeManager(MovetimeParams.from_options(options)),
    "stockfish": lambda options: StockfishManager(StockfishParams.from_options(options)),
}


def create_manager(spec: str) -> TimeManager:
    """A fresh manager for one game from `spec`; `TimeManagerSpecError` (a ValueError) names the
    unknown manager, unknown key, malformed number or out-of-range value."""
    options = parse_spec(spec)
    builder = MANAGERS.get(options.name)
    if builder is None:
        known = ", ".join(sorted(MANAGERS))
        raise TimeManagerSpecError(
            f"time manager {spec!r}: unknown manager {options.name!r}; known: {known}")
    manager = builder(options)
    manager.iteration_factors = read_flag(options, "iteration-factors",
                                          manager.iteration_factors)
    manager.equal_trees = read_flag(options, "equal-trees", manager.equal_trees)
    options.check_all_used()
    return manager


__all__ = ["MANAGERS", "TimeManagerSpecError", "create_manager"]
