"""The limits of one UCI `go` command, and those a harness sends from its two clocks.

What the engine reads from `go` and what the harness writes: both sides' times and increments,
moves to go, a fixed move time, node, depth and mate limits, or `infinite`. The harness (`lab`)
speaks UCI through this module alone, without the stoppers a search asks.

Runs on Python 3.9 (PyPy): no 3.10+ syntax at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from timecontrol.clock import Clock


@dataclass
class GoParams:
    """The limits of one UCI `go` command; times in milliseconds, absent ones are None.

    `ponder` marks a search begun by `go ponder`: a manager's stopper for it is made at
    `ponderhit` (`timecontrol.ponder`), with this clock, and the move's time counts from there.
    """

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False

    def clock(self, white: bool) -> int | None:
        """Remaining time of the side to move, if the clock was given."""
        return self.wtime if white else self.btime

    def increment(self, white: bool) -> int:
        """Increment of the side to move (0 when not given)."""
        return (self.winc if white else self.binc) or 0


def go_params(white: Clock, black: Clock, white_to_move: bool) -> GoParams:
    """The `go` limits for the side to move: both sides' clocks where they have one (fastchess
    sends `wtime/btime/winc/binc` only for the sides with a clock), the mover's movestogo and
    per-move limit. A mover without a clock gets its own limit only: sent the opponent's clock
    without its own, an engine such as Stockfish takes its own time to be 0 and plays at once."""
    go = GoParams()
    mover = white if white_to_move else black
    clocks = ((white, True), (black, False)) if mover.control.has_clock else ()
    for clock, is_white in clocks:
        if clock.control.has_clock:
            fields = clock.go_fields()
            if is_white:
                go.wtime, go.winc = fields["time"], fields["inc"]
            else:
                go.btime, go.binc = fields["time"], fields["inc"]
    fields = mover.go_fields()
    go.movestogo = fields.get("movestogo")
    go.movetime = fields.get("movetime")
    go.nodes = fields.get("nodes")
    go.depth = fields.get("depth")
    go.infinite = mover.control.infinite
    return go
