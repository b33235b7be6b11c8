"""engine.limiter: options -> parameters, the NPS throttle's waiting, node budgets, the choice."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import chess
import pytest

from engine.evaluate import MaterialValues
from engine.limiter import (
    GameStream,
    NpsThrottle,
    StrengthLimiter,
    ThrottleStopper,
    planned_move_ms,
    simple_won_ending,
)
from engine.options import OptionError, Options
from engine.search.context import RootLine, SearchContext, SearchResult
from engine.strength import (
    CALIBRATED,
    FULL_STRENGTH_ELO,
    LADDER_MIN_ELO,
    TableRow,
    dump_lines,
    formula_elo,
    load_elo_table,
    params_for_elo,
    write_table,
)
from engine.tt import TranspositionTable
from timecontrol.stopper import (
    ChainedStopper,
    DepthStopper,
    GoParams,
    SearchStats,
    StopperHints,
    TimeLimitStopper,
)

SEED_1075_HEAD = [
    "info string LimitStrength = True, ELO = 1075.",
    "info string NPS = 6863, MoveError = 31, BlunderError = 330, BlunderPer128 = 13.",
]


def limiter(**options) -> StrengthLimiter:
    """A limiter with `options` set in order, playing MadChess's formulas (`EloTable` empty)
    unless the options name a table: most tests here check the formulas' levels."""
    strength = StrengthLimiter(Options())
    for name, value in {"EloTable": "", **options}.items():
        strength.set_option(name, value)
    return strength


def test_debug_dump_follows_each_strength_option_only_when_limited():
    strength = limiter()
    assert strength.set_option("UCI_Elo", "1075", debug=True) == []  # limit still off
    lines = strength.set_option("uci_limitstrength", "true", debug=True)
    assert formula_elo(1075) == 1433  # 600 + 475/1140 x 2000 = 1433.3
    assert lines == [*(f"info string {line}" for line in dump_lines(params_for_elo(1433))),
                     f"info string UCI_Elo 1075 plays the formulas' ELO 1433 (the range "
                     f"{LADDER_MIN_ELO}..{FULL_STRENGTH_ELO} mapped onto 600..2600)"]
    assert strength.set_option("UCI_Elo", "600", debug=False) == []
    assert strength.set_option("LimitMode", "nodes", debug=True) == []


def formula_table(path: Path) -> Path:
    """An Elo table holding the formulas' own rows at 600, 1075 (the seed's example) and 2600."""
    rows = [params_for_elo(elo) for elo in (600, 1075, 2600)]
    write_table(str(path), [TableRow(p.elo, p.nps, p.move_error, p.blunder_error,
                                     p.blunder_per128) for p in rows])
    return path


def test_a_table_of_the_formulas_rows_dumps_the_seed(tmp_path):
    """Through a table, `UCI_Elo` is the table's Elo: a table holding the formulas' own rows
    plays (and dumps) the seed's level 1075 at UCI_Elo 1075, with no mapping line: the last line
    names the table and its range instead."""
    table = formula_table(tmp_path / "formulas.csv")
    strength = limiter(UCI_Elo="1075", EloTable=str(table))
    lines = strength.set_option("UCI_LimitStrength", "true", debug=True)
    assert lines[:2] == SEED_1075_HEAD
    assert lines[:-1] == [f"info string {line}" for line in dump_lines(params_for_elo(1075))]
    assert lines[-1] == (f"info string UCI_Elo 1075 plays EloTable {table} (its range "
                         f"600..{FULL_STRENGTH_ELO})")


@pytest.mark.parametrize("value", [
    "100", str(LADDER_MIN_ELO - 1), str(FULL_STRENGTH_ELO + 1), "2600"])
def test_out_of_range_elo_is_refused_naming_the_range(value):
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="900")
    lines = strength.set_option("UCI_Elo", value, debug=True)
    assert lines == [f"info string error: UCI_Elo {value} is outside the range "
                     f"{LADDER_MIN_ELO}..{FULL_STRENGTH_ELO} (Stockfish 15.1 UCI_Elo scale at "
                     "10+0.1; the top is full strength); UCI_Elo stays 900"]
    assert strength.params.elo == formula_elo(900) and strength.options["UCI_Elo"] == 900


def test_the_range_ends_are_accepted():
    strength = limiter(UCI_LimitStrength="true")
    for value, formulas in ((LADDER_MIN_ELO, 600), (FULL_STRENGTH_ELO, 2600)):
        assert strength.set_option("UCI_Elo", str(value)) == []
        assert strength.params.elo == formula_elo(value) == formulas


