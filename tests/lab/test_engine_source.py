"""`lab.engine_source`: the digest of our engine's sources in a checkout, and a Dask worker's
refusal (`lab.backends.worker.source_problem`) of a checkout whose sources are not the
coordinator's."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from lab.engine_source import SOURCE_FOLDERS, source_digest
from lab.experiment import LAB_ROOT, builtin_command, builtin_root
from lab.records import EngineSpec


def checkout_copy(tmp_path: Path) -> Path:
    """The engine's folders of this checkout, copied without compiled caches."""
    root = tmp_path / "checkout"
    for folder in SOURCE_FOLDERS:
        shutil.copytree(LAB_ROOT / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_digest_is_the_sources_and_nothing_else(tmp_path):
    root = checkout_copy(tmp_path)
    same = source_digest(root)
    assert same == source_digest(LAB_ROOT) and len(same) == 64
    (root / "engine" / "__pycache__").mkdir(exist_ok=True)
    (root / "engine" / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    assert source_digest(root) == same  # compiled caches do not count
    table = root / "engine" / "strength" / "elo_table.csv"
    table.write_text(table.read_text() + "\n")
    assert source_digest(root) != same  # a data file of the engine does
    table.write_text(table.read_text()[:-1])
    assert source_digest(root) == same
    (root / "timecontrol" / "extra.py").write_text("")
    assert source_digest(root) != same  # so does a new file
    shutil.rmtree(root / "timecontrol")
    with pytest.raises(FileNotFoundError, match="timecontrol is not a folder"):
        source_digest(root)


def test_a_worker_refuses_a_checkout_with_other_sources(tmp_path):
    from lab.backends.worker import source_problem

    root = checkout_copy(tmp_path)
    assert builtin_root(builtin_command(root)) == root
    assert builtin_root(["/usr/games/stockfish"]) is None
    coordinator = EngineSpec("tempo", builtin_command(root), source=source_digest(LAB_ROOT))
    assert source_problem(coordinator) is None  # the same sources at that path
    (root / "engine" / "evaluate.py").write_text("# another commit\n", encoding="utf-8")
    problem = source_problem(coordinator)
    assert problem is not None and problem.startswith(
        f"engine 'tempo': the checkout {root} holds other engine sources here than on the "
        f"coordinator (SHA-256 {source_digest(root)[:12]} against {source_digest(LAB_ROOT)[:12]})")
    shutil.rmtree(root / "engine")
    assert "cannot read its sources in" in source_problem(coordinator)
    assert source_problem(dataclasses.replace(coordinator, source="")) is None  # nothing to check
