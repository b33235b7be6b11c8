"""Live progress of a run: one line redrawn in place on a terminal, one line per game otherwise.

Shown: games done of total, W/L/D of each challenger (each engine in a round-robin) with its
score and Elo ± against its opponents (pentanomial when openings are paired), time forfeits,
games per minute and ETA, and the SPRT's LLR when it runs with fishtest's Elo estimate corrected
for the sequential stop.
"""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

from lab.records import GameRecord
from lab.tournament import Tournament


def elo_text(tournament: Tournament, player: str) -> str:
    """'name +5 -3 =2 (60.0%) Elo +70.4 ± 120.3' for one player.

    The Elo and its interval appear once `spread_measured`: one won pair would otherwise read
    "-1041 ± 396", one split pair "+0.0 ± 34.0" (the SPRT's corrected estimate "+950.8 [+669.0,
    +1000.0]"), spreads of the zero cells' regularisation alone.
    """
    standing = tournament.standings[player]
    text = f"{player} +{standing.wins} -{standing.losses} ={standing.draws}"
    if standing.games:
        text += f" ({100 * standing.score:.1f}%)"
        if not spread_measured(tournament, player):
            return text
        est = standing.estimate(tournament.exp.openings.paired)
        if math.isfinite(est.elo) and math.isfinite(est.error) and est.error > 0:
            text += f" Elo {est.elo + 0.0:+.1f} ± {est.error:.1f}"
    return text


def spread_measured(tournament: Tournament, player: str) -> bool:
    """Whether `player`'s games (pairs, when openings are paired) hold two different outcomes,
    so that an interval around its Elo measures the games and not the zero cells' regularisation."""
    standing = tournament.standings[player]
    counts = standing.pentanomial() if tournament.exp.openings.paired else standing.trinomial()
    return sum(1 for c in counts if c) >= 2


def status_line(tournament: Tournament, started: float, played: int) -> str:
    """The whole progress line; `played` counts games finished since `started` (monotonic)."""
    parts = [f"{tournament.done}/{tournament.total} games"]
    exp = tournament.exp
    players = exp.challengers if exp.schedule == "gauntlet" else [e.name for e in exp.engines]
    parts += [elo_text(tournament, player) for player in players]
    forfeits = sum(s.forfeits for s in tournament.standings.values())
    parts.append(f"time forfeits {forfeits}")
    minutes = (time.monotonic() - started) / 60.0
    if played and minutes > 0:
        rate = played / minutes
        left = tournament.total - tournament.done
        parts.append(f"{rate:.1f} games/min, ETA {duration_text(60.0 * left / rate)}")
    if tournament.sprt_result is not None:
        sprt = tournament.sprt_result
        parts.append(f"LLR {sprt.llr:+.2f} ({sprt.lower_bound:+.2f}, {sprt.upper_bound:+.2f})")
        corrected = tournament.sprt_estimate
        if corrected is not None and spread_measured(tournament, tournament.focus[0]):
            parts.append(f"SPRT Elo {corrected.elo:+.1f} [{corrected.lower:+.1f}, "
                         f"{corrected.upper:+.1f}]")
    return " | ".join(parts)


def duration_text(seconds: float) -> str:
    """A duration as '4m05s' or '1h02m' (the ETA of the progress line and of the page)."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


class Progress:
    """Prints progress as games finish; call `game` per finished game and `close` at the end."""

    def __init__(self, tournament: Tournament, stream: TextIO | None = None,
                 live: bool | None = None) -> None:
        self.tournament = tournament
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self.played = 0
        self._width = 0

    def begin(self) -> None:
        """Say what is about to run (and how much a resumed run already has)."""
        t = self.tournament
        if t.resumed >= t.total:
            resumed = f", all {t.resumed} already played: nothing to do"
        elif t.resumed:
            resumed = f", resuming with {t.resumed} done"
        else:
            resumed = ""
        self.stream.write(f"{t.exp.name}: {t.total} games{resumed}, concurrency "
                          f"{t.exp.concurrency}, tc {t.exp.tc} -> {t.exp.out}\n")
        self.stream.flush()

    def game(self, record: GameRecord) -> None:
        """Report one finished game."""
        self.played += 1
        line = status_line(self.tournament, self.started, self.played)
        if self.live:
            pad = max(0, self._width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._width = len(line)
        else:
            self.stream.write(f"game {record.game_id}: {record.white} - {record.black} "
                              f"{record.result} ({record.termination}: {record.reason}) | "
                              f"{line}\n")
        self.stream.flush()

    def close(self) -> None:
        """End the live line and say why the run ended."""
        if self.live and self._width:
            self.stream.write("\n")
        reason = self.tournament.stop_reason
        if reason:
            self.stream.write(f"stopped: {reason}\n")
        self.stream.flush()