def test_a_table_refuses_elos_below_its_first_row_naming_its_range():
    """The shipped table starts at 710: 600..709 would play its 710 row, stronger than asked, so
    they are refused while it is loaded; the formulas (EloTable empty) still reach 600."""
    bottom = load_elo_table(CALIBRATED).rows[0].elo
    assert bottom == 710
    strength = limiter(UCI_LimitStrength="true", EloTable=CALIBRATED, UCI_Elo="900")
    assert strength.bottom == bottom
    lines = strength.set_option("UCI_Elo", str(bottom - 1))
    assert lines == [f"info string error: UCI_Elo {bottom - 1} is outside the range "
                     f"{bottom}..{FULL_STRENGTH_ELO} of EloTable {CALIBRATED} (Stockfish 15.1 "
                     "UCI_Elo scale at 10+0.1; the top is full strength; another EloTable, set "
                     "first, has its own bottom); UCI_Elo stays 900"]
    assert strength.options["UCI_Elo"] == 900
    assert strength.set_option("UCI_Elo", str(bottom)) == []
    assert strength.params.elo == bottom
    formulas = limiter(UCI_LimitStrength="true", UCI_Elo=str(LADDER_MIN_ELO))
    assert formulas.bottom == LADDER_MIN_ELO and formulas.options["UCI_Elo"] == LADDER_MIN_ELO


def test_a_table_from_600_accepts_600(tmp_path):
    table = formula_table(tmp_path / "formulas.csv")
    strength = limiter(UCI_LimitStrength="true", EloTable=str(table), UCI_Elo="600")
    assert strength.options["UCI_Elo"] == 600 and strength.params.nps == params_for_elo(600).nps


def test_loading_a_table_that_starts_above_uci_elo_moves_it_to_the_first_row():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="650")
    lines = strength.set_option("EloTable", CALIBRATED)
    assert lines == [f"info string UCI_Elo 650 is below the range 710..{FULL_STRENGTH_ELO} of "
                     f"EloTable {CALIBRATED}: UCI_Elo is now 710"]
    assert strength.options["UCI_Elo"] == 710
    assert strength.params == load_elo_table(CALIBRATED).params_for_elo(710)


def test_the_declared_range_maps_linearly_onto_the_formulas_range():
    """600..1740 onto MadChess's 600..2600: 1170 is halfway (1600), 1075 is 1433.3 -> 1433,
    1739 is 2598.2 -> 2598; ends clamp."""
    assert (LADDER_MIN_ELO, FULL_STRENGTH_ELO) == (600, 1740)
    assert [formula_elo(elo) for elo in (600, 1075, 1170, 1739, 1740)] == [
        600, 1433, 1600, 2598, 2600]
    assert (formula_elo(100), formula_elo(3000)) == (600, 2600)
    levels = [formula_elo(elo) for elo in range(LADDER_MIN_ELO, FULL_STRENGTH_ELO + 1)]
    assert levels == sorted(levels)


def test_bad_values_are_option_errors():
    strength = StrengthLimiter(Options())
    with pytest.raises(OptionError, match="UCI_Elo"):
        strength.set_option("UCI_Elo", "strong")
    with pytest.raises(OptionError, match="LimitMode"):
        strength.set_option("LimitMode", "depth")


def test_a_bad_table_keeps_the_previous_one(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n600,111,7,70,3\n"
                    "2600,222222,1,10,1\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n600,1,2,3,4\n500,1,2,3,4\n")
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="600", EloTable=str(good))
    assert (strength.params.nps, strength.params.move_error) == (111, 7)
    lines = strength.set_option("EloTable", str(bad), debug=True)
    assert lines == [f"info string error: {bad}:3: Elo 500 outside 600..2600"]
    assert (strength.params.nps, strength.params.move_error) == (111, 7)
    strength.set_option("EloTable", "")
    assert strength.params == params_for_elo(600)


def test_limited_evaluator_has_the_levels_knowledge_and_material():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="700")
    params = params_for_elo(formula_elo(700))
    evaluator = strength.evaluator
    assert evaluator.material == MaterialValues(params.material_mg, params.material_eg)
    assert evaluator.material.middlegame[chess.PAWN] < 100  # pawns undervalued below 800
    assert dict(zip(params.knowledge, evaluator.knowledge)) == params.knowledge
    strength.set_option("UCI_LimitStrength", "false")
    assert strength.evaluator.material == MaterialValues()
    assert set(strength.evaluator.knowledge) == {1.0}


def draws(stream: GameStream, board: chess.Board) -> list[float]:
    rng = stream.for_position(board)
    return [rng.random() for _ in range(3)]


def test_a_game_is_identified_by_its_seed_and_its_first_searched_position():
    start, other = chess.Board(), chess.Board()
    other.push_san("e4")
    first = draws(GameStream(7), start)
    stream = GameStream(7)
    assert draws(stream, start) == first  # a rerun of the game replays its stream
    assert draws(stream, other) != first  # ... which goes on, not restarting at later moves
    assert draws(GameStream(7), other) != first  # another opening, another stream
    assert draws(GameStream(8), start) != first  # another Seed, another stream


