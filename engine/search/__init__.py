"""Search modes: each is one module `engine.search.<mode>` with one entry point `search(ctx)`."""

from __future__ import annotations

import importlib

import chess

from engine.search.context import SearchContext, SearchResult

MODES = ("alphabeta", "greenblatt", "mcts")


def run(mode: str, ctx: SearchContext) -> SearchResult:
    """Run the search of `mode` (one of `MODES`) on `ctx` and return its result."""
    if mode not in MODES:
        raise ValueError(f"unknown SearchMode {mode!r}")
    return importlib.import_module(f"engine.search.{mode}").search(ctx)


def prepare(mode: str, board: chess.Board) -> int:
    """Before a `go`: in mcts mode, make the kept tree's subtree of `board` the next root and
    return its visits (the reused nodes); 0 otherwise (other modes keep no tree)."""
    if mode != "mcts":
        return 0
    from engine.search import mcts

    return mcts.prepare(board)


def new_game() -> None:
    """`ucinewgame`: drop the MCTS tree."""
    from engine.search import mcts

    mcts.new_game()
