"""One game with real engine processes: Stockfish, phalanx (XBoard) and the fakes; clocks, the
commands engines get, how games end, and what the record keeps."""

from __future__ import annotations

import dataclasses
import statistics

import chess
import pytest

from lab.engine_process import EnginePool
from lab.game import GameSetupError, Timeouts, natural_end, play_game, start_board
from lab.records import Adjudication, EngineSpec, GameRecord, GameTask
from timecontrol.control import parse_time_control

BOOK_FEN = "r1bqkbnr/p1pp2pp/2n5/1p2pp2/4PP2/8/PPPP2PP/RNBQKBNR w KQkq - 0 5"  # bal0000
QUICK = Timeouts(stop_grace_s=0.5)


def task(white: EngineSpec, black: EngineSpec, tc: str, *, fen: str = chess.STARTING_FEN,
         moves: list[str] | None = None, game_id: str = "g1", margin_ms: int = 0,
         **adjudication: int) -> GameTask:
    return GameTask(game_id, 1, white, black, parse_time_control(tc), fen, list(moves or []),
                    Adjudication(**adjudication), margin_ms=margin_ms)


def check_replay(record: GameRecord, task_: GameTask) -> chess.Board:
    """The moves are legal from the task's start, numbered from it, and end in final_fen."""
    board = start_board(task_)
    for move in record.moves:
        assert move.ply == len(board.move_stack) + 1
        assert board.san(chess.Move.from_uci(move.move)) == move.san
        board.push_uci(move.move)
    assert board.fen() == record.final_fen
    return board


def check_clocks(record: GameRecord, base_ms: int, inc_ms: int, period: int | None = None,
                 margin_ms: int = 0, sides: tuple[int, ...] = (0, 1)) -> None:
    """Each side's clock: starts at base + inc; after a move, time left - elapsed (clamped at 0
    within the margin) + inc, + base at the end of each period; the next move starts there.
    `sides` are the movers checked (0: the first engine move's, 1: the other's)."""
    for side in sides:
        moves = [m for m in record.moves if (m.ply - record.moves[0].ply) % 2 == side]
        expected_before = base_ms + inc_ms
        for count, move in enumerate(moves, start=1):
            assert move.clock_before_ms == expected_before
            after = max(0, expected_before - round(move.elapsed_ms)) + inc_ms
            assert expected_before - round(move.elapsed_ms) >= -margin_ms
            if period is not None and count % period == 0:
                after += base_ms
            assert move.clock_after_ms == after
            expected_before = after


def test_stockfish_vs_stockfish_at_a_fast_control(stockfish) -> None:
    book = ["e4f5", "b5b4", "d1g4", "g7g6"]
    # A margin keeps a loaded machine from flagging the game; the margin tests are below.
    game = task(stockfish("sf-a"), stockfish("sf-b"), "2+0.05", fen=BOOK_FEN, moves=book,
                margin_ms=300, max_moves=40)
    record = play_game(game)
    board = check_replay(record, game)
    assert record.moves[0].ply == 5
    assert record.termination in ("normal", "adjudication")
    assert record.result in ("1-0", "0-1", "1/2-1/2")
    if record.termination == "adjudication":
        assert record.reason == "Draw by adjudication: max moves rule"
        assert len(board.move_stack) == 80
    check_clocks(record, 2000, 50, margin_ms=300)
    assert str(record.white_tc) == str(record.black_tc) == "2+0.05" and str(record.tc) == "2+0.05"
    # Every Stockfish move has its search figures, and the measured time agrees with its own
    # (within bounds that leave room for a machine loaded by other work).
    for move in record.moves:
        search = move.search
        assert search.depth and search.nodes and search.pv and search.reported_ms is not None
        assert (search.score_cp is None) != (search.score_mate is None)
    diffs = [m.elapsed_ms - m.search.reported_ms for m in record.moves]
    assert abs(statistics.median(diffs)) < 25 and max(abs(d) for d in diffs) < 300
    turnaround = [m.turnaround_ms for m in record.moves[1:]]
    assert record.moves[0].turnaround_ms is None and statistics.median(turnaround) < 30
    assert record.worker["white_id"].startswith("Stockfish")


