"""The MCTS tree and search in-process: PUCT and FPU numbers from Lc0's formulas
(docs/reference/engines.md 4a), backup signs, the solver, the best-move order, the value and policy,
tree reuse, and mates found by the solver."""

from __future__ import annotations

import math

import chess
import pytest

from engine.evaluate import Evaluator
from engine.score import EVAL_LIMIT, mate_in
from engine.search import mcts
from engine.search.context import SearchContext
from engine.search.mcts_keeper import TreeKeeper
from engine.search.mcts_tree import (
    DRAW,
    LOSS,
    WIN,
    Node,
    backup,
    cpuct,
    descend,
    first_play_urgency,
    propagate,
    prove,
    ranked,
    select,
)
from engine.search.mcts_value import cp_to_value, mop_up, priors, value_to_cp
from engine.tt import TranspositionTable
from timecontrol.stopper import ChainedStopper, NodesStopper


def child(n: int, q: float, proven: int | None = None, plies: int = 0) -> Node:
    node = Node()
    node.n, node.w, node.proven, node.plies = n, q * n, proven, plies
    return node


def parent(priors_: tuple, children: list, q_to_move: float) -> Node:
    node = Node()
    node.moves = tuple(chess.Move(i, i + 8) for i in range(len(priors_)))
    node.priors = priors_
    node.children = children
    node.n = 1 + sum(c.n for c in children if c is not None)
    node.w = -q_to_move * node.n
    return node


KEEPER = TreeKeeper()


def run(board: chess.Board, nodes: int, prepared: bool = False):
    """One in-process mcts search of `board` limited to `nodes` new visits, keeping its tree
    in KEEPER."""
    ctx = SearchContext(board=board.copy(), evaluator=Evaluator(), tt=TranspositionTable(16),
                        stopper=ChainedStopper([NodesStopper(nodes)]), send=lambda line: None,
                        tree_keeper=KEEPER)
    return mcts.search(ctx)


@pytest.fixture(autouse=True)
def fresh_tree():
    KEEPER.new_game()
    yield
    KEEPER.new_game()


# -- selection --------------------------------------------------------------------------------


def test_cpuct_grows_with_parent_visits_as_lc0():
    assert cpuct(0) == pytest.approx(1.745)
    assert cpuct(38739) == pytest.approx(1.745 + 3.894 * math.log(2))


def test_fpu_reduction_decides_between_a_visited_and_an_unvisited_child():
    # Parent: 101 visits, Q 0.4 for the side to move; children 60 visits at Q 0.3 and 40 at 0.5
    # (priors 0.6, 0.38), one unvisited with prior 0.02.
    node = parent((0.6, 0.38, 0.02), [child(60, 0.3), child(40, 0.5), None], 0.4)
    assert first_play_urgency(node) == pytest.approx(0.4 - 0.33 * math.sqrt(0.98))
    # U factor: cpuct(101) * sqrt(100) = 17.5514; scores 0.4726, 0.6627 and, for the unvisited
    # child, 0.0733 + 0.3510 = 0.4244 (it would be 0.7510 > 0.6627 without the reduction).
    assert select(node) == 1
    # with visited children at Q 0.05 and 0.2 (scores 0.2226, 0.3627) the unvisited one wins
    node.children[0] = child(60, 0.05)
    node.children[1] = child(40, 0.2)
    assert select(node) == 2


def test_root_skips_children_that_cannot_catch_up():
    node = parent((0.6, 0.38, 0.02), [child(60, 0.3), child(40, 0.5), None], 0.4)
    assert select(node, remaining=100.0) == 1
    assert select(node, remaining=5.0) == 0


def test_proven_children_count_with_their_exact_value():
    lost_for_mover = child(3, 0.9, proven=WIN, plies=1)
    node = parent((0.5, 0.5), [lost_for_mover, child(3, 0.1)], 0.0)
    assert select(node) == 1


# -- backup and solver ------------------------------------------------------------------------


