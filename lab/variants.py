"""The chess variants the lab plays: standard chess, Chess960 and double Fischer random chess.

Chess960 and DFRC (different back ranks for the two sides) follow the same rules: python-chess
plays both on `chess.Board(fen, chess960=True)`, whose UCI moves castle as king takes own rook
(the UCI protocol's `UCI_Chess960` notation) and whose FEN castling is X-FEN or Shredder-FEN.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess


class Variant(StrEnum):
    """An experiment's variant; the value is what the TOML key `variant`, `--variant` and the
    store's `games.variant` column hold."""

    STANDARD = "standard"
    CHESS960 = "chess960"
    DFRC = "dfrc"

    @property
    def chess960(self) -> bool:
        """True when games follow the Chess960 castling rules (Chess960 and DFRC)."""
        return self is not Variant.STANDARD


def variant_board(fen: str, variant: Variant | str) -> chess.Board:
    """The board of `fen` under the variant's rules (a Chess960 board for 960 and DFRC)."""
    import chess  # here only: the records and the store import `Variant` without move rules

    return chess.Board(fen, chess960=Variant(variant).chess960)
