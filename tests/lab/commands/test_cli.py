"""The `tempo` command line: every command's help works, and parsing imports only what runs."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import lab.bench
import lab.commands
from lab.bench import SUMMARIES as BENCHES
from lab.commands import SUMMARIES as COMMANDS

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


@pytest.mark.parametrize("words", [["--help"], ["sprt", "--penta", "10,40,100,40,10"],
                                   ["sprt", "--wdl", "10,20,12"], ["bench", "--help"]])
def test_parsing_and_arithmetic_load_no_heavy_library(words) -> None:
    """`tempo --help` and `tempo sprt` on counts import neither SciPy, pandas nor matplotlib
    (their start-up was most of `tempo`'s; issue: 3.1 s for `tempo --help`)."""
    code = ("import sys; from lab.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, *words], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
