"""Calibration files, the tables they write, and a tiny real calibration end to end."""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from lab.calibration import CalibrationError, load_calibration, run_calibration
from lab.calibration.tables import read_elo_table, write_elo_table
from lab.ratings import fit_ratings
from lab.revisions import has_commit
from lab.store import open_store

STOCKFISH = "/usr/games/stockfish"
BOOK = Path(__file__).resolve().parents[3] / "experiments" / "books" / "openings_8ply.epd"
needs_stockfish = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK),
                                     reason="Stockfish is not installed at /usr/games/stockfish")

TINY = f"""
name = "tiny"
tc = "nodes=1500"
concurrency = 2

[levels]
values = [1400, 1800]
targets = {{ start = 1000, stop = 2600, step = 20 }}
games = 6
ladder_games = 6
rounds = 1
passes = 1

[engine]
cmd = ["{STOCKFISH}"]
options = {{ Threads = 1, Hash = 16 }}

[[anchors]]
name = "sk0"
cmd = ["{STOCKFISH}"]
options = {{ "Skill Level" = 0, Threads = 1, Hash = 16 }}
rating = 1320

[[anchors]]
name = "sk3"
cmd = ["{STOCKFISH}"]
options = {{ "Skill Level" = 3, Threads = 1, Hash = 16 }}
rating = 1742

[openings]
file = "{BOOK}"

[adjudication]
max_moves = 100
"""


