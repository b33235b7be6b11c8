"""`tempo bench instructions`: the bench counted by callgrind, this checkout against revisions."""

from __future__ import annotations

import re
import shutil

import pytest

from lab.bench import instructions
from lab.bench.instructions import Count, format_counts, parse_instructions
from lab.cli import main

CALLGRIND_TAIL = """==4711== Events    : Ir
==4711== Collected : 20290840252
==4711==
==4711== I   refs:      20,290,840,252
"""


def test_the_total_is_read_from_callgrinds_summary() -> None:
    assert parse_instructions(CALLGRIND_TAIL) == 20290840252
    with pytest.raises(instructions.InstructionsError, match="no 'Collected' total"):
        parse_instructions("==1== I   refs: 5\n")


def test_rows_compare_with_the_first_and_say_which_checks_follow_the_clock() -> None:
    text = format_counts([Count("this checkout", 79732, 20_290_840_252, True),
                          Count("HEAD~3 (52ee9a7)", 79732, 21_254_482_110, False)])
    first, old = text.splitlines()[1:3]
    assert first.split()[-2:] == ["+0.00", "%"]
    assert "+4.75 %" in old and "checks follow the clock" in old
    assert "node counts differ" not in text
    differing = format_counts([Count("a", 100, 10, True), Count("b", 101, 10, True)])
    assert "node counts differ" in differing


def test_without_valgrind_it_says_so_and_fails(monkeypatch, capsys) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["bench", "instructions", "--depth", "1"]) == 1
    assert "valgrind not found" in capsys.readouterr().err


def test_a_revision_that_is_no_commit_is_named(capsys) -> None:
    assert main(["bench", "instructions", "--against", "no-such-revision"]) == 1
    assert "no-such-revision" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_two_runs_count_the_same_instructions(capsys) -> None:
    """The engine's bench checks at steady node counts, so the count repeats to within the few
    hundred instructions its printed times differ by (real callgrind, depth 2, twice)."""
    totals = []
    for _ in range(2):
        assert main(["bench", "instructions", "--depth", "2"]) == 0
        row = capsys.readouterr().out.splitlines()[-1]
        assert row.startswith("this checkout") and "follow the clock" not in row
        nodes, total = re.findall(r"\s(\d[\d,]*)", row)[:2]
        totals.append(int(total.replace(",", "")))
        assert int(nodes) > 1000
    assert abs(totals[0] - totals[1]) < 1e-5 * totals[0], totals
