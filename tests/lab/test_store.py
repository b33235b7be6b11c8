"""The SQLite store: one transaction per game, idempotent ids, the frame contracts, experiments."""

from __future__ import annotations

import sqlite3

import chess
import pandas as pd
import pytest

from lab.game import play_game
from lab.records import GameRecord, GameTask, MoveRecord, SearchInfo
from lab.store import DB_NAME, GAME_COLUMNS, MOVE_COLUMNS, StoreError, open_store
from timecontrol.control import parse_time_control

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def record(game_id: str = "r0001-e01-g0", sans: str = "Bb5 a6 Ba4 Nf6", book: str = "",
           telemetry: bool = True, fen: str = FEN) -> GameRecord:
    """A game record as the game runner makes it, from SAN moves after `book` (UCI)."""
    board = chess.Board(fen)
    for uci in book.split():
        board.push_uci(uci)
    moves = []
    for i, san in enumerate(sans.split()):
        move = board.parse_san(san)
        tm = {"tm": "smooth", "budget_ms": 100 + i, "used_ms": 90 + i, "stop_reason": "budget"}
        moves.append(MoveRecord(
            ply=len(board.move_stack) + 1, move=move.uci(), san=san, elapsed_ms=95.5 + i,
            clock_before_ms=1000.0 - 100 * i, clock_after_ms=920.0 - 100 * i,
            search=SearchInfo(reported_ms=94.0, depth=7 + i, seldepth=10, score_cp=35 - 10 * i,
                              nodes=1000 * (i + 1), nps=10000, pv=move.uci(),
                              telemetry=tm if telemetry and i % 2 == 0 else {})))
        board.push(move)
    return GameRecord(
        game_id=game_id, white="new", black="old", result="1/2-1/2", termination="adjudication",
        reason="Draw by adjudication", opening_fen=fen, opening_moves=book.split(), moves=moves,
        started_at="2026-01-02T03:04:05.000+00:00", finished_at="2026-01-02T03:05:05.000+00:00",
        tc=parse_time_control("10+0.1"), round=1, pair_id=game_id[:-3],
        worker={"host": "h", "pid": 7})


def test_open_creates_a_wal_store_that_survives_a_crash(tmp_path):
    folder = tmp_path / "a" / "b"
    with open_store(folder) as store:
        assert (folder / DB_NAME).exists()
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.games().empty and list(store.games().columns)[: len(GAME_COLUMNS)] == (
            GAME_COLUMNS)


def test_add_game_is_one_idempotent_transaction(tmp_path):
    with open_store(tmp_path) as store:
        assert store.add_game(record()) is True
        assert store.add_game(record()) is False
        assert store.add_game(record("r0001-e01-g1")) is True
        assert store.finished_ids() == {"r0001-e01-g0", "r0001-e01-g1"}
        assert store.game_count() == 2
        assert len(store.moves()) == 8
    # a second connection (a resumed run) sees the same, and still refuses duplicates
    with open_store(tmp_path) as again:
        assert again.add_game(record()) is False
        assert again.game_count() == 2


class InterruptedAt:
    """A connection that raises KeyboardInterrupt just after running `statement`, the moment a
    SIGTERM or Ctrl-C once arrived (the interrupt handler raises from inside `execute`)."""

    def __init__(self, conn: sqlite3.Connection, statement: str) -> None:
        self.conn, self.statement = conn, statement

    def execute(self, sql, *args):
        cursor = self.conn.execute(sql, *args)
        if sql == self.statement:
            self.statement = None
            raise KeyboardInterrupt
        return cursor

    def __getattr__(self, name):
        return getattr(self.conn, name)


