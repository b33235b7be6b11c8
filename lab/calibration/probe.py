"""Asking our engine, as a process, which parameters a level uses, and whether a table loads.

With `debug on`, our engine prints its strength parameters in the seed's dump format
(engine/strength/dump.py) as `info string` lines: `NPS = n, MoveError = m, BlunderError = b,
BlunderPer128 = p.` and one `Ls<Term>Per128 = k` line per knowledge term. The lab reads them
here rather than recomputing the engine's formulas (lab never imports the engine). Any `info
string error` line (a table that does not load, a bad option) is raised with the engine's words.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.records import EngineSpec

_PARAMS = re.compile(r"NPS = (\d+), MoveError = (\d+), BlunderError = (\d+), "
                     r"BlunderPer128 = (\d+)")
_KNOWLEDGE = re.compile(r"Ls(\w+)Per128 = (\d+)")
#: The dump's knowledge names -> the table's knowledge columns (engine/strength/dump.py).
DUMP_TERMS = {
    "PassedPawns": "passed_pawns",
    "KingSafety": "king_safety",
    "PieceLocation": "piece_location",
    "PieceMobility": "mobility",
    "PawnStructure": "pawn_structure",
    "Threats": "threats",
    "MinorPieces": "minor_pieces",
    "MajorPieces": "major_pieces",
    "EndgameScale": "endgame_scaling",
}


class ProbeError(RuntimeError):
    """The engine did not answer as expected, or reported an error; the message quotes it."""


@dataclass
class ProbeResult:
    """What the engine said: its strength parameters (if dumped) and its `info string` lines."""

    params: dict[str, float] = field(default_factory=dict)
    strings: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return [s for s in self.strings if s.lower().startswith("error")
                or "error:" in s.lower()]


def option_text(value: Any) -> str:
    """An option's value as `setoption` writes it (UCI's true/false for a check)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def converse(spec: EngineSpec, lines: Iterable[str], until: str = "bestmove",
             timeout: float = 60.0) -> list[str]:
    """Send `lines` to the engine, read its output until a line starting with `until`."""
    env = {**os.environ, **spec.env} if spec.env else None
    process = subprocess.Popen(spec.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=spec.cwd, env=env)
    assert process.stdin is not None and process.stdout is not None
    output: list[str] = []
    watchdog = threading.Timer(timeout, process.kill)  # a silent engine must not hang the lab
    watchdog.start()
    try:
        process.stdin.write("".join(f"{line}\n" for line in lines))
        process.stdin.flush()
        for raw in process.stdout:
            line = raw.strip()
            output.append(line)
            if line.startswith(until):
                break
        else:
            if not watchdog.is_alive():
                raise ProbeError(f"engine {spec.name}: no '{until}' within {timeout:.0f} s")
            raise ProbeError(f"engine {spec.name}: exited before '{until}' "
                             f"(last output: {output[-3:]})")
    finally:
        watchdog.cancel()
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return output


def probe_level(spec: EngineSpec, options: dict[str, Any], timeout: float = 60.0) -> ProbeResult:
    """Set `options` with `debug on`, search depth 1, and collect the dump and info strings."""
    lines = ["uci", "debug on"]
    lines += [f"setoption name {k} value {option_text(v)}" for k, v in options.items()]
    lines += ["isready", "ucinewgame", "position startpos", "go depth 1"]
    result = ProbeResult()
    for line in converse(spec, lines, "bestmove", timeout):
        if line.startswith("info string "):
            text = line[len("info string "):]
            result.strings.append(text)
            match = _PARAMS.search(text)
            if match:
                result.params.update(zip(("NPS", "MoveError", "BlunderError", "BlunderPer128"),
                                         map(float, match.groups()), strict=True))
            match = _KNOWLEDGE.search(text)
            if match and match.group(1) in DUMP_TERMS:
                result.params[DUMP_TERMS[match.group(1)]] = int(match.group(2)) / 128
    if result.errors:
        raise ProbeError(f"engine {spec.name} with {options}: " + "; ".join(result.errors))
    return result


def level_parameters(spec: EngineSpec, options_by_level: dict[int, dict[str, Any]]
                     ) -> dict[int, dict[str, float]]:
    """Each level's strength parameters, as our engine dumps them."""
    found = {}
    for level, options in options_by_level.items():
        result = probe_level(spec, options)
        if "NPS" not in result.params:
            raise ProbeError(f"engine {spec.name} printed no strength parameters for level "
                             f"{level} with 'debug on' (info strings: {result.strings[:5]})")
        found[level] = result.params
    return found


def check_table_loads(spec: EngineSpec, table: str | Path, elo: int) -> ProbeResult:
    """Load `table` into the engine at `elo`; ProbeError with the engine's message if it fails."""
    options = {"UCI_LimitStrength": True, "EloTable": str(Path(table).resolve()), "UCI_Elo": elo}
    return probe_level(spec, options)
