"""The notebooks run top to bottom on results folders made by a tiny real gauntlet and a tiny
real calibration (nbclient, the `python3` kernel of this environment)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.experiment_file import parse_experiment

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
STOCKFISH = "/usr/games/stockfish"

pytestmark = [
    pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs Stockfish"),
]
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def kernel_name() -> str:
    """This environment's `python3` kernel, installed into its prefix if it is missing."""
    from jupyter_client.kernelspec import KernelSpecManager

    if "python3" not in KernelSpecManager().find_kernel_specs():
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix"],
                       check=True, capture_output=True)
    return "python3"


@pytest.fixture(scope="module")
def gauntlet(tmp_path_factory) -> Path:
    """Four games: our engine on a clock (with telemetry) against itself with another time
    manager and against Stockfish at fixed nodes."""
    from lab.experiment import load_book_for
    from lab.runner import run_experiment

    out = tmp_path_factory.mktemp("gauntlet")
    data = {
        "name": "nb-gauntlet", "tc": "2+0.02", "concurrency": 2, "margin_ms": 200,
        "out": str(out),
        "schedule": {"type": "gauntlet", "challengers": ["tempo"], "games": 4},
        "openings": {"file": str(ROOT / "experiments/books/openings_8ply.epd"),
                     "order": "random", "seed": 5},
        "adjudication": {"max_moves": 100, "resign_move_count": 3, "resign_score_cp": 500},
        "engines": [
            {"name": "tempo", "builtin": "tempo", "options": {"TimeManager": "smooth"}},
            {"name": "fraction", "builtin": "tempo", "options": {"TimeManager": "fraction"}},
            {"name": "sf", "cmd": [STOCKFISH], "tc": "nodes=2000",
             "options": {"Skill Level": 0, "Threads": 1, "Hash": 16}},
        ],
    }
    exp = parse_experiment(data, "notebook test", ROOT)
    exp.book = load_book_for(exp)
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    assert outcome.tournament.done == 4
    return out


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory) -> Path:
    """Six games: three Stockfish levels at fixed nodes, each pair twice (no player in every
    game, so no gauntlet challenger)."""
    from lab.runner import run_experiment

    out = tmp_path_factory.mktemp("round_robin")
    sf = {"cmd": [STOCKFISH], "options": {"Threads": 1, "Hash": 16}}
    data = {
        "name": "nb-round-robin", "tc": "nodes=1500", "concurrency": 1, "out": str(out),
        "schedule": {"type": "round-robin", "rounds": 1},
        "adjudication": {"max_moves": 60},
        "engines": [{**sf, "name": f"sf{level}",
                     "options": {**sf["options"], "Skill Level": level}} for level in (0, 3, 6)],
    }
    exp = parse_experiment(data, "notebook test", ROOT)
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    assert outcome.tournament.done == 6
    return out


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Path:
    from lab.calibration import load_calibration, run_calibration
    from tests.lab.calibration.test_calibrate_run import TINY

    folder = tmp_path_factory.mktemp("calibration")
    path = folder / "tiny.toml"
    path.write_text(TINY)
    cal = load_calibration(path, out=str(folder / "out"))
    run_calibration(cal, stream=io.StringIO())
    return folder / "out"


def execute(name: str, results: Path) -> nbformat.NotebookNode:
    """Run notebook `name` with RESULTS set to `results`; any cell error fails the test."""
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    parameters = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(parameters) == 1, f"{name} needs exactly one cell tagged 'parameters'"
    parameters[0].source = f"RESULTS = {str(results)!r}"
    client = nbclient.NotebookClient(book, kernel_name=kernel_name(), timeout=300,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return book


def outputs(book) -> list:
    return [out for cell in book.cells if cell.cell_type == "code" for out in cell.outputs]


def images(book) -> int:
    return sum("image/png" in out.get("data", {}) for out in outputs(book))


def test_time_usage_notebook(gauntlet):
    book = execute("time_usage.ipynb", gauntlet)
    assert images(book) >= 2  # all games, and the one-game picture
    text = "".join(out.get("text", "") for out in outputs(book))
    assert "4 games" in text and "time forfeits" in text


def test_gauntlet_report_notebook(gauntlet):
    book = execute("gauntlet_report.ipynb", gauntlet)
    assert images(book) >= 2  # ratings with error bars, score over time
    text = "".join(out.get("text", "") for out in outputs(book))
    assert "White advantage" in text  # the ratings table was printed


def test_gauntlet_report_notebook_on_a_round_robin(round_robin):
    book = execute("gauntlet_report.ipynb", round_robin)
    assert images(book) == 1 + 3  # the ratings, then each engine's score over time
    text = "".join(out.get("text", "") for out in outputs(book))
    assert "6 games" in text and all(f"sf{level}" in text for level in (0, 3, 6))


def test_elo_calibration_notebook(calibration):
    book = execute("elo_calibration.ipynb", calibration)
    assert images(book) >= 1
    text = "".join(out.get("text", "") for out in outputs(book))
    assert "A per-level accuracy" in text  # the report with its criteria
    # the corrected table, or (a tiny calibration may judge too few levels) the reason for none
    assert "UCI_Elo" in text or "No table was written" in text


def test_a_missing_results_folder_is_named(tmp_path):
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="no results store"):
        execute("time_usage.ipynb", tmp_path / "nothing")
