"""What the SPRT of a results folder counts: the challenger and its pentanomial (or trinomial)
counts.

The games are paired by `pair_id` (the two games of a pair share it) from the challenger's side:
the experiment's one challenger when it is a gauntlet with one, else the first player of the
first game, unless one is named. Only completed pairs count (docs/reference/harness_and_stats.md
§2.5); without pair ids, or when asked for, single games are counted instead. `tempo sprt` and
the HTML page both count this way, so they show the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lab.stats import pair_scores, pentanomial, player_scores, trinomial

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class FolderCounts:
    """What a results folder gives the test: the challenger, its counts, the stored config."""

    engine: str
    counts: list[int]
    config: dict[str, Any]

    @property
    def paired(self) -> bool:
        """True for pentanomial counts (pairs), False for trinomial (single games)."""
        return len(self.counts) == 5


def challenger(games: pd.DataFrame, config: dict[str, Any], engine: str | None = None) -> str:
    """The player the test is about: `engine`, else the experiment's one challenger, else the
    first player of the first game; a ValueError names an engine that did not play."""
    challengers = config.get("challengers") or []
    if engine is None and config.get("schedule") == "gauntlet" and len(challengers) == 1:
        engine = challengers[0]
    engine = engine or str(games["white"].iloc[0])
    players = set(games["white"]) | set(games["black"])
    if engine not in players:
        raise ValueError(f"no engine {engine!r} (players: {', '.join(sorted(players))})")
    return engine


def is_paired(games: pd.DataFrame) -> bool:
    """True when the games carry pair ids (paired openings)."""
    return "pair_id" in games.columns and bool(games["pair_id"].notna().any())


def count_games(games: pd.DataFrame, config: dict[str, Any], engine: str | None = None,
                single: bool = False) -> FolderCounts:
    """The challenger's counts over `games` (a `Store.games()` frame, not empty): pentanomial
    over completed pairs, or trinomial when the games are not paired or `single` is set."""
    if games.empty:
        raise ValueError("no games recorded")
    who = challenger(games, config, engine)
    if is_paired(games) and not single:
        return FolderCounts(who, pentanomial(pair_scores(games, who)), config)
    return FolderCounts(who, trinomial(player_scores(games, who)), config)
