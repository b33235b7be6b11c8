"""SearchMode greenblatt: selective, legal, sensible, and measurably different from full width."""

from __future__ import annotations

import chess
import chess.engine
import pytest

from engine import search
from engine.evaluate import Evaluator
from engine.search.context import SearchContext
from engine.search.greenblatt import PlausibleSelection, basic_width, is_feedover
from engine.tt import TranspositionTable
from tests.engine.conftest import ENGINE_CMD, REPO
from tests.engine.gameplay import opening, play_game
from timecontrol.stopper import ChainedStopper, DepthStopper

POSITIONS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
]


def test_widths_are_greenblatts_tournament_setting():
    assert [basic_width(ply) for ply in range(8)] == [15, 15, 9, 9, 7, 7, 7, 7]


def searched(selection: PlausibleSelection) -> list[chess.Move]:
    """The moves a node would search when none of them leads to mate."""
    moves = []
    for move in selection:
        moves.append(move)
        selection.note(0)
    return moves


def test_selection_keeps_checks_and_early_captures_beyond_the_width():
    board = chess.Board(POSITIONS[2])
    legal = list(board.legal_moves)
    deep = PlausibleSelection(board, legal, 4)
    deep_moves = searched(deep)
    assert 7 <= len(deep_moves) < len(legal)
    assert deep_moves[:7] == deep.ordered[:7]
    safe_checks = [m for m in legal if board.gives_check(m) and m in deep.must]
    assert all(m in deep_moves for m in safe_checks)
    root_moves = searched(PlausibleSelection(board, legal, 0))
    assert 15 <= len(root_moves) < len(legal)
    captures = [m for m in legal if board.is_capture(m)]
    assert captures and all(m in root_moves for m in captures)
    # distinct pieces: at least min(width // 2, pieces with a safe move) pieces are moved
    assert len({m.from_square for m in root_moves}) >= 15 // 2


def test_moves_into_mate_are_not_counted():
    board = chess.Board(POSITIONS[0])
    selection = PlausibleSelection(board, list(board.legal_moves), 4)
    searched = []
    for move in selection:
        searched.append(move)
        selection.note(-31990 if len(searched) <= 3 else 0)
    assert len(searched) == 7 + 3


def test_feedover_conditions():
    # the bishop b4 is hit by the a3 pawn but can retreat: one free piece en prise, no feedover
    board = chess.Board("rnbqk2r/pppp1ppp/5n2/4p3/1b2P3/P1N5/1PPP1PPP/R1BQKBNR b KQkq - 0 4")
    assert not is_feedover(board, False)
    assert is_feedover(board, True)  # ... unless the side to move is also in check
    board = chess.Board("r1bqk2r/pppp1ppp/5n2/2n1p3/1b1PP3/P1N2N2/1PP2PPP/R1BQKB1R b KQkq - 0 6")
    assert is_feedover(board, False)  # knight c5 and bishop b4 both hit by pawns
    # a pinned piece en prise: the rook d7 is pinned against its king and hit by the bishop
    board = chess.Board("3k4/3r4/8/8/6B1/8/8/3RK3 b - - 0 1")
    assert is_feedover(board, False)


def depth_nodes(mode: str, fen: str, depth: int) -> int:
    """Nodes of an in-process search of `fen` to `depth`."""
    ctx = SearchContext(
        board=chess.Board(fen), evaluator=Evaluator(), tt=TranspositionTable(16),
        stopper=ChainedStopper([DepthStopper(depth)]), send=lambda line: None,
    )
    return search.run(mode, ctx).nodes


@pytest.mark.parametrize("fen", POSITIONS)
def test_fewer_nodes_than_full_width_to_the_same_depth(fen, full_width):
    selective = depth_nodes("greenblatt", fen, 4)
    full = depth_nodes("alphabeta", fen, 4)
    assert selective < full


def greenblatt_game(max_plies: int, book_index: int):
    with chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as selective, \
            chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO) as full:
        selective.configure({"SearchMode": "greenblatt"})
        start = opening(book_index)
        log = play_game(selective, full, base_s=10, inc_s=0.1, max_plies=max_plies, start=start)
    assert log.forfeit is None
    assert len(log.telemetry) == log.board.ply() - start.ply()
    return log


def test_greenblatt_plays_legal_moves_against_alphabeta():
    greenblatt_game(max_plies=50, book_index=40)


@pytest.mark.slow
def test_greenblatt_plays_a_full_legal_game_against_alphabeta():
    log = greenblatt_game(max_plies=1000, book_index=41)
    assert log.board.is_game_over(claim_draw=True)
