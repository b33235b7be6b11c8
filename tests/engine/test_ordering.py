"""Move ordering helpers: the fast check test agrees with python-chess everywhere."""

from __future__ import annotations

import random

import chess

from engine.eval_terms.bits import popcount_by_table
from engine.ordering import capture_gain, gives_check, plausibility

SPECIAL = [  # castling into check, en passant discoveries, promotions with check
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/K1pP3r/8/8/8/7k w - c6 0 2",
    "8/8/8/k2Pp2R/8/8/8/7K w - e6 0 2",
    "7k/1P6/8/8/8/8/6p1/K7 w - - 0 1",
    "3k4/1P6/8/8/8/8/8/K7 w - - 0 1",
]


def random_positions(count: int, seed: int = 7) -> list[chess.Board]:
    rng = random.Random(seed)
    boards = [chess.Board(fen) for fen in SPECIAL]
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randint(1, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.05:
                boards.append(board.copy(stack=False))
    return boards


def test_gives_check_matches_python_chess():
    tested = checks = 0
    for board in random_positions(400):
        for move in board.legal_moves:
            expected = board.gives_check(move)
            assert gives_check(board, move) == expected, (board.fen(), move.uci())
            tested += 1
            checks += expected
    assert tested > 5000 and checks > 100


def test_plausibility_prefers_winning_material_and_development():
    board = chess.Board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    capture = chess.Move.from_uci("e4d5")
    assert capture_gain(board, capture) > 0
    develop = plausibility(board, chess.Move.from_uci("g1f3"))
    rim = plausibility(board, chess.Move.from_uci("g1h3"))
    assert develop > rim
    hang = plausibility(board, chess.Move.from_uci("d1g4"))  # the queen walks into Bc8xg4
    assert hang < develop


def test_popcount_by_table():
    rng = random.Random(3)
    for _ in range(2000):
        bb = rng.getrandbits(64) & rng.getrandbits(64)
        assert popcount_by_table(bb) == bin(bb).count("1")
    assert popcount_by_table(chess.BB_ALL) == 64 and popcount_by_table(0) == 0
