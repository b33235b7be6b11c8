"""Choosing the move to play with MadChess-style move errors and blunders.

After MadChess "The UCI_LimitStrength Algorithm" ("Severity Of Move Errors", "Chance Of
Blundering") and
docs/reference/elo_limit.md §1.4 and §6: the error budget is drawn once per move (the blunder error
with probability BlunderPer128/128, the move error otherwise, never less than the move error),
and the move is picked uniformly among the best move and every move scoring within the budget of
it. As in MadChess from v3.2 on (§1.4, step 3, "winning-side guard"), a best score at or above
the decisive threshold (a forced mate or a recognised won ending) always plays the best move.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from engine.strength.params import StrengthParams

#: Scores at or above this (centipawns, side to move) count as decisive wins. MadChess plays the
#: best move from StaticScore.SimpleEndgame = 20,000 on a scale whose mates are about 30,000
#: (reference §1.4, step 3): a bound above every heuristic evaluation and below every mate.
#: Our material totals about 4,000 cp a side and CPW's Score page (CPW "Score") keeps heuristic
#: scores within 30 to 50 pawns, so 10,000 sits above them; the search passes its own bound
#: (for example its lowest mate score) when its mate encoding differs.
DECISIVE_CP = 10_000


@dataclass(frozen=True)
class MoveChoice:
    """The chosen move and its score, the error budget drawn and how many moves were eligible."""

    move: Hashable
    score: int
    budget_cp: int
    blunder: bool
    eligible: int


def draw_budget(params: StrengthParams, rng: random.Random) -> tuple[int, bool]:
    """Draw this move's error budget: (budget in cp, whether it is a blunder), §1.4 step 2."""
    blunder = rng.randrange(128) < params.blunder_per128
    budget = max(params.move_error, params.blunder_error if blunder else 0)
    return budget, blunder


def choose_move(
    root_scores: Sequence[tuple[Hashable, int]],
    params: StrengthParams,
    rng: random.Random,
    decisive_cp: int = DECISIVE_CP,
    drawn: tuple[int, bool] | None = None,
) -> MoveChoice:
    """Pick the move to play from exactly scored root moves (move, score in cp, side to move).

    Mate scores are passed as large values; a best score >= `decisive_cp` always plays the best
    move. Among equal scores the earlier entry counts as better. The budget is drawn (one random
    draw) even when the guard applies, so the random stream does not depend on the scores; a
    search that needs it beforehand draws it with `draw_budget` and passes it as `drawn` (the
    stream then draws the same numbers in the same order). A move more than the budget below the
    best may be given by an upper bound of its score: it is not eligible either way.
    """
    if not root_scores:
        raise ValueError("choose_move needs at least one root move")
    ranked = sorted(root_scores, key=lambda item: -item[1])
    budget, blunder = drawn if drawn is not None else draw_budget(params, rng)
    best_move, best_score = ranked[0]
    if best_score >= decisive_cp:
        return MoveChoice(best_move, best_score, budget, blunder, 1)
    eligible = [(move, score) for move, score in ranked if score >= best_score - budget]
    move, score = eligible[rng.randrange(len(eligible))]
    return MoveChoice(move, score, budget, blunder, len(eligible))
