"""Selective alpha-beta: each pruning or reduction saves nodes (the test fails if it is removed),
keeps the answers of solved positions, and never turns a pass or a bound into a mate score.

Searches run in process to a fixed depth, so node counts are deterministic.
"""

from __future__ import annotations

import chess
import pytest

import engine.search.alphabeta as alphabeta
from engine.bench import BENCH_POSITIONS
from engine.evaluate import Evaluator
from engine.score import MATE_BOUND, mate_in
from engine.search.context import SearchContext
from engine.tt import TranspositionTable
from timecontrol.stopper import ChainedStopper, DepthStopper

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
QGD = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 2 9"


def context(fen: str, depth: int) -> SearchContext:
    return SearchContext(
        board=chess.Board(fen), evaluator=Evaluator(), tt=TranspositionTable(16),
        stopper=ChainedStopper([DepthStopper(depth)]), send=lambda line: None,
    )


def run(fen: str, depth: int):
    return alphabeta.search(context(fen, depth))


def nodes(fen: str, depth: int) -> int:
    return run(fen, depth).nodes


def test_null_move_pruning_saves_nodes(monkeypatch):
    with_null = nodes(ITALIAN, 5) + nodes(QGD, 5)
    monkeypatch.setattr(alphabeta, "NULL_MIN_DEPTH", 10**6)
    without = nodes(ITALIAN, 5) + nodes(QGD, 5)
    assert with_null < 0.85 * without, (with_null, without)


def test_null_move_reduction_follows_depth_and_margin():
    assert alphabeta.null_move_reduction(3, 100, 100) == 4
    assert alphabeta.null_move_reduction(9, 150, 100) == 6
    assert alphabeta.null_move_reduction(9, 500, 100) == 8
    assert alphabeta.null_move_reduction(12, 5000, 0) == 10  # at most 3 for the margin


@pytest.mark.parametrize(("fen", "expected"), [
    ("8/5k2/8/3p4/3P4/5K2/8/8 w - - 0 1", False),  # kings and pawns: zugzwang territory
    ("8/5k2/8/3p4/3P4/5K2/8/5B2 w - - 0 1", True),
    ("8/5k2/8/3p4/3P4/5K2/8/5b2 w - - 0 1", False),  # only the side to move's pieces count
])
def test_zugzwang_guard_needs_a_piece_besides_king_and_pawns(fen, expected):
    assert alphabeta.has_non_pawn_material(chess.Board(fen)) is expected


ROOK_LADDER = "6k1/R7/8/8/8/8/8/1R4K1 b - - 0 1"
"""After ...Kg8-h8, White to move: even if White passes, Black's only move ...Kg8 allows Rb8#."""


def test_a_pass_that_still_mates_is_a_cutoff_but_never_a_mate_score():
    board = chess.Board(ROOK_LADDER)
    board.push(chess.Move.from_uci("g8h8"))
    ctx = context(ROOK_LADDER, 99)
    ctx.board = board
    search = alphabeta.AlphaBetaSearch(ctx)
    static = search.evaluate(board)
    # depth 9: reduction 3 + 3 + 0, so the pass is searched 2 plies deep and finds the mate
    assert alphabeta.null_move_reduction(9, static, static - 1) == 6
    score = search.null_move_cutoff(board, 9, static - 1, static, 1)
    assert score is not None and static - 1 <= score < MATE_BOUND
    assert search.null_move_cutoff(board, 9, MATE_BOUND + 3, static, 1) is None  # mate window


def test_late_move_reductions_save_nodes(monkeypatch):
    """Depth 7 over the bench positions (at 5 the shallow prunings leave LMR little to save):
    65283 nodes, 79929 without (0.82; at depth 8, 160682 against 202943). Before the capture
    search kept its results in the table (and SEE pruning), 109909 against 146946 (0.75): those
    took 46 % off the search without LMR and 41 % off the search with it.
    Single positions vary: LMR saves 46 % in the Italian one (10731 against 19998) and 13 % in
    Kiwipete (21223 against 24482)."""
    reduced = sum(nodes(fen, 7) for fen in BENCH_POSITIONS)
    monkeypatch.setattr(alphabeta, "LMR_MIN_DEPTH", 10**6)
    full = sum(nodes(fen, 7) for fen in BENCH_POSITIONS)
    assert reduced < 0.85 * full, (reduced, full)


