"""UCI_LimitStrength in real engine processes: the seed's `debug on` dump, node budgets, the NPS
throttle, `stop`, per-game seeded streams, mating with KQ v K, the declared range, drawn endings,
Elo tables and move errors within budget (MadChess "The UCI_LimitStrength Algorithm",
docs/reference/elo_limit.md §0, §1.3, §1.4; issue #18)."""

from __future__ import annotations

import json
import re
import subprocess
import time

import chess
import chess.engine
import pytest

from engine.strength import (
    FULL_STRENGTH_ELO,
    LADDER_MIN_ELO,
    dump_lines,
    formula_elo,
    params_for_elo,
    rescaled_nps,
)
from lab.calibration.config import load_calibration
from tests.engine.conftest import ENGINE_CMD, REPO, raw_engine, read_until
from tests.engine.test_limiter import formula_table
from tests.engine.test_strength import SEED_DUMP_600, SEED_DUMP_1075

STOCKFISH = "/usr/games/stockfish"
#: MadChess's formulas rather than the calibrated table the engine loads by default: these tests
#: check the formulas' levels, whose figures come from the seed and the reference.
FORMULAS = "setoption name EloTable value <empty>"
LIMIT = [FORMULAS, "debug on", "setoption name UCI_LimitStrength value true"]
THROTTLE = [*LIMIT, "setoption name LimitMode value nps"]


def converse(process: subprocess.Popen, commands: list[str]) -> list[str]:
    """Send `commands`, then `isready`; the output up to `readyok` (without it)."""
    process.stdin.write("".join(f"{command}\n" for command in [*commands, "isready"]))
    process.stdin.flush()
    return read_until(process, "readyok")[:-1]


def strings(lines: list[str]) -> list[str]:
    return [line[len("info string "):] for line in lines if line.startswith("info string ")]


@pytest.fixture
def raw():
    process = raw_engine()
    converse(process, ["uci"])
    try:
        yield process
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=10)


def test_debug_dump_matches_the_seed_at_600_and_1075(raw, tmp_path):
    # The seed's own session: debug on, uci_limitstrength, uci_elo (lower case, as typed there).
    # 600, the range's bottom, is the formulas' 600; the seed's 1075 is played through a table
    # holding the formulas' own rows, where UCI_Elo is the table's Elo.
    converse(raw, [FORMULAS, "debug on", "setoption name uci_limitstrength value true"])
    assert strings(converse(raw, ["setoption name uci_elo value 600"]))[:21] == SEED_DUMP_600
    table = formula_table(tmp_path / "formulas.csv")
    converse(raw, [f"setoption name EloTable value {table}"])
    assert strings(converse(raw, ["setoption name UCI_Elo value 1075"]))[:21] == SEED_DUMP_1075


def test_by_default_uci_elo_plays_the_calibrated_table_shipped_with_the_engine(raw):
    said = converse(raw, ["uci"])
    assert "option name EloTable type string default <calibrated>" in said
    converse(raw, ["debug on", "setoption name UCI_LimitStrength value true"])
    dump = strings(converse(raw, ["setoption name UCI_Elo value 710"]))
    assert dump[1].startswith("NPS = 6066, MoveError = 32,")  # its row at 710
    assert not any("formulas" in line for line in dump)
    dump = strings(converse(raw, ["setoption name EloTable value <empty>"]))
    assert dump[-1].startswith("UCI_Elo 710 plays the formulas' ELO 793 ")


def test_without_a_table_uci_elo_plays_the_formulas_at_its_place_in_the_range(raw):
    converse(raw, LIMIT)
    said = strings(converse(raw, ["setoption name UCI_Elo value 1170"]))
    assert said[:21] == dump_lines(params_for_elo(1600))[:21]
    assert said[-1] == (f"UCI_Elo 1170 plays the formulas' ELO 1600 (the range "
                        f"{LADDER_MIN_ELO}..{FULL_STRENGTH_ELO} mapped onto 600..2600)")


def test_no_dump_without_debug_or_without_the_limit(raw):
    assert strings(converse(raw, ["setoption name UCI_LimitStrength value true",
                                  "setoption name UCI_Elo value 900"])) == []
    assert strings(converse(raw, ["debug on", "setoption name UCI_LimitStrength value false",
                                  "setoption name UCI_Elo value 1000"])) == []


