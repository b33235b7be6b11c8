"""Exports: cutechess-style PGN that python-chess reads back, and the moves table."""

from __future__ import annotations

import dataclasses
import io

import chess
import chess.pgn
import pandas as pd
import pytest

from lab.export import (
    final_epd,
    has_parquet,
    move_comment,
    output_pgn_text,
    pgn_text,
    record_pgn_text,
    score_text,
    time_text,
    write_atomically,
    write_moves,
    write_pgn,
)
from lab.records import GameRecord, MoveRecord, SearchInfo
from lab.store import open_store
from timecontrol.control import parse_time_control


def game(game_id: str, fen: str, book: list[str], moves: list[tuple[str, dict]],
         result: str, termination: str, reason: str, **extra) -> GameRecord:
    board = chess.Board(fen)
    for uci in book:
        board.push_uci(uci)
    records = []
    for san, fields in moves:
        move = board.parse_san(san)
        reported = dict(fields)
        elapsed_ms = reported.pop("elapsed_ms")
        records.append(MoveRecord(ply=len(board.move_stack) + 1, move=move.uci(), san=san,
                                  elapsed_ms=elapsed_ms, search=SearchInfo(**reported)))
        board.push(move)
    return GameRecord(game_id=game_id, white="A", black="B", result=result,
                      termination=termination, reason=reason, opening_fen=fen,
                      opening_moves=book, moves=records, tc=parse_time_control("10+0.1"), round=3,
                      started_at="2026-02-03T10:00:00.000+00:00",
                      finished_at="2026-02-03T10:01:00.000+00:00", pair_id="p", **extra)


FOOLS = game(
    "r0003-e01-g0", chess.STARTING_FEN, ["f2f3"],
    [("e5", {"elapsed_ms": 512.0, "score_cp": 35, "depth": 12}),
     ("g4", {"elapsed_ms": 1250.0, "score_cp": -250, "depth": 9}),
     ("Qh4#", {"elapsed_ms": 12.0, "score_mate": 1, "depth": 1})],
    "0-1", "normal", "Black mates")
SETUP_FEN = "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3"
ODDS = game(
    "r0003-e01-g1", SETUP_FEN, [],
    [("dxe6", {"elapsed_ms": 125000.0, "score_mate": -3, "depth": 20}),
     ("Nc6", {"elapsed_ms": 40.0})],
    "1-0", "time forfeit", "Black loses on time (12 ms overrun)",
    white_tc=parse_time_control("10+0.1"), black_tc=parse_time_control("5+0.05"))


@pytest.mark.parametrize(
    ("cp", "mate", "text"),
    [(35, None, "+0.35"), (-250, None, "-2.50"), (0, None, "+0.00"), (None, 1, "+M1"),
     (None, 3, "+M5"), (None, -3, "-M6"), (None, None, None)],
)
def test_score_text_is_cutechess(cp, mate, text):
    assert score_text(cp, mate) == text


@pytest.mark.parametrize(("ms", "text"), [(512.0, "0.512s"), (1250.0, "1.25s"),
                                          (12500.0, "12.5s"), (125000.0, "125s")])
def test_time_text(ms, text):
    assert time_text(ms) == text


def test_move_comment_without_score_or_depth():
    assert move_comment(pd.Series({"elapsed_ms": 40.0, "score_cp": None, "depth": None})) == (
        "0.040s")
    assert move_comment(pd.Series({"elapsed_ms": 40.0, "score_cp": 5, "depth": None})) == (
        "+0.05 0.040s")


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path) as store:
        store.add_game(FOOLS)
        store.add_game(ODDS)
        yield store


def test_pgn_text_is_cutechess_style(store, tmp_path):
    text = " ".join(write_pgn(store, tmp_path / "games.pgn", event="exp").read_text().split())
    assert "1. f3 {book} 1... e5 {+0.35/12 0.512s} 2. g4 {-2.50/9 1.25s} " \
           "2... Qh4# {+M1/1 0.012s, Black mates} 0-1" in text
    assert "{ " not in text and ", 0." not in text
    assert '[Termination "normal"]' in text and '[Termination "time forfeit"]' in text
    assert '[Round "3"]' in text and '[Event "exp"]' in text and '[PlyCount "4"]' in text
    assert '[WhiteTimeControl "10+0.1"]' in text and '[BlackTimeControl "5+0.05"]' in text
    assert "3. dxe6 {-M6/20 125s}" in text
    assert "{0.040s, Black loses on time (12 ms overrun)}" in text


