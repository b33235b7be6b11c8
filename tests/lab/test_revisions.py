"""Our engine at a git revision: resolving, exporting, the experiment key and a real match.

The fingerprint of a revision is behaviour that changed between commits: at 75609c1 a
`go depth 0` is refused without a `bestmove`; from 130b122 on it is answered with a one-ply
search. So a test can tell which tree's engine really ran.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import tomllib

from lab.experiment import LAB_ROOT, ExperimentError, Overrides, builtin_command
from lab.experiment_file import load_experiment, parse_experiment
from lab.revisions import (
    REPO_ROOT,
    RevisionError,
    cache_root,
    has_commit,
    resolve,
    revision_environment,
    revision_tree,
)

OLD = "75609c1"
BOOK = REPO_ROOT / "experiments" / "books" / "openings_8ply.epd"
SPRT_FILE = REPO_ROOT / "experiments" / "sprt_engine.toml"


needs_history = pytest.mark.skipif(not has_commit(OLD), reason=f"{OLD} not in this clone")
#: The last commit whose launcher ran the engine under PyPy by default.
PYPY_DEFAULT = "e181138"


@pytest.fixture(autouse=True)
def revision_cache(tmp_path_factory, monkeypatch):
    """One exported-tree cache per test session (exports take a fraction of a second)."""
    folder = tmp_path_factory.getbasetemp() / "revisions"
    monkeypatch.setenv("TEMPO_REVISION_CACHE", str(folder))
    return folder


def experiment_text(new: str, base: str, games: int = 2, tc: str = "10+0.1") -> str:
    return f"""
name = "rev"
tc = "{tc}"
concurrency = 1
[schedule]
type = "gauntlet"
challengers = ["new"]
games = {games}
[openings]
file = "{BOOK}"
order = "sequential"
paired = true
[[engines]]
name = "new"
builtin = "tempo"
{new}
[[engines]]
name = "base"
builtin = "tempo"
{base}
"""


def load(text: str, tmp_path: Path):
    return parse_experiment(tomllib.loads(text), "rev.toml", tmp_path,
                            Overrides(out=str(tmp_path / "out")))


def answer_to_depth_zero(cmd: list[str], cwd: str | None, env: dict[str, str]) -> str:
    """The engine's output after `go depth 0` (run as the harness would run it)."""
    script = "uci\nposition startpos\ngo depth 0\nisready\nquit\n"
    done = subprocess.run(cmd, input=script, capture_output=True, text=True, timeout=60,
                          cwd=cwd, env={**os.environ, **env})
    return done.stdout


def test_cache_root_follows_the_environment(tmp_path):
    assert cache_root({"TEMPO_REVISION_CACHE": str(tmp_path)}) == tmp_path
    assert cache_root({"XDG_CACHE_HOME": "/x"}) == Path("/x/tempo/revisions")


def test_a_name_resolves_to_the_full_commit_and_bad_names_are_named():
    head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], text=True,
                          capture_output=True, check=True).stdout.strip()
    assert resolve("HEAD") == head and len(head) == 40
    for bad in ("no-such-branch-x", "", "--all", "HEAD:engine"):
        with pytest.raises(RevisionError, match="revision"):
            resolve(bad)


@needs_history
def test_the_tree_is_exported_once_with_the_commit_files(revision_cache):
    commit, tree = revision_tree(OLD)
    assert commit.startswith(OLD) and tree == revision_cache / commit
    shown = subprocess.run(["git", "-C", str(REPO_ROOT), "show", f"{commit}:engine/uci.py"],
                           capture_output=True, check=True).stdout
    assert (tree / "engine" / "uci.py").read_bytes() == shown
    stamp = (tree / "engine").stat().st_mtime_ns
    assert revision_tree(commit[:10]) == (commit, tree)
    assert (tree / "engine").stat().st_mtime_ns == stamp  # reused, not exported again
    assert not [p for p in revision_cache.iterdir() if p.name.startswith(".")]  # no staging left


@needs_history
def test_the_experiment_runs_the_revisions_engine_not_the_working_trees(tmp_path):
    exp = load(experiment_text(f'revision = "{OLD}"', ""), tmp_path)
    old, current = exp.engine("new"), exp.engine("base")
    assert old.revision == resolve(OLD) and current.revision is None
    assert old.cwd == str(revision_tree(OLD)[1])
    tree = revision_tree(OLD)[1]
    assert old.cmd == builtin_command(tree) and current.cmd == builtin_command(LAB_ROOT)
    refused = answer_to_depth_zero(old.cmd, old.cwd, old.env)
    assert "depth must be positive" in refused and "bestmove" not in refused
    answered = answer_to_depth_zero(current.cmd, current.cwd, current.env)
    assert "bestmove" in answered


