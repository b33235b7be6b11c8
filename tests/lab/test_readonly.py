"""Analysis never needs write access: a results folder on a read-only disk is read, and an output
that cannot be written is a one-line error naming it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import chess
import pytest

from lab.cli import main
from lab.records import GameRecord
from lab.store import open_store


@pytest.fixture
def readonly_results(tmp_path):
    """A results folder with four games on a read-only tmpfs (needs root and mount)."""
    source = tmp_path / "source"
    with open_store(source) as store:
        for k, (white, black, result) in enumerate([("A", "B", "1-0"), ("B", "A", "1/2-1/2"),
                                                    ("A", "B", "0-1"), ("B", "A", "0-1")]):
            store.add_game(GameRecord(f"g{k}", white, black, result, "normal", "",
                                      chess.STARTING_FEN, pair_id=f"p{k // 2}"))
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8) to make a read-only disk")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        shutil.copytree(source, mount / "run")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount / "run"
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_reading_commands_work_on_a_read_only_disk(readonly_results, tmp_path, capsys) -> None:
    before = sorted(p.name for p in readonly_results.iterdir())
    assert main(["sprt", str(readonly_results)]) == 0
    assert "Ptnml(0-2): [0, 0, 1, 1, 0]" in capsys.readouterr().out  # A: WD, then WL
    assert main(["ratings", str(readonly_results)]) == 0
    assert "PLAYER" in capsys.readouterr().out
    assert main(["plot", "score", str(readonly_results), "--engine", "A",
                 "--out", str(tmp_path / "score.png")]) == 0
    assert (tmp_path / "score.png").stat().st_size > 0
    assert sorted(p.name for p in readonly_results.iterdir()) == before


def test_an_unwritable_output_is_named(readonly_results, capsys) -> None:
    assert main(["plot", "score", str(readonly_results), "--engine", "A"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {readonly_results / 'score_A.png'}" in err
    target = Path(readonly_results) / "ratings.csv"
    assert main(["ratings", str(readonly_results), "--csv", str(target)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {target}" in err
