"""Full-width alpha-beta: iterative deepening, principal-variation search, transposition table,
quiescence search, check extension, draw rules, MultiPV, and a stopper consulted as it runs.

Time: a manager's budget is a soft limit (timecontrol.common): no iteration starts past
`SOFT_FRACTION` of it, or, when the stopper's hints ask for them (`iteration_factors`: the
manager's choice, on for `stockfish`), of it scaled after every iteration by Stockfish's
falling-eval, best-move-stability and instability factors (timecontrol.iteration_stop); the hard
limit ends an iteration in its middle, and the move played is the best of the deepest iteration
whose first root move completed. `go movetime`, `nodes` and `depth` are exact: the search runs
to the time, the node or the end of the iteration.

Selectivity, each in a function named for what it decides: null-move pruning with
verification, late move reductions, internal iterative reduction, reverse futility, futility
and late move pruning, and static exchange evaluation to order captures, to prune losing ones
in the capture search and, at shallow depth, in the full-width search
(docs/reference/search_selectivity.md). The quiescence search, which answers from and fills
the transposition table too, is Greenblatt's unlimited capture search with stand-pat
(Greenblatt et al. 1967: "sequences of favorable captures or pawn promotions without a depth or
width limit"); mate scores and their table adjustment follow CPW "Score". `AlphaBetaSearch` is
also the base of the Greenblatt mode, which replaces the move selection of interior nodes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import chess

from engine.attack_tables import SQUARES
from engine.captures import CaptureTable, scored_promotion_pushes
from engine.checks import exposure, king_attacked
from engine.make import push, push_null
from engine.ordering import by_key, capture_gain, gives_check, plausibility, quiet_order_key
from engine.score import (
    INFINITE,
    MATE_BOUND,
    from_tt,
    mate_moves,
    mated_in,
    to_tt,
    to_uci,
    unpack16,
)
from engine.search.context import RootLine, SearchContext, SearchResult
from engine.search.stop_check import CHECK_WINDOW_MS, StopCheck
from engine.tt import EXACT, LOWER, UPPER, encode_move
from timecontrol.iteration_stop import IterationHistory, StopParams, decide
from timecontrol.stopper import SearchStats

MAX_PLY = 100
MAX_MOVES = 256
"""More moves than any position has."""
CHECK_INTERVAL = 1024
"""Most nodes between two stopper checks (see `schedule_check`)."""
MIN_CHECK_INTERVAL = 16
ASPIRATION_WINDOW = 50
"""Half-width of the first root window from depth ASPIRATION_DEPTH on (cp); widened x4 on a fail."""
ASPIRATION_DEPTH = 4
DELTA_MARGIN = 200
"""Quiescence delta pruning: skip a capture that cannot lift stand-pat to within this of alpha."""
PLAUSIBILITY_DEPTH = 3
"""Quiet moves are ordered by full plausibility from this remaining depth on, by history below."""
SCORE_DROP_CP = 30
"""An iteration whose score falls this far below that of two iterations before (same parity: the
scores of odd and even depths differ by about a tempo) asks for more time (Lc0's kNeedMoreTime
hint, read by smooth-lc0), as does a new best move; a manager that asks for Stockfish's
factors has the soft limit itself scaled (`iteration_stop`)."""
STOP_PARAMS = StopParams(depth_scale=1.0 / 3.0)
"""The iteration stop's plies of stability count as three of Stockfish's: this search reaches
depth 8 in 1 s and 10 in 10 s (README, CPython) where Stockfish reaches 20-30, so Stockfish's
window of 8..17 stable plies is about 3..6 plies here (timecontrol.iteration_stop)."""
NULL_MIN_DEPTH = 2
"""Null-move pruning from this remaining depth on."""
NULL_VERIFY_DEPTH = 12
"""From this depth on a null-move cutoff is confirmed by a search without null moves (zugzwang)."""
LMR_MIN_DEPTH = 3
"""Late move reductions from this remaining depth on."""
LMR_GOOD_HISTORY = 400
"""A quiet move whose history counter reaches this is reduced one ply less."""
SHALLOW_DEPTH = 6
"""Reverse futility, futility and late move pruning up to this remaining depth."""
IIR_MIN_DEPTH = 4
"""Internal iterative reduction from this remaining depth on."""
SEE_PRUNE_MARGIN = 100
"""At a shallow node a capture whose static exchange loses more than this per ply is skipped."""


class SearchStopped(Exception):
    """Raised inside the tree when the stopper or `stop` ends the search."""


def position_key(board: chess.Board) -> int:
    """Hash of the position for the table and repetitions: the fields of python-chess's
    `_transposition_key`, but only integers, so the value (hence the bench node count) is the
    same from run to run (the hash of None is an address in CPython 3.11 and PyPy)."""
    ep = board.ep_square
    if ep is None or not board.has_legal_en_passant():
        ep = -1
    return hash((
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.turn,
        board.castling_rights if board._stack else board.clean_castling_rights(), ep,
    ))


def game_keys(board: chess.Board) -> list[int]:
    """Keys of the positions before the current one, oldest first (for repetition detection)."""
    replay = board.root()
    keys = []
    for move in board.move_stack:
        keys.append(position_key(replay))
        replay.push(move)
    return keys


def table_cutoff(entry: int, alpha: int, beta: int, ply: int) -> int | None:
    """The score of a table entry, made relative to `ply`, when its bound settles the window
    (exact, a lower bound at or above beta, an upper bound at or below alpha); else None. The
    caller has checked the entry's depth."""
    score = from_tt(unpack16(entry >> 16), ply)
    bound = (entry >> 40) & 3
    if bound == EXACT or (bound == LOWER and score >= beta) or (bound == UPPER and score <= alpha):
        return score
    return None