def test_stockfish_vs_our_engine_records_its_telemetry(stockfish, tempo) -> None:
    game = task(tempo, stockfish("sf", **{"Skill Level": 0}), "3+0.05", margin_ms=300,
                max_moves=10)
    record = play_game(game)
    check_replay(record, game)
    assert record.termination in ("normal", "adjudication"), record.reason
    check_clocks(record, 3000, 50, margin_ms=300)
    ours = record.moves[0::2]
    assert ours and record.worker["white_id"].startswith("Tempo")
    for move in ours:
        telemetry = move.search.telemetry
        assert {"tm", "ply", "used_ms", "nodes", "stop_reason"} <= telemetry.keys()
        assert telemetry["ply"] == move.ply - 1
        # The engine's own account of its time is close to what the harness measured.
        assert abs(telemetry["used_ms"] - move.elapsed_ms) < 100
    assert all(move.search.telemetry == {} for move in record.moves[1::2])


def test_a_full_game_against_phalanx_over_xboard(phalanx, stockfish) -> None:
    game = task(phalanx, stockfish("sf", **{"Skill Level": 2}), "2+0.05", margin_ms=300)
    record = play_game(game, timeouts=QUICK)
    board = check_replay(record, game)
    assert record.termination == "normal", record.reason
    assert board.is_game_over(claim_draw=True)
    assert record.worker["white_id"] == "Phalanx XXV"
    check_clocks(record, 2000, 50, margin_ms=300)
    thinking = [m for m in record.moves[::2] if m.search.depth is not None]
    assert thinking, "phalanx's thinking output (post) is captured"


def test_an_xboard_engine_that_resigns_loses_normally(no_setboard_xboard, fake) -> None:
    resigner = EngineSpec("resigner", [*no_setboard_xboard.cmd, "resign"], protocol="xboard")
    with EnginePool() as pool:
        record = play_game(task(resigner, fake("b"), "1+0.1"), pool, QUICK)
        assert (record.result, record.termination, record.reason) == (
            "0-1", "normal", "White resigns")
        assert record.moves == [] and len(pool.idle_pids()) == 2  # no fault: both kept


def test_commands_sent_with_periods_and_book(fake, tmp_path) -> None:
    white_log, black_log = tmp_path / "w.log", tmp_path / "b.log"
    game = task(fake("w", log=white_log, sleep_ms=20), fake("b", log=black_log, sleep_ms=20),
                "2/1+0.1", fen=BOOK_FEN, moves=["e4f5", "b5b4"], max_moves=6)
    record = play_game(game)
    assert record.reason == "Draw by adjudication: max moves rule"
    assert [m.ply for m in record.moves] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    check_clocks(record, 1000, 100, period=2)
    gos = [line.split() for line in white_log.read_text().splitlines() if line.startswith("go")]
    positions = [line for line in white_log.read_text().splitlines()
                 if line.startswith("position")]
    white_moves = record.moves[0::2]
    black_moves = record.moves[1::2]
    for index, (go, move) in enumerate(zip(gos, white_moves)):
        fields = dict(zip(go[1::2], map(int, go[2::2])))
        assert fields["wtime"] == move.clock_before_ms
        assert fields["btime"] == (black_moves[index - 1].clock_after_ms if index else 1100)
        assert fields["winc"] == fields["binc"] == 100
        assert fields["movestogo"] == 2 - index % 2
    played = " ".join(m.move for m in record.moves[:2])
    assert positions[0] == f"position fen {BOOK_FEN} moves e4f5 b5b4"
    assert positions[1] == f"position fen {BOOK_FEN} moves e4f5 b5b4 {played}"
    assert "ucinewgame" in black_log.read_text()


def test_the_pool_keeps_engines_between_games_with_ucinewgame(fake, tmp_path) -> None:
    log = tmp_path / "w.log"
    white, black = fake("w", log=log), fake("b")
    with EnginePool() as pool:
        records = [play_game(task(white, black, "1+0.1", game_id=f"g{n}", max_moves=2), pool)
                   for n in range(4)]
        assert pool.started == 2 and len(pool.idle_pids()) == 2
    assert all(r.termination == "adjudication" and len(r.moves) == 4 for r in records)
    commands = [line.split()[0] for line in log.read_text().splitlines()]
    assert commands.count("uci") == 1 and commands.count("ucinewgame") == 4
    assert commands[-1] == "quit"


def test_an_engine_that_restarts_gets_a_new_process_for_every_game(fake, tmp_path) -> None:
    """`restart` (cutechess and fastchess `restart=on`): the engine is quit after each game and
    started afresh for the next, handshake and all; its opponent is kept."""
    log = tmp_path / "w.log"
    white = dataclasses.replace(fake("w", log=log), restart=True)
    black = fake("b")
    with EnginePool() as pool:
        records = [play_game(task(white, black, "1+0.1", game_id=f"g{n}", max_moves=2), pool)
                   for n in range(3)]
        assert pool.started == 4 and len(pool.idle_pids()) == 1  # 3 of white's, 1 of black's
    assert all(r.termination == "adjudication" and len(r.moves) == 4 for r in records)
    commands = [line.split()[0] for line in log.read_text().splitlines()]
    assert commands.count("uci") == 3 and commands.count("quit") == 3


