"""Where results come from: results folders (the SQLite store) and PGN files, as one frame."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from lab.ratings.pgn_headers import read_pgn_headers
from lab.store import DB_NAME, read_store

COLUMNS = ["white", "black", "result"]


def read_pgn_results(path: str | Path) -> pd.DataFrame:
    """White, Black and Result of every game in a PGN file (tag lines only: movetext is skipped)."""
    rows = read_pgn_headers(path)
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
            with read_store(path) as store:
                frame = store.results()
        elif path.is_file():
            frame = read_pgn_results(path)
        else:
            raise ValueError(f"{path}: no such results folder or PGN file")
        frames.append(frame.assign(source=str(path)))
    if not frames:
        raise ValueError("no input given: name results folders or PGN files")
    return pd.concat(frames, ignore_index=True)
