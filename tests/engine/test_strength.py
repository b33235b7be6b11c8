"""engine.strength params and dump against MadChess "The UCI_LimitStrength Algorithm" (MadChess)
and docs/reference/elo_limit.md."""

import chess
import pytest

from engine import eval_weights
from engine.evaluate import ENDGAME_PIECE_VALUES, PIECE_VALUES
from engine.strength.dump import dump_lines
from engine.strength.params import (
    ELO_MAX,
    ELO_MIN,
    FIXED_TERMS,
    KNOWLEDGE_MAX_ELO,
    TERMS,
    StrengthParams,
    base_material,
    elo_for_nps,
    knowledge_for_elo,
    knowledge_per128_for_elo,
    madchess_material,
    material_for_elo,
    nps_for_elo,
    params_for_elo,
    per128_of,
    percent_of_128,
)

# Seed 000, "Search Speed" table: Elo, NPS, Move Error, Blunder Error, Blunder Percent.
SEED_TABLE = [
    (600, 500, 50, 603, 13),
    (800, 700, 41, 475, 12),
    (1000, 3700, 33, 366, 11),
    (1200, 16700, 27, 276, 10),
    (1400, 51700, 21, 204, 9),
    (1600, 125500, 16, 147, 9),
    (1800, 259700, 12, 106, 8),
    (2000, 480700, 9, 77, 7),
    (2200, 819700, 6, 59, 6),
    (2300, 1044512, 6, 54, 5),
    (2400, 1312700, 5, 51, 5),
    (2500, 1629512, 5, 50, 5),
    (2600, 2000500, 5, 50, 5),
]

KNOWLEDGE_ELOS = (600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2300, 2400)

# Seed 000, "Evaluation Term Knowledge Percentage" table.
SEED_KNOWLEDGE_PERCENT = {
    "passed_pawns": (0, 33, 66, 100, 100, 100, 100, 100, 100, 100, 100),
    "king_safety": (0, 25, 50, 75, 100, 100, 100, 100, 100, 100, 100),
    "piece_location": (0, 20, 40, 59, 80, 100, 100, 100, 100, 100, 100),
    "mobility": (0, 16, 33, 50, 66, 83, 100, 100, 100, 100, 100),
    "pawn_structure": (0, 14, 28, 42, 57, 71, 85, 100, 100, 100, 100),
    "threats": (0, 13, 25, 38, 50, 63, 75, 88, 100, 100, 100),
    "minor_pieces": (0, 12, 23, 35, 47, 59, 70, 82, 94, 100, 100),
    "major_pieces": (0, 12, 23, 35, 47, 59, 70, 82, 94, 100, 100),
    "endgame_scaling": (0, 11, 22, 33, 44, 55, 66, 77, 88, 94, 100),
}

# Reference §1.5, "Derived p/128 values" (3.2 beta: major pieces as minor pieces, endgame scale
# on the last row); empty cells are 128.
REFERENCE_PER128 = {
    "passed_pawns": (0, 42, 85, 128, 128, 128, 128, 128, 128, 128, 128),
    "king_safety": (0, 32, 64, 96, 128, 128, 128, 128, 128, 128, 128),
    "piece_location": (0, 25, 51, 76, 102, 128, 128, 128, 128, 128, 128),
    "mobility": (0, 21, 42, 64, 85, 106, 128, 128, 128, 128, 128),
    "pawn_structure": (0, 18, 36, 54, 73, 91, 109, 128, 128, 128, 128),
    "threats": (0, 16, 32, 48, 64, 80, 96, 112, 128, 128, 128),
    "minor_pieces": (0, 15, 30, 45, 60, 75, 90, 105, 120, 128, 128),
    "major_pieces": (0, 15, 30, 45, 60, 75, 90, 105, 120, 128, 128),
    "endgame_scaling": (0, 14, 28, 42, 56, 71, 85, 99, 113, 120, 128),
}

