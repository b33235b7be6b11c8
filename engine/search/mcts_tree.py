"""The MCTS tree: nodes, PUCT selection with first-play urgency, backup, the solver, the ranking
of root moves and the walk that finds a reused subtree.

Formulas from Lc0 (docs/reference/engines.md section 4a, src/search/classic/search.cc):
score = Q + cpuct(N) * P * sqrt(max(N - 1, 1)) / (1 + n), cpuct(N) = CPuct + CPuctFactor *
ln((N + CPuctBase) / CPuctBase); an unvisited child's Q is the parent's Q less FpuValue * sqrt(sum
of the priors of the visited children); the best move ranks terminal wins (shortest first), then
by visits, Q, prior, and terminal losses last (longest first). Proven results propagate as in
Lc0's certainty propagation (a parent with a lost child is won in one more ply; a parent whose
children are all proven takes the best of them), restricted to exact results (no bounds).
Pure data and arithmetic: no board, no clock.
"""

from __future__ import annotations

import math

CPUCT = 1.745
CPUCT_FACTOR = 3.894
CPUCT_BASE = 38739.0
FPU_REDUCTION = 0.330

WIN = 1
DRAW = 0
LOSS = -1
"""Proven results, from the view of the side to move at the node."""


class Node:
    """One position of the tree.

    `w` sums the backed-up values from the view of the side that moved into the node (so a parent
    maximises `w / n` over its children); `moves`, `priors` and `children` are set when the node
    is expanded (children are created on their first visit); `proven` is WIN, DRAW or LOSS for the
    side to move once the result is certain, `plies` the distance to the end of the game then.
    """

    __slots__ = ("n", "w", "moves", "priors", "children", "proven", "plies")

    def __init__(self) -> None:
        self.n = 0
        self.w = 0.0
        self.moves: tuple | None = None
        self.priors: tuple | None = None
        self.children: list[Node | None] | None = None
        self.proven: int | None = None
        self.plies = 0

    def expand(self, moves: list, priors: list[float]) -> list[int]:
        """Give the node its moves, ordered by prior (highest first, as Lc0 sorts its edges);
        returns the new position of each move given."""
        order = sorted(range(len(moves)), key=priors.__getitem__, reverse=True)
        self.moves = tuple(moves[i] for i in order)
        self.priors = tuple(priors[i] for i in order)
        self.children = [None] * len(moves)
        return order

    def q(self) -> float:
        """Mean value from the view of the side that moved into the node; exact when proven won
        or lost (a proven draw keeps its mean, which every later visit moves towards the draw
        value of the search)."""
        if self.proven is not None and self.proven != DRAW:
            return float(-self.proven)
        return self.w / self.n if self.n else 0.0


def cpuct(parent_visits: int) -> float:
    """Lc0's exploration constant, growing with the parent's visits."""
    return CPUCT + CPUCT_FACTOR * math.log((parent_visits + CPUCT_BASE) / CPUCT_BASE)


def first_play_urgency(node: Node) -> float:
    """Q given to the node's unvisited children: its own Q for the side to move, reduced by
    FPU_REDUCTION * sqrt(prior mass already visited) (Lc0's `reduction` strategy)."""
    visited = 0.0
    for prior, child in zip(node.priors, node.children):
        if child is not None and child.n:
            visited += prior
    parent_q = -node.w / node.n if node.n else 0.0
    return parent_q - FPU_REDUCTION * math.sqrt(visited)


