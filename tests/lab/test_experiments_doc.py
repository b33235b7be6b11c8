"""docs/experiments.md against the experiment reader: every key the reader asks for is
documented, every documented key is asked for, and the page's complete example loads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import lab.experiment_file
from lab.backends.settings import TABLE_KEYS
from lab.experiment_file import load_experiment
from lab.toml_table import TomlTable

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "experiments.md"
BOOK = ROOT / "experiments" / "books" / "openings_8ply.epd"


def documented_keys() -> set[str]:
    """`table.key` (`key` at the top level) for each first cell of a key table on the page,
    and each table's name (a top-level key too) from its heading."""
    keys, section = set(), None
    for line in DOC.read_text().splitlines():
        heading = re.match(r"## (.*)", line)
        if heading:
            table = re.fullmatch(r"`\[\[?(\w+)\]\]?`", heading.group(1))
            section = table.group(1) if table else "" if heading.group(1) == "Top level" else None
            if table:
                keys.add(table.group(1))
        row = re.match(r"\| `(\w+)` \|", line)
        if row and section is not None:
            keys.add(f"{section}.{row.group(1)}" if section else row.group(1))
    return keys


def toml_blocks() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.S)


def section(where: str) -> str:
    """The TOML table a `TomlTable` reads: '' for the top level, `engines` for each entry."""
    if where == "top level":
        return ""
    return re.match(r"\[\[?(\w+)", where).group(1)


@pytest.fixture
def example(tmp_path, monkeypatch) -> Path:
    """The page's example and engines file in a folder with the book; no Syzygy tables exist
    here, so the tables' check is stood in for."""
    experiment, engines = toml_blocks()
    (tmp_path / "books").mkdir()
    shutil.copy(BOOK, tmp_path / "books" / BOOK.name)
    (tmp_path / "engines.toml").write_text(engines)
    path = tmp_path / "example.toml"
    path.write_text(experiment)
    monkeypatch.setattr(lab.experiment_file, "largest_tables", lambda folders: 5)
    return path


def test_every_key_the_reader_accepts_is_documented_and_no_other(example, monkeypatch) -> None:
    asked: set[str] = set()
    tables: set[str] = set()
    get, table = TomlTable.get, TomlTable.table

    def recording_get(self, key, kind, default=None):
        where = section(self.where)
        asked.add(f"{where}.{key}" if where else key)
        return get(self, key, kind, default)

    def recording_table(self, key, known=()):
        tables.add(key)
        return table(self, key, known)

    monkeypatch.setattr(TomlTable, "get", recording_get)
    monkeypatch.setattr(TomlTable, "table", recording_table)
    load_experiment(example)
    # [backend] goes to DaskSettings whole; it reads the keys it is given, all known up front.
    asked |= {f"backend.{key}" for key in TABLE_KEYS}
    tables.add("backend")
    accepted = asked | tables
    documented = documented_keys()
    assert accepted - documented == set(), "accepted but not in docs/experiments.md"
    assert documented - accepted == set(), "in docs/experiments.md but not accepted"


def test_the_page_s_example_loads_as_it_says(example) -> None:
    exp = load_experiment(example)
    assert [e.name for e in exp.engines] == ["smooth", "sf3", "phalanx"]
    sf3 = exp.engine("sf3")
    assert sf3.options == {"Skill Level": 3, "Threads": 1, "Hash": 16} and str(sf3.tc) == "5+0.05"
    assert exp.engine("phalanx").protocol == "xboard" and exp.engine("smooth").margin_ms == 100
    assert exp.out == Path("results/smooth-vs-field") and exp.wait_ms == 0
    assert exp.output.pgn_final_fen and exp.sprt is not None and exp.adjudication.max_moves == 200


def test_the_readme_points_to_the_page() -> None:
    assert "docs/experiments.md" in (ROOT / "README.md").read_text()
