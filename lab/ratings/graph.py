"""Whether a directed graph given as edge arrays is connected in one piece, with numpy alone.

A rating pool's graph (`lab.ratings.pool`) has a node per player and an edge per pairing, and is
almost always one piece: every player meets many others, so it is also shallow, and a breadth-
first search is a few vectorised sweeps over the edge list (a gather and a scatter each). The
pool checks that first and asks `scipy.sparse.csgraph.connected_components` for the pieces only
when there are several: its import was about 30 ms of `tempo ratings`' start-up (issue 17),
while on 5,000 players and a million games the sweeps take no longer than the SciPy call did.
"""

from __future__ import annotations

import numpy as np


def reached(start: int, src: np.ndarray, dst: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """The `nodes` (a mask) reachable from `start` along edges src → dst between them."""
    found = np.zeros(len(nodes), dtype=bool)
    found[start] = True
    frontier = found.copy()
    while frontier.any():
        hit = np.zeros(len(nodes), dtype=bool)
        hit[dst[frontier[src]]] = True
        frontier = hit & nodes & ~found
        found |= frontier
    return found


def strongly_connected(nodes: np.ndarray, src: np.ndarray, dst: np.ndarray) -> bool:
    """Whether every one of `nodes` reaches every other along the edges src → dst among them:
    one node reaches all of them and all of them reach it."""
    if not nodes.any():
        return True
    start = int(np.argmax(nodes))
    return bool(reached(start, src, dst, nodes)[nodes].all()
                and reached(start, dst, src, nodes)[nodes].all())


def weakly_connected(nodes: np.ndarray, src: np.ndarray, dst: np.ndarray) -> bool:
    """Whether the edges among `nodes`, direction ignored, join all of them."""
    if not nodes.any():
        return True
    both_src, both_dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    return bool(reached(int(np.argmax(nodes)), both_src, both_dst, nodes)[nodes].all())
