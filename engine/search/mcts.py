"""`SearchMode mcts`: PUCT tree search in the manner of Lc0, with a hand-crafted policy and value,
an MCTS-solver for proven results, and a tree kept from move to move.

Selection, FPU, certainty propagation and the best-move order are in `mcts_tree`, the value and
priors in `mcts_value` (docs/reference/engines.md sections 4a and 4d). Each playout walks from the
root
by PUCT to a node visited for the first time, scores it (exact for mate, stalemate, a two-fold
repetition in the tree or with the game, the fifty-move rule and insufficient material, as Lc0 with
TwoFoldDraws; else the capture-search value), expands a node on its second visit, and backs the
value up.

Values are the logistic of the root side's evaluation less an anchor: 0 in balanced positions,
the root's own evaluation when it is decisive (ANCHOR_MIN_CP), so that in a won endgame the moves
that make progress are not all flattened to a value of 1 (Lc0 has its moves-left head for that;
we have none). Draws are worth the logistic of minus the anchor, mates +-1, so the order of all
outcomes is kept.

Between moves the tree is kept (docs/reference/engines.md 4a "Tree reuse", a0lite's variant) in a
`TreeKeeper` the engine holds and passes in `SearchContext.tree_keeper`: `prepare(board)` before
a `go` walks from the last search's root along the moves played since (our move, the opponent's
reply) and makes the node reached the new root with its visits, which the time manager reads as
reused nodes; a position that does not continue the game, or `new_game()`, drops the tree. Only
a search whose position was prepared starts from the kept tree, so a `bench` or a test without a
keeper always starts fresh.

Limits: the stopper chain (time manager, `go` limits, smart pruning last) is asked every few
playouts with `SearchStats` (visits per root move, need-more-time); its remaining-nodes hint also
keeps the root from selecting moves that can no longer catch up (Lc0's smart pruning at the root).
The tree is bounded by a node budget from `Hash`; when it is full the search stops and says so.
"""

from __future__ import annotations

import math
import time

import chess

from engine.score import clamp_eval, mate_in, mate_moves, mated_in, to_uci
from engine.search.alphabeta import game_keys, position_key
from engine.search.context import RootLine, SearchContext, SearchResult
from engine.search.mcts_keeper import KeptTree
from engine.search.mcts_tree import (
    DRAW,
    LOSS,
    WIN,
    Node,
    backup,
    first_play_urgency,
    principal_variation,
    propagate,
    prove,
    ranked,
    select,
)
from engine.search.mcts_value import CaptureSearch, cp_to_value, mop_up, priors, value_to_cp
from engine.search.stop_check import CHECK_WINDOW_MS, StopCheck
from engine.tt import ENTRY_BYTES
from timecontrol.stopper import SearchStats

NODE_BYTES = 3072
"""Memory per tree node, counting the move, prior and child tuples of expanded nodes: 1.5 to 3.5
KB measured with tracemalloc in CPython 3.11 after 3000 visits (endgame to middlegame); PyPy
needs less."""
CHECK_INTERVAL = 16
"""Playouts between two stopper checks at most; fewer under a time limit (the alpha-beta mode's
CHECK_WINDOW_MS, a quarter of the time left) or when few nodes remain. Without a time limit the
checks fall on fixed playout counts, so a depth-limited search (the bench) is deterministic."""
ANCHOR_MIN_CP = 300
"""From this root evaluation on the value logistic is centred on it (see `choose_anchor`); a kept
tree is dropped when the new root's evaluation is this far from the tree's anchor."""
INFO_INTERVAL_MS = 1000.0
"""An `info` line at least this often, and whenever the average depth grows."""


def choose_anchor(root_cp: int) -> int:
    """Centre of the value logistic for a new tree: 0, or the root's evaluation when it is
    decisive (|cp| >= ANCHOR_MIN_CP)."""
    return root_cp if abs(root_cp) >= ANCHOR_MIN_CP else 0


