"""`[backend]` in an experiment file and `--backend` on the command line reach the Dask backend."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lab.cli import main
from lab.experiment import ExperimentError
from lab.experiment_file import load_experiment

STOCKFISH = "/usr/games/stockfish"

EXPERIMENT = f"""
name = "wiring"
tc = "nodes=1500"
concurrency = 2

[schedule]
type = "gauntlet"
challengers = ["a"]
games = 2

{{backend}}

[[engines]]
name = "a"
cmd = ["{STOCKFISH}"]

[[engines]]
name = "b"
cmd = ["{STOCKFISH}"]
options = {{{{ "Skill Level" = 1 }}}}
"""


def write(tmp_path: Path, backend: str) -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(EXPERIMENT.format(backend=backend))
    return path


def test_backend_table_is_loaded_and_kept_out_of_the_identity(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, '[backend]\nkind = "dask"\nworkers = 2'))
    assert exp.backend is not None and exp.backend.n_workers == 2
    assert "backend" not in exp.identity()
    assert load_experiment(write(tmp_path, '[backend]\nkind = "local"')).backend is None


def test_unknown_backend_key_names_the_file_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[backend]\nkind = "dask"\nworkerz = 2')
    with pytest.raises(ExperimentError, match=r"exp\.toml.*workerz"):
        load_experiment(path)


def test_gauntlet_on_a_local_dask_cluster_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main(["gauntlet", str(write(tmp_path, "")), "--plain", "--out", str(out),
                 "--backend", "dask", "--workers", "2"])
    assert code == 0
    with sqlite3.connect(out / "tempo.sqlite") as db:
        ids = [row[0] for row in db.execute("SELECT game_id FROM games")]
    assert len(ids) == len(set(ids)) == 2
