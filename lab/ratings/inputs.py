"""Where results come from: results folders (the SQLite store) and PGN files, as one frame."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import chess.pgn
import pandas as pd

from lab.store import DB_NAME, open_store

COLUMNS = ["white", "black", "result"]


def read_pgn_results(path: str | Path) -> pd.DataFrame:
    """White, Black and Result of every game in a PGN file (headers only: movetext is skipped)."""
    path = Path(path)
    rows = []
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            rows.append((headers.get("White", "?"), headers.get("Black", "?"),
                         headers.get("Result", "*")))
    if not rows:
        raise ValueError(f"{path}: no PGN games found")
    return pd.DataFrame(rows, columns=COLUMNS)


def read_results(inputs: Iterable[str | Path]) -> pd.DataFrame:
    """Games from results folders (containing tempo.sqlite) and PGN files, concatenated.

    Columns: white, black, result, source (the input each game came from).
    """
    frames = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            if not (path / DB_NAME).is_file():
                raise ValueError(f"{path}: a folder without {DB_NAME}, not a results folder")
            with open_store(path) as store:
                frame = store.games()[COLUMNS]
        elif path.is_file():
            frame = read_pgn_results(path)
        else:
            raise ValueError(f"{path}: no such results folder or PGN file")
        frames.append(frame.assign(source=str(path)))
    if not frames:
        raise ValueError("no input given: name results folders or PGN files")
    return pd.concat(frames, ignore_index=True)
