"""`lab.calibration.speeds`: each anchor's speed against the levels beside the speed it was
rated at, worked by hand on final-v2's Sunfish and Stockfish figures."""

from __future__ import annotations

import math

import pytest

from lab.calibration.speeds import (
    AnchorSpeed,
    anchor_speeds,
    changed_text,
    speed_rows,
    speed_text,
)


def test_the_ratio_and_the_tolerance_either_way():
    sunfish = AnchorSpeed("sunfish", 12_278, 35_336)  # round robin, then L1450's round 2 games
    assert sunfish.ratio == pytest.approx(2.878, abs=1e-3) and sunfish.changed()
    assert AnchorSpeed("a", 1000, 1250).changed() is False  # 1.25x: the bound itself is in
    assert AnchorSpeed("a", 1000, 1251).changed() and AnchorSpeed("a", 1000, 799).changed()
    assert not AnchorSpeed("a", 1000, 800).changed()  # 1/1.25 = 0.8
    assert AnchorSpeed("a", 1000, 1400).changed(1.5) is False


def test_only_anchors_with_a_speed_on_both_sides_are_compared():
    rated = {"sf": 785_617.0, "sunfish": 12_278.0, "phalanx": math.nan, "unplayed": 5000.0,
             "silent": 0.0}
    played = {"sunfish": 35_336.0, "sf": 1_826_000.0, "phalanx": math.nan, "silent": 10.0,
              "L1450": 30_000.0}
    speeds = anchor_speeds(rated, played)
    assert [s.name for s in speeds] == ["sf", "sunfish"]  # rated's order
    assert speed_rows(speeds) == (
        ["anchor", "nodes/s rated at", "nodes/s against the levels", "ratio"],
        [["sf", "785.6k", "1.83M", "2.32"], ["sunfish", "12.3k", "35.3k", "2.88"]])


def test_the_sentence_names_the_changed_anchors_most_changed_first():
    speeds = [AnchorSpeed("sf", 785_617, 1_826_000), AnchorSpeed("slow", 10_000, 3_000),
              AnchorSpeed("same", 1000, 1100)]
    assert changed_text(speeds) == (
        "Speed changed beyond 1.25x: slow (0.30x), sf (2.32x). An anchor whose strength follows "
        "its speed (one that plays on the clock) does not play these levels at its rating.")
    assert changed_text(speeds[2:]) == ("Every anchor searched within 1.25x of the speed it "
                                        "was rated at.")


def test_speeds_print_in_the_units_of_their_size():
    assert [speed_text(v) for v in (1_124_373, 1_000_000, 32_562, 999.6, 850, math.nan)] == [
        "1.12M", "1.00M", "32.6k", "1000", "850", "-"]
