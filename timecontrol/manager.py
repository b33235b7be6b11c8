"""The time manager of one game: keeps its estimates across moves and hands out a stopper per move.

After Lc0's TimeManager (src/search/classic/stoppers/timemgr.h). Concrete managers (smooth,
smooth-lc0, the baselines) are built from a spec string by `timecontrol.factory.create_manager`.
"""

from __future__ import annotations

from timecontrol.go import GoParams
from timecontrol.stopper import Stopper


class TimeManager:
    """Lives for one game; `make_stopper` is called once per `go`."""

    name = "none"
    iteration_factors = False
    """Whether an iterative search scales this manager's soft limit by Stockfish's
    iteration-boundary factors (timecontrol.iteration_stop): off by default, as the smooth
    manager plans trees of equal size per move; spec key `iteration-factors=0/1`
    (timecontrol.factory)."""
    equal_trees = False
    """Whether an iterative search stops at the node count the manager's stopper plans
    (`Stopper.planned_nodes`) rather than at the soft time limit: every move then ends with a
    tree of the same size, the smooth manager's second principle; spec key `equal-trees=0/1`
    (timecontrol.factory), on for `smooth`."""

    def new_game(self) -> None:
        """Forget every estimate (`ucinewgame`, or a position that does not continue the game)."""

    def make_stopper(
        self, go: GoParams, ply: int, white: bool, reused_nodes: int | None,
        move_overhead_ms: int
    ) -> Stopper | None:
        """The manager's own stopper for this move, or None when it does not plan the move (no
        clock for the side to move, or `go infinite`); `timecontrol.common.move_stopper` adds
        the limits every move has.

        `ply` is the game ply of the position to move in, `white` whether White is to move, and
        `reused_nodes` the nodes (visits) the search kept from its previous tree, None for a
        search that keeps no tree (alpha-beta): tree reuse is then 0 from the start.
        With `go.ponder` set the search began as `go ponder` and this is `ponderhit`: the move's
        time starts now, and `reused_nodes` includes the tree grown while pondering.
        The stopper's `telemetry()` holds the manager's per-move figures where it has them:
        `tm`, `budget_ms`, `hard_ms`, `moves_left`, `nps_est`, `tree_reuse`, `timeuse`.
        """
        raise NotImplementedError
