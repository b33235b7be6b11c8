"""Chess960 and DFRC experiments: the `variant` key and `--variant`, their start positions and
books, the refusal of engines that do not declare Chess960, a real 960 game between our engine
and Stockfish, and its record in the store and in PGN."""

from __future__ import annotations

import argparse
import io
import sys

import chess
import chess.pgn
import pytest

from lab.commands.gauntlet import add_run_options, run_overrides
from lab.engine_log import EngineLogs
from lab.engine_process import EngineError, probe_engines_at_once
from lab.experiment import ExperimentError, Overrides
from lab.experiment_file import load_experiment
from lab.export import game_pgn, record_pgn_text, write_pgn
from lab.game import play_game, start_board
from lab.openings import BookError, dfrc_openings, load_book
from lab.quick_match import quick_experiment
from lab.runner import probe_engines
from lab.schedule import build_schedule
from lab.store import game_row, move_rows, open_store, read_store
from lab.variants import Variant
from tests.lab.conftest import FAKES
from tests.lab.test_experiment import BASE, with_b, write
from tests.lab.test_game import task

#: Chess960 position 96, `BBQNRNKR`: after Nf1-e3 and Nf8-e6 White castles short with the king
#: staying on g1 (`g1h1`, king takes rook; no standard notation exists for it).
CASTLE_BOOK = (chess.Board.from_chess960_pos(96).fen(), ["f1e3", "f8e6", "g1h1"])


def _no_book(variant: str | None = None, text: str = BASE) -> str:
    """An experiment (BASE unless `text`) without its book file, `[openings] seed = 7` kept, with
    a top-level `variant` when given."""
    text = text.split("[openings]")[0] + "[openings]\nseed = 7\n" + text.split("seed = 7\n")[1]
    return text if variant is None else f'variant = "{variant}"\n' + text


def test_the_variant_key_and_its_override(tmp_path):
    assert load_experiment(write(tmp_path, _no_book())).variant is Variant.STANDARD
    exp = load_experiment(write(tmp_path, _no_book("chess960")))
    assert exp.variant is Variant.CHESS960
    over = load_experiment(write(tmp_path, _no_book("chess960")), Overrides(variant="dfrc"))
    assert over.variant is Variant.DFRC
    parser = argparse.ArgumentParser()
    add_run_options(parser)
    assert run_overrides(parser.parse_args(["--variant", "chess960"])).variant == "chess960"


@pytest.mark.parametrize("where,overrides", [("file", None), ("cli", Overrides(variant="crazy"))])
def test_an_unknown_variant_names_the_key_and_the_choices(tmp_path, where, overrides):
    path = write(tmp_path, _no_book("crazyhouse" if where == "file" else None))
    with pytest.raises(ExperimentError) as info:
        load_experiment(path, overrides)
    message = str(info.value)
    assert ("key 'variant'" in message if where == "file" else "--variant" in message)
    assert "'standard', 'chess960', 'dfrc'" in message


def test_the_variant_is_part_of_the_identity_and_standard_leaves_it_unchanged(tmp_path):
    standard = load_experiment(write(tmp_path, _no_book())).identity()
    assert "variant" not in standard  # folders written before the key still resume
    assert load_experiment(write(tmp_path, _no_book("standard"))).identity() == standard
    c960 = load_experiment(write(tmp_path, _no_book("chess960"))).identity()
    assert c960["variant"] == "chess960" and c960 != standard


def test_960_starts_without_a_book_are_seeded_and_paired(tmp_path):
    exp = load_experiment(write(tmp_path, _no_book("chess960")))
    assert len(exp.book) == 960 and len({o.fen for o in exp.book}) == 960
    assert all(o.chess960 and o.source.startswith("chess960:") for o in exp.book)
    again = load_experiment(write(tmp_path, _no_book("chess960")))
    assert [o.source for o in again.book] == [o.source for o in exp.book]
    other = load_experiment(write(tmp_path, _no_book("chess960").replace("seed = 7", "seed = 8")))
    assert [o.source for o in other.book[:10]] != [o.source for o in exp.book[:10]]
    first, second = build_schedule(exp)[:2]
    assert first.opening_fen == second.opening_fen and first.pair_id == second.pair_id
    assert (first.white.name, first.black.name) == (second.black.name, second.white.name)
    assert first.variant is Variant.CHESS960 and start_board(first).chess960


def test_dfrc_starts_give_the_sides_different_back_ranks():
    openings = dfrc_openings(50, seed=3)
    assert [o.source for o in openings] == [o.source for o in dfrc_openings(50, seed=3)]
    differ = 0
    for opening in openings:
        board = opening.board()
        white, black = (int(n) for n in opening.source.removeprefix("dfrc:").split("-"))
        assert board.chess960 and board.is_valid() and len(list(board.legal_moves)) > 0
        assert board.board_fen().split("/")[-1] == \
            chess.Board.from_chess960_pos(white).board_fen().split("/")[-1]
        assert board.board_fen().split("/")[0] == \
            chess.Board.from_chess960_pos(black).board_fen().split("/")[0]
        assert chess.popcount(board.castling_rights) == 4  # both rooks of both sides
        differ += white != black
    assert differ == 50


