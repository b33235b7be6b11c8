"""Every source the code cites resolves in a clone of this repository.

A path under `docs/` named in `lab`, `engine` or `timecontrol` exists; no module cites the
`reference/`, `seeds/` or `shared/` notes of a machine the clone does not have; and a module
that cites "reference §N" names in its own text which note under docs/reference/ it means
(docs/sources.md).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "engine", "timecontrol")
DOCS_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_]")
UNSHIPPED = re.compile(r"(?<![\w/])(?:shared/|seeds/|reference/)")
NOTE = re.compile(r"docs/reference/[a-z_]+\.md")


def sources(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def test_cited_docs_paths_exist() -> None:
    missing = [f"{path.relative_to(ROOT)}: {cited}" for path in sources(*PACKAGES)
               for cited in DOCS_PATH.findall(path.read_text(encoding="utf-8"))
               if not (ROOT / cited).exists()]
    assert missing == []


def test_no_citation_of_notes_outside_the_repository() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for path in sources(*PACKAGES)
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if UNSHIPPED.search(line)]
    assert found == []


def test_modules_citing_the_reference_name_the_note() -> None:
    vague = [str(path.relative_to(ROOT)) for path in sources(*PACKAGES)
             if "reference §" in (text := path.read_text(encoding="utf-8"))
             and not NOTE.search(text)]
    assert vague == []