@needs_history
def test_identity_names_the_commit_not_where_its_tree_is(tmp_path):
    exp = load(experiment_text(f'revision = "{OLD}"', 'revision = "HEAD"'), tmp_path)
    engines = {engine["name"]: engine for engine in exp.identity()["engines"]}
    assert engines["new"]["cmd"] == [f"builtin:tempo@{resolve(OLD)}"]
    assert engines["base"]["cmd"] == [f"builtin:tempo@{resolve('HEAD')}"]
    assert engines["new"]["cwd"] is None and "TEMPO_PYPY" not in engines["new"]["env"]
    plain = load(experiment_text("", ""), tmp_path).identity()["engines"][0]
    assert plain["cmd"] == ["builtin:tempo"] and "revision" not in plain  # old folders resume


def interpreter_of(cmd: list[str], cwd: str | None, env: dict[str, str]) -> str:
    """The `Interpreter:` line of the engine's one-ply bench, run as the harness would run it."""
    done = subprocess.run([*cmd, "bench", "--depth", "1"], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, **env}, check=True)
    return next(line for line in done.stdout.splitlines() if line.startswith("Interpreter:"))


def test_a_revision_gets_the_harness_interpreter_explicitly(tmp_path):
    pypy = tmp_path / "pypy"
    pypy.write_text("#!/bin/sh\n")
    pypy.chmod(0o755)
    assert revision_environment({"TEMPO_PYPY": str(pypy)}) == {
        "TEMPO_ENGINE_PYTHON": "cpython", "TEMPO_PYPY": str(pypy)}
    chosen = revision_environment({"TEMPO_ENGINE_PYTHON": "pypy", "TEMPO_PYPY": "/nonexistent"})
    assert chosen == {"TEMPO_ENGINE_PYTHON": "pypy"}


@pytest.mark.skipif(not has_commit(PYPY_DEFAULT), reason=f"{PYPY_DEFAULT} not in this clone")
def test_both_sides_of_a_revision_match_run_cpython_by_default(tmp_path, monkeypatch):
    """PYPY_DEFAULT's launcher picks PyPy whenever TEMPO_PYPY names one; the harness's explicit
    TEMPO_ENGINE_PYTHON keeps that revision on CPython like the working tree's engine."""
    monkeypatch.delenv("TEMPO_ENGINE_PYTHON", raising=False)
    exp = load(experiment_text(f'revision = "{PYPY_DEFAULT}"', ""), tmp_path)
    old, current = exp.engine("new"), exp.engine("base")
    assert old.env["TEMPO_ENGINE_PYTHON"] == "cpython"
    assert interpreter_of(old.cmd, old.cwd, old.env).startswith("Interpreter: CPython")
    assert interpreter_of(current.cmd, current.cwd, current.env).startswith("Interpreter: CPython")
    if (REPO_ROOT / ".venv-pypy" / "bin" / "python").exists():
        pinned = load(experiment_text(f'revision = "{PYPY_DEFAULT}"\ninterpreter = "pypy"', ""),
                      tmp_path)
        new = pinned.engine("new")
        assert interpreter_of(new.cmd, new.cwd, new.env).startswith("Interpreter: PyPy")


@pytest.mark.parametrize("keys, message", [
    ('revision = "no-such-branch-x"', "is not a commit"),
    ('revision = 5', "'revision' must be"),
    ('revision = "HEAD"\ncwd = "."', "'revision' needs 'builtin' and no 'cwd'"),
])
def test_a_bad_revision_is_refused_with_the_engine_named(tmp_path, keys, message):
    with pytest.raises(ExperimentError, match=message) as caught:
        load(experiment_text(keys, ""), tmp_path)
    assert "rev.toml" in str(caught.value)


def test_revision_is_only_for_our_engine(tmp_path):
    text = experiment_text("", "").replace('name = "base"\nbuiltin = "tempo"',
                                            'name = "base"\ncmd = "/usr/games/stockfish"\n'
                                            'revision = "HEAD"')
    with pytest.raises(ExperimentError, match="'revision' needs 'builtin'"):
        load(text, tmp_path)


def test_the_sprt_experiment_plays_the_working_tree_against_a_revision():
    exp = load_experiment(SPRT_FILE)
    assert exp.engine("new").revision is None
    assert exp.engine("base").revision == resolve("HEAD")
    assert exp.challengers == ["new"] and exp.openings.paired
    assert exp.sprt is not None and exp.sprt.elo0 < exp.sprt.elo1
    assert exp.concurrency == 1


@pytest.mark.slow
@needs_history
def test_a_real_match_between_two_revisions(tmp_path):
    from lab.runner import run_experiment
    from lab.store import open_store

    text = experiment_text('revision = "HEAD"', f'revision = "{OLD}"', games=2, tc="2+0.05")
    exp = load(text, tmp_path)
    outcome = run_experiment(exp, stream=open(os.devnull, "w"), live=False)
    assert outcome is not None
    with open_store(exp.out) as store:
        assert store.game_count() == 2
    pgn = (exp.out / "games.pgn").read_text()
    assert pgn.count('[White "new"]') == 1 and pgn.count('[White "base"]') == 1
