"""lab.ratings.pgn_headers: the fast tag scan agrees with python-chess on every kind of file."""

from __future__ import annotations

import re

import chess.pgn
import pytest

from lab.ratings import pgn_headers
from lab.ratings.pgn_headers import read_pgn_headers


def by_python_chess(path) -> list[tuple[str, str, str]]:
    """python-chess's headers, with the PGN standard's escapes undone (its reader keeps them)."""
    games = []
    with open(path, encoding="utf-8-sig") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            games.append(tuple(re.sub(r"\\(.)", r"\1", headers.get(tag, default))
                               for tag, default in (("White", "?"), ("Black", "?"),
                                                    ("Result", "*"))))
    return games


def game(white: str, black: str, result: str, moves: str = "1. e4 e5") -> str:
    return (f'[Event "t"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "1"]\n[White "{white}"]\n'
            f'[Black "{black}"]\n[Result "{result}"]\n\n{moves} {result}\n\n')


FILES = {
    "export format": "".join(game(f"e{k % 7}", f"e{(k + 3) % 7}", ("1-0", "0-1", "1/2-1/2")[k % 3])
                             for k in range(500)),
    "escaped names": game('Deep \\"Blue\\"', "back\\\\slash", "1-0") + game("a", "b", "0-1"),
    "a missing tag": game("a", "b", "1-0").replace('[Result "1-0"]\n', "") + game("c", "d", "0-1"),
    "tag text in a comment": game("a", "b", "1-0", '1. e4 {\n\n[White "x"] not a tag} e5')
    + game("c", "d", "*"),
    "no blank line before the next game": game("a", "b", "1-0").rstrip("\n") + "\n"
    + game("c", "d", "0-1"),
    "python-chess's unescaped quotes": game('Deep "Blue"', "b", "1-0") + game("c", "d", "0-1"),
    "tags out of the roster's order": game("a", "b", "1-0").replace(
        '[White "a"]\n[Black "b"]', '[Black "b"]\n[White "a"]') + game("c", "d", "0-1"),
    "cutechess comments": game("x", "y", "1/2-1/2", "1. e4 {+0.35/12 0.512s} e5 {-0.2/11 0.4s}"),
}


@pytest.mark.parametrize("name", FILES)
def test_the_scan_agrees_with_python_chess(tmp_path, name) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(FILES[name])
    assert read_pgn_headers(path) == by_python_chess(path)


def test_crlf_and_a_byte_order_mark(tmp_path) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(b"\xef\xbb\xbf" + FILES["export format"].replace("\n", "\r\n").encode())
    assert read_pgn_headers(path) == by_python_chess(path)


def test_games_across_chunk_boundaries(tmp_path, monkeypatch) -> None:
    """Chunks are cut at blank lines only: tiny chunks still give every game once."""
    path = tmp_path / "games.pgn"
    path.write_text(FILES["export format"] + FILES["escaped names"])
    monkeypatch.setattr(pgn_headers, "CHUNK_CHARS", 97)
    assert read_pgn_headers(path) == by_python_chess(path)


def test_an_empty_file_has_no_games(tmp_path) -> None:
    path = tmp_path / "empty.pgn"
    path.write_text("\n\n")
    assert read_pgn_headers(path) == []


def test_export_format_never_needs_the_full_parser(tmp_path, monkeypatch) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(FILES["export format"] + FILES["escaped names"])

    def refuse(piece: str):
        raise AssertionError("python-chess was asked to parse an export-format file")

    monkeypatch.setattr(pgn_headers, "_parse", refuse)
    assert len(read_pgn_headers(path)) == 502


class _Refused:
    """A tag pattern that fails the test when used."""

    def findall(self, piece: str):
        raise AssertionError("the one-pattern-per-tag scan ran on a roster-order file")


def test_roster_order_is_read_in_one_pass(tmp_path, monkeypatch) -> None:
    """Export format (White, Black, Result on consecutive lines) needs only the roster pattern."""
    path = tmp_path / "games.pgn"
    path.write_text(FILES["export format"] + FILES["escaped names"])
    expected = read_pgn_headers(path)
    monkeypatch.setattr(pgn_headers, "_TAGS", {tag: _Refused() for tag in pgn_headers._TAGS})
    assert read_pgn_headers(path) == expected == by_python_chess(path)


def test_other_tag_orders_fall_back_to_one_pattern_per_tag(tmp_path, monkeypatch) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(FILES["tags out of the roster's order"] + game("e", "f", "1/2-1/2").replace(
        '[White "e"]\n', '[White "e"]\n[WhiteElo "2500"]\n'))
    monkeypatch.setattr(pgn_headers, "_parse", lambda piece: pytest.fail("python-chess parsed"))
    assert read_pgn_headers(path) == by_python_chess(path) == [
        ("a", "b", "1-0"), ("c", "d", "0-1"), ("e", "f", "1/2-1/2")]
