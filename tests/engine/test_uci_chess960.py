"""Chess960 over UCI as a real process: `UCI_Chess960` declared, positions and moves read and
written with castling as the king taking its own rook (UCI protocol, section "Chess960")."""

from __future__ import annotations

import chess
import chess.engine
import pytest

from tests.engine.conftest import raw_engine, read_until

#: White's king on b1 between its rooks on a1 and h1 (Shredder-FEN castling `HA`): O-O is
#: `b1h1` and O-O-O `b1a1` in Chess960 notation, while `b1c1` is a plain king move.
CASTLE_FEN = "6k1/8/8/8/8/8/8/RK5R w HA - 0 1"


def _lines(process, commands: str, until: str) -> list[str]:
    process.stdin.write(commands)
    return read_until(process, until)


def test_declares_uci_chess960_off_by_default(engine):
    option = engine.options["UCI_Chess960"]
    assert (option.type, option.default) == ("check", False)


@pytest.mark.timeout(60)
def test_castling_is_listed_and_played_as_king_takes_rook():
    process = raw_engine()
    try:
        # every root move at depth 1: the castles appear in 960 notation only
        lines = _lines(process, "setoption name UCI_Chess960 value true\nsetoption name MultiPV "
                       f"value 256\nposition fen {CASTLE_FEN}\ngo depth 1\n", "bestmove")
        firsts = {line.split(" pv ")[1].split()[0] for line in lines if " pv " in line}
        board = chess.Board(CASTLE_FEN, chess960=True)
        assert firsts == {board.uci(move) for move in board.legal_moves}
        assert {"b1h1", "b1a1"} <= firsts and "b1g1" not in firsts
        # a castle restricted by searchmoves comes back as king takes rook
        lines = _lines(process, "setoption name MultiPV value 1\ngo depth 2 searchmoves b1h1\n",
                       "bestmove")
        assert lines[-1].split()[:2] == ["bestmove", "b1h1"]
        # a castle given in 960 notation in the move list is played
        lines = _lines(process, f"position fen {CASTLE_FEN} moves b1h1 g8h7\nd\n", "Fen:")
        assert lines[-1] == "Fen: 8/7k/8/8/8/8/8/R4RK1 w - - 2 2"
        # without UCI_Chess960 the king on b1 cannot castle: the FEN is refused, the engine lives
        lines = _lines(process, "setoption name UCI_Chess960 value false\n"
                       f"position fen {CASTLE_FEN}\nisready\n", "readyok")
        assert any(line.startswith("info string error: position: fen") and "CASTLING" in line
                   for line in lines), lines
    finally:
        process.stdin.write("quit\n")
        process.communicate(timeout=10)


@pytest.mark.timeout(60)
def test_a_chess960_start_position_game_through_python_chess(engine):
    board = chess.Board.from_chess960_pos(0)  # bbqnnrkr: the king on g1 between f1 and h1
    for _ in range(6):
        result = engine.play(board, chess.engine.Limit(depth=2))
        assert result.move in board.legal_moves
        board.push(result.move)
    assert board.chess960 and board.is_valid()