# Reference §1.6, derived MadChess-scale material (Mg, Eg) for P, N, B, R, Q.
REFERENCE_MATERIAL = {
    600: ((0, 0), (300, 519), (300, 519), (335, 574), (1296, 2222)),
    700: ((50, 63), (300, 519), (307, 525), (376, 645), (1215, 2083)),
    800: ((100, 127), (300, 519), (315, 532), (417, 716), (1135, 1945)),
    900: ((100, 127), (300, 519), (322, 538), (459, 787), (1054, 1807)),
    999: ((100, 127), (300, 519), (330, 545), (500, 858), (975, 1671)),
    1075: ((100, 127), (300, 519), (330, 545), (500, 858), (975, 1671)),
}

PIECES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)

# Seed 000, "Precise Values": the `debug on` output after `info string `.
SEED_DUMP_600 = """LimitStrength = True, ELO = 600.
NPS = 500, MoveError = 50, BlunderError = 603, BlunderPer128 = 16.
MgPawnMaterial = 0
EgPawnMaterial = 0
MgKnightMaterial = 300
EgKnightMaterial = 519
MgBishopMaterial = 300
EgBishopMaterial = 519
MgRookMaterial = 335
EgRookMaterial = 574
MgQueenMaterial = 1296
EgQueenMaterial = 2222
LsPassedPawnsPer128 = 0
LsKingSafetyPer128 = 0
LsPieceLocationPer128 = 0
LsPieceMobilityPer128 = 0
LsPawnStructurePer128 = 0
LsThreatsPer128 = 0
LsMinorPiecesPer128 = 0
LsMajorPiecesPer128 = 0
LsEndgameScalePer128 = 0""".splitlines()

SEED_DUMP_1075 = """LimitStrength = True, ELO = 1075.
NPS = 6863, MoveError = 31, BlunderError = 330, BlunderPer128 = 13.
MgPawnMaterial = 100
EgPawnMaterial = 127
MgKnightMaterial = 300
EgKnightMaterial = 519
MgBishopMaterial = 330
EgBishopMaterial = 545
MgRookMaterial = 500
EgRookMaterial = 858
MgQueenMaterial = 975
EgQueenMaterial = 1671
LsPassedPawnsPer128 = 101
LsKingSafetyPer128 = 76
LsPieceLocationPer128 = 60
LsPieceMobilityPer128 = 50
LsPawnStructurePer128 = 43
LsThreatsPer128 = 38
LsMinorPiecesPer128 = 35
LsMajorPiecesPer128 = 35
LsEndgameScalePer128 = 33""".splitlines()


@pytest.mark.parametrize("elo, nps, move_error, blunder_error, percent", SEED_TABLE)
def test_formula_reproduces_every_seed_row(elo, nps, move_error, blunder_error, percent):
    params = params_for_elo(elo)
    assert (params.nps, params.move_error, params.blunder_error) == (nps, move_error, blunder_error)
    assert params.blunder_percent == percent


def test_1075_example_gives_raw_per128_values():
    params = params_for_elo(1075)
    assert (params.nps, params.move_error, params.blunder_error) == (6863, 31, 330)
    assert params.blunder_per128 == 13
    assert params_for_elo(600).blunder_per128 == 16


def test_blunder_percent_rounds_half_up_not_to_even():
    # Reference §1.2: 16/128 = 12.5 % shows as 13 (Python's round() would give 12).
    assert percent_of_128(16) == 13
    assert percent_of_128(7) == 5  # 5.47 %
    assert percent_of_128(11) == 9  # 8.59 %


def test_parameters_move_monotonically_with_elo():
    previous = params_for_elo(ELO_MIN)
    for elo in range(ELO_MIN + 1, ELO_MAX + 1):
        params = params_for_elo(elo)
        assert params.nps >= previous.nps
        assert params.move_error <= previous.move_error
        assert params.blunder_error <= previous.blunder_error
        assert params.blunder_per128 <= previous.blunder_per128
        assert all(params.knowledge[t] >= previous.knowledge[t] for t in TERMS)
        previous = params


