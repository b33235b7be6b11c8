"""The bitboard capture generator gives python-chess's captures, in its order, with the gains the
ordering computes move by move: the search's move order, hence its node count, depends on both."""

from __future__ import annotations

import random

import chess

from engine.captures import (
    CaptureTable,
    capture_search_moves,
    scored_captures,
    scored_promotion_pushes,
)
from engine.evaluate import Evaluator
from engine.ordering import by_key, exchange_gain
from engine.search.alphabeta import AlphaBetaSearch
from engine.search.context import SearchContext
from engine.tt import TranspositionTable
from tests.engine.test_ordering import random_positions
from timecontrol.stopper import ChainedStopper, DepthStopper

PROMOTING = [  # capturing promotions, pushes to the back rank, a blocked pawn, en passant
    "r1n1k3/1P6/8/8/8/8/6p1/K4N1R b - - 0 1",
    "r1n1k3/1P6/8/8/8/8/6p1/K4N1R w - - 0 1",
    "1n2k3/P1P5/8/8/8/8/8/K7 w - - 0 1",
    "4k3/8/8/1pP5/8/8/8/4K3 w - b6 0 2",
    "4k3/8/8/8/2pPp3/8/8/4K3 b - d3 0 2",
]


def test_scored_captures_match_python_chess_in_order():
    boards = ([chess.Board(fen) for fen in PROMOTING] + random_positions(300)
              + random_positions(60, seed=11, chess960=True))
    captures = en_passant = promotions = 0
    for board in boards:
        expected = [(exchange_gain(board, m), m) for m in board.generate_pseudo_legal_captures()]
        assert scored_captures(board) == expected, board.fen()
        for floor in (-1, 0, 95, 300):
            kept = [item for item in expected if item[0] > floor]
            assert scored_captures(board, floor) == kept, (board.fen(), floor)
        captures += len(expected)
        en_passant += sum(board.is_en_passant(m) for _, m in expected)
        promotions += sum(bool(m.promotion) for _, m in expected)
    assert captures > 1000 and en_passant >= 2 and promotions >= 8


def test_scored_promotion_pushes_match_python_chess_in_order():
    for board in [chess.Board(fen) for fen in PROMOTING] + random_positions(100):
        us = board.turn
        pawns = board.pawns & board.occupied_co[us] & chess.BB_RANKS[6 if us else 1]
        expected = [(exchange_gain(board, m), m)
                    for m in board.generate_pseudo_legal_moves(pawns, ~board.occupied)]
        assert scored_promotion_pushes(board) == expected, board.fen()
        queens = [item for item in expected if item[1].promotion == chess.QUEEN]
        assert scored_promotion_pushes(board, (chess.QUEEN,)) == queens
    assert len(scored_promotion_pushes(chess.Board(PROMOTING[2]))) == 8


def test_capture_search_moves_are_the_winning_captures_best_first():
    for board in [chess.Board(fen) for fen in PROMOTING] + random_positions(200):
        noisy = [(exchange_gain(board, m), m) for m in board.generate_pseudo_legal_captures()]
        kept = [(g, m) for g, m in noisy if g > 50]
        kept += [(exchange_gain(board, m), m) for m in board.pseudo_legal_moves
                 if m.promotion == chess.QUEEN and not board.is_capture(m)]
        kept.sort(key=by_key, reverse=True)
        assert capture_search_moves(board, 50) == [m for _, m in kept], board.fen()


def test_search_moves_are_each_move_once_in_stages():
    """The alpha-beta move generator, fed by `scored_captures`: every pseudo-legal move exactly
    once (every legal move in check), the table move first, killers before other quiet moves."""
    rng = random.Random(3)
    boards = ([chess.Board(fen) for fen in PROMOTING] + random_positions(120)
              + random_positions(20, seed=11, chess960=True))
    for board in boards:
        search = AlphaBetaSearch(SearchContext(
            board=board, evaluator=Evaluator(), tt=TranspositionTable(1),
            stopper=ChainedStopper([DepthStopper(1)]), send=lambda line: None,
        ))
        in_check = board.is_check()
        expected = list(board.legal_moves if in_check else board.pseudo_legal_moves)
        if not expected:
            continue
        quiets = [m for m in expected if not board.is_capture(m) and not m.promotion]
        killers = rng.sample(quiets, min(2, len(quiets)))
        search.killers[3] = killers + [None] * (2 - len(killers))
        tt_move = rng.choice(expected)
        for depth in (1, 4):
            yielded = list(search.moves(board, tt_move, 3, depth, in_check))
            assert sorted(yielded, key=str) == sorted(expected, key=str), board.fen()
            assert yielded[0] == tt_move
            if not in_check:
                others = [yielded.index(m) for m in quiets if m not in killers and m != tt_move]
                assert all(yielded.index(k) < min(others, default=999) for k in killers)


def test_pruned_quiet_moves_are_left_out_and_the_rest_keep_their_order():
    """Where the search will skip every quiet move that gives no check (futility or late move
    pruning), the generator yields the full order with exactly those moves left out; asked when
    the quiet moves are reached, so the moves before them (table move, captures, killers) still
    decide whether the caller prunes."""
    rng = random.Random(5)
    boards = random_positions(150) + random_positions(20, seed=11, chess960=True)
    asked = checked = 0
    for board in boards:
        if board.is_check():
            continue
        search = AlphaBetaSearch(SearchContext(
            board=board, evaluator=Evaluator(), tt=TranspositionTable(1),
            stopper=ChainedStopper([DepthStopper(1)]), send=lambda line: None,
        ))
        quiets = [m for m in board.pseudo_legal_moves
                  if not board.is_capture(m) and not m.promotion]
        search.killers[3] = rng.sample(quiets, min(2, len(quiets))) + [None] * 2
        tt_move = rng.choice(quiets) if quiets else None
        for depth in (1, 4):
            full = list(search.moves(board, tt_move, 3, depth, False))
            later = set(quiets) - set(search.killers[3]) - {tt_move}
            kept = [m for m in full if m not in later or board.gives_check(m)]
            calls: list[int] = []

            def prunes(calls: list[int] = calls) -> bool:
                calls.append(1)
                return True

            pruned = list(search.moves(board, tt_move, 3, depth, False, prunes))
            assert pruned == kept, board.fen()
            assert calls == [1], board.fen()
            assert list(search.moves(board, tt_move, 3, depth, False, lambda: False)) == full
            asked += 1
            checked += len(full) - len(kept)
    assert asked > 200 and checked > 1000, (asked, checked)


def test_capture_table_gives_the_lists_of_each_position_and_stays_bounded():
    """Asked again (the same position reached anew, mirrored side to move, a different en
    passant square), the table answers what the generator computes for that position."""
    boards = [chess.Board(fen) for fen in PROMOTING] + random_positions(150)
    table = CaptureTable(size=64)
    for _ in range(2):
        for board in boards:
            for threshold in (-1, 150):
                assert (table.search_moves(board, threshold)
                        == capture_search_moves(board, threshold)), board.fen()
            assert table.scored(board) == scored_captures(board)
            assert len(table._lists) <= 64
    with_ep = chess.Board("4k3/8/8/2n1p3/2pPp3/8/8/4K3 b - d3 0 2")
    without_ep = with_ep.copy()
    without_ep.ep_square = None
    other_side = with_ep.copy()
    other_side.turn = chess.WHITE
    table = CaptureTable()
    for board in (with_ep, without_ep, other_side):
        assert table.scored(board) == scored_captures(board)
    assert len({len(scored_captures(b)) for b in (with_ep, without_ep, other_side)}) == 3
