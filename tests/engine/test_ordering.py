"""Move ordering helpers: the fast check test agrees with python-chess everywhere."""

from __future__ import annotations

import random

import chess

from engine.captures import capture_search_moves
from engine.eval_terms.bits import popcount_by_table
from engine.evaluate import PIECE_VALUES
from engine.ordering import (
    VALUE,
    capture_gain,
    exchange_gain,
    gives_check,
    plausibility,
    static_exchange,
)

SPECIAL = [  # castling into check, en passant discoveries, promotions with check
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/K1pP3r/8/8/8/7k w - c6 0 2",
    "8/8/8/k2Pp2R/8/8/8/7K w - e6 0 2",
    "7k/1P6/8/8/8/8/6p1/K7 w - - 0 1",
    "3k4/1P6/8/8/8/8/8/K7 w - - 0 1",
]


def random_positions(count: int, seed: int = 7, chess960: bool = False) -> list[chess.Board]:
    """Positions along seeded random games (from random Chess960 starts if `chess960`; the
    special positions first otherwise)."""
    rng = random.Random(seed)
    boards = [] if chess960 else [chess.Board(fen) for fen in SPECIAL]
    while len(boards) < count:
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        for _ in range(rng.randint(1, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.05:
                boards.append(board.copy(stack=False))
    return boards


def test_gives_check_matches_python_chess():
    """Over every pseudo-legal move (the search asks before its legality test), Chess960
    castling included; discovered checks, by a king too, are among them."""
    boards = random_positions(400) + random_positions(100, seed=11, chess960=True) + [
        chess.Board("4k3/8/8/8/4N3/8/8/4R2K w - - 0 1"),  # the knight uncovers the rook
        chess.Board("7k/8/8/8/3K4/8/8/B7 w - - 0 1"),  # the king uncovers the bishop
        chess.Board("4k3/8/8/3pP3/8/8/8/4R2K w - d6 0 1"),  # exd6 e.p. uncovers the rook
    ]
    tested = checks = discovered = 0
    for board in boards:
        for move in board.pseudo_legal_moves:
            expected = board.gives_check(move)
            assert gives_check(board, move) == expected, (board.fen(), move.uci())
            tested += 1
            checks += expected
            if expected:
                after = board.copy(stack=False)
                after.push(move)
                discovered += after.checkers() != chess.BB_SQUARES[move.to_square]
    assert tested > 8000 and checks > 150 and discovered > 10


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


P, N, R, K = VALUE[chess.PAWN], VALUE[chess.KNIGHT], VALUE[chess.ROOK], VALUE[chess.KING]
SEE_EXAMPLES = [  # (fen, move, static exchange in the engine's piece values)
    # CPW "SEE - The Swap Algorithm": the rook takes an undefended pawn
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", P),
    # CPW's second example: NxP NxN RxN BxR QxB QxQ (x-rays behind Re2 and Bf6); Black stops
    # White best after NxN: P - N
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", P - N),
    ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),  # pawn for pawn
    ("3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", P - R),  # RxP RxR RxR RxR
    ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", P),  # the doubled rooks win the pawn
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", P),  # en passant
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", -P),  # a promotion the rook takes: Q - P - Q
    ("4k3/8/3p4/4p3/3K4/8/8/8 w - - 0 1", "d4e5", P - K),  # a king onto a defended square
]


def test_static_exchange_worked_examples():
    assert VALUE[chess.PAWN:chess.KING] == [PIECE_VALUES[t] for t in range(chess.PAWN, chess.KING)]
    assert K > 9 * VALUE[chess.QUEEN] + 2 * (N + VALUE[chess.BISHOP] + R)  # a king outweighs all
    for fen, uci, expected in SEE_EXAMPLES:
        assert static_exchange(chess.Board(fen), chess.Move.from_uci(uci)) == expected, (fen, uci)


def test_exchange_gain_is_exact_only_where_the_guess_loses():
    board = chess.Board(SEE_EXAMPLES[4][0])  # RxP on a defended square: the guess is P - R
    move = chess.Move.from_uci("d2d5")
    assert capture_gain(board, move) == P - R and exchange_gain(board, move) == P
    # the capture search keeps it (it wins a pawn) and drops the losing one
    assert move in capture_search_moves(board)
    assert move not in capture_search_moves(chess.Board(SEE_EXAMPLES[3][0]))
