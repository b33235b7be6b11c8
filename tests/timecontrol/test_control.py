"""Time-control strings: every cutechess/fastchess form, the canonical string, every error."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from timecontrol.control import TimeControl, TimeControlError, parse_time_control


@pytest.mark.parametrize(
    ("text", "expected", "canonical"),
    [
        ("40/60+0.6", TimeControl(moves=40, base_ms=60_000, inc_ms=600), "40/60+0.6"),
        ("60+0.6", TimeControl(base_ms=60_000, inc_ms=600), "60+0.6"),
        ("60", TimeControl(base_ms=60_000), "60"),
        ("0:30+0.2", TimeControl(base_ms=30_000, inc_ms=200), "30+0.2"),
        ("40/1:00+0.6", TimeControl(moves=40, base_ms=60_000, inc_ms=600), "40/60+0.6"),
        ("2:30", TimeControl(base_ms=150_000), "150"),
        ("40/120", TimeControl(moves=40, base_ms=120_000), "40/120"),
        ("10+0.1", TimeControl(base_ms=10_000, inc_ms=100), "10+0.1"),
        ("0.5+0.05", TimeControl(base_ms=500, inc_ms=50), "0.5+0.05"),
        ("0+1", TimeControl(base_ms=0, inc_ms=1000), "0+1"),
        (" 60+1 ", TimeControl(base_ms=60_000, inc_ms=1000), "60+1"),
        ("st=1.5", TimeControl(movetime_ms=1500), "st=1.5"),
        ("st=2", TimeControl(movetime_ms=2000), "st=2"),
        ("nodes=20000", TimeControl(nodes=20_000), "nodes=20000"),
        ("depth=8", TimeControl(depth=8), "depth=8"),
        ("inf", TimeControl(infinite=True), "inf"),
        ("infinite", TimeControl(infinite=True), "inf"),
    ],
)
def test_every_form_parses_to_its_fields_and_canonical_string(
    text: str, expected: TimeControl, canonical: str
) -> None:
    control = parse_time_control(text)
    assert control == expected
    assert str(control) == canonical
    assert parse_time_control(str(control)) == control


def test_clock_and_limit_kinds() -> None:
    assert parse_time_control("40/60+0.6").has_clock
    for text in ("st=1", "nodes=5", "depth=3", "inf"):
        assert not parse_time_control(text).has_clock
    with pytest.raises(dataclasses.FrozenInstanceError):
        parse_time_control("60").base_ms = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "expected"),
        ("abc", "expected 'moves/seconds+increment'"),
        ("40/", "expected"),
        ("/60", "expected"),
        ("0/60", "moves per period must be >= 1"),
        ("60+", "expected"),
        ("-5", "expected"),
        ("60+-1", "expected"),
        ("1e3", "expected"),
        ("nan", "expected"),
        ("1:75", "seconds after ':' must be < 60"),
        ("0+0", "no time on the clock"),
        ("40/0", "no time on the clock"),
        ("st=0", "st= expects positive seconds"),
        ("st=-1", "st= expects positive seconds"),
        ("st=fast", "st= expects positive seconds"),
        ("nodes=1.5", "nodes= expects a positive integer"),
        ("nodes=0", "nodes= expects a positive integer"),
        ("depth=", "depth= expects a positive integer"),
        ("depth=-2", "depth= expects a positive integer"),
        ("foo=3", "unknown key 'foo'"),
        ("60 + 1", "expected"),
    ],
)
def test_bad_strings_raise_an_error_quoting_them(text: str, fragment: str) -> None:
    with pytest.raises(TimeControlError) as caught:
        parse_time_control(text)
    message = str(caught.value)
    assert repr(text) in message
    assert fragment in message
    assert isinstance(caught.value, ValueError)


def test_inconsistent_values_are_refused() -> None:
    with pytest.raises(TimeControlError, match="more than one kind"):
        TimeControl(nodes=5, depth=3)
    with pytest.raises(TimeControlError, match="a clock and a per-move limit"):
        TimeControl(base_ms=1000, movetime_ms=100)
    with pytest.raises(TimeControlError, match="negative"):
        TimeControl(base_ms=1000, inc_ms=-1)


@given(
    moves=st.one_of(st.none(), st.integers(1, 200)),
    base_ms=st.integers(0, 10_000_000),
    inc_ms=st.integers(0, 100_000),
)
def test_canonical_string_round_trips(moves: int | None, base_ms: int, inc_ms: int) -> None:
    if base_ms + inc_ms == 0:
        base_ms = 1
    control = TimeControl(moves=moves, base_ms=base_ms, inc_ms=inc_ms)
    assert parse_time_control(str(control)) == control


@pytest.mark.parametrize(("text", "factor", "expected"), [
    ("10+0.1", 1.6, "16+0.16"),
    ("40/60", 0.5, "40/30"),
    ("1:30+1", 2.0, "180+2"),
    ("0.333+0.01", 1.5, "0.5+0.015"),
    ("st=0.5", 2.0, "st=1"),
    ("st=0.001", 0.1, "st=0.001"),
    ("nodes=2000", 3.0, "nodes=2000"),
    ("depth=8", 0.5, "depth=8"),
    ("inf", 2.0, "inf"),
])
def test_scaled_multiplies_times_only(text: str, factor: float, expected: str) -> None:
    """A worker's speed factor scales base, increment and st= to the ms (at least 1 ms)."""
    assert str(parse_time_control(text).scaled(factor)) == expected


def test_a_control_is_a_value() -> None:
    """Equal text gives equal, equally hashed values (usable as keys), immutable."""
    a, b = parse_time_control("0:10+0.1"), parse_time_control("10+0.1")
    assert a == b and hash(a) == hash(b) and len({a, b, parse_time_control("10")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.base_ms = 1  # type: ignore[misc]
