"""Exports of a results store: PGN (cutechess style) and the per-move table (CSV, Parquet).

PGN follows cutechess-cli (docs/reference/harness_and_stats.md §3 and §7.2): Event, Site, Date,
Round,
White, Black, Result, FEN/SetUp for book starts, PlyCount, TimeControl, Termination, start and end
times; book moves carry `{book}` and engine moves `{+0.35/12 0.512s}` (score in pawns from the
mover's side, `+M5`/`-M4` in plies for mates, then depth, then the measured time), with a space,
not a comma (fastchess #594), and the reason on the last move. python-chess, cutechess and Ordo
read it. A Chess960 or DFRC game always has FEN/SetUp and `[Variant "Chess960"]`, the name
python-chess's `Game.setup` writes and reads back as Chess960 (it also reads cutechess's
"fischerandom": `chess.pgn.Headers.is_chess960`); DFRC is Chess960 from a FEN. Files are written
to a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import chess.pgn

from lab.records import GameRecord
from lab.store import OLD_VARIANT, Store, game_row, move_rows
from lab.variants import variant_board

if TYPE_CHECKING:
    import pandas as pd

#: A results folder's PGN of every game.
PGN_NAME = "games.pgn"


class _CutechessExporter(chess.pgn.StringExporter):
    """python-chess's exporter writing comments as `{text}` (cutechess), not `{ text }`."""

    def visit_comment(self, comment: str) -> None:
        if self.comments and (self.variations or not self.variation_depth):
            self.write_token("{" + comment.replace("}", "").strip() + "} ")
            self.force_movenumber = True


def _present(value: object) -> bool:
    """False for None, NaN and pandas' NA. A game's own record holds plain numbers, so pandas is
    only asked about values that came from one of its frames (it is loaded then)."""
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return not math.isnan(value)
    import pandas as pd

    return not bool(pd.isna(value))


def score_text(score_cp: object, score_mate: object) -> str | None:
    """cutechess's score: pawns with a sign ('+0.35'), or a mate in plies ('+M5', '-M4').

    UCI mates count moves: a mate in n moves for the mover is 2n − 1 plies away, being mated in
    n moves is 2n plies away.
    """
    if _present(score_mate):
        n = int(score_mate)
        return f"+M{2 * n - 1}" if n > 0 else f"-M{-2 * n}"
    if _present(score_cp):
        return f"{int(score_cp) / 100:+.2f}"
    return None


def time_text(elapsed_ms: float) -> str:
    """Seconds with a precision that shrinks as the time grows: 0.512s, 1.25s, 12.5s, 125s."""
    seconds = float(elapsed_ms) / 1000.0
    if seconds < 1:
        return f"{seconds:.3f}s"
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 100:
        return f"{seconds:.1f}s"
    return f"{seconds:.0f}s"


def move_comment(row: Mapping[str, Any]) -> str:
    """The cutechess move comment `+0.35/12 0.512s` (score and depth only when reported)."""
    score = score_text(row.get("score_cp"), row.get("score_mate"))
    time = time_text(row["elapsed_ms"]) if _present(row.get("elapsed_ms")) else None
    if score is not None and _present(row.get("depth")):
        score = f"{score}/{int(row['depth'])}"
    return " ".join(part for part in (score, time) if part)


def game_pgn(game: Mapping[str, Any], moves: Sequence[Mapping[str, Any]], event: str = "Tempo",
             site: str = "Tempo lab") -> chess.pgn.Game:
    """One game as a PGN game: its `games` row and its `moves` rows in ply order, as read from
    the store (`Store.games()`, `Store.moves()`) or made from a record (`store.game_row`)."""
    pgn = chess.pgn.Game()
    board = variant_board(game["opening_fen"], game.get("variant") or OLD_VARIANT)
    started = str(game.get("started_at") or "")
    headers = {
        "Event": event,
        "Site": site,
        "Date": started[:10].replace("-", ".") if started else "????.??.??",
        "Round": str(game["round"]),
        "White": game["white"],
        "Black": game["black"],
        "Result": game["result"],
    }
    pgn.headers.update(headers)
    if board.chess960:
        pgn.setup(board)  # Variant "Chess960"; FEN and SetUp even for position 518
        pgn.headers.update(FEN=board.fen(), SetUp="1")
    elif board.fen() != chess.STARTING_FEN:
        pgn.setup(board)
    node: chess.pgn.GameNode = pgn
    book = str(game.get("opening_moves") or "").split()
    for uci in book:
        node = node.add_main_variation(chess.Move.from_uci(uci), comment="book")
    for row in moves:
        node = node.add_main_variation(chess.Move.from_uci(row["move"]),
                                       comment=move_comment(row))
    ending = [str(game.get("reason") or "")]
    if game.get("illegal_move"):
        ending.append(f"illegal move {game['illegal_move']}")
    node.comment = ", ".join(filter(None, [node.comment, *ending]))
    pgn.headers["PlyCount"] = str(len(book) + len(moves))
    white_tc, black_tc = game.get("white_tc"), game.get("black_tc")
    if white_tc and black_tc and white_tc != black_tc:
        pgn.headers["WhiteTimeControl"] = str(white_tc)
        pgn.headers["BlackTimeControl"] = str(black_tc)
    else:
        pgn.headers["TimeControl"] = str(game.get("tc") or "-")
    pgn.headers["Termination"] = str(game.get("termination") or "unterminated")
    if started:
        pgn.headers["GameStartTime"] = started
    if game.get("finished_at"):
        pgn.headers["GameEndTime"] = str(game["finished_at"])
    pgn.headers["GameId"] = str(game["game_id"])
    return pgn


