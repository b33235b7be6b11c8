"""Resume: a gauntlet killed with SIGKILL at random moments finishes with every game exactly once.

The run is `tempo gauntlet` in its own process (Stockfish against Stockfish, two games at once);
it is killed with SIGKILL while it plays, the store is checked to open and be intact, and the
same command is run again. At the end every scheduled game is in the store exactly once, the PGN
holds as many games as the store, and python-chess reads it back.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn
import pytest

from lab.experiment_file import load_experiment
from lab.runner import run_experiment
from lab.schedule import build_schedule
from lab.store import DB_NAME, StoreError, open_store

BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"

EXPERIMENT = """
name = "resume"
tc = "{tc}"
concurrency = 2
margin_ms = 200
out = "{out}"

[schedule]
type = "gauntlet"
challengers = ["sf2"]
games = {games}

[openings]
file = "{book}"
order = "random"
seed = 5

[adjudication]
resign_move_count = 3
resign_score_cp = 500
max_moves = 100

[[engines]]
name = "sf2"
cmd = ["/usr/games/stockfish"]
options = {{ "Skill Level" = 2, Threads = 1, Hash = 16 }}

[[engines]]
name = "sf0"
cmd = ["/usr/games/stockfish"]
options = {{ "Skill Level" = 0, Threads = 1, Hash = 16 }}
"""


def setup(tmp_path: Path, games: int, tc: str) -> tuple[Path, Path]:
    out = tmp_path / "out"
    path = tmp_path / "resume.toml"
    path.write_text(EXPERIMENT.format(out=out, games=games, book=BOOK, tc=tc))
    return path, out


def tempo(path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lab.cli", "gauntlet", str(path), "--plain"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def stored(out: Path) -> int:
    """Games committed so far, read as another process would (WAL allows it during a run)."""
    try:
        conn = sqlite3.connect(f"file:{out / DB_NAME}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def kill_after(process: subprocess.Popen, out: Path, games_done: int, extra_s: float) -> int:
    """SIGKILL the run once `games_done` games are stored, plus `extra_s`; the count then."""
    deadline = time.monotonic() + 120
    while stored(out) < games_done:
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "the run stored no games in 120 s"
        time.sleep(0.05)
    time.sleep(extra_s)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    process.stderr.close()
    return stored(out)


def check_intact(out: Path) -> None:
    conn = sqlite3.connect(out / DB_NAME)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        orphans = conn.execute(
            "SELECT COUNT(*) FROM moves WHERE game_id NOT IN (SELECT game_id FROM games)"
        ).fetchone()[0]
        assert orphans == 0
        short = conn.execute(
            "SELECT COUNT(*) FROM games g WHERE plies != "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.game_id)"
        ).fetchone()[0]
        assert short == 0  # every stored game has all its moves: one transaction per game
    finally:
        conn.close()


def finish_and_check(path: Path, out: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "lab.cli", "gauntlet", str(path), "--plain"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "resuming with" in result.stderr
    expected = sorted(t.game_id for t in build_schedule(load_experiment(path)))
    with open_store(out) as store:
        games = store.games()
    assert sorted(games["game_id"]) == expected  # every scheduled game, exactly once
    pgn_games = []
    with open(out / "games.pgn") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors
            pgn_games.append(game.headers["GameId"])
    assert sorted(pgn_games) == expected
    check_intact(out)


def test_sigkill_once_then_resume(tmp_path):
    path, out = setup(tmp_path, games=4, tc="0.5+0.02")
    process = tempo(path)
    before = kill_after(process, out, games_done=1, extra_s=random.uniform(0.0, 0.5))
    assert 1 <= before < 4
    check_intact(out)
    finish_and_check(path, out)


@pytest.mark.slow
def test_sigkill_many_times_at_random_moments_then_resume(tmp_path):
    rng = random.Random(os.getpid())
    path, out = setup(tmp_path, games=12, tc="1+0.03")
    for _ in range(4):
        done = stored(out)
        if done >= 10:
            break
        process = tempo(path)
        # sometimes before the first game of this run is stored, sometimes in the middle of one
        target = done + rng.choice([0, 1, 1, 2])
        kill_after(process, out, games_done=target, extra_s=rng.uniform(0.0, 2.5))
        check_intact(out)
    finish_and_check(path, out)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_cleanly_and_resumes(tmp_path, signum):
    path, out = setup(tmp_path, games=4, tc="0.5+0.02")
    process = tempo(path)
    deadline = time.monotonic() + 120
    while stored(out) < 1:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    assert "interrupted; finished games are kept" in err
    assert "leaked" not in err and "Traceback" not in err, err
    check_intact(out)
    with open_store(out) as store:
        done = store.game_count()
    with open(out / "games.pgn") as handle:
        assert sum(1 for _ in iter(lambda: chess.pgn.read_game(handle), None)) == done
    finish_and_check(path, out)


def checkout_with_engine(folder: Path, games: int) -> Path:
    """A folder laid out as a checkout: an engine script, and an experiment that names it and its
    working directory by paths relative to the experiment file."""
    (folder / "engines").mkdir(parents=True)
    script = folder / "engines" / "sf"
    script.write_text("#!/bin/sh\nexec /usr/games/stockfish \"$@\"\n")
    script.chmod(0o755)
    (folder / "experiments").mkdir()
    path = folder / "experiments" / "moved.toml"
    text = EXPERIMENT.format(out=folder / "out", games=games, book=BOOK, tc="0.5+0.02")
    old = 'cmd = ["/usr/games/stockfish"]\noptions = {{ "Skill Level" = 0'.replace("{{", "{")
    assert old in text
    path.write_text(text.replace(old, 'cmd = ["./sf"]\ncwd = "../engines"\noptions = '
                                      '{ "Skill Level" = 0'))
    return path


def test_a_moved_checkout_resumes_its_folder_and_an_older_folder_resumes_too(tmp_path):
    """Relative engine paths stay relative in the identity: a folder played in one checkout
    resumes in a copy of it elsewhere (the committed calibration stores depend on it). A folder
    whose identity an older version wrote (absolute paths) resumes and takes the new identity."""
    path = checkout_with_engine(tmp_path / "here", games=2)
    first = load_experiment(path)
    assert first.identity()["engines"][1]["cmd"] == ["./sf"]
    assert first.identity()["engines"][1]["cwd"] == "../engines"
    assert run_experiment(first, stream=io.StringIO(), live=False).exit_code == 0
    moved = tmp_path / "there"
    shutil.move(tmp_path / "here", moved)
    path = moved / "experiments" / "moved.toml"
    path.write_text(path.read_text().replace(str(tmp_path / "here"), str(moved)).replace(
        "games = 2", "games = 4"))
    again = load_experiment(path)
    assert again.engines[1].cmd[0] == str(moved / "engines" / "sf")
    stream = io.StringIO()
    assert run_experiment(again, stream=stream, live=False).exit_code == 0
    assert "resuming with 2 done" in stream.getvalue()
    with open_store(again.out) as store:
        assert store.game_count() == 4
    # the folder as an older version left it: the identity names the absolute paths
    with sqlite3.connect(again.out / DB_NAME) as conn:
        conn.execute("UPDATE experiment SET identity = ?",
                     (json.dumps(again.earlier_identities()[0], sort_keys=True, default=str),))
    conn.close()
    path.write_text(path.read_text().replace("games = 4", "games = 6"))
    stream = io.StringIO()
    assert run_experiment(load_experiment(path), stream=stream, live=False).exit_code == 0
    assert "resuming with 4 done" in stream.getvalue()
    with open_store(again.out) as store:
        assert store.game_count() == 6
        assert store.conn.execute("SELECT identity FROM experiment").fetchone()[0] == \
            json.dumps(again.identity(), sort_keys=True, default=str)


LEVELS = """
name = "levels"
tc = "1+0.01"
concurrency = 2
out = "{out}"