def decode_move(code: int) -> chess.Move:
    """Inverse of `engine.tt.encode_move`."""
    return chess.Move(code & 63, (code >> 6) & 63, (code >> 12) or None)


def has_non_pawn_material(board: chess.Board) -> bool:
    """Whether the side to move has a piece besides its king and pawns: without one, zugzwang is
    common and passing is no bound on what it can do (CPW "Null Move Pruning", zugzwang)."""
    return bool(board.occupied_co[board.turn] & ~(board.pawns | board.kings))


def late_move_reduction(depth: int, move_number: int, pv_node: bool, history: int) -> int:
    """Plies a late quiet move is searched shallower: floor(0.75 + ln(depth) ln(move number) /
    2.25), one less at PV nodes and for a move with a good history, never leaving less than one
    ply (CPW "Late Move Reductions"; the log formula as in docs/reference/search_selectivity.md,
    "LMR")."""
    reduction = int(0.75 + math.log(depth) * math.log(move_number) / 2.25)
    if pv_node:
        reduction -= 1
    if history >= LMR_GOOD_HISTORY:
        reduction -= 1
    return max(0, min(reduction, depth - 2))


def reverse_futility_margin(depth: int, improving: bool) -> int:
    """How far the static evaluation must stand above beta for a shallow node to be cut without
    searching (CPW "Reverse Futility Pruning"): 80 cp per ply, one ply less when the position is
    improving (docs/reference/search_selectivity.md, "Reverse futility")."""
    return 80 * (depth - improving)


def futility_margin(depth: int) -> int:
    """What a quiet move is allowed to gain at a shallow node (CPW "Futility Pruning"):
    100 + 100 cp per ply (docs/reference/search_selectivity.md, "Futility")."""
    return 100 + 100 * depth


def late_move_count(depth: int, improving: bool) -> int:
    """Quiet moves searched at a shallow node before the rest are pruned (CPW "Late Move
    Pruning"): (3 + depth^2), halved when not improving (docs/reference/search_selectivity.md,
    "Late move pruning")."""
    return (3 + depth * depth) // (1 if improving else 2)


def losing_capture_margin(depth: int) -> int:
    """Static exchange below which a capture at a shallow node is not searched (CPW "Static
    Exchange Evaluation", SEE pruning): -100 cp per ply, so at depth 1 a knight for a defended
    pawn is skipped and from depth 6 on only a queen lost for nothing
    (docs/reference/search_selectivity.md, "SEE")."""
    return -SEE_PRUNE_MARGIN * depth


def internal_iterative_reduction(depth: int, tt_move: chess.Move | None) -> int:
    """Plies a node with no table move is searched shallower (CPW "Internal Iterative
    Reductions"): one from IIR_MIN_DEPTH on. Its moves are ordered by guesswork, and the
    shallower search leaves a table move for the next iteration to start from
    (docs/reference/search_selectivity.md, "internal iterative reduction")."""
    return 1 if tt_move is None and depth >= IIR_MIN_DEPTH else 0


def null_move_reduction(depth: int, static_eval: int, beta: int) -> int:
    """Plies the null-move search is reduced by: 3 + depth / 3, plus up to 3 more the further the
    static evaluation is above beta (per 200 cp), as in Stockfish's `search.cpp`
    (docs/reference/search_selectivity.md, "Null move")."""
    return 3 + depth // 3 + min(3, (static_eval - beta) // 200)