@pytest.mark.parametrize(("depth", "move_number", "pv_node", "history", "expected"), [
    (3, 2, False, 0, 1),    # 0.75 + ln 3 ln 2 / 2.25 = 1.09
    (8, 20, False, 0, 3),   # 0.75 + ln 8 ln 20 / 2.25 = 3.74
    (8, 20, True, 0, 2),    # one less at PV nodes
    (8, 20, True, 400, 1),  # and one less for a good history
    (3, 40, False, 0, 1),   # 2.62, but at least one ply is left
    (3, 2, True, 0, 0),     # never below 0
])
def test_late_move_reduction_table(depth, move_number, pv_node, history, expected):
    assert alphabeta.late_move_reduction(depth, move_number, pv_node, history) == expected


def test_shallow_pruning_saves_nodes(monkeypatch):
    """Reverse futility, futility and late move pruning: 7612 nodes at depth 5, 22957 without."""
    pruned = nodes(ITALIAN, 5) + nodes(QGD, 5)
    monkeypatch.setattr(alphabeta, "SHALLOW_DEPTH", 0)
    full = nodes(ITALIAN, 5) + nodes(QGD, 5)
    assert pruned < 0.6 * full, (pruned, full)


def test_shallow_margins():
    assert alphabeta.reverse_futility_margin(3, False) == 240
    assert alphabeta.reverse_futility_margin(3, True) == 160
    assert alphabeta.futility_margin(1) == 200 and alphabeta.futility_margin(6) == 700
    assert alphabeta.late_move_count(1, True) == 4 and alphabeta.late_move_count(1, False) == 2
    assert alphabeta.late_move_count(6, True) == 39 and alphabeta.late_move_count(6, False) == 19


def test_reverse_futility_never_answers_a_mate_window():
    search = alphabeta.AlphaBetaSearch(context(ITALIAN, 99))
    assert search.reverse_futility_cutoff(3, 100, 500, True)
    assert not search.reverse_futility_cutoff(3, 100, 200, True)
    assert not search.reverse_futility_cutoff(alphabeta.SHALLOW_DEPTH + 1, 100, 5000, True)
    assert not search.reverse_futility_cutoff(1, MATE_BOUND, MATE_BOUND + 500, True)


@pytest.mark.parametrize(("fen", "depth", "best", "mate"), [
    # quiet mating moves that a pruned search must still find, scored as exact mates
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 3, "d1d8", 1),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 1 1", 5, "f6a6", 3),
    ("6k1/R7/8/8/8/8/8/1R4K1 w - - 0 1", 3, "b1b8", 1),
])
def test_quiet_mates_stay_exact(fen, depth, best, mate):
    result = run(fen, depth)
    assert result.best_move == chess.Move.from_uci(best)
    assert result.score == mate_in(2 * mate - 1)


def test_internal_iterative_reduction_saves_nodes(monkeypatch):
    """A node with no table move is searched a ply shallower from IIR_MIN_DEPTH on (the bench's
    six positions at depth 7: 65283 nodes, 88374 without)."""
    assert alphabeta.internal_iterative_reduction(4, None) == 1
    assert alphabeta.internal_iterative_reduction(3, None) == 0
    assert alphabeta.internal_iterative_reduction(9, chess.Move.from_uci("e2e4")) == 0
    with_iir = nodes(ITALIAN, 7) + nodes(QGD, 7)
    monkeypatch.setattr(alphabeta, "IIR_MIN_DEPTH", 10**6)
    without = nodes(ITALIAN, 7) + nodes(QGD, 7)
    assert with_iir < 0.9 * without, (with_iir, without)


def test_steady_checks_come_every_check_interval_nodes_whatever_the_clock(monkeypatch):
    """The bench's searches (`steady_checks`) check their limits at the same node counts however
    slow the clock says they run, so their instruction counts repeat; a timed search checks
    more often when its nodes come slowly (here 100 a second). The trees are the same."""
    counts = {}
    for steady in (True, False):
        ctx = context(BENCH_POSITIONS[0], 8)
        ctx.steady_checks = steady
        ctx.start_time = 0.0
        search = alphabeta.AlphaBetaSearch(ctx)
        monkeypatch.setattr(alphabeta.time, "perf_counter",
                            lambda search=search: search.nodes / 100)
        at = []
        check = search.check

        def counted(check=check, search=search, at=at):
            at.append(search.nodes)
            check()

        search.check = counted
        result = search.run()
        counts[steady] = (result.nodes, at)
    (steady_nodes, steady_at), (timed_nodes, timed_at) = counts[True], counts[False]
    assert steady_nodes == timed_nodes > 5 * alphabeta.CHECK_INTERVAL
    gaps = [b - a for a, b in zip(steady_at, steady_at[1:])]
    # Between iterations a check reschedules from there, so a gap may be longer, never shorter.
    assert gaps and min(gaps) >= alphabeta.CHECK_INTERVAL, gaps
    assert sum(gap == alphabeta.CHECK_INTERVAL for gap in gaps) >= 0.75 * len(gaps), gaps
    assert len(timed_at) > 10 * len(steady_at), (len(timed_at), len(steady_at))


