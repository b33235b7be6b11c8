"""`SearchMode greenblatt`: the selective search of Greenblatt, Eastlake and Crocker (1967).

From Greenblatt et al. 1967 ("The width of the search", "Feedover conditions",
"Secondary search"): at every node the plausible move generator orders all legal moves and only
the most plausible are searched: 15, 15, 9, 9, then 7 per ply from the root (the tournament
setting), widened by four heuristics (all safe checks; all captures on the first two plies; moves
of a minimum number of distinct pieces; moves that lead to mate against the mover are not counted
against the width). At the horizon, a position that meets a feedover condition (pieces en prise
that may not all be saved) is searched one more ply with the plausible move generator, up to
FEEDOVER_PLIES times along a line; other positions get the unlimited capture search. A new best
root move gets a secondary search, two plies deep at the end of its principal variation, whose
value replaces the first one when it is worse for the side to move. Everything else (table,
draws, quiescence, iterative deepening) is shared with the alpha-beta mode.
"""

from __future__ import annotations

import chess

from engine.checks import king_attacked
from engine.ordering import (
    VALUE,
    attacks_from,
    by_key,
    en_prise,
    gives_check,
    lands_en_prise,
    plausibility,
)
from engine.score import INFINITE, MATE_BOUND, mated_in
from engine.search.alphabeta import (
    MAX_PLY,
    AlphaBetaSearch,
    position_key,
)
from engine.search.context import SearchContext, SearchResult

WIDTHS = (15, 15, 9, 9, 7)
"""Basic width per ply from the root (Greenblatt's tournament setting); 7 from the fifth on."""
FEEDOVER_PLIES = 2
"""How many times a line may be fed over past the horizon ("up to certain limits")."""
SECONDARY_DEPTH = 2
"""Depth of the secondary search ("usually limited to two plies")."""
PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def basic_width(ply: int) -> int:
    """The number of moves searched at `ply` (0 = root) before the widening heuristics."""
    return WIDTHS[min(ply, len(WIDTHS) - 1)]


def is_trapped(board: chess.Board, color: bool, square: int, piece_type: int) -> bool:
    """A piece is trapped if it has no safe move (every square it can go to leaves it en prise).

    Squares are judged by the attackers and defenders they have now, as Greenblatt's partial
    en-prise checks do.
    """
    value = VALUE[piece_type]
    targets = attacks_from(piece_type, color, square, board.occupied) & ~board.occupied_co[color]
    for target in chess.scan_forward(targets):
        attackers = board.attackers_mask(not color, target)
        if not attackers:
            return False
        defended = board.attackers_mask(color, target) & ~chess.BB_SQUARES[square]
        if defended and all(
            VALUE[board.piece_type_at(a)] >= value for a in chess.scan_forward(attackers)
        ):
            return False
    return True


def pieces_en_prise(board: chess.Board, color: bool) -> list[tuple[int, int]]:
    """(square, piece type) of every knight, bishop, rook and queen of `color` that is en prise."""
    found = []
    mine = board.occupied_co[color]
    for piece_type in PIECES:
        for square in chess.scan_forward(board.pieces_mask(piece_type, color) & mine):
            if en_prise(board, color, square, piece_type):
                found.append((square, piece_type))
    return found


def is_feedover(board: chess.Board, in_check: bool) -> bool:
    """Greenblatt's feedover condition: (1) the side to move has a piece en prise and is in check
    or that piece is trapped or pinned; (2) it has two or more pieces en prise; (3) each side has
    exactly one piece en prise and the opponent's is trapped or pinned while the mover's is not."""
    us = board.turn
    mine = pieces_en_prise(board, us)
    if not mine:
        return False
    if len(mine) >= 2:
        return True
    square, piece_type = mine[0]
    if in_check or board.is_pinned(us, square) or is_trapped(board, us, square, piece_type):
        return True
    theirs = pieces_en_prise(board, not us)
    if len(theirs) != 1:
        return False
    square, piece_type = theirs[0]
    return board.is_pinned(not us, square) or is_trapped(board, not us, square, piece_type)