[schedule]
type = "gauntlet"
challengers = ["L650"]
games = {games}

[openings]
file = "{book}"
seed = 5

[adjudication]
max_moves = 12

[[engines]]
name = "L650"
builtin = "tempo"
options = {{ UCI_LimitStrength = true, EloTable = "{table}", UCI_Elo = 650 }}

[[engines]]
name = "L750"
builtin = "tempo"
options = {{ UCI_LimitStrength = true, UCI_Elo = 750, EloTable = "{table}" }}
"""


def test_a_folder_of_levels_from_before_they_named_the_formulas_resumes(tmp_path):
    """Calibration levels now name the formulas (`EloTable` empty) rather than leaving the
    option at the engine's default; a folder written before, without the option, resumes and
    takes the new identity. A level naming a table file is another experiment all the same."""
    out, path = tmp_path / "out", tmp_path / "levels.toml"
    path.write_text(LEVELS.format(out=out, games=2, book=BOOK, table=""))
    first = load_experiment(path)
    older = first.earlier_identities()[1]
    assert "EloTable" not in older["engines"][0]["options"] and older != first.identity()
    assert run_experiment(first, stream=io.StringIO(), live=False).exit_code == 0
    with sqlite3.connect(out / DB_NAME) as conn:
        conn.execute("UPDATE experiment SET identity = ?",
                     (json.dumps(older, sort_keys=True, default=str),))
    conn.close()
    table = tmp_path / "t.csv"
    table.write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n600,400,60,650,18\n")
    path.write_text(LEVELS.format(out=out, games=2, book=BOOK, table=table))
    other = load_experiment(path)
    with open_store(out) as store, pytest.raises(StoreError, match="EloTable"):
        store.bind_experiment(other.name, other.identity(), other.config(),
                              earlier=other.earlier_identities())
    path.write_text(LEVELS.format(out=out, games=4, book=BOOK, table=""))
    stream = io.StringIO()
    assert run_experiment(load_experiment(path), stream=stream, live=False).exit_code == 0
    assert "resuming with 2 done" in stream.getvalue()
    with open_store(out) as store:
        assert store.game_count() == 4
        assert store.conn.execute("SELECT identity FROM experiment").fetchone()[0] == \
            json.dumps(first.identity(), sort_keys=True, default=str)


def test_a_moved_table_resumes_its_folder_and_a_changed_one_is_refused(tmp_path):
    """Our engine's `EloTable` file is its name and content in the identity, not its path: a
    calibration folder played with a table at one place resumes with the same table elsewhere
    (another checkout), plays no game again, and a folder whose identity an older version
    wrote (the path) resumes too; a table whose content changed is refused, naming it."""
    def write(where: Path) -> Path:
        path = where / "levels.toml"
        path.write_text(LEVELS.format(out=where / "out", games=2, book=BOOK,
                                      table=where / "t.csv")
                        .replace('tc = "1+0.01"', 'tc = "depth=1"')
                        .replace("concurrency = 2", "concurrency = 1"))
        return path

    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    (here / "t.csv").write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n"
                                "600,400,60,650,18\n800,800,40,500,12\n")
    first = load_experiment(write(here))
    assert first.identity()["engines"][0]["options"]["EloTable"]["file"] == "t.csv"
    assert run_experiment(first, stream=io.StringIO(), live=False).exit_code == 0
    with open_store(first.out) as store:
        played = store.games()
    assert len(played) == 2
    shutil.move(here, there)
    moved = load_experiment(write(there))
    assert moved.engines[0].options["EloTable"] == str(there / "t.csv")
    stream = io.StringIO()
    assert run_experiment(moved, stream=stream, live=False).exit_code == 0
    assert "all 2 already played: nothing to do" in stream.getvalue()
    with open_store(moved.out) as store:
        assert store.games().equals(played)  # no game played again
    # the folder as an older version left it: the identity names the table's path
    older = moved.earlier_identities()[2]
    assert older["engines"][0]["options"]["EloTable"] == str(there / "t.csv")
    with sqlite3.connect(moved.out / DB_NAME) as conn:
        conn.execute("UPDATE experiment SET identity = ?",
                     (json.dumps(older, sort_keys=True, default=str),))
    conn.close()
    stream = io.StringIO()
    assert run_experiment(moved, stream=stream, live=False).exit_code == 0
    assert "nothing to do" in stream.getvalue()
    with open_store(moved.out) as store:
        assert store.conn.execute("SELECT identity FROM experiment").fetchone()[0] == \
            json.dumps(moved.identity(), sort_keys=True, default=str)
    (there / "t.csv").write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n"
                                 "600,400,60,650,18\n800,900,40,500,12\n")
    with pytest.raises(StoreError, match=r"EloTable\.sha256"):
        run_experiment(load_experiment(write(there)), stream=io.StringIO(), live=False)
    with open_store(moved.out) as store:
        assert store.games().equals(played)
