"""Positions sampled from the games of results folders, each with its game's result.

Book plies are never sampled (the game is replayed from its opening position and book moves),
nor the first `skip` engine plies; then `per_game` plies are drawn at random (seeded) from the
rest of each decided or drawn game. Texel tuning takes each position's label from the game's
result, from White's point of view (CPW, "Texel's Tuning Method"). A game that repeats an earlier
one move for move (as a deterministic engine plays both colours of a paired opening against
itself) is sampled once: its positions would only count twice.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
"""PGN results -> White's score; unfinished games (`*`) are left out."""


@dataclass(frozen=True)
class Sample:
    """One sampled position and its game's result for White (1, 0.5 or 0); `game_id` is the
    game's id prefixed by its folder ("folder/r0001-e01-g0"), since every results folder numbers
    its games the same way and a game held out must be one game."""

    fen: str
    result: float
    game_id: str


def sample_positions(folders: Iterable[str | Path], skip: int = 8, per_game: int = 10,
                     seed: int = 1) -> list[Sample]:
    """Up to `per_game` positions of each finished game in `folders` (see the module docstring)."""
    import chess

    from lab.store import read_store

    rng = random.Random(seed)
    samples: list[Sample] = []
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for folder in folders:
        with read_store(folder) as store:
            games = store.games()
            moves = store.moves()
        by_game = {game_id: list(frame["move"]) for game_id, frame in moves.groupby("game_id",
                                                                                     sort=False)}
        for game in games.itertuples():
            if game.result not in RESULTS:
                continue
            played = tuple(by_game.get(game.game_id, []))
            line = (game.opening_fen, game.opening_moves or "", played)
            if line in seen:
                continue
            seen.add(line)
            board = chess.Board(game.opening_fen)
            for uci in (game.opening_moves or "").split():
                board.push_uci(uci)
            fens = []
            for uci in played:
                board.push_uci(uci)
                fens.append(board.fen())
            eligible = fens[skip:]
            for fen in rng.sample(eligible, min(per_game, len(eligible))):
                samples.append(Sample(fen, RESULTS[game.result], f"{folder}/{game.game_id}"))
    return samples
