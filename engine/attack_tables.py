"""python-chess's attack tables under short names, for the loops that read them at every node
(a module's own name is one look-up, `chess.BB_KNIGHT_ATTACKS` two): the evaluation's mobility,
the capture generator, the check tests and the move ordering's check and exchange tests."""

from __future__ import annotations

import chess

SQUARES = chess.BB_SQUARES
KNIGHT_ATTACKS = chess.BB_KNIGHT_ATTACKS
KING_ATTACKS = chess.BB_KING_ATTACKS
PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
DIAG_ATTACKS = chess.BB_DIAG_ATTACKS
DIAG_MASKS = chess.BB_DIAG_MASKS
RANK_ATTACKS = chess.BB_RANK_ATTACKS
RANK_MASKS = chess.BB_RANK_MASKS
FILE_ATTACKS = chess.BB_FILE_ATTACKS
FILE_MASKS = chess.BB_FILE_MASKS

LINES = [
    DIAG_ATTACKS[sq][0] | RANK_ATTACKS[sq][0] | FILE_ATTACKS[sq][0] | SQUARES[sq]
    for sq in chess.SQUARES
]
"""Each square with its rank, file and diagonals: where a piece may block a line through it."""
