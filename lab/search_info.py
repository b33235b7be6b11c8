"""What an engine reported while it searched one move, parsed after the move (off the clock).

The protocol layer keeps the raw `info` lines (UCI) or thinking-output lines (XBoard `post`) of a
search; this module turns them into the figures of a `MoveRecord`. Parsing uses python-chess's own
line parsers (`chess.engine._parse_uci_info`, `_parse_xboard_post`, pinned by the tests here), so
scores, mates and PVs mean what they mean everywhere else in python-chess.

Choice of line (as fastchess, docs/reference/harness_and_stats.md section 2.2 step 7): the score,
depth,
seldepth and PV come from the last line with a score that is not an `info string` and belongs to
multipv 1 (a line with no multipv counts as 1; other PVs are used only if no such line exists). The
node count, NPS and reported time come from the last line that has each. Scores are from the
mover's point of view. `info string tm {json}` is our engine's telemetry line (design.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine


@dataclass
class SearchInfo:
    """The figures of one search, as MoveRecord wants them."""

    depth: int | None = None
    seldepth: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    nodes: int | None = None
    nps: int | None = None
    pv: str | None = None
    reported_ms: float | None = None
    telemetry: dict[str, Any] = field(default_factory=dict)
    telemetry_error: str | None = None


def _parse_telemetry(text: str) -> tuple[dict[str, Any], str | None]:
    try:
        value = json.loads(text)
    except ValueError as err:
        return {}, f"telemetry is not JSON: {err}"
    if not isinstance(value, dict):
        return {}, "telemetry is not a JSON object"
    return value, None


def parse_search_lines(lines: list[str], board: chess.Board, protocol: str = "uci") -> SearchInfo:
    """Parse the lines an engine sent between `go` and its move; `board` is the root position."""
    parsed: list[chess.engine.InfoDict] = []
    info = SearchInfo()
    for line in lines:
        if protocol == "uci":
            keyword, _, rest = line.partition(" ")
            if keyword != "info":
                continue
            if rest.startswith("string "):
                text = rest[len("string "):].strip()
                if text.startswith("tm ") or text == "tm":
                    info.telemetry, info.telemetry_error = _parse_telemetry(text[2:].strip())
                continue
            parsed.append(chess.engine._parse_uci_info(rest, board))
        else:
            stripped = line.strip()
            if len(stripped.split()) >= 4 and stripped[0].isdigit():
                parsed.append(chess.engine._parse_xboard_post(stripped, board))
    scored = [item for item in parsed if "score" in item]
    main = [item for item in scored if item.get("multipv", 1) == 1] or scored
    if main:
        best = main[-1]
        relative = best["score"].relative
        info.score_cp = relative.score()
        info.score_mate = relative.mate()
        info.depth = best.get("depth")
        info.seldepth = best.get("seldepth")
        if best.get("pv"):
            info.pv = " ".join(move.uci() for move in best["pv"])
    for item in parsed:
        if not main and "depth" in item:
            info.depth = item["depth"]
        if "nodes" in item:
            info.nodes = item["nodes"]
        if "nps" in item:
            info.nps = item["nps"]
        if "time" in item:
            info.reported_ms = item["time"] * 1000.0
    return info