def test_backup_alternates_the_point_of_view():
    root, a, b = Node(), Node(), Node()
    backup([root, a, b], 1.0)
    assert (root.n, a.n, b.n) == (1, 1, 1)
    assert b.w == -1.0 and a.w == 1.0 and root.w == -1.0
    assert a.q() == 1.0


def test_a_lost_child_proves_a_win_with_the_shortest_mate():
    node = parent((0.4, 0.3, 0.3), [child(2, 0.0, LOSS, 2), child(1, 0.0, LOSS, 0), None], 0.0)
    assert prove(node)
    assert (node.proven, node.plies) == (WIN, 1)


def test_all_children_won_for_the_opponent_prove_the_longest_loss():
    node = parent((0.5, 0.5), [child(2, 0.0, WIN, 1), child(2, 0.0, WIN, 3)], 0.0)
    assert prove(node)
    assert (node.proven, node.plies) == (LOSS, 4)


def test_a_drawn_child_among_lost_ones_proves_a_draw_and_an_open_one_proves_nothing():
    drawn = parent((0.5, 0.5), [child(2, 0.0, WIN, 1), child(2, 0.0, DRAW)], 0.0)
    assert prove(drawn) and drawn.proven == DRAW
    open_ = parent((0.5, 0.5), [child(2, 0.0, WIN, 1), child(2, 0.0)], 0.0)
    assert not prove(open_) and open_.proven is None


def test_propagation_climbs_while_nodes_become_proven():
    mate = child(1, 0.0, LOSS, 0)
    reply = parent((1.0,), [mate], 0.0)           # the only reply allows mate: won for its mover
    top = parent((0.5, 0.5), [reply, child(3, 0.0)], 0.0)
    above = parent((1.0,), [top], 0.0)
    propagate([above, top, reply, mate])
    assert (reply.proven, reply.plies) == (WIN, 1)
    assert top.proven is None and above.proven is None


def test_best_move_order_is_lc0s():
    node = parent(
        (0.4, 0.3, 0.2, 0.05, 0.05),
        [child(50, 0.2), child(80, 0.1), child(1, 0.0, LOSS, 4), child(90, -0.9, WIN, 1),
         child(10, -0.9, WIN, 5)],
        0.0,
    )
    # the proven win first, then by visits, then the losses, the longest first
    assert ranked(node) == [2, 1, 0, 4, 3]


def test_descend_finds_a_subtree_or_nothing():
    grandchild = child(4, 0.1)
    middle = parent((1.0,), [grandchild], 0.0)
    top = parent((0.5, 0.5), [middle, None], 0.0)
    first, second = top.moves[0], middle.moves[0]
    assert descend(top, [first, second]) is grandchild
    assert descend(top, [top.moves[1]]) is None
    assert descend(top, [chess.Move.from_uci("h7h8q")]) is None


# -- value and policy -------------------------------------------------------------------------


def test_logistic_value_mapping_and_its_inverse():
    # E = 1 / (1 + 10^(-cp/400)) at cp 400 is 10/11, so v = 2E - 1 = 9/11
    assert cp_to_value(400, 400) == pytest.approx(9 / 11)
    assert cp_to_value(0, 400) == 0.0
    assert cp_to_value(-250, 400) == pytest.approx(-cp_to_value(250, 400))
    for cp in (-1500, -90, 0, 35, 700):
        assert value_to_cp(cp_to_value(cp, 400), 400) == cp
    assert 4000 < value_to_cp(1.0, 400) < EVAL_LIMIT
    assert value_to_cp(-1.0, 400) == -value_to_cp(1.0, 400)


def test_priors_are_a_distribution_that_favours_winning_the_queen():
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/3qP3/2P5/PP1P1PPP/RNBQKBNR w KQkq - 0 3")
    moves = list(board.legal_moves)
    probabilities, checks = priors(board, moves)
    assert sum(probabilities) == pytest.approx(1.0)
    best = moves[probabilities.index(max(probabilities))]
    assert best == chess.Move.from_uci("c3d4")
    assert checks == [board.gives_check(move) for move in moves]