def test_pgn_reads_back_with_python_chess(store, tmp_path):
    path = write_pgn(store, tmp_path / "games.pgn")
    with open(path) as handle:
        first = chess.pgn.read_game(handle)
        second = chess.pgn.read_game(handle)
        assert chess.pgn.read_game(handle) is None
    assert not first.errors and not second.errors
    assert first.headers["Result"] == "0-1" and first.end().board().is_checkmate()
    assert "FEN" not in first.headers
    assert second.headers["FEN"] == SETUP_FEN and second.headers["SetUp"] == "1"
    assert second.board().ep_square == chess.E6
    assert [m.uci() for m in second.mainline_moves()] == ["d5e6", "b8c6"]
    assert first.next().comment == "book"


def test_illegal_move_is_a_comment_never_a_move(tmp_path):
    bad = game("r0001-e01-g0", chess.STARTING_FEN, [], [("e4", {"elapsed_ms": 5.0})],
               "1-0", "rules infraction", "illegal move a1b4 by Black", illegal_move="a1b4")
    with open_store(tmp_path) as store:
        store.add_game(bad)
        text = write_pgn(store, tmp_path / "g.pgn").read_text()
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert [m.uci() for m in parsed.mainline_moves()] == ["e2e4"]
    assert "illegal move a1b4 by Black" in text and '[Termination "rules infraction"]' in text


def test_moves_table_csv_and_parquet(store, tmp_path):
    written = write_moves(store, tmp_path)
    csv = pd.read_csv(tmp_path / "moves.csv")
    assert len(csv) == 5 and list(csv["engine"]) == ["B", "A", "B", "A", "B"]
    assert list(csv["side"])[:3] == ["black", "white", "black"]
    if has_parquet():
        assert tmp_path / "moves.parquet" in written
        parquet = pd.read_parquet(tmp_path / "moves.parquet")
        assert parquet["move"].tolist() == csv["move"].tolist()


def test_report_writes_pgn_and_moves_even_when_the_rating_fit_cannot(tmp_path):
    from lab.report import write_report

    win = game("r0001-e01-g0", chess.STARTING_FEN, [], [("e4", {"elapsed_ms": 5.0})],
               "1-0", "adjudication", "White wins by adjudication")
    draw = game("r0001-e01-g1", chess.STARTING_FEN, [], [("d4", {"elapsed_ms": 5.0})],
                "1/2-1/2", "adjudication", "Draw by adjudication")
    draw.white, draw.black = "B", "A"
    with open_store(tmp_path) as store:
        store.add_game(win)
        store.add_game(draw)
        report = write_report(store, tmp_path, "t")
    assert (tmp_path / "games.pgn").exists() and (tmp_path / "moves.csv").exists()
    assert bool(report.ratings) != bool(report.notes)
    if report.ratings:
        assert (tmp_path / "ratings.csv").exists() and "A" in report.ratings


@pytest.mark.parametrize("record", [FOOLS, ODDS], ids=["book-mate", "setup-odds-forfeit"])
def test_the_live_pgn_of_a_record_is_the_pgn_of_the_stored_game(store, record):
    stored = list(pgn_text(store.games([record.game_id]), store.moves([record.game_id]), "e"))
    assert [record_pgn_text(record, "e")] == stored
    assert f'[Termination "{record.termination}"]' in stored[0]


def test_pgn_out_min_and_fi_follow_cutechess() -> None:
    board = chess.Board(SETUP_FEN)
    for move in ODDS.moves:
        board.push_uci(move.move)
    odds = dataclasses.replace(ODDS, final_fen=board.fen())
    full = output_pgn_text(odds, "e", final_fen=True)
    assert full.split() == record_pgn_text(odds, "e").replace(
        "(12 ms overrun)}", f"(12 ms overrun), FEN: {board.fen()}}}").split()
    minimal = output_pgn_text(odds, "e", minimal=True)
    assert minimal.splitlines()[:9] == [
        '[Event "e"]', '[Site "Tempo lab"]', '[Date "2026.02.03"]', '[Round "3"]', '[White "A"]',
        '[Black "B"]', '[Result "1-0"]', '[FEN "' + SETUP_FEN + '"]', '[SetUp "1"]']
    assert minimal.splitlines()[9:] == ["", "3. dxe6 Nc6 1-0"]
    assert final_epd(odds) == board.epd()


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_an_interrupted_atomic_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path,
                                                                                 failure):
    """Ctrl-C while games.pgn was rewritten once left `games.pgn.<pid>-<thread>.tmp` beside it."""
    path = tmp_path / "games.pgn"
    path.write_text("old\n")

    def write(tmp):
        tmp.write_text("half of the new")
        raise failure

    with pytest.raises(type(failure)):
        write_atomically(path, write)
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "games.pgn"]
    assert write_atomically(path, lambda tmp: tmp.write_text("new\n")) == path
    assert path.read_text() == "new\n"
