"""Search modes: each is one module `engine.search.<mode>` with one entry point `search(ctx)`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import chess

from engine.search.context import SearchContext, SearchResult

if TYPE_CHECKING:
    from engine.search.mcts_keeper import TreeKeeper

MODES = ("alphabeta", "greenblatt", "mcts")


def run(mode: str, ctx: SearchContext) -> SearchResult:
    """Run the search of `mode` (one of `MODES`) on `ctx` and return its result."""
    if mode not in MODES:
        raise ValueError(f"unknown SearchMode {mode!r}")
    return importlib.import_module(f"engine.search.{mode}").search(ctx)


def iterative(mode: str) -> bool:
    """Whether the search of `mode` deepens by iterations (reads a budget as a soft limit)."""
    return mode != "mcts"


def prepare(mode: str, board: chess.Board, keeper: TreeKeeper) -> int | None:
    """Before a `go`: in mcts mode, make the kept tree's subtree of `board` the next root and
    return its visits (the reused nodes); None in the modes that keep no tree."""
    if mode != "mcts":
        return None
    return keeper.prepare(board)
