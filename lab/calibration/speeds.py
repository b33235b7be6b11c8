"""Each anchor's speed in a round's level games beside its speed in the games that rated it.

An engine that plays on the clock is as strong as it is fast, so an anchor holds its rating only
at the speed it was rated at (the anchor table's nodes/s: the median it reported over its moves).
Rated on a loaded machine and playing the levels on an idle one, such an anchor plays them above
its rating: final-v2's Sunfish searched 2.8 times as fast against the levels as in the round
robin and pulled L1250 and L1450 down by 40-80 Elo (results/calibration/README.md, "The third
run"). An engine whose strength does not follow its speed shows a changed speed harmlessly
(Stockfish's `UCI_Elo` picks its move at a fixed depth; a `nodes=` or `depth=` anchor), and
nodes/s cannot tell the two apart, so the table names every anchor whose speed changed and
leaves the judgement to the reader. A diagnostic printed beside the criteria, not one of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: A speed ratio beyond this factor, either way, is named.
TOLERANCE = 1.25
#: What the table shows, above it in the report and on the page.
SPEED_INTRO = ("Each anchor's speed in this round's level games beside the speed it was rated "
               "at (the median nodes/s it reported over its moves; a diagnostic, not a "
               "criterion).")


@dataclass(frozen=True)
class AnchorSpeed:
    """One anchor's median nodes/s in the games that rated it and in a round's level games."""

    name: str
    rated_nps: float
    level_nps: float

    @property
    def ratio(self) -> float:
        """How many times as fast it searched against the levels as when it was rated."""
        return self.level_nps / self.rated_nps

    def changed(self, tolerance: float = TOLERANCE) -> bool:
        """True when the ratio lies outside [1/tolerance, tolerance]."""
        return not 1.0 / tolerance <= self.ratio <= tolerance


def anchor_speeds(rated: Mapping[str, float], against_levels: Mapping[str, float]
                  ) -> list[AnchorSpeed]:
    """The anchors with a speed on both sides (positive and finite), in `rated`'s order."""
    def known(value: float | None) -> bool:
        return value is not None and math.isfinite(value) and value > 0

    return [AnchorSpeed(name, nps, against_levels[name]) for name, nps in rated.items()
            if known(nps) and known(against_levels.get(name))]


def changed_text(speeds: list[AnchorSpeed], tolerance: float = TOLERANCE) -> str:
    """The sentence under the table: the anchors whose speed changed beyond `tolerance`, most
    changed first, or that none did."""
    moved = sorted((s for s in speeds if s.changed(tolerance)),
                   key=lambda s: -abs(math.log(s.ratio)))
    if not moved:
        return f"Every anchor searched within {tolerance:g}x of the speed it was rated at."
    named = ", ".join(f"{s.name} ({s.ratio:.2f}x)" for s in moved)
    return (f"Speed changed beyond {tolerance:g}x: {named}. An anchor whose strength follows its "
            "speed (one that plays on the clock) does not play these levels at its rating.")


def speed_text(nps: float) -> str:
    """Nodes per second as the report prints them: '1.13M', '32.6k', '850', or '-' for none."""
    if not math.isfinite(nps):
        return "-"
    if nps >= 1e6:
        return f"{nps / 1e6:.2f}M"
    return f"{nps / 1000:.1f}k" if nps >= 1000 else f"{nps:.0f}"


def speed_rows(speeds: list[AnchorSpeed]) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows: anchor, nodes/s rated at, against the levels, ratio."""
    return (["anchor", "nodes/s rated at", "nodes/s against the levels", "ratio"],
            [[s.name, speed_text(s.rated_nps), speed_text(s.level_nps), f"{s.ratio:.2f}"]
             for s in speeds])
