"""UCI_LimitStrength in real engine processes: the seed's `debug on` dump, the NPS throttle,
`stop`, seeded replays, mating with KQ v K, clamping, Elo tables and move errors within budget
(MadChess "The UCI_LimitStrength Algorithm", docs/reference/elo_limit.md §0, §1.3, §1.4)."""

from __future__ import annotations

import json
import re
import subprocess
import time

import chess
import chess.engine
import pytest

from engine.strength import params_for_elo
from tests.engine.conftest import ENGINE_CMD, REPO, raw_engine, read_until
from tests.engine.test_strength import SEED_DUMP_600, SEED_DUMP_1075

STOCKFISH = "/usr/games/stockfish"
LIMIT = ["debug on", "setoption name UCI_LimitStrength value true"]


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


def test_debug_dump_matches_the_seed_at_600_and_1075(raw):
    # The seed's own session: debug on, uci_limitstrength, uci_elo (lower case, as typed there).
    converse(raw, ["debug on", "setoption name uci_limitstrength value true"])
    assert strings(converse(raw, ["setoption name uci_elo value 600"]))[:21] == SEED_DUMP_600
    assert strings(converse(raw, ["setoption name UCI_Elo value 1075"]))[:21] == SEED_DUMP_1075


def test_no_dump_without_debug_or_without_the_limit(raw):
    assert strings(converse(raw, ["setoption name UCI_LimitStrength value true",
                                  "setoption name UCI_Elo value 900"])) == []
    assert strings(converse(raw, ["debug on", "setoption name UCI_LimitStrength value false",
                                  "setoption name UCI_Elo value 1000"])) == []


@pytest.mark.parametrize("value, elo, bound", [("100", 600, "below the minimum"),
                                               ("3500", 2600, "above the maximum")])
def test_out_of_range_elo_is_clamped_with_a_warning(raw, value, elo, bound):
    converse(raw, LIMIT)
    said = strings(converse(raw, [f"setoption name UCI_Elo value {value}"]))
    assert said[0] == f"warning: UCI_Elo {value} is {bound} {elo}; using {elo}"
    assert said[1] == f"LimitStrength = True, ELO = {elo}."


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
    assert said[1] == "NPS = 8312, MoveError = 30, BlunderError = 319, BlunderPer128 = 13."


def search_lines(process: subprocess.Popen, commands: list[str]) -> list[str]:
    process.stdin.write("".join(f"{command}\n" for command in commands))
    process.stdin.flush()
    return read_until(process, "bestmove")


def last_nps(lines: list[str]) -> int:
    return int([re.search(r" nps (\d+)", line) for line in lines if " nps " in line][-1][1])


def telemetry(lines: list[str]) -> dict:
    return json.loads(next(line for line in lines if line.startswith("info string tm "))[15:])


def test_throttle_holds_the_nps_limit_over_two_seconds(raw):
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 800", "position startpos"])
    raw.stdin.write("go infinite\n")
    raw.stdin.flush()
    time.sleep(2.0)
    lines = search_lines(raw, ["stop"])
    limit = params_for_elo(800).nps
    assert last_nps(lines) == pytest.approx(limit, rel=0.10)
    record = telemetry(lines)
    assert record["used_ms"] >= 1900
    assert record["nodes"] * 1000 / record["used_ms"] == pytest.approx(limit, rel=0.10)


def test_stop_ends_a_throttled_search_promptly(raw):
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 600", "position startpos"])
    raw.stdin.write("go infinite\n")
    raw.stdin.flush()
    time.sleep(1.0)
    sent = time.perf_counter()
    lines = search_lines(raw, ["stop"])
    assert time.perf_counter() - sent < 0.3
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


def test_throttled_search_keeps_to_the_clock(raw):
    # 500 NPS, and the throttle gives up (and the search stops) at the planned time.
    converse(raw, [*LIMIT, "setoption name UCI_Elo value 600", "position startpos"])
    began = time.perf_counter()
    lines = search_lines(raw, ["go movetime 700"])
    assert time.perf_counter() - began < 0.9
    record = telemetry(lines)
    assert record["nodes"] * 1000 / record["used_ms"] <= 500 * 1.1


def limited(elo: int, seed: int) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, cwd=REPO, timeout=30)
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "LimitMode": "nodes",
                      "Seed": seed})
    return engine


def seeded_game(white_seed: int, black_seed: int, plies: int = 24) -> list[str]:
    """A game between two limited engines searching a fixed number of nodes per move: no clock
    can end a search, so only the seeds decide (at 1900-2000 the NPS limit does not bind)."""
    white, black = limited(1900, white_seed), limited(2000, black_seed)
    try:
        board = chess.Board()
        while not board.is_game_over() and board.ply() < plies:
            engine = white if board.turn == chess.WHITE else black
            board.push(engine.play(board, chess.engine.Limit(nodes=2000)).move)
        return [move.uci() for move in board.move_stack]
    finally:
        white.quit()
        black.quit()


def test_the_same_seed_replays_the_same_game():
    first = seeded_game(11, 12)
    assert seeded_game(11, 12) == first
    assert seeded_game(13, 12) != first


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


def final_lines(lines: list[str]) -> dict[str, int]:
    """Scores of every root move at the deepest iteration that scored them all: each (depth,
    multipv) line as first sent, before the choice (later lines report the partial iteration's
    best and the move played)."""
    by_depth: dict[int, dict[int, tuple[str, int]]] = {}
    for line in lines:
        if line.startswith("info string strength choice"):
            break
        match = re.match(r"info depth (\d+) .*multipv (\d+) score (cp|mate) (-?\d+) "
                         r"(?!lowerbound|upperbound).*? pv (\S+)", line)
        if match:
            depth, index, kind, value, move = match.groups()
            score = int(value)
            if kind == "mate":  # back to the engine's scale: mate at ply p is 32000 - p
                score = 32000 - (2 * score - 1) if score > 0 else -32000 - 2 * score
            by_depth.setdefault(int(depth), {}).setdefault(int(index), (move, score))
    count = max(len(scored) for scored in by_depth.values())
    depth = max(d for d, scored in by_depth.items() if len(scored) == count)
    return {move: score for move, score in by_depth[depth].values()}


def test_low_elo_errs_in_real_play_but_never_beyond_its_budget():
    params = params_for_elo(600)
    epd = (REPO / "experiments" / "books" / "openings_8ply.epd").read_text().splitlines()
    process = raw_engine()
    converse(process, ["uci", "setoption name UCI_LimitStrength value true",
                       "setoption name UCI_Elo value 600", "setoption name LimitMode value nodes",
                       "setoption name Seed value 5", "ucinewgame"])
    other = 0
    try:
        for text in epd[:10]:
            board, _ = chess.Board.from_epd(text)
            # 10 s: the node budget (about 5,000 nodes) ends the search, never the clock, even
            # on a busy machine, so the first iteration scores every root move.
            lines = search_lines(process, [f"position fen {board.fen()}", "go movetime 10000"])
            scores = final_lines(lines)
            assert len(scores) == board.legal_moves.count()
            choice = re.search(r"strength choice (\S+) score (-?\d+) best (-?\d+) budget (\d+)",
                               "\n".join(lines))
            move, score, best, budget = choice[1], *map(int, choice.groups()[1:])
            assert lines[-1].split()[1] == move
            assert scores[move] == score and max(scores.values()) == best
            assert budget in (params.move_error, params.blunder_error)
            assert score >= best - budget
            other += score < best
    finally:
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=10)
    assert other >= 3