class PlausibleSelection:
    """The moves searched at one node, in decreasing plausibility: the first `width` counted ones,
    plus every "must" move (safe checks; captures on plies 1-2; moves that bring the number of
    distinct pieces moved up to min(width // 2, pieces with a safe move)). A move whose search
    shows the mover mated is not counted, so the next plausible move takes its place."""

    def __init__(self, board: chess.Board, moves: list[chess.Move], ply: int,
                 first: chess.Move | None = None) -> None:
        self.width = basic_width(ply)
        rated = []
        must = set()
        safe_pieces = set()
        for move in moves:
            capture = board.is_capture(move)
            check = gives_check(board, move)
            safe = not lands_en_prise(board, move)
            if safe:
                safe_pieces.add(move.from_square)
            if (check and safe) or (capture and ply < 2):
                must.add(move)
            rated.append((plausibility(board, move, False, safe) + (60 if check else 0), move))
        rated.sort(key=by_key, reverse=True)
        ordered = [move for _, move in rated]
        if first is not None and first in must | set(ordered[: self.width]):
            ordered.remove(first)
            ordered.insert(0, first)
        wanted = min(self.width // 2, len(safe_pieces))
        moved = {move.from_square for move in ordered[: self.width]}
        for move in ordered[self.width :]:
            if len(moved) >= wanted:
                break
            if move.from_square not in moved and move.from_square in safe_pieces:
                moved.add(move.from_square)
                must.add(move)
        self.ordered = ordered
        self.must = must
        self.counted = 0

    def __iter__(self):
        for move in self.ordered:
            if self.counted < self.width or move in self.must:
                yield move

    def note(self, score: int) -> None:
        """Count the move just searched unless it leads to mate against the mover."""
        if score > -MATE_BOUND:
            self.counted += 1


class GreenblattSearch(AlphaBetaSearch):
    """Alpha-beta over the plausible move generator's selection, with feedover and secondary
    search."""

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.feedovers = 0
        self.in_secondary = False

    def select_root(self, moves: list[chess.Move]) -> PlausibleSelection:
        return PlausibleSelection(self.board, moves, 0, self.root_best if self.lines else None)

    def confirm_root_score(self, move: chess.Move, score: int) -> int:
        """Secondary search: two plies more at the end of the new best move's principal
        variation; the lower of the two values is kept (from the root side's view)."""
        if self.in_secondary:
            return score
        board = self.board
        line = [move, *self.pv[1]]
        depth_before = len(board.move_stack)
        keys_before = len(self.keys)
        self.in_secondary = True
        try:
            for played in line:
                self.keys.append(position_key(board))
                board.push(played)
            ply = len(line)
            value = self.search(SECONDARY_DEPTH, -INFINITE, INFINITE, ply, False)
        finally:
            self.in_secondary = False
            while len(board.move_stack) > depth_before:
                board.pop()
            del self.keys[keys_before:]
        root_view = value if ply % 2 == 0 else -value
        return min(score, root_view)

    def search(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        """Negamax over the plausible selection; feedover instead of quiescence where it holds."""
        board = self.board
        if pv_node:
            self.pv[ply] = []
        in_check = king_attacked(board, board.turn)
        if depth <= 0 and not in_check:
            if self.feedovers < FEEDOVER_PLIES and ply < MAX_PLY and is_feedover(board, False):
                self.feedovers += 1
                try:
                    return self.search(1, alpha, beta, ply, pv_node)
                finally:
                    self.feedovers -= 1
            return self.quiesce(alpha, beta, ply, False)
        score, depth, key, tt_move = self.enter_node(board, depth, alpha, beta, ply, pv_node,
                                                     in_check)
        if score is not None:
            return score
        legal_moves = list(board.generate_legal_moves())
        if not legal_moves:
            return mated_in(ply) if in_check else self.draw[board.turn]
        selection = PlausibleSelection(board, legal_moves, ply, tt_move)
        best = -INFINITE
        best_move = None
        old_alpha = alpha
        keys = self.keys
        keys.append(key)
        pv = self.pv
        for move in selection:
            board.push(move)
            if pv_node:
                pv[ply + 1] = []
            if best_move is None:
                score = -self.search(depth - 1, -beta, -alpha, ply + 1, pv_node)
            else:
                score = -self.search(depth - 1, -alpha - 1, -alpha, ply + 1, False)
                if pv_node and alpha < score < beta:
                    score = -self.search(depth - 1, -beta, -alpha, ply + 1, True)
            board.pop()
            selection.note(score)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if pv_node:
                        pv[ply] = [move, *pv[ply + 1]]
                    if score >= beta:
                        break
        keys.pop()
        self.store_result(key, depth, best, old_alpha, beta, ply, best_move)
        return best


def search(ctx: SearchContext) -> SearchResult:
    """The `greenblatt` search mode's entry point."""
    return GreenblattSearch(ctx).run()

