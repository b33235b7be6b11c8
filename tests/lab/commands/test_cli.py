"""The `tempo` command line: every command's help works, and parsing imports only what runs."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import chess
import pytest

import lab.bench
import lab.commands
from lab.bench import SUMMARIES as BENCHES
from lab.commands import SUMMARIES as COMMANDS
from lab.records import GameRecord
from lab.store import open_store

HEAVY = ("scipy", "pandas", "matplotlib")


def modules_of(package) -> set[str]:
    return {m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}


def test_the_summaries_name_every_module_and_no_other() -> None:
    assert set(COMMANDS) == modules_of(lab.commands)
    assert set(BENCHES) == modules_of(lab.bench)


def tempo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from lab.cli import main; "
                           "sys.exit(main())", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("words", [[name] for name in COMMANDS] + [["bench", n] for n in BENCHES])
def test_every_command_has_help(words) -> None:
    done = tempo(*words, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: tempo " + " ".join(words))


def test_top_level_help_lists_every_command() -> None:
    done = tempo("--help")
    assert done.returncode == 0
    for name, summary in COMMANDS.items():
        assert name in done.stdout and summary in done.stdout


def test_an_unknown_command_is_named() -> None:
    done = tempo("nonsense")
    assert done.returncode == 2 and "invalid choice: 'nonsense'" in done.stderr


def heavy_loaded(*words: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of `modules` are in `sys.modules` after `tempo WORDS` ran in a fresh interpreter."""
    code = ("import sys; from lab.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print(' '.join(sorted(m for m in {modules!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, *words], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1].split()


@pytest.mark.parametrize("words", [["--help"], ["sprt", "--penta", "10,40,100,40,10"],
                                   ["sprt", "--wdl", "10,20,12"], ["bench", "--help"]])
def test_parsing_and_arithmetic_load_no_heavy_library(words) -> None:
    """`tempo --help` and `tempo sprt` on counts import neither SciPy, pandas nor matplotlib
    (their start-up was most of `tempo`'s; issue: 3.1 s for `tempo --help`)."""
    assert heavy_loaded(*words) == []


def test_ratings_table_loads_no_pandas(tmp_path) -> None:
    """`tempo ratings` on a PGN file and a results folder prints its table without pandas (0.3 s
    of its start-up) and, the pool being in one piece, without scipy.sparse; the LOS matrix, the
    head-to-head table and the CSV still use pandas."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n'
                   '[White "B"]\n[Black "A"]\n[Result "1/2-1/2"]\n\n1/2-1/2\n\n'
                   '[White "A"]\n[Black "B"]\n[Result "0-1"]\n\n0-1\n')
    folder = tmp_path / "run"
    with open_store(folder) as store:
        store.add_game(GameRecord("g1", "B", "A", "1-0", "normal", "", chess.STARTING_FEN))
    assert heavy_loaded("ratings", str(pgn), str(folder),
                        modules=("pandas", "scipy.sparse", "scipy.special")) == ["scipy.special"]
    assert "pandas" in heavy_loaded("ratings", str(pgn), str(folder), "--los")
