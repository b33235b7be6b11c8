"""The MCTS tree kept between moves of one game (Lc0's tree reuse): the engine holds a
`TreeKeeper`; before a `go` it prepares the subtree of the new position, and after the search it
keeps the tree searched.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from engine.search.mcts_tree import Node, descend


@dataclass
class KeptTree:
    """The tree of the last search and the game position of its root."""

    root: Node
    start_fen: str
    moves: list[chess.Move]
    white_anchor: int
    prepared: bool = False


class TreeKeeper:
    """The tree of the last search, kept for the next `go` of the same game (the engine holds
    one; a search without it starts fresh)."""

    def __init__(self) -> None:
        self.kept: KeptTree | None = None

    def new_game(self) -> None:
        """Drop the kept tree (`ucinewgame`)."""
        self.kept = None

    def prepare(self, board: chess.Board) -> int:
        """Make the kept subtree of `board` the root of the next search; its visits (0 if
        `board` does not continue the kept game, which then drops the tree)."""
        kept = self.kept
        if kept is None:
            return 0
        start_fen, moves = game_of(board)
        known = len(kept.moves)
        node = None
        if start_fen == kept.start_fen and moves[:known] == kept.moves:
            node = descend(kept.root, moves[known:])
        if node is None:
            self.kept = None
            return 0
        node.proven = None
        self.kept = KeptTree(node, start_fen, moves, kept.white_anchor, prepared=True)
        return node.n

    def take(self, board: chess.Board) -> KeptTree | None:
        """The kept tree if it was prepared for `board`."""
        kept = self.kept
        if kept is not None and kept.prepared and game_of(board) == (kept.start_fen,
                                                                     kept.moves):
            kept.prepared = False
            return kept
        return None

    def keep(self, root: Node, board: chess.Board, white_anchor: int) -> None:
        """Keep the tree of the search that just ended at `board`."""
        start_fen, moves = game_of(board)
        self.kept = KeptTree(root, start_fen, moves, white_anchor)


def game_of(board: chess.Board) -> tuple[str, list[chess.Move]]:
    """The game's start position and its moves: what a kept tree must continue."""
    return board.root().fen(), list(board.move_stack)
