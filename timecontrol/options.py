"""Lc0's option-string syntax for time managers: `name(key=value,...,sub(key=value))`.

Example: `smooth(init-tree-reuse=0.5,max-move-budget=0.3,mle-legacy(midpoint=50.0,steepness=12.0))`
(docs/reference/smooth_time_manager.md section 1). As in Lc0's factory, every key given must be
read by
the manager, so a misspelt key is an error; here every error names the key. Unlike Lc0, a float
key also accepts an integer literal (`midpoint=50`); an integer key refuses a fraction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from timecontrol.moves_left import LegacyMovesLeft

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_FLOAT_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INT_RE = re.compile(r"[+-]?\d+")


class TimeManagerSpecError(ValueError):
    """A time-manager spec string that cannot be used; the message names the key at fault."""


@dataclass
class SpecOptions:
    """The parsed options of one manager (or sub-dict), tracking which keys were read."""

    spec: str
    name: str
    values: dict[str, str] = field(default_factory=dict)
    subs: dict[str, SpecOptions] = field(default_factory=dict)
    _used: set[str] = field(default_factory=set)

    def _error(self, key: str, problem: str) -> TimeManagerSpecError:
        where = self.name if "(" not in self.spec else f"{self.name} in {self.spec!r}"
        return TimeManagerSpecError(f"time manager {where}: key {key!r} {problem}")

    def number(self, key: str, default: float, *, minimum: float | None = None,
               maximum: float | None = None, min_open: bool = False,
               max_open: bool = False, integer: bool = False) -> float:
        """Read a numeric key (or its default), checking the literal and the range."""
        self._used.add(key)
        if key in self.subs:
            raise self._error(key, "needs a value (key=number), not a sub-list")
        if key not in self.values:
            return default
        text = self.values[key]
        pattern = _INT_RE if integer else _FLOAT_RE
        if not pattern.fullmatch(text):
            kind = "an integer" if integer else "a number"
            raise self._error(key, f"expects {kind}, got {text!r}")
        value = int(text) if integer else float(text)
        if not math.isfinite(value):
            raise self._error(key, f"expects a finite number, got {text!r}")
        low_ok = minimum is None or (value > minimum if min_open else value >= minimum)
        high_ok = maximum is None or (value < maximum if max_open else value <= maximum)
        if not (low_ok and high_ok):
            low = "" if minimum is None else f"{'(' if min_open else '['}{minimum:g}"
            high = "" if maximum is None else f"{maximum:g}{')' if max_open else ']'}"
            span = f"{low or '(-inf'}, {high or 'inf)'}"
            raise self._error(key, f"is {text}, out of range {span}")
        return value

    def positive(self, key: str, default: float) -> float:
        """A number above 0 (a rate, a period, an NPS)."""
        return self.number(key, default, minimum=0.0, min_open=True)

    def fraction(self, key: str, default: float, *, open_top: bool = False) -> float:
        """A number in [0, 1], or [0, 1) with `open_top`."""
        return self.number(key, default, minimum=0.0, maximum=1.0, max_open=open_top)

    def sub(self, name: str) -> SpecOptions | None:
        """A sub-dict such as `mle-legacy(...)`, if given."""
        self._used.add(name)
        if name in self.values:
            raise self._error(name, "is a sub-list: write name(key=value,...)")
        return self.subs.get(name)

    def check_all_used(self) -> None:
        """Raise for the first key (here or in a sub-dict) that the manager did not read."""
        for key in list(self.values) + list(self.subs):
            if key not in self._used:
                raise self._error(key, "is unknown")
        for sub in self.subs.values():
            sub.check_all_used()


class _Parser:
    """Recursive-descent parser of `name(key=value,sub(key=value))`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, problem: str) -> TimeManagerSpecError:
        return TimeManagerSpecError(
            f"time manager {self.text!r}: {problem} at character {self.pos + 1}; expected "
            "name or name(key=value,...), e.g. smooth(max-move-budget=0.3)")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def name(self) -> str:
        self.skip_space()
        match = _NAME_RE.match(self.text, self.pos)
        if match is None:
            raise self.fail("a name is missing")
        self.pos = match.end()
        return match.group()

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def body(self, options: SpecOptions) -> None:
        """Parse `key=value` items and sub-dicts up to the closing parenthesis."""
        if self.peek() == ")":
            self.pos += 1
            return
        while True:
            key = self.name()
            if key in options.values or key in options.subs:
                raise TimeManagerSpecError(
                    f"time manager {self.text!r}: key {key!r} is given twice")
            sep = self.peek()
            if sep == "=":
                self.pos += 1
                self.skip_space()
                start = self.pos
                while self.pos < len(self.text) and self.text[self.pos] not in ",()":
                    self.pos += 1
                value = self.text[start:self.pos].strip()
                if not value:
                    raise TimeManagerSpecError(
                        f"time manager {self.text!r}: key {key!r} has no value")
                options.values[key] = value
            elif sep == "(":
                self.pos += 1
                sub = SpecOptions(spec=self.text, name=key)
                self.body(sub)
                options.subs[key] = sub
            else:
                raise TimeManagerSpecError(
                    f"time manager {self.text!r}: key {key!r} needs '=value' or '(...)'")
            sep = self.peek()
            self.pos += 1
            if sep == ")":
                return
            if sep != ",":
                self.pos -= 1
                raise self.fail("',' or ')' is missing")


def parse_spec(text: str) -> SpecOptions:
    """Parse a whole spec string into the manager name and its options."""
    if not isinstance(text, str) or not text.strip():
        raise TimeManagerSpecError(f"time manager {text!r}: empty; expected a name such as "
                                   "'smooth' or 'smooth(max-move-budget=0.3)'")
    parser = _Parser(text)
    name = parser.name()
    options = SpecOptions(spec=text, name=name)
    if parser.peek() == "(":
        parser.pos += 1
        parser.body(options)
    if parser.peek():
        raise parser.fail("unexpected text")
    return options


def read_moves_left(options: SpecOptions, default: LegacyMovesLeft) -> LegacyMovesLeft:
    """The mle-legacy estimator, from a `mle-legacy(...)` sub-dict if present, else from
    `midpoint=`/`steepness=` given directly (as Lc0's smooth reads it, reference section 1a)."""
    source = options.sub("mle-legacy") or options
    midpoint = source.positive("midpoint", default.midpoint)
    steepness = source.positive("steepness", default.steepness)
    return LegacyMovesLeft(midpoint, steepness)


def read_flag(options: SpecOptions, key: str, default: bool) -> bool:
    """A 0/1 key (for example `overhead-per-move`, `plan-period`)."""
    return bool(options.number(key, float(default), minimum=0, maximum=1, integer=True))
