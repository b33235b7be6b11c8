"""`lab.calibration.remaining`: the games a calibration's file plans in stages not reached yet,
and the pace it has run at, worked by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from lab.calibration import load_calibration
from lab.calibration.remaining import running_pace, unreached_games
from tests.lab.calibration.test_calibrate_run import TINY, write

#: TINY with three levels, two rounds, a ladder of 4, three robustness variants of 4 games at
#: one level, the 400-apart pairs at 2 games and a top match of 2.
BIGGER = TINY.replace("values = [1400, 1800]", "values = [1000, 1400, 1800]").replace(
    "rounds = 1", "rounds = 2").replace("ladder_games = 6", "ladder_games = 4").replace(
    "[engine]", '[robustness]\nlevels = [1400]\ntcs = ["5+0.05", "20+0.2"]\nloads = [1]\n'
    "games = 4\n\n[spread]\ngap = 400\ngames = 2\n\n[top]\ngames = 2\n\n[engine]")


def test_the_stages_not_reached_are_counted_from_the_file(tmp_path):
    cal = load_calibration(write(tmp_path, BIGGER))
    # A round: 3 levels x 6 games + 2 ladder pairs x 4 = 26. After the last: 3 variants x 1
    # level x 4 = 12, pairs 1400-1000 and 1800-1400 x 2 = 4, the top match 2.
    assert unreached_games(cal, []) == 2 * 26 + 12 + 4 + 2
    first = ["anchors", "r1-p1-L1000", "r1-p1-L1400", "r1-p1-L1800", "r1-ladder-L1000-L1400"]
    assert unreached_games(cal, first) == 26 + 12 + 4 + 2
    last = [*first, "r2-p1-L1000", "r2-tc-5+0.05-L1400", "r2-spread-L1400-L1000"]
    assert unreached_games(cal, last) == 2 * 4 + 2  # load-1 and tc-20+0.2 not begun, the top
    assert unreached_games(cal, [*last, "r2-load-1-L1400", "r2-tc-20+0.2-L1400",
                                 "r2-top-L1800"]) == 0


def test_the_pace_is_the_whole_runs_with_its_pauses_left_out():
    finished = pd.Series(["2026-11-28T10:00:00.000+00:00", "2026-11-28T10:00:30.000+00:00",
                          "2026-11-28T10:01:00.000+00:00", "2026-11-28T10:02:00.000+00:00",
                          "2026-11-28T13:02:00.000+00:00", "2026-11-28T13:03:00.000+00:00"])
    # 10:00-10:02 holds 3 games in 2 minutes, 13:02-13:03 one in 1 minute; the 3 hours between
    # is a pause: 4 games in 3 running minutes.
    assert running_pace(finished) == (pytest.approx(4 / 3), 6)
    assert running_pace(finished.iloc[::-1]) == (pytest.approx(4 / 3), 6)  # in any order
    # With pauses only over 200 minutes the 3 hours count: 5 games in 183 minutes.
    assert running_pace(finished, pause_minutes=200) == (pytest.approx(5 / 183), 6)
    assert running_pace(finished.iloc[3:5]) is None  # one gap, and it is a pause
    assert running_pace(finished.iloc[:1]) is None and running_pace(finished.iloc[:0]) is None