def test_new_games_and_seeds_start_new_streams():
    strength = limiter(Seed="7")
    board = chess.Board()
    first = draws(strength.stream, board)
    assert draws(strength.stream, board) != first
    strength.new_game()
    assert draws(strength.stream, board) == first
    strength.set_option("Seed", "8")
    assert draws(strength.stream, board) != first


def test_same_scores_from_two_openings_are_chosen_from_different_streams():
    # Every game drew from Seed 0's one stream before: the same scores gave the same choices.
    roots = [("a2a3", 0), ("b2b3", -1), ("c2c3", -2), ("d2d3", -3), ("e2e3", -4), ("f2f3", -5)]
    choices = []
    for fen in (chess.STARTING_FEN, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qk - 0 1"):
        strength = limiter(UCI_LimitStrength="true", UCI_Elo="600")
        ctx = SearchContext(chess.Board(fen), None, TranspositionTable(1), send=lambda line: None)
        choices.append([strength.choose(ctx, result_with(roots)).best_move for _ in range(12)])
    assert choices[0] != choices[1]


def test_multipv_covers_every_root_move_when_limited():
    board = chess.Board()
    assert limiter().multipv(1, board) == 1
    strength = limiter(UCI_LimitStrength="true")
    assert strength.multipv(1, board) == 20
    assert strength.multipv(30, board) == 30


def test_planned_move_time():
    assert planned_move_ms({"budget_ms": 800}, GoParams(), 10) == 800
    assert planned_move_ms({}, GoParams(movetime=500), 10) == 490
    assert planned_move_ms({"budget_ms": 800}, GoParams(movetime=500), 10) == 490
    assert planned_move_ms({"tm": "smooth"}, GoParams(depth=3), 10) is None


def context(go: GoParams, overhead: int = 10) -> SearchContext:
    from timecontrol.stopper import limit_stoppers

    return SearchContext(chess.Board(), None, TranspositionTable(1),
                         stopper=ChainedStopper(limit_stoppers(go, overhead)))


@pytest.mark.parametrize("go", [GoParams(movetime=1010), GoParams(movetime=60_000),
                                GoParams(depth=30), GoParams(infinite=True)])
def test_nodes_mode_is_the_default_and_the_budget_is_the_levels_whatever_the_go(go):
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="1170")  # formulas' 1600
    assert strength.options["LimitMode"] == "nodes"
    ctx = context(go)
    strength.prepare(ctx, go, 10)
    assert ctx.throttle is None and ctx.multipv == 20
    # The move's error budget is drawn before the search, which bounds the moves below it.
    params = strength.params
    assert ctx.choice_margin == strength.drawn[0] in (params.move_error, params.blunder_error)
    hints = StopperHints()
    stats = SearchStats(nodes_since_movestart=569, depth=1)
    assert ctx.stopper.should_stop(stats, hints) is None
    assert hints.remaining_nodes == 1
    stats.nodes_since_movestart = 570  # 125,500 NPS rescaled to 1,631 x 0.35 s
    assert ctx.stopper.should_stop(stats, hints) == "nodes"
    # The first iteration is never cut (every root move gets a score), nor told to hurry.
    hints.reset()
    assert ctx.stopper.should_stop(SearchStats(nodes_since_movestart=9000), hints) is None
    assert hints.remaining_nodes == float("inf")
    # Where the budget cannot bind (cheap iterations), the level's depth cap does: 11 at 1600.
    assert ctx.stopper.should_stop(SearchStats(nodes_since_movestart=50, depth=10), hints) is None
    assert ctx.stopper.should_stop(SearchStats(nodes_since_movestart=50, depth=11),
                                   hints) == "depth"


def test_go_nodes_keeps_its_own_limit_below_the_levels_budget():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="1170")  # formulas' 1600
    ctx = context(GoParams(nodes=200))
    strength.prepare(ctx, GoParams(nodes=200), 10)
    stats = SearchStats(nodes_since_movestart=200, depth=2)
    assert ctx.stopper.should_stop(stats, StopperHints()) is not None
    assert any(isinstance(stopper, DepthStopper) for stopper in ctx.stopper.stoppers)


def test_nps_mode_throttles_at_the_rescaled_nps():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="1170", LimitMode="nps")
    ctx = context(GoParams(depth=4))
    strength.prepare(ctx, GoParams(depth=4), 10)
    assert isinstance(ctx.throttle, NpsThrottle) and ctx.throttle.nps == 1631
    assert ctx.check_nodes == 16


