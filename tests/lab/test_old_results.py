"""A results folder written before the store kept a schema version resumes with today's code.

`data/v0_results/` was written by `tempo gauntlet` at commit 2233ef8 (two of the experiment's
four games, `--games 2`): its tempo.sqlite has `PRAGMA user_version` 0, and its games.pgn and
moves.csv are that code's exports of those two games. Resuming plays only the two missing games,
keeps the stored ones as they were (with the `variant` column of schema version 2 added, set to
standard), writes the old games' PGN and moves byte for byte as before, and marks the store with
the current schema version; read without being written, its games are standard too. A store of
a later version is refused.
"""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path

import pytest

from lab.experiment import Overrides
from lab.experiment_file import load_experiment
from lab.runner import run_experiment
from lab.store import DB_NAME, SCHEMA_VERSION, StoreError, open_store, read_store

OLD = Path(__file__).parent / "data" / "v0_results"


def _rows(path: Path, query: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(query).fetchall()


def _old_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "v0"
    folder.mkdir()
    for name in (DB_NAME, "games.pgn", "moves.csv"):
        shutil.copy(OLD / name, folder / name)
    return folder


def test_an_unversioned_results_folder_resumes(tmp_path):
    folder = _old_folder(tmp_path)
    db = folder / DB_NAME
    assert _rows(db, "PRAGMA user_version") == [(0,)]
    games_before = _rows(db, "SELECT * FROM games ORDER BY seq")
    moves_before = _rows(db, "SELECT * FROM moves ORDER BY game_id, ply")
    assert len(games_before) == 2

    exp = load_experiment(OLD / "experiment.toml", Overrides(out=str(folder)))
    outcome = run_experiment(exp, live=False, stream=io.StringIO())

    assert outcome.exit_code == 0
    assert outcome.tournament.resumed == 2 and outcome.tournament.done == 4
    assert _rows(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    games_after = _rows(db, "SELECT * FROM games ORDER BY seq")
    assert games_after[:2] == [(*row, "standard") for row in games_before]
    assert len(games_after) == 4
    moves_after = _rows(db, "SELECT * FROM moves ORDER BY game_id, ply")  # r0001 before r0002
    assert moves_after[:len(moves_before)] == moves_before and len(moves_after) > len(moves_before)
    old_pgn = (OLD / "games.pgn").read_text(encoding="utf-8")
    new_pgn = (folder / "games.pgn").read_text(encoding="utf-8")
    assert new_pgn.startswith(old_pgn) and new_pgn.count("[GameId ") == 4
    old_csv = (OLD / "moves.csv").read_text(encoding="utf-8")
    assert (folder / "moves.csv").read_text(encoding="utf-8").startswith(old_csv)


def test_a_store_of_a_later_version_is_refused(tmp_path):
    folder = _old_folder(tmp_path)
    with sqlite3.connect(folder / DB_NAME) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for opener in (open_store, read_store):
        with pytest.raises(StoreError, match=f"newer Tempo .*version {SCHEMA_VERSION + 1}"):
            opener(folder)
    assert _rows(folder / DB_NAME, "PRAGMA user_version") == [(SCHEMA_VERSION + 1,)]


def test_an_unversioned_store_reads_without_being_written(tmp_path):
    folder = _old_folder(tmp_path)
    with read_store(folder) as store:
        assert store.version == 0 and store.game_count() == 2
        assert list(store.games()["variant"]) == ["standard", "standard"]
    assert _rows(folder / DB_NAME, "PRAGMA user_version") == [(0,)]
