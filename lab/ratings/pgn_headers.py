"""White, Black and Result of every game in a PGN file, read at the speed a rating fit needs.

A rating fit needs three tags per game, not the moves. python-chess's header reader parses each
game's whole text (about 35 µs a game); Ordo and BayesElo scan the tag lines instead. So do we:
the file is read in chunks cut at blank lines (a tag section never holds one), and in each chunk
the tags are found by regular expressions anchored on their literal text. PGN export format
writes the Seven Tag Roster first in every game, in the roster's order (PGN standard §8.1.1), so
one pattern for the consecutive lines White, Black, Result finds every game in a single pass.
When that count disagrees with the chunk's number of tag sections (other tags in between,
another order), each tag is found by its own pattern, whose lists line up with the games when
every game has each tag once. When those counts disagree too (a missing or repeated tag, tags
in the movetext, import-format layouts, python-chess's unescaped quotes), that chunk is read with
python-chess instead. Values are unescaped as the PGN standard says (§8.1.1: `\"` and
`\\`), which python-chess's reader leaves to the caller.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

#: One tag value, PGN escapes (\" and \\) allowed (the unrolled form: runs of plain characters
#: between escapes, which the regex engine scans far faster than one alternation per character).
_VALUE = r'"([^"\\\n]*(?:\\.[^"\\\n]*)*)"\]'
_TAGS = {name: re.compile(rf"\n\[{name} {_VALUE}") for name in ("White", "Black", "Result")}
#: The three tags on consecutive lines in the Seven Tag Roster's order (PGN standard §8.1.1).
_ROSTER = re.compile("".join(rf"\n\[{name} {_VALUE}" for name in ("White", "Black", "Result")))
_DEFAULTS = {"White": "?", "Black": "?", "Result": "*"}
_ESCAPE = re.compile(r"\\(.)")
CHUNK_CHARS = 1 << 22


def _unescape(value: str) -> str:
    return _ESCAPE.sub(r"\1", value) if "\\" in value else value


def _chunks(handle: io.TextIOBase) -> Iterator[str]:
    """The text in pieces that each start with a blank line and hold whole tag sections."""
    rest = ""
    while True:
        data = handle.read(CHUNK_CHARS)
        text = rest + data
        if not data:
            if text.strip():
                yield "\n\n" + text.lstrip("\n")
            return
        cut = text.rfind("\n\n")
        if cut < 0:
            rest = text
            continue
        piece, rest = text[:cut], text[cut:]
        if piece.strip():
            yield "\n\n" + piece.lstrip("\n")


def _scan(piece: str) -> list[tuple[str, str, str]] | None:
    """The games of one piece by the fast scan, or None when the tag lines do not line up."""
    games = piece.count("\n\n[")
    rows = _ROSTER.findall(piece)
    if len(rows) != games:
        found = [pattern.findall(piece) for pattern in _TAGS.values()]
        if any(len(values) != games for values in found):
            return None
        rows = list(zip(*found))
    if "\\" in piece:
        rows = [tuple(_unescape(value) for value in row) for row in rows]
    return rows


def _parse(piece: str) -> list[tuple[str, str, str]]:
    """The games of one piece read by python-chess (any layout it accepts); imported here, as
    most files never need it."""
    import chess.pgn

    handle = io.StringIO(piece)
    games = []
    while (headers := chess.pgn.read_headers(handle)) is not None:
        games.append(tuple(_unescape(headers.get(name, default))
                           for name, default in _DEFAULTS.items()))
    return games


def read_pgn_headers(path: str | Path) -> list[tuple[str, str, str]]:
    """(White, Black, Result) of every game in the file, in file order."""
    games: list[tuple[str, str, str]] = []
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for piece in _chunks(handle):
            scanned = _scan(piece)
            games.extend(_parse(piece) if scanned is None else scanned)
    return games
