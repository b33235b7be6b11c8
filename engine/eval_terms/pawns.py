"""Pawn structure in White's orientation, cached: Greenblatt's backward pawns and the rest.

Source of the backward-pawn rules: Greenblatt, Eastlake, Crocker 1967
(/work/Greenblatt et al. 1967), "Evaluation of the board", applied here to all
pawns at once with bitboard shifts instead of one pawn at a time.

The pawns change far less often than the pieces in a search, so :func:`pawn_entry` caches
everything that depends only on the pawns (and on the enemy pieces standing right in front
of them) in a bounded dictionary, in the manner of an engine's pawn hash table.
"""

from __future__ import annotations

import chess

from engine.eval_terms import weights as W
from engine.eval_terms.bits import (
    BB_ALL,
    FILES_OF,
    NOT_FILE_A,
    NOT_FILE_H,
    PASSED_SPAN,
    RANKS_4_TO_6,
    down_attacks,
    file_byte,
    fill_down,
    popcount,
    up_attacks,
)

_PST_P = W.PST[chess.PAWN]
PawnEntry = tuple[int, int, int, int, int, int, int, int, int]
_CACHE: dict[tuple[int, int, int], PawnEntry] = {}
CACHE_LIMIT = 1 << 16


def clear_cache() -> None:
    """Forget every entry: their scores are stale once the weights change."""
    _CACHE.clear()


def backward_pawns(ours: int, theirs: int, enemy: int, adjacent: int) -> int:
    """Our backward pawns (we move up), following Greenblatt's criteria in order.

    ``ours``/``theirs`` are the pawns, ``enemy`` all enemy pieces, ``adjacent`` our pawns that
    have a friendly pawn on an adjacent file (isolated pawns are scored as isolated instead).

    1. A pawn defended by a pawn is not backward.
    2. A pawn that a pawn push can defend in one move is not backward (pushes may pass
       through friendly pieces), unless the only such push is a double step that an enemy
       pawn could capture en passant.
    3. If a defending push is blocked by an enemy piece, or the pawn itself is blocked by an
       enemy piece, it is backward; otherwise, if a pawn on an adjacent file is blocked, it is
       not backward.
    4. Otherwise it is backward if it would become defended by advancing far enough, that is,
       if a friendly pawn stands ahead of it on an adjacent file (strictly ahead: the
       members of a pawn duo are not backward).
    """
    undefended = ours & ~up_attacks(ours)
    # Single pushes: destinations, open unless an enemy piece stands there.
    single = (ours << 8) & BB_ALL
    single_open = single & ~enemy
    single_blocked = single & enemy
    # Double steps from the second rank need both squares free of enemy pieces.
    start = ours & chess.BB_RANK_2
    middle = start << 8
    double = middle << 8
    double_open = ((middle & ~enemy) << 8) & ~enemy
    double_blocked = double & ~double_open
    en_passant_exposed = double & (((theirs << 1) & NOT_FILE_A) | ((theirs >> 1) & NOT_FILE_H))
    defending_squares = single_open | (double_open & ~en_passant_exposed)
    can_defend = up_attacks(defending_squares)
    candidates = undefended & adjacent & ~can_defend
    if not candidates:
        return 0
    blocked_defence = up_attacks(single_blocked | double_blocked)
    blocked = ours & (enemy >> 8)
    backward = candidates & (blocked_defence | blocked)
    rest = candidates & ~backward
    if rest:
        blocked_files = FILES_OF[file_byte(blocked)]
        beside_blocked = ((blocked_files << 1) & NOT_FILE_A) | ((blocked_files >> 1) & NOT_FILE_H)
        # Squares two or more ranks below a square a friendly pawn attacks, i.e. behind that
        # pawn: a pawn there meets the defence by advancing (a duo's members do not count).
        would_be_defended = fill_down(up_attacks(ours) >> 16)
        backward |= rest & ~beside_blocked & would_be_defended
    return backward


def pawn_entry(ours: int, theirs: int, enemy: int) -> PawnEntry:
    """Pawn facts for our side (we move up), cached.

    Returns packed scores and bitboards: (pawn piece-square sum, passed-pawn bonus by rank
    and blockade, passed pawns, structure (isolated, doubled, backward, backward on a
    half-open file), number of backward pawns, our pawn attacks, their pawn attacks, the files
    holding our pawns as a byte, our outpost squares).
    """
    front = ((ours << 8) | ((ours & chess.BB_RANK_2) << 16)) & enemy
    key = (ours, theirs, front)
    entry = _CACHE.get(key)
    if entry is None:
        if len(_CACHE) >= CACHE_LIMIT:
            _CACHE.clear()
        entry = _CACHE[key] = _compute_entry(ours, theirs, front)
    return entry


def _compute_entry(
    ours: int, theirs: int, front: int
) -> PawnEntry:
    """:func:`pawn_entry` without the cache; ``front`` holds the enemy pieces in the way."""
    pst = 0
    passed_bonus = 0
    passed = 0
    bb = ours
    while bb:
        low = bb & -bb
        sq = low.bit_length() - 1
        bb ^= low
        pst += _PST_P[sq]
        if not PASSED_SPAN[sq] & theirs:
            passed |= low
            rank = sq >> 3
            passed_bonus += W.PASSED_RANK[rank]
            if front >> (sq + 8) & 1:
                passed_bonus += W.PASSED_BLOCKED[rank]

    files = file_byte(ours)
    neighbours = ((files << 1) | (files >> 1)) & 0xFF
    isolated_files = files & ~neighbours
    structure = (popcount(ours) - popcount(files)) * W.DOUBLED
    if isolated_files:
        isolated = ours & FILES_OF[isolated_files]
        structure += popcount(isolated) * W.ISOLATED
        structure += (popcount(isolated) - popcount(isolated_files)) * W.DOUBLED_ISOLATED
    backward = backward_pawns(ours, theirs, front, ours & FILES_OF[files & neighbours])
    backward_count = popcount(backward)
    if backward:
        structure += backward_count * W.BACKWARD
        structure += popcount(backward & ~FILES_OF[file_byte(theirs)]) * W.BACKWARD_HALF_OPEN

    our_attacks = up_attacks(ours)
    their_attacks = down_attacks(theirs)
    outposts = RANKS_4_TO_6 & our_attacks & ~fill_down(their_attacks)
    return (
        pst, passed_bonus, passed, structure, backward_count,
        our_attacks, their_attacks, files, outposts,
    )