@pytest.mark.parametrize("value", ["100", "3500", str(FULL_STRENGTH_ELO + 1)])
def test_out_of_range_elo_is_refused_and_the_engine_plays_on(raw, value):
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 1000"])
    said = strings(converse(raw, [f"setoption name UCI_Elo value {value}"]))
    assert said == [f"error: UCI_Elo {value} is outside the range {LADDER_MIN_ELO}.."
                    f"{FULL_STRENGTH_ELO} (Stockfish 15.1 UCI_Elo scale at 10+0.1; the top is "
                    "full strength); UCI_Elo stays 1000"]
    lines = search_lines(raw, ["position startpos", "go movetime 5000"])
    assert "info string strength choice" in "\n".join(lines)  # still limited, at 1000
    assert telemetry(lines)["nodes"] < 1000  # 10-node budget: depth 1 over 20 moves


def test_the_calibrated_table_refuses_elos_below_its_first_row(raw):
    """The table the engine loads by default starts at 710: UCI_Elo 650 would play its 710 row,
    so it is refused naming the table's range; 710 plays that row."""
    said = strings(converse(raw, ["debug on", "setoption name UCI_LimitStrength value true",
                                  "setoption name UCI_Elo value 650"]))
    assert said[-1] == (f"error: UCI_Elo 650 is outside the range 710..{FULL_STRENGTH_ELO} of "
                        "EloTable <calibrated> (Stockfish 15.1 UCI_Elo scale at 10+0.1; the top "
                        "is full strength; another EloTable, set first, has its own bottom); "
                        "UCI_Elo stays 1200")
    said = strings(converse(raw, ["setoption name UCI_Elo value 710"]))
    assert said[-1] == (f"UCI_Elo 710 plays EloTable <calibrated> (its range "
                        f"710..{FULL_STRENGTH_ELO})")


def test_a_calibration_level_below_the_shipped_table_plays_its_own_table(raw):
    """A calibration level below the shipped table's first row plays the table it names, whose
    rows start lower: final-v3's round-1 level 650 with its start table (rows from 600). The
    lab sends the table before the Elo, in the order of `level_options`, and the engine takes
    the level (the shipped table alone would refuse it)."""
    cal = load_calibration(REPO / "experiments" / "calibrate_final.toml")
    start = REPO / "results" / "calibration" / "final-v3" / "start_table.csv"
    options = cal.level_options(650, table=start)
    sent = [f"setoption name {name} value {str(value).lower() if value is True else value}"
            for name, value in options.items()]
    said = strings(converse(raw, ["debug on", *sent]))
    assert said[-1] == (f"UCI_Elo 650 plays EloTable {start} (its range "
                        f"600..{FULL_STRENGTH_ELO})")


def test_uci_declares_the_range_with_the_default_inside(raw):
    raw.stdin.write("uci\n")
    raw.stdin.flush()
    declared = next(line for line in read_until(raw, "uciok") if "name UCI_Elo " in line)
    fields = declared.split()
    default, low, high = (int(fields[fields.index(key) + 1]) for key in ("default", "min", "max"))
    assert (low, high) == (LADDER_MIN_ELO, FULL_STRENGTH_ELO) and low <= default <= high


def test_the_top_of_the_range_searches_at_full_strength(raw):
    converse(raw, [*LIMIT, f"setoption name UCI_Elo value {FULL_STRENGTH_ELO}",
                   "position startpos"])
    lines = search_lines(raw, ["go nodes 3000"])
    assert not any("strength choice" in line for line in lines)
    assert telemetry(lines)["nodes"] >= 3000  # the formulas' budget there is 551 nodes


def test_king_and_knight_against_king_is_a_draw_at_600(raw):
    # Issue #18: +396 cp before, endgame-scale knowledge (0 at 600) undid the draw.
    said = converse(raw, [*LIMIT, "setoption name UCI_Elo value 600",
                          "position fen 8/8/8/4k3/8/8/8/KN6 w - - 0 1", "eval"])
    assert said[-1] == "Final evaluation: +0 cp (white side), +0 cp (side to move)"


def test_level_material_in_the_dump_follows_an_eval_file(raw, tmp_path):
    weights = tmp_path / "weights.json"
    weights.write_text(json.dumps({"weights": {"material.knight": [350, 310]}}))
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 1500"])
    said = strings(converse(raw, [f"setoption name EvalFile value {weights}",
                                  "setoption name UCI_Elo value 1500"]))
    assert "EvalMgKnightMaterial = 350" in said and "EvalEgKnightMaterial = 310" in said
    # ... and the evaluator uses them: KNK's material term is the knight's tapered value at
    # phase 1 of 24, (350 + 23 x 310) / 24 = 311 (300 with the built-in 320/300).
    said = converse(raw, ["position fen 8/8/8/4k3/8/8/8/KN6 w - - 0 1", "eval"])
    assert any(line.split() == ["material", ":", "+311"] for line in said)