class AlphaBetaSearch:
    """One search of one position; `run()` does the iterative deepening and returns the result."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx
        self.board = ctx.board
        self.tt = ctx.tt
        self.evaluate = ctx.evaluator.evaluate
        self.stopper = ctx.stopper
        self.stop_check = StopCheck(ctx, iterative=True)
        root_turn = self.board.turn
        self.draw = {root_turn: -ctx.contempt, not root_turn: ctx.contempt}
        self.nodes = 0
        self.seldepth = 0
        self.next_check = CHECK_INTERVAL
        self.completed_depth = 0
        self.mate_found: int | None = None
        self.stats = SearchStats()
        self.hints = self.stop_check.hints
        self.need_more_time = False
        self.iterations = IterationHistory(ctx.previous_search)
        self.best_move_changes = 0
        """New best root moves in the main line of the current iteration (Stockfish's
        bestMoveChanges: a move other than the first searched raised alpha)."""
        self.stop_figures: dict[str, object] = {}
        self.killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history = [[0] * 4096, [0] * 4096]
        self.pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self.keys = game_keys(self.board)
        self.root_best: chess.Move | None = None
        self.root_score = 0
        self.root_pv: list[chess.Move] = []
        self.lines: list[RootLine] = []
        self.placed: list[RootLine] = []
        """The root lines the current iteration has placed so far (`score_every_root_move`)."""
        self.root_moves: list[chess.Move] = []
        """Set by `run`; empty for a quiescence search called on its own (engine.features)."""
        self.stop_reason = ""
        self.null_min_ply = 0
        """No null move before this ply (set while a null-move cutoff is being verified)."""
        self.static_evals: list[int | None] = [None] * (MAX_PLY + 2)
        """Static evaluation of the node at each ply of the current line (None in check)."""
        self.captures = CaptureTable()

    # -- driver -------------------------------------------------------------------------------

    def run(self) -> SearchResult:
        """Iterative deepening until the stopper, `stop` or the depth limit ends the search."""
        board = self.board
        root_moves = self.order_root(self.ctx.searchmoves or list(board.legal_moves))
        self.root_moves = root_moves
        if root_moves:
            self.root_best = root_moves[0]
            self.root_pv = [root_moves[0]]
        root_len = len(board.move_stack)
        keys_len = len(self.keys)
        if not root_moves:
            score = mated_in(0) if king_attacked(board, board.turn) else self.draw[board.turn]
            self.root_score = score
            self.ctx.send(f"info depth 0 score {to_uci(score)}")
        reason = self.boundary_check() if root_moves else "nomoves"
        depth = 1
        scores: list[int] = []
        while reason is None:
            previous_best = self.root_best if self.completed_depth else None
            self.iterations.start_iteration()
            self.best_move_changes = 0
            try:
                self.iterate(depth)
            except SearchStopped:
                while len(board.move_stack) > root_len:
                    board.pop()
                del self.keys[keys_len:]
                reason = self.stop_reason
                self.play_stopped_iteration(depth)
                if self.root_best is not None:
                    self.send_info(max(self.completed_depth, 1), 1, self.root_score, self.root_pv)
                break
            self.completed_depth = depth
            if self.lines and self.lines[0].score >= MATE_BOUND:
                self.mate_found = mate_moves(self.lines[0].score)
            scores.append(self.root_score)
            self.need_more_time = previous_best is not None and (
                previous_best != self.root_best
                or (len(scores) > 2 and scores[-1] <= scores[-3] - SCORE_DROP_CP))
            self.iterations.end_iteration(depth, self.root_best, self.root_score,
                                          self.best_move_changes)
            reason = self.boundary_check()
            if reason is None and depth >= min(self.ctx.max_depth, MAX_PLY - 1):
                reason = "maxdepth"
            depth += 1
        self.iterations.finish(self.root_score)
        self.fill_stats()
        self.stopper.on_search_done(self.stats)
        lines = self.lines or (
            [RootLine(self.root_best, self.root_score, self.root_pv)] if self.root_best else []
        )
        return SearchResult(
            best_move=self.root_best,
            score=self.root_score,
            depth=self.completed_depth,
            seldepth=self.seldepth,
            nodes=self.nodes,
            time_ms=self.elapsed_ms(),
            stop_reason=reason,
            pv=list(self.root_pv),
            lines=lines,
            stop_figures=self.stop_figures,
        )

    def play_stopped_iteration(self, depth: int) -> None:
        """A search stopped within an iteration that places every root move chooses among the
        moves that iteration placed, once its first move is scored, and sends their lines (as
        a stopped PVS plays its iteration's best rather than the last complete one's)."""
        lines = self.stopped_lines()
        if not lines:
            return
        self.lines = lines
        self.root_best, self.root_score, self.root_pv = lines[0].move, lines[0].score, lines[0].pv
        for index, line in enumerate(lines):
            self.send_info(depth, index + 1, line.score, line.pv, line.bound)

    def order_root(self, moves: list[chess.Move]) -> list[chess.Move]:
        """Root moves: the table move, then by plausibility (captures by expected gain first)."""
        board = self.board
        entry = self.tt.probe(position_key(board))
        tt_move = decode_move(entry & 0xFFFF) if entry is not None and entry & 0xFFFF else None

        def key(move: chess.Move) -> int:
            if move == tt_move:
                return 1 << 30
            if board.is_capture(move) or move.promotion:
                return (1 << 20) + capture_gain(board, move)
            return plausibility(board, move)

        return sorted(moves, key=key, reverse=True)

    def iterate(self, depth: int) -> None:
        """One iteration: the best `multipv` root moves, each with an exact score.

        Fewer lines than root moves: one root search per line over the moves not yet chosen.
        A line for every root move (the strength limiter's MultiPV, docs/reference/elo_limit.md §1.4
        step 1): each move searched once with the full window (`score_every_root_move`), as
        MadChess scores its root moves, instead of re-searching the rest once per line.
        """
        if self.ctx.multipv >= len(self.root_moves) > 1:
            lines = self.score_every_root_move(depth)
            lines.sort(key=lambda line: -line.score)
            for index, line in enumerate(lines):
                self.send_info(depth, index + 1, line.score, line.pv, line.bound)
        else:
            lines = []
            chosen: list[chess.Move] = []
            count = min(self.ctx.multipv, len(self.root_moves))
            for index in range(count):
                candidates = [move for move in self.root_moves if move not in chosen]
                score, move, pv = self.aspiration(depth, candidates, index)
                lines.append(RootLine(move, score, pv))
                chosen.append(move)
                self.send_info(depth, index + 1, score, pv)
            lines.sort(key=lambda line: -line.score)
        self.lines = lines
        best = lines[0]
        self.root_best, self.root_score, self.root_pv = best.move, best.score, best.pv
        ranked = [line.move for line in lines]
        self.root_moves = ranked + [move for move in self.root_moves if move not in ranked]

    def aspiration(
        self, depth: int, moves: list[chess.Move], index: int
    ) -> tuple[int, chess.Move, list[chess.Move]]:
        """Search the root in a window around the last score, widening it on a fail."""
        previous = self.lines[index].score if index < len(self.lines) else 0
        delta = ASPIRATION_WINDOW
        if depth >= ASPIRATION_DEPTH and self.ctx.multipv == 1 and abs(previous) < MATE_BOUND:
            alpha, beta = previous - delta, previous + delta
        else:
            alpha, beta = -INFINITE, INFINITE
        while True:
            score, move, pv = self.search_root(depth, alpha, beta, moves, index == 0)
            if score <= alpha and alpha > -INFINITE:
                self.send_info(depth, index + 1, score, pv, "upperbound")
                alpha = max(-INFINITE, score - delta)
            elif score >= beta and beta < INFINITE:
                self.send_info(depth, index + 1, score, pv, "lowerbound")
                beta = min(INFINITE, score + delta)
            else:
                return score, move, pv
            delta *= 4
            if delta > 1000:
                alpha, beta = -INFINITE, INFINITE

    def search_root(
        self, depth: int, alpha: int, beta: int, moves: list[chess.Move], main_line: bool
    ) -> tuple[int, chess.Move, list[chess.Move]]:
        """PVS over the root moves; keeps the best move found so far for an early stop, and counts
        a move other than the first that raises alpha in the main line as a best-move change
        (Stockfish's bestMoveChanges)."""
        board = self.board
        key = position_key(board)
        self.keys.append(key)
        best = -INFINITE
        best_move = moves[0]
        best_pv = [moves[0]]
        old_alpha = alpha
        selection = self.select_root(moves)
        for move in selection:
            board.push(move)
            self.pv[1] = []
            first = best == -INFINITE
            if first:
                score = -self.search(depth - 1, -beta, -alpha, 1, True)
            else:
                score = -self.search(depth - 1, -alpha - 1, -alpha, 1, False)
                if alpha < score < beta:
                    score = -self.search(depth - 1, -beta, -alpha, 1, True)
            board.pop()
            selection.note(score)
            if score > alpha and depth > 1:
                score = self.confirm_root_score(move, score)
            if score > best:
                best = score
                best_move = move
                best_pv = [move, *self.pv[1]]
                if score > alpha:
                    alpha = score
                    if main_line:
                        self.root_best, self.root_score, self.root_pv = move, score, best_pv
                        self.best_move_changes += not first
                    if score >= beta:
                        break
        self.keys.pop()
        self.store_result(key, depth, best, old_alpha, beta, 0, best_move)
        return best, best_move, best_pv

    def score_every_root_move(self, depth: int) -> list[RootLine]:
        """Every root move placed for the strength limiter's choice, in the order of the last
        iteration, alpha never raised from one root move to the next (MadChess's
        limited-strength root, docs/reference/elo_limit.md §1.4 step 1); a new best is kept for
        an early stop, and the lines placed so far in `self.placed`.

        MadChess searches each with the full window. With `ctx.choice_margin` set, the choice
        needs less: the best move's score, and the score of every move that reaches the floor
        (best − margin), since the move is drawn uniformly among those. So the first move (the
        last iteration's best) is scored exactly and every other one is tested with a null
        window at the floor (`test_at_floor`): below it an upper bound, else its exact score from
        a principal-variation search, which may make it the new best. A move scored against an
        older floor keeps its exact score, and the choice leaves it out once the floor passes
        it. The cost is about that of one principal-variation line and part of one more for each
        move within the margin.
        """
        board = self.board
        key = position_key(board)
        self.keys.append(key)
        self.placed = []
        best = -INFINITE
        margin = self.ctx.choice_margin
        for move in self.root_moves:
            board.push(move)
            line = self.place_root_move(move, depth, best, margin)
            board.pop()
            if line.bound is None and depth > 1:
                line.score = self.confirm_root_score(move, line.score)
            self.placed.append(line)
            if line.bound is None and line.score > best:
                self.best_move_changes += best > -INFINITE
                best = line.score
                self.root_best, self.root_score, self.root_pv = move, line.score, line.pv
        self.keys.pop()
        code = encode_move(self.root_best.from_square, self.root_best.to_square,
                           self.root_best.promotion)
        self.tt.store(key, depth, EXACT, to_tt(best, 0), code)
        return self.placed

    def place_root_move(self, move: chess.Move, depth: int, best: int,
                        margin: int | None) -> RootLine:
        """The root move just made, placed against the floor best − margin and the best: exact
        with no margin, no best yet or a mate score as best (kept exact, CPW "Score")."""
        if margin is None or best == -INFINITE or abs(best) >= MATE_BOUND:
            return self.exact_root_line(move, depth, -INFINITE)
        return self.test_at_floor(move, depth, best - margin)

    def test_at_floor(self, move: chess.Move, depth: int, floor: int) -> RootLine:
        """The root move just made, tested with a null window at `floor`: an upper bound of its
        score below the floor; at or above it, searched again with the window (floor − 1, ∞),
        as PVS searches a null-window fail high again before it believes it: exact when that
        search reaches the floor too, else the upper bound it gives. A null-window search prunes
        and reduces as a non-PV node does, so its pass alone would make moves far below the best
        eligible."""
        score = -self.search(depth - 1, -floor, -floor + 1, 1, False)
        if score < floor:
            return RootLine(move, score, [move], "upperbound")
        line = self.exact_root_line(move, depth, floor - 1)
        if line.score < floor:
            return RootLine(move, line.score, [move], "upperbound")
        return line

    def exact_root_line(self, move: chess.Move, depth: int, alpha: int) -> RootLine:
        """The root move just made, searched with the window (alpha, ∞): exact above alpha."""
        self.pv[1] = []
        score = -self.search(depth - 1, -INFINITE, -alpha, 1, True)
        return RootLine(move, score, [move, *self.pv[1]])

    def stopped_lines(self) -> list[RootLine]:
        """The lines of an iteration stopped once its first move was scored, for the strength
        limiter's choice (`ctx.choice_margin`): what a stopped PVS plays from, the moves not
        reached left out. Empty without a choice: MultiPV analysis keeps the last complete
        iteration's lines, every move in them."""
        if self.ctx.choice_margin is None or all(line.bound for line in self.placed):
            return []
        return sorted(self.placed, key=lambda line: -line.score)

    def select_root(self, moves: list[chess.Move]) -> FullWidth:
        """Which root moves to search (all of them in the full-width mode)."""
        return FullWidth(moves)

    def confirm_root_score(self, move: chess.Move, score: int) -> int:
        """Hook for the score of a new best root move, or of every root move when all are
        scored (Greenblatt's secondary search); unchanged here."""
        return score

    # -- the tree -----------------------------------------------------------------------------

    def search(self, depth: int, alpha: int, beta: int, ply: int, pv_node: bool) -> int:
        """Negamax alpha-beta with PVS below the root; score from the side to move's view."""
        board = self.board
        if pv_node:
            self.pv[ply] = []
        in_check = king_attacked(board, board.turn)
        if depth <= 0 and not in_check:
            return self.quiesce(alpha, beta, ply, False)
        score, depth, key, tt_move = self.enter_node(board, depth, alpha, beta, ply, pv_node,
                                                     in_check)
        if score is not None:
            return score
        depth -= internal_iterative_reduction(depth, tt_move)
        static_eval = None if in_check else self.evaluate(board)
        self.static_evals[ply] = static_eval
        improving = self.is_improving(ply)
        if not pv_node and static_eval is not None:
            if self.reverse_futility_cutoff(depth, beta, static_eval, improving):
                return static_eval
            score = self.null_move_cutoff(board, depth, beta, static_eval, ply)
            if score is not None:
                return score
        shallow = (not pv_node and static_eval is not None and depth <= SHALLOW_DEPTH
                   and -MATE_BOUND < alpha and beta < MATE_BOUND)
        futile = shallow and static_eval + futility_margin(depth) <= alpha
        quiets_left = late_move_count(depth, improving) if shallow else MAX_MOVES
        best = -INFINITE
        best_move = None
        old_alpha = alpha
        legal = 0
        keys = self.keys
        keys.append(key)
        pv = self.pv
        exposed = 0 if in_check else exposure(board)
        # `board.is_capture` inlined (two calls a move): a victim on the target, or en passant.
        theirs, ep, pawns = board.occupied_co[not board.turn], board.ep_square, board.pawns
        prunes_quiets = (lambda: legal and (futile or quiets_left <= 0)) if shallow else None
        prunes_capture = ((lambda gain: legal and gain < losing_capture_margin(depth))
                          if shallow else None)
        for move in self.moves(board, tt_move, ply, depth, in_check, prunes_quiets,
                               prunes_capture):
            quiet = not (move.promotion or theirs & SQUARES[move.to_square]
                         or move.to_square == ep and pawns & SQUARES[move.from_square])
            if quiet and legal and (futile or quiets_left <= 0) and not gives_check(board, move):
                continue
            push(board, move)
            if exposed & SQUARES[move.from_square] and king_attacked(board, not board.turn):
                board.pop()
                continue
            legal += 1
            if quiet:
                quiets_left -= 1
            if pv_node:
                pv[ply + 1] = []
            if legal == 1:
                score = -self.search(depth - 1, -beta, -alpha, ply + 1, pv_node)
            else:
                reduction = self.reduction(move, quiet, depth, legal, ply, pv_node, in_check)
                score = -self.search(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, False)
                if reduction and score > alpha:
                    score = -self.search(depth - 1, -alpha - 1, -alpha, ply + 1, False)
                if pv_node and alpha < score < beta:
                    score = -self.search(depth - 1, -beta, -alpha, ply + 1, True)
            board.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if pv_node:
                        pv[ply] = [move, *pv[ply + 1]]
                    if score >= beta:
                        if quiet:
                            self.reward_quiet(move, ply, depth)
                        break
        keys.pop()
        if not legal:
            return mated_in(ply) if in_check else self.draw[board.turn]
        self.store_result(key, depth, best, old_alpha, beta, ply, best_move)
        return best

    def enter_node(self, board: chess.Board, depth: int, alpha: int, beta: int, ply: int,
                   pv_node: bool, in_check: bool) -> tuple[int | None, int, int, chess.Move | None]:
        """What every interior node does before its moves: count it, stop on a draw or at the
        ply limit, extend a check, and probe the table (a cutoff outside PV nodes; its move).

        Returns (score to return at once or None, depth after the extension, key, table move).
        """
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        if ply > self.seldepth:
            self.seldepth = ply
        key = position_key(board)
        if self.is_draw(board, key, in_check):
            return self.draw[board.turn], depth, key, None
        if ply >= MAX_PLY:
            return self.evaluate(board), depth, key, None
        if in_check:
            depth += 1
        tt_move = None
        entry = self.tt.probe(key)
        if entry is not None:
            if not pv_node and (entry >> 32) & 0xFF >= depth:
                score = table_cutoff(entry, alpha, beta, ply)
                if score is not None:
                    return score, depth, key, None
            if entry & 0xFFFF:
                tt_move = decode_move(entry & 0xFFFF)
                if not board.is_pseudo_legal(tt_move):
                    tt_move = None
        return None, depth, key, tt_move

    def is_improving(self, ply: int) -> bool:
        """Whether the static evaluation is higher than two plies earlier, for the same side
        (CPW "Improving"); taken as improving when either is unknown (in check, near the root),
        which prunes less."""
        now = self.static_evals[ply]
        before = self.static_evals[ply - 2] if ply >= 2 else None
        return now is None or before is None or now > before

    def reverse_futility_cutoff(self, depth: int, beta: int, static_eval: int,
                                improving: bool) -> bool:
        """Reverse futility pruning (static null move, CPW "Reverse Futility Pruning"): at a
        shallow non-PV node not in check, a static evaluation that beats beta by
        `reverse_futility_margin` is a cutoff; never when beta is a mate score (the static
        evaluation is never one)."""
        return (depth <= SHALLOW_DEPTH and beta < MATE_BOUND
                and static_eval - reverse_futility_margin(depth, improving) >= beta)

    def null_move_cutoff(self, board: chess.Board, depth: int, beta: int, static_eval: int,
                         ply: int) -> int | None:
        """Null-move pruning (CPW "Null Move Pruning"): a side so far ahead that passing, searched
        `null_move_reduction` plies shallower with a null window, still reaches beta has a cutoff.

        Not after a null move, not without non-pawn material (zugzwang), not when beta is a mate
        score, and the result is never returned as a mate (a pass proves no mate); from
        NULL_VERIFY_DEPTH on the cutoff is confirmed by a reduced search without null moves in
        the next plies (Stockfish's verification search). The caller rules out PV nodes and
        check. The repetition history is cut at the pass (half-move clock 0), so no line through
        it is scored as a repetition. Returns the score to return, or None to search the moves.
        """
        if (
            depth < NULL_MIN_DEPTH
            or static_eval < beta
            or abs(beta) >= MATE_BOUND
            or ply < self.null_min_ply
            or not board.move_stack[-1]
            or not has_non_pawn_material(board)
        ):
            return None
        reduction = null_move_reduction(depth, static_eval, beta)
        push_null(board)
        board.halfmove_clock = 0
        score = -self.search(depth - 1 - reduction, -beta, -beta + 1, ply + 1, False)
        board.pop()
        if score < beta:
            return None
        score = min(score, MATE_BOUND - 1)
        if depth < NULL_VERIFY_DEPTH:
            return score
        before = self.null_min_ply
        self.null_min_ply = ply + 3 * (depth - reduction) // 4
        verified = self.search(depth - reduction, beta - 1, beta, ply, False)
        self.null_min_ply = before
        return score if verified >= beta else None

    def reduction(self, move: chess.Move, quiet: bool, depth: int, move_number: int, ply: int,
                  pv_node: bool, in_check: bool) -> int:
        """Late move reduction of `move`, already made (CPW "Late Move Reductions"): a quiet move
        late in the order, from LMR_MIN_DEPTH on, not a killer, not in check and not giving
        check; the third move on at PV nodes, the second elsewhere. 0 for any other move."""
        board = self.board
        if (
            not quiet
            or depth < LMR_MIN_DEPTH
            or in_check
            or move_number < (3 if pv_node else 2)
            or move in self.killers[ply]
            or king_attacked(board, board.turn)
        ):
            return 0
        history = self.history[not board.turn][move.from_square << 6 | move.to_square]
        return late_move_reduction(depth, move_number, pv_node, history)

    def is_draw(self, board: chess.Board, key: int, in_check: bool) -> bool:
        """Repetition (of any earlier position since the last irreversible move), the fifty-move
        rule (unless the position is mate) and insufficient material."""
        clock = board.halfmove_clock
        if clock >= 4:
            keys = self.keys
            n = len(keys)
            for distance in range(4, min(clock, n) + 1, 2):
                if keys[n - distance] == key:
                    return True
            if clock >= 100 and not (in_check and not any(board.generate_legal_moves())):
                return True
        return not (board.pawns | board.rooks | board.queens) and board.is_insufficient_material()

    def moves(self, board: chess.Board, tt_move: chess.Move | None, ply: int, depth: int,
              in_check: bool, prunes_quiets: Callable[[], bool] | None = None,
              prunes_capture: Callable[[int], bool] | None = None):
        """Moves in search order: table move, captures and promotions that do not lose material
        by static exchange (by expected gain), killers, quiet moves (plausibility near the root,
        history below), losing captures.

        Pseudo-legal except in check (evasions are generated legal); the caller tests legality.
        `prunes_quiets`, asked when the quiet moves are reached, says whether the caller will
        skip every quiet move that gives no check (futility or late move pruning): then only the
        checking ones are scored and yielded, in the order they would have had among all.
        `prunes_capture`, asked with a losing capture's static exchange when it is reached,
        says whether the caller skips it (SEE pruning); such a capture is then not yielded
        unless it gives check (a sacrifice with check may mate).
        """
        if in_check:
            scored = []
            history = self.history[board.turn]
            # `board.is_capture` inlined: a victim on the target, or en passant.
            theirs, ep, pawns = board.occupied_co[not board.turn], board.ep_square, board.pawns
            for move in board.generate_legal_moves():
                if tt_move is not None and move == tt_move:
                    scored.append((1 << 30, move))
                elif (move.promotion or theirs & SQUARES[move.to_square]
                      or move.to_square == ep and pawns & SQUARES[move.from_square]):
                    scored.append(((1 << 20) + capture_gain(board, move), move))
                else:
                    scored.append((quiet_order_key(move, history), move))
            scored.sort(key=by_key, reverse=True)
            for _, move in scored:
                yield move
            return
        if tt_move is not None:
            yield tt_move
        us = board.turn
        noisy = self.captures.scored(board) + scored_promotion_pushes(board)
        noisy.sort(key=by_key, reverse=True)
        losing = []
        for gain, move in noisy:
            if tt_move is not None and move == tt_move:
                continue
            if gain < 0:
                losing.append((gain, move))
            else:
                yield move
        killers = [k for k in self.killers[ply] if k is not None and k != tt_move]
        for killer in killers:
            if board.is_pseudo_legal(killer) and not board.is_capture(killer):
                yield killer
        ep = board.ep_square
        history = self.history[us]
        searched = {m.from_square << 6 | m.to_square for m in killers}
        if tt_move is not None:
            searched.add(tt_move.from_square << 6 | tt_move.to_square)
        quiets = []
        for move in board.generate_pseudo_legal_moves(chess.BB_ALL, ~board.occupied_co[not us]):
            if move.promotion or (move.from_square << 6 | move.to_square) in searched:
                continue
            if ep is not None and move.to_square == ep and board.pawns & (1 << move.from_square):
                continue
            quiets.append(move)
        if prunes_quiets is not None and prunes_quiets():
            quiets = [m for m in quiets if gives_check(board, m)]
        if depth >= PLAUSIBILITY_DEPTH:
            scored = [
                (history[m.from_square << 6 | m.to_square] + plausibility(board, m, False), m)
                for m in quiets
            ]
        else:
            scored = [(quiet_order_key(m, history), m) for m in quiets]
        scored.sort(key=by_key, reverse=True)
        for _, move in scored:
            yield move
        for gain, move in losing:
            if prunes_capture is None or not prunes_capture(gain) or gives_check(board, move):
                yield move

    def reward_quiet(self, move: chess.Move, ply: int, depth: int) -> None:
        """A quiet move caused a cutoff: make it a killer and raise its history."""
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        history = self.history[self.board.turn]
        index = move.from_square << 6 | move.to_square
        history[index] = min(history[index] + depth * depth, 10000)

    def quiesce(self, alpha: int, beta: int, ply: int, in_check: bool | None = None) -> int:
        """Stand pat, then favourable captures and promotions with no depth limit; all evasions
        when in check (so mates at the horizon are seen). `in_check` if the caller knows it."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        if ply > self.seldepth:
            self.seldepth = ply
        board = self.board
        if ply >= MAX_PLY:
            return self.evaluate(board)
        if in_check is None:
            in_check = king_attacked(board, board.turn)
        if not in_check:
            stand = self.evaluate(board)
            if stand >= beta:
                return stand
        key = position_key(board)
        entry = self.tt.probe(key)
        if entry is not None:
            score = table_cutoff(entry, alpha, beta, ply)
            if score is not None:
                return score
        old_alpha = alpha
        best_move = None
        if in_check:  # every evasion, generated legal
            best, exposed = mated_in(ply), 0
            moves = self.moves(board, None, ply, 0, True)
        else:
            best, exposed = stand, exposure(board)
            alpha = max(alpha, stand)
            moves = self.captures.search_moves(board, alpha - stand - DELTA_MARGIN)
        for move in moves:
            push(board, move)
            if exposed & SQUARES[move.from_square] and king_attacked(board, not board.turn):
                board.pop()
                continue
            score = -self.quiesce(-beta, -alpha, ply + 1)
            board.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        self.store_result(key, 0, best, old_alpha, beta, ply, best_move)
        return best

    def store_result(self, key: int, depth: int, best: int, alpha: int, beta: int, ply: int,
                     move: chess.Move | None) -> None:
        """Keep a node's result in the table with its bound: `alpha` and `beta` are its window
        on entry, `move` its best (None when a capture search stood pat). A capture search
        stores at depth 0 (CPW "Transposition Table", in quiescence): a later capture search of
        the position may answer from it, a full-width node only takes its move."""
        bound = LOWER if best >= beta else EXACT if best > alpha else UPPER
        code = 0 if move is None else encode_move(move.from_square, move.to_square, move.promotion)
        self.tt.store(key, depth, bound, to_tt(best, ply), code)

    # -- limits and output --------------------------------------------------------------------

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.ctx.start_time) * 1000

    def fill_stats(self) -> SearchStats:
        """Bring the statistics record passed to the stopper up to date."""
        stats = self.stats
        elapsed = self.elapsed_ms()
        stats.time_since_movestart_ms = elapsed
        stats.time_since_first_eval_ms = elapsed
        stats.nodes_since_movestart = self.nodes
        stats.total_nodes = self.nodes
        stats.reused_nodes = 0
        stats.depth = self.completed_depth
        stats.num_root_moves = len(self.root_moves)
        stats.mate_found = self.mate_found
        stats.need_more_time = self.need_more_time
        return stats

    def ask_stopper(self) -> str | None:
        """One stop check (`engine.search.stop_check`); the reason to stop, or None."""
        return self.stop_check.ask(self.fill_stats())

    def check(self) -> None:
        """The periodic check inside the tree; raises SearchStopped on a reason to stop."""
        reason = self.ask_stopper()
        if reason is not None:
            self.stop_reason = reason
            raise SearchStopped
        self.schedule_check()

    def schedule_check(self) -> None:
        """Set the node count of the next check from the hints of the last one: at most
        CHECK_INTERVAL nodes (or `ctx.check_nodes`) or, unless `ctx.steady_checks`,
        CHECK_WINDOW_MS at the speed so far and a quarter of the time the stoppers report left;
        and no more than the nodes they allow, so that a node limit ends the search on exactly
        the same node whatever the timing."""
        cap = self.ctx.check_nodes
        step = CHECK_INTERVAL if cap is None else min(cap, CHECK_INTERVAL)
        hints = self.hints
        elapsed = self.stats.time_since_movestart_ms
        if elapsed > 0 and not self.ctx.steady_checks:
            window = min(CHECK_WINDOW_MS, hints.remaining_ms / 4)
            step = min(step, int(window * self.nodes / elapsed))
        if step > 0:
            step = max(step, MIN_CHECK_INTERVAL if cap is None else min(cap, MIN_CHECK_INTERVAL))
        if hints.remaining_nodes < step:
            step = int(hints.remaining_nodes)
        self.next_check = self.nodes + max(step, 1)

    def boundary_check(self) -> str | None:
        """The check between iterations: the stoppers, then whether the soft limit, scaled if
        the manager asks, says to start no new iteration (after the first one completed)."""
        reason = self.ask_stopper()
        self.schedule_check()
        if reason is None and self.completed_depth:
            reason = self.iteration_stop()
        return reason

    def iteration_stop(self) -> str | None:
        """The stop between iterations when a manager set a soft limit: the plain one
        (`StopCheck.soft_limit_passed`, "budget"), or, when the hints ask for them, Stockfish's
        stop with the limit (the optimum) scaled by the iteration's factors
        (timecontrol.iteration_stop), whose figures go to the telemetry."""
        hints = self.hints
        elapsed = self.stop_check.move_ms(self.stats.time_since_movestart_ms)
        decision = None
        reason = None
        if hints.soft_remaining_ms != math.inf and hints.iteration_factors:
            facts = self.iterations.facts(elapsed, elapsed + hints.soft_remaining_ms,
                                          elapsed + hints.remaining_ms, self.completed_depth,
                                          self.root_score)
            decision = decide(facts, STOP_PARAMS)
            self.stop_figures = decision.telemetry()
            reason = decision.reason
        elif self.stop_check.soft_limit_passed(elapsed):
            reason = "budget"
        self.iterations.after_check(self.root_score, decision)
        return reason

    def send_info(self, depth: int, multipv: int, score: int, pv: list[chess.Move],
                  bound: str | None = None) -> None:
        """One UCI `info` line for a root line."""
        elapsed = self.elapsed_ms()
        nps = int(self.nodes * 1000 / elapsed) if elapsed > 0 else 0
        self.ctx.send(
            f"info depth {depth} seldepth {self.seldepth} multipv {multipv} "
            f"score {to_uci(score, bound)} nodes {self.nodes} nps {nps} time {int(elapsed)} "
            f"hashfull {self.tt.hashfull()} pv {' '.join(m.uci() for m in pv)}"
        )


class FullWidth:
    """A move selection that searches every move it is given, in order."""

    def __init__(self, moves: list[chess.Move]) -> None:
        self.moves = moves

    def __iter__(self):
        return iter(self.moves)

    def note(self, score: int) -> None:
        """Told the score (from the mover's view) of the move just searched; nothing to do."""


def search(ctx: SearchContext) -> SearchResult:
    """The `alphabeta` search mode's entry point."""
    return AlphaBetaSearch(ctx).run()
