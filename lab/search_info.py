"""What an engine reported while it searched one move, parsed after the move (off the clock).

The protocol layer keeps the raw `info` lines (UCI) or thinking-output lines (XBoard `post`) of a
search; this module turns them into a `SearchInfo`, which the move's `MoveRecord` holds. Parsing
uses python-chess's own line parsers (`chess.engine._parse_uci_info`, `_parse_xboard_post`,
pinned by the tests here), so scores, mates and PVs mean what they mean everywhere else in
python-chess.

Choice of line (as fastchess, docs/reference/harness_and_stats.md section 2.2 step 7): the score,
depth, seldepth and PV come from the last line with a score that is not an `info string` and
belongs to multipv 1 (a line with no multipv counts as 1; other PVs are used only if no such line
exists). The node count, NPS and reported time come from the last line that has each. Scores are
from the mover's point of view. `info string tm {json}` is our engine's telemetry line
(design.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import chess
import chess.engine

from lab.records import SearchInfo


def _parse_telemetry(text: str) -> tuple[dict[str, Any], str | None]:
    try:
        value = json.loads(text)
    except ValueError as err:
        return {}, f"telemetry is not JSON: {err}"
    if not isinstance(value, dict):
        return {}, "telemetry is not a JSON object"
    return value, None


def _telemetry_text(lines: list[str]) -> str | None:
    """The JSON of the last `info string tm` line, if any (the last one counts)."""
    for line in reversed(lines):
        keyword, _, rest = line.partition(" ")
        if keyword == "info" and rest.startswith("string "):
            text = rest[len("string "):].strip()
            if text.startswith("tm ") or text == "tm":
                return text[2:].strip()
    return None


def _parsed_lines(lines: list[str], board: chess.Board,
                  protocol: str) -> Iterator[chess.engine.InfoDict]:
    """The search lines (not `info string`) parsed by python-chess, last first."""
    for line in reversed(lines):
        if protocol == "uci":
            keyword, _, rest = line.partition(" ")
            if keyword == "info" and not rest.startswith("string "):
                yield chess.engine._parse_uci_info(rest, board)
        else:
            stripped = line.strip()
            if len(stripped.split()) >= 4 and stripped[0].isdigit():
                yield chess.engine._parse_xboard_post(stripped, board)


def parse_search_lines(lines: list[str], board: chess.Board, protocol: str = "uci") -> SearchInfo:
    """Parse the lines an engine sent between `go` and its move; `board` is the root position.

    Lines are read from the last back and parsing stops once every figure is known: usually the
    last line has them all, and parsing (which checks each PV move) is the harness's largest cost
    per move after the engine's own.
    """
    info = SearchInfo()
    if protocol == "uci" and (text := _telemetry_text(lines)) is not None:
        info.telemetry, info.telemetry_error = _parse_telemetry(text)
    main: chess.engine.InfoDict | None = None
    other: chess.engine.InfoDict | None = None
    depth_only: int | None = None
    wanted = {"nodes", "nps", "time"}
    for item in _parsed_lines(lines, board, protocol):
        if "score" in item:
            if main is None and item.get("multipv", 1) == 1:
                main = item
            elif other is None:
                other = item
        if depth_only is None and "depth" in item:
            depth_only = item["depth"]
        for key in list(wanted):
            if key in item:
                wanted.discard(key)
                if key == "nodes":
                    info.nodes = item["nodes"]
                elif key == "nps":
                    info.nps = item["nps"]
                else:
                    info.reported_ms = item["time"] * 1000.0
        if main is not None and not wanted:
            break
    best = main or other
    if best is not None:
        relative = best["score"].relative
        info.score_cp = relative.score()
        info.score_mate = relative.mate()
        info.depth = best.get("depth")
        info.seldepth = best.get("seldepth")
        if best.get("pv"):
            info.pv = " ".join(move.uci() for move in best["pv"])
    else:
        info.depth = depth_only
    return info
