"""Score module: mate distances, table adjustment, 16-bit packing, UCI text (CPW "Score")."""

from __future__ import annotations

import pytest

from engine import score as sc


def test_ranges_are_disjoint_and_fit_16_bits():
    assert sc.EVAL_LIMIT < sc.MATE_BOUND < sc.MATE_VALUE < sc.INFINITE <= sc.INT16_MAX
    assert not sc.is_mate(sc.EVAL_LIMIT) and not sc.is_mate(-sc.EVAL_LIMIT)
    assert sc.is_mate(sc.mate_in(999)) and sc.is_mate(sc.mated_in(999))
    assert sc.clamp_eval(50000) == sc.EVAL_LIMIT and sc.clamp_eval(-50000) == -sc.EVAL_LIMIT


@pytest.mark.parametrize("ply_found", [0, 1, 7, 40])
@pytest.mark.parametrize("mate_plies_from_node", [1, 2, 5, 30])
def test_mate_found_through_table_keeps_its_distance(ply_found, mate_plies_from_node):
    # A mate `mate_plies_from_node` plies below a node reached at ply `ply_found` is stored, then
    # the same node is reached at another ply: the score read back counts from the new root path.
    stored = sc.to_tt(sc.mate_in(ply_found + mate_plies_from_node), ply_found)
    assert stored == sc.MATE_VALUE - mate_plies_from_node
    for ply_read in (0, 3, 10):
        assert sc.from_tt(stored, ply_read) == sc.mate_in(ply_read + mate_plies_from_node)
    stored = sc.to_tt(sc.mated_in(ply_found + mate_plies_from_node), ply_found)
    assert sc.from_tt(stored, 2) == sc.mated_in(2 + mate_plies_from_node)


def test_non_mate_scores_are_not_adjusted():
    for value in (0, 1, -1, 150, -sc.EVAL_LIMIT, sc.EVAL_LIMIT, sc.MATE_BOUND - 1):
        assert sc.to_tt(value, 12) == value and sc.from_tt(value, 12) == value


BOUNDARIES = [
    sc.INT16_MIN, sc.INT16_MIN + 1, -sc.INFINITE, -sc.MATE_VALUE, -sc.MATE_VALUE + 1,
    -sc.MATE_BOUND, -sc.MATE_BOUND + 1, -sc.EVAL_LIMIT, -1, 0, 1, sc.EVAL_LIMIT,
    sc.MATE_BOUND - 1, sc.MATE_BOUND, sc.MATE_VALUE - 1, sc.MATE_VALUE, sc.INFINITE,
    sc.INT16_MAX - 1, sc.INT16_MAX,
]


@pytest.mark.parametrize("value", BOUNDARIES)
def test_pack16_round_trips_every_boundary(value):
    field = sc.pack16(value)
    assert 0 <= field <= 0xFFFF
    assert sc.unpack16(field) == value
    # a packed table entry: the score field survives neighbours in the same integer
    entry = (0xABC << 32) | (field << 16) | 0x1234
    assert sc.unpack16(entry >> 16) == value


def test_pack16_rejects_out_of_range():
    for value in (sc.INT16_MAX + 1, sc.INT16_MIN - 1):
        with pytest.raises(ValueError, match="16-bit"):
            sc.pack16(value)


def test_every_16_bit_value_round_trips():
    assert all(sc.unpack16(sc.pack16(v)) == v for v in range(sc.INT16_MIN, sc.INT16_MAX + 1))


def test_uci_text():
    assert sc.to_uci(35) == "cp 35"
    assert sc.to_uci(-120, "upperbound") == "cp -120 upperbound"
    assert sc.to_uci(sc.mate_in(1)) == "mate 1"
    assert sc.to_uci(sc.mate_in(3)) == "mate 2"
    assert sc.to_uci(sc.mate_in(5), "lowerbound") == "mate 3 lowerbound"
    assert sc.to_uci(sc.mated_in(2)) == "mate -1"
    assert sc.to_uci(sc.mated_in(4)) == "mate -2"
    with pytest.raises(ValueError, match="bound"):
        sc.to_uci(0, "exact")


def test_contempt_is_from_the_root_side():
    assert sc.draw_score(0, True) == 0 == sc.draw_score(0, False)
    assert sc.draw_score(20, True) == -20 and sc.draw_score(20, False) == 20
