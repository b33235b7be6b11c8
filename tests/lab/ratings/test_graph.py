"""lab.ratings.graph: the one-piece checks agree with SciPy's components, and `tempo ratings`
asks SciPy only when a pool is in several pieces."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from lab.ratings import pool as pool_module
from lab.ratings.graph import strongly_connected, weakly_connected
from lab.ratings.pool import Pool, last_purged, score_groups


def pieces(n: int, src, dst, nodes, connection: str) -> int:
    """SciPy's number of components among `nodes` (the graph restricted to them)."""
    keep = nodes[src] & nodes[dst]
    graph = coo_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n))
    labels = connected_components(graph, directed=True, connection=connection)[1]
    return len(set(labels[nodes].tolist()))


@pytest.mark.parametrize("seed", range(40))
def test_one_piece_checks_agree_with_scipy(seed) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    edges = int(rng.integers(0, 3 * n))
    src, dst = rng.integers(0, n, edges), rng.integers(0, n, edges)
    nodes = rng.random(n) < 0.8
    assert strongly_connected(nodes, src, dst) == (pieces(n, src, dst, nodes, "strong") <= 1)
    assert weakly_connected(nodes, src, dst) == (pieces(n, src, dst, nodes, "weak") <= 1)


def test_a_cycle_is_one_piece_and_a_path_is_not() -> None:
    every = np.ones(4, dtype=bool)
    cycle = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])
    path = np.array([0, 1, 2]), np.array([1, 2, 3])
    assert strongly_connected(every, *cycle) and weakly_connected(every, *cycle)
    assert not strongly_connected(every, *path) and weakly_connected(every, *path)
    assert not weakly_connected(every, np.array([0]), np.array([1]))


def test_scipy_only_for_pools_in_several_pieces(monkeypatch) -> None:
    """A pool tied together is one group without SciPy's components; two groups are found."""
    tied = Pool(["a", "b", "c"], np.array([0, 1, 2]), np.array([1, 2, 0]),
                np.ones(3), np.zeros(3), np.zeros(3))  # a beats b beats c beats a
    apart = Pool(["a", "b", "c", "d"], np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2]),
                 np.ones(4), np.zeros(4), np.zeros(4))  # a, b and c, d: each beat the other
    members, pinned = np.ones(4, dtype=bool), np.zeros(4, dtype=bool)
    asked = []
    real = pool_module._components
    monkeypatch.setattr(pool_module, "_components",
                        lambda *args: asked.append(args[-1]) or real(*args))
    assert score_groups(tied, members[:3], pinned[:3]) == [[0, 1, 2]]
    assert last_purged(tied, np.array([True, True, False]), [(2, ">", 0)]) == []
    assert asked == []
    assert score_groups(apart, members, pinned) == [[0, 1], [2, 3]]
    assert last_purged(apart, np.array([True, True, False, False]), [(3, "<", 0)]) == [3]
    assert asked == ["strong", "weak"]
