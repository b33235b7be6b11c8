"""Adjudication rules on score sequences (cutechess semantics, reference section 2.4), and one real
game ended by the resign rule."""

from __future__ import annotations

import chess

from lab.adjudication import Adjudicator, Verdict
from lab.game import play_game
from lab.records import Adjudication, GameTask
from timecontrol.control import parse_time_control


def feed(rules: Adjudication, scores: list[int | None], start_ply: int = 0,
         irreversible_at: frozenset[int] = frozenset(), mates: dict[int, int] | None = None
         ) -> tuple[int, Verdict] | None:
    """Feed plies with the mover's scores (White first); (index, verdict) of the first verdict."""
    adjudicator = Adjudicator(rules)
    mates = mates or {}
    for index, score in enumerate(scores):
        mover = chess.WHITE if index % 2 == 0 else chess.BLACK
        mate = mates.get(index)
        verdict = adjudicator.update(mover, None if mate is not None else score, mate,
                                     plies=start_ply + index + 1,
                                     irreversible=index in irreversible_at)
        if verdict is not None:
            return index, verdict
    return None


DRAW = Adjudication(draw_move_number=5, draw_move_count=3, draw_score_cp=10)


def test_draw_after_2k_quiet_plies_once_the_move_number_is_reached() -> None:
    # 6 consecutive plies within +-10 cp; the game must also be 5 full moves (10 plies) old.
    assert feed(DRAW, [5, -5, 10, -10, 0, 3, 0, 0, 0, 0]) == (
        9, Verdict("1/2-1/2", "Draw by adjudication: draw rule"))
    # Starting later (a book of 8 plies), the count alone decides at the 6th quiet ply.
    assert feed(DRAW, [5, -5, 10, -10, 0, 3], start_ply=8) == (
        5, Verdict("1/2-1/2", "Draw by adjudication: draw rule"))


def test_draw_count_resets_on_a_big_score_a_capture_a_mate_or_no_score() -> None:
    quiet = [0] * 5
    assert feed(DRAW, [*quiet, 11, *quiet], start_ply=20) is None
    assert feed(DRAW, [*quiet, 0, *quiet], start_ply=20, irreversible_at=frozenset({5})) is None
    assert feed(DRAW, [*quiet, 0, *quiet], start_ply=20, mates={5: 12}) is None
    assert feed(DRAW, [*quiet, None, *quiet], start_ply=20) is None
    # ... and counts again from there: 6 more quiet plies after the reset end it.
    assert feed(DRAW, [*quiet, 50, *quiet, 0], start_ply=20)[0] == 11


RESIGN = Adjudication(resign_move_count=3, resign_score_cp=500)


def test_resign_after_k_losing_moves_of_one_side() -> None:
    # White's own scores -600, -700, -500: the third White move (ply index 4) ends it.
    assert feed(RESIGN, [-600, 600, -700, 650, -500, 900]) == (
        4, Verdict("0-1", "Black wins by adjudication: resign rule"))
    # Black losing: its scores are its own point of view.
    assert feed(RESIGN, [800, -520, 800, -999, 800, -500]) == (
        5, Verdict("1-0", "White wins by adjudication: resign rule"))
    # A mate against the mover counts as losing.
    assert feed(RESIGN, [-600, 0, 0, 0, -600, 0], mates={2: -4}) == (
        4, Verdict("0-1", "Black wins by adjudication: resign rule"))


def test_resign_count_resets_and_the_threshold_is_inclusive() -> None:
    assert feed(RESIGN, [-600, 0, -499, 0, -600, 0, -600, 0]) is None
    assert feed(RESIGN, [-500, 0, -500, 0, -500]) == (
        4, Verdict("0-1", "Black wins by adjudication: resign rule"))


def test_two_sided_resign_needs_the_winner_to_agree() -> None:
    two = Adjudication(resign_move_count=3, resign_score_cp=500, resign_two_sided=True)
    # Black does not see its win (+100): no verdict, though White is lost by its own account.
    assert feed(two, [-600, 100, -600, 100, -600, 100, -600]) is None
    # White's third losing move is ply index 4; Black agrees for the third time at index 5.
    assert feed(two, [-600, 600, -600, 600, -600, 600]) == (
        5, Verdict("0-1", "Black wins by adjudication: resign rule"))


def test_max_moves_and_rules_off_by_default() -> None:
    assert feed(Adjudication(max_moves=3), [0] * 10) == (
        5, Verdict("1/2-1/2", "Draw by adjudication: max moves rule"))
    assert feed(Adjudication(max_moves=3), [0] * 10, start_ply=4) == (
        1, Verdict("1/2-1/2", "Draw by adjudication: max moves rule"))
    assert feed(Adjudication(), [0, 0, -2000, 2000] * 50) is None


def test_draw_rule_is_checked_before_resign() -> None:
    both = Adjudication(draw_move_number=0, draw_move_count=1, draw_score_cp=600,
                        resign_move_count=1, resign_score_cp=500)
    assert feed(both, [0, -550]) == (1, Verdict("1/2-1/2", "Draw by adjudication: draw rule"))
    assert feed(both, [0, -650]) == (1, Verdict("1-0", "White wins by adjudication: resign rule"))


def test_real_game_ends_by_the_resign_rule(stockfish) -> None:
    # White has an extra queen; both Stockfishes see it at once.
    fen = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"
    task = GameTask("adj-1", 1, stockfish("sf-a"), stockfish("sf-b"),
                    parse_time_control("nodes=5000"), fen,
                    adjudication=Adjudication(resign_move_count=3, resign_score_cp=600))
    record = play_game(task)
    assert (record.result, record.termination) == ("1-0", "adjudication")
    assert record.reason == "White wins by adjudication: resign rule"
    black_scores = [move.search.score_cp for move in record.moves if move.ply % 2 == 0]
    assert len(black_scores) == 3 and all(s is not None and s <= -600 for s in black_scores)
