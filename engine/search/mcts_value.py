"""The hand-crafted "network" of the MCTS mode: a value for a new leaf and priors for its moves.

There is no neural network (reference/engines.md section 4d): the value of a leaf is the static
evaluation after a short capture search, mapped to an expected score in [-1, 1] by a logistic
curve, and the policy is a softmax over the move orderer's Greenblatt plausibility scores
(`engine.ordering.plausibility`: captures by gain, checks, threats, development, square gains).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import chess

from engine.ordering import capture_gain, plausibility
from engine.score import EVAL_LIMIT

POLICY_TEMPERATURE_CP = 100.0
"""Softmax temperature of the priors, in plausibility points (centipawn-like): a free hanging
knight is about e^3 times as likely as a quiet move (engines.md 4d: "tune your own")."""

CHECK_LOGIT_CP = 300
"""Plausibility points added to a checking move's policy score (the orderer adds CHECK_BONUS)."""

CAPTURE_DEPTH = 6
"""Plies of the short capture search that settles a new leaf's exchanges before evaluating."""

V_LIMIT = 1.0 - 1e-12


def cp_to_value(cp: float, scale: float) -> float:
    """Expected score in [-1, 1] of an evaluation of `cp` centipawns: the Elo logistic
    E = 1 / (1 + 10^(-cp/scale)) as v = 2E - 1 = tanh(cp * ln10 / (2 * scale)); at the default
    scale 400 (option ValueScale) about tanh(cp/347), inside the tanh(cp/k), k = 300..400 of
    reference/engines.md section 4d."""
    return math.tanh(cp * math.log(10.0) / (2.0 * scale))


def value_to_cp(value: float, scale: float) -> int:
    """Inverse of `cp_to_value`: cp = scale * log10((1 + v) / (1 - v)), within +-EVAL_LIMIT."""
    v = min(max(value, -V_LIMIT), V_LIMIT)
    cp = scale * math.log10((1.0 + v) / (1.0 - v))
    return int(round(min(max(cp, -EVAL_LIMIT), EVAL_LIMIT)))


def capture_search(board: chess.Board, evaluate: Callable[[chess.Board], int], alpha: int,
                   beta: int, depth: int) -> int:
    """Stand pat, then captures and queen promotions that do not lose material by the orderer's
    expected gain, best first, `depth` plies at most; in check every evasion and no stand pat, so
    a mate at the horizon is seen (as the alpha-beta quiescence does). Centipawns from the side
    to move's view; mated is -EVAL_LIMIT."""
    if depth > 0 and board.is_check():
        return evasion_search(board, evaluate, alpha, beta, depth)
    stand = evaluate(board)
    if stand >= beta or depth <= 0:
        return stand
    if stand > alpha:
        alpha = stand
    best = stand
    noisy = []
    for move in board.generate_pseudo_legal_captures():
        gain = capture_gain(board, move)
        if gain >= 0:
            noisy.append((gain, move))
    for move in board.generate_pseudo_legal_moves(board.pawns, ~board.occupied):
        if move.promotion == chess.QUEEN:
            noisy.append((capture_gain(board, move), move))
    noisy.sort(key=lambda item: item[0], reverse=True)
    for _, move in noisy:
        board.push(move)
        if board.was_into_check():
            board.pop()
            continue
        score = -capture_search(board, evaluate, -beta, -alpha, depth - 1)
        board.pop()
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


def evasion_search(board: chess.Board, evaluate: Callable[[chess.Board], int], alpha: int,
                   beta: int, depth: int) -> int:
    """The in-check node of `capture_search`: the best evasion, or -EVAL_LIMIT if mated."""
    best = -EVAL_LIMIT
    for move in board.generate_legal_moves():
        board.push(move)
        score = -capture_search(board, evaluate, -beta, -max(alpha, best), depth - 1)
        board.pop()
        if score > best:
            best = score
            if score >= beta:
                break
    return best


def leaf_value(board: chess.Board, evaluate: Callable[[chess.Board], int], scale: float) -> float:
    """Value in [-1, 1] of a non-terminal leaf for its side to move."""
    cp = capture_search(board, evaluate, -EVAL_LIMIT, EVAL_LIMIT, CAPTURE_DEPTH)
    return cp_to_value(cp, scale)


def priors(board: chess.Board, moves: list[chess.Move]) -> tuple[list[float], list[bool]]:
    """Softmax of the plausibility scores of `moves` at POLICY_TEMPERATURE_CP (sums to 1), with
    CHECK_LOGIT_CP in place of the orderer's small check bonus (a check is forcing: sacrifices
    with check must get visits); also which moves give check."""
    scores = []
    checks = []
    for move in moves:
        check = board.gives_check(move)
        checks.append(check)
        score = plausibility(board, move, checks=False) + (CHECK_LOGIT_CP if check else 0)
        scores.append(score / POLICY_TEMPERATURE_CP)
    top = max(scores)
    weights = [math.exp(score - top) for score in scores]
    total = sum(weights)
    return [weight / total for weight in weights], checks