@pytest.mark.parametrize("statement, kept", [("COMMIT", 1), ("BEGIN IMMEDIATE", 0)])
def test_an_interrupt_inside_a_transaction_reaches_the_caller_and_the_store_stays_whole(
        tmp_path, statement, kept):
    """A SIGTERM that arrived during save_engines' COMMIT once ended a calibration with
    "cannot rollback - no transaction is active" instead of "interrupted; games are kept"."""
    with open_store(tmp_path) as store:
        real = store.conn
        store.conn = InterruptedAt(real, statement)
        with pytest.raises(KeyboardInterrupt):
            store.add_game(record())
        assert not real.in_transaction
        store.conn = InterruptedAt(real, statement)
        with pytest.raises(KeyboardInterrupt):
            store.bind_experiment("e", {"a": 1}, {"a": 1})
        store.conn = real
        assert store.game_count() == kept and (store.experiment() is not None) == bool(kept)
        assert store.add_game(record("r0001-e01-g1")) is True


def test_a_record_with_an_illegal_move_writes_nothing(tmp_path):
    bad = record("r0002-e01-g0")
    bad.moves[2].move = "e1e8"
    with open_store(tmp_path) as store:
        with pytest.raises(ValueError, match="e1e8 is illegal"):
            store.add_game(bad)
        assert store.game_count() == 0 and store.moves().empty


def test_games_frame_contract(tmp_path):
    with open_store(tmp_path) as store:
        store.add_game(record(sans="d3 Bc5 O-O d6", book="f1c4 g8f6"))
        games = store.games()
    row = games.iloc[0]
    assert list(games.columns[: len(GAME_COLUMNS)]) == GAME_COLUMNS
    assert row["game_id"] == "r0001-e01-g0" and row["pair_id"] == "r0001-e01"
    assert row["plies"] == 4 and row["opening_moves"] == "f1c4 g8f6"
    assert row["worker_host"] == "h" and row["worker_pid"] == 7
    assert row["white_tc"] == row["black_tc"] == "10+0.1"


def test_moves_frame_contract_with_sides_and_telemetry_columns(tmp_path):
    with open_store(tmp_path) as store:
        store.add_game(record())
        store.add_game(record("r0001-e01-g1", sans="d4 exd4", book="", telemetry=False))
        moves = store.moves()
    assert list(moves.columns[: len(MOVE_COLUMNS)]) == MOVE_COLUMNS
    first = moves[moves["game_id"] == "r0001-e01-g0"]
    assert list(first["side"]) == ["white", "black", "white", "black"]
    assert list(first["engine"]) == ["new", "old", "new", "old"]
    assert list(first["ply"]) == [1, 2, 3, 4]
    assert list(first["score_cp"]) == [35, 25, 15, 5]
    for key in ("tm_tm", "tm_budget_ms", "tm_used_ms", "tm_stop_reason"):
        assert key in moves.columns
    assert first["tm_budget_ms"].tolist()[0] == 100 and first["tm_tm"].isna().tolist() == [
        False, True, False, True]
    assert moves[moves["game_id"] == "r0001-e01-g1"]["tm_tm"].isna().all()
    assert str(moves["depth"].dtype) == "Int64"


def test_a_ponderhit_move_is_kept_as_tm_ponderhit(tmp_path):
    game = record()
    game.moves[1].ponderhit = game.moves[2].ponderhit = True
    with open_store(tmp_path) as store:
        store.add_game(game)
        moves = store.moves()
    assert moves["tm_ponderhit"].tolist()[1:3] == [True, True]
    assert moves["tm_ponderhit"].isna().tolist() == [True, False, False, True]
    assert moves["tm_budget_ms"].tolist()[2] == 102  # the engine's telemetry is kept beside it


def test_moves_reads_only_the_columns_asked_for(tmp_path):
    with open_store(tmp_path) as store:
        store.add_game(record())
        store.add_game(record("r0001-e01-g1", sans="d4 exd4", book="", telemetry=False))
        every = store.moves()
        columns = ["tm_budget_ms", "ply", "san", "depth", "tm_tm", "tm_never_reported"]
        some = store.moves(columns=columns)
        none = store.moves(["nothing"], columns=columns)
        with pytest.raises(ValueError, match="'nonsense'"):
            store.moves(columns=["ply", "nonsense"])
    assert list(some.columns) == list(none.columns) == columns and none.empty
    pd.testing.assert_frame_equal(some[columns[:-1]], every[columns[:-1]])
    assert some["tm_never_reported"].isna().all()


