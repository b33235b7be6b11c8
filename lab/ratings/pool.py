"""Game results condensed per (white, black) pairing, and the pool's connectivity.

A rating fit never looks at single games: it needs, for each ordered pairing, how many games White
won, drew and lost. A 1,000,000-game frame condenses to a few thousand rows in one `bincount`.

"reference §5.x" is §5.x of docs/reference/harness_and_stats.md (Ordo §5.1, BayesElo §5.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lab.ratings.graph import strongly_connected, weakly_connected
from lab.records import RESULT_POINTS

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Pool:
    """Results condensed per ordered pairing: row g is `white[g]` against `black[g]`.

    `wins`, `draws`, `losses` are White's, as floats (BayesElo's prior adds fractional virtual
    draws). `players[i]` names index i.
    """

    players: list[str]
    white: np.ndarray
    black: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def games(self) -> np.ndarray:
        """Games in each pairing row."""
        return self.wins + self.draws + self.losses

    def per_player(self, white_values: np.ndarray, black_values: np.ndarray) -> np.ndarray:
        """Sum a per-row quantity over the rows where each player is White, resp. Black."""
        return np.bincount(self.white, white_values, self.n) + np.bincount(
            self.black, black_values, self.n
        )

    def played(self) -> np.ndarray:
        return self.per_player(self.games, self.games)

    def points(self) -> np.ndarray:
        return self.per_player(self.wins + self.draws / 2, self.losses + self.draws / 2)

    def drawn(self) -> np.ndarray:
        return self.per_player(self.draws, self.draws)

    def subset(self, rows: np.ndarray) -> Pool:
        """The same players, only the pairing rows selected by the boolean mask `rows`."""
        return Pool(
            self.players, self.white[rows], self.black[rows], self.wins[rows],
            self.draws[rows], self.losses[rows],
        )



#: White's outcome code per decided result: 0 loss, 1 draw, 2 win (-1 stands for any other).
OUTCOMES = {text: int(2 * points) for text, points in RESULT_POINTS.items()}


def condense(games: pd.DataFrame) -> Pool:
    """Condense a frame with columns `white`, `black`, `result` into a `Pool` (as
    `condense_rows`; names numbered by `pd.factorize`, errors name the frame's row label)."""
    import pandas as pd

    missing = {"white", "black", "result"} - set(games.columns)
    if missing:
        raise ValueError(f"the games frame lacks the column(s) {sorted(missing)}")
    codes, names = pd.factorize(pd.concat(
        [games["white"].astype(str), games["black"].astype(str)], ignore_index=True))
    outcome = games["result"].astype(str).str.strip().map(OUTCOMES).fillna(-1)
    m = len(games)
    return condense_codes(codes[:m], codes[m:], outcome.to_numpy(dtype=np.int64),
                          [str(name) for name in names], games.index)


def condense_rows(rows: Iterable[tuple[str, str, str]], labels: Sequence | None = None) -> Pool:
    """Condense (white, black, result) rows into a `Pool` (see `condense_codes`).

    Results other than "1-0", "0-1", "1/2-1/2" (such as "*"; surrounding spaces allowed) are
    ignored. Names and results are numbered with dicts: a 100k-game list in about 20 ms, half
    the time of `np.unique` on the names, and no pandas.
    """
    names: dict[str, int] = {}
    kinds: dict[str, int] = {}
    w_codes: list[int] = []
    b_codes: list[int] = []
    r_codes: list[int] = []
    for white, black, result in rows:
        w_codes.append(names.setdefault(white, len(names)))
        b_codes.append(names.setdefault(black, len(names)))
        r_codes.append(kinds.setdefault(result, len(kinds)))
    outcome_of = np.array([OUTCOMES.get(str(kind).strip(), -1) for kind in kinds], dtype=np.int64)
    return condense_codes(np.array(w_codes, dtype=np.int64), np.array(b_codes, dtype=np.int64),
                          outcome_of[np.array(r_codes, dtype=np.int64)], list(names), labels)


def condense_codes(white: np.ndarray, black: np.ndarray, outcome: np.ndarray, names: list[str],
                   labels: Sequence | None = None) -> Pool:
    """The pool of games given as codes: `names[white[k]]` had White in game k, `outcome[k]` is
    White's (`OUTCOMES`, -1 for a game that is not counted).

    Players are numbered in name order; those who appear only in uncounted games are left out.
    A counted game of a player against itself is a ValueError naming its row (the position k,
    or `labels[k]`).
    """
    decided = outcome >= 0
    w, b, outcome = white[decided], black[decided], outcome[decided]
    if (w == b).any():
        position = int(np.flatnonzero(decided)[np.argmax(w == b)])
        label = position if labels is None else labels[position]
        raise ValueError(f"game at row {label}: {names[white[position]]!r} plays itself")
    present = np.bincount(np.concatenate([w, b]), minlength=len(names)) > 0
    used = sorted(np.flatnonzero(present).tolist(), key=names.__getitem__)
    n = len(used)
    code = np.zeros(len(names), dtype=np.int64)
    code[used] = np.arange(n)
    w, b = code[w], code[b]
    pairing, row_of_game = np.unique(w * max(n, 1) + b, return_inverse=True)
    counts = np.bincount(row_of_game * 3 + outcome, minlength=3 * len(pairing))
    counts = counts.reshape(len(pairing), 3).astype(float)
    return Pool(
        [names[i] for i in used], pairing // max(n, 1), pairing % max(n, 1),
        counts[:, 2], counts[:, 1], counts[:, 0],
    )


def purge_perfect(pool: Pool, keep: np.ndarray) -> list[tuple[int, str, int]]:
    """Ordo's purge (reference §5.1): drop perfect winners and losers until none is left.

    Returns (player, ">" for a perfect winner or "<" for a perfect loser, round) in purge order;
    players where `keep` is set (anchors) are never purged. Scores count games among the players
    still there at the start of the round.
    """
    active = np.ones(pool.n, dtype=bool)
    purged: list[tuple[int, str, int]] = []
    for round_no in range(pool.n + 1):
        rows = active[pool.white] & active[pool.black]
        sub = pool.subset(rows)
        played, points = sub.played(), sub.points()
        win = active & ~keep & (played > 0) & (points >= played)
        loss = active & ~keep & (played > 0) & (points <= 0)
        if not (win.any() or loss.any()):
            break
        purged += [(int(i), ">", round_no) for i in np.flatnonzero(win)]
        purged += [(int(i), "<", round_no) for i in np.flatnonzero(loss)]
        active &= ~(win | loss)
    return purged


def last_purged(pool: Pool, rated: np.ndarray, purged: list[tuple[int, str, int]]) -> list[int]:
    """Purged players with nobody rated to be bounded against: in each part of the pool joined by
    games where the purge left no player `rated`, the players of the last round purged there."""
    if not purged:
        return []
    every = np.ones(pool.n, dtype=bool)
    if weakly_connected(every, pool.white, pool.black):
        part = np.zeros(pool.n, dtype=np.int64)
    else:
        part = _components(pool.n, pool.white, pool.black, "weak")
    last: dict[int, int] = {}
    for i, _, round_no in purged:
        last[int(part[i])] = max(last.get(int(part[i]), -1), round_no)
    emptied = set(last) - {int(part[i]) for i in np.flatnonzero(rated)}
    return [i for i, _, round_no in purged
            if int(part[i]) in emptied and round_no == last[int(part[i])]]


def soften_perfect(pool: Pool, players: list[int]) -> Pool:
    """Ordo's bound rule (reference §5.1) for players perfect among themselves, all at once.

    One win of each perfect winner (loss of each perfect loser) among `players` counts as a draw;
    each has a game among them, and won (lost) all it played there. A game between two of them is
    a win for one and a loss for the other, so one softened game serves both: players with the
    most games among them go first, each softening a game of its pairing (opponent and colours)
    with the most games, and a player already holding a softened game is skipped.
    """
    wins, draws, losses = pool.wins.copy(), pool.draws.copy(), pool.losses.copy()
    among = np.isin(pool.white, players) & np.isin(pool.black, players)
    games = pool.games * among
    count = pool.per_player(games, games)
    softened: set[int] = set()
    for p in sorted(players, key=lambda i: (-count[i], i)):
        if p in softened:
            continue
        k = int(np.argmax(games * ((pool.white == p) | (pool.black == p))))
        if wins[k] > 0:
            wins[k] -= 1
        else:
            losses[k] -= 1
        draws[k] += 1
        softened |= {int(pool.white[k]), int(pool.black[k])}
    return Pool(pool.players, pool.white, pool.black, wins, draws, losses)


def score_groups(pool: Pool, members: np.ndarray, pinned: np.ndarray) -> list[list[int]]:
    """Groups of `members` whose relative ratings are identified (strongly connected components).

    Edge i → j when i scored (won or drew) against j: the maximum-likelihood ratings are finite
    exactly when every split of the pool has points flowing both ways (Zermelo/Ford). `pinned`
    players (anchors, loose or fixed) also link both ways to one virtual node, the rating scale.
    """
    rows = members[pool.white] & members[pool.black]
    sub = pool.subset(rows)
    virtual = pool.n
    src = [sub.white[sub.wins + sub.draws > 0], sub.black[sub.losses + sub.draws > 0]]
    dst = [sub.black[sub.wins + sub.draws > 0], sub.white[sub.losses + sub.draws > 0]]
    anchors = np.flatnonzero(pinned & members)
    src += [anchors, np.full(len(anchors), virtual)]
    dst += [np.full(len(anchors), virtual), anchors]
    s, d = np.concatenate(src), np.concatenate(dst)
    nodes = np.append(members, len(anchors) > 0)
    if strongly_connected(nodes, s, d):
        labels = np.zeros(pool.n + 1, dtype=np.int64)
    else:
        labels = _components(pool.n + 1, s, d, "strong")
    groups: dict[int, list[int]] = {}
    for i in np.flatnonzero(members):
        groups.setdefault(int(labels[i]), []).append(int(i))
    return sorted(groups.values(), key=lambda g: (-len(g), g))


def _components(n: int, src: np.ndarray, dst: np.ndarray, connection: str) -> np.ndarray:
    """A label per node: its "weak" or "strong" component of the graph with edges src → dst
    (SciPy, imported here: most pools are one piece, which `lab.ratings.graph` tells first)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    return connected_components(graph, directed=True, connection=connection)[1]


def with_bayeselo_prior(pool: Pool, prior: float) -> Pool:
    """The pool with BayesElo's virtual draws (`CCondensedResults::AddPrior`, reference §5.2).

    Player i spreads `prior`/4 virtual draws per colour over its opponents j in proportion to the
    share of its games played against j, so each colour order of a pairing that met gets
    prior·¼·(T_ij/T_i + T_ij/T_j) draws, T_ij the games between i and j in both colours.
    """
    n = pool.n
    total = pool.played()
    lo, hi = np.minimum(pool.white, pool.black), np.maximum(pool.white, pool.black)
    met, inverse = np.unique(lo * n + hi, return_inverse=True)
    between = np.bincount(inverse, pool.games, len(met))
    i, j = met // n, met % n
    virtual = prior * 0.25 * (between / total[i] + between / total[j])
    white = np.concatenate([pool.white, i, j])
    black = np.concatenate([pool.black, j, i])
    rows, inverse = np.unique(white * n + black, return_inverse=True)
    k = len(rows)

    def sum_rows(values: np.ndarray) -> np.ndarray:
        return np.bincount(inverse, values, k)

    zeros = np.zeros(2 * len(met))
    return Pool(
        pool.players, rows // n, rows % n,
        sum_rows(np.concatenate([pool.wins, zeros])),
        sum_rows(np.concatenate([pool.draws, virtual, virtual])),
        sum_rows(np.concatenate([pool.losses, zeros])),
    )