def test_mop_up_drives_the_bare_king_to_the_edge():
    centre = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    corner = chess.Board("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1")
    assert mop_up(corner) > mop_up(centre) > 0
    corner.turn = chess.BLACK
    assert mop_up(corner) < 0
    assert mop_up(chess.Board()) == 0


# -- search: solver, limits, reuse ------------------------------------------------------------


def test_mate_in_one_is_proven_at_once():
    result = run(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), 5000)
    assert result.best_move == chess.Move.from_uci("d1d8")
    assert result.score == mate_in(1)
    assert result.stop_reason == "proven"
    assert result.nodes < 50


@pytest.mark.parametrize("fen, key", [
    # mate-in-2 problems from sunfish's mate2.epd (thomasahle/sunfish), solutions by Stockfish
    ("8/1p3Qb1/p5pk/P1p1p1p1/1P2P1P1/2P1N2n/5P1P/4qB1K w - - 1 1", "e3f5"),
    ("3n4/1R6/p5k1/2B5/1P3PK1/r7/8/8 w - - 1 1", "f4f5"),
    ("5r1k/p2n1p1p/5P1N/1p1p4/2pP3P/8/PP4RK/8 w - - 1 1", "g2g8"),
    ("8/8/2N1P3/1P6/4Q3/4b2K/4k3/4q3 w - - 1 1", "c6d4"),
])
def test_mate_in_two_is_proven(fen, key):
    result = run(chess.Board(fen), 5000)
    assert result.best_move == chess.Move.from_uci(key)
    assert result.score == mate_in(3)
    assert result.stop_reason == "proven"


def test_go_nodes_counts_new_visits_and_root_lines_carry_scores():
    result = run(chess.Board(), 300)
    assert result.nodes == 300 and result.reused_nodes == 0
    assert result.lines[0].move == result.best_move and result.pv[0] == result.best_move
    assert len(result.lines) >= 5
    assert all(abs(line.score) < 300 for line in result.lines[:3])


def test_tree_reuse_keeps_the_subtree_of_the_moves_played():
    board = chess.Board()
    first = run(board, 600)
    board.push(first.best_move)
    board.push(first.pv[1])
    reused = KEEPER.prepare(board)
    assert reused > 0
    second = run(board, 200)
    assert second.reused_nodes == reused
    assert second.nodes == reused + 200
    assert second.stop_reason == "nodes"


def test_unrelated_position_or_new_game_drops_the_tree():
    board = chess.Board()
    first = run(board, 400)
    board.push(first.best_move)
    board.push(first.pv[1])
    assert KEEPER.prepare(chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")) == 0
    assert KEEPER.prepare(board) == 0
    run(chess.Board(), 400)
    KEEPER.new_game()
    assert KEEPER.prepare(board) == 0


def test_a_search_that_was_not_prepared_starts_fresh_and_is_deterministic():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    one = run(board, 300)
    two = run(board, 300)
    assert two.reused_nodes == 0
    assert (one.best_move, one.score, one.nodes, one.seldepth) == (
        two.best_move, two.score, two.nodes, two.seldepth)


def test_fifty_move_rule_and_stalemate_are_draws_in_the_tree():
    # any quiet move draws by the fifty-move rule; the only capture wins the rook
    board = chess.Board("8/8/8/3k4/8/3r4/3Q4/3K4 w - - 99 80")
    result = run(board, 400)
    assert result.best_move == chess.Move.from_uci("d2d3")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert run(stalemate, 100).stop_reason == "nomoves"


def test_a_full_tree_stops_the_search_and_says_so():
    sent: list[str] = []
    ctx = SearchContext(board=chess.Board(), evaluator=Evaluator(), tt=TranspositionTable(1),
                        stopper=ChainedStopper([NodesStopper(20000)]), send=sent.append)
    budget = mcts.node_budget(ctx)
    result = mcts.search(ctx)
    assert result.stop_reason == "memory"
    assert budget - 50 <= result.nodes <= budget + 50
    assert any(line.startswith("info string mcts: tree full") for line in sent)
    assert result.best_move in chess.Board().legal_moves