def test_unlimited_search_is_left_alone():
    strength = limiter(UCI_Elo="800")
    ctx = context(GoParams(movetime=100))
    before = ctx.stopper
    strength.prepare(ctx, GoParams(movetime=100), 10)
    assert ctx.throttle is None and ctx.stopper is before and ctx.multipv == 1
    assert ctx.choice_margin is None


def test_throttle_waits_until_the_rate_is_within_the_limit():
    start = time.perf_counter()
    throttle = NpsThrottle(1000, threading.Event(), start)
    throttle(SearchStats(nodes_since_movestart=150, depth=0))  # first iteration: full speed
    assert time.perf_counter() - start < 0.05
    throttle(SearchStats(nodes_since_movestart=150, depth=1))
    assert 0.15 <= time.perf_counter() - start < 0.5
    assert not throttle.expired


def test_stop_ends_the_wait_at_once():
    stop = threading.Event()
    start = time.perf_counter()
    throttle = NpsThrottle(10, stop, start)
    threading.Timer(0.1, stop.set).start()
    throttle(SearchStats(nodes_since_movestart=100, depth=2))  # 10 s at the limit
    assert time.perf_counter() - start < 0.5


def test_throttle_gives_up_at_the_planned_time_and_the_search_stops():
    start = time.perf_counter()
    throttle = NpsThrottle(10, threading.Event(), start, deadline_ms=100)
    stopper = ChainedStopper([TimeLimitStopper(10_000), ThrottleStopper(throttle)])
    assert stopper.should_stop(SearchStats(), StopperHints()) is None
    throttle(SearchStats(nodes_since_movestart=100, depth=2))
    assert 0.09 <= time.perf_counter() - start < 0.5
    assert throttle.expired
    assert stopper.should_stop(SearchStats(), StopperHints()) == "throttle"


def result_with(lines: list[tuple[str, int]]) -> SearchResult:
    roots = [RootLine(chess.Move.from_uci(m), s, [chess.Move.from_uci(m)]) for m, s in lines]
    return SearchResult(roots[0].move, roots[0].score, 3, 5, 1000, 50.0, "movetime",
                        pv=list(roots[0].pv), lines=roots)


def test_choice_stays_within_the_budget_and_reports_the_played_line():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="600", Seed="3")
    sent: list[str] = []
    ctx = SearchContext(chess.Board(), None, TranspositionTable(1), send=sent.append)
    roots = [("e2e4", 40), ("d2d4", 35), ("g1f3", 0), ("a2a3", -20), ("g2g4", -700)]
    played = set()
    for _ in range(200):
        sent.clear()
        result = strength.choose(ctx, result_with(roots))
        score = dict(roots)[result.best_move.uci()]
        assert result.score == score and result.pv == [result.best_move]
        budget = int(sent[0].split(" budget ")[1].split()[0])
        assert budget in (50, 603) and score >= 40 - budget
        played.add(result.best_move.uci())
        if result.best_move.uci() != "e2e4":
            assert sent[1].startswith("info depth 3 ") and f"pv {result.best_move}" in sent[1]
    assert played == {"e2e4", "d2d4", "g1f3", "a2a3"}


def test_full_strength_plays_the_searchs_move():
    strength = limiter(UCI_Elo="600")
    result = result_with([("e2e4", 40), ("d2d4", 35)])
    assert strength.choose(SearchContext(chess.Board(), None, TranspositionTable(1)),
                           result) is result


@pytest.mark.parametrize("fen, won", [
    ("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", True),
    ("8/8/8/4k3/8/8/8/KR6 w - - 0 1", True),
    ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", False),  # the lone king to move
    ("8/8/8/4k3/8/8/8/KB6 w - - 0 1", False),
    ("8/8/8/4k3/4p3/8/8/KQ6 w - - 0 1", False),
])
def test_simple_won_endings_are_played_at_full_strength(fen, won):
    board = chess.Board(fen)
    assert simple_won_ending(board) is won
    strength = limiter(UCI_LimitStrength="true", UCI_Elo="600")
    assert (strength.multipv(1, board) == 1) is won
    ctx = SearchContext(board, None, TranspositionTable(1), send=lambda line: None)
    moves = [move.uci() for move in board.legal_moves][:2]
    result = result_with([(moves[0], 500), (moves[1], 499)])
    assert (strength.choose(ctx, result) is result) is won


def test_the_top_of_the_range_is_full_strength():
    strength = limiter(UCI_LimitStrength="true", UCI_Elo=str(FULL_STRENGTH_ELO))
    assert not strength.limited and strength.evaluator.material == MaterialValues()
    ctx = context(GoParams(movetime=100))
    before = ctx.stopper
    strength.prepare(ctx, GoParams(movetime=100), 10)
    assert ctx.stopper is before and ctx.multipv == 1
    strength.set_option("UCI_Elo", str(FULL_STRENGTH_ELO - 1))
    assert strength.limited