def write(tmp_path: Path, text: str, name: str = "cal.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_calibration_file_is_read_and_checked(tmp_path):
    cal = load_calibration(write(tmp_path, TINY), out=str(tmp_path / "out"))
    assert cal.levels == [1400, 1800] and cal.targets[:3] == [1000, 1020, 1040]
    assert cal.ratings == {"sk0": 1320, "sk3": 1742}
    assert not cal.uses_table and cal.level_option == "UCI_Elo"
    assert cal.level_options(1400) == {"Threads": 1, "Hash": 16, "UCI_LimitStrength": True,
                                       "UCI_Elo": 1400}
    exp = cal.experiment("s", [("L1400", cal.engine), ("sk0", cal.anchors[0].table)],
                         ["L1400"], 4, tmp_path / "s", 5)
    assert exp.openings.paired and exp.openings.order == "random" and exp.games == 4
    assert cal.anchor_games == 0 and not cal.robust_levels  # both stages are optional
    assert cal.head_to_head == "anchors"  # E at the anchors' scale unless the file asks
    fitted = TINY.replace("[levels]", '[criteria]\nhead_to_head = "fitted"\n[levels]')
    assert load_calibration(write(tmp_path, fitted, "fitted.toml")).head_to_head == "fitted"
    text = TINY.replace("[levels]", "[anchor_round_robin]\ngames = 4\n\n[robustness]\n"
                        "levels = [1800]\ntcs = ['1+0.01', '4+0.04']\ngames = 6\n\n[levels]")
    cal = load_calibration(write(tmp_path, text, "rr.toml"))
    assert (cal.anchor_games, cal.anchor_pin) == (4, "sk0")  # the first anchor by default
    assert (cal.robust_levels, cal.robust_tcs, cal.robust_games) == ([1800],
                                                                     ["1+0.01", "4+0.04"], 6)
    anchors = [(a.name, a.table) for a in cal.anchors]
    exp = cal.experiment("rr", anchors, [], 4, tmp_path / "rr", 0, tc="1+0.01")
    assert exp.schedule == "round-robin" and exp.rounds == 2 and exp.tc.base_ms == 1000
    assert cal.with_ratings({"sk3": 1700.0}).ratings == {"sk0": 1320, "sk3": 1700.0}


@pytest.mark.parametrize("change, message", [
    (("concurrency = 2", "concurrency = 2\nspeed = 3"), "unknown key.*speed"),
    (("values = [1400, 1800]", "values = [1800, 1400]"), r"\[levels\]: levels must be"),
    (("games = 6", "games = 5"), r"'games' must be positive and even"),
    (('name = "sk0"', 'name = "L1400"'), "taken by a level"),
    (("passes = 1", "passes = 3"), "'passes' must be 1 or 2"),
    (("passes = 1", "passes = 1\ntopup_games = 3"), r"\[levels\]: 'topup_games' must be 0 or "
     "positive and even"),
    (('tc = "nodes=1500"', 'tc = "fast"'), "bad time control"),
    (("rating = 1320", 'rating = "high"'), "'rating' must be"),
    (("[levels]", "[criteria]\nbias = 10\nslop = 1\n[levels]"), "unknown key.*slop"),
    (("passes = 1", "passes = 1\npin_top = true"), r"\[levels\]: 'pin_top'.*our engine only"),
    (("[levels]", '[criteria]\nhead_to_head = "self"\n[levels]'),
     r"\[criteria\]: 'head_to_head' must be one of anchors, fitted, floor, got 'self'"),
    (("[engine]", '[engine]\ntable = "t.csv"'), "applies to our engine only"),
    (("[levels]", "[anchor_round_robin]\ngames = 3\n[levels]"), "'games' must be even"),
    (("[levels]", '[anchor_round_robin]\ngames = 2\npin = "sf"\n[levels]'),
     "pin 'sf' is not an anchor"),
    (("[levels]", "[robustness]\nlevels = [1500]\ntcs = ['1+0']\ngames = 2\n[levels]"),
     "'levels' must name some"),
    (("[levels]", "[robustness]\nlevels = [1400]\ngames = 2\n[levels]"), "give 'tcs', 'seeds' or"),
    (("[levels]", "[robustness]\nlevels = [1400]\nloads = [0]\ngames = 2\n[levels]"),
     r"'loads' must be numbers of busy processes >= 1, got \[0\]"),
    (("[levels]", "[robustness]\nlevels = [1400]\nseeds = [1]\ngames = 2\n[levels]"),
     "our engine only"),
    (("[levels]", "[robustness]\nlevels = [1400]\ntcs = ['1+0']\n[levels]"),
     "'games' must be positive"),
    (("[levels]", "[spread]\ngap = 300\ngames = 2\n[levels]"),
     r"\[spread\]: no two of \[levels\]' values \[1400, 1800\] are 300 apart"),
    (("[levels]", "[spread]\ngap = 400\ngames = 3\n[levels]"), r"\[spread\]: 'games' must be even"),
    (("[levels]", "[spread]\ngap = 0\ngames = 2\n[levels]"), "'gap' must be a positive"),
    (("[levels]", "[spread]\ngap = 400\ngames = 2\nmin_score = 0.4\n[levels]"),
     r"'min_score' must lie in \(0.5, 1\]"),
    (("[levels]", "[top]\ngames = 2\nwindow = [0.6, 0.4]\n[levels]"), r"\[top\]: 'window' must"),
    (("[levels]", "[top]\ngames = 2\nspan = 1\n[levels]"), r"\[top\].*unknown key.*span"),
    (("[levels]", '[anchor_round_robin]\ngames = 2\nadded = ["sk9"]\n[levels]'),
     r"\[anchor_round_robin\]: added 'sk9' not an anchor \(anchors: sk0, sk3\)"),
    (("[levels]", '[anchor_round_robin]\ngames = 2\nadded = ["sk3"]\n[levels]'),
     "'added' leaves fewer than two anchors for the round robin"),
    (("[levels]", '[anchor_round_robin]\ngames = 2\nadded = ["sk3", "sk3"]\n[levels]'),
     "'added' names an anchor twice"),
    (("[levels]", "[anchor_round_robin]\ngames = 2\nadded = [3]\n[levels]"),
     "'added' must be a list of anchor names"),
    (("[levels]", "[anchor_round_robin]\ngames = 2\nwindow = -100\n[levels]"),
     r"\[anchor_round_robin\]: 'window' must be >= 0 Elo \(0: no window\), got -100"),
    (("[levels]", "[full_strength]\ngames = 3\n[levels]"),
     r"\[full_strength\]: 'games' must be even"),
    (("[levels]", "[full_strength]\ngames = 2\nanchors = 1\n[levels]"),
     r"\[full_strength\].*unknown key.*anchors"),
])
def test_bad_calibration_files_name_the_file_and_key(tmp_path, change, message):
    path = write(tmp_path, TINY.replace(*change))
    with pytest.raises(CalibrationError, match=message) as info:
        load_calibration(path)
    assert str(path) in str(info.value)


def test_spread_and_top_are_read_and_optional(tmp_path):
    from lab.calibration.separation import spread_pairs

    cal = load_calibration(write(tmp_path, TINY))
    assert (cal.spread_games, cal.top_games) == (0, 0)  # both stages are optional
    text = TINY.replace("[levels]", "[spread]\ngap = 400\ngames = 4\n\n[top]\ngames = 2\n"
                        "window = [0.35, 0.65]\n\n[levels]")
    cal = load_calibration(write(tmp_path, text, "s.toml"))
    assert (cal.spread_gap, cal.spread_games, cal.spread_min_score) == (400, 4, 0.85)
    assert (cal.top_games, cal.top_window) == (2, (0.35, 0.65))
    assert spread_pairs([700, 900, 1100, 1300, 1500, 1700], 400) == [
        (700, 1100), (900, 1300), (1100, 1500), (1300, 1700)]
    assert spread_pairs([1000, 1300], 400) == []


def test_full_strength_plays_the_anchors_around_the_declared_top():
    from lab.calibration.full_strength import full_strength_anchors

    anchors = {"a1200": 1200.0, "a1550": 1550.0, "a1600": 1600.0, "a1800": 1800.0,
               "a1900": 1900.0}
    # expected 25-75 % lies within 191 Elo: nearest first, at most `most`
    assert full_strength_anchors(1700, anchors, (0.25, 0.75), 3) == ["a1600", "a1800", "a1550"]
    assert full_strength_anchors(1700, anchors, (0.25, 0.75), 2) == ["a1600", "a1800"]
    # nothing in the window (a top far above every anchor): the nearest ones all the same
    assert full_strength_anchors(2600, anchors, (0.25, 0.75), 2) == ["a1900", "a1800"]


def test_a_full_strength_estimate_keeps_its_anchors_when_the_declared_top_moves(tmp_path):
    """`[full_strength] estimate` picks the anchors instead of the declared top, so the stage's
    folder (whose opponents fix it) still resumes after the top is set to the measurement: at
    the declared top full strength plays sk3 (1742) alone, at 1320 sk0 first."""
    from lab.calibration.config import TEMPO_ELO_RANGE
    from lab.calibration.full_strength import full_strength_anchors

    def anchors(cal):
        return full_strength_anchors(cal.full_strength_estimate, cal.ratings, cal.score_window,
                                     cal.max_anchors)

    cal = load_calibration(write(tmp_path, TINY_TEMPO))
    assert cal.full_strength_estimate == TEMPO_ELO_RANGE[1] and anchors(cal) == ["sk3"]
    pinned = load_calibration(write(tmp_path, TINY_TEMPO.replace(
        "[full_strength]\n", "[full_strength]\nestimate = 1320\n"), "pinned.toml"))
    assert pinned.full_strength_estimate == 1320 and anchors(pinned)[0] == "sk0"
    assert load_calibration(write(tmp_path, TINY.replace("[levels]", "[full_strength]\n[levels]"),
                                  "other.toml")).full_strength_estimate == 1800  # highest level
    with pytest.raises(CalibrationError, match=r"\[full_strength\]: 'estimate' must be a "
                       r"positive Elo, got -5"):
        load_calibration(write(tmp_path, TINY_TEMPO.replace(
            "[full_strength]\n", "[full_strength]\nestimate = -5\n"), "bad.toml"))


def test_criterion_u_compares_the_declared_top_with_full_strengths_rating():
    from lab.calibration.criteria import Measurement, range_top_line

    measured = Measurement(1650.0, 49.0)  # SE 25.0
    name, ok, detail = range_top_line(1700.0, measured, "", 150)
    assert name == "U range top is full strength" and ok
    assert detail == ("full strength measures 1650 ± 49 in 150 anchor games; the declared top "
                      "1700 is 2.0 SE from it (accept <= 2)")
    ok, detail = range_top_line(1770.0, measured, "", 150)[1:]
    assert not ok and "the declared top 1770 is 4.8 SE from it" in detail
    assert range_top_line(1770.0, measured, "", 150, k=5.0)[1]
    ok, detail = range_top_line(1770.0, Measurement(float("nan"), float("nan")), ">1890", 40)[1:]
    assert not ok and "scored all of its 40 anchor games (rating >1890): add an anchor above" \
        in detail
    ok, detail = range_top_line(1770.0, measured, "", 0)[1:]
    assert not ok and detail == "full strength played no anchor game"


def test_the_report_names_only_the_stages_the_file_asks_for(tmp_path):
    from lab.calibration.report import report_text
    from lab.calibration.run import CalibrationOutcome

    def criteria(text: str) -> str:
        cal = load_calibration(write(tmp_path, text))
        report = report_text(cal, CalibrationOutcome(anchors=[]))
        return next(line for line in report.splitlines() if line.startswith("- Criteria"))

    plain = criteria(TINY)
    assert "transitivity (E) and robustness (F);" in plain
    assert "apart (S)" not in plain and "(T)" not in plain
    both = criteria(TINY.replace("[levels]", "[spread]\ngap = 400\ngames = 4\n\n[top]\n"
                                 "games = 2\n\n[levels]"))
    assert ("transitivity (E), robustness (F), levels 400 apart (S) and full strength against "
            "the top level (T);") in both


@needs_stockfish
def test_spread_and_top_stages_play_real_games_and_resume(tmp_path):
    from lab.calibration.criteria import Verdict
    from lab.calibration.outcome import RoundResult
    from lab.calibration.separation import spread, top
    from lab.calibration.speeds import speed_text

    text = TINY.replace("[levels]", "[spread]\ngap = 400\ngames = 2\n\n[top]\ngames = 2\n\n"
                        "[levels]").replace('tc = "nodes=1500"', 'tc = "nodes=400"')
    cal = load_calibration(write(tmp_path, text))
    result = RoundResult(1, tmp_path / "round1", [1400, 1800], {}, None, pd.DataFrame(), None,
                         Verdict([]))
    tables = {lv: dict(cal.engine, options=cal.level_options(lv)) for lv in result.levels}
    out = io.StringIO()
    name, ok, detail = spread(cal, result, tables, out)
    assert name == "S 400-Elo pairs" and "L1800-L1400" in detail
    assert re.search(r"L1800-L1400:? \d+\.\d % in 2", detail)
    score = float(re.search(r"(\d+\.\d) % in 2", detail).group(1))
    assert ok == (score >= 85.0)
    name, ok, detail = top(cal, result, tables, out)
    assert name == "T full strength vs top" and "in 2 games against L1800" in detail
    assert "searched" not in detail  # no speed it was rated at to compare with
    with open_store(result.folder / "top") as store:
        games = store.games()
        moves = store.moves(columns=["engine", "nps"]).dropna()
    assert len(games) == 2 and set(games["white"]) == {"full", "L1800"}
    here = float(moves.loc[moves["engine"] == "full", "nps"].median())
    assert top(cal, result, tables, io.StringIO(), 32_200.0)[2] == (
        f"{detail}; full strength searched {speed_text(here)} nodes/s here, 32.2k when rated "
        "against the anchors")
    with open_store(result.folder / "spread" / "L1800-L1400") as store:
        assert store.game_count() == 2
    assert top(cal, result, tables, io.StringIO()) == (name, ok, detail)  # resumed, not replayed
    with open_store(result.folder / "top") as store:
        assert store.game_count() == 2


def test_robustness_variants_play_real_games_under_a_busy_load(tmp_path, monkeypatch):
    from lab.busy_load import busy_load
    from lab.calibration import checks
    from lab.calibration.criteria import Verdict
    from lab.calibration.outcome import RoundResult

    text = TINY.replace("[levels]", "[robustness]\nlevels = [1400]\nseeds = []\n"
                        "loads = [1]\ngames = 2\n\n[levels]").replace('tc = "nodes=1500"',
                                                                     'tc = "nodes=400"')
    cal = load_calibration(write(tmp_path, text))
    assert [v.name for v in checks.variants(cal)] == ["load-1"]
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        pytest.skip("the load falls on the level's CPU alone: it needs two")
    spinning = []

    @contextlib.contextmanager
    def watched(count, cpus):
        with busy_load(count, cpus) as spinners:
            spinning.append([(s.poll() is None, os.sched_getaffinity(s.pid)) for s in spinners])
            yield spinners
        spinning.append([s.poll() is None for s in spinners])

    monkeypatch.setattr(checks, "busy_load", watched)
    measured = pd.DataFrame({"nominal": [1400], "measured": [1500.0], "halfwidth": [150.0]})
    result = RoundResult(1, tmp_path / "round1", [1400], {}, None, measured, None, Verdict([]))
    tables = {1400: dict(cal.engine, options=cal.level_options(1400))}
    name, _, detail = checks.robustness(cal, result, tables, io.StringIO())
    # One busy process, on the level's CPU, while the stage played; none after.
    assert spinning == [[(True, {usable[0]})], [False]]
    assert name == "F robustness" and "load-1 at 1400: " in detail
    with open_store(result.folder / "robustness" / "load-1" / "L1400") as store:
        assert store.game_count() == 2
        config = store.experiment()
    cpus = {engine["name"]: engine["cpus"] for engine in config["engines"]}
    assert cpus.pop("L1400") == usable[:1] and cpus  # the level on the first CPU,
    assert all(engine_cpus == usable[1:] for engine_cpus in cpus.values())  # anchors the rest
    assert config["concurrency"] == 1  # one game at a time: the load falls on one level


def test_a_load_variant_on_one_cpu_is_refused(monkeypatch):
    from lab.calibration import checks

    monkeypatch.setattr(checks.os, "sched_getaffinity", lambda pid: {3})
    with pytest.raises(CalibrationError, match=r"the robustness 'loads' need two CPUs .* "
                                                r"this process may run on CPU \[3\] only"):
        checks.load_cpus()


SUNFISH = Path(__file__).resolve().parents[3] / ".venv-sunfish" / "bin" / "sunfish-uci"

#: TINY with our engine calibrated (levels inside its declared range) and full strength rated.
TINY_TEMPO = TINY.replace(
    f'cmd = ["{STOCKFISH}"]\noptions = {{ Threads = 1, Hash = 16 }}', 'builtin = "tempo"', 1
).replace("values = [1400, 1800]", "values = [1000, 1400]").replace(
    "start = 1000, stop = 2600", "start = 1000, stop = 1400").replace(
    'tc = "nodes=1500"', 'tc = "nodes=300"').replace("[levels]",
                                                      "[full_strength]\ngames = 2\n\n[levels]")


@needs_stockfish
def test_full_strength_is_rated_against_anchors_and_resumes(tmp_path):
    """Our engine without its limit plays the anchors near its declared top (of the tiny file's
    two, sk3 at 1742: sk0 at 1320 lies outside the 25-75 % window of 1770), 2 games each, one
    fit with the anchors fixed; criterion U judges the declared top against it; run again, the
    stage resumes and replays nothing."""
    from lab.calibration.config import TEMPO_ELO_RANGE
    from lab.calibration.full_strength import (
        FOLDER,
        full_strength_line,
        full_strength_lines,
        rate_full_strength,
    )

    cal = load_calibration(write(tmp_path, TINY_TEMPO), out=str(tmp_path / "out"))
    assert cal.full_games == 2 and cal.declared_top == TEMPO_ELO_RANGE[1]
    full = rate_full_strength(cal, io.StringIO())
    assert full.declared == TEMPO_ELO_RANGE[1] and full.anchors == ("sk3",) and full.games == 2
    with open_store(tmp_path / "out" / FOLDER) as store:
        games = store.games()
        moves = store.moves(columns=["engine", "nps"])
    assert len(games) == 2 and set(games["white"]) == {"full", "sk3"}
    assert math.isfinite(full.measured) != bool(full.bound)  # a rating, or a perfect score's bound
    ours = moves.loc[moves["engine"] == "full", "nps"].dropna()
    assert len(ours) > 10 and full.nps == float(ours.median())
    assert 0 < full.nps < moves.loc[moves["engine"] == "sk3", "nps"].median()  # ours, not sk3's
    name, ok, detail = full_strength_line(cal, full)
    assert name == "U range top is full strength"
    assert ok == (not full.bound and abs(full.measured - full.declared)
                  <= 2 * full.halfwidth / 1.959964)
    lines = full_strength_lines(cal, full)
    assert lines[0] == "## Full strength" and f"declares {TEMPO_ELO_RANGE[1]}" in "\n".join(lines)
    assert f"median {full.nps / 1000:.1f}k nodes/s" in "\n".join(lines)
    assert any(line.startswith(("- PASS U", "- FAIL U")) for line in lines)
    assert rate_full_strength(cal, io.StringIO()) == full  # resumed: nothing replayed
    with open_store(tmp_path / "out" / FOLDER) as store:
        assert store.game_count() == 2
    other = load_calibration(write(tmp_path, TINY.replace(
        "[levels]", "[full_strength]\ngames = 2\n\n[levels]"), "other.toml"))
    assert math.isnan(other.declared_top)  # another engine declares no top: no criterion U
    assert load_calibration(write(tmp_path, TINY, "plain.toml")).full_games == 0


@pytest.mark.skipif(not SUNFISH.is_file(), reason="Sunfish is not installed (scripts/setup.sh)")
@needs_stockfish
def test_the_final_calibrations_sunfish_anchor_plays_real_games(tmp_path):
    """The anchor as calibrate_final.toml names it (a path from the experiments folder into the
    environment scripts/setup.sh makes) starts, and plays whole games through the harness."""
    from lab.calibration.measure import play_stage

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml", out=str(tmp_path))
    sunfish = next(a for a in cal.anchors if a.name == "sunfish")
    skill0 = next(a for a in cal.anchors if a.name == "sf-skill0-depth1")
    folder = play_stage(cal, "sunfish", [("sunfish", sunfish.table), (skill0.name, skill0.table)],
                        ["sunfish"], 2, tmp_path / "sunfish", io.StringIO(), "nodes=300")
    with open_store(folder) as store:
        games = store.games()
    assert len(games) == 2 and set(games["white"]) == {"sunfish", "sf-skill0-depth1"}
    assert set(games["result"]) <= {"1-0", "0-1", "1/2-1/2"}
    assert "forfeit" not in " ".join(games["termination"].astype(str))


def test_our_engine_levels_must_lie_in_its_elo_range(tmp_path):
    text = TINY.replace(f'cmd = ["{STOCKFISH}"]\noptions = {{ Threads = 1, Hash = 16 }}',
                        'builtin = "tempo"', 1).replace("start = 1000, stop = 2600",
                                                        "start = 400, stop = 2600")
    with pytest.raises(CalibrationError, match="600..1740"):
        load_calibration(write(tmp_path, text))


def test_the_lab_knows_the_range_the_engine_declares():
    from engine.strength import FULL_STRENGTH_ELO, LADDER_MIN_ELO
    from lab.calibration.config import TEMPO_ELO_RANGE

    assert TEMPO_ELO_RANGE == (LADDER_MIN_ELO, FULL_STRENGTH_ELO)
    from engine.strength.throttle import MADCHESS_TOP_NPS
    from lab.calibration.tables import FULL_STRENGTH_NPS

    assert FULL_STRENGTH_NPS == MADCHESS_TOP_NPS  # the row the correction ends at


def test_elo_table_is_written_in_the_engines_format(tmp_path):
    rows = {1000: {"NPS": 3000.4, "MoveError": 35.2, "BlunderError": 380, "BlunderPer128": 14,
                   "mobility": 0.333333},
            1500: {"NPS": 60000, "MoveError": 19.6, "BlunderError": 200.5, "BlunderPer128": 11,
                   "mobility": 1.2}}
    path = write_elo_table(tmp_path / "t.csv", rows, ["scale: test"])
    lines = path.read_text().splitlines()
    assert lines[0] == "# scale: test"
    assert lines[1] == "Elo,NPS,MoveError,BlunderError,BlunderPer128,mobility"
    assert lines[2:] == ["1000,3000,35,380,14,0.3333", "1500,60000,20,200,11,1.0000"]
    assert list(read_elo_table(path).index) == [1000, 1500]
    with pytest.raises(ValueError, match="outside 600..2600"):
        write_elo_table(tmp_path / "u.csv", {500: rows[1000]})


@pytest.mark.slow
@needs_stockfish
def test_tiny_calibration_end_to_end_and_resume(tmp_path):
    # sk4 above L1800: placed by anchor games alone, a level needs an anchor it can lose to
    # (against sk3 alone UCI_Elo 1800 won all 6 games about one run in five: a bound, no table)
    sk4 = (f'[[anchors]]\nname = "sk4"\ncmd = ["{STOCKFISH}"]\n'
           'options = { "Skill Level" = 4, Threads = 1, Hash = 16 }\nrating = 1923\n\n')
    text = TINY.replace("[levels]", "[spread]\ngap = 400\ngames = 2\n\n[top]\ngames = 2\n\n"
                        "[full_strength]\ngames = 2\n\n[levels]").replace("[openings]",
                                                                          sk4 + "[openings]")
    cal = load_calibration(write(tmp_path, text), out=str(tmp_path / "out"))
    out = io.StringIO()
    outcome = run_calibration(cal, stream=out, command="tempo calibrate cal.toml")
    folder = tmp_path / "out"
    assert [p.name for p in outcome.files] == ["level_map.csv", "calibration.png", "report.md",
                                               "levels.csv", "anchors.csv", "report.html"]
    assert (folder / "calibration.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    levels = pd.read_csv(folder / "levels.csv")
    assert list(levels["nominal"]) == [1400, 1800]
    # every level: placed by its 6 anchor games alone, anchors fixed (the ladder's judge E)
    assert list(levels["games"]) == [6, 6]
    report = (folder / "report.md").read_text()
    for line in ("A per-level accuracy", "B bias", "B RMS error", "C slope",
                 "D monotone, gaps", "R replicated", "E transitivity", "F robustness",
                 "S 400-Elo pairs", "T full strength vs top", "overall"):
        assert line in report
    assert "tempo calibrate cal.toml" in report
    assert "## Full strength" in report  # Stockfish declares no top: no criterion U
    assert "U range top" not in report
    page = (folder / "report.html").read_text()
    for line in ("A per-level accuracy", "B bias", "C slope", "sk0", "1742", "<svg",
                 "full strength"):
        assert line in page
    stage_links = re.findall(r"href='(round1/[^']+/report.html)'", page)
    assert len(stage_links) == 5 and all((folder / link).is_file() for link in stage_links)
    table = pd.read_csv(folder / "level_map.csv", comment="#")
    assert list(table.columns) == ["Elo", "UCI_Elo"] and len(table) >= 1
    # the map is monotone and lies inside the measured range (nothing extrapolated)
    assert table["UCI_Elo"].is_monotonic_increasing
    measured = levels["measured"].fillna(levels["bound_rating"])
    assert table["Elo"].min() >= measured.min() - 1 and table["Elo"].max() <= measured.max() + 1
    stages = sorted(p.parent for p in folder.rglob("tempo.sqlite"))
    # two levels against their anchors, one ladder pair, the 400-Elo pair, full strength vs top,
    # full strength against the anchors
    assert len(stages) == 6
    counts = {}
    for stage in stages:
        with open_store(stage) as store:
            counts[stage] = store.game_count()

    again = run_calibration(cal, stream=io.StringIO())
    assert not again.rounds[0].measured.empty
    for stage in stages:
        with open_store(stage) as store:
            assert store.game_count() == counts[stage]  # resumed: nothing replayed
    pd.testing.assert_frame_equal(pd.read_csv(folder / "levels.csv"), levels)


EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


@pytest.mark.parametrize("path", sorted(EXPERIMENTS.glob("*.toml")), ids=lambda p: p.name)
def test_the_experiment_library_loads_and_is_documented(path):
    import tomllib

    from lab.experiment_file import load_experiment

    data = tomllib.loads(path.read_text())
    missing = [engine["revision"] for engine in data.get("engines", [])
               if "revision" in engine and not has_commit(engine["revision"])]
    if missing:
        pytest.skip(f"{path.name}: {', '.join(missing)} not in this clone (shallow)")
    if "levels" in data:
        cal = load_calibration(path)
        assert cal.anchors and len(cal.levels) >= 2
    else:
        assert load_experiment(path).engines
    head = path.read_text().split("\nname = ")[0]
    assert head.startswith("#") and "tempo " in head  # what to run, at the top
    if path.name != "demo.toml":
        assert "How long" in head and "Afterwards" in head and "Question" in head


def test_tempo_calibrate_reports_a_bad_file_and_exits_2(tmp_path, capsys):
    from lab.cli import main

    path = write(tmp_path, TINY.replace("games = 6", "games = 0"))
    assert main(["calibrate", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "'games' must be positive" in err
    assert main(["calibrate", str(tmp_path / "missing.toml")]) == 2
    assert "calibration file not found" in capsys.readouterr().err


def test_calibration_figure_shows_rounds_intervals_bounds_and_the_diagonal(tmp_path):
    import numpy as np

    from lab.calibration.plot import calibration_figure, plot_calibration

    before = pd.DataFrame({"nominal": [800, 1200, 1600], "measured": [np.nan, 1300, 1500],
                           "halfwidth": [np.nan, 100, 80], "bound": ["<900", "", ""],
                           "bound_rating": [900, np.nan, np.nan],
                           "extrapolated": ["", "", ""]})
    after = before.assign(measured=[np.nan, 1250, 1580], bound="", bound_rating=np.nan)
    anchors = [("sf1350", 1320.0), ("sf1600", 1610.0)]
    fig = calibration_figure([("round 1", before), ("round 2", after)], anchors)
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels[:2] == ["y = x", "anchors ± 200 (measured range)"]
    assert "round 1: bound (at most)" in labels and "round 2" in labels
    diagonal = ax.get_lines()[0]
    assert list(diagonal.get_xdata()) == list(diagonal.get_ydata())
    assert ax.get_xlim() == ax.get_ylim()
    path = plot_calibration([("round 1", before)], anchors, tmp_path / "c.svg")
    assert path.read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="no measured rounds"):
        calibration_figure([], anchors)


@needs_stockfish
def test_a_level_wider_than_criterion_a_allows_plays_its_top_up_once(tmp_path):
    """The trigger is the passes' half-width: with A's limit at 10000 nobody is topped up. With
    the limit at 1 (6 games give hundreds of Elo) a round the next one already follows stays as
    judged; one not followed plays every tied level 4 more games (pass3/) and is placed on all
    10, and a top-up begun is resumed, not replayed, once the next round exists."""
    from lab.calibration.measure import measure_round, wide_levels

    def measure(limit: float):
        text = TINY.replace("ladder_games = 6", "ladder_games = 0").replace(
            "passes = 1", "passes = 1\ntopup_games = 4").replace(
            "[levels]", f"[criteria]\nlevel_halfwidth = {limit}\n\n[levels]")
        cal = load_calibration(write(tmp_path, text), out=str(tmp_path / "out"))
        tables = {level: dict(cal.engine, options=cal.level_options(level, value=level,
                                                                     table=None))
                  for level in cal.levels}
        return cal, measure_round(cal, 1, cal.levels, tables, io.StringIO())

    cal, before = measure(10000)
    assert wide_levels(cal, cal.levels, before.placed) == []
    assert not (tmp_path / "out" / "round1" / "pass3").exists()

    next_round = tmp_path / "out" / "round2"
    next_round.mkdir()
    cal, closed = measure(1)
    assert closed.folders == before.folders
    assert not (tmp_path / "out" / "round1" / "pass3").exists()
    pd.testing.assert_frame_equal(closed.placed.frame, before.placed.frame)

    next_round.rmdir()
    cal, fits = measure(1)
    wide = wide_levels(cal, cal.levels, before.placed)
    # every level but one that won or lost all 6 (a bound, which more games would not tie)
    assert wide and set(wide) == {lv for lv in cal.levels
                                  if not before.placed.frame.set_index("player").loc[
                                      cal.level_name(lv), "bound"]}
    topped = [f for f in fits.folders if f.parent.name == "pass3"]
    assert [f.name for f in topped] == [cal.level_name(level) for level in wide]
    played = fits.placed.frame.set_index("player")["played"]
    assert all(played[f.name] == 10 for f in topped)

    next_round.mkdir()
    again = measure(1)[1]
    assert [f for f in again.folders if f.parent.name == "pass3"] == topped
    for stage in topped:
        with open_store(stage) as store:
            assert store.game_count() == 4


def test_a_correction_the_next_round_plays_is_never_rewritten(tmp_path):
    """A round's corrected table names the next round's folder by its bytes: once that folder
    exists the run keeps the file as played, even when a rewrite would differ only in a comment
    (final-v6: U's 600 games changed the comment naming full strength's rating, and round 2
    began again in a new folder)."""
    from lab.calibration.measure import stage_root
    from lab.calibration.run import played_with
    from lab.calibration.tables import write_level_map

    cal = load_calibration(write(tmp_path, TINY), out=str(tmp_path / "out"))
    table = write_level_map(tmp_path / "out" / "round1" / "corrected_level_map.csv", "UCI_Elo",
                            {1400: 1350.0, 1800: 1610.0})
    assert not played_with(cal, 2, table)  # round 2 not begun: the run writes it afresh
    stage_root(cal, 2, table).mkdir(parents=True)
    assert played_with(cal, 2, table)
    table.write_text("# full strength 1740 +- 29\n" + table.read_text())
    assert not played_with(cal, 2, table)  # other bytes: not the table round 2 played
    assert not played_with(cal, 2, tmp_path / "out" / "round1" / "missing.csv")


def test_a_later_round_measures_the_levels_its_correction_covers(tmp_path):
    from lab.calibration.run import _round_setup
    from lab.calibration.tables import write_level_map

    cal = load_calibration(write(tmp_path, TINY.replace("values = [1400, 1800]",
                                                        "values = [1400, 1600, 1800]")),
                           out=str(tmp_path / "out"))

    class Previous:
        corrected = write_level_map(tmp_path / "map.csv", "UCI_Elo",
                                    {1300: 1350.0, 1500: 1480.0, 1700: 1610.0, 1900: 1790.0})

    levels, params, table = _round_setup(cal, 2, Previous())
    assert levels == [1400, 1600, 1800] and table == Previous.corrected
    assert params[1400]["UCI_Elo"] == pytest.approx(1415.0)  # halfway between the 1300/1500 rows
    Previous.corrected = write_level_map(tmp_path / "narrow.csv", "UCI_Elo",
                                         {700: 1350.0, 800: 1360.0, 900: 1375.0, 1000: 1400.0})
    levels, params, _ = _round_setup(cal, 2, Previous())
    assert levels == [700, 900, 1000]  # the table covers no level: three of its rows, spread
    assert params[900]["UCI_Elo"] == 1375.0


def test_rows_outside_the_anchor_range_are_marked_extrapolated(tmp_path):
    from lab.calibration.correct import Correction
    from lab.calibration.outcome import extrapolated_targets
    from lab.calibration.tables import write_round_table

    cal = load_calibration(write(tmp_path, TINY), out=str(tmp_path / "out"))  # 1320..1742
    correction = Correction(rows={e: {"UCI_Elo": float(e)} for e in (1000, 1120, 1500, 1942,
                                                                     2000)})
    assert extrapolated_targets(cal, correction) == [1000, 2000]
    path = write_round_table(cal, 1, correction.rows, tmp_path / "map.csv", "test",
                             ["EXTRAPOLATED rows 1000, 2000"])
    text = path.read_text()
    assert "# EXTRAPOLATED rows 1000, 2000" in text and "1500,1500" in text


def test_a_silent_engine_cannot_hang_the_probe(tmp_path):
    import sys

    from lab.calibration.probe import ProbeError, converse
    from lab.records import EngineSpec

    silent = EngineSpec("silent", [sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(ProbeError, match="no 'bestmove' within 1 s"):
        converse(silent, ["uci"], timeout=1.0)
    gone = EngineSpec("gone", [sys.executable, "-c", "print('id name x')"])
    with pytest.raises(ProbeError, match="exited before 'bestmove'"):
        converse(gone, ["uci"], timeout=10.0)


def test_calibration_page_shows_scale_levels_and_criteria_as_text(tmp_path):
    from lab.calibration import judge
    from lab.calibration.page import write_calibration_page
    from lab.calibration.run import CalibrationOutcome, RoundResult

    hostile = TINY.replace('name = "sk0"', 'name = "<script>alert(1)</script>"')
    cal = load_calibration(write(tmp_path, hostile), out=str(tmp_path / "out"))
    cal.out.mkdir(parents=True)
    measured = pd.DataFrame({
        "level": ["L1400", "L1800"], "nominal": [1400, 1800], "UCI_Elo": [1400.0, 1800.0],
        "tied": [True, True], "measured": [1450.0, 1700.0], "halfwidth": [60.0, 80.0],
        "lower": [1390.0, 1620.0], "upper": [1510.0, 1780.0], "bound": ["", ""],
        "bound_rating": [float("nan")] * 2, "games": [12, 12], "score": [55.0, 45.0]})
    verdict = judge([1400, 1800], [1450.0, 1700.0], [60.0, 80.0], (1320.0, 1742.0),
                    cal.thresholds)
    measured["extrapolated"] = [lv.extrapolated for lv in verdict.levels]
    measured["passed"] = [lv.passed for lv in verdict.levels]
    hostile_name = "<script>alert(1)</script>"
    games = pd.DataFrame({"white": ["L1400", hostile_name, "L1800", "sk3"] * 3,
                          "black": [hostile_name, "L1400", "sk3", "L1800"] * 3,
                          "result": ["1-0", "0-1", "0-1", "1-0", "1-0", "1/2-1/2"] * 2})
    ratings = fit_ratings(games, anchors=cal.ratings)
    result = RoundResult(1, cal.out / "round1", [1400, 1800],
                         {1400: {"UCI_Elo": 1400.0}, 1800: {"UCI_Elo": 1800.0}}, None, measured,
                         ratings, verdict)
    outcome = CalibrationOutcome(rounds=[result], problem="too few games")
    page = write_calibration_page(cal, outcome, "tempo calibrate cal.toml").read_text()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # the per-anchor diagnostic (lab.calibration.opponents), as in report.md
    assert "Per anchor (a diagnostic, not a criterion)" in page
    assert ("<td>L1400</td><td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td class='n'>6</td>"
            "<td class='n'>+3 −2 =1</td>") in page
    assert "Calibration: tiny" in page and "did not pass: No table was written" in page
    assert all(name in page for name, _, _ in verdict.lines)
    assert "<td class='n'>1450</td>" in page and "<td class='n'>-100</td>" in page
    assert page.count("class='fail'>FAIL") == sum(not ok for _, ok, _ in verdict.lines) + 1


@needs_stockfish
def test_anchor_round_robin_pins_one_anchor_and_measures_the_others(tmp_path):
    from lab.calibration.anchor_round_robin import anchor_lines, rate_anchors
    from lab.calibration.measure import decided_games, split_halves
    from lab.calibration.speeds import speed_text

    text = TINY.replace('tc = "nodes=1500"', 'tc = "nodes=300"').replace(
        "[levels]", '[anchor_round_robin]\ngames = 4\npin = "sk3"\n\n[levels]')
    cal = load_calibration(write(tmp_path, text), out=str(tmp_path / "out"))
    rated, table = rate_anchors(cal, stream=io.StringIO())
    by_name = {r.name: r for r in table}
    assert by_name["sk3"].pinned and by_name["sk3"].measured == 1742 == rated.ratings["sk3"]
    sk0 = by_name["sk0"]
    assert not sk0.pinned and sk0.games == 4 and sk0.declared == 1320
    # a measured rating (used from now on) unless sk0 lost or won all four games (a bound)
    assert math.isfinite(sk0.measured) == (0 < sk0.score < 100)
    assert rated.ratings["sk0"] == (sk0.measured if math.isfinite(sk0.measured) else 1320)
    # criterion E's anchor covariance comes with the ratings: sk0's variance, when measured
    assert rated.anchor_cov == ({("sk0", "sk0"): pytest.approx((sk0.halfwidth / 1.96) ** 2,
                                                               rel=1e-3)}
                                if math.isfinite(sk0.measured) else {})
    lines = anchor_lines(table)
    assert lines[0] == "## Anchors" and any(line.startswith("| sk3 | 1742 | pinned 1742 |")
                                            for line in lines)
    with open_store(tmp_path / "out" / "anchors") as store:
        assert store.game_count() == 4
        moves = store.moves(columns=["engine", "nps"])
    # each anchor's speed: the median of the nodes/s it reported over its own moves
    for name in ("sk0", "sk3"):
        own = moves.loc[moves["engine"] == name, "nps"].dropna()
        assert len(own) > 10 and by_name[name].nps == float(own.median()) > 0
        assert any(line.startswith(f"| {name} |") and line.endswith(
            f"| {speed_text(by_name[name].nps)} |") for line in lines)
    # criterion R's halves: odd and even schedule rounds, each with both colours of its opening
    first, second = split_halves([tmp_path / "out" / "anchors"])
    assert len(first) + len(second) == len(decided_games([tmp_path / "out" / "anchors"]))
    for half in (first, second):
        assert half.empty or set(half["white"]) == {"sk0", "sk3"}
    assert set(first["pair_id"]).isdisjoint(second["pair_id"])
    assert rate_anchors(cal, stream=io.StringIO())[1] == table  # resumed: nothing replayed
    unrated = load_calibration(write(tmp_path, TINY, "plain.toml"))
    assert rate_anchors(unrated)[0] is unrated  # no round robin: ratings as declared


@needs_stockfish
def test_an_added_anchor_plays_the_others_and_the_round_robin_is_kept(tmp_path):
    """A round robin of sk0 and sk3, then the file gains sk1 as an added anchor: the round
    robin's folder resumes untouched (a changed anchor list would be refused there) and sk1
    plays its own gauntlet against both, the same games per pair; the fit takes both folders.
    (The stages are checked, not the fit: with 2 games a pair one anchor may win every game,
    and such a pool does not tie together.)"""
    from lab.calibration.anchor_round_robin import (
        ADDED_FOLDER,
        ANCHOR_FOLDER,
        play_anchor_stages,
    )
    from lab.calibration.measure import decided_games

    rr = '[anchor_round_robin]\ngames = 2\npin = "sk3"\n'
    first = TINY.replace('tc = "nodes=1500"', 'tc = "nodes=300"').replace(
        "[levels]", rr + "\n[levels]")
    out = tmp_path / "out"
    cal = load_calibration(write(tmp_path, first), out=str(out))
    assert play_anchor_stages(cal, io.StringIO()) == [out / ANCHOR_FOLDER]
    with open_store(out / ANCHOR_FOLDER) as store:
        played = store.games()
    assert len(played) == 2
    sk1 = (f'\n[[anchors]]\nname = "sk1"\ncmd = ["{STOCKFISH}"]\n'
           'options = { "Skill Level" = 1, Threads = 1, Hash = 16 }\nrating = 1450\n')
    second = first.replace(rr, rr + 'added = ["sk1"]\n').replace("[openings]", sk1 + "\n[openings]")
    cal = load_calibration(write(tmp_path, second, "added.toml"), out=str(out))
    assert cal.anchors_added == ["sk1"] and [a.name for a in cal.anchors] == ["sk0", "sk3", "sk1"]
    folders = play_anchor_stages(cal, io.StringIO())
    assert folders == [out / ANCHOR_FOLDER, out / ADDED_FOLDER / "sk1"]
    with open_store(out / ANCHOR_FOLDER) as store:
        pd.testing.assert_frame_equal(store.games(), played)  # kept, nothing replayed
    with open_store(out / ADDED_FOLDER / "sk1") as store:
        games = store.games()
    assert len(games) == 4 and sorted(games["white"]) == ["sk0", "sk1", "sk1", "sk3"]
    every = decided_games(folders)  # what rate_anchors fits
    for name in ("sk0", "sk1", "sk3"):
        assert ((every["white"] == name) | (every["black"] == name)).sum() == 4
    assert play_anchor_stages(cal, io.StringIO()) == folders  # resumed: nothing replayed
    with open_store(out / ADDED_FOLDER / "sk1") as store:
        assert store.game_count() == 4


@pytest.mark.parametrize(("window", "weak", "weaker"), [
    (0, ["sk0", "sk3"], ["sk0", "sk3", "weak"]),    # no window: every earlier anchor
    (450, ["sk0"], ["weak"]),                      # 420 in, 842 out; 400 in, 820 and 1242 out
    (300, ["sk0"], ["weak"]),                      # none within 300 of weak: its nearest, sk0
    (850, ["sk0", "sk3"], ["sk0", "weak"]),
])
def test_an_added_anchor_plays_the_earlier_anchors_in_its_window(tmp_path, window, weak, weaker):
    """Worked example: sk0 1320 and sk3 1742 in the round robin, then weak (900) and weaker
    (500) added in that order; weaker's earlier anchors include weak."""
    from lab.calibration.anchor_round_robin import added_opponents

    added = "".join(f'\n[[anchors]]\nname = "{name}"\ncmd = ["{STOCKFISH}"]\nrating = {rating}\n'
                    for name, rating in (("weak", 900), ("weaker", 500)))
    rr = f'[anchor_round_robin]\ngames = 2\nadded = ["weak", "weaker"]\nwindow = {window}\n'
    text = TINY.replace("[levels]", rr + "\n[levels]").replace("[openings]", added + "\n[openings]")
    cal = load_calibration(write(tmp_path, text))
    assert cal.added_window == window
    assert added_opponents(cal, "weak", ["sk0", "sk3"]) == weak
    assert added_opponents(cal, "weaker", ["sk0", "sk3", "weak"]) == weaker


@needs_stockfish
def test_anchors_only_rates_the_anchors_and_plays_no_level(tmp_path, capsys):
    """`--anchors-only`: the round robin, its table printed and anchors.csv written, no level
    played; run again, it resumes (nothing replayed). Without a round robin it is refused."""
    from lab.cli import main

    text = TINY.replace('tc = "nodes=1500"', 'tc = "nodes=300"').replace(
        "[levels]", '[anchor_round_robin]\ngames = 4\npin = "sk3"\n\n[levels]')
    out = tmp_path / "out"
    path = write(tmp_path, text)
    assert main(["calibrate", str(path), "--out", str(out), "--anchors-only",
                 "--concurrency", "1"]) == 0
    printed = capsys.readouterr().out
    assert "| sk3 | 1742 | pinned 1742 |" in printed and str(out / "anchors.csv") in printed
    anchors = pd.read_csv(out / "anchors.csv").set_index("name")
    assert anchors.loc["sk3", "rating"] == 1742 and anchors.loc["sk3", "pinned"]
    assert anchors.loc["sk0", "games"] == 4
    assert anchors.loc["sk3", "nps"] > 0 and anchors.loc["sk0", "nps"] > 0  # their speeds
    assert sorted(p.name for p in out.iterdir()) == ["anchors", "anchors.csv"]
    with open_store(out / "anchors") as store:
        assert store.experiment()["concurrency"] == 1  # the file says 2
    assert main(["calibrate", str(path), "--out", str(out), "--anchors-only"]) == 0
    with open_store(out / "anchors") as store:
        assert store.game_count() == 4
    assert main(["calibrate", str(write(tmp_path, TINY, "plain.toml")), "--anchors-only"]) == 2
    assert "--anchors-only needs an [anchor_round_robin]" in capsys.readouterr().err
    assert main(["calibrate", str(path), "--anchors-only", "--concurrency", "0"]) == 2
    assert "--concurrency must be at least 1" in capsys.readouterr().err


@needs_stockfish
def test_full_strength_flag_rates_anchors_and_full_strength_and_plays_no_level(tmp_path, capsys):
    from lab.cli import main

    text = TINY_TEMPO.replace("[levels]", '[anchor_round_robin]\ngames = 2\npin = "sk3"\n\n'
                              "[levels]", 1)
    out = tmp_path / "out"
    path = write(tmp_path, text)
    assert main(["calibrate", str(path), "--out", str(out), "--full-strength"]) == 0
    printed = capsys.readouterr().out
    assert "| sk3 | 1742 | pinned 1742 |" in printed and "## Full strength" in printed
    assert re.search(r"U range top is full strength", printed)
    assert sorted(p.name for p in out.iterdir()) == ["anchors", "anchors.csv", "full_strength"]
    with open_store(out / "full_strength") as store:
        games = store.games()
    # 2 games per anchor near 1770 (sk3, and sk0 too if the round robin rated it near sk3)
    opponents = set(games["white"]) | set(games["black"])
    assert "full" in opponents and len(games) == 2 * (len(opponents) - 1)
    assert main(["calibrate", str(path), "--out", str(out), "--full-strength",
                 "--anchors-only"]) == 2
    assert "give one of --anchors-only, --full-strength and --report" in capsys.readouterr().err
    assert main(["calibrate", str(path), "--out", str(out), "--report", "--anchors-only"]) == 2
    assert main(["calibrate", str(write(tmp_path, TINY, "plain.toml")), "--full-strength"]) == 2
    assert "--full-strength needs a [full_strength]" in capsys.readouterr().err


def test_anchors_apart_from_the_pin_are_left_unmeasured_not_fatal(tmp_path):
    """Worked example: sk3 (pinned 1742) scores 3 of 4 against sk0, so sk0 is 1742 minus the
    difference at which Ordo's logistic (202 Elo for 76 %) predicts 75 %:
    202 log10(3) / log10(76/24) = 192.5, so 1549.5. Added anchors weak and weaker split their
    games 1-1 but lose every game against sk0: no result ties them to the pin, so both are
    unmeasured ("apart") and keep their declared ratings rather than ending the calibration.
    Then weaker also loses both
    games to weak, which now scores against sk0: weaker has a bound, weak a rating."""
    from lab.calibration.anchor_round_robin import anchor_lines, fit_anchor_table

    added = "".join(f'\n[[anchors]]\nname = "{name}"\ncmd = ["{STOCKFISH}"]\nrating = {rating}\n'
                    for name, rating in (("weak", 900), ("weaker", 500)))
    rr = '[anchor_round_robin]\ngames = 2\npin = "sk3"\nadded = ["weak", "weaker"]\n'
    text = TINY.replace("[levels]", rr + "\n[levels]").replace("[openings]", added + "\n[openings]")
    cal = load_calibration(write(tmp_path, text))
    games = [("sk3", "sk0", "1-0"), ("sk0", "sk3", "0-1"), ("sk3", "sk0", "1-0"),
             ("sk0", "sk3", "1-0"), ("weak", "sk0", "0-1"), ("sk0", "weak", "1-0"),
             ("weaker", "sk0", "0-1"), ("weak", "weaker", "1-0"), ("weaker", "weak", "1-0")]
    rows, cov = fit_anchor_table(cal, pd.DataFrame(games, columns=["white", "black", "result"]))
    table = {r.name: r for r in rows}
    assert table["sk3"].pinned and table["sk3"].measured == 1742
    # the covariance holds the measured anchors only: the pin is exact, the apart ones unrated
    assert set(cov) == {("sk0", "sk0")}
    assert 1.96 * math.sqrt(cov[("sk0", "sk0")]) == pytest.approx(table["sk0"].halfwidth, rel=1e-3)
    assert table["sk0"].measured == pytest.approx(
        1742 - 202 * math.log10(3) / math.log10(76 / 24), abs=0.1)
    assert table["sk0"].unmeasured == "" and table["sk0"].games == 7
    for name in ("weak", "weaker"):
        assert math.isnan(table[name].measured) and table[name].unmeasured == "apart"
    assert "| weak | 900 | not tied to the pin: kept declared | - | 4 | 25.0 | - |" in anchor_lines(
        list(table.values()))  # games without stores: no speed
    games[-1] = ("weaker", "weak", "0-1")
    games.append(("weak", "sk0", "1/2-1/2"))
    rows, cov = fit_anchor_table(cal, pd.DataFrame(games, columns=["white", "black", "result"]))
    table = {r.name: r for r in rows}
    assert set(cov) == {("sk0", "sk0"), ("sk0", "weak"), ("weak", "sk0"), ("weak", "weak")}
    assert math.isfinite(table["weak"].measured) and table["weak"].unmeasured == ""
    assert math.isnan(table["weaker"].measured) and table["weaker"].unmeasured == "bound"


def test_a_levels_anchor_shares_are_how_its_fitted_rating_moves_with_each_anchor(tmp_path):
    """Criterion E's delta method: `level_shares` (n f(1 - f) per anchor, normalised) is the
    derivative of the level's placement with respect to each anchor's rating, as refitting with
    the anchor moved shows; a level met by one anchor moves with it one for one."""
    from lab.calibration.checks import level_shares
    from lab.calibration.measure import fit_folders

    cal = load_calibration(write(tmp_path, TINY))
    results = {("L1400", "sk0"): ["1-0"] * 5 + ["0-1"] * 3 + ["1/2-1/2"] * 2,
               ("L1400", "sk3"): ["1-0"] * 2 + ["0-1"] * 7 + ["1/2-1/2"],
               ("L1800", "sk3"): ["1-0"] * 4 + ["0-1"] * 5}
    games = pd.DataFrame([(level, anchor, r) for (level, anchor), rs in results.items()
                          for r in rs], columns=["white", "black", "result"])
    placed = fit_folders(cal, [], games)
    shares = level_shares(cal, placed, 1400)
    assert set(shares) == {"sk0", "sk3"} and sum(shares.values()) == pytest.approx(1.0)
    assert level_shares(cal, placed, 1800) == {"sk3": pytest.approx(1.0)}
    moved = fit_folders(cal.with_ratings({"sk0": 1330.0}), [], games)
    assert (moved.rating("L1400") - placed.rating("L1400")) / 10 == pytest.approx(
        shares["sk0"], abs=0.005)
    assert moved.rating("L1800") == pytest.approx(placed.rating("L1800"), abs=0.01)


def test_our_engines_levels_name_their_table_and_round_one_the_formulas():
    """Without a table round 1 plays the formulas (`EloTable` empty) whatever table the engine
    loads by default, so a calibration reproduces from a clean clone; with one (the sixth final
    calibration starts from the table the engine loads, final-v5's round 3 measurement, whose
    top row is full strength's effort; a file round 1's stores hold with its SHA-256) round 1
    names it, and later rounds name their corrected table."""
    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml")
    assert cal.uses_table
    assert cal.level_options(1250) == {"TimeManager": "smooth", "Hash": 16,
                                       "UCI_LimitStrength": True, "UCI_Elo": 1250,
                                       "EloTable": ""}
    assert cal.level_options(1250, table=Path("c.csv"))["EloTable"] == "c.csv"
    calibrations = EXPERIMENTS.parent / "results" / "calibration"
    assert cal.table == calibrations / "final-v6" / "start" / "elo_table.csv"
    start = read_elo_table(cal.table)
    assert list(start.index) == list(range(710, 1711, 50))
    shipped = EXPERIMENTS.parent / "engine" / "strength" / "elo_table.csv"
    pd.testing.assert_frame_equal(start, read_elo_table(shipped))
    v5 = read_elo_table(calibrations / "final-v5" / "round2" / "corrected_elo_table.csv")
    pd.testing.assert_frame_equal(start, v5)  # round 3 of final-v5 measured it
    assert list(start.loc[1710]) == [2000500, 0, 0, 0] + [1.0] * 9  # full strength's effort
    assert cal.levels == [710, 910, 1110, 1310, 1510, 1710] and cal.head_to_head == "floor"
    assert cal.ladder_games == 200 and cal.pin_top


def two_level_round():
    """A round 1 of the final calibration that measured L1050 at 1000 and L1650 at 1550."""
    from lab.calibration.outcome import RoundResult

    columns = ["NPS", "MoveError", "BlunderError", "BlunderPer128", "mobility"]
    params = {1050: dict(zip(columns, [60685.0, 20.0, 193.0, 11.0, 0.6875], strict=True)),
              1650: dict(zip(columns, [1785733.0, 5.0, 50.0, 6.0, 1.0], strict=True))}
    measured = pd.DataFrame({"nominal": [1050, 1650], "measured": [1000.0, 1550.0],
                             "halfwidth": [60.0, 60.0], "bound_rating": [math.nan, math.nan]})
    return [RoundResult(1, Path("r1"), [1050, 1650], params, None, measured, None, None)]


def test_the_correction_ends_at_full_strength_for_our_engine():
    """The strongest level still errs, so without full strength's rating as the curve's last
    point the targets between the two would be left out of the table; with it, they lie on
    the way to no move error at the top search effort."""
    from lab.calibration.outcome import FullStrength
    from lab.calibration.run import correct_round
    from lab.calibration.tables import FULL_STRENGTH_NPS

    cal = replace(load_calibration(EXPERIMENTS / "calibrate_final.toml"), pin_top=False)
    rounds = two_level_round()
    alone = correct_round(cal, rounds)
    assert min(alone.rows) == 1010 and max(alone.rows) == 1510
    assert alone.above == [1560, 1610, 1660, 1710]
    full = FullStrength(1720.0, 1720.0, 54.0, "", 180, 38.6, ("sf-elo1700",))
    topped = correct_round(cal, rounds, full)
    assert max(topped.rows) == 1710 and not topped.above
    nps = [topped.rows[t]["NPS"] for t in sorted(topped.rows)]
    assert nps == sorted(nps) and 60685 < topped.rows[1510]["NPS"] < 1785733  # between levels
    row = topped.rows[1660]
    assert 0 < row["MoveError"] < 5 and 0 < row["BlunderPer128"] < 6
    assert 1785733 < row["NPS"] < FULL_STRENGTH_NPS and row["mobility"] == pytest.approx(1.0)
    bounded = FullStrength(1720.0, math.nan, math.nan, ">1790", 180, 100.0, ("sf-elo1900",))
    assert correct_round(cal, rounds, bounded).above == [1560, 1610, 1660, 1710]  # no point


def test_the_curve_ends_at_the_declared_top_when_criterion_u_accepts_full_strength():
    """Full strength at 1685 ± 55 against a declared 1720 (the top before final-v5; the figures
    carry their own declared top): U accepts it (35 Elo, 1.2 SE), so the engine plays its top as
    full strength and the curve ends at 1720, which puts the 1710 target in the table (ending at
    1685 would leave it above the curve, and L1710 out of round 2). A measurement U rejects is
    the curve's end as before."""
    from lab.calibration.full_strength import curve_end, curve_end_text, full_strength_line
    from lab.calibration.outcome import FullStrength
    from lab.calibration.run import correct_round

    cal = replace(load_calibration(EXPERIMENTS / "calibrate_final.toml"), pin_top=False)
    assert cal.declared_top == 1740 and cal.thresholds.agreement_se == 2.0
    rounds = two_level_round()
    near = FullStrength(1720.0, 1685.0, 55.0, "", 180, 45.0, ("sf-elo1700",))
    assert full_strength_line(cal, near)[1] and curve_end(cal, near) == 1720.0
    topped = correct_round(cal, rounds, near)
    assert max(topped.rows) == 1710 and not topped.above
    assert 0 < topped.rows[1710]["MoveError"] < 5
    assert curve_end_text(cal, near) == ("1720, the declared top (U accepts full strength's "
                                         "1685 ± 55)")
    far = FullStrength(1720.0, 1640.0, 20.0, "", 900, 40.0, ("sf-elo1700",))  # 80 Elo, 7.8 SE
    assert not full_strength_line(cal, far)[1] and curve_end(cal, far) == 1640.0
    ended = correct_round(cal, rounds, far)
    assert max(ended.rows) == 1610 and ended.above == [1660, 1710]
    assert curve_end_text(cal, far) == "1640 ± 20, full strength's rating"
    assert curve_end(cal, FullStrength(1720.0, 1500.0, 40.0, "", 180, 30.0, ())) == 1500.0
    bounded = FullStrength(1720.0, math.nan, math.nan, ">1790", 180, 100.0, ("sf-elo1900",))
    assert curve_end(cal, bounded) is None and curve_end(cal, None) is None


def test_a_pinned_top_level_keeps_full_strengths_row():
    """`pin_top`: the top level plays full strength's row in every round. A correction whose
    curve would give its target less (here L1650 measured 1550 and full strength 1720, so 1710
    lies on the way between them) keeps full strength's row there, and a start table whose top
    row is anything else is refused, naming the level and the table."""
    from lab.calibration.outcome import FullStrength
    from lab.calibration.run import check_pinned_top, correct_round
    from lab.calibration.tables import FULL_STRENGTH_NPS

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml")
    assert cal.pin_top and cal.levels[-1] == 1710
    full = FullStrength(1720.0, 1720.0, 54.0, "", 180, 38.6, ("sf-elo1700",))
    free = correct_round(replace(cal, pin_top=False), two_level_round(), full)
    assert free.rows[1710]["NPS"] < FULL_STRENGTH_NPS and free.rows[1710]["MoveError"] > 0
    pinned = correct_round(cal, two_level_round(), full)
    assert pinned.rows[1710] == {"NPS": FULL_STRENGTH_NPS, "MoveError": 0.0, "BlunderError": 0.0,
                                 "BlunderPer128": 0.0, "mobility": 1.0}
    assert pinned.rows[1660] == free.rows[1660]  # the other rows as the curve gives them
    alone = correct_round(cal, two_level_round())  # no full-strength point: 1710 is above
    assert 1710 in alone.rows and alone.above == [1560, 1610, 1660]
    params = {1710: {"NPS": 1490084.0, "MoveError": 4.0, "BlunderError": 31.0,
                     "BlunderPer128": 3.0, "mobility": 1.0}}
    with pytest.raises(CalibrationError, match=r"pin_top: L1710 plays NPS=1\.49008e\+06, "
                       r"MoveError=4.* from t\.csv, not full strength's row \(NPS=2\.0005e\+06"):
        check_pinned_top(cal, params, Path("t.csv"))
    check_pinned_top(cal, {1710: pinned.rows[1710]}, Path("t.csv"))  # full strength's: accepted



def test_a_pinned_top_level_is_judged_against_full_strengths_measured_rating():
    """The pinned top plays full strength's row, so its target is full strength's rating
    measured in the run (stage U), not its nominal 1710: L1710 at 1793 +- 35 fails A against
    1710 (+83) and passes against full strength's 1790 +- 45; the curve ends there too, not at
    the declared 1720 that U would accept. Without the pin, or before U has a rating, every
    level keeps its nominal Elo."""
    from lab.calibration.criteria import judge
    from lab.calibration.full_strength import curve_end
    from lab.calibration.outcome import FullStrength, RoundResult
    from lab.calibration.pinned_top import level_names, level_targets, pinned_top_target
    from lab.calibration.report import level_rows

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml")
    levels = [710, 910, 1110, 1310, 1510, 1710]
    full = FullStrength(1720.0, 1790.0, 45.0, "", 180, 55.0, ("sf-elo1800",))
    assert pinned_top_target(cal, full) == 1790.0
    targets = level_targets(cal, levels, full)
    assert targets == [710.0, 910.0, 1110.0, 1310.0, 1510.0, 1790.0]
    assert level_targets(cal, [910, 1110], full) == [910.0, 1110.0]  # the top not played
    free = replace(cal, pin_top=False)
    bounded = FullStrength(1720.0, math.nan, math.nan, ">1790", 180, 100.0, ("sf-elo1900",))
    for other, result in ((free, full), (cal, None), (cal, bounded)):
        assert level_targets(other, levels, result) == [float(lv) for lv in levels]
    near = FullStrength(1720.0, 1760.0, 45.0, "", 180, 55.0, ("sf-elo1800",))  # U accepts
    assert curve_end(free, near) == 1720.0 and curve_end(cal, near) == 1760.0

    measured = [705.0, 915.0, 1100.0, 1305.0, 1512.0, 1793.0]
    halfwidth = [35.0] * 6
    nominal = judge(levels, measured, halfwidth, (600.0, 1900.0))
    assert not nominal.lines[0][1] and "failing: 1710 (+83" in nominal.lines[0][2]
    pinned = judge(targets, measured, halfwidth, (600.0, 1900.0))
    assert pinned.lines[0][1] and pinned.max_error == pytest.approx(10.0)
    names = level_names(levels, targets)
    assert names[-1] == "1710 pinned at 1790" and names[:2] == ["710", "910"]
    far = [705.0, 915.0, 1100.0, 1305.0, 1512.0, 1950.0]  # the pinned top 160 above its target
    named = judge(targets, far, halfwidth, (600.0, 1900.0), names=names)
    assert named.lines[0][2].endswith("failing: 1710 pinned at 1790 (+160 ± 35)")
    assert "except 1510->1710 pinned at 1790: 156%" in named.lines[-1][2]

    columns = ["NPS", "MoveError", "BlunderError", "BlunderPer128", "mobility"]
    params = {lv: dict.fromkeys(columns, 1.0) for lv in levels}
    frame = pd.DataFrame({"level": [f"L{lv}" for lv in levels], "nominal": levels,
                          "target": targets, "measured": measured, "halfwidth": halfwidth,
                          "bound": "", "games": 360, "score": 50.0, "extrapolated": "",
                          "passed": True, **{c: 1.0 for c in columns}})
    result = RoundResult(1, Path("r1"), levels, params, None, frame, None, pinned)
    head, rows = level_rows(cal, result)
    assert head[:2] == ["level", "target"] and "error" in head
    top = dict(zip(head, rows[-1], strict=True))
    assert (top["level"], top["target"], top["measured"], top["error"]) == \
        ("1710", "1790", "1793", "+3")
    assert dict(zip(head, rows[0], strict=True))["error"] == "-5"



def test_the_shipped_table_keys_the_pinned_row_at_full_strengths_rating():
    """Full strength at 1788: the pinned row moves to 1790 and the curve's own row takes 1710,
    so `UCI_Elo 1710` plays 1710 and not the top; at 1706 nothing moves (the key is 1710); at
    1655 the pinned row is 1660 and targets at or above it leave the table."""
    from lab.calibration.pinned_top import ship_rows, top_key

    low, mid, pinned = {"NPS": 1.0}, {"NPS": 2.0}, {"NPS": 2000500.0}
    curve = {"NPS": 3.0}
    rows = {1510: low, 1610: mid, 1660: mid, 1710: pinned}
    assert (top_key(1788.0), top_key(1706.0), top_key(1655.0)) == (1790, 1710, 1660)
    shipped, notes = ship_rows(rows, 1710, 1788.0, curve)
    assert shipped == {1510: low, 1610: mid, 1660: mid, 1710: curve, 1790: pinned}
    assert "keyed at 1790, full strength's rating 1788" in notes[0]
    assert "row 1710: the correction's curve" in notes[1]
    assert ship_rows(rows, 1710, 1706.0, curve) == (rows, [])
    shipped, notes = ship_rows(rows, 1710, 1655.0, curve)
    assert shipped == {1510: low, 1610: mid, 1660: pinned}
    assert "targets 1660 are at or above full strength's rating" in notes[1]
    shipped, notes = ship_rows(rows, 1710, 1788.0, None)
    assert 1710 not in shipped and shipped[1790] == pinned and "no row at 1710" in notes[1]


def test_a_passing_calibration_ships_its_pinned_top_at_full_strengths_rating(tmp_path):
    """The table a passing calibration writes: the measured table's rows, the pinned row keyed
    at full strength's rating (1788 here: row 1790), the curve's row at 1710, both said in the
    table's header; an engine-readable EloTable."""
    from lab.calibration.outcome import CalibrationOutcome, FullStrength, RoundResult
    from lab.calibration.tables import FULL_STRENGTH_NPS, write_final_table

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml", out=str(tmp_path / "out"))
    (tmp_path / "out").mkdir()
    played = write_elo_table(tmp_path / "played.csv", {
        710: {"NPS": 6065, "MoveError": 32, "BlunderError": 340, "BlunderPer128": 13},
        1510: {"NPS": 343481, "MoveError": 11, "BlunderError": 96, "BlunderPer128": 9},
        1710: {"NPS": FULL_STRENGTH_NPS, "MoveError": 0, "BlunderError": 0, "BlunderPer128": 0}},
        ["test"])
    result = RoundResult(2, tmp_path, [710, 1510, 1710], {}, played, pd.DataFrame(), None, None)
    outcome = CalibrationOutcome(full_strength=FullStrength(1720.0, 1788.0, 40.0, "", 180, 50.0,
                                                            ("sf-elo1800",)),
                                 rounds=[result], passed=True)
    curve = {"NPS": 1200000.0, "MoveError": 3.0, "BlunderError": 25.0, "BlunderPer128": 2.0}
    path = write_final_table(cal, outcome, curve)
    table = read_elo_table(path)
    assert list(table.index) == [710, 1510, 1710, 1790]
    assert table.loc[1790, "NPS"] == FULL_STRENGTH_NPS and table.loc[1790, "MoveError"] == 0
    assert table.loc[1710, "NPS"] == 1200000 and table.loc[1710, "MoveError"] == 3
    text = path.read_text()
    assert "measured and passing the criteria" in text and "keyed at 1790" in text
    unpinned = write_final_table(replace(cal, pin_top=False), outcome, curve)
    assert list(read_elo_table(unpinned).index) == [710, 1510, 1710]  # the table as played


def test_the_curve_row_the_pinned_top_gives_up_is_the_unpinned_corrections():
    """`curve_top_row`: the row the correction through every measurement puts at 1710 without
    the pin (on the way from L1650's 1550 to full strength's 1788, so still erring); None
    without the pin or without full strength's rating."""
    from lab.calibration.outcome import CalibrationOutcome, FullStrength
    from lab.calibration.run import correct_round, curve_top_row
    from lab.calibration.tables import FULL_STRENGTH_NPS

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml")
    full = FullStrength(1720.0, 1788.0, 40.0, "", 180, 50.0, ("sf-elo1800",))
    outcome = CalibrationOutcome(full_strength=full, rounds=two_level_round())
    row = curve_top_row(cal, outcome)
    assert row == correct_round(replace(cal, pin_top=False), two_level_round(), full).rows[1710]
    assert row["NPS"] < FULL_STRENGTH_NPS and row["MoveError"] > 0
    assert curve_top_row(replace(cal, pin_top=False), outcome) is None
    assert curve_top_row(cal, CalibrationOutcome(rounds=two_level_round())) is None


def test_the_report_names_the_table_played_relative_to_the_checkout(tmp_path, monkeypatch):
    """A committed report names the start table as the repository does, not by the path of the
    checkout it was written in; a table outside the working directory keeps its full path."""
    from lab.calibration.report import table_played_text

    monkeypatch.chdir(tmp_path)
    inside = (tmp_path / "final" / "start" / "elo_table.csv").resolve()
    assert table_played_text(inside) == str(Path("final", "start", "elo_table.csv"))
    outside = tmp_path.parent.resolve() / "elsewhere.csv"
    assert table_played_text(outside) == str(outside)
    assert table_played_text(None) == "the engine's built-in levels"


def test_round_two_probes_our_engine_playing_the_corrected_table(tmp_path):
    """From round 2 our engine's levels play the previous round's corrected table: the levels
    it covers are measured, each with the parameters the engine itself reads from that table
    (asked once and kept beside the round, for resume)."""
    from lab.calibration.measure import stage_root
    from lab.calibration.run import _round_setup
    from lab.calibration.tables import write_elo_table

    cal = load_calibration(EXPERIMENTS / "calibrate_final.toml", out=str(tmp_path / "out"))
    rows = {600: {"NPS": 2003, "MoveError": 37, "BlunderError": 420, "BlunderPer128": 15},
            1000: {"NPS": 67753, "MoveError": 19, "BlunderError": 190, "BlunderPer128": 11},
            1710: {"NPS": 1900000, "MoveError": 2, "BlunderError": 20, "BlunderPer128": 3}}

    class Previous:
        corrected = write_elo_table(tmp_path / "out" / "round1" / "corrected_elo_table.csv",
                                    rows, ["test"])

    with pytest.raises(CalibrationError, match="pin_top: L1710 plays NPS=1.9e"):
        _round_setup(cal, 2, Previous())  # its top row is not full strength's
    levels, params, table = _round_setup(replace(cal, pin_top=False), 2, Previous())
    assert levels == [710, 910, 1110, 1310, 1510, 1710] and table == Previous.corrected
    top = params[1710]
    assert [top[c] for c in ("NPS", "MoveError", "BlunderError", "BlunderPer128")] == \
        [1900000, 2, 20, 3]
    assert rows[600]["NPS"] < params[710]["NPS"] < params[910]["NPS"] < rows[1000]["NPS"]
    assert params[910]["MoveError"] == 37 + (910 - 600) * (19 - 37) // 400  # linear, floored
    kept = stage_root(cal, 2, table) / "parameters.csv"
    assert pd.read_csv(kept).set_index("Elo").loc[1710, "NPS"] == 1900000
    assert cal.level_options(1710, table=table)["EloTable"] == str(table)


@needs_stockfish
def test_report_only_plays_no_game_and_reports_what_the_stages_hold(tmp_path, capsys):
    from lab.cli import main

    empty = tmp_path / "empty"
    text = TINY.replace("[levels]", "[anchor_round_robin]\ngames = 2\n\n[levels]")
    assert main(["calibrate", str(write(tmp_path, text, "rr.toml")), "--out", str(empty),
                 "--report"]) == 0  # before any game: the declared anchors, no stage
    assert [p.name for p in empty.iterdir()] == ["interim"]
    report = (empty / "interim" / "report.md").read_text()
    assert "0 of the 2 games planned" in report and "| anchors | 0 | 2 |" in report

    folder = tmp_path / "out"
    args = ["calibrate", str(write(tmp_path, TINY)), "--out", str(folder)]

    def files() -> dict[Path, int]:
        """Every file outside interim/ and its modification time; not SQLite's shared-memory
        index (-shm), which every reader of a WAL store maps and marks."""
        return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
                and "interim" not in p.parts and not p.name.endswith("-shm")}

    main(args)  # the calibration itself: 2 levels x 6 anchor games, one ladder pair of 6
    written = files()
    final = (folder / "report.md").read_text()
    assert "Per anchor (a diagnostic, not a criterion)" in final  # lab.calibration.opponents
    assert len(re.findall(r"\| L1(4|8)00 \| sk[03] \| 6 \| \+\d −\d =\d \|", final)) == 2
    # the ladder's 6 games judge E, and the fit with them is shown beside the placement
    # (a level that won or lost all 6 of its anchor games has only a bound: no prediction)
    assert re.search(r"E transitivity: .*L1800-L1400: [\d.]+ %(, no prediction \(a level "
                     r"without a rating\)| vs [\d.]+ % predicted \([+-][\d.]+ SE), 6 games",
                     final)
    assert re.search(r"Fitted with the ladder's games too .*: L1400 [<>]?\d+ \(.*\), "
                     r"L1800 [<>]?\d+ \(.*\)\.", final)
    capsys.readouterr()
    assert main([*args, "--report"]) == 0
    printed = capsys.readouterr().out
    assert "r1-ladder-L1400-L1800: L1400 vs L1800, 6 of 6 games played (report only" in printed
    assert files() == written  # it wrote nothing else
    interim = folder / "interim"
    pd.testing.assert_frame_equal(pd.read_csv(interim / "levels.csv"),
                                  pd.read_csv(folder / "levels.csv"))
    report = (interim / "report.md").read_text()
    assert "18 of the 18 games planned" in report and "| r1-p2-L1800 | 6 | 6 |" in report
    assert "Interim report** of a calibration whose every planned game is played" in report
    assert "every game the file plans is played, but `--report` writes no table" in report
    assert "has not ended" not in report
    assert ("In all the file plans about 18 games (0 in stages not reached yet, counted from the "
            "file); 0 remain.\n") in report

    shutil.rmtree(folder / "round1" / "ladder")  # as if the ladder had not begun
    assert main([*args, "--report"]) == 0
    assert not (folder / "round1" / "ladder").exists()  # reading never creates a stage
    report = (interim / "report.md").read_text()
    assert "12 of the 18 games planned" in report and "| r1-ladder-L1400-L1800 | 0 | 6 |" in report
    assert re.search(r"about 18 games \(0 in stages not reached yet, counted from the file\); 6 "
                     r"remain\. At the calibration's pace so far \(\d+\.\d games a minute over 12 "
                     r"games, pauses over 5 min left out\) that is about \d+ min\.",
                     report)  # 6 games at several a minute
    assert "Interim report** of a calibration that has not ended" in report
    assert "the calibration has not ended, so no table is written" in report
    # the ladder's games place no level: without them every level measures the same
    pd.testing.assert_frame_equal(pd.read_csv(interim / "levels.csv"),
                                  pd.read_csv(folder / "levels.csv"))
    assert "E transitivity: no adjacent levels played each other" in report
    assert "Fitted with the ladder's games too" not in report

    changed = write(tmp_path, TINY.replace('"Skill Level" = 3, Threads = 1, Hash = 16',
                                           '"Skill Level" = 3, Threads = 1, Hash = 32'))
    capsys.readouterr()
    assert main(["calibrate", str(changed), "--out", str(folder), "--report"]) == 2
    error = capsys.readouterr().err
    assert "round1/pass2/L1800: holds games played with other settings" in error
    assert "Hash: 16 -> 32" in error


@needs_stockfish
def test_an_anchor_rated_only_plays_the_round_robin_and_no_level(tmp_path):
    """`plays_levels = false`: sk1 is rated among the anchors but no level plays it, though
    L1400's window would choose it first (an anchor on the clock that ran at another speed in
    the level games than in its rating games holds no rating there)."""
    from lab.calibration.anchors import choose_anchors
    from lab.calibration.measure import decided_games
    from lab.calibration.speeds import speed_text

    text = TINY.replace("[levels]", '[anchor_round_robin]\ngames = 2\npin = "sk3"\n\n[levels]')
    text += ('\n[[anchors]]\nname = "sk1"\ncmd = ["' + STOCKFISH + '"]\noptions = '
             '{ "Skill Level" = 1, Threads = 1, Hash = 16 }\nrating = 1400\nplays_levels = false\n')
    cal = load_calibration(write(tmp_path, text), out=str(tmp_path / "out"))
    assert [a.plays_levels for a in cal.anchors] == [True, True, False]
    assert set(cal.ratings) == {"sk0", "sk1", "sk3"} and set(cal.opponent_ratings) == {"sk0", "sk3"}
    assert choose_anchors([1400], cal.ratings, *cal.score_window, cal.max_anchors)[0][0] == "sk1"
    run_calibration(cal, stream=io.StringIO())
    out = tmp_path / "out"
    anchors = decided_games([out / "anchors"])
    assert "sk1" in set(anchors["white"]) | set(anchors["black"])  # rated in the round robin
    stages = sorted(p.parent for p in (out / "round1").rglob("tempo.sqlite"))
    # the ladder and each level against the anchors in its window, or its nearest one (the
    # round robin's 2-game fits move sk0 and sk3, so a level may have none in it), 6 games each
    assert len(stages) == 3 and all(len(decided_games([stage])) == 6 for stage in stages)
    levels = decided_games(stages)
    players = set(levels["white"]) | set(levels["black"])
    assert "sk1" not in players and players & {"sk0", "sk3"}
    report = (out / "report.md").read_text()
    assert re.search(r"^\| sk1 \(rated only\) \|", report, re.M)
    assert "no level plays it (`plays_levels = false`)" in report
    page = (out / "report.html").read_text()
    assert "sk1 (rated only: no level plays it)" in page
    # each anchor's speed in the level games beside the one it was rated at, from the stores
    rated = pd.read_csv(out / "anchors.csv").set_index("name")["nps"]
    frames = []
    for path in sorted((out / "round1").rglob("tempo.sqlite")):
        with open_store(path.parent) as store:
            frames.append(store.moves(columns=["engine", "nps"]))
    moves = pd.concat(frames).dropna()
    for name in sorted(players & {"sk0", "sk3"}):
        level_nps = float(moves.loc[moves["engine"] == name, "nps"].median())
        assert f"| {name} | {speed_text(rated[name])} | {speed_text(level_nps)} | " \
               f"{level_nps / rated[name]:.2f} |" in report
        assert f"<td>{name}</td><td class='n'>{speed_text(rated[name])}</td>" in page
    assert "| sk1 |" not in report.split("## round 1")[1]
    lone = text.replace("rating = 1320\n", "rating = 1320\nplays_levels = false\n").replace(
        "rating = 1742\n", "rating = 1742\nplays_levels = false\n")
    with pytest.raises(CalibrationError, match="every anchor has plays_levels = false"):
        load_calibration(write(tmp_path, lone, "lone.toml"))
    with pytest.raises(CalibrationError, match="'plays_levels' must be bool"):
        load_calibration(write(tmp_path, text.replace("plays_levels = false",
                                                      'plays_levels = "no"'), "bad.toml"))
