"""The engine's UCI options: names, types, defaults and ranges, and parsing of `setoption` values.

The table is the design's UCI contract (docs/design.md, "The engine on UCI"); the strength
options are registered here with their final names and types, their behaviour lives in
`engine.strength`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.strength.calibrated import CALIBRATED
from engine.strength.range import FULL_STRENGTH_ELO, LADDER_MIN_ELO, UCI_ELO_DEFAULT

DEFAULT_TIME_MANAGER = "smooth"


class OptionError(ValueError):
    """A `setoption` that names an unknown option or gives an invalid value."""


@dataclass(frozen=True)
class Option:
    """One UCI option: `kind` is spin, check, combo, string or button."""

    name: str
    kind: str
    default: object = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def declaration(self) -> str:
        """The `option name ... type ...` line sent in answer to `uci`."""
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "check":
            text += f" default {'true' if self.default else 'false'}"
        elif self.kind == "spin":
            text += f" default {self.default} min {self.minimum} max {self.maximum}"
        elif self.kind == "combo":
            text += f" default {self.default}" + "".join(f" var {c}" for c in self.choices)
        elif self.kind == "string":
            text += f" default {self.default if self.default else '<empty>'}"
        return text

    def parse(self, value: str) -> object:
        """The typed value of `value`, or OptionError naming the option and the problem."""
        if self.kind == "spin":
            try:
                number = int(value)
            except ValueError:
                raise OptionError(f"option {self.name}: {value!r} is not an integer") from None
            if not self.minimum <= number <= self.maximum:
                raise OptionError(
                    f"option {self.name}: {number} is out of range {self.minimum}..{self.maximum}"
                )
            return number
        if self.kind == "check":
            lowered = value.lower()
            if lowered not in ("true", "false"):
                raise OptionError(f"option {self.name}: {value!r} is not true or false")
            return lowered == "true"
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == value.lower():
                    return choice
            raise OptionError(
                f"option {self.name}: {value!r} is not one of {', '.join(self.choices)}"
            )
        if self.kind == "string":
            return "" if value == "<empty>" else value
        return None


OPTIONS: tuple[Option, ...] = (
    Option("Hash", "spin", 16, 1, 1024),
    Option("Threads", "spin", 1, 1, 1),
    Option("MultiPV", "spin", 1, 1, 256),
    # Stockfish's 10 ms. The smooth and stockfish plans keep it back for every expected move,
    # and the harness measured 2 ms median, 9-24 ms at the 99th percentile between our `go` and
    # `bestmove` (10+0.1 and 2+0.02, concurrency 2); 50 ms per move left a 2+0.02 game 15 % of
    # its clock unused. Single late answers are met by the hard limit's clock share (0.81).
    Option("Move Overhead", "spin", 10, 0, 5000),
    # Tells the engine that the GUI may send `go ponder` (UCI); pondering itself needs nothing.
    Option("Ponder", "check", False),
    Option("SearchMode", "combo", "alphabeta", choices=("alphabeta", "greenblatt", "mcts")),
    Option("TimeManager", "string", DEFAULT_TIME_MANAGER),
    Option("Contempt", "spin", 0, -1000, 1000),
    Option("UCI_LimitStrength", "check", False),
    Option("UCI_Elo", "spin", UCI_ELO_DEFAULT, LADDER_MIN_ELO, FULL_STRENGTH_ELO),
    # Node budgets make a level the same on every machine; the wall-clock throttle is MadChess's.
    Option("LimitMode", "combo", "nodes", choices=("nodes", "nps")),
    # The calibrated table shipped with the engine; empty: MadChess's formulas; else a file.
    Option("EloTable", "string", CALIBRATED),
    Option("Seed", "spin", 0, 0, 2**31 - 1),
    Option("Telemetry", "check", True),
    Option("ValueScale", "spin", 400, 50, 4000),
    Option("SmartPruningFactor", "string", "1.33"),
    # UCI protocol, section "Chess960": castling is sent and read as king takes own rook.
    Option("UCI_Chess960", "check", False),
    Option("EvalFile", "string", ""),
    Option("Clear Hash", "button"),
)


class Options:
    """Current option values, looked up case-insensitively by name (as UCI allows)."""

    def __init__(self) -> None:
        self.table = {option.name.lower(): option for option in OPTIONS}
        self.values = {option.name: option.default for option in OPTIONS}

    def __getitem__(self, name: str) -> object:
        return self.values[name]

    def parse(self, name: str, value: str) -> tuple[str, object]:
        """(canonical name, typed value) for a `setoption`, or OptionError."""
        option = self.table.get(name.strip().lower())
        if option is None:
            raise OptionError(f"unknown option {name!r}")
        return option.name, option.parse(value.strip())

    def set(self, name: str, value: object) -> None:
        """Store an already parsed value."""
        self.values[name] = value
