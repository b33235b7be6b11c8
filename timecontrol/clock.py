"""One side's chess clock, as a tournament harness keeps it.

Rules (docs/reference/harness_and_stats.md sections 2.3, 3 and 3.1, fastchess 74deac23 and cutechess
5e84232b):

* The clock starts at base + increment, so the first move is already credited its increment.
* After each move the elapsed time is deducted and checked first: the move flags if it took longer
  than the time left plus the margin (cutechess: elapsed > remaining + margin). An overrun within
  the margin leaves 0 ms (fastchess clamps; cutechess would carry a negative time, its bug #809).
* Then the increment is added, and at the end of a period the next period's time is added.
  Deducting before the refill is cutechess's order: a flag on the last move of a period is a loss
  (fastchess refills first and so cannot see it).
* A fixed time per move (`st`) is reset every move and flags like a clock; nodes, depth and
  infinite limits never flag.
"""

from __future__ import annotations

from timecontrol.control import TimeControl


class ClockError(ValueError):
    """A clock used wrongly: negative elapsed time, or a move charged after a flag."""


class Clock:
    """Remaining time, moves to go and flag state of one side under one `TimeControl`."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.moves_made = 0
        self.flagged = False
        self.overrun_ms = 0
        if control.has_clock:
            self.remaining_ms: int | None = control.base_ms + control.inc_ms
        else:
            self.remaining_ms = control.movetime_ms
        self.moves_to_go: int | None = control.moves if control.has_clock else None

    def go_fields(self) -> dict[str, int]:
        """What to send in `go` for this side, in ms: `time`, `inc`, `movestogo` for a clock,
        or `movetime`, `nodes`, `depth` for a per-move limit; empty for infinite."""
        control = self.control
        if control.has_clock:
            fields = {"time": int(self.remaining_ms or 0), "inc": control.inc_ms}
            if self.moves_to_go is not None:
                fields["movestogo"] = self.moves_to_go
            return fields
        if control.movetime_ms is not None:
            return {"movetime": control.movetime_ms}
        if control.nodes is not None:
            return {"nodes": control.nodes}
        if control.depth is not None:
            return {"depth": control.depth}
        return {}

    def charge(self, elapsed_ms: int, margin_ms: int = 0) -> bool:
        """Charge one move that took `elapsed_ms`; False if it flagged (time forfeit).

        On a flag the clock keeps its time, records `overrun_ms` and refuses further moves.
        """
        if elapsed_ms < 0 or margin_ms < 0:
            raise ClockError(f"elapsed {elapsed_ms} ms and margin {margin_ms} ms must be >= 0")
        if self.flagged:
            raise ClockError("a move was charged to a clock that has already flagged")
        control = self.control
        if self.remaining_ms is not None and elapsed_ms > self.remaining_ms + margin_ms:
            self.flagged = True
            self.overrun_ms = int(elapsed_ms - self.remaining_ms)
            return False
        self.moves_made += 1
        if not control.has_clock:
            return True
        self.remaining_ms = max(0, int(self.remaining_ms or 0) - int(elapsed_ms))
        self.remaining_ms += control.inc_ms
        if self.moves_to_go is not None and control.moves is not None:
            self.moves_to_go -= 1
            if self.moves_to_go == 0:
                self.remaining_ms += control.base_ms
                self.moves_to_go = control.moves
        return True
