"""Where results come from: results folders (the SQLite store) and PGN files.

`read_inputs` gives each input's (white, black, result) rows as plain tuples, which is what both
readers produce and what `condense_rows` takes, so `tempo ratings` never loads pandas for them;
`read_results` gives the same games as one frame for library callers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lab.ratings.pgn_headers import read_pgn_headers
from lab.store import DB_NAME, read_store

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["white", "black", "result"]


@dataclass
class InputResults:
    """The games of one input: where they came from and their (white, black, result) rows."""

    source: str
    rows: list[tuple[str, str, str]]


def pgn_result_rows(path: str | Path) -> list[tuple[str, str, str]]:
    """White, Black and Result of every game in a PGN file (tag lines only: movetext is skipped)."""
    rows = read_pgn_headers(path)
    if not rows:
        raise ValueError(f"{path}: no PGN games found")
    return rows


def read_pgn_results(path: str | Path) -> pd.DataFrame:
    """`pgn_result_rows` as a frame with columns white, black, result."""
    import pandas as pd

    return pd.DataFrame(pgn_result_rows(path), columns=COLUMNS)


def read_inputs(inputs: Iterable[str | Path]) -> list[InputResults]:
    """The games of each results folder (containing tempo.sqlite) and PGN file, in input order;
    a ValueError names an input that is neither, and says when none is given."""
    read = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            if not (path / DB_NAME).is_file():
                raise ValueError(f"{path}: a folder without {DB_NAME}, not a results folder")
            with read_store(path) as store:
                rows = store.result_rows()
        elif path.is_file():
            rows = pgn_result_rows(path)
        else:
            raise ValueError(f"{path}: no such results folder or PGN file")
        read.append(InputResults(str(path), rows))
    if not read:
        raise ValueError("no input given: name results folders or PGN files")
    return read


def read_results(inputs: Iterable[str | Path]) -> pd.DataFrame:
    """Games from results folders and PGN files (`read_inputs`), concatenated.

    Columns: white, black, result, source (the input each game came from).
    """
    import pandas as pd

    frames = [pd.DataFrame(item.rows, columns=COLUMNS).assign(source=item.source)
              for item in read_inputs(inputs)]
    return pd.concat(frames, ignore_index=True)
