"""The hand-crafted "network" of the MCTS mode: a value for a new leaf and priors for its moves.

There is no neural network (docs/reference/engines.md section 4d): the value of a leaf is the static
evaluation after a short capture search, mapped to an expected score in [-1, 1] by a logistic
curve, and the policy is a softmax over the move orderer's Greenblatt plausibility scores
(`engine.ordering.plausibility`: captures by gain, checks, threats, development, square gains).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import chess

from engine.captures import capture_search_moves
from engine.ordering import CHECK_BONUS, plausibility
from engine.score import EVAL_LIMIT

POLICY_TEMPERATURE_CP = 100.0
"""Softmax temperature of the priors, in plausibility points (centipawn-like): a free hanging
knight is about e^3 times as likely as a quiet move (engines.md 4d: "tune your own")."""

CHECK_LOGIT_CP = 300
"""Plausibility points added to a checking move's policy score (the orderer adds CHECK_BONUS)."""

MOP_UP_WEIGHT = 4.0
"""Mop-up is scaled up for the tree: PUCT with a few hundred visits only follows value
differences of several hundredths, and CPW's weights give a few centipawns a move."""

CAPTURE_DEPTH = 6
"""Plies of the short capture search that settles a new leaf's exchanges before evaluating."""
CAPTURE_NODES = 200
"""Positions the capture search may visit for one leaf."""

V_LIMIT = 1.0 - 1e-12


def cp_to_value(cp: float, scale: float) -> float:
    """Expected score in [-1, 1] of an evaluation of `cp` centipawns: the Elo logistic
    E = 1 / (1 + 10^(-cp/scale)) as v = 2E - 1 = tanh(cp * ln10 / (2 * scale)); at the default
    scale 400 (option ValueScale) about tanh(cp/347), inside the tanh(cp/k), k = 300..400 of
    docs/reference/engines.md section 4d."""
    return math.tanh(cp * math.log(10.0) / (2.0 * scale))


def value_to_cp(value: float, scale: float) -> int:
    """Inverse of `cp_to_value`: cp = scale * log10((1 + v) / (1 - v)), within +-EVAL_LIMIT."""
    v = min(max(value, -V_LIMIT), V_LIMIT)
    cp = scale * math.log10((1.0 + v) / (1.0 - v))
    return int(round(min(max(cp, -EVAL_LIMIT), EVAL_LIMIT)))


class CaptureSearch:
    """The short capture search that settles a new leaf's exchanges before it is evaluated.

    Stand pat, then captures and queen promotions that do not lose material by the orderer's
    expected gain, best first, CAPTURE_DEPTH plies at most; in check every evasion and no stand
    pat, so a mate at the horizon is seen (as the alpha-beta quiescence does). At most
    CAPTURE_NODES positions per leaf, after which positions stand pat: one playout must stay
    short, or the stopper cannot keep the time limit. Centipawns from the side to move's view;
    mated is -EVAL_LIMIT.
    """

    def __init__(self, board: chess.Board, evaluate: Callable[[chess.Board], int]) -> None:
        self.board = board
        self.evaluate = evaluate
        self.nodes = 0

    def run(self) -> int:
        self.nodes = 0
        return self.search(-EVAL_LIMIT, EVAL_LIMIT, CAPTURE_DEPTH)

    def search(self, alpha: int, beta: int, depth: int) -> int:
        board = self.board
        self.nodes += 1
        if depth <= 0 or self.nodes >= CAPTURE_NODES:
            return self.evaluate(board)
        if board.is_check():
            return self.evasions(alpha, beta, depth)
        stand = self.evaluate(board)
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        for move in capture_search_moves(board):
            board.push(move)
            if board.was_into_check():
                board.pop()
                continue
            score = -self.search(-beta, -alpha, depth - 1)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def evasions(self, alpha: int, beta: int, depth: int) -> int:
        """An in-check node: the best evasion, or -EVAL_LIMIT if mated."""
        board = self.board
        best = -EVAL_LIMIT
        for move in board.generate_legal_moves():
            board.push(move)
            score = -self.search(-beta, -max(alpha, best), depth - 1)
            board.pop()
            if score > best:
                best = score
                if score >= beta:
                    break
        return best


def center_distance(square: int) -> int:
    """Manhattan distance of `square` from the four centre squares (0 to 6)."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    return max(3 - file, file - 4) + max(3 - rank, rank - 4)


def mop_up(board: chess.Board) -> int:
    """Centipawns for the side to move from Chess Programming Wiki's "Mop-up Evaluation",
    4.7 * CMD + 1.6 * (14 - MD) for the side with a queen or rook against a bare king (CMD: the
    bare king's Manhattan distance from the centre, MD: the kings' Manhattan distance): with a
    few hundred visits a tree does not see the mate, so it needs the way there in its values."""
    for strong in (chess.WHITE, chess.BLACK):
        weak_pieces = board.occupied_co[not strong]
        if weak_pieces & ~board.kings or not (board.queens | board.rooks) & board.occupied_co[
                strong]:
            continue
        weak_king, strong_king = board.king(not strong), board.king(strong)
        if weak_king is None or strong_king is None:
            return 0
        distance = chess.square_manhattan_distance(weak_king, strong_king)
        bonus = round(MOP_UP_WEIGHT * (4.7 * center_distance(weak_king) + 1.6 * (14 - distance)))
        return bonus if board.turn == strong else -bonus
    return 0


def priors(board: chess.Board, moves: list[chess.Move]) -> tuple[list[float], list[bool]]:
    """Softmax of the plausibility scores of `moves` at POLICY_TEMPERATURE_CP (sums to 1), with
    CHECK_LOGIT_CP in place of the orderer's small check bonus (a check is forcing: sacrifices
    with check must get visits) unless the opponent has a bare king (then checks only chase it
    round the board and the orderer's own bonus stays); also which moves give check."""
    bare = not board.occupied_co[not board.turn] & ~board.kings
    bonus = CHECK_BONUS if bare else CHECK_LOGIT_CP
    scores = []
    checks = []
    for move in moves:
        check = board.gives_check(move)
        checks.append(check)
        score = plausibility(board, move, checks=False) + (bonus if check else 0)
        scores.append(score / POLICY_TEMPERATURE_CP)
    top = max(scores)
    weights = [math.exp(score - top) for score in scores]
    total = sum(weights)
    return [weight / total for weight in weights], checks
