"""Arithmetic for the two ways of limiting search speed: an NPS throttle and a node budget.

The seed (MadChess "The UCI_LimitStrength Algorithm", "Search Speed") stalls the search whenever
its rate
exceeds the NPS limit; MadChess busy-waits (docs/reference/elo_limit.md §1.3), we sleep instead, in
slices of at most `SLEEP_SLICE_S` so the caller can honour `stop` while it waits (MadChess issue
#67, §1.3 "Bug to avoid"). Rodent IV sleeps in 10 ms steps the same way (§3). The alternative the
reference recommends for a Python lab (§1.3, §6) is a node budget of NPS x the move's planned
time: deterministic, hardware-independent, no waiting at all.

No clocks are read here: the caller passes nodes and elapsed seconds and does the sleeping.
"""

from __future__ import annotations

import math

#: Longest single sleep, seconds: short enough to answer `stop` promptly.
SLEEP_SLICE_S = 0.01


def throttle_delay(nodes: int, elapsed_s: float, nps: int) -> float:
    """Seconds to wait so that `nodes` searched in `elapsed_s` (plus the wait) is within `nps`.

    Zero when the search is already at or below the limit. The caller sleeps
    min(delay, SLEEP_SLICE_S) at a time, rechecking `stop` and its time limits between slices.
    """
    if nps < 1:
        raise ValueError(f"NPS limit must be at least 1, got {nps}")
    if nodes < 0 or elapsed_s < 0:
        raise ValueError(f"nodes and elapsed time must not be negative: {nodes}, {elapsed_s}")
    return max(0.0, nodes / nps - elapsed_s)


def check_interval(nps: int) -> int:
    """Nodes between two throttle checks: about one sleep slice's worth at the limit, at least 1.

    MadChess checks at every node when limited (§1.3); checking every `nps x SLEEP_SLICE_S`
    nodes keeps the stall granularity at one slice while sparing clock reads at high limits.
    """
    if nps < 1:
        raise ValueError(f"NPS limit must be at least 1, got {nps}")
    return max(1, int(nps * SLEEP_SLICE_S))


def node_budget(nps: int, budget_s: float) -> int:
    """`LimitMode nodes`: nodes allowed for this move, trunc(NPS x planned time), at least 1.

    `budget_s` is the time the time manager plans for the move (its soft budget), or the
    `movetime`; the reference's "NPS(E) x allotted_time" (§1.3, §6).
    """
    if nps < 1:
        raise ValueError(f"NPS limit must be at least 1, got {nps}")
    if not math.isfinite(budget_s) or budget_s < 0:
        raise ValueError(f"time budget must be finite seconds >= 0, got {budget_s}")
    return max(1, math.trunc(nps * budget_s))
