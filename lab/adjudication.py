"""Draw, resign and maximum-length adjudication of a game from the engines' own scores, and
Syzygy tablebase adjudication.

After cutechess-cli's `GameAdjudicator` (docs/reference/harness_and_stats.md sections 2.4 and 3;
cutechess 5e84232b `projects/lib/src/gameadjudicator.cpp`), checked in its order after every move:

* Draw: count consecutive plies whose mover reported a centipawn score within
  ±`draw_score_cp`. A capture or pawn move, a missing score or a mate score resets the count
  (fastchess's resets; cutechess resets on captures and pawn moves too). Adjudicate a draw when the
  count reaches 2·`draw_move_count` and the game is at least `draw_move_number` full moves old.
* Resign: per side, count that side's consecutive moves with a score at or below
  −`resign_score_cp` (or a mate against it). When the count reaches `resign_move_count`, that side
  loses. With `resign_two_sided` the opponent must also have reported at least +`resign_score_cp`
  (or a mate for it) on its last `resign_move_count` moves; so the verdict may come on the
  winner's move, when it agrees.
* Maximum length: drawn once the game has `max_moves` full moves.

* Syzygy (checked first; fastchess `app/src/matchmaking/syzygy.cpp`, docs/reference/
  harness_and_stats.md §3): once a move leaves a position with at most `syzygy_pieces` pieces
  (default: the largest tables in the folder), no castling rights and the halfmove clock at 0
  (just after a capture or pawn move: the WDL tables assume it), the tables' verdict under the
  fifty-move rule ends the game; a cursed win or blessed loss is a draw. python-chess's
  `chess.syzygy` probes the tables; a position whose table is missing goes on.

Move numbers follow cutechess: full moves = plies since the task's start position (book moves
included) // 2, not the FEN's move counter (fastchess uses the counter; the two differ for EPD
books). Book moves are not fed here, so they never count towards a draw or resignation.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Protocol

import chess
import chess.syzygy

from lab.records import Adjudication


@dataclass(frozen=True)
class Verdict:
    """An adjudicated end: the result ("1-0", "0-1", "1/2-1/2") and the reason in words."""

    result: str
    reason: str


class SyzygyError(ValueError):
    """A Syzygy path that cannot be used: missing, not a folder, or holding no tables."""


class WdlProbe(Protocol):
    """What adjudication asks of a tablebase (`chess.syzygy.Tablebase` has it)."""

    def probe_wdl(self, board: chess.Board) -> int: ...


def syzygy_folders(path: str) -> list[str]:
    """The folders of a Syzygy path (several joined with the OS path separator, as engines take
    `SyzygyPath`)."""
    return [folder for folder in path.split(os.pathsep) if folder]


def largest_tables(path: str) -> int:
    """The most pieces of any WDL table under `path`; `SyzygyError` naming a missing, non-folder
    or table-less path (checked before any game is played)."""
    folders = syzygy_folders(path)
    if not folders:
        raise SyzygyError("the Syzygy path is empty")
    largest = 0
    for folder in folders:
        if not os.path.isdir(folder):
            what = "does not exist" if not os.path.exists(folder) else "is not a folder"
            raise SyzygyError(f"Syzygy folder {folder} {what}")
        names = [os.path.splitext(name)[0] for name in os.listdir(folder)
                 if name.endswith(".rtbw")]
        pieces = [len(name.replace("v", "")) for name in names
                  if chess.syzygy.is_tablename(name)]
        if not pieces:
            raise SyzygyError(f"Syzygy folder {folder} holds no WDL tables (*.rtbw)")
        largest = max(largest, *pieces)
    return largest


@functools.lru_cache(maxsize=4)
def open_syzygy(path: str) -> chess.syzygy.Tablebase:
    """The tables under `path`, opened once per process (files are opened lazily on probing)."""
    tablebase = chess.syzygy.Tablebase()
    for folder in syzygy_folders(path):
        tablebase.add_directory(folder, load_dtz=False)
    return tablebase


def tablebase_verdict(board: chess.Board, tablebase: WdlProbe, max_pieces: int) -> Verdict | None:
    """The game's end by the tables in `board`, or None when it is not theirs to decide: more
    than `max_pieces` pieces, castling rights, a halfmove clock above 0, or a missing table."""
    if (board.halfmove_clock != 0 or board.castling_rights
            or chess.popcount(board.occupied) > max_pieces):
        return None
    try:
        wdl = tablebase.probe_wdl(board)
    except KeyError:  # chess.syzygy.MissingTableError
        return None
    mover = chess.COLOR_NAMES[board.turn].capitalize()
    other = chess.COLOR_NAMES[not board.turn].capitalize()
    material = chess.syzygy.calc_key(board)
    outcome = {2: f"win for {mover}", 1: f"cursed win for {mover}", 0: "draw",
               -1: f"blessed loss for {mover}", -2: f"win for {other}"}[wdl]
    if wdl == 2:
        head, result = f"{mover} wins", "1-0" if board.turn == chess.WHITE else "0-1"
    elif wdl == -2:
        head, result = f"{other} wins", "0-1" if board.turn == chess.WHITE else "1-0"
    else:
        head, result = "Draw", "1/2-1/2"
    return Verdict(result, f"{head} by adjudication: SyzygyTB ({outcome}, {material})")


class Adjudicator:
    """Follows one game move by move and says when a rule ends it.

    With `rules.syzygy` the tables are opened once per process unless a `tablebase` is given.
    """

    def __init__(self, rules: Adjudication, tablebase: WdlProbe | None = None) -> None:
        self.rules = rules
        self.tablebase = tablebase
        self.max_pieces = 0
        if rules.syzygy is not None:
            self.max_pieces = largest_tables(rules.syzygy)
            if rules.syzygy_pieces is not None:
                self.max_pieces = min(self.max_pieces, rules.syzygy_pieces)
            if tablebase is None:
                self.tablebase = open_syzygy(rules.syzygy)
        self.draw_count = 0
        self.resign_count = {chess.WHITE: 0, chess.BLACK: 0}
        self.win_count = {chess.WHITE: 0, chess.BLACK: 0}

    def probe(self, board: chess.Board) -> Verdict | None:
        """The tables' verdict after a move (see `tablebase_verdict`); None without tables."""
        if self.tablebase is None:
            return None
        return tablebase_verdict(board, self.tablebase, self.max_pieces)

    def _draw_rule_on(self) -> bool:
        rules = self.rules
        return None not in (rules.draw_move_number, rules.draw_move_count, rules.draw_score_cp)

    def _resign_rule_on(self) -> bool:
        return None not in (self.rules.resign_move_count, self.rules.resign_score_cp)

    def update(self, mover: chess.Color, score_cp: int | None, score_mate: int | None,
               plies: int, irreversible: bool) -> Verdict | None:
        """Feed one move: the mover's colour and score (its point of view), the game's plies so
        far from the start position (this move included) and whether the move was a capture or
        pawn move. Returns the verdict when a rule ends the game."""
        rules = self.rules
        if self._draw_rule_on():
            if (irreversible or score_cp is None or score_mate is not None
                    or abs(score_cp) > rules.draw_score_cp):
                self.draw_count = 0
            else:
                self.draw_count += 1
            if (plies // 2 >= rules.draw_move_number
                    and self.draw_count >= 2 * rules.draw_move_count):
                return Verdict("1/2-1/2", "Draw by adjudication: draw rule")
        if self._resign_rule_on():
            threshold = rules.resign_score_cp
            losing = (score_mate is not None and score_mate < 0) or (
                score_mate is None and score_cp is not None and score_cp <= -threshold)
            winning = (score_mate is not None and score_mate > 0) or (
                score_mate is None and score_cp is not None and score_cp >= threshold)
            self.resign_count[mover] = self.resign_count[mover] + 1 if losing else 0
            self.win_count[mover] = self.win_count[mover] + 1 if winning else 0
            count = rules.resign_move_count
            for side in (mover, not mover):
                if self.resign_count[side] >= count and (
                        not rules.resign_two_sided or self.win_count[not side] >= count):
                    winner = "Black" if side == chess.WHITE else "White"
                    result = "0-1" if side == chess.WHITE else "1-0"
                    return Verdict(result, f"{winner} wins by adjudication: resign rule")
        if rules.max_moves is not None and plies >= 2 * rules.max_moves:
            return Verdict("1/2-1/2", "Draw by adjudication: max moves rule")
        return None