@pytest.mark.parametrize("term", sorted(KNOWLEDGE_MAX_ELO))
def test_knowledge_per128_reproduces_reference_table(term):
    got = tuple(knowledge_per128_for_elo(elo)[term] for elo in KNOWLEDGE_ELOS)
    assert got == REFERENCE_PER128[term]


@pytest.mark.parametrize("term", sorted(KNOWLEDGE_MAX_ELO))
def test_knowledge_percent_reproduces_seed_table(term):
    got = tuple(percent_of_128(knowledge_per128_for_elo(e)[term]) for e in KNOWLEDGE_ELOS)
    assert got == SEED_KNOWLEDGE_PERCENT[term]


def test_knowledge_fraction_is_linear_and_per128_is_its_truncation():
    for term, top in KNOWLEDGE_MAX_ELO.items():
        assert knowledge_for_elo(ELO_MIN)[term] == 0.0
        assert knowledge_for_elo(top)[term] == 1.0
        assert knowledge_for_elo(ELO_MAX)[term] == 1.0
        middle = (ELO_MIN + top) // 2
        assert knowledge_for_elo(middle)[term] == pytest.approx(
            (middle - ELO_MIN) / (top - ELO_MIN)
        )
    for elo in range(ELO_MIN, ELO_MAX + 1):
        fractions = knowledge_for_elo(elo)
        per128 = knowledge_per128_for_elo(elo)
        assert {t: per128_of(f) for t, f in fractions.items()} == per128


def test_fixed_terms_keep_full_knowledge():
    for elo in (600, 1075, 2600):
        params = params_for_elo(elo)
        assert set(params.knowledge) == set(TERMS)
        for term in FIXED_TERMS:
            assert params.knowledge[term] == 1.0
            assert params.knowledge_per128[term] == 128


@pytest.mark.parametrize("elo", sorted(REFERENCE_MATERIAL))
def test_madchess_scale_material_reproduces_reference(elo):
    got = madchess_material(elo)
    assert tuple(got[p] for p in PIECES) == REFERENCE_MATERIAL[elo]


HAND_MADE_MATERIAL = {
    "material.pawn": (100, 125), "material.knight": (320, 300), "material.bishop": (330, 330),
    "material.rook": (500, 540), "material.queen": (900, 950),
}
"""The material values before the Texel fit (engine/evaluate.py at 56cb0ac): round numbers for
worked examples."""


@pytest.fixture
def hand_made_material():
    saved = eval_weights.current()
    eval_weights.install(HAND_MADE_MATERIAL)
    yield
    eval_weights.install(saved)


def test_tempo_scale_material_applies_the_seed_rules(hand_made_material):
    # At 600: pawns worth nothing, bishop = knight, rook trunc(0.67 x base), queen
    # trunc(1.33 x base), in each phase; worked on the hand-made material values.
    assert material_for_elo(600) == {
        chess.PAWN: (0, 0),
        chess.KNIGHT: (320, 300),
        chess.BISHOP: (320, 300),
        chess.ROOK: (335, 361),
        chess.QUEEN: (1197, 1263),
    }
    assert material_for_elo(1075) == base_material()
    assert material_for_elo(800)[chess.PAWN] == base_material()[chess.PAWN]
    assert material_for_elo(999) == base_material()
    params = params_for_elo(700)
    assert params.material_mg[chess.PAWN] == 50 and params.material_eg[chess.PAWN] == 62
    previous = material_for_elo(ELO_MIN)
    for elo in range(ELO_MIN + 1, 1001):
        values = material_for_elo(elo)
        for phase in (0, 1):
            for piece in (chess.PAWN, chess.BISHOP, chess.ROOK):
                assert values[piece][phase] >= previous[piece][phase]
            assert values[chess.QUEEN][phase] <= previous[chess.QUEEN][phase]
            assert values[chess.KNIGHT] == base_material()[chess.KNIGHT]
        previous = values