def node_budget(ctx: SearchContext) -> int:
    """Nodes the tree may hold: the memory `Hash` gives the table, at NODE_BYTES a node."""
    return max(1000, len(ctx.tt) * 2 * ENTRY_BYTES // NODE_BYTES)


class MctsSearch:
    """One search from one root; `run()` plays out until a stopper ends it."""

    def __init__(self, ctx: SearchContext, kept: KeptTree | None) -> None:
        self.ctx = ctx
        self.board = ctx.board
        self.captures = CaptureSearch(ctx.board, ctx.evaluator.evaluate)
        self.scale = float(ctx.value_scale)
        self.stopper = ctx.stopper
        self.stop_check = StopCheck(ctx, iterative=False)
        self.root_turn = ctx.board.turn
        root_cp = self.captures.run() + mop_up(self.board)
        sign = 1 if self.root_turn == chess.WHITE else -1
        if kept is not None and abs(root_cp - sign * kept.white_anchor) < ANCHOR_MIN_CP:
            root, anchor = kept.root, sign * kept.white_anchor
        else:
            root, anchor = Node(), choose_anchor(root_cp)
        self.root = root
        self.anchor = anchor
        draw = self.value(0, self.root_turn)
        self.draw = {self.root_turn: draw, not self.root_turn: -draw}
        self.reused = root.n
        self.size = root.n
        self.budget = node_budget(ctx)
        self.playouts = 0
        self.depth_sum = 0
        self.seldepth = 0
        self.first_eval_ms: float | None = None
        self.next_check = 0
        self.last_info_ms = 0.0
        self.last_info_depth = 0
        self.history = set(game_keys(self.board))
        self.path_keys = [position_key(self.board)]
        self.remaining = math.inf
        self.stats = SearchStats()
        self.hints = self.stop_check.hints

    # -- driver ---------------------------------------------------------------------------------

    def run(self) -> SearchResult:
        """Playouts until a stopper, `stop`, a proven root or a full tree ends the search."""
        legal = list(self.board.legal_moves)
        self.num_moves = len(legal)
        if not legal:
            score = mated_in(0) if self.board.is_check() else 0
            self.ctx.send(f"info depth 0 score {to_uci(score)}")
            return self.result(score, "nomoves")
        reason = self.ask_stopper()
        while reason is None:
            if not self.playout():
                reason = "memory"
                self.ctx.send(f"info string mcts: tree full at {self.size} nodes (node budget "
                              f"{self.budget} from Hash), search stopped")
                break
            if self.root.proven is not None:
                reason = "proven"
            elif self.playouts >= self.next_check:
                reason = self.ask_stopper()
        self.fill_stats()
        self.stopper.on_search_done(self.stats)
        self.send_info()
        if self.ctx.tree_keeper is not None:
            white_anchor = self.anchor if self.root_turn == chess.WHITE else -self.anchor
            self.ctx.tree_keeper.keep(self.root, self.board, white_anchor)
        return self.result(None, reason)

    def playout(self) -> bool:
        """One descent, evaluation and backup; False (and nothing done) when the tree is full."""
        board = self.board
        node = self.root
        path = [node]
        keys = self.path_keys
        newly_proven = False
        while True:
            if node.proven is not None and node is not self.root:
                value = self.draw[board.turn] if node.proven == DRAW else float(node.proven)
                break
            if node.n == 0:
                value = self.evaluate_leaf(node, len(path) - 1)
                newly_proven = node.proven is not None
                break
            if node.children is None:
                if self.size >= self.budget:
                    self.unwind(len(path) - 1)
                    return False
                if self.expand(node):
                    value = 1.0
                    newly_proven = True
                    break
            index = select(node, self.remaining if node is self.root else math.inf)
            child = node.children[index]
            if child is None:
                if self.size >= self.budget:
                    self.unwind(len(path) - 1)
                    return False
                child = Node()
                node.children[index] = child
                self.size += 1
            board.push(node.moves[index])
            keys.append(position_key(board))
            path.append(child)
            node = child
        backup(path, value)
        if newly_proven:
            propagate(path)
        depth = len(path) - 1
        self.unwind(depth)
        self.playouts += 1
        self.depth_sum += depth
        if depth > self.seldepth:
            self.seldepth = depth
        if self.first_eval_ms is None:
            self.first_eval_ms = self.elapsed_ms()
        return True

    def expand(self, node: Node) -> bool:
        """Give the node its moves and priors, and prove at once the children that are
        checkmate (a mate in one is never left to the priors); True if the node is then won."""
        board = self.board
        moves = list(board.legal_moves)
        probabilities, checks = priors(board, moves)
        order = node.expand(moves, probabilities)
        found = False
        for index, original in enumerate(order):
            if checks[original]:
                board.push(node.moves[index])
                mate = not any(board.generate_legal_moves())
                board.pop()
                if mate:
                    node.children[index] = self.proven_node(LOSS, 0)
                    found = True
        return found and prove(node)

    def proven_node(self, result: int, plies: int) -> Node:
        """A new child whose result is already known."""
        child = Node()
        child.proven, child.plies = result, plies
        self.size += 1
        return child

    def probe_check(self, node: Node) -> bool:
        """A first visit in check: expand the evasions at once, and prove each after which the
        checking side mates in one (so a checking sacrifice followed by mate is seen when the
        check is first tried); True if that proves the node (won or lost)."""
        if self.expand(node):
            return True
        board = self.board
        for index, move in enumerate(node.moves):
            board.push(move)
            if self.mate_in_one():
                node.children[index] = self.proven_node(WIN, 1)
            board.pop()
        return prove(node)

    def mate_in_one(self) -> bool:
        """Whether the side to move has a checkmating move."""
        board = self.board
        for move in board.generate_legal_moves():
            if board.gives_check(move):
                board.push(move)
                mate = not any(board.generate_legal_moves())
                board.pop()
                if mate:
                    return True
        return False

    def unwind(self, plies: int) -> None:
        """Take back the moves of a descent."""
        for _ in range(plies):
            self.board.pop()
            self.path_keys.pop()

    def evaluate_leaf(self, node: Node, ply: int) -> float:
        """Value of a node's first visit for its side to move; proves terminal positions."""
        board = self.board
        if not any(board.generate_legal_moves()):
            if board.is_check():
                node.proven, node.plies = LOSS, 0
                return -1.0
            node.proven = DRAW
            return self.draw[board.turn]
        if ply and (board.halfmove_clock >= 100 or board.is_insufficient_material()
                    or self.repeated()):
            node.proven = DRAW
            return self.draw[board.turn]
        if board.is_check() and self.size < self.budget and self.probe_check(node):
            return self.draw[board.turn] if node.proven == DRAW else float(node.proven)
        return self.value(self.captures.run() + mop_up(board), board.turn)

    def value(self, cp: int, turn: bool) -> float:
        """Value for the side to move (`turn`) of an evaluation of `cp` from its view: the
        logistic of the root side's cp less the anchor."""
        root_cp = cp if turn == self.root_turn else -cp
        value = cp_to_value(root_cp - self.anchor, self.scale)
        return value if turn == self.root_turn else -value

    def repeated(self) -> bool:
        """Whether the current position occurred before, in the game or on the path (two-fold)."""
        if self.board.halfmove_clock < 4:
            return False
        key = self.path_keys[-1]
        return key in self.history or key in self.path_keys[:-1]

    # -- limits ---------------------------------------------------------------------------------

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.ctx.start_time) * 1000

    def playout_ms(self) -> float:
        """Mean wall time of a playout so far: the next one is not started if it would end past
        the time the stoppers allow (one playout can take tens of ms on a loaded machine)."""
        if not self.playouts or self.first_eval_ms is None:
            return 0.0
        return (self.elapsed_ms() - self.first_eval_ms) / self.playouts

    def average_depth(self) -> int:
        return max(1, round(self.depth_sum / self.playouts)) if self.playouts else 0

    def fill_stats(self) -> SearchStats:
        """The record the stoppers read (visits per root move in the root's edge order)."""
        stats = self.stats
        elapsed = self.elapsed_ms()
        root = self.root
        stats.time_since_movestart_ms = elapsed
        stats.time_since_first_eval_ms = (
            elapsed - self.first_eval_ms if self.first_eval_ms is not None else 0.0)
        stats.nodes_since_movestart = self.playouts
        stats.total_nodes = self.reused + self.playouts
        stats.reused_nodes = self.reused
        stats.depth = self.average_depth()
        stats.num_root_moves = self.num_moves
        if root.children is not None:
            stats.root_visits = [child.n if child is not None else 0 for child in root.children]
            stats.need_more_time = need_more_time(root)
        stats.mate_found = (mate_moves(mate_in(root.plies)) if root.proven == WIN else None)
        return stats

    def ask_stopper(self) -> str | None:
        """One check of the stopper chain, `stop` and the throttle; schedules the next check."""
        stats = self.fill_stats()
        reason = self.stop_check.ask(stats, self.playout_ms())
        hints = self.hints
        self.remaining = hints.remaining_nodes
        step = CHECK_INTERVAL
        if hints.remaining_nodes < step:
            step = int(hints.remaining_nodes)
        elapsed = stats.time_since_movestart_ms
        left = min(hints.remaining_ms, hints.soft_remaining_ms)
        if left != math.inf and elapsed > 0:
            window = min(CHECK_WINDOW_MS, max(0.0, left) / 4)
            step = min(step, int(window * self.playouts / elapsed))
        self.next_check = self.playouts + max(step, 1)
        if reason is None and (elapsed - self.last_info_ms >= INFO_INTERVAL_MS
                               or self.average_depth() > self.last_info_depth):
            self.send_info()
        return reason

    # -- output ---------------------------------------------------------------------------------

    def child_score(self, index: int) -> int:
        """Score of a root move for the root side: mate scores when proven, else cp from Q."""
        child = self.root.children[index]
        if child.proven == LOSS:
            return mate_in(child.plies + 1)
        if child.proven == WIN:
            return mated_in(child.plies + 1)
        if child.proven == DRAW:
            return 0
        return clamp_eval(value_to_cp(child.q(), self.scale) + self.anchor)

    def lines(self) -> list[RootLine]:
        """Every visited root move, best first (Lc0's order), with its score and line."""
        root = self.root
        lines = []
        for index in ranked(root):
            child = root.children[index]
            if child is None or (child.n == 0 and child.proven is None):
                continue
            lines.append(RootLine(root.moves[index], self.child_score(index),
                                  principal_variation(root, index)))
        return lines

    def send_info(self) -> None:
        """`info` lines for the best `MultiPV` root moves, then their visits and Q."""
        elapsed = self.elapsed_ms()
        self.last_info_ms = elapsed
        self.last_info_depth = self.average_depth()
        lines = self.lines()[: self.ctx.multipv]
        nodes = self.reused + self.playouts
        nps = int(self.playouts * 1000 / elapsed) if elapsed > 0 else 0
        root = self.root
        for number, line in enumerate(lines, 1):
            self.ctx.send(
                f"info depth {self.last_info_depth} seldepth {self.seldepth} multipv {number} "
                f"score {to_uci(line.score)} nodes {nodes} nps {nps} time {int(elapsed)} "
                f"pv {' '.join(move.uci() for move in line.pv)}")
        if len(lines) > 1:
            for line in lines:
                child = root.children[root.moves.index(line.move)]
                self.ctx.send(f"info string mcts {line.move.uci()} visits {child.n} "
                              f"q {child.q():+.4f}")

    def result(self, score: int | None, reason: str) -> SearchResult:
        lines = self.lines() if self.root.children is not None else []
        if lines:
            best = lines[0]
            move, score, pv = best.move, best.score, best.pv
        else:
            legal = list(self.board.legal_moves)
            move = legal[0] if legal else None
            pv = [move] if move is not None else []
            score = score or 0
        return SearchResult(
            best_move=move,
            score=score,
            depth=self.average_depth(),
            seldepth=self.seldepth,
            nodes=self.reused + self.playouts,
            time_ms=self.elapsed_ms(),
            stop_reason=reason,
            pv=pv,
            lines=lines,
            reused_nodes=self.reused,
        )


def need_more_time(root: Node) -> bool:
    """Lc0's kNeedMoreTime hint (docs/reference/smooth_time_manager.md 6.2): scanning the root edges
    in order, the most-visited move is not the one with the best Q (FPU for unvisited edges)."""
    fpu = first_play_urgency(root)
    max_n = 0
    best_util = -1000.0
    ok = True
    for child in root.children:
        n = child.n if child is not None else 0
        util = child.q() if n else fpu
        if n > max_n:
            max_n = n
            ok = False
        if util >= best_util:
            ok = n == max_n
            best_util = util
    return not ok


def search(ctx: SearchContext) -> SearchResult:
    """The `mcts` search mode's entry point."""
    keeper = ctx.tree_keeper
    return MctsSearch(ctx, keeper.take(ctx.board) if keeper is not None else None).run()