def test_startpos_time_odds_and_per_move_limits(fake, tmp_path) -> None:
    white_log, black_log = tmp_path / "w.log", tmp_path / "b.log"
    game = task(fake("w", tc="st=0.2", log=white_log), fake("b", tc="nodes=500", log=black_log),
                "1+0.1", max_moves=2)
    record = play_game(game)
    assert (str(record.white_tc), str(record.black_tc)) == ("st=0.2", "nodes=500")
    white = [line for line in white_log.read_text().splitlines()
             if line.split()[0] in ("position", "go")]
    black = [line for line in black_log.read_text().splitlines()
             if line.split()[0] in ("position", "go")]
    first = record.moves[0].move
    assert white[:2] == ["position startpos", "go movetime 200"]
    assert black[:2] == [f"position startpos moves {first}", "go nodes 500"]
    assert record.moves[0].clock_before_ms == 200 and record.moves[0].clock_after_ms is None
    assert record.moves[1].clock_before_ms is None
    depth_log = tmp_path / "d.log"
    play_game(task(fake("w", log=depth_log), fake("b"), "depth=3", max_moves=1))
    gos = [line for line in depth_log.read_text().splitlines() if line.startswith("go")]
    assert gos == ["go depth 3"]


def test_game_over_before_the_first_move_and_natural_ends() -> None:
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert natural_end(mated) == ("1-0", "White mates")
    assert natural_end(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == (
        "1/2-1/2", "Draw by stalemate")
    assert natural_end(chess.Board("7k/8/6K1/8/8/8/8/6N1 b - - 0 1")) == (
        "1/2-1/2", "Draw by insufficient mating material")
    assert natural_end(chess.Board("7k/8/6K1/8/8/8/8/6R1 b - - 100 80")) == (
        "1/2-1/2", "Draw by fifty moves rule")
    assert natural_end(chess.Board("7k/8/6K1/8/8/8/8/6R1 b - - 99 80")) is None
    board = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(move)
        assert natural_end(board) is None  # claimable one move early, but not yet a repetition
    board.push_uci("f6g8")
    assert natural_end(board) == ("1/2-1/2", "Draw by 3-fold repetition")


def test_a_game_that_starts_over(fake) -> None:
    record = play_game(task(fake("w"), fake("b"), "1+0", fen="7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
    assert (record.result, record.termination, record.reason) == ("1-0", "normal", "White mates")
    assert record.moves == []


def test_bad_tasks_raise_a_setup_error_naming_the_game(fake) -> None:
    with pytest.raises(GameSetupError, match="game g1: bad opening FEN"):
        play_game(task(fake(), fake(), "1+0", fen="not a fen"))
    with pytest.raises(GameSetupError, match="game g1: book move 'e2e5' is not legal"):
        play_game(task(fake(), fake(), "1+0", moves=["e2e5"]))
    with pytest.raises(GameSetupError, match="never ends a search"):
        play_game(task(fake("w"), fake("b"), "inf"))


def test_an_engine_that_cannot_start_loses(fake, tmp_path) -> None:
    missing = EngineSpec("ghost", [str(tmp_path / "ghost")])
    record = play_game(task(missing, fake("b"), "1+0"))
    assert (record.result, record.termination) == ("0-1", "abandoned")
    assert record.reason.startswith("White failed to start: engine 'ghost': binary")


def test_both_engines_start_side_by_side_and_a_black_failure_loses(fake, tmp_path) -> None:
    # White's handshake ends only once Black has started: started one after the other, White
    # would time out waiting for it.
    white_log, black_log = tmp_path / "white.log", tmp_path / "black.log"
    record = play_game(task(fake("w", log=white_log, uciok_after=black_log),
                            fake("b", log=black_log), "1+0.1"))
    assert record.termination != "abandoned" and len(record.moves) > 0
    record = play_game(task(fake("w"), EngineSpec("ghost", [str(tmp_path / "ghost")]), "1+0"))
    assert (record.result, record.termination) == ("1-0", "abandoned")
    assert record.reason.startswith("Black failed to start: engine 'ghost': binary")


FAULTS = [
    # fault, fake flags, control, result, termination, reason
    ("crash", {}, "1+0.1", "abandoned", "White disconnected"),
    ("hang", {}, "1+0.1", "stalled connection", "White's connection stalled"),
    ("illegal", {}, "1+0.1", "rules infraction", "illegal move a1b4 by White"),
    ("malformed", {}, "1+0.1", "rules infraction", "illegal move zz99 by White"),
    ("nullmove", {}, "1+0.1", "rules infraction", "illegal move 0000 by White"),
    ("san", {}, "1+0.1", "rules infraction", "illegal move Ra2 by White"),
    ("slow", {"slow_ms": 900}, "0.4+0", "time forfeit", "White loses on time ("),
]


@pytest.mark.parametrize(("fault", "flags", "tc", "termination", "reason"), FAULTS)
def test_faults_lose_and_the_pool_restarts_the_engine(fake, tmp_path, fault, flags, tc,
                                                      termination, reason) -> None:
    culprit = fake("culprit", fault=fault, at=2, once=tmp_path / "once", **flags)
    partner = fake("partner")
    with EnginePool() as pool:
        first = play_game(task(culprit, partner, tc, game_id="g1", max_moves=4), pool, QUICK)
        assert (first.result, first.termination) == ("0-1", termination)
        assert first.reason.startswith(reason)
        assert len(first.moves) == 2  # White's 1st and Black's 1st; White's 2nd was the fault
        assert pool.started == 2 and len(pool.idle_pids()) == 1  # the culprit was dropped
        partner_pid = pool.idle_pids()[0]
        second = play_game(task(culprit, partner, tc, game_id="g2", max_moves=4), pool, QUICK)
        assert pool.started == 3 and partner_pid in pool.idle_pids()
    assert (second.termination, second.reason) == ("adjudication",
                                                    "Draw by adjudication: max moves rule")
    assert len(second.moves) == 8
    if fault in ("illegal", "malformed", "nullmove", "san"):
        assert first.illegal_move == reason.split()[2]
        assert all(m.move != first.illegal_move for m in first.moves)
    else:
        assert first.illegal_move is None
    if fault == "slow":
        overrun = int(first.reason.split("(")[1].split()[0])
        assert overrun >= 900 - 400  # the 2nd move started with at most 400 ms left


def test_no_answer_before_go_is_a_stall_off_the_clock(fake) -> None:
    # The start-up isready is the 1st; the new game's isready (before position and go) hangs.
    deaf = fake("deaf", fault="deaf", at=2)
    record = play_game(task(fake("w"), deaf, "1+0.1"), timeouts=Timeouts(ready_s=0.5))
    assert (record.result, record.termination, record.reason) == (
        "1-0", "stalled connection", "Black's connection stalled")
    assert len(record.moves) == 1


def test_time_margin_forgives_an_overrun_and_clamps_the_clock(fake) -> None:
    slow = fake("slow", fault="slow", at=1, slow_ms=700)
    strict = play_game(task(slow, fake("b"), "0.4+0.1", max_moves=2), timeouts=QUICK)
    assert (strict.result, strict.termination) == ("0-1", "time forfeit")
    overrun = int(strict.reason.split("(")[1].split()[0])
    assert 700 - 500 <= overrun < 1500
    lenient = play_game(task(slow, fake("b"), "0.4+0.1", margin_ms=2000, max_moves=2),
                        timeouts=QUICK)
    assert lenient.termination == "adjudication"
    first = lenient.moves[0]
    assert first.clock_before_ms == 500 and first.elapsed_ms > 650
    assert first.clock_after_ms == 100  # clamped to 0 within the margin, then the increment
    check_clocks(lenient, 400, 100, margin_ms=2000)


def test_fixed_time_per_move_flags_with_a_margin(fake) -> None:
    slow = fake("slow", fault="slow", at=1, slow_ms=600)
    strict = play_game(task(slow, fake("b"), "st=0.2", max_moves=2), timeouts=QUICK)
    assert (strict.termination, strict.result) == ("time forfeit", "0-1")
    lenient = play_game(task(slow, fake("b"), "st=0.2", margin_ms=3000, max_moves=2),
                        timeouts=QUICK)
    assert lenient.termination == "adjudication" and lenient.moves[0].elapsed_ms > 550


def test_an_engine_s_own_margin_replaces_the_game_s(fake) -> None:
    forgiven = fake("slow", fault="slow", at=1, slow_ms=600)
    forgiven.margin_ms = 3000
    lenient = play_game(task(forgiven, fake("b"), "st=0.2", max_moves=2), timeouts=QUICK)
    assert lenient.termination == "adjudication" and lenient.moves[0].elapsed_ms > 550
    strict = fake("slow", fault="slow", at=1, slow_ms=600)
    strict.margin_ms = 0
    flagged = play_game(task(strict, fake("b"), "st=0.2", margin_ms=3000, max_moves=2),
                        timeouts=QUICK)
    assert (flagged.termination, flagged.result) == ("time forfeit", "0-1")
