"""The transposition table: a fixed number of slots sized by the `Hash` option (MB).

After Greenblatt et al. 1967 ("Hash table"): each entry keeps the result
of a search, how deep it was, and whether the value is exact or only a bound on it. An entry is
one integer: move (16 bits), score (16-bit signed field, see `engine.score.pack16`), depth (8 bits)
and bound (2 bits); a slot is found from the low bits of the position's hash and checked against
the full hash.
"""

from __future__ import annotations

from engine.score import pack16, unpack16

EXACT = 0
LOWER = 1
UPPER = 2

ENTRY_BYTES = 64
"""Approximate cost of one slot in CPython (two list cells and two int objects)."""


def encode_move(from_square: int, to_square: int, promotion: int | None) -> int:
    """Pack a move into 15 bits (0 is reserved for "no move": a1a1 is never a move)."""
    return from_square | to_square << 6 | (promotion or 0) << 12


class TranspositionTable:
    """Slots of (hash, entry); always replaces another position, keeps the deeper result of one."""

    def __init__(self, megabytes: int = 16) -> None:
        self.resize(megabytes)

    def resize(self, megabytes: int) -> None:
        """Allocate the largest power-of-two number of slots that fits `megabytes`."""
        if megabytes < 1:
            raise ValueError(f"Hash must be at least 1 MB, got {megabytes}")
        slots = 1
        while slots * 2 * ENTRY_BYTES <= megabytes * (1 << 20):
            slots *= 2
        self.mask = slots - 1
        self.keys: list[int | None] = [None] * slots
        self.entries: list[int] = [0] * slots

    def clear(self) -> None:
        """Forget every entry (`ucinewgame`)."""
        slots = self.mask + 1
        self.keys = [None] * slots
        self.entries = [0] * slots

    def __len__(self) -> int:
        return self.mask + 1

    def probe(self, key: int) -> int | None:
        """The packed entry stored for `key`, or None."""
        slot = key & self.mask
        if self.keys[slot] == key:
            return self.entries[slot]
        return None

    def store(self, key: int, depth: int, bound: int, score: int, move: int) -> None:
        """Store a search result (score already made node-relative with `score.to_tt`)."""
        slot = key & self.mask
        if self.keys[slot] == key and bound != EXACT and (self.entries[slot] >> 32) & 0xFF > depth:
            return
        self.keys[slot] = key
        self.entries[slot] = move | pack16(score) << 16 | max(depth, 0) << 32 | bound << 40

    def hashfull(self) -> int:
        """Permille of the first 1000 slots in use (UCI `hashfull`)."""
        sample = self.keys[:1000]
        return sum(1 for key in sample if key is not None) * 1000 // len(sample)


def entry_move(entry: int) -> int:
    """The packed move of an entry (0: none)."""
    return entry & 0xFFFF


def entry_score(entry: int) -> int:
    """The node-relative score of an entry."""
    return unpack16(entry >> 16)


def entry_depth(entry: int) -> int:
    """The depth an entry was searched to."""
    return (entry >> 32) & 0xFF


def entry_bound(entry: int) -> int:
    """EXACT, LOWER or UPPER."""
    return (entry >> 40) & 0x3
