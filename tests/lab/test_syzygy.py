"""Syzygy adjudication: a bad path refused before any game, the decision rules, and a real game
ended by the tables (when TEMPO_SYZYGY names a folder of Syzygy tables; none can be downloaded
here, so that test is skipped otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import chess
import chess.syzygy
import pytest

from lab.adjudication import Adjudicator, SyzygyError, Verdict, largest_tables, tablebase_verdict
from lab.experiment import ExperimentError
from lab.experiment_file import load_experiment
from lab.game import play_game
from lab.records import Adjudication, EngineSpec, GameTask
from timecontrol.control import parse_time_control

STOCKFISH = "/usr/games/stockfish"


def experiment_file(tmp_path: Path, adjudication: str) -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(f'name = "tb"\ntc = "nodes=1000"\nout = "{tmp_path / "out"}"\n'
                    f"[adjudication]\n{adjudication}\n"
                    f'[[engines]]\nname = "a"\ncmd = ["{STOCKFISH}"]\n'
                    f'[[engines]]\nname = "b"\ncmd = ["{STOCKFISH}"]\n')
    return path


def table_names(folder: Path, *names: str) -> Path:
    """Files named as Syzygy tables (only their names are read by the checks below)."""
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"")
    return folder


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('syzygy = "nowhere"', "Syzygy folder {tmp}/nowhere does not exist"),
        ('syzygy = "empty"', "Syzygy folder {tmp}/empty holds no WDL tables (*.rtbw)"),
        ('syzygy = "dtz-only"', "Syzygy folder {tmp}/dtz-only holds no WDL tables (*.rtbw)"),
        ('syzygy = "exp.toml"', "Syzygy folder {tmp}/exp.toml is not a folder"),
        ('syzygy = ""', "the Syzygy path is empty"),
        ("syzygy_pieces = 5", "key 'syzygy_pieces' needs 'syzygy' (the tables' folder)"),
    ],
)
def test_a_bad_syzygy_path_is_refused_when_the_experiment_loads(tmp_path, setting, expected):
    (tmp_path / "empty").mkdir()
    table_names(tmp_path / "dtz-only", "KQvK.rtbz", "README.txt")
    path = experiment_file(tmp_path, setting)
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert str(info.value).startswith(f"{path}: [adjudication]: ")
    assert str(info.value).endswith(expected.format(tmp=tmp_path))


def test_tempo_gauntlet_refuses_it_before_any_game_or_file(tmp_path) -> None:
    path = experiment_file(tmp_path, 'syzygy = "nowhere"')
    done = subprocess.run([sys.executable, "-c", "import sys; from lab.cli import main; "
                           "sys.exit(main())", "gauntlet", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"Syzygy folder {tmp_path}/nowhere does not exist" in done.stderr
    assert not (tmp_path / "out").exists()


def test_largest_tables_and_the_piece_limit(tmp_path) -> None:
    three = table_names(tmp_path / "three", "KQvK.rtbw", "KRvK.rtbw", "KRvK.rtbz")
    five = table_names(tmp_path / "five", "KRPvKR.rtbw", "notatable.rtbw")
    assert largest_tables(str(three)) == 3
    assert largest_tables(f"{three}{os.pathsep}{five}") == 5
    with pytest.raises(SyzygyError, match="does not exist"):
        largest_tables(f"{three}{os.pathsep}{tmp_path / 'gone'}")
    path = experiment_file(tmp_path, 'syzygy = "five"\nsyzygy_pieces = 4')
    rules = load_experiment(path).adjudication
    assert rules.syzygy == str(five) and rules.syzygy_pieces == 4
    stub = StubTables(2)
    assert Adjudicator(rules, tablebase=stub).max_pieces == 4
    assert Adjudicator(Adjudication(syzygy=str(five)), tablebase=stub).max_pieces == 5


class StubTables:
    """A stand-in for chess.syzygy.Tablebase answering one WDL value: no Syzygy tables can be
    had on this machine, and the decision logic is what is tested here (the real tables are
    probed by the TEMPO_SYZYGY game test below)."""

    def __init__(self, wdl: int | None) -> None:
        self.wdl = wdl
        self.probed: list[str] = []

    def probe_wdl(self, board: chess.Board) -> int:
        self.probed.append(board.fen())
        if self.wdl is None:
            raise chess.syzygy.MissingTableError("no table for this material")
        return self.wdl


KRK_BLACK_TO_MOVE = "k7/8/8/8/8/8/1K6/7R b - - 0 1"  # just after Kxb2 took a queen
KRK_WHITE_TO_MOVE = "k7/8/8/8/8/8/1K6/7R w - - 0 2"


@pytest.mark.parametrize(
    ("fen", "wdl", "verdict"),
    [
        (KRK_BLACK_TO_MOVE, -2, Verdict("1-0", "White wins by adjudication: SyzygyTB "
                                               "(win for White, KRvK)")),
        (KRK_WHITE_TO_MOVE.replace(" 0 2", " 0 1"), 2,
         Verdict("1-0", "White wins by adjudication: SyzygyTB (win for White, KRvK)")),
        ("k7/8/8/8/8/8/1K6/7r w - - 0 1", -2,
         Verdict("0-1", "Black wins by adjudication: SyzygyTB (win for Black, KvKR)")),
        (KRK_BLACK_TO_MOVE, 0, Verdict("1/2-1/2", "Draw by adjudication: SyzygyTB (draw, KRvK)")),
        (KRK_BLACK_TO_MOVE, 1, Verdict("1/2-1/2", "Draw by adjudication: SyzygyTB "
                                                  "(cursed win for Black, KRvK)")),
        (KRK_BLACK_TO_MOVE, -1, Verdict("1/2-1/2", "Draw by adjudication: SyzygyTB "
                                                   "(blessed loss for Black, KRvK)")),
    ],
)
def test_the_tables_verdict_names_the_result(fen, wdl, verdict) -> None:
    stub = StubTables(wdl)
    assert tablebase_verdict(chess.Board(fen), stub, 5) == verdict
    assert stub.probed == [fen]


@pytest.mark.parametrize(
    ("fen", "limit", "why"),
    [
        (KRK_WHITE_TO_MOVE.replace(" 0 2", " 3 2"), 5, "halfmove clock above 0"),
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", 5, "castling rights"),
        (KRK_BLACK_TO_MOVE, 2, "more pieces than the limit"),
    ],
)
def test_positions_the_tables_do_not_decide_are_not_probed(fen, limit, why) -> None:
    stub = StubTables(2)
    assert tablebase_verdict(chess.Board(fen), stub, limit) is None, why
    assert stub.probed == []


def test_a_missing_table_lets_the_game_go_on() -> None:
    stub = StubTables(None)
    assert tablebase_verdict(chess.Board(KRK_BLACK_TO_MOVE), stub, 5) is None
    assert stub.probed == [KRK_BLACK_TO_MOVE]


def test_stockfish_game_ended_by_real_tables() -> None:
    folder = os.environ.get("TEMPO_SYZYGY")
    if not folder:
        pytest.skip("TEMPO_SYZYGY is not set: no Syzygy tables here (set it to a folder "
                    "holding at least KRvK.rtbw to run this game)")
    if not os.access(STOCKFISH, os.X_OK):
        pytest.skip("Stockfish is not installed at /usr/games/stockfish")
    engine = EngineSpec("sf", [STOCKFISH], options={"Threads": 1, "Hash": 16})
    # White's only legal move takes the checking queen: KRvK with the halfmove clock at 0
    start = "k7/8/8/8/8/8/1q6/K6R w - - 0 1"
    assert [m.uci() for m in chess.Board(start).legal_moves] == ["a1b2"]
    task = GameTask("tb", 1, engine, EngineSpec("sf2", engine.cmd, options=engine.options),
                    parse_time_control("nodes=1000"), start, [], Adjudication(syzygy=folder))
    record = play_game(task)
    assert [m.move for m in record.moves] == ["a1b2"]
    assert (record.result, record.termination, record.reason) == (
        "1-0", "adjudication", "White wins by adjudication: SyzygyTB (win for White, KRvK)")


def test_a_game_asks_the_tables_after_each_move(tmp_path, monkeypatch) -> None:
    """The game's wiring with Stockfish and the stub for the tables (none here; the real ones
    are probed by the test above): a probe after each engine move, and the verdict ends it."""
    if not os.access(STOCKFISH, os.X_OK):
        pytest.skip("Stockfish is not installed at /usr/games/stockfish")
    stub = StubTables(-2)
    monkeypatch.setattr("lab.adjudication.open_syzygy", lambda path: stub)
    folder = table_names(tmp_path / "tables", "KRvK.rtbw")
    engine = EngineSpec("sf", [STOCKFISH], options={"Threads": 1, "Hash": 16})
    start = "k7/8/8/8/8/8/1q6/K6R w - - 0 1"
    task = GameTask("tb", 1, engine, EngineSpec("sf2", engine.cmd, options=engine.options),
                    parse_time_control("nodes=1000"), start, [],
                    Adjudication(syzygy=str(folder)))
    record = play_game(task)
    assert stub.probed == [KRK_BLACK_TO_MOVE]
    assert (record.result, record.termination, record.reason) == (
        "1-0", "adjudication", "White wins by adjudication: SyzygyTB (win for White, KRvK)")
