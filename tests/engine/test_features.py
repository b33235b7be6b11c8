"""The evaluation as a linear function of its weights (`engine features`) and weights files.

The identity eval == constant + coefficients . weights is checked on positions from random
games out of the book's openings (all phases, scaled endgames included), with the built-in weights
and with every weight perturbed: a term the features missed, or a weight installed in one place
and not another, breaks it.
"""

from __future__ import annotations

import json
import random
import subprocess

import chess
import pytest
from conftest import ENGINE_CMD, REPO, raw_engine, read_until
from gameplay import opening

from engine import eval_weights
from engine.evaluate import ENDGAME_PIECE_VALUES, PIECE_VALUES, Evaluator
from engine.features import is_quiet, linear_features


@pytest.fixture
def restore_weights():
    """Put the built-in weights back whatever the test installed."""
    yield
    eval_weights.install(eval_weights.DEFAULTS)


def sample_positions(count: int = 400, seed: int = 7) -> list[chess.Board]:
    """Positions along random games from the book's openings, down to bare endgames."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    game = 0
    while len(boards) < count:
        board = opening(game)
        game += 1
        while not board.is_game_over() and len(boards) < count:
            moves = list(board.legal_moves)
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
            boards.append(board.copy(stack=False))
    return boards


def white_eval(board: chess.Board) -> int:
    value = Evaluator(cache_size=0).evaluate(board)
    return value if board.turn else -value


def assert_identity(boards: list[chess.Board]) -> int:
    """Check every board; return how many had endgame scaling (a non-integer constant)."""
    weights = eval_weights.current()
    evaluator = Evaluator(cache_size=0)
    expected = [white_eval(board) for board in boards]
    scaled = 0
    with eval_weights.unit_weights():
        found = [linear_features(board, evaluator, weights) for board in boards]
    for board, value, features in zip(boards, expected, found):
        assert features.value(weights) == pytest.approx(value, abs=1e-6), board.fen()
        scaled += abs(features.constant - round(features.constant)) > 1e-9
    return scaled


def test_features_reproduce_the_evaluation_with_the_built_in_weights():
    boards = sample_positions()
    assert assert_identity(boards) > 0  # some endgames were scaled
    assert {b.is_check() for b in boards} == {True, False}


def test_features_reproduce_the_evaluation_with_every_weight_changed(restore_weights):
    rng = random.Random(3)
    changed = {name: (mg + rng.randint(-15, 15), eg + rng.randint(-15, 15))
               for name, (mg, eg) in eval_weights.DEFAULTS.items()}
    eval_weights.install(changed)
    assert eval_weights.current() == changed
    assert_identity(sample_positions(200, seed=11))


def test_every_weight_has_a_coefficient_somewhere():
    """The unit forms reach every named weight (material and the side terms)."""
    weights = eval_weights.current()
    evaluator = Evaluator(cache_size=0)
    seen: set[str] = set()
    with eval_weights.unit_weights():
        for board in sample_positions(1500, seed=5):
            seen.update(linear_features(board, evaluator, weights).coefficients)
    names = {key.rsplit(".", 1)[0] for key in seen}
    common = [n for n in eval_weights.names()
              if not n.startswith(("pst.", "mobility.", "king_attack.", "passed_"))]
    assert set(common) <= names
    assert len(names) > 0.6 * len(eval_weights.names())


def test_quiet_means_no_check_and_no_capture_worth_making():
    assert is_quiet(chess.Board(), Evaluator())
    hanging = chess.Board("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 1 3")
    assert not is_quiet(hanging, Evaluator())  # Bxg5 wins the queen
    assert not is_quiet(chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"), Evaluator())


def test_a_capture_search_long_enough_to_ask_the_stopper_is_judged():
    """About 2000 capture-search nodes: the search asks its stopper on the way (every 1024
    nodes at most), which once failed outside a `run` and ended `tempo tune`."""
    tangled = chess.Board("1nbk2nr/3r1pb1/4pq1p/pppp2p1/1P1PPP2/P1PB2PP/R3NK2/1NB2Q1R w - - 2 16")
    assert not is_quiet(tangled, Evaluator())


def run_features(text: str, *args: str) -> list[dict]:
    done = subprocess.run([*ENGINE_CMD, "features", *args], input=text, capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def weights_file(tmp_path, table: dict) -> str:
    path = tmp_path / "weights.json"
    path.write_text(json.dumps({"weights": table}))
    return str(path)


def test_the_features_command_answers_each_line_and_survives_bad_ones(tmp_path):
    text = (f"{chess.STARTING_FEN}\nnot a fen\n"
            "4k3/8/8/8/8/8/4r3/4K3 w - - bm Kxe2;\n")
    header, start, bad, epd = run_features(text)
    assert header["weights"]["material.pawn"] == [PIECE_VALUES[chess.PAWN],
                                                  ENDGAME_PIECE_VALUES[chess.PAWN]]
    assert start["eval"] == 0 and start["quiet"] and start["fen"] == chess.STARTING_FEN
    assert "error" in bad and "not a fen" in bad["error"]
    assert epd["quiet"] is False and epd["eval"] < -300
    doubled = run_features(f"{chess.STARTING_FEN}\n4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n",
                           "--eval-file", weights_file(tmp_path, {"material.pawn": [200, 250]}))
    assert doubled[0]["weights"]["material.pawn"] == [200, 250]
    assert doubled[2]["coefficients"]["material.pawn.eg"] == pytest.approx(1.0)
    assert doubled[2]["eval"] > run_features("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n")[1]["eval"] + 100


@pytest.mark.parametrize("table, message", [
    ({"no_such": [1, 2]}, "unknown weight 'no_such'"),
    ({"isolated": [1.5, 2]}, "'isolated' needs \\[mg, eg\\] integers"),
    ({"isolated": [1]}, "'isolated' needs"),
    ({"material.pawn": [0, 100]}, "must be positive"),
    ({"doubled": [-9000, 0]}, "beyond"),
])
def test_a_bad_weights_file_is_refused_naming_file_and_key(tmp_path, table, message):
    path = weights_file(tmp_path, table)
    with pytest.raises(eval_weights.WeightsError, match=message) as caught:
        eval_weights.read_weights_file(path)
    assert path in str(caught.value)


def test_eval_file_option_changes_the_evaluation_and_errors_keep_the_engine(tmp_path):
    good = weights_file(tmp_path, {"material.knight": [640, 600]})
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    process = raw_engine()
    try:
        def final(commands: str) -> list[str]:
            process.stdin.write(commands + "position fen 4k3/8/8/8/8/8/4P3/1N2K3 w - - 0 1\n"
                                "eval\nisready\n")
            return read_until(process, "readyok")

        def value(lines: list[str]) -> float:
            line = next(line for line in lines if line.startswith("Final evaluation:"))
            return float(line.split()[2])

        base = value(final(""))
        assert value(final(f"setoption name EvalFile value {good}\n")) > base
        lines = final(f"setoption name EvalFile value {bad}\n")
        assert any(line.startswith("info string error:") and str(bad) in line for line in lines)
        assert value(final("setoption name EvalFile value <empty>\n")) == base
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=10)