def test_a_different_experiment_is_refused_unless_overwrite(tmp_path):
    ident = {"engines": ["a", "b"], "tc": "10+0.1"}
    with open_store(tmp_path) as store:
        assert store.bind_experiment("x", ident, {"games": 10}) is False
        store.add_game(record())
        assert store.bind_experiment("x", dict(ident), {"games": 20}) is True
        assert store.experiment() == {"games": 20}
        with pytest.raises(StoreError, match="holds another experiment") as refused:
            store.bind_experiment("x", {**ident, "tc": "5+0.05"}, {})
        assert "tc: '10+0.1' -> '5+0.05'" in str(refused.value)
        assert store.game_count() == 1
        store.bind_experiment("x", {**ident, "tc": "5+0.05"}, {"games": 4}, overwrite=True)
        assert store.game_count() == 0 and store.experiment() == {"games": 4}


def test_engines_are_recorded_with_identity(tmp_path, stockfish):
    from lab.engine_process import probe_engine

    spec = stockfish("sf", **{"Skill Level": 2})
    with open_store(tmp_path) as store:
        store.save_engines([spec], {"sf": probe_engine(spec)})
        engines = store.engines()
    row = engines.iloc[0]
    assert row["name"] == "sf" and row["id_name"].startswith("Stockfish")
    assert row["binary"] == "/usr/games/stockfish" and row["version"]
    assert '"Skill Level": 2' in row["options"]


def test_a_real_game_round_trips(tmp_path, stockfish):
    task = GameTask("r0001-e01-g0", 1, stockfish("a"), stockfish("b"),
                    parse_time_control("nodes=300"), FEN, pair_id="r0001-e01")
    played = play_game(task)
    with open_store(tmp_path) as store:
        assert store.add_game(played)
        games, moves = store.games(), store.moves()
    assert games.iloc[0]["result"] == played.result
    assert len(moves) == len(played.moves) == games.iloc[0]["plies"]
    assert moves["nodes"].notna().all() and moves["depth"].notna().all()
    board = chess.Board(FEN)
    for uci in moves["move"]:
        board.push_uci(uci)
    assert board.fen() == played.final_fen


def test_readers_see_committed_games_while_a_writer_is_open(tmp_path):
    with open_store(tmp_path) as store:
        store.add_game(record())
        reader = sqlite3.connect(tmp_path / DB_NAME)
        assert reader.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
        reader.close()


def test_one_run_at_a_time_per_folder_and_the_lock_dies_with_its_process(tmp_path):
    import subprocess
    import sys

    with open_store(tmp_path) as first:
        first.lock_for_run()
        with open_store(tmp_path) as second:
            with pytest.raises(StoreError, match="another tempo run is using this folder"):
                second.lock_for_run()
            assert second.game_count() == 0  # readers are not locked out
    with open_store(tmp_path) as again:
        again.lock_for_run()
    # a process killed while holding the lock leaves no stale lock behind
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from lab.store import open_store; "
         f"s = open_store({str(tmp_path)!r}); s.lock_for_run(); print('locked', flush=True); "
         "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    with open_store(tmp_path) as blocked, pytest.raises(StoreError):
        blocked.lock_for_run()
    holder.kill()
    holder.wait(10)
    holder.stdout.close()
    with open_store(tmp_path) as after:
        after.lock_for_run()


def test_frames_of_chosen_games(tmp_path):
    with open_store(tmp_path) as store:
        for n in range(3):
            store.add_game(record(f"r000{n + 1}-e01-g0"))
        assert list(store.games(["r0002-e01-g0"])["game_id"]) == ["r0002-e01-g0"]
        assert set(store.moves(["r0001-e01-g0", "r0003-e01-g0"])["game_id"]) == {
            "r0001-e01-g0", "r0003-e01-g0"}
        assert store.games([]).empty and len(store.games()) == 3
