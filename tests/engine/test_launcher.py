"""`tempo-engine` interpreter choice (CPython by default, PyPy or a path on request)."""

from __future__ import annotations

import json
import subprocess
import sys

import chess
import chess.engine
import pytest

from engine.launcher import (
    REPO_ROOT,
    LauncherError,
    choose_interpreter,
    engine_command,
    engine_environment,
)

REPO_PYPY = REPO_ROOT / ".venv-pypy" / "bin" / "python"


def test_forced_cpython_is_this_interpreter():
    assert choose_interpreter({"TEMPO_ENGINE_PYTHON": "cpython"}) == sys.executable


def test_tempo_pypy_is_used_only_on_request(tmp_path):
    pypy = tmp_path / "pypy3"
    pypy.write_text("#!/bin/sh\n")
    pypy.chmod(0o755)
    assert choose_interpreter({"TEMPO_PYPY": str(pypy)}) == sys.executable
    assert choose_interpreter({"TEMPO_PYPY": str(pypy), "TEMPO_ENGINE_PYTHON": "pypy"}) == str(pypy)


def test_default_is_this_interpreter_even_with_the_repository_pypy():
    assert choose_interpreter({}) == sys.executable
    assert choose_interpreter({"TEMPO_ENGINE_PYTHON": "  "}) == sys.executable


def test_engine_runs_under_cpython_by_default():
    out = subprocess.run(
        [sys.executable, "-c", "from engine.launcher import main; main()", "bench", "--depth", "1"],
        input="", capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    ).stdout
    assert "Interpreter: CPython" in out and "Nodes searched" in out


def test_forced_pypy_without_pypy_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setattr("engine.launcher.REPO_ROOT", tmp_path)
    with pytest.raises(LauncherError, match="TEMPO_ENGINE_PYTHON=pypy"):
        choose_interpreter({"TEMPO_ENGINE_PYTHON": "pypy", "TEMPO_PYPY": "/nonexistent/pypy"})
    assert choose_interpreter({"TEMPO_PYPY": "/nonexistent/pypy"}) == sys.executable


def test_forced_path_must_be_executable():
    with pytest.raises(LauncherError, match="/nonexistent/python"):
        choose_interpreter({"TEMPO_ENGINE_PYTHON": "/nonexistent/python"})


def test_command_and_environment():
    command = engine_command(["bench", "--depth", "2"], {"TEMPO_ENGINE_PYTHON": "cpython"})
    assert command[0] == sys.executable and command[1] == "-c"
    assert command[3:] == ["bench", "--depth", "2"] and repr(str(REPO_ROOT)) in command[2]
    env = engine_environment({"PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"].split(":") == [str(REPO_ROOT), "/elsewhere"]


def test_the_engine_is_this_checkouts_whatever_the_working_directory(tmp_path):
    """`python -m engine` takes the working directory's `engine` first; the launcher's command
    runs this checkout's, also from another checkout."""
    decoy = tmp_path / "engine"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("")
    (decoy / "uci.py").write_text("def main():\n    print('id name decoy')\n    return 0\n")
    command = engine_command([], {"TEMPO_ENGINE_PYTHON": "cpython"})
    answer = subprocess.run(command, input="uci\nquit\n", capture_output=True, text=True,
                            cwd=tmp_path, env=engine_environment(), timeout=60)
    assert "id name Tempo" in answer.stdout and "decoy" not in answer.stdout, answer.stdout


@pytest.mark.skipif(not REPO_PYPY.exists(), reason="no PyPy venv in this checkout")
def test_engine_runs_under_pypy():
    out = subprocess.run(
        [sys.executable, "-c", "from engine.launcher import main; main()", "bench", "--depth", "2"],
        input="", capture_output=True, text=True, timeout=120,
        env={"TEMPO_ENGINE_PYTHON": "pypy", "PATH": "/usr/bin:/bin"},
    ).stdout
    assert "Interpreter: PyPy 3.9" in out and "Nodes searched" in out


@pytest.mark.skipif(not REPO_PYPY.exists(), reason="no PyPy venv in this checkout")
def test_uci_under_pypy_with_a_clock():
    env = engine_environment({"PATH": "/usr/bin:/bin"})
    with chess.engine.SimpleEngine.popen_uci([str(REPO_PYPY), "-m", "engine"], env=env) as engine:
        board = chess.Board()
        for _ in range(2):
            limit = chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.1, black_inc=0.1)
            result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            assert json.loads(result.info["string"][len("tm "):])["tm"] == "smooth"
            board.push(result.move)