def select(node: Node, remaining: float = math.inf) -> int:
    """Index of the child PUCT picks at an expanded, visited node.

    Children are sorted by prior, so among the unvisited ones only the first can win (the same Q,
    the largest U). With a finite `remaining` (the root under smart pruning), children that
    cannot catch up with the most visited one in that many playouts are skipped.
    """
    children = node.children
    priors = node.priors
    factor = cpuct(node.n) * math.sqrt(max(node.n - 1, 1))
    floor = -1
    if remaining != math.inf:
        floor = max(child.n if child is not None else 0 for child in children) - remaining
    best = -1
    best_score = -math.inf
    visited_prior = 0.0
    unvisited = -1
    for index, child in enumerate(children):
        if child is None or child.n == 0:
            if unvisited < 0:
                unvisited = index
            continue
        prior = priors[index]
        visited_prior += prior
        if child.n < floor:
            continue
        if child.proven is None or child.proven == DRAW:
            q = child.w / child.n
        else:
            q = -child.proven
        score = q + factor * prior / (1 + child.n)
        if score > best_score:
            best_score = score
            best = index
    if unvisited >= 0 and floor <= 0:
        fpu = -node.w / node.n - FPU_REDUCTION * math.sqrt(visited_prior)
        if fpu + factor * priors[unvisited] > best_score or best < 0:
            best = unvisited
    if best < 0:
        best = max(range(len(children)),
                   key=lambda i: children[i].n if children[i] is not None else 0)
    return best


def backup(path: list[Node], value: float) -> None:
    """Add one visit along `path` (root first); `value` is for the side to move at its end."""
    for node in reversed(path):
        node.n += 1
        node.w -= value
        value = -value


def prove(node: Node) -> bool:
    """Settle the node from its children if their results decide it; True if it became proven.

    Won if a child is lost for its side to move (shortest such win), else, once every child is
    proven, drawn if a child is drawn, otherwise lost (longest loss).
    """
    if node.proven is not None or node.children is None:
        return False
    shortest_win = -1
    longest_loss = -1
    drawn = False
    complete = True
    for child in node.children:
        if child is None or child.proven is None:
            complete = False
        elif child.proven == LOSS:
            if shortest_win < 0 or child.plies < shortest_win:
                shortest_win = child.plies
        elif child.proven == DRAW:
            drawn = True
        elif child.plies > longest_loss:
            longest_loss = child.plies
    if shortest_win >= 0:
        node.proven, node.plies = WIN, shortest_win + 1
        return True
    if not complete:
        return False
    if drawn:
        node.proven, node.plies = DRAW, 0
    else:
        node.proven, node.plies = LOSS, longest_loss + 1
    return True


def propagate(path: list[Node]) -> None:
    """After the end of `path` was proven: settle its ancestors while they become proven."""
    for node in reversed(path[:-1]):
        if not prove(node):
            return


def rank_key(node: Node, index: int) -> tuple:
    """Lc0's best-move order of a child (larger is better): proven wins for the mover, shortest
    first; then unproven and drawn children by visits, Q, prior; proven losses last, longest
    first."""
    child = node.children[index]
    prior = node.priors[index]
    if child is None:
        return (1, 0, -2.0, prior)
    if child.proven == LOSS:
        return (2, -child.plies, 0.0, prior)
    if child.proven == WIN:
        return (0, child.plies, 0.0, prior)
    if child.n == 0:
        return (1, 0, -2.0, prior)
    return (1, child.n, child.q(), prior)


def ranked(node: Node) -> list[int]:
    """Indices of the node's children, best first (empty if not expanded)."""
    if node.children is None:
        return []
    return sorted(range(len(node.children)), key=lambda i: rank_key(node, i), reverse=True)


def principal_variation(node: Node, first: int) -> list:
    """Moves from `node` starting with child `first`, then the best-ranked visited child."""
    pv = [node.moves[first]]
    child = node.children[first]
    while child is not None and child.children is not None and child.n > 1:
        order = ranked(child)
        best = order[0]
        if child.children[best] is None:
            break
        pv.append(child.moves[best])
        child = child.children[best]
    return pv


def descend(node: Node, moves: list) -> Node | None:
    """The node reached from `node` by `moves`, or None if the tree never went there."""
    for move in moves:
        if node.children is None:
            return None
        try:
            index = node.moves.index(move)
        except ValueError:
            return None
        child = node.children[index]
        if child is None:
            return None
        node = child
    return node
