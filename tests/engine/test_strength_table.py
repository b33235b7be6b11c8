"""engine.strength.table: loading, validating, interpolating and writing calibrated Elo tables."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.strength.params import ELO_MAX, ELO_MIN, params_for_elo
from engine.strength.table import EloTable, EloTableError, TableRow, write_table

HEADER = "Elo,NPS,MoveError,BlunderError,BlunderPer128"


def formula_rows(elos):
    rows = []
    for elo in elos:
        p = params_for_elo(elo)
        rows.append(TableRow(elo, p.nps, p.move_error, p.blunder_error, p.blunder_per128))
    return rows


def write(tmp_path, text, name="table.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_round_trip_reproduces_formula_rows(tmp_path):
    path = str(tmp_path / "formula.csv")
    write_table(path, formula_rows(range(600, 2601, 200)), comments=["formula, MadChess 3.2 beta"])
    text = (tmp_path / "formula.csv").read_text()
    assert text.splitlines()[:2] == ["# formula, MadChess 3.2 beta", HEADER]
    table = EloTable.load(path)
    assert table.source == path
    for elo in range(600, 2601, 200):
        got, want = table.params_for_elo(elo), params_for_elo(elo)
        assert (got.nps, got.move_error, got.blunder_error, got.blunder_per128) == (
            want.nps,
            want.move_error,
            want.blunder_error,
            want.blunder_per128,
        )
        assert got.knowledge == want.knowledge
        assert got.knowledge_per128 == want.knowledge_per128
        assert got.material == want.material


def test_interpolation_between_rows(tmp_path):
    table = EloTable(formula_rows([1000, 1200]))
    middle = table.params_for_elo(1100)
    # NPS geometrically: sqrt(3700 x 16700) = 7860.7; errors linearly, truncated.
    assert middle.nps == 7860
    assert middle.move_error == 30  # (33 + 27) / 2
    assert middle.blunder_error == 321  # (366 + 276) / 2
    assert middle.blunder_per128 == 13  # 13.5 truncated
    assert table.params_for_elo(1150).move_error == 28  # 33 - 4.5, truncated
    assert middle.material == params_for_elo(1100).material


def test_elo_outside_the_table_takes_the_end_rows():
    table = EloTable(formula_rows([1000, 2000]))
    low, high = table.params_for_elo(600), table.params_for_elo(2600)
    assert (low.elo, low.nps, low.move_error) == (600, 3700, 33)
    assert (high.elo, high.nps, high.move_error) == (2600, 480700, 9)
    # The end row whole: its material and depth cap follow its search effort, not 600's.
    assert (low.material, low.depth_cap) == (params_for_elo(1000).material, 5)
    assert low.material != params_for_elo(600).material
    single = EloTable(formula_rows([1500]))
    assert single.params_for_elo(700).nps == single.params_for_elo(2500).nps


def test_knowledge_override_columns(tmp_path):
    path = write(
        tmp_path,
        f"{HEADER},passed_pawns,threats\n600,500,50,600,16,0.0,0.5\n1000,3700,33,366,14,1.0,0.5\n",
    )
    table = EloTable.load(path)
    params = table.params_for_elo(800)
    assert params.knowledge["passed_pawns"] == pytest.approx(0.5)
    assert params.knowledge_per128["passed_pawns"] == 64
    assert params.knowledge_per128["threats"] == 64
    # Terms without a column follow the formula at the search effort's Elo: NPS
    # trunc(sqrt(500 x 3700)) = 1360 is the formulas' 600 + 200 (860/200)^(1/4) = 888.
    assert (params.nps, params.effort_elo) == (1360, 888)
    assert params.knowledge_per128["king_safety"] == params_for_elo(888).knowledge_per128[
        "king_safety"
    ]
    out = str(tmp_path / "out.csv")
    write_table(out, table.rows)
    assert EloTable.load(out).rows == table.rows


monotone_tables = st.lists(
    st.tuples(
        st.integers(ELO_MIN, ELO_MAX),
        st.integers(1, 3_000_000),
        st.integers(0, 700),
        st.integers(0, 1000),
        st.integers(0, 128),
        st.floats(0.0, 1.0),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda t: t[0],
)


def sort_monotone(raw):
    """Columns sorted independently: Elo, NPS, knowledge up; errors and blunders down."""
    columns = list(zip(*raw))
    ups = [sorted(columns[i]) for i in (0, 1, 5)]
    downs = [sorted(columns[i], reverse=True) for i in (2, 3, 4)]
    return [
        TableRow(e, n, me, be, bp, {"mobility": k})
        for e, n, k, me, be, bp in zip(ups[0], ups[1], ups[2], *downs)
    ]


@settings(deadline=None)
@given(monotone_tables)
def test_interpolation_is_monotone_and_stays_between_rows(raw):
    rows = sort_monotone(raw)
    table = EloTable(rows)
    previous = None
    for elo in range(ELO_MIN, ELO_MAX + 1, 7):
        params = table.params_for_elo(elo)
        if previous is not None:
            assert params.nps >= previous.nps
            assert params.move_error <= previous.move_error
            assert params.blunder_error <= previous.blunder_error
            assert params.blunder_per128 <= previous.blunder_per128
            assert params.knowledge["mobility"] >= previous.knowledge["mobility"]
        assert rows[0].nps <= params.nps <= rows[-1].nps
        assert rows[-1].move_error <= params.move_error <= rows[0].move_error
        previous = params
    for row in rows:
        exact = table.params_for_elo(row.elo)
        assert (exact.nps, exact.move_error, exact.blunder_error, exact.blunder_per128) == (
            row.nps,
            row.move_error,
            row.blunder_error,
            row.blunder_per128,
        )
        assert math.isclose(exact.knowledge["mobility"], row.knowledge["mobility"])


@pytest.mark.parametrize(
    "text, line, message",
    [
        (f"{HEADER}\n600,500,50,603,16\n800,7x0,41,475,15\n", 3, "NPS '7x0' is not an integer"),
        (f"# note\n\n{HEADER}\n800,700,41,475,15\n700,600,41,475,15\n", 5, "does not increase"),
        (f"{HEADER}\n600,500,50,603,16,1\n", 2, "6 fields"),
        (f"{HEADER}\n600,500,50,603,200\n", 2, "BlunderPer128 200"),
        (f"{HEADER}\n500,500,50,603,16\n", 2, "Elo 500 outside"),
        (f"{HEADER}\n600,0,50,603,16\n", 2, "NPS 0"),
        (f"{HEADER}\n600,500,-1,603,16\n", 2, "MoveError -1"),
        ("Elo,NPS,MoveError,BlunderError\n600,500,50,603\n", 1, "missing column(s) BlunderPer128"),
        (f"{HEADER},passed_pawn\n600,500,50,603,16,1\n", 1, "unknown column 'passed_pawn'"),
        (f"{HEADER},NPS\n600,500,50,603,16,1\n", 1, "column 'NPS' appears twice"),
        (f"{HEADER},mobility\n600,500,50,603,16,1.5\n", 2, "mobility = 1.5 outside 0..1"),
        (f"{HEADER},mobility\n600,500,50,603,16,nan\n", 2, "not a finite number"),
        (f"{HEADER},mobility\n600,500,50,603,16,half\n", 2, "'half' is not a number"),
    ],
)
def test_malformed_tables_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(EloTableError) as error:
        EloTable.load(path)
    assert f"{path}:{line}:" in str(error.value)
    assert message in str(error.value)


def test_missing_empty_and_headerless_files_name_the_file(tmp_path):
    missing = str(tmp_path / "nowhere.csv")
    with pytest.raises(EloTableError, match="nowhere.csv: cannot read"):
        EloTable.load(missing)
    only_header = write(tmp_path, f"# calibrated\n{HEADER}\n", "empty.csv")
    with pytest.raises(EloTableError, match="empty.csv: the table has no rows"):
        EloTable.load(only_header)
    comments = write(tmp_path, "# nothing here\n\n", "comments.csv")
    with pytest.raises(EloTableError, match="comments.csv: no header line"):
        EloTable.load(comments)


def test_rows_from_code_are_validated(tmp_path):
    with pytest.raises(EloTableError, match="calibration: row for Elo 900: .*does not increase"):
        EloTable(formula_rows([1000, 900]), source="calibration")
    mixed = [
        TableRow(600, 500, 50, 603, 16, {"mobility": 0.0}),
        TableRow(800, 700, 41, 475, 15),
    ]
    with pytest.raises(EloTableError, match="same knowledge terms"):
        write_table(str(tmp_path / "bad.csv"), mixed)
    assert not (tmp_path / "bad.csv").exists()
    with pytest.raises(EloTableError, match="unknown knowledge term 'material'"):
        EloTable([TableRow(600, 500, 50, 603, 16, {"material": 0.5})])


def test_material_depth_cap_and_missing_knowledge_follow_the_search_effort():
    # A calibrated row at 650 that searches as fast as the formulas' 1063 (the level it was
    # measured from) keeps that level's full material, depth cap and knowledge, not the 650's
    # (no pawn value left, depth 1).
    slow, fast = params_for_elo(650), params_for_elo(1063)
    table = EloTable([TableRow(650, fast.nps, slow.move_error, slow.blunder_error,
                               slow.blunder_per128)])
    row = table.params_for_elo(650)
    assert (row.elo, row.effort_elo, row.nps) == (650, 1063, fast.nps)
    assert row.material == fast.material != slow.material
    assert row.depth_cap == fast.depth_cap == 5 != slow.depth_cap
    assert row.knowledge == fast.knowledge
    assert (row.move_error, row.blunder_error) == (slow.move_error, slow.blunder_error)


def test_a_row_at_the_top_effort_without_errors_searches_like_full_strength():
    # The calibration ends its curve at full strength as the row NPS 2000500 (MadChess's top),
    # no move error, no blunder (lab/calibration/tables.py, `full_strength_row`): such a row
    # makes no error, so it needs no MultiPV, and it searches with the formulas' top effort:
    # full speed over the calibration's average move, every material and knowledge term whole.
    from engine.strength.throttle import ENGINE_NPS, MADCHESS_TOP_NPS, REFERENCE_MOVE_S

    top = params_for_elo(ELO_MAX)
    row = EloTable([TableRow(1720, MADCHESS_TOP_NPS, 0, 0, 0)]).params_for_elo(1720)
    assert not row.makes_errors and row.effort_elo == ELO_MAX
    assert row.nodes == math.trunc(ENGINE_NPS * REFERENCE_MOVE_S) == top.nodes
    assert (row.depth_cap, row.material, row.knowledge) == (top.depth_cap, top.material,
                                                            top.knowledge)
