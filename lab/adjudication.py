"""Draw, resign and maximum-length adjudication of a game from the engines' own scores.

After cutechess-cli's `GameAdjudicator` (docs/reference/harness_and_stats.md sections 2.4 and 3;
cutechess 5e84232b `projects/lib/src/gameadjudicator.cpp`), checked in its order after every move:

* Draw: count consecutive plies whose mover reported a centipawn score within
  ±`draw_score_cp`. A capture or pawn move, a missing score or a mate score resets the count
  (fastchess's resets; cutechess resets on captures and pawn moves too). Adjudicate a draw when the
  count reaches 2·`draw_move_count` and the game is at least `draw_move_number` full moves old.
* Resign: per side, count that side's consecutive moves with a score at or below
  −`resign_score_cp` (or a mate against it). When the count reaches `resign_move_count`, that side
  loses. With `resign_two_sided` the opponent must also have reported at least +`resign_score_cp`
  (or a mate for it) on its last `resign_move_count` moves; so the verdict may come on the
  winner's move, when it agrees.
* Maximum length: drawn once the game has `max_moves` full moves.

Move numbers follow cutechess: full moves = plies since the task's start position (book moves
included) // 2, not the FEN's move counter (fastchess uses the counter; the two differ for EPD
books). Book moves are not fed here, so they never count towards a draw or resignation.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from lab.records import Adjudication


@dataclass(frozen=True)
class Verdict:
    """An adjudicated end: the result ("1-0", "0-1", "1/2-1/2") and the reason in words."""

    result: str
    reason: str


class Adjudicator:
    """Follows one game move by move and says when a rule ends it."""

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        self.draw_count = 0
        self.resign_count = {chess.WHITE: 0, chess.BLACK: 0}
        self.win_count = {chess.WHITE: 0, chess.BLACK: 0}

    def _draw_rule_on(self) -> bool:
        rules = self.rules
        return None not in (rules.draw_move_number, rules.draw_move_count, rules.draw_score_cp)

    def _resign_rule_on(self) -> bool:
        return None not in (self.rules.resign_move_count, self.rules.resign_score_cp)

    def update(self, mover: chess.Color, score_cp: int | None, score_mate: int | None,
               plies: int, irreversible: bool) -> Verdict | None:
        """Feed one move: the mover's colour and score (its point of view), the game's plies so
        far from the start position (this move included) and whether the move was a capture or
        pawn move. Returns the verdict when a rule ends the game."""
        rules = self.rules
        if self._draw_rule_on():
            if (irreversible or score_cp is None or score_mate is not None
                    or abs(score_cp) > rules.draw_score_cp):
                self.draw_count = 0
            else:
                self.draw_count += 1
            if (plies // 2 >= rules.draw_move_number
                    and self.draw_count >= 2 * rules.draw_move_count):
                return Verdict("1/2-1/2", "Draw by adjudication: draw rule")
        if self._resign_rule_on():
            threshold = rules.resign_score_cp
            losing = (score_mate is not None and score_mate < 0) or (
                score_mate is None and score_cp is not None and score_cp <= -threshold)
            winning = (score_mate is not None and score_mate > 0) or (
                score_mate is None and score_cp is not None and score_cp >= threshold)
            self.resign_count[mover] = self.resign_count[mover] + 1 if losing else 0
            self.win_count[mover] = self.win_count[mover] + 1 if winning else 0
            count = rules.resign_move_count
            for side in (mover, not mover):
                if self.resign_count[side] >= count and (
                        not rules.resign_two_sided or self.win_count[not side] >= count):
                    winner = "Black" if side == chess.WHITE else "White"
                    result = "0-1" if side == chess.WHITE else "1-0"
                    return Verdict(result, f"{winner} wins by adjudication: resign rule")
        if rules.max_moves is not None and plies >= 2 * rules.max_moves:
            return Verdict("1/2-1/2", "Draw by adjudication: max moves rule")
        return None
