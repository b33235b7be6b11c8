"""Each sampled position's evaluation as constant + coefficients . weights, from the engine.

The engine process (our launcher, `features` subcommand: `engine.features`) reads FENs on
standard input and writes a header with the weights in use, then one JSON line per position. Only
positions it calls quiet are kept (not in check, quiescence search equal to the static
evaluation, not saturated), as Texel tuning wants (CPW, "Texel's Tuning Method"). The rows become
a sparse matrix with one column per weight half (`<name>.mg`, `<name>.eg`).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lab.tune.positions import Sample

if TYPE_CHECKING:
    import numpy as np
    import scipy.sparse


class FeaturesError(RuntimeError):
    """The engine's features could not be had; the message says why."""


@dataclass
class FeatureSet:
    """Quiet positions as rows: White's eval = constant + matrix @ weights (column order: keys)."""

    keys: list[str]
    weights: np.ndarray
    matrix: scipy.sparse.csr_matrix
    constant: np.ndarray
    evals: np.ndarray
    results: np.ndarray
    skipped: int
    game_ids: list[str] = field(default_factory=list)
    """Each row's game (for holding whole games out of a fit)."""

    def values(self, weights: np.ndarray) -> np.ndarray:
        """White's evaluation of every row with `weights` (in `keys` order)."""
        return self.constant + self.matrix @ weights

    def rows(self, mask: np.ndarray) -> FeatureSet:
        """The rows where `mask` is true, as a feature set of their own (same weights)."""
        import numpy as np

        picked = np.flatnonzero(mask)
        return FeatureSet(self.keys, self.weights, self.matrix[picked], self.constant[picked],
                          self.evals[picked], self.results[picked], 0,
                          [self.game_ids[i] for i in picked] if self.game_ids else [])


def weight_keys(header: dict[str, list[int]]) -> tuple[list[str], list[int]]:
    """Column names (`<name>.mg`, `<name>.eg`, in the header's order) and their current values."""
    keys, values = [], []
    for name, (mg, eg) in header.items():
        keys += [f"{name}.mg", f"{name}.eg"]
        values += [mg, eg]
    return keys, values


def engine_features(samples: Sequence[Sample], command: Sequence[str],
                    eval_file: str | None = None, env: dict[str, str] | None = None
                    ) -> FeatureSet:
    """Run `command features` on the samples' positions and gather the quiet ones."""
    import numpy as np
    import scipy.sparse

    args = [*command, "features"] + (["--eval-file", eval_file] if eval_file else [])
    text = "".join(sample.fen + "\n" for sample in samples)
    try:
        done = subprocess.run(args, input=text, capture_output=True, text=True, check=False,
                              env={**os.environ, **(env or {})})
    except OSError as error:
        raise FeaturesError(f"cannot run the engine ({args[0]}): {error}") from None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != len(samples) + 1:
        message = done.stderr.strip().splitlines()
        raise FeaturesError(f"the engine's features failed (exit {done.returncode}): "
                            f"{message[-1] if message else 'no output'}")
    keys, current = weight_keys(json.loads(lines[0])["weights"])
    column = {key: index for index, key in enumerate(keys)}
    rows, cols, data = [], [], []
    constant, evals, results, games = [], [], [], []
    skipped = 0
    for sample, line in zip(samples, lines[1:]):
        record = json.loads(line)
        if "error" in record or not record["quiet"]:
            skipped += 1
            continue
        row = len(constant)
        for key, coefficient in record["coefficients"].items():
            rows.append(row)
            cols.append(column[key])
            data.append(coefficient)
        constant.append(record["constant"])
        evals.append(record["eval"])
        results.append(sample.result)
        games.append(sample.game_id)
    matrix = scipy.sparse.csr_matrix((data, (rows, cols)), shape=(len(constant), len(keys)))
    return FeatureSet(keys, np.array(current, dtype=float), matrix, np.array(constant),
                      np.array(evals, dtype=float), np.array(results), skipped, games)