def test_books_are_read_as_960(tmp_path):
    epd = tmp_path / "c960.epd"
    epd.write_text("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf -\n")  # Shredder-FEN
    (opening,) = load_book(epd, chess960=True)
    assert opening.chess960 and chess.popcount(opening.board().castling_rights) == 4
    pgn = tmp_path / "c960.pgn"
    game = chess.pgn.Game()
    game.setup(chess.Board(CASTLE_BOOK[0], chess960=True))
    node = game
    for uci in CASTLE_BOOK[1]:
        node = node.add_main_variation(node.board().parse_uci(uci))
    pgn.write_text(str(game) + "\n")
    (line,) = load_book(pgn, chess960=True)
    assert line.moves == tuple(CASTLE_BOOK[1])
    with pytest.raises(BookError, match="Chess960 game in a standard-chess experiment"):
        load_book(pgn)
    with pytest.raises(BookError, match="Polyglot book holds standard-chess lines"):
        load_book(tmp_path / "book.bin", chess960=True)


def test_tempo_match_with_variant_plays_960_starts_not_the_shipped_book():
    exp = quick_experiment(["stockfish", "stockfish"], "1+0.01", 2,
                           overrides=Overrides(variant="chess960"))
    assert exp.openings.file is None and exp.variant is Variant.CHESS960
    assert len(exp.book) == 960 and exp.book[0].chess960


def test_engines_without_chess960_are_refused_before_any_game(tmp_path):
    fake = with_b(f'cmd = ["{sys.executable}", "{FAKES / "fake_uci.py"}"]')
    exp = load_experiment(write(tmp_path, _no_book("chess960", fake)))
    with pytest.raises(ExperimentError, match="engine 'b' cannot play variant 'chess960': it "
                       "declares no UCI_Chess960 option"):
        probe_engines(exp)
    assert not exp.out.exists()
    # Stockfish declares UCI_Chess960 and passes
    assert probe_engines(load_experiment(write(tmp_path, _no_book("chess960"))))


def test_an_xboard_engine_without_fischerandom_is_refused(phalanx):
    (standard,) = probe_engines_at_once([phalanx])
    assert standard.name == "Phalanx XXV"
    (refused,) = probe_engines_at_once([phalanx], variant=Variant.DFRC)
    assert isinstance(refused, EngineError)
    assert str(refused) == ("engine 'phalanx' cannot play variant 'dfrc': it declares no "
                            "fischerandom in its feature variants")


@pytest.mark.timeout(120)
def test_a_960_game_between_our_engine_and_stockfish(tempo, stockfish, tmp_path):
    game = task(tempo, stockfish("sf"), "depth=2", fen=CASTLE_BOOK[0], moves=CASTLE_BOOK[1],
                max_moves=60)
    game.variant, game.logs = Variant.CHESS960, EngineLogs(io_dir=str(tmp_path / "io"))
    record = play_game(game)
    logs = sorted((tmp_path / "io").iterdir())
    assert len(logs) == 2
    for log in logs:  # both engines were told, before any position
        traffic = log.read_text()
        assert traffic.index("setoption name UCI_Chess960 value true") < traffic.index("position")
    assert not record.termination.is_fault and record.illegal_move is None, record.reason
    assert record.variant is Variant.CHESS960 and len(record.moves) > 10
    board = start_board(game)
    assert board.chess960 and board.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)
    for move in record.moves:
        parsed = chess.Move.from_uci(move.move)
        assert parsed in board.legal_moves, move
        if board.is_castling(parsed):  # stored as king takes own rook
            assert board.piece_at(parsed.to_square).piece_type == chess.ROOK
        board.push(parsed)
    assert board.fen() == record.final_fen

    with open_store(tmp_path / "res") as store:
        assert store.add_game(record)
    with read_store(tmp_path / "res") as store:
        games = store.games()
        assert list(games["variant"]) == ["chess960"]
        path = write_pgn(store, tmp_path / "games.pgn")
    for text in (path.read_text(), record_pgn_text(record)):
        read = chess.pgn.read_game(io.StringIO(text))
        assert read.headers["Variant"] == "Chess960" and read.headers["SetUp"] == "1"
        assert read.headers["FEN"] == chess.Board(CASTLE_BOOK[0], chess960=True).fen()
        replayed = read.end().board()
        assert replayed.chess960 and replayed.fen() == record.final_fen
        assert "O-O" in text  # the book castle, written as SAN
    assert game_pgn(game_row(record, 1), move_rows(record)).headers["Variant"] == "Chess960"