def test_levels_material_follows_the_evaluations_weights():
    saved = eval_weights.current()
    try:
        eval_weights.install({"material.knight": (350, 310)})
        assert material_for_elo(1500)[chess.KNIGHT] == (350, 310)
        assert "EvalMgKnightMaterial = 350" in dump_lines(params_for_elo(1500))
    finally:
        eval_weights.install(saved)
    assert material_for_elo(1500)[chess.KNIGHT] == saved["material.knight"] == (
        PIECE_VALUES[chess.KNIGHT], ENDGAME_PIECE_VALUES[chess.KNIGHT])


def test_out_of_range_elo_is_an_error():
    with pytest.raises(ValueError, match="599"):
        params_for_elo(599)
    with pytest.raises(ValueError, match="2601"):
        params_for_elo(2601)


def test_params_reject_bad_knowledge_and_values():
    good = params_for_elo(1075)
    fields = dict(
        elo=good.elo,
        effort_elo=good.effort_elo,
        nps=good.nps,
        move_error=good.move_error,
        blunder_error=good.blunder_error,
        blunder_per128=good.blunder_per128,
        knowledge=good.knowledge,
        knowledge_per128=good.knowledge_per128,
        material=good.material,
    )
    StrengthParams(**fields)
    with pytest.raises(ValueError, match="mobility"):
        StrengthParams(**{**fields, "knowledge": {**good.knowledge, "mobility": 1.5}})
    with pytest.raises(ValueError, match="piece_square"):
        StrengthParams(**{**fields, "knowledge": {**good.knowledge, "piece_square": 1.0}})
    with pytest.raises(ValueError, match="blunder_per128"):
        StrengthParams(**{**fields, "blunder_per128": 129})
    with pytest.raises(ValueError, match="NPS"):
        StrengthParams(**{**fields, "nps": 0})


def test_makes_errors():
    assert params_for_elo(2600).makes_errors
    silent = params_for_elo(2600)
    fields = {**silent.__dict__, "move_error": 0, "blunder_error": 0}
    assert not StrengthParams(**fields).makes_errors


@pytest.mark.parametrize("elo, expected", [(600, SEED_DUMP_600), (1075, SEED_DUMP_1075)])
def test_dump_matches_seed_then_lists_tempo_material(elo, expected):
    lines = dump_lines(params_for_elo(elo))
    assert lines[: len(expected)] == expected
    material = material_for_elo(elo)
    tail = []
    for piece in PIECES:
        name = chess.piece_name(piece).capitalize()
        tail += [f"EvalMg{name}Material = {material[piece][0]}"]
        tail += [f"EvalEg{name}Material = {material[piece][1]}"]
    params = params_for_elo(elo)
    tail.append(f"Nodes = {params.nodes}, DepthCap = {params.depth_cap}, "
                f"ThrottleNPS = {params.nps * 26_000 // 2_000_500}.")
    assert lines[len(expected) :] == tail


def test_elo_for_nps_inverts_the_nps_formula():
    # Where the formula's NPS grows by at least one per Elo, the inverse gives the Elo back.
    assert all(elo_for_nps(nps_for_elo(elo)) == elo for elo in range(800, ELO_MAX + 1))
    # Seed rows: 3700 -> 1000, 259700 -> 1800. Lower down truncation flattens the curve (NPS
    # 512 at 700, 563 at 750): from 700 the inverse is within one Elo, below within 53.
    assert (elo_for_nps(3700), elo_for_nps(259700)) == (1000, 1800)
    assert all(abs(elo_for_nps(nps_for_elo(elo)) - elo) <= 1 for elo in range(700, 800))
    assert all(abs(elo_for_nps(nps_for_elo(elo)) - elo) <= 53 for elo in range(600, 700))
    # Every NPS up to the bottom's 500 is the bottom; beyond the top's it is the top.
    assert [elo_for_nps(n) for n in (1, 500, 2_000_500, 10**9)] == [600, 600, 2600, 2600]
    with pytest.raises(ValueError, match="NPS"):
        elo_for_nps(0)
