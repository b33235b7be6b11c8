"""Arithmetic for the two ways of limiting search speed: an NPS throttle and a node budget.

The seed (MadChess "The UCI_LimitStrength Algorithm", "Search Speed") stalls the search whenever
its rate
exceeds the NPS limit; MadChess busy-waits (docs/reference/elo_limit.md §1.3), we sleep instead, in
slices of at most `SLEEP_SLICE_S` so the caller can honour `stop` while it waits (MadChess issue
#67, §1.3 "Bug to avoid"). Rodent IV sleeps in 10 ms steps the same way (§3). The alternative the
reference recommends for a Python lab (§1.3, §6) is a node budget of NPS x the move's planned
time: deterministic, hardware-independent, no waiting at all.

Both run on our engine's scale: MadChess's NPS curve assumes an engine of millions of nodes per
second, ours reaches about 15-35 thousand, so `rescaled_nps` maps the curve onto our speed
before either limit uses it, and `level_nodes` turns it into a node budget per move that does
not depend on the machine or the clock (issue #18).

No clocks are read here: the caller passes nodes and elapsed seconds and does the sleeping.
"""

from __future__ import annotations

import math

#: Longest single sleep, seconds: short enough to answer `stop` promptly.
SLEEP_SLICE_S = 0.01

#: MadChess 3.2 beta's NPS at its top level, 2600: trunc(200 x 10^4) + 500 (reference §0).
MADCHESS_TOP_NPS = 2_000_500

#: Our engine's full-strength speed on the scale of a level's budget: the nodes per second that
#: make the top of MadChess's curve (`MADCHESS_TOP_NPS` over `REFERENCE_MOVE_S`) a move of full
#: strength's in the calibration's games at 10+0.1, 9100 nodes. Full strength searched 8265
#: nodes a move against the anchors (30.9k nodes/s, results/calibration/final-v3/full_strength)
#: and 9563 against L1650 (35.1k, final-v3/round3/top), where the old 16k (a 5600-node top, from
#: the engine's speed on 2026-11-25) held L1650 to 5489 and full strength scored 79.5 %. Only the
#: ratio between levels and full strength matters: the budgets are counted in nodes, not seconds.
ENGINE_NPS = 26_000

#: Seconds of an average move at the calibration's time control, 10+0.1: the smooth manager
#: plans 350-360 ms for an opening move with 10 s and 0.1 s increment (its `budget_ms`).
REFERENCE_MOVE_S = 0.35

#: Stockfish's skill levels search to depth 1 + level, level 0..20 (Stockfish 15.1,
#: src/search.cpp, `Skill::time_to_pick`; reference §0): one more ply per this many Elo.
ELO_PER_DEPTH = 100


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


def rescaled_nps(nps: int) -> int:
    """MadChess's NPS limit on our engine's scale: nps x ENGINE_NPS / MADCHESS_TOP_NPS, at least 1.

    MadChess's curve gives its top level (2600) about 2 million nodes/s, the speed its own full
    strength reaches; the curve's shape is the ratio of each level's search effort to full
    strength's, which is what sets its strength. Scaling it by one factor keeps those ratios
    and gives the top level our full speed, so levels keep their effort relative to full
    strength instead of hitting our ceiling at about 1100 Elo (issue #18: with the unscaled
    curve the limit stopped binding at 1050-1160 and every level above differed only in
    move error).
    """
    if nps < 1:
        raise ValueError(f"NPS limit must be at least 1, got {nps}")
    return max(1, nps * ENGINE_NPS // MADCHESS_TOP_NPS)


def level_nodes(nps: int) -> int:
    """The node budget per move of a level with MadChess NPS `nps`: its rescaled NPS over the
    calibration's average move time (`REFERENCE_MOVE_S`), at least 1.

    A fixed budget makes the level the same on any machine and at any time control: the clock
    only caps it (the time manager still stops a search that runs out of time). MadChess's
    budget is NPS x the move's time (§1.3); fixing the time at the calibration's keeps the
    level's strength where it was measured.
    """
    return max(1, math.trunc(rescaled_nps(nps) * REFERENCE_MOVE_S))


def depth_cap(elo: int, elo_min: int) -> int:
    """Deepest iteration a level completes: 1 + (elo - elo_min) // ELO_PER_DEPTH.

    After Stockfish's skill levels, which pick their move at depth 1 + level (§0). It binds
    where the node budget cannot: in sparse endgames and transposition-rich positions an
    iteration costs few nodes, and a small budget would still reach full-strength depths.
    """
    return 1 + max(0, elo - elo_min) // ELO_PER_DEPTH
