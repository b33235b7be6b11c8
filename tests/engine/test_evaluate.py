"""engine.evaluate: interface, colour symmetry, terms summing to the evaluation, knowledge
fractions, saturation, material and endgame scaling, PyPy agreement, speed."""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

import chess
import pytest

from engine import score
from engine.evaluate import (
    EVAL_LIMIT,
    PIECE_VALUES,
    TERMS,
    Evaluator,
    MaterialValues,
    evaluate,
)

ROOT = Path(__file__).resolve().parents[2]
PYPY = ROOT / ".venv-pypy" / "bin" / "python"

MIDDLEGAMES = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r2q1rk1/1b1nbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/R3K2R w KQ - 0 11",
    "2rq1rk1/pb2bppp/1p2pn2/n2p4/2PP4/P1NBPN2/1B3PPP/R2QK2R w KQ - 1 12",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/3P1B2/2P1P3/PP3PPP/RN1QKBNR w KQkq - 0 5",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 w - - 0 13",
]


def random_positions(count: int, seed: int = 7) -> list[chess.Board]:
    """Positions from seeded random games: openings, middlegames, odd material, endgames."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randint(4, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.15:
                boards.append(board.copy(stack=False))
    return boards[:count]


def white_view(board: chess.Board, value: int) -> int:
    return value if board.turn == chess.WHITE else -value


def test_interface_names_and_values() -> None:
    assert TERMS == (
        "material", "piece_location", "passed_pawns", "king_safety", "mobility",
        "pawn_structure", "threats", "minor_pieces", "major_pieces", "endgame_scaling",
        "piece_ratio", "center_control",
    )
    assert PIECE_VALUES == {  # the Texel fit's (engine.eval_terms.weights)
        chess.PAWN: 89, chess.KNIGHT: 320, chess.BISHOP: 332, chess.ROOK: 497, chess.QUEEN: 902
    }
    assert EVAL_LIMIT == score.EVAL_LIMIT == 20000
    defaults = MaterialValues()
    assert defaults.middlegame == PIECE_VALUES
    assert set(defaults.endgame) == set(PIECE_VALUES)
    assert defaults.endgame[chess.PAWN] > defaults.middlegame[chess.PAWN]
    assert defaults.endgame[chess.ROOK] > defaults.middlegame[chess.ROOK]


def test_start_position_is_level() -> None:
    board = chess.Board()
    assert evaluate(board) == 0
    assert all(value == 0 for value in Evaluator().terms(board).values())


@pytest.mark.parametrize("fen", MIDDLEGAMES)
def test_mirror_evaluates_the_same_for_the_side_to_move(fen: str) -> None:
    board = chess.Board(fen)
    evaluator = Evaluator()
    assert evaluator.evaluate(board) == evaluator.evaluate(board.mirror())
    mirrored_terms = evaluator.terms(board.mirror())
    assert {t: -v for t, v in evaluator.terms(board).items()} == mirrored_terms


def test_symmetry_and_term_sum_on_random_positions() -> None:
    evaluators = [
        Evaluator(),
        Evaluator({t: 0.37 for t in TERMS}),
        Evaluator({"endgame_scaling": 0.5, "mobility": 0.25, "material": 0.9}),
    ]
    nonzero = 0
    for board in random_positions(300):
        for evaluator in evaluators:
            value = evaluator.evaluate(board)
            assert value == evaluator.evaluate(board.mirror()), board.fen()
            terms = evaluator.terms(board)
            assert list(terms) == list(TERMS)
            assert sum(terms.values()) == white_view(board, value), board.fen()
            nonzero += value != 0
    assert nonzero > 600  # the positions are varied enough to mean something


def test_arbitrary_placements_are_evaluated_symmetrically() -> None:
    """No kings, pawns on the back ranks, nine queens: no crash, still colour-symmetric."""
    rng = random.Random(3)
    evaluator = Evaluator(cache_size=0)
    for _ in range(1500):
        board = chess.Board(None)
        for _ in range(rng.randint(0, 40)):
            piece = chess.Piece(rng.randint(chess.PAWN, chess.KING), rng.random() < 0.5)
            board.set_piece_at(rng.randrange(64), piece)
        board.turn = rng.random() < 0.5
        value = evaluator.evaluate(board)
        assert value == evaluator.evaluate(board.mirror()), board.fen()
        assert -EVAL_LIMIT <= value <= EVAL_LIMIT


def test_side_to_move_flips_the_sign() -> None:
    board = chess.Board(MIDDLEGAMES[1])
    value = evaluate(board)
    board.turn = chess.BLACK
    assert evaluate(board) == -value
    assert value != 0


def test_knowledge_zero_removes_and_half_halves_each_term() -> None:
    boards = [chess.Board(fen) for fen in MIDDLEGAMES] + random_positions(40, seed=3)
    full = Evaluator()
    for term in TERMS:
        if term == "endgame_scaling":
            continue
        none, half = Evaluator({term: 0.0}), Evaluator({term: 0.5})
        seen = False
        for board in boards:
            value = full.terms(board)[term]
            seen |= value != 0
            assert none.terms(board)[term] == 0
            assert half.terms(board)[term] == int(value * 0.5)
            without = white_view(board, full.evaluate(board)) - value
            if not full.terms(board)["endgame_scaling"]:
                assert white_view(board, none.evaluate(board)) == without
        assert seen, f"term {term} never fired on the test positions"


def test_module_level_evaluate_uses_knowledge() -> None:
    board = chess.Board(MIDDLEGAMES[3])
    knowledge = {"king_safety": 0.0, "mobility": 0.5}
    assert evaluate(board, knowledge) == Evaluator(knowledge).evaluate(board)
    assert evaluate(board) == Evaluator().evaluate(board)


def test_bad_knowledge_and_material_are_rejected_with_the_name() -> None:
    with pytest.raises(ValueError, match="mobilty"):
        Evaluator({"mobilty": 0.5})
    with pytest.raises(ValueError, match="threats"):
        Evaluator({"threats": 1.5})
    with pytest.raises(ValueError, match="rook"):
        MaterialValues(middlegame={chess.PAWN: 100, chess.KNIGHT: 3, chess.BISHOP: 3,
                                   chess.QUEEN: 9})
    with pytest.raises(ValueError, match="queen"):
        MaterialValues(endgame={**PIECE_VALUES, chess.QUEEN: 9.5})


def test_saturates_at_eval_limit() -> None:
    huge = {**PIECE_VALUES, chess.QUEEN: 25000}
    evaluator = Evaluator(material=MaterialValues(middlegame=huge, endgame=dict(huge)))
    board = chess.Board("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1")
    assert evaluator.evaluate(board) == EVAL_LIMIT
    board.turn = chess.BLACK
    assert evaluator.evaluate(board) == -EVAL_LIMIT
    assert sum(evaluator.terms(board).values()) > EVAL_LIMIT  # the breakdown is not clipped


def test_material_is_tapered_between_middlegame_and_endgame_values() -> None:
    evaluator = Evaluator()
    pawn_up_endgame = chess.Board("4k3/8/8/8/8/8/P7/4K3 w - - 0 1")
    assert evaluator.terms(pawn_up_endgame)["material"] == MaterialValues().endgame[chess.PAWN]
    # All pieces on the board: the middlegame value.
    pawn_up_opening = chess.Board("rnbqkbnr/1ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert evaluator.terms(pawn_up_opening)["material"] == PIECE_VALUES[chess.PAWN]


def test_material_values_from_middlegame_keep_endgame_ratios() -> None:
    values = MaterialValues.from_middlegame(
        {chess.PAWN: 0, chess.KNIGHT: 320, chess.BISHOP: 320, chess.ROOK: 335, chess.QUEEN: 1197}
    )
    assert values.endgame[chess.PAWN] == 0
    assert values.endgame[chess.ROOK] == int(335 * 540 / 500)
    board = chess.Board(MIDDLEGAMES[0]).copy()
    board.remove_piece_at(chess.D2)
    assert Evaluator(material=values).terms(board)["material"] == 0  # pawns are worth nothing
    assert MaterialValues.from_middlegame(PIECE_VALUES) == MaterialValues()


def test_speed_cpython() -> None:
    """The search needs tens of thousands of evaluations per second. Measured in this process's
    CPU time, so that other processes on the machine do not count (measured: about 60-68k/s;
    the floor leaves a wide margin). The evaluation cache is off: every call computes."""
    evaluator = Evaluator(cache_size=0)
    boards = [chess.Board(fen) for fen in MIDDLEGAMES]
    count, start = 0, time.process_time()
    while time.process_time() - start < 1.0:
        for board in boards:
            evaluator.evaluate(board)
        count += len(boards)
    assert count / (time.process_time() - start) > 15000


_PYPY_SCRIPT = """
import json, sys
import chess
sys.path.insert(0, sys.argv[1])
from engine.evaluate import Evaluator
fens = json.loads(sys.stdin.read())
evaluators = [Evaluator(), Evaluator({"endgame_scaling": 0.5, "threats": 0.25})]
print(json.dumps([[e.evaluate(chess.Board(f)) for e in evaluators] for f in fens]))
"""


@pytest.mark.skipif(not PYPY.exists(), reason="no PyPy venv at .venv-pypy")
def test_pypy_gives_the_same_values() -> None:
    fens = MIDDLEGAMES + [b.fen() for b in random_positions(60, seed=11)]
    run = subprocess.run(
        [str(PYPY), "-c", _PYPY_SCRIPT, str(ROOT)],
        input=json.dumps(fens), capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stderr
    evaluators = [Evaluator(), Evaluator({"endgame_scaling": 0.5, "threats": 0.25})]
    expected = [[e.evaluate(chess.Board(f)) for e in evaluators] for f in fens]
    assert json.loads(run.stdout) == expected


def test_caches_are_bounded_and_change_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Placement, pawn and material caches: a fresh evaluator per position computes every
    entry; one evaluator (with custom material, knowledge: the material table belongs to it)
    over all positions, twice, reads them back."""
    from engine import evaluate as evaluate_module
    from engine.eval_terms import pawns

    boards = random_positions(150, seed=5)
    material = MaterialValues.from_middlegame({1: 90, 2: 350, 3: 310, 4: 480, 5: 1000})
    settings = [({}, None), ({"endgame_scaling": 0.5, "piece_ratio": 0.3}, material)]
    monkeypatch.setattr(pawns, "CACHE_LIMIT", 3)
    monkeypatch.setattr(evaluate_module, "MATERIAL_CACHE_SIZE", 3)
    for knowledge, values in settings:
        reference = [Evaluator(knowledge, values, cache_size=0).evaluate(b) for b in boards]
        small = Evaluator(knowledge, values, cache_size=4)
        pawns._CACHE.clear()
        for _ in range(2):  # the second pass reads what the caches kept
            assert [small.evaluate(b) for b in boards] == reference
            assert [small.evaluate(b.mirror()) for b in boards] == reference
            assert len(small._cache) <= 4
            assert len(pawns._CACHE) <= 3
            assert len(small._material_cache) <= 3
    shared = Evaluator(cache_size=0)
    for board in boards:
        shared.evaluate(board)
    assert 0 < len(shared._material_cache) < len(boards) / 2  # positions share material
    # The cache is keyed by placement: the side to move and castling rights still count.
    board = chess.Board(MIDDLEGAMES[1])
    value = small.evaluate(board)
    board.turn = chess.BLACK
    assert small.evaluate(board) == -value
    board.castling_rights = 0
    assert small.evaluate(board) == -value
    with pytest.raises(ValueError, match="cache_size"):
        Evaluator(cache_size=-1)