PINNED_DEFENDER = "3b2k1/5npp/8/8/2B5/8/5PPP/3R2K1 w - - 0 1"
"""Rxd8 is mate (the knight that guards d8 is pinned by Bc4), yet a rook for a bishop on a
guarded square: the static exchange, which ignores pins, calls it a loss of 170."""


def test_losing_capture_margin():
    assert alphabeta.losing_capture_margin(1) == -100
    assert alphabeta.losing_capture_margin(6) == -600


def test_shallow_nodes_skip_losing_captures_but_not_checks():
    """Moves of a shallow node that prunes every losing capture: the queen's capture of a guarded
    pawn (no check) is gone, the bishop's sacrifice with check stays; nothing else changes."""
    fen = "r1b2rk1/pppp1ppp/2n5/4p3/2B1P1Q1/8/PPPP1PPP/RNB2RK1 w - - 0 1"
    search = alphabeta.AlphaBetaSearch(context(fen, 99))
    board = search.board
    every = list(search.moves(board, None, 1, 1, False))
    pruned = list(search.moves(board, None, 1, 1, False, None, lambda gain: True))
    queen_takes, bishop_checks = chess.Move.from_uci("g4d7"), chess.Move.from_uci("c4f7")
    assert queen_takes in every and bishop_checks in every
    assert pruned == [move for move in every if move != queen_takes]


def test_a_losing_capture_that_mates_is_searched_at_a_shallow_node():
    """A null-window node at depth 1, far below alpha (futile: its quiet moves are pruned): the
    losing capture Rxd8 gives check, so SEE pruning keeps it and the node sees the mate."""
    search = alphabeta.AlphaBetaSearch(context(PINNED_DEFENDER, 99))
    score = search.search(1, 1000, 1001, 1, False)
    assert score == mate_in(1) - 1  # mated at ply 2 of the search, seen from ply 1
    assert run(PINNED_DEFENDER, 1).best_move == chess.Move.from_uci("d1d8")


def test_see_pruning_saves_nodes(monkeypatch):
    """Depth 7, the Italian and QGD positions: 34216 nodes, 36308 without."""
    pruned = nodes(ITALIAN, 7) + nodes(QGD, 7)
    monkeypatch.setattr(alphabeta, "SEE_PRUNE_MARGIN", 10**6)
    full = nodes(ITALIAN, 7) + nodes(QGD, 7)
    assert pruned < full, (pruned, full)


def test_capture_search_answers_again_from_the_table():
    """Kiwipete's capture search, twice: the second is one node, the first's stored result."""
    search = alphabeta.AlphaBetaSearch(context(BENCH_POSITIONS[2], 99))
    first = search.quiesce(-alphabeta.INFINITE, alphabeta.INFINITE, 0)
    searched = search.nodes
    assert searched > 20
    assert search.quiesce(-alphabeta.INFINITE, alphabeta.INFINITE, 0) == first
    assert search.nodes == searched + 1


def test_the_capture_search_table_saves_nodes(monkeypatch):
    """Depth 7, the Italian and QGD positions: 34216 nodes, 58375 when the capture search only
    reads the table."""
    stored = nodes(ITALIAN, 7) + nodes(QGD, 7)
    store = alphabeta.AlphaBetaSearch.store_result

    def full_width_only(self, key, depth, *args):
        if depth:  # a full-width node stores at depth 1 or more, a capture search at 0
            store(self, key, depth, *args)

    monkeypatch.setattr(alphabeta.AlphaBetaSearch, "store_result", full_width_only)
    unstored = nodes(ITALIAN, 7) + nodes(QGD, 7)
    assert stored < unstored, (stored, unstored)
