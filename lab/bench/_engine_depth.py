"""Depth figures of `tempo bench engine`: time to a fixed depth and depth reached in a fixed time.

The bench node count says how much a search does, nodes per second how fast it runs; what a user
feels is how deep the engine gets in the time it has. Each interpreter gets one engine process
(as a game would: PyPy warms up as it goes, the order of the searches is the same for both) that
searches every bench position (read from the engine's own `bench` output, the lab never imports
the engine) to `depth`, then for each time in `seconds`, through UCI with a fresh `ucinewgame`
before each search.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import time
from dataclasses import dataclass, field

import chess
import chess.engine


@dataclass
class DepthFigures:
    """One interpreter's figures over the bench positions (one entry per position)."""

    interpreter: str
    depth: int
    seconds_to_depth: list[float] = field(default_factory=list)
    depth_in: dict[float, list[int]] = field(default_factory=dict)


def bench_positions(launcher: str, interpreter: str) -> list[str]:
    """The FENs the engine's `bench` searches, from its `Position: i/n FEN` lines (depth 1)."""
    env = dict(os.environ, TEMPO_ENGINE_PYTHON=interpreter)
    done = subprocess.run([launcher, "bench", "--depth", "1"], capture_output=True, text=True,
                          env=env, check=False)
    fens = re.findall(r"^Position: \d+/\d+ (.+)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or not fens:
        raise RuntimeError(f"tempo-engine bench ({interpreter}) printed no positions: "
                           f"{(done.stderr or done.stdout).strip()[-300:]}")
    return fens


def depth_figures(launcher: str, interpreter: str, fens: list[str], depth: int,
                  seconds: list[float]) -> DepthFigures:
    """Search every position to `depth` (wall time until `bestmove`), then for each of
    `seconds` (the depth of the last completed iteration, as the engine reports it)."""
    figures = DepthFigures(interpreter, depth)
    env = dict(os.environ, TEMPO_ENGINE_PYTHON=interpreter)
    with chess.engine.SimpleEngine.popen_uci([launcher], env=env, timeout=60) as engine:
        if depth > 0:
            for fen in fens:
                began = time.perf_counter()
                engine.analyse(chess.Board(fen), chess.engine.Limit(depth=depth), game=object())
                figures.seconds_to_depth.append(time.perf_counter() - began)
        for limit in seconds:
            reached = figures.depth_in.setdefault(limit, [])
            for fen in fens:
                info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=limit),
                                      game=object())
                reached.append(int(info.get("depth", 0)))
    return figures


def format_depth_table(results: list[DepthFigures | str], names: list[str]) -> str:
    """Interpreters side by side: time to depth (total and slowest position) and depth in each
    time (median and least over the positions); a string entry is an error to show."""
    rows: list[tuple[str, list[str]]] = []
    done = [r for r in results if isinstance(r, DepthFigures)]
    if not done:
        return "\n".join(f"{name}: {r}" for name, r in zip(names, results))
    first = done[0]
    if first.depth > 0:
        rows.append((f"s to depth {first.depth}, total", [
            f"{sum(r.seconds_to_depth):.1f}" if isinstance(r, DepthFigures) else r
            for r in results]))
        rows.append((f"s to depth {first.depth}, slowest", [
            f"{max(r.seconds_to_depth):.1f}" if isinstance(r, DepthFigures) else r
            for r in results]))
    for limit in first.depth_in:
        rows.append((f"depth in {limit:g} s, median (min)", [
            f"{statistics.median(r.depth_in[limit]):g} ({min(r.depth_in[limit])})"
            if isinstance(r, DepthFigures) else r for r in results]))
    label_width = max(len(label) for label, _ in rows)
    header = f"{'':<{label_width}}" + "".join(f" | {name:>14}" for name in names)
    lines = [header, "-" * len(header)]
    for label, cells in rows:
        lines.append(f"{label:<{label_width}}" + "".join(f" | {cell:>14}" for cell in cells))
    return "\n".join(lines)
