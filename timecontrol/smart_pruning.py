"""Lc0's smart-pruning stopper for MCTS: stop when the best move can no longer be caught.

docs/reference/smooth_time_manager.md §6.4 (Lc0 HEAD stoppers.cc, SmartPruningStopper, factor
1.33, minimum batches 0). It goes last in the chain, after the time manager, whose NPS and
remaining-time hints it reads: with the time left and the NPS, the playouts still possible are
remaining_ms/1000 * nps / factor; if the most-visited root move leads the second by more than
that, no other move can overtake it and the search stops. Lc0's HEAD extras that need search
internals (losing-edge count, terminal win at the root, batch count) are not modelled.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from timecontrol.stopper import SearchStats, Stopper, StopperHints

FIRST_EVAL_GRACE_MS = 200.0


def remaining_playouts(remaining_ms: float, nps: float, factor: float,
                       remaining_nodes: float = math.inf) -> float:
    """Playouts the search can still make, shrunk by the smart-pruning factor (reference §6.4
    step 8): min(remaining_ms/1000 * nps / f, remaining_nodes / f)."""
    return min(remaining_ms / 1000.0 * nps / factor, remaining_nodes / factor)


@dataclass
class SmartPruningStopper(Stopper):
    """Stop when best_N - second_N exceeds the remaining playouts (reference §6.4)."""

    factor: float = 1.33
    first_eval_ms: float | None = None

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        if self.factor <= 0:
            return None
        if stats.num_root_moves == 1:
            return "only-move"
        if self.first_eval_ms is None:
            if stats.nodes_since_movestart > 0:
                self.first_eval_ms = stats.time_since_movestart_ms
            return None
        if not stats.root_visits:
            return None
        since_first = stats.time_since_movestart_ms - self.first_eval_ms
        if since_first < FIRST_EVAL_GRACE_MS:
            return None
        nps = hints.estimated_nps
        if nps is None:
            nps = 1000.0 * (stats.nodes_since_movestart + 300) / since_first + 1
        playouts = remaining_playouts(hints.remaining_ms, nps, self.factor,
                                      hints.remaining_nodes)
        hints.update_remaining_nodes(playouts)
        top = heapq.nlargest(2, stats.root_visits)
        lead = top[0] - (top[1] if len(top) > 1 else 0)
        return "smart-pruning" if playouts < lead else None
