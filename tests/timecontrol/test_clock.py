"""One side's clock under the harness rules (docs/reference/harness_and_stats.md sections 2.3,
3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from timecontrol.clock import Clock, ClockError
from timecontrol.control import parse_time_control
from timecontrol.go import go_params


def clock(text: str) -> Clock:
    return Clock(parse_time_control(text))


def test_starts_at_base_plus_increment_and_adds_increment_after_each_move() -> None:
    c = clock("60+0.6")
    assert c.remaining_ms == 60_600
    assert c.moves_to_go is None
    assert c.go_fields() == {"time": 60_600, "inc": 600}
    assert c.charge(1000)
    assert c.remaining_ms == 60_200
    assert c.charge(0)
    assert c.remaining_ms == 60_800
    assert c.moves_made == 2


def test_period_refill_after_the_last_move_of_the_period() -> None:
    c = clock("2/10+1")
    assert c.go_fields() == {"time": 11_000, "inc": 1000, "movestogo": 2}
    assert c.charge(4000)
    assert c.go_fields() == {"time": 8000, "inc": 1000, "movestogo": 1}
    assert c.charge(8000)
    # 0 left + increment, then the next period's 10 s; movestogo starts over.
    assert c.go_fields() == {"time": 11_000, "inc": 1000, "movestogo": 2}


def test_flag_on_the_last_move_of_a_period_is_a_loss() -> None:
    """cutechess deducts and checks before the refill (fastchess would refill first)."""
    c = clock("2/10")
    assert c.charge(9000)
    assert c.moves_to_go == 1 and c.remaining_ms == 1000
    assert not c.charge(1500)
    assert c.flagged
    assert c.overrun_ms == 500
    with pytest.raises(ClockError, match="already flagged"):
        c.charge(1)


def test_margin_forgives_an_overrun_and_leaves_zero_then_the_increment() -> None:
    c = clock("1+0.1")
    assert c.remaining_ms == 1100
    assert c.charge(1150, margin_ms=100)
    assert c.remaining_ms == 100
    assert not c.charge(201, margin_ms=100)
    assert c.overrun_ms == 101


def test_exactly_the_time_left_does_not_flag() -> None:
    c = clock("1")
    assert c.charge(1000)
    assert c.remaining_ms == 0
    assert not clock("1").charge(1001)


def test_fixed_time_per_move_resets_and_flags_past_it() -> None:
    c = clock("st=0.5")
    assert c.go_fields() == {"movetime": 500}
    assert c.charge(500)
    assert c.remaining_ms == 500
    assert c.charge(520, margin_ms=50)
    assert not c.charge(551, margin_ms=50)


@pytest.mark.parametrize(("text", "fields"),
                         [("nodes=100", {"nodes": 100}), ("depth=4", {"depth": 4}),
                          ("inf", {})])
def test_limits_without_a_clock_never_flag(text: str, fields: dict[str, int]) -> None:
    c = clock(text)
    assert c.go_fields() == fields
    assert c.remaining_ms is None
    assert c.charge(10_000_000)


def test_negative_elapsed_is_an_error() -> None:
    with pytest.raises(ClockError):
        clock("60").charge(-1)


def test_go_params_time_odds_and_movestogo_of_the_mover() -> None:
    white, black = clock("40/60+1"), clock("10+0.1")
    go = go_params(white, black, white_to_move=True)
    assert (go.wtime, go.btime, go.winc, go.binc, go.movestogo) == (61_000, 10_100, 1000, 100,
                                                                     40)
    go = go_params(white, black, white_to_move=False)
    assert go.movestogo is None
    go = go_params(clock("nodes=500"), black, white_to_move=True)
    assert (go.wtime, go.btime, go.winc, go.binc, go.nodes) == (None, None, None, None, 500)
    go = go_params(clock("nodes=500"), black, white_to_move=False)
    assert (go.wtime, go.btime, go.nodes) == (None, 10_100, None)
    go = go_params(clock("st=1"), clock("st=2"), white_to_move=False)
    assert go.movetime == 2000 and go.wtime is None
    assert go_params(clock("inf"), clock("inf"), white_to_move=True).infinite


@given(st.lists(st.integers(0, 3000), min_size=1, max_size=120))
def test_time_is_conserved_over_a_game(elapsed: list[int]) -> None:
    """While no move overruns, the time left is everything credited minus everything used."""
    c = clock("7/20+0.25")
    used = 0
    for move, ms in enumerate(elapsed, start=1):
        before = c.remaining_ms
        assert before is not None
        if not c.charge(ms):
            assert ms > before
            return
        used += ms
        credited = 20_000 + 250 * (move + 1) + 20_000 * (move // 7)
        assert c.remaining_ms == credited - used
        assert c.moves_to_go == 7 - move % 7
