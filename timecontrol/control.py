"""Time-control strings as cutechess-cli and fastchess take them, parsed into a value type.

Forms (harness research notes, docs/reference/harness_and_stats.md sections 2.1 and 3):

* ``40/60+0.6``: 40 moves per period, 60 s per period, 0.6 s increment; the period repeats.
* ``60+0.6``, ``60``: the whole game in 60 s, with or without increment.
* ``0:30+0.2``, ``40/1:00+0.6``: the period time as minutes:seconds.
* ``st=1.5``: a fixed 1.5 s per move.
* ``nodes=20000``, ``depth=8``: search limits with no clock.
* ``inf``: no limit at all.

Time odds are two `TimeControl` values, one per engine. A `TimeControl` is a value: parsed once
where it enters (an experiment file, the command line), compared and hashed as data, and turned
back into its canonical text by `str()` (which `parse_time_control` reads back to an equal value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_CLOCK_RE = re.compile(
    rf"^(?:(?P<moves>\d+)/)?(?:(?P<minutes>\d+):(?P<mseconds>{_NUMBER})|(?P<seconds>{_NUMBER}))"
    rf"(?:\+(?P<inc>{_NUMBER}))?$"
)
_CLOCK_FORMS = "'moves/seconds+increment', 'seconds+increment' or 'minutes:seconds+increment'"
_EXPECTED = f"expected {_CLOCK_FORMS}, 'st=SECONDS', 'nodes=N', 'depth=N' or 'inf'"


class TimeControlError(ValueError):
    """A time-control string or value that does not make sense; the message quotes it."""


def _seconds_to_ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _format_seconds(ms: int) -> str:
    """Milliseconds as seconds with no trailing zeros: 60000 -> '60', 600 -> '0.6'."""
    if ms % 1000 == 0:
        return str(ms // 1000)
    return f"{ms / 1000:.3f}".rstrip("0")


@dataclass(frozen=True)
class TimeControl:
    """One side's time control: a clock (periods, base, increment) or a per-move limit.

    A clock has `movetime_ms`, `nodes` and `depth` all None and `infinite` False; `moves` is the
    number of moves per period (None for the whole game). Otherwise exactly one limit is set.
    """

    moves: int | None = None
    base_ms: int = 0
    inc_ms: int = 0
    movetime_ms: int | None = None
    nodes: int | None = None
    depth: int | None = None
    infinite: bool = False

    def __post_init__(self) -> None:
        limits = [self.movetime_ms, self.nodes, self.depth]
        kinds = sum(value is not None for value in limits) + int(self.infinite)
        if kinds > 1:
            raise TimeControlError(f"time control {self!r}: more than one kind of limit")
        if kinds == 1:
            if self.moves is not None or self.base_ms or self.inc_ms:
                raise TimeControlError(f"time control {self!r}: a clock and a per-move limit")
            for name, value in (("st", self.movetime_ms), ("nodes", self.nodes),
                                ("depth", self.depth)):
                if value is not None and value <= 0:
                    raise TimeControlError(f"time control {self!r}: {name} must be positive")
            return
        if self.moves is not None and self.moves < 1:
            raise TimeControlError(f"time control {self!r}: moves per period must be >= 1")
        if self.base_ms < 0 or self.inc_ms < 0:
            raise TimeControlError(f"time control {self!r}: negative time")
        if self.base_ms + self.inc_ms <= 0:
            raise TimeControlError(f"time control {self!r}: no time on the clock")

    @property
    def has_clock(self) -> bool:
        """True for a game clock (base, increment, periods); False for st/nodes/depth/inf."""
        return (self.movetime_ms is None and self.nodes is None and self.depth is None
                and not self.infinite)

    def scaled(self, factor: float) -> TimeControl:
        """This control with its times multiplied by `factor` (to the millisecond, at least 1 ms):
        base, increment and `st=` move time; `nodes=`, `depth=` and `inf` do not depend on speed."""

        def scale(ms: int) -> int:
            return max(1, round(ms * factor)) if ms else 0

        if self.movetime_ms is not None:
            return replace(self, movetime_ms=scale(self.movetime_ms))
        if not self.has_clock:
            return self
        return replace(self, base_ms=scale(self.base_ms), inc_ms=scale(self.inc_ms))

    def __str__(self) -> str:
        """The canonical text (cutechess syntax, no trailing zeros): '40/60+0.6', 'st=0.5'."""
        if self.infinite:
            return "inf"
        if self.movetime_ms is not None:
            return f"st={_format_seconds(self.movetime_ms)}"
        if self.nodes is not None:
            return f"nodes={self.nodes}"
        if self.depth is not None:
            return f"depth={self.depth}"
        text = _format_seconds(self.base_ms)
        if self.moves is not None:
            text = f"{self.moves}/{text}"
        if self.inc_ms:
            text += f"+{_format_seconds(self.inc_ms)}"
        return text


def _positive_int(text: str, key: str, value: str) -> int:
    if not value.isdigit() or int(value) <= 0:
        raise TimeControlError(f"time control {text!r}: {key}= expects a positive integer, "
                               f"got {value!r}")
    return int(value)


def parse_time_control(text: str) -> TimeControl:
    """Parse a cutechess/fastchess time-control string; `TimeControlError` quotes a bad one."""
    if not isinstance(text, str):
        raise TimeControlError(f"time control {text!r}: not a string; {_EXPECTED}")
    spec = text.strip()
    if spec.lower() in ("inf", "infinite"):
        return TimeControl(infinite=True)
    if "=" in spec:
        key, _, value = spec.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key == "st":
            if not re.fullmatch(_NUMBER, value) or float(value) <= 0:
                raise TimeControlError(f"time control {text!r}: st= expects positive seconds, "
                                       f"got {value!r}")
            return TimeControl(movetime_ms=max(1, _seconds_to_ms(float(value))))
        if key == "nodes":
            return TimeControl(nodes=_positive_int(text, key, value))
        if key == "depth":
            return TimeControl(depth=_positive_int(text, key, value))
        raise TimeControlError(f"time control {text!r}: unknown key {key!r}; {_EXPECTED}")
    match = _CLOCK_RE.match(spec)
    if match is None:
        raise TimeControlError(f"time control {text!r}: {_EXPECTED}")
    moves = int(match["moves"]) if match["moves"] is not None else None
    if moves == 0:
        raise TimeControlError(f"time control {text!r}: moves per period must be >= 1")
    if match["minutes"] is not None:
        if float(match["mseconds"]) >= 60:
            raise TimeControlError(f"time control {text!r}: seconds after ':' must be < 60")
        base_ms = int(match["minutes"]) * 60_000 + _seconds_to_ms(float(match["mseconds"]))
    else:
        base_ms = _seconds_to_ms(float(match["seconds"]))
    inc_ms = _seconds_to_ms(float(match["inc"])) if match["inc"] is not None else 0
    if base_ms + inc_ms <= 0:
        raise TimeControlError(f"time control {text!r}: no time on the clock; {_CLOCK_FORMS} "
                               "with a positive time")
    return TimeControl(moves=moves, base_ms=base_ms, inc_ms=inc_ms)