def _pgn(game: Mapping[str, Any], moves: Sequence[Mapping[str, Any]], event: str) -> str:
    pgn = game_pgn(game, moves, event)
    return pgn.accept(_CutechessExporter(headers=True, variations=False, comments=True))


def pgn_text(games: pd.DataFrame, moves: pd.DataFrame, event: str = "Tempo") -> Iterable[str]:
    """Each game's PGN text, in the games frame's order."""
    by_game = {gid: frame for gid, frame in moves.groupby("game_id", sort=False)}
    empty = moves.iloc[0:0]
    for _, game in games.iterrows():
        rows = by_game.get(game["game_id"], empty).sort_values("ply")
        yield _pgn(game, [row for _, row in rows.iterrows()], event)


def record_pgn_text(record: GameRecord, event: str = "Tempo") -> str:
    """A finished game's PGN text from its record, as `pgn_text` writes it once it is stored."""
    return _pgn(game_row(record, 0), move_rows(record), event)


def write_atomically(path: Path, write: Callable[[Path], Any]) -> Path:
    """Call `write(tmp)` on a temporary name beside `path` (unique to this process and thread),
    then rename it over `path`: a reader sees the old file or the new one, never half of one.
    A write that fails or is interrupted (Ctrl-C, SIGTERM) leaves `path` as it was and no
    temporary file behind."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_games_pgn(path: str | Path, games: pd.DataFrame, moves: pd.DataFrame,
                    event: str = "Tempo") -> Path:
    """Write the games of the frames, in their order, to `path` (replaced atomically)."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as out:
            for text in pgn_text(games, moves, event):
                out.write(text + "\n\n")

    return write_atomically(Path(path), write)


def write_pgn(store: Store, path: str | Path, event: str = "Tempo") -> Path:
    """Write every stored game, in the order they finished, to `path` (replaced atomically).

    An empty store gives an empty file without reading frames (a new run starts sooner)."""
    if store.game_count() == 0:
        return write_atomically(Path(path), lambda tmp: tmp.write_text("", encoding="utf-8"))
    return write_games_pgn(path, store.games(), store.moves(), event)


def append_pgn(path: str | Path, record: GameRecord, event: str = "Tempo") -> None:
    """Append a game just stored, from its record, to a PGN file (a live copy; `write_pgn`
    rewrites it whole from the store)."""
    with open(path, "a", encoding="utf-8") as out:
        out.write(record_pgn_text(record, event) + "\n\n")


def has_parquet() -> bool:
    """True when pyarrow is installed (Parquet export)."""
    return importlib.util.find_spec("pyarrow") is not None


def write_moves_table(folder: str | Path, moves: pd.DataFrame) -> list[Path]:
    """The per-move frame as `moves.csv`, and `moves.parquet` when pyarrow is there."""
    folder = Path(folder)
    written = [write_atomically(folder / "moves.csv", lambda tmp: moves.to_csv(tmp, index=False))]
    if has_parquet():
        written.append(write_atomically(folder / "moves.parquet",
                                        lambda tmp: moves.to_parquet(tmp, index=False)))
    return written


def write_moves(store: Store, folder: str | Path) -> list[Path]:
    """The store's per-move table as `moves.csv`, and `moves.parquet` when pyarrow is there."""
    return write_moves_table(folder, store.moves())


#: The PGN Seven Tag Roster, with the tags a book start needs: all that a minimal PGN keeps.
MINIMAL_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "SetUp", "FEN")


def output_pgn_text(record: GameRecord, event: str = "Tempo", minimal: bool = False,
                    final_fen: bool = False) -> str:
    """A game for a `--pgn-out` file: as in games.pgn, or with `minimal` the Seven Tag Roster
    and moves without comments (cutechess `-pgnout FILE min`); `final_fen` adds the final
    position's FEN as the last comment (cutechess `fi`)."""
    pgn = game_pgn(game_row(record, 0), move_rows(record), event)
    if minimal:
        for key in [k for k in pgn.headers if k not in MINIMAL_TAGS]:
            del pgn.headers[key]
        for node in [pgn, *pgn.mainline()]:
            node.comment = ""
    if final_fen:
        end = pgn.end()
        end.comment = ", ".join(filter(None, [end.comment, f"FEN: {record.final_fen}"]))
    return pgn.accept(_CutechessExporter(headers=True, variations=False, comments=True))


def final_epd(record: GameRecord) -> str:
    """A game's final position as an EPD line (cutechess `-epdout`)."""
    return variant_board(record.final_fen, record.variant).epd()


def append_output_files(record: GameRecord, pgn: str | None, epd: str | None,
                        event: str = "Tempo", minimal: bool = False,
                        final_fen: bool = False) -> None:
    """Append a finished game to the user's `--pgn-out` and `--epd-out` files, when given.

    Appended, never rewritten (as cutechess does): the files may hold other runs' games, and a
    resumed run never plays a stored game again.
    """
    if pgn is not None:
        with open(pgn, "a", encoding="utf-8") as out:
            out.write(output_pgn_text(record, event, minimal, final_fen) + "\n\n")
    if epd is not None:
        with open(epd, "a", encoding="utf-8") as out:
            out.write(final_epd(record) + "\n")
