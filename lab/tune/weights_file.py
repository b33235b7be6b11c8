"""The weights file `tempo tune` writes and the engine's `EvalFile` option reads.

JSON: ``{"weights": {name: [mg, eg]}, "tune": {...}}``; the engine reads `weights` (integers,
format in `engine.eval_weights`) and ignores `tune`, which records how the file was made.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def weight_table(keys: Sequence[str], values: Sequence[float]) -> dict[str, list[int]]:
    """`<name>.mg` / `<name>.eg` columns back to name -> [mg, eg], rounded to centipawns."""
    table: dict[str, list[int]] = {}
    for key, value in zip(keys, values):
        name, half = key.rsplit(".", 1)
        table.setdefault(name, [0, 0])[half == "eg"] = int(round(float(value)))
    return table


def write_weights_file(path: str | Path, keys: Sequence[str], values: Sequence[float],
                       record: dict[str, Any]) -> None:
    """Write the weights with `record` (sources, counts, K, errors) under `tune`."""
    data = {"weights": weight_table(keys, values), "tune": record}
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
