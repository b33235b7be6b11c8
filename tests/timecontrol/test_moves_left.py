"""mle-legacy against the reference table (docs/reference/smooth_time_manager.md section 5)."""

from __future__ import annotations

import pytest

from timecontrol.moves_left import LegacyMovesLeft

# ply: (MLE(45.2, 5.93), MLE(51.5, 7.0)), reference section 5.
TABLE = {
    0: (45.2000, 51.5000),
    1: (44.7000, 51.0000),
    20: (35.2020, 41.5002),
    40: (25.3203, 31.5196),
    60: (16.4524, 21.8286),
    80: (10.6704, 13.7048),
    100: (8.5486, 9.1168),
    120: (8.4609, 7.7614),
    160: (10.1744, 8.6134),
    200: (12.4847, 10.4846),
    300: (18.6106, 15.6201),
}


@pytest.mark.parametrize("ply", sorted(TABLE))
def test_reference_table(ply: int) -> None:
    head, v1 = TABLE[ply]
    assert LegacyMovesLeft(45.2, 5.93).estimate(ply) == pytest.approx(head, abs=1e-4)
    assert LegacyMovesLeft(51.5, 7.0).estimate(ply) == pytest.approx(v1, abs=1e-4)


def test_defaults_are_the_seed_preset() -> None:
    assert LegacyMovesLeft() == LegacyMovesLeft(51.5, 7.0)


def test_not_monotonic_minimum_near_ply_110_to_120() -> None:
    """Reference §5 says "about 8.4-8.5 near ply 110-120"; the exact minimum of the tabulated
    curve is 8.3507 at ply 111 (its own table gives 8.4609 at ply 120)."""
    mle = LegacyMovesLeft(45.2, 5.93)
    values = {ply: mle.estimate(ply) for ply in range(0, 301)}
    low = min(values, key=values.__getitem__)
    assert low == 111
    assert values[low] == pytest.approx(8.3507, abs=1e-4)
    assert values[300] > values[200] > values[low]
    assert values[300] > values[200] > values[low]


def test_movestogo_caps_only_below_the_estimate() -> None:
    mle = LegacyMovesLeft()
    assert mle.moves_left(0, 20) == 20.0
    assert mle.moves_left(0, 100) == pytest.approx(51.5)
    assert mle.moves_left(0, 0) == pytest.approx(51.5)
    assert mle.moves_left(0, None) == pytest.approx(51.5)


@pytest.mark.parametrize(("midpoint", "steepness"), [(0.0, 7.0), (51.5, 0.0), (-1.0, 7.0)])
def test_bad_parameters(midpoint: float, steepness: float) -> None:
    with pytest.raises(ValueError, match="mle-legacy"):
        LegacyMovesLeft(midpoint, steepness)