@pytest.mark.parametrize("go", ["go movetime 20000", "go nodes 100000", "go depth 30",
                                "go wtime 600000 btime 600000"])
def test_a_level_searches_its_node_budget_whatever_the_go_and_the_clock(raw, go):
    params = params_for_elo(1600)
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 1170",  # the formulas' 1600
                   "position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"])
    record = telemetry(search_lines(raw, [go]))
    # The budget (351 nodes) ends the search once the first iteration is done.
    assert record["stop_reason"] == "nodes"
    assert params.nodes <= record["nodes"] < params.nodes + 200
    assert record["used_ms"] < 5000


def test_elo_tables_change_the_parameters_and_bad_ones_keep_the_previous(raw, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("# calibrated\nElo,NPS,MoveError,BlunderError,BlunderPer128,mobility\n"
                    "600,300,60,700,20,0.0\n1600,90000,20,150,10,1.0\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("Elo,NPS,MoveError,BlunderError,BlunderPer128\n800,700,41,475,x\n")
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 1100"])
    said = strings(converse(raw, [f"setoption name EloTable value {good}"]))
    # 1100 is halfway: NPS geometric (300 x 300^0.5), the rest linear, mobility 0.5 -> 64/128
    assert said[1] == "NPS = 5196, MoveError = 40, BlunderError = 425, BlunderPer128 = 15."
    assert "LsPieceMobilityPer128 = 64" in said
    said = strings(converse(raw, [f"setoption name EloTable value {bad}"]))
    assert said == [f"error: {bad}:2: BlunderPer128 'x' is not an integer"]
    said = strings(converse(raw, ["setoption name UCI_Elo value 1100"]))
    assert said[1] == "NPS = 5196, MoveError = 40, BlunderError = 425, BlunderPer128 = 15."
    said = strings(converse(raw, ["setoption name EloTable value <empty>"]))
    assert said[:21] == dump_lines(params_for_elo(formula_elo(1100)))[:21]


def search_lines(process: subprocess.Popen, commands: list[str]) -> list[str]:
    process.stdin.write("".join(f"{command}\n" for command in commands))
    process.stdin.flush()
    return read_until(process, "bestmove")


def last_nps(lines: list[str]) -> int:
    return int([re.search(r" nps (\d+)", line) for line in lines if " nps " in line][-1][1])


def telemetry(lines: list[str]) -> dict:
    return json.loads(next(line for line in lines if line.startswith("info string tm "))[15:])


def test_throttle_holds_the_rescaled_nps_limit_over_two_seconds(raw):
    converse(raw, [*THROTTLE, "setoption name UCI_Elo value 1170", "position startpos"])
    raw.stdin.write("go infinite\n")
    raw.stdin.flush()
    time.sleep(2.0)
    lines = search_lines(raw, ["stop"])
    limit = rescaled_nps(params_for_elo(1600).nps)
    assert last_nps(lines) == pytest.approx(limit, rel=0.10)
    record = telemetry(lines)
    assert record["used_ms"] >= 1900
    assert record["nodes"] * 1000 / record["used_ms"] == pytest.approx(limit, rel=0.10)


def test_stop_ends_a_throttled_search_promptly(raw):
    converse(raw, [*THROTTLE, "setoption name UCI_Elo value 600", "position startpos"])
    raw.stdin.write("go infinite\n")
    raw.stdin.flush()
    time.sleep(1.0)
    sent = time.perf_counter()
    lines = search_lines(raw, ["stop"])
    assert time.perf_counter() - sent < 0.3
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


def test_throttled_search_keeps_to_the_clock(raw):
    # 1,631 NPS, and the throttle gives up (and the search stops) at the planned time.
    converse(raw, [*THROTTLE, "setoption name UCI_Elo value 1170", "position startpos"])
    began = time.perf_counter()
    lines = search_lines(raw, ["go movetime 700"])
    assert time.perf_counter() - began < 0.9
    record = telemetry(lines)
    assert record["nodes"] * 1000 / record["used_ms"] <= 1631 * 1.1


def limited(elo: int, seed: int) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=30)
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Seed": seed})
    return engine


def play_game(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine,
              opening: str, plies: int) -> list[str]:
    """One game from `opening` (a FEN) between two limited engines on a long clock: their node
    budgets end every search, so only the seeds and the position decide."""
    board = chess.Board(opening)
    game = object()  # python-chess sends `ucinewgame` when the game changes
    while not board.is_game_over() and board.ply() < plies:
        engine = white if board.turn == chess.WHITE else black
        board.push(engine.play(board, chess.engine.Limit(white_clock=600, black_clock=600),
                               game=game).move)
    return [move.uci() for move in board.move_stack]


def seeded_games(white_seed: int, black_seed: int, openings: list[str],
                 plies: int = 16) -> list[list[str]]:
    """Games from each opening in turn, the same two processes playing them all."""
    white, black = limited(1500, white_seed), limited(1600, black_seed)
    try:
        return [play_game(white, black, opening, plies) for opening in openings]
    finally:
        white.quit()
        black.quit()


def test_a_rerun_of_a_game_replays_it_and_other_seeds_play_another():
    start = chess.STARTING_FEN
    first, again = seeded_games(11, 12, [start, start])
    assert again == first  # the second game of the processes replays the first
    assert seeded_games(11, 12, [start])[0] == first  # so do new processes
    assert seeded_games(13, 12, [start])[0] != first


def test_a_weakened_engine_mates_with_king_and_queen():
    ours = limited(1000, 3)
    defender = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        board = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
        while not board.is_game_over(claim_draw=True) and board.ply() < 100:
            if board.turn == chess.WHITE:
                board.push(ours.play(board, chess.engine.Limit(time=1.0)).move)
            else:
                board.push(defender.play(board, chess.engine.Limit(nodes=5000)).move)
        assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
    finally:
        ours.quit()
        defender.quit()


def final_lines(lines: list[str]) -> dict[str, tuple[int, str | None]]:
    """Score and bound of every root move the choice saw: the deepest iteration's lines, each
    (depth, multipv) line as first sent, before the choice (the last line of a complete depth
    repeats its best; a stopped iteration sends the moves it placed)."""
    by_depth: dict[int, dict[int, tuple[str, int, str | None]]] = {}
    for line in lines:
        if line.startswith("info string strength choice"):
            break
        match = re.match(r"info depth (\d+) .*multipv (\d+) score (cp|mate) (-?\d+) "
                         r"(lowerbound |upperbound )?.*? pv (\S+)", line)
        if match:
            depth, index, kind, value, bound, move = match.groups()
            score = int(value)
            if kind == "mate":  # back to the engine's scale: mate at ply p is 32000 - p
                score = 32000 - (2 * score - 1) if score > 0 else -32000 - 2 * score
            entry = (move, score, bound.strip() if bound else None)
            by_depth.setdefault(int(depth), {}).setdefault(int(index), entry)
    deepest = by_depth[max(by_depth)]
    return {move: (score, bound) for move, score, bound in deepest.values()}


def test_low_elo_errs_in_real_play_but_never_beyond_its_budget():
    """Each move is drawn among those its search proved within the budget of the best: the best
    scored exactly, every other move tested against the floor (best − budget): an upper bound
    below it, with the bound UCI names, or its exact score when it reaches the floor."""
    params = params_for_elo(600)
    epd = (REPO / "experiments" / "books" / "openings_8ply.epd").read_text().splitlines()
    process = raw_engine()
    converse(process, ["uci", FORMULAS, "setoption name UCI_LimitStrength value true",
                       "setoption name UCI_Elo value 600", "setoption name LimitMode value nodes",
                       "setoption name Seed value 5", "ucinewgame"])
    other = 0
    bounds = set()
    try:
        for text in epd[:10]:
            board, _ = chess.Board.from_epd(text)
            # 10 s: the node budget (about 5,000 nodes) ends the search, never the clock, even
            # on a busy machine, so the first iteration places every root move.
            lines = search_lines(process, [f"position fen {board.fen()}", "go movetime 10000"])
            scores = final_lines(lines)
            assert 1 <= len(scores) <= board.legal_moves.count()
            choice = re.search(r"strength choice (\S+) score (-?\d+) best (-?\d+) budget (\d+)",
                               "\n".join(lines))
            move, score, best, budget = choice[1], *map(int, choice.groups()[1:])
            assert lines[-1].split()[1] == move
            assert scores[move][0] == score and max(s for s, _ in scores.values()) == best
            assert budget in (params.move_error, params.blunder_error)
            assert score >= best - budget and scores[move][1] != "upperbound"
            for placed, bound in scores.values():
                bounds.add(bound)
                assert bound != "upperbound" or placed < best - budget
                assert bound != "lowerbound"
            other += score < best
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=10)
    assert other >= 3 and {"upperbound", None} <= bounds
